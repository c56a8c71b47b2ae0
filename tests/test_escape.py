"""Where a kept conversion result goes (``analysis/escape.py``): the strict
alias rules stay silent only where the value cannot leave its function."""

from __future__ import annotations

import pytest
from analysis_helpers import site

_HEAD = "import numpy as np\nimport torch\n\n"


def _kept(body: str) -> bool:
    code = _HEAD + "def f(t, g):\n    a = t.detach().cpu().numpy()\n" + body + "    return t\n"
    return site(code, "t.detach().cpu().numpy()").stays_in_function()


@pytest.mark.parametrize(
    "body",
    [
        "    print(a.shape, a.sum(), float(a[0]), a > 0)\n",
        "    b = np.outer(a, a) + np.concatenate([a, a])\n",
        "    b = a.flatten()\n    b += 1\n",  # an ndarray's flatten copies
        "    b = a.T.mean()\n",  # a view, then a reduction
        "    del a\n",
        "    if a.any():\n        pass\n",
    ],
)
def test_only_read(body: str) -> None:
    assert _kept(body)


@pytest.mark.parametrize(
    "body",
    [
        "    g(a)\n",  # any other callable may keep it
        "    b = a\n    g(b)\n",  # bound to another name
        "    h = lambda: a\n",  # captured
        "    g(np.asarray(a[1:]))\n",  # a view of it passed on
        "    a += 1\n",  # written in place
        "    a[0] = 1\n",
        "    np.add(a, 1, out=a)\n",
        "    d = {'a': a}\n",
        "    for row in a:\n        g(row)\n",
        "    t.cache = a.view()\n",
        # every use of the name counts, rebound or not (no flow here)
        "    a = np.zeros(3)\n    g(a)\n",
    ],
)
def test_leaves_the_function(body: str) -> None:
    assert not _kept(body)


def test_module_scope_is_not_followed() -> None:
    code = _HEAD + "t = torch.zeros(3)\na = t.numpy()\nprint(a.sum())\n"
    assert not site(code, "t.numpy()").stays_in_function()


@pytest.mark.parametrize(
    ("base", "collated"),
    [
        ("torch.utils.data.Dataset", True),
        ("data.Dataset[dict]", True),
        ("BaseDataset", True),
        ("object", False),
    ],
)
def test_getitem_of_a_dataset_is_collated(base: str, collated: bool) -> None:
    code = (
        _HEAD
        + "from torch.utils import data\n\n"
        + f"class Frames({base}):\n"
        + "    def __getitem__(self, i):\n"
        + "        x = torch.from_numpy(self.frames[i])\n"
        + "        return {'x': x, 'i': i}\n"
    )
    assert site(code, "torch.from_numpy(self.frames[i])").stays_in_function() is collated


@pytest.mark.parametrize(
    "call",
    ["np.frombuffer(a)", "np.ma.masked_array(a)", "np.broadcast_arrays(a, a)",
     "np.rollaxis(a, 1)", "np.trim_zeros(a)"],
)  # fmt: skip
def test_numpy_functions_that_keep_its_memory_let_it_leave(call: str) -> None:
    assert not _kept(f"    g({call})\n")
