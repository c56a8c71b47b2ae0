"""Callers in other files: a generated matrix of small projects.

A public function (or method) of library code converts its parameter with
``.numpy()``. Another file of the project calls it, through one of several
import routes, passing one of several kinds of value. What the caller passes
decides the finding, whichever way the check is run: the whole tree, the
callee's file alone, from a warm cache.
"""

from __future__ import annotations

import itertools
import os
import shutil
import warnings
from pathlib import Path
from typing import Optional

import pytest

from tensorlint.config import Config
from tensorlint.diagnostics import FileResult
from tensorlint.engine.cache import Cache
from tensorlint.engine.runner import RunOptions, run
from tensorlint.registry import select
from tensorlint.rule import Settings

SETTINGS = Settings(enabled=select())
STRICT = Settings(enabled=select(strict=True))
#: the API boundary's guess at a parameter of a public function that no
#: checked code calls, as the default reports it: the device half (TL101).
#: The grad half is a guess the default does not report; the strict TL112
#: names it (``test_the_grad_half_of_the_guess_is_the_strict_rules``).
GUESS = {"TL101"}
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

CALLEE = """\
import torch


def to_host(t):
    return t.numpy()


class Scorer:
    def score(self, t):
        return t.numpy()
"""

#: how the caller reaches ``to_host``: (imports, the callee as the call names it)
ROUTES = {
    "from-import": ("from pkg.convert import to_host", "to_host"),
    "module-import": ("from pkg import convert", "convert.to_host"),
    "import-as": ("import pkg.convert as conv", "conv.to_host"),
    "re-export": ("from pkg import to_host", "to_host"),
    "relative": ("from .convert import to_host", "to_host"),
}

#: what the caller passes: (the statements, the argument, the codes expected)
VALUES = {
    "cuda": ("", "x.cuda()", {"TL101"}),
    "moved-name": ("y = x.to(device)", "y", {"TL101"}),
    "module-moved": ("model.to(device)\ny = model(x).detach()", "y", {"TL101"}),
    "cuda-tensor-type": ("", "torch.cuda.FloatTensor(4)", {"TL101"}),
    "cpu": ("", "x.cpu()", set()),
    "cpu-tensor-type": ("", "torch.FloatTensor(4)", set()),
    "plain": ("", "x", set()),
    "module-output": ("y = model(x)", "y", {"TL102"}),
    "detached": ("y = model(x).detach()", "y", set()),
    "no-grad": ("with torch.no_grad():\n    y = model(x)", "y", set()),
}


def _project(tmp_path: Path, route: str, value: str, method: bool = False) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PACKAGING["pyproject.toml"])
    init = "from .convert import to_host\n" if route == "re-export" else ""
    (root / "pkg" / "__init__.py").write_text(init)
    (root / "pkg" / "convert.py").write_text(CALLEE)
    imports, callee = ROUTES[route]
    setup, argument, _ = VALUES[value]
    if method:
        imports = "from pkg.convert import Scorer"
        setup = f"scorer = Scorer()\n{setup}"
        callee = "scorer.score"
    body = "".join(f"    {line}\n" for line in setup.splitlines() if line)
    caller = (
        f"import torch\n{imports}\n\n\ndef _run(model, x, device):\n"
        f"{body}    return {callee}({argument})\n"
    )
    if route == "relative":
        (root / "pkg" / "train.py").write_text(caller)
    else:
        (root / "train.py").write_text(caller)
    return root


def _codes(results: list[FileResult], root: Path, line: int) -> dict[str, set[str]]:
    """The codes found at ``line`` (5: ``to_host``; 10: ``Scorer.score``), by file."""
    found: dict[str, set[str]] = {}
    for result in results:
        assert result.error is None, result.error
        where = os.path.relpath(result.path, root).replace(os.sep, "/")
        for d in result.diagnostics:
            if d.start.line == line:
                found.setdefault(where, set()).add(d.code)
    return found


def _messages(results: list[FileResult], line: int = 5) -> list[str]:
    return [d.message for result in results for d in result.diagnostics if d.start.line == line]


@pytest.mark.parametrize(("route", "value"), list(itertools.product(ROUTES, VALUES)))
def test_a_function_takes_what_its_callers_in_other_files_pass(
    tmp_path: Path, route: str, value: str
) -> None:
    root = _project(tmp_path, route, value)
    want = VALUES[value][2]
    whole = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _codes(whole, root, 5) == ({"pkg/convert.py": want} if want else {})
    # the callee's file alone, cold and then from a warm cache: the same
    alone = root / "pkg" / "convert.py"
    for _ in range(2):
        cache = Cache(tmp_path / "cache")
        one = run([alone], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache)
        cache.save()
        assert _codes(one, root, 5) == _codes(whole, root, 5)
        assert _messages(one) == _messages(whole)


@pytest.mark.parametrize("value", list(VALUES))
def test_a_method_takes_what_callers_pass_on_the_instances_they_make(
    tmp_path: Path, value: str
) -> None:
    root = _project(tmp_path, "from-import", value, method=True)
    want = VALUES[value][2]
    whole = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _codes(whole, root, 10) == ({"pkg/convert.py": want} if want else {})
    # ``to_host`` has no caller: it keeps the API boundary's guess
    assert _codes(whole, root, 5) == {"pkg/convert.py": GUESS}


@pytest.mark.parametrize(
    "made", ["Scorer()", "Scorer().eval()", "Scorer().to(device)", "Scorer().cuda().eval()"]
)
def test_an_instance_made_through_methods_that_return_the_module_is_one(
    tmp_path: Path, made: str
) -> None:
    """``model = Model().eval()`` is a ``Model``: its methods take what the
    calls on it pass (here a module's output), and run as those calls do."""
    root = _project(tmp_path, "from-import", "module-output", method=True)
    train = root / "train.py"
    train.write_text(train.read_text().replace("scorer = Scorer()", f"scorer = {made}"))
    whole = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _codes(whole, root, 10) == {"pkg/convert.py": {"TL102"}}
    # called only with grad disabled: the body runs without grad
    train.write_text(train.read_text().replace("def _run(", "@torch.no_grad()\ndef _run("))
    whole = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _codes(whole, root, 10) == {}


ANNOTATED = {
    "parameter": "def _run(scorer: Scorer, x):\n    return scorer.score({arg})\n",
    "optional": (
        "from typing import Optional\n\n\n"
        "def _run(scorer: Optional[Scorer], x):\n    return scorer.score({arg})\n"
    ),
    "attribute": (
        "class Runner:\n    def __init__(self, make):\n        self.scorer: Scorer = make()\n\n"
        "    def run(self, x):\n        return self.scorer.score({arg})\n"
    ),
    "kept-parameter": (
        "class Runner:\n    def __init__(self, scorer: Scorer):\n        self.scorer = scorer\n\n"
        "    def run(self, x):\n        return self.scorer.score({arg})\n"
    ),
}


@pytest.mark.parametrize("how", list(ANNOTATED))
def test_an_instance_annotated_with_the_class_is_one(tmp_path: Path, how: str) -> None:
    """``scorer: Scorer`` (a parameter, ``Optional[Scorer]``, an attribute
    annotated where it is set) holds a ``Scorer``: what calls on it pass
    reaches ``Scorer.score``, settling the boundary's guess either way."""
    for arg, want in (("x.cuda()", {"pkg/convert.py": {"TL101"}}), ("x.cpu()", {})):
        root = _project(tmp_path / arg, "from-import", "plain", method=True)
        body = ANNOTATED[how].format(arg=arg)
        (root / "train.py").write_text(f"import torch\nfrom pkg.convert import Scorer\n\n\n{body}")
        whole = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
        assert _codes(whole, root, 10) == want


def test_the_message_names_the_call_in_the_other_file(tmp_path: Path) -> None:
    root = _project(tmp_path, "from-import", "cuda")
    (message,) = _messages(run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions()))
    assert message == (
        "`.numpy()` on `t`, which may be on a CUDA device (TypeError there): `t` enters "
        "`to_host()` (line 4) from `_run()` at ../train.py:6, which passes a value moved "
        "to a device that may be CUDA"
    )


def _fixed_callee(tmp_path: Path, caller: str, path: str = "train.py") -> set[str]:
    root = _project(tmp_path, "from-import", "plain")
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(caller)
    if path != "train.py":
        (root / "train.py").unlink()
    results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    return {d.code for r in results for d in r.diagnostics if d.start.line == 5}


def test_no_caller_in_the_project_keeps_the_boundary(tmp_path: Path) -> None:
    assert _fixed_callee(tmp_path, "import torch\n") == GUESS


def test_the_grad_half_of_the_guess_is_the_strict_rules(tmp_path: Path) -> None:
    # read by hand on code nobody here had tuned on, the grad half of the
    # guess was real or weak in 4 findings of 65: the default leaves it out,
    # and the strict TL112 reports it, naming the parameter
    root = _project(tmp_path, "from-import", "plain")
    (root / "train.py").write_text("import torch\n")
    results = run([root / "pkg" / "convert.py"], Config(), STRICT, RunOptions(), jobs=1)
    found = {d.code: d.message for r in results for d in r.diagnostics if d.start.line == 5}
    assert {"TL101", "TL112"} <= set(found) and "TL102" not in found
    assert found["TL112"] == (
        "`.numpy()` on `t`, which may require grad (RuntimeError there): `t` enters the "
        "public function `to_host()` (line 4) from callers outside this file, who may pass "
        "a tensor that requires grad"
    )


def test_a_function_passed_as_a_value_keeps_the_boundary(tmp_path: Path) -> None:
    caller = "from pkg.convert import to_host\n\nCONVERTERS = {'host': to_host}\n"
    assert _fixed_callee(tmp_path, caller) == GUESS


def test_map_calls_the_function_with_each_element(tmp_path: Path) -> None:
    # ``map(f, xs)`` is a call of ``f`` on each element of ``xs``: host
    # values settle the guess, moved ones are the callers' evidence
    caller = "import torch\nfrom pkg.convert import to_host\n\n"
    caller += "hosts = list(map(to_host, [torch.zeros(2)]))\n"
    assert _fixed_callee(tmp_path / "host", caller) == set()
    caller = caller.replace("torch.zeros(2)", "torch.zeros(2).cuda()")
    assert _fixed_callee(tmp_path / "moved", caller) == GUESS


def test_callers_that_are_only_tests_keep_the_boundary(tmp_path: Path) -> None:
    caller = "import torch\nfrom pkg.convert import to_host\n\n\ndef test_it():\n"
    caller += "    to_host(torch.zeros(2))\n"
    assert _fixed_callee(tmp_path, caller, "tests/test_convert.py") == GUESS


def test_a_public_caller_that_passes_its_own_parameters_keeps_the_boundary(
    tmp_path: Path,
) -> None:
    caller = "import torch\nfrom pkg.convert import to_host\n\n\ndef run(batch):\n"
    caller += "    return to_host(batch)\n"
    assert _fixed_callee(tmp_path, caller, "pkg/api.py") == GUESS


def test_every_call_under_no_grad_makes_the_body_run_without_grad(tmp_path: Path) -> None:
    caller = (
        "import torch\nfrom pkg.convert import to_host\n\n\n"
        "@torch.no_grad()\ndef _evaluate(model, x):\n    return to_host(model(x))\n"
    )
    assert _fixed_callee(tmp_path, caller) == set()
    # a public caller passes on its own callers' tensors: they may be on CUDA
    caller = caller.replace("_evaluate", "evaluate")
    assert _fixed_callee(tmp_path / "public", caller) == {"TL101"}


SCRIPT_UNDER_NO_GRAD = """\
import torch
from pkg.convert import to_host


def show(x):
    return to_host(x)


def step(model, x):
    return show(model(x))


if __name__ == "__main__":
    with torch.no_grad():
        step(torch.nn.Identity(), torch.zeros(2))
"""


def test_a_script_that_runs_its_helpers_only_under_no_grad_passes_no_grad(
    tmp_path: Path,
) -> None:
    # ``show`` passes ``step``'s forward pass, and ``step`` runs only in the
    # script's ``with torch.no_grad():``: the helpers run without grad
    assert _fixed_callee(tmp_path, SCRIPT_UNDER_NO_GRAD) == set()
    once_with_grad = SCRIPT_UNDER_NO_GRAD + "    step(torch.nn.Identity(), torch.zeros(3))\n"
    assert _fixed_callee(tmp_path / "grad", once_with_grad) == {"TL102"}
    # passed on as a value, ``step`` may be called from anywhere
    as_value = SCRIPT_UNDER_NO_GRAD + "    steps = [step]\n"
    assert _fixed_callee(tmp_path / "value", as_value) == {"TL102"}


def test_library_helpers_called_under_no_grad_here_may_be_called_with_grad_elsewhere(
    tmp_path: Path,
) -> None:
    # the same module in a package: ``step`` is public, its users are unknown
    library = SCRIPT_UNDER_NO_GRAD.replace('if __name__ == "__main__":\n', "if True:\n")
    assert "TL102" in _fixed_callee(tmp_path, library, "pkg/api.py")
    # a private one is called by this module alone
    private = library.replace("step", "_step").replace("show", "_show")
    assert _fixed_callee(tmp_path / "private", private, "pkg/api.py") == set()


#: packaging metadata, by file (what makes a project installable)
PACKAGING = {
    "pyproject.toml": '[project]\nname = "demo"\n',
    "setup.py": "",
    "setup.cfg": "[metadata]\nname = demo\n",
}


@pytest.mark.parametrize("packaging", ["pyproject.toml", "setup.py", "setup.cfg", None])
def test_an_application_function_no_file_calls_gives_no_guess(
    tmp_path: Path, packaging: Optional[str]
) -> None:
    # without packaging metadata nothing outside imports the project: a
    # function none of its files calls (tests aside) is called dynamically
    # or not at all, and what it is given is unknown
    root = _project(tmp_path, "from-import", "plain")
    (root / "pyproject.toml").unlink()
    (root / ".git").mkdir()  # a checkout: the project is known
    if packaging is not None:
        (root / packaging).write_text(PACKAGING[packaging])
    (root / "train.py").write_text("import torch\n")
    (root / "tests").mkdir()
    test = "from pkg.convert import to_host\n\n\ndef test_it():\n    to_host(None)\n"
    (root / "tests" / "test_convert.py").write_text(test)
    results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    found = {d.code for r in results for d in r.diagnostics if d.start.line == 5}
    assert found == (set() if packaging is None else GUESS)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", "[tool.black]\nline-length = 100\n"),
        ("setup.cfg", "[metadata]\nlicense_file = LICENSE\n\n[flake8]\nmax-line-length = 120\n"),
    ],
)
def test_tools_settings_alone_make_no_project_installable(
    tmp_path: Path, name: str, text: str
) -> None:
    # a ``pyproject.toml`` for black, a ``setup.cfg`` for flake8: an
    # application still, whose uncalled functions get no guess
    root = _project(tmp_path, "from-import", "plain")
    (root / "pyproject.toml").unlink()
    (root / name).write_text(text)
    (root / "train.py").write_text("import torch\n")

    def check() -> set[str]:
        cache = Cache(tmp_path / "cache")
        results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), cache=cache)
        cache.save()
        return {d.code for r in results for d in r.diagnostics if d.start.line == 5}

    assert check() == set()
    assert check() == set()  # (from the cache)
    # the metadata added, the project is installable: the guess returns, the
    # cache notwithstanding (the packaging files count in what it was told)
    (root / name).write_text(text + PACKAGING[name])
    assert check() == GUESS


def test_a_file_of_no_known_project_keeps_the_guess(tmp_path: Path) -> None:
    # no marker above it, not below the current directory: anyone's file
    root = _project(tmp_path, "from-import", "plain")
    (root / "pyproject.toml").unlink()
    (root / "train.py").unlink()
    results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    found = {d.code for r in results for d in r.diagnostics if d.start.line == 5}
    assert found == GUESS


def test_a_tree_checked_from_inside_is_a_known_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an unpacked tree with no marker, checked where it lies: the current
    # directory is the project, an application without packaging metadata
    root = _project(tmp_path, "from-import", "plain")
    (root / "pyproject.toml").unlink()
    (root / "train.py").write_text("import torch\n")
    monkeypatch.chdir(root)
    results = run([Path("pkg") / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert not [d for r in results for d in r.diagnostics if d.start.line == 5]


@pytest.mark.parametrize("packaging", ["pyproject.toml", None])
def test_an_application_method_passes_on_nothing_its_callers_guess(
    tmp_path: Path, packaging: Optional[str]
) -> None:
    # ``PitchTracker.decode`` passes its parameter on to the checked file's
    # ``to_hertz``; its only caller in the project gives it what a forward
    # pass under ``no_grad`` returned. Installable, its users outside may pass
    # anything (the guess); an application has no users outside.
    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "application" / "pitch_tracker", root)
    (root / ".git").mkdir()
    if packaging is not None:
        (root / packaging).write_text(PACKAGING[packaging])
    results = run([root / "pitch" / "decoding.py"], Config(), STRICT, RunOptions(), jobs=1)
    found = {d.code: d.message for r in results for d in r.diagnostics if d.start.line == 7}
    # the guess's grad half is the strict TL112's; without users outside, the
    # value is unknown, not guessed
    assert "TL102" not in found
    guessed = "who may pass a tensor that requires grad" in found.get("TL112", "")
    assert guessed == (packaging is not None)


def test_an_application_function_its_files_call_takes_their_values(tmp_path: Path) -> None:
    root = _project(tmp_path, "from-import", "cuda")
    (root / "pyproject.toml").unlink()
    (root / ".git").mkdir()
    results = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _codes(results, root, 5) == {"pkg/convert.py": {"TL101"}}


def test_a_second_run_sees_a_change_of_what_a_callers_helper_returns(tmp_path: Path) -> None:
    # the caller's file does not change, its helper's module does: the
    # process's tree must not keep what it read of the old summary
    root = _project(tmp_path, "from-import", "plain")
    (root / "pkg" / "feats.py").write_text("def collect(x):\n    return x.cpu()\n")
    caller = (
        "from pkg.convert import to_host\nfrom pkg.feats import collect\n\n\n"
        "def _run(x):\n    return to_host(collect(x.cuda()))\n"
    )
    (root / "train.py").write_text(caller)
    target = [root / "pkg" / "convert.py"]

    def codes() -> set[str]:
        results = run(target, Config(), SETTINGS, RunOptions(), jobs=1)
        return {d.code for r in results for d in r.diagnostics if d.start.line == 5}

    assert codes() == set()  # the helper returns a host copy
    (root / "pkg" / "feats.py").write_text("def collect(x):\n    return x  # moved no more\n")
    assert codes() == {"TL101"}


def test_a_warm_cache_sees_a_caller_change(tmp_path: Path) -> None:
    root = _project(tmp_path, "from-import", "cpu")
    alone = [root / "pkg" / "convert.py"]

    def check() -> set[str]:
        cache = Cache(tmp_path / "cache")
        results = run(alone, Config(), SETTINGS, RunOptions(), jobs=1, cache=cache)
        cache.save()
        return {d.code for r in results for d in r.diagnostics if d.start.line == 5}

    assert check() == set()
    assert check() == set()  # (from the cache)
    caller = root / "train.py"
    caller.write_text(caller.read_text().replace("x.cpu()", "x.cuda()"))
    assert check() == {"TL101"}
    (root / "train2.py").write_text("from pkg.convert import to_host\nfs = [to_host]\n")
    assert check() == GUESS  # a new file passes it on as a value


def test_callers_give_evidence_outside_library_code(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "examples").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PACKAGING["pyproject.toml"])
    helper = "import torch\n\n\ndef to_np(t):\n    return t.numpy()\n"
    (root / "examples" / "helpers.py").write_text(helper)
    (root / "examples" / "train.py").write_text(
        "import torch\nfrom helpers import to_np\n\n"
        "model = torch.nn.Linear(2, 2)\nprint(to_np(model(torch.zeros(2))))\n"
    )
    results = run([root / "examples" / "helpers.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert {d.code for r in results for d in r.diagnostics} == {"TL102"}
    # without that caller, the helper of an example is not library code: silent
    (root / "examples" / "train.py").write_text("import torch\n")
    results = run([root / "examples" / "helpers.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert not [d for r in results for d in r.diagnostics]


def test_an_attribute_made_on_a_device_in_another_method_is_evidence(tmp_path: Path) -> None:
    caller = (
        "import torch\nfrom pkg.convert import to_host\n\n\nclass _Tester:\n"
        "    def setup(self, n):\n        self.scores = torch.zeros(n, device=self.device)\n\n"
        "    def report(self):\n        return to_host(self.scores)\n"
    )
    assert _fixed_callee(tmp_path, caller) == {"TL101"}
    on_cpu = caller.replace("device=self.device", 'device="cpu"')
    assert _fixed_callee(tmp_path / "cpu", on_cpu) == set()


def test_a_parameter_named_for_a_device_or_a_size_is_no_boundary(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PACKAGING["pyproject.toml"])
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(
        "import torch\n\n\ndef sizes(batch_size, x):\n    return batch_size.numpy(), x.numpy()\n"
    )
    results = run([root], Config(), SETTINGS, RunOptions(), jobs=1)
    found = {(d.start.column, d.code) for r in results for d in r.diagnostics}
    # ``x`` may be anything a caller passes; ``batch_size`` is a number by name
    assert found == {(31, code) for code in GUESS}


def test_reading_a_caller_emits_no_warning_about_its_code(tmp_path: Path) -> None:
    # (an invalid escape: CPython warns when it parses it, 3.12 with a SyntaxWarning)
    caller = 'import re\nfrom pkg.convert import to_host\n\nPATTERN = re.compile("\\d+")\n\n\n'
    caller += "def _run(x):\n    return to_host(x.cuda())\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _fixed_callee(tmp_path, caller) == {"TL101"}
    assert not [w for w in caught if issubclass(w.category, (SyntaxWarning, DeprecationWarning))]


def test_only_the_parameters_given_the_moved_value_take_the_evidence(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "examples").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PACKAGING["pyproject.toml"])
    helper = (
        "import torch\n\n\ndef to_np(labels_t, scores_t):\n"
        "    return labels_t.numpy(), scores_t.numpy()\n"
    )
    (root / "examples" / "helpers.py").write_text(helper)
    train = "import torch\nfrom helpers import to_np\n\nx = torch.zeros(2)\nto_np({})\n"
    (root / "examples" / "train.py").write_text(train.format("x, x.cuda()"))
    results = run([root / "examples" / "helpers.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    found = [(d.start.line, d.code, d.message) for r in results for d in r.diagnostics]
    assert [(line, code) for line, code, _ in found] == [(5, "TL101")]
    assert "`scores_t`" in found[0][2]
    # by keyword, the same; with ``*args``, which one gets it is not known: both
    (root / "examples" / "train.py").write_text(train.format("scores_t=x.cuda(), labels_t=x"))
    results = run([root / "examples" / "helpers.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert ["`scores_t`" in d.message for r in results for d in r.diagnostics] == [True]
    (root / "examples" / "train.py").write_text(train.format("*[x, x.cuda()]"))
    results = run([root / "examples" / "helpers.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert sorted(d.start.column for r in results for d in r.diagnostics) == [11, 29]


def _notebook(*cells: str) -> str:
    import json

    code = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells]
    return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_of_the_project_is_a_caller(tmp_path: Path) -> None:
    first = "import torch\nfrom pkg.convert import to_host\n"
    moved = "x = torch.zeros(3)\nto_host(x.cuda())\n"
    root = _project(tmp_path, "from-import", "plain")
    (root / "train.py").unlink()
    (root / "demo.ipynb").write_text(_notebook(first, moved))
    results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert {d.code for r in results for d in r.diagnostics if d.start.line == 5} == {"TL101"}
    assert "demo.ipynb:cell 2:2" in _messages(results)[0]
    # a notebook that passes host tensors settles the guess: no finding
    (root / "demo.ipynb").write_text(_notebook(first, "x = torch.zeros(3)\nto_host(x)\n"))
    results = run([root / "pkg" / "convert.py"], Config(), SETTINGS, RunOptions(), jobs=1)
    assert _messages(results) == []


def test_a_script_moves_a_value_after_the_call_counts_only_after(tmp_path: Path) -> None:
    caller = (
        "import torch\nfrom pkg.convert import to_host\n\n"
        "x = torch.zeros(3)\nto_host(x)\nx = x.cuda()\n"
    )
    assert _fixed_callee(tmp_path, caller) == set()
    assert _fixed_callee(tmp_path / "after", caller + "to_host(x)\n") == {"TL101"}
