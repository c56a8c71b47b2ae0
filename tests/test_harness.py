"""The runtime harness: every case x input cell, and proof that it can fail."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable

import pytest

torch = pytest.importorskip("torch", reason="the harness needs torch (test extra)")

from tensorlint.cli import main  # noqa: E402
from tensorlint.harness import runner  # noqa: E402
from tensorlint.harness.inputs import InputSpec, matrix  # noqa: E402
from tensorlint.registry import ALL_RULES  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CUDA = torch.cuda.is_available()
CASE_FILES = runner.find_cases([FIXTURES])


@functools.cache
def _loaded(path: Path) -> tuple[runner.Case, Callable[[Any], Any], Callable[[Any], Any]]:
    case = runner.load_case(path)
    original = runner._load(case.original, f"<{case.name}:original>", case.call)
    rewritten = runner._load(case.rewritten, f"<{case.name}:rewritten>", case.call)
    return case, original, rewritten


def _cells() -> list[Any]:
    cells = []
    for path in CASE_FILES:
        kind = runner.read_table(path.read_text(), path)["inputs"]
        for spec in matrix(kind):
            name = f"{path.parent.name}/{path.stem}[{spec.id}]"
            marks = []
            if spec.device == "cuda":
                marks = [pytest.mark.cuda, pytest.mark.skipif(not CUDA, reason="no CUDA device")]
            cells.append(pytest.param(path, spec, id=name, marks=marks))
    return cells


@pytest.mark.parametrize(("path", "spec"), _cells())
def test_cell(path: Path, spec: InputSpec) -> None:
    case, original, rewritten = _loaded(path)
    if case.expect_unchanged:
        assert case.rewritten == case.original, "the fixer must leave this case alone"
    result = runner.run_cell(case, original, rewritten, spec)
    assert result.outcome == "passed", f"{result.check}: {result.detail}"


def test_every_fixable_rule_has_a_runtime_case() -> None:
    codes = {p.parent.name for p in CASE_FILES if p.stem.startswith("fire_")}
    assert codes == {rule.CODE for rule in ALL_RULES if rule.FIX}


def test_false_positive_and_intent_cases_come_out_of_the_fixer_unchanged() -> None:
    unchanged = [runner.load_case(p) for p in CASE_FILES if p.stem.startswith("ok_")]
    assert len(unchanged) >= 5
    assert any(case.intent for case in unchanged)
    for case in unchanged:
        assert case.rewritten == case.original, case.name


# --- the harness must be able to fail -----------------------------------------


def _wrong(tmp_path: Path, source: str, rewritten: str, name: str = "TL202") -> list[Any]:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    path = folder / "fire_case.py"
    path.write_text(source)
    case = runner.load_case(path, rewritten=rewritten)
    return [r for r in runner.run_case(case, devices=["cpu"]) if r.outcome == "failed"]


HEADER = "import numpy as np\nimport torch\n\n"


def test_a_dropped_copy_is_caught_by_the_no_sharing_check(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "tensor"}\n\n\n'
    source += "def case(t):\n    return t.detach().cpu().numpy()\n"
    wrong = source  # the fix's .copy() left out
    failures = _wrong(tmp_path, source, wrong, "TL212")
    assert failures and {f.check for f in failures} == {runner.SHARING}
    assert "tensor-cpu-float32-contiguous" in {f.input for f in failures}


def test_a_dropped_copy_before_a_write_is_caught_by_the_inputs_check(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "tensor"}\n\n\n'
    source += "def case(t):\n    a = t.numpy()\n    a += 1\n    return a\n"
    wrong = source.replace("t.numpy()", "t.cpu().detach().numpy()")
    failures = _wrong(tmp_path, source, wrong)
    assert {f.check for f in failures} == {runner.UNTOUCHED}
    assert "tensor-cpu-float64-contiguous-grad" in {f.input for f in failures}


def test_a_clone_that_no_longer_breaks_the_alias_is_caught(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "array"}\n\n\n'
    source += "def case(a):\n    t = torch.from_numpy(a)\n    t += 1\n    return t\n"
    wrong = source.replace("    t += 1\n", "    t.clone()\n    t += 1\n")
    failures = _wrong(tmp_path, source, wrong, "TL201")
    assert {f.check for f in failures} == {runner.UNTOUCHED}
    assert "array-cpu-float32-writable" in {f.input for f in failures}


def test_a_missing_detach_is_caught_by_the_hazard_check(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "tensor"}\n\n\n'
    source += "def case(t):\n    return (t * 2).numpy()\n"
    wrong = source.replace(".numpy()", ".cpu().numpy()")
    failures = _wrong(tmp_path, source, wrong, "TL102")
    assert {f.check for f in failures} == {runner.HAZARD}
    cells = {f.input for f in failures}
    assert "tensor-cpu-float32-contiguous-grad" in cells
    assert "tensor-cpu-float32-contiguous" not in cells


def test_a_rewrite_that_changes_the_dtype_is_caught(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "tensor"}\n\n\n'
    source += "def case(t):\n    return t.numpy()\n"
    wrong = source.replace("t.numpy()", "t.cpu().detach().double().numpy()")
    failures = _wrong(tmp_path, source, wrong, "TL101")
    by_cell = {f.input: f.check for f in failures}
    assert by_cell["tensor-cpu-float32-contiguous"] == runner.VALUES
    assert by_cell["tensor-cpu-float32-contiguous-grad"] == runner.HAZARD
    assert "tensor-cpu-float64-contiguous" not in by_cell


def test_a_fix_applied_to_an_intentional_write_is_caught(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "array", "intent": True}\n\n\n'
    source += "def case(a):\n    torch.from_numpy(a).zero_()\n    return a\n"
    wrong = source.replace("from_numpy(a)", "from_numpy(a).clone()")
    failures = _wrong(tmp_path, source, wrong, "TL201")
    assert failures and {f.check for f in failures} == {runner.INTENT}


def test_an_intentional_case_that_stopped_sharing_is_caught(tmp_path: Path) -> None:
    source = HEADER + 'HARNESS = {"call": "case", "inputs": "array", "intent": True}\n\n\n'
    source += "def case(a):\n    return torch.from_numpy(a.copy())\n"
    failures = _wrong(tmp_path, source, source, "TL201")
    assert {f.check for f in failures} == {runner.INTENT}


# --- the command ----------------------------------------------------------------


def test_harness_command_passes_on_the_fixtures_and_reports_every_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    code = main(["harness", str(FIXTURES / "TL201"), "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(report.read_text())
    assert data["summary"]["failed"] == 0
    cases = {c["case"] for c in data["cells"]}
    assert "TL201/fire_runtime_tensor_write" in cases
    assert all({"case", "input", "device", "outcome"} <= set(c) for c in data["cells"])
    assert " passed, 0 failed, " in out


def test_absent_devices_are_skipped_with_a_reason_never_passed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "TL101" / "fire_runtime_unknown_device.py"
    results = runner.run_case(runner.load_case(path), devices=["cpu"])
    cuda = [r for r in results if r.device == "cuda"]
    assert cuda and all(r.outcome == "skipped" and r.detail == "no CUDA device" for r in cuda)


def test_a_failing_case_makes_the_command_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "TL201"
    folder.mkdir()
    # an intentional write the fixer cannot know about (an update, not a fill
    # of the whole tensor, which is known to be on purpose): it gets "fixed",
    # and fails
    (folder / "ok_case.py").write_text(
        HEADER + 'HARNESS = {"call": "case", "inputs": "array", "intent": True}\n\n\n'
        "def case(a):\n    t = torch.from_numpy(a)\n    t.add_(1)\n    return a\n"
    )
    assert main(["harness", str(folder)]) == 1
    assert "FAILED TL201/ok_case" in capsys.readouterr().out


def test_a_bad_case_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "case.py"
    bad.write_text('HARNESS = {"call": "case"}\n')
    assert main(["harness", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "case.py" in err and "inputs" in err
