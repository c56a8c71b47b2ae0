"""Caller facts in the file, the API boundary's edges, and what gives no grad."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import site

from tensorlint.analysis.facts import CPU, NOGRAD
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.engine.lint import lint_source
from tensorlint.registry import select
from tensorlint.roles import is_library, is_test
from tensorlint.rule import Settings

HELPER = """
import torch

def _to_array(t):
    return t.numpy()

def _report(model, x):
    out = model(x.cuda()).detach(){suffix}
    return _to_array(out){extra}
"""


def _codes(source: str, *codes: str, library: bool = True) -> list[tuple[int, str]]:
    settings = Settings(enabled=select(select=list(codes), strict=True), library=library)
    return [(d.start.line, d.code) for d in lint_source(source, settings)]


def test_what_the_only_caller_passes_is_the_parameters_facts() -> None:
    moved = site(HELPER.format(suffix="", extra=""), "t.numpy()")
    evidence = moved.device_evidence(moved.receiver)
    assert evidence is not None and evidence.kind == "move"
    on_cpu = site(HELPER.format(suffix=".cpu()", extra=""), "t.numpy()")
    assert on_cpu.facts(parse_expression("t")) >= {CPU, NOGRAD}


def test_a_caller_we_cannot_see_keeps_the_evidence_but_not_the_proofs() -> None:
    # ``map(_to_array, ...)`` calls it with values the analysis does not follow
    source = HELPER.format(suffix=".cpu()", extra=", list(map(_to_array, [x]))")
    unknown = site(source, "t.numpy()")
    assert CPU not in unknown.facts(parse_expression("t"))
    assert _codes(source, "TL101", "TL111") == [(5, "TL111")]


def test_callers_in_the_file_do_not_prove_a_public_function_safe() -> None:
    source = HELPER.replace("_to_array", "to_array").format(suffix=".cpu()", extra="")
    assert _codes(source, "TL101", "TL111") == [(5, "TL111")]  # outside callers may differ
    assert _codes(source, "TL101", "TL111", library=False) == []


def test_a_method_called_as_self_method_gets_its_callers_facts() -> None:
    source = """
import torch

class Plotter:
    def _draw(self, t):
        return t.numpy()

    def _show(self, model, x):
        return self._draw(model(x.cuda()).detach())
"""
    assert _codes(source, "TL101", "TL102") == [(6, "TL101")]


def test_values_through_star_kwargs_enter_from_outside() -> None:
    source = """
import torch

def to_frame(**columns):
    frame = {}
    for key, value in columns.items():
        frame[key] = value.cpu().numpy()
    return frame
"""
    # (the grad guess: the strict TL112 names it)
    (found,) = lint_source(source, Settings(enabled=select(select=["TL101", "TL102", "TL112"])))
    assert (found.start.line, found.code) == (7, "TL112")
    assert "`columns` enters the public function `to_frame()`" in found.message


def test_data_named_parameters_give_device_but_not_grad_evidence() -> None:
    source = """
import torch

def count(labels, scores):
    return labels.numpy(), labels.cpu().numpy(), scores.cpu().numpy()
"""
    assert _codes(source, "TL101", "TL102") == [(5, "TL101")]
    found = lint_source(source, Settings(enabled=select(select=["TL101", "TL112"])))
    assert [d.code for d in found if "`labels` enters" in d.message] == ["TL101"]
    # the grad guess (the strict TL112's) is made for ``scores`` alone
    assert [d.code for d in found if "`scores` enters" in d.message] == ["TL112"]


def test_a_parameter_rebound_on_one_path_keeps_its_evidence_on_the_other() -> None:
    source = """
import torch

def export(example=None):
    if example is None:
        example = torch.zeros(3)
    return example.numpy()
"""
    assert _codes(source, "TL101") == [(7, "TL101")]


def test_parameter_free_modules_and_losses_add_no_grad() -> None:
    source = """
import torch
from torch import nn

def _run(x, y):
    act = nn.Sequential(nn.ReLU(), nn.Dropout(0.1))
    loss = nn.MSELoss()(act(x), y)
    net = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    return act(x).numpy(), loss.numpy(), net(x).numpy()
"""
    found = lint_source(source, Settings(enabled=select(select=["TL102"])))
    assert [(d.start.line, d.message.split("`")[3]) for d in found] == [(9, "net(x)")]


def test_scripts_outside_a_package_are_not_library_code(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n")
    plain = tmp_path / "helpers.py"
    plain.write_text("def main():\n    pass\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    inside = package / "cli.py"
    inside.write_text(script.read_text())
    assert not is_library(script, tmp_path)
    assert is_library(plain, tmp_path)
    assert is_library(inside, tmp_path)
    assert not is_library(tmp_path / "recipes" / "asr" / "model.py", tmp_path)


def test_a_finding_names_the_call_that_passed_its_evidence_in() -> None:
    source = HELPER.format(suffix="", extra="")
    (found,) = lint_source(source, Settings(enabled=select(select=["TL101"])))
    assert "`_to_array(...)` at line 9 passes it in" in found.message
    assert [r.start.line for r in found.related] == [8, 9]


def test_a_static_method_binds_the_first_argument_to_its_first_parameter() -> None:
    source = """
import torch

class Plotter:
    @staticmethod
    def _draw(t, scale):
        return t.numpy() * scale

    def _show(self, model, x):
        return self._draw(model(x.cuda()).detach(), 2)
"""
    assert _codes(source, "TL101") == [(7, "TL101")]


def test_the_engine_decides_a_script_by_its_text_without_an_extra_read(tmp_path: Path) -> None:
    from tensorlint.config import Config
    from tensorlint.engine.runner import RunOptions, run, settings_for

    body = "import torch\n\ndef to_array(t):\n    return t.numpy()\n"
    script = tmp_path / "train.py"
    script.write_text(body + "\nif __name__ == '__main__':\n    to_array(None)\n")
    module = tmp_path / "helpers.py"
    module.write_text(body)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")  # (installable)
    settings = Settings(enabled=select(select=["TL101"]))
    assert settings_for(script, Config(), settings).library is None  # the path does not say
    results = run([script, module], Config(), settings, RunOptions())
    found = {Path(r.path).name: len(r.diagnostics) for r in results}
    assert found == {"train.py": 0, "helpers.py": 1}  # a script has no outside callers


def test_a_test_folder_counts_from_any_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a checkout (an unpacked sdist) checked from outside it, with no
    # configuration: its tests/ folder still makes tests, and the folders
    # above the checkout (``tools/``) still do not count
    checkout = tmp_path / "tools" / "project-1.0"
    package = checkout / "project"
    tests = package / "tests"
    tests.mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'project'\n")
    for folder in (package, tests):
        (folder / "__init__.py").write_text("")
        (folder / "helpers.py").write_text("def f(t):\n    return t.numpy()\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # from elsewhere, from the checkout, from above it (where ``tools/`` is a
    # folder below the current directory) and from inside its tests
    for cwd in (elsewhere, checkout, tmp_path, tmp_path / "tools", tests, package):
        monkeypatch.chdir(cwd)
        assert not is_library(tests / "helpers.py"), cwd
        assert is_library(package / "helpers.py"), cwd
        assert is_test(tests / "helpers.py"), cwd
        assert not is_test(package / "helpers.py"), cwd


@pytest.mark.parametrize("tests_package", [True, False], ids=["tests-package", "tests-folder"])
def test_without_a_project_marker_the_top_package_bounds_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tests_package: bool
) -> None:
    # only the ``.py`` files of a release, unpacked: no pyproject.toml, no
    # setup.py; its tests still make tests, and ``tools/`` above it does not count
    checkout = tmp_path / "tools" / "project-1.0"
    package = checkout / "project"
    tests = package / "tests"
    tests.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    if tests_package:
        (tests / "__init__.py").write_text("")
    for folder in (package, tests):
        (folder / "helpers.py").write_text("def f(t):\n    return t.numpy()\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert not is_library(tests / "helpers.py")
    assert is_library(package / "helpers.py")


# -- hooks: methods a base class calls on ``self`` ------------------------------

TEMPLATE = """
import torch

class Scorer:
    def scores(self, batches):
{body}

class NetScorer(Scorer):
    def score(self, batch):
        return self.net(batch).numpy()
"""


SCORES = "        return [self.score(b) for b in batches]"


def _messages(source: str, *codes: str) -> list[str]:
    settings = Settings(enabled=select(select=list(codes)))
    return [f"{d.code} {d.message}" for d in lint_source(source, settings)]


@pytest.mark.parametrize(
    "body",
    [
        f"        with torch.no_grad():\n    {SCORES}",
        f"        with torch.inference_mode():\n    {SCORES}",
        "        torch.set_grad_enabled(True)\n"
        f"        with torch.set_grad_enabled(False):\n    {SCORES}",
    ],
    ids=["no_grad", "inference_mode", "set_grad_enabled"],
)
def test_a_hook_the_base_class_runs_without_grad_runs_without_grad(body: str) -> None:
    assert _codes(TEMPLATE.format(body=body), "TL102") == []


@pytest.mark.parametrize(
    "body",
    [
        SCORES,
        f"        with torch.inference_mode(False):\n    {SCORES}",
        # a lambda runs when it is called: not inside the ``with`` block
        "        with torch.no_grad():\n            f = lambda b: self.score(b)\n"
        "        return [f(b) for b in batches]",
        # one call with grad on is enough
        "        with torch.no_grad():\n            first = self.score(batches[0])\n"
        "        return first, self.score(batches[1])",
    ],
    ids=["grad", "inference_mode_false", "lambda", "one_call_with_grad"],
)
def test_a_hook_the_base_class_may_run_with_grad_keeps_its_grad_evidence(body: str) -> None:
    source = TEMPLATE.format(body=body)
    assert _codes(source, "TL102") == [(_line(source, ".numpy()"), "TL102")]


def _line(source: str, text: str) -> int:
    return source[: source.index(text)].count("\n") + 1


def test_the_subclass_calling_its_hook_with_grad_keeps_the_evidence() -> None:
    body = "        with torch.no_grad():\n            return [self.score(b) for b in batches]"
    source = TEMPLATE.format(body=body) + "\n    def fit(self, x):\n        self.score(x)\n"
    assert _codes(source, "TL102") == [(_line(source, ".numpy()"), "TL102")]


def test_a_hook_given_the_base_class_own_values_is_not_an_api_boundary() -> None:
    # the base class makes what it passes (its attribute): no caller outside
    own = TEMPLATE.format(body="        return [self.score(b) for b in self.batches]")
    assert _codes(own.replace("self.net(batch)", "batch"), "TL101") == []
    # what it passes comes from its own callers: the boundary moves up to them
    passed = TEMPLATE.format(body="        return [self.score(b) for b in batches]")
    assert _messages(passed.replace("self.net(batch)", "batch"), "TL101") == [
        "TL101 `.numpy()` on `batch`, which may be on a CUDA device (TypeError "
        "there): `batch` enters `score()` (line 9) from `Scorer.scores()` at line 6, which "
        "passes on what its own callers give it, who may pass a CUDA tensor"
    ]
    # a value the base class moves keeps the evidence too
    moved = TEMPLATE.format(body="        return self.score(self.batch.cuda())")
    assert _codes(moved.replace("self.net(batch)", "batch"), "TL101") == [(10, "TL101")]


@pytest.mark.parametrize(
    ("extra", "fires"),
    [
        # ``scores`` is called by the class with a value it makes: those calls
        # are its callers, and they give the hook nothing from outside
        ("    def run(self):\n        return self.scores(self.batches)\n", False),
        # two calls up, the same
        (
            "    def run(self, k):\n        return self.scores(self.batches[k])\n"
            "    def main(self):\n        return self.run(0)\n",
            False,
        ),
        # the calling method passes on its own parameter, and nothing calls it
        ("    def run(self, batches):\n        return self.scores(batches)\n", True),
        # ``scores`` is handed out as a value: called where no one here sees
        (
            "    def run(self):\n        self.hook = self.scores\n"
            "        return self.scores(self.batches)\n",
            True,
        ),
    ],
    ids=["called_with_own_values", "two_calls_up", "passes_its_parameter", "passed_as_a_value"],
)
def test_a_hook_follows_the_calls_of_the_base_method_that_passes_it_on(
    extra: str, fires: bool
) -> None:
    body = "        return [self.score(b) for b in batches]\n" + extra
    source = TEMPLATE.format(body=body).replace("self.net(batch)", "batch")
    assert bool(_codes(source, "TL101")) is fires


def test_the_message_names_the_evidence_that_decided() -> None:
    # the move the code shows, inside the converted expression, decides; the
    # API boundary's guess about ``m`` does not (issue: ``m`` was named)
    source = "import torch\n\n\ndef run(m, x):\n    return m(x.cuda()).numpy()\n"
    (message,) = _messages(source, "TL101")
    assert "it comes from `x.cuda()` at line 5" in message, message
    # a trainable parameter beats the boundary of the module it belongs to
    source = "import torch\n\n\ndef weights(layer):\n    return layer.weight.cpu().numpy()\n"
    (message,) = _messages(source, "TL102")
    assert "it comes from `layer.weight` at line 5, a trainable parameter" in message, message


def test_a_subfolder_that_builds_an_extension_is_not_a_project_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``egs/tts/align/setup.py`` builds a Cython extension: its folder is still
    # in the checkout's ``egs/`` (recipes), not the top of a library
    checkout = tmp_path / "toolkit"
    align = checkout / "egs" / "tts" / "align"
    align.mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'toolkit'\n")
    (align / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    (align / "__init__.py").write_text("def path(x):\n    return x.cpu().numpy()\n")
    for cwd in (tmp_path, checkout, align):
        monkeypatch.chdir(cwd)
        assert not is_library(align / "__init__.py"), cwd
