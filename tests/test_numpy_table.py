"""The NumPy-function table is measured, not assumed: every row again, here.

``tensorlint/analysis/numpy_table.py`` says, for each NumPy function, whether
a tensor (or a list of tensors) given to it reaches ``Tensor.__array__`` and
whether converting the argument first keeps the call's meaning. These tests
run each row's example against the installed torch and NumPy: on a tensor
that requires grad, on a ``meta`` tensor (the CPU stand-in for CUDA) and, on
a machine with CUDA, on a CUDA tensor.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_tools import load_tool

from tensorlint.analysis import numpy_table, ops

torch = pytest.importorskip("torch", reason="the table is measured with torch (test extra)")

ROOT = Path(__file__).resolve().parent.parent


measure_numpy = load_tool("measure_numpy")


@pytest.mark.parametrize("entry", numpy_table.FUNCTIONS, ids=lambda e: e.name)
def test_each_row_is_what_the_installed_versions_do(entry: numpy_table.NumpyFunction) -> None:
    found = measure_numpy.measure(entry.example, "meta")
    assert (found.tensor, found.sequence, found.same) == (entry.tensor, entry.sequence, entry.same)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("entry", numpy_table.FUNCTIONS, ids=lambda e: e.name)
def test_each_row_holds_on_cuda(entry: numpy_table.NumpyFunction) -> None:
    found = measure_numpy.measure(entry.example, "cuda")
    assert (found.tensor, found.sequence) == (entry.tensor, entry.sequence)


@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True to a scalar")
def test_the_rows_left_out_do_not_fail_like_a_conversion() -> None:
    import numpy as np

    assert [name for name, _ in numpy_table.LEFT_OUT] == ["numpy.float64", "numpy.array_equal"]
    loss = torch.ones((), requires_grad=True) * 2  # a 0-d tensor that requires grad
    assert np.float64(loss) == 2.0  # float(t): no conversion through __array__
    found = measure_numpy.measure("np.array_equal({x}, {x})", "meta")
    assert not found.tensor and not found.sequence  # the error is caught


def test_the_rules_read_the_table() -> None:
    assert ops.NUMPY_ARRAY_CTORS <= ops.NUMPY_CONVERTING_FUNCS == numpy_table.CONVERTING
    assert "numpy.float64" not in ops.NUMPY_CONVERTING_FUNCS


@pytest.mark.parametrize("row", numpy_table.STORES, ids=lambda r: f"{r.shape}[{r.subscript}]")
def test_each_store_is_what_the_installed_versions_do(row: numpy_table.ArrayStore) -> None:
    assert measure_numpy.measure_store(row.shape, row.subscript, "meta") == row.converts


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("row", numpy_table.STORES, ids=lambda r: f"{r.shape}[{r.subscript}]")
def test_each_store_holds_on_cuda(row: numpy_table.ArrayStore) -> None:
    assert measure_numpy.measure_store(row.shape, row.subscript, "cuda") == row.converts


@pytest.mark.parametrize("row", numpy_table.STORES, ids=lambda r: f"{r.shape}[{r.subscript}]")
def test_the_analysis_reads_each_store_as_measured(row: numpy_table.ArrayStore) -> None:
    """``analysis/stores.py`` decides from the code what ``STORES`` measured:
    a store into one element is no conversion, one into a sub-array is."""
    from tensorlint.analysis import syntax
    from tensorlint.analysis.index import build_index
    from tensorlint.analysis.parse import parse_whole
    from tensorlint.analysis.stores import bindings, subarray_store

    shape = row.shape[0] if len(row.shape) == 1 else row.shape
    source = "import numpy as np\n\ndef f(t):\n"
    source += f"    a = np.zeros({shape})\n    a[{row.subscript}] = t\n"
    module = parse_whole(source)
    function = module.body[1]
    assert isinstance(function, syntax.FunctionDef)
    store = function.body.body[1].body[0]
    assert isinstance(store, syntax.Assign)
    target = store.targets[0].target
    assert isinstance(target, syntax.Subscript)
    scope = build_index(module).scopes[function]
    found = subarray_store(target, store.value, lambda: bindings(function), scope)
    assert (found is not None) == row.converts


def test_the_tensor_method_names_are_the_installed_torchs() -> None:
    """``analysis/tensor_methods.py`` is generated from ``dir(torch.Tensor)``
    and ``dir(torch.distributions.Distribution)``: regenerate it when torch
    moves (``python tools/gen_tensor_methods.py``)."""
    import torch

    from tensorlint.analysis import tensor_methods

    installed = torch.__version__.split("+")[0]
    if installed != tensor_methods.TORCH_VERSION:
        pytest.skip(
            f"the names were generated from torch {tensor_methods.TORCH_VERSION}, the pinned "
            f"version; torch {installed} is installed here, whose names differ by design"
        )
    gen = load_tool("gen_tensor_methods")
    assert gen.render() == gen.MODULE.read_text(encoding="utf-8")


def test_the_tensor_method_names_hold_the_ones_the_analysis_relies_on() -> None:
    from tensorlint.analysis import tensor_methods

    assert {"cpu", "detach", "numpy", "values"} <= tensor_methods.TENSOR_NAMES
    assert {"sample", "rsample", "log_prob"} <= tensor_methods.DISTRIBUTION_NAMES
    assert "get_preds" not in tensor_methods.TENSOR_NAMES | tensor_methods.DISTRIBUTION_NAMES


def _in_host_memory(value: object) -> bool:
    """No tensor on another device, none that requires grad (an array, a
    NumPy or Python scalar, a CPU tensor without grad; or each of a tuple's)."""
    if isinstance(value, (tuple, list)):
        return all(_in_host_memory(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.device.type == "cpu" and not value.requires_grad
    return True


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("entry", numpy_table.FUNCTIONS, ids=lambda e: e.name)
def test_host_result_rows_return_host_memory_or_raise(
    entry: numpy_table.NumpyFunction, tmp_path: Path
) -> None:
    """``HOST_RESULT`` (what the analysis takes a NumPy call's value to be):
    given a tensor that requires grad or one off the CPU, alone or in a list,
    each of those calls raises or returns host memory; the rows left out
    return a tensor where the argument was."""
    function = measure_numpy._compile(entry.example, str(tmp_path))

    def grad() -> object:
        return torch.arange(6.0).reshape(2, 3).requires_grad_() * 1.5

    def moved() -> object:
        return torch.arange(6.0, device="meta").reshape(2, 3) * 1.5

    host = True
    for value in (grad(), moved(), [grad(), grad()], [moved(), moved()]):
        try:
            result = function(value)
        except Exception:
            continue
        host = host and _in_host_memory(result)
    assert host == (entry.name in numpy_table.HOST_RESULT)
    assert ops.NUMPY_HOST_RESULT_FUNCS == numpy_table.HOST_RESULT
