"""The pytest plugin ``tensorlint.sanitize``, run through the real pytest on
fixture projects: what it records, what it matches with the static rules,
and that it changes no test's outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the plugin watches torch (test extra)")
np = pytest.importorskip("numpy", reason="the plugin watches numpy (test extra)")

from tensorlint import sanitize  # noqa: E402

SHOP = Path(__file__).resolve().parent.parent / "fixtures" / "sanitize" / "shop"


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = [str(project), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--rootdir", str(project), *args, str(project / "tests")]  # fmt: skip
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, check=False
    )


def _report(project: Path, tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    path = tmp_path / "report.json"
    done = _pytest(project, "-p", "tensorlint.sanitize", "--tensorlint-report", str(path), *args)
    assert path.exists(), done.stdout + done.stderr
    return json.loads(path.read_text(encoding="utf-8")), done.stdout


def _tests(tmp_path: Path, name: str, source: str) -> Path:
    """A project of one test file, ``tests/test_<name>.py``."""
    project = tmp_path / name
    (project / "tests").mkdir(parents=True)
    (project / "tests" / f"test_{name}.py").write_text(source)
    return project


def _outcomes(stdout: str) -> str:
    return stdout.strip().splitlines()[-1].split(" in ")[0]


def test_hazards_that_happen_are_recorded_at_their_line(tmp_path: Path) -> None:
    report, stdout = _report(SHOP, tmp_path)
    events = {(e["file"], e["line"], e["kind"]) for e in report["events"]}
    assert events == {
        ("shop/prices.py", 10, "write-through"),  # the catalog's prices, scaled in place
        ("shop/prices.py", 29, "write-through"),  # a weight snapshot, then a step
        ("shop/prices.py", 33, "grad"),  # .numpy() on a module's output
    }
    tests = {e["line"]: e["test"] for e in report["events"]}
    assert tests[10] == "tests/test_prices.py::test_discount_changes_the_catalog"
    ran = {(c["file"], c["line"]) for c in report["conversions"]}
    # the clone and the temporary source ran, and nothing happened there
    assert {("shop/prices.py", 13), ("shop/prices.py", 23)} <= ran
    assert "3 hazard(s) happened" in stdout


def test_runtime_events_are_matched_with_the_static_findings(tmp_path: Path) -> None:
    report, stdout = _report(SHOP, tmp_path)
    confirmed = {(c["line"], c["code"]) for c in report["static"]["confirmed"]}
    assert confirmed == {(10, "TL211"), (29, "TL212"), (33, "TL112")}
    assert report["static"]["missed"] == []
    assert "3 confirmed, 0 missed" in stdout


def test_without_the_static_check(tmp_path: Path) -> None:
    report, _ = _report(SHOP, tmp_path, "--tensorlint-no-static")
    assert "static" not in report
    assert len(report["events"]) == 3


def test_the_plugin_changes_no_outcome(tmp_path: Path) -> None:
    plain = _pytest(SHOP)
    _, watched = _report(SHOP, tmp_path)
    assert _outcomes(plain.stdout) == _outcomes(watched) == "1 failed, 4 passed"


def test_a_suite_that_never_converts(tmp_path: Path) -> None:
    project = _tests(tmp_path, "sum", "def test_sum():\n    assert 1 + 1 == 2\n")
    report, stdout = _report(project, tmp_path)
    assert report["conversions"] == [] and report["events"] == []
    assert "0 conversion(s) at 0 site(s)" in stdout


def test_numpy_writes_through_an_array_view(tmp_path: Path) -> None:
    project = _tests(
        tmp_path,
        "view",
        "import numpy as np\nimport torch\n\n\n"
        "def test_view():\n"
        "    t = torch.zeros(3)\n"
        "    a = np.asarray(t)\n"
        "    a[0] = 1\n"
        "    b = t.numpy()\n"
        "    assert b[0] == 1\n",
    )
    report, _ = _report(project, tmp_path, "--tensorlint-no-static")
    assert [(e["line"], e["kind"]) for e in report["events"]] == [(7, "write-through")]
    assert "the array was written" in report["events"][0]["detail"]


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_cuda_tensor_converted_is_a_device_event(tmp_path: Path) -> None:
    project = _tests(
        tmp_path,
        "gpu",
        "import pytest\nimport torch\n\n\n"
        "def test_gpu():\n"
        "    t = torch.ones(2, device='cuda')\n"
        "    with pytest.raises(TypeError):\n"
        "        t.numpy()\n",
    )
    report, _ = _report(project, tmp_path, "--tensorlint-no-static")
    assert [(e["line"], e["kind"]) for e in report["events"]] == [(8, "device")]


def test_match_sorts_events_and_findings() -> None:
    record = sanitize.Record()
    record.ran[("m.py", 3)] = {"numpy": 2}
    record.ran[("m.py", 5)] = {"from_numpy": 1}
    record.events = [
        sanitize.Event("grad", "m.py", 3, "t::a", "requires grad"),
        sanitize.Event("write-through", "m.py", 5, "t::b", "written"),
    ]
    findings = [
        {"file": "m.py", "line": 3, "code": "TL102"},
        {"file": "m.py", "line": 5, "code": "TL101"},  # another family: not a match
        {"file": "m.py", "line": 9, "code": "TL211"},
        {"file": "./m.py", "line": 3, "code": "TL212"},
    ]
    found = sanitize.match(record, findings)
    assert [(e.line, code) for e, code in found.confirmed] == [(3, "TL102")]
    assert [e.line for e in found.missed] == [5]
    assert found.not_exercised == [{"file": "m.py", "line": 9, "code": "TL211"}]
    assert found.exercised == []


def test_install_and_uninstall_restore_torch() -> None:
    before = (torch.from_numpy, torch.as_tensor, torch.Tensor.numpy, torch.Tensor.__array__)
    watcher = sanitize.Watcher(os.getcwd())
    watcher.install()
    try:
        assert torch.from_numpy is not before[0]
        t = torch.from_numpy(np.zeros(2, dtype=np.float32))
        assert t.sum() == 0  # still converts
    finally:
        watcher.uninstall()
    after = (torch.from_numpy, torch.as_tensor, torch.Tensor.numpy, torch.Tensor.__array__)
    assert after == before


def test_the_readme_example_runs_as_written() -> None:
    """The README's worked example: its command, run where it says, prints
    what the README shows."""
    readme = (SHOP.parent.parent.parent / "README.md").read_text(encoding="utf-8")
    part = readme.split("## Watching your own tests", 1)[1].split("\n## ", 1)[0]
    command = part.split("```console\n")[-1].split("```", 1)[0].strip()
    assert command == "cd fixtures/sanitize/shop && pytest -q -p tensorlint.sanitize"
    shown = part.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tensorlint.sanitize",
         "-p", "no:cacheprovider"],
        cwd=SHOP, capture_output=True, text=True, check=False,
    )  # fmt: skip
    printed = done.stdout.splitlines()
    for line in shown:
        if line != "...":
            assert line in printed, line


def test_values_the_tests_compare_are_recorded(tmp_path: Path) -> None:
    project = _tests(
        tmp_path,
        "close",
        "import numpy as np\nimport torch\n\n\n"
        "def test_close():\n"
        "    np.testing.assert_allclose(np.ones(2), [1.0, 1.0])\n"
        "    torch.testing.assert_close(torch.zeros(3), torch.zeros(3))\n"
        "    assert np.allclose(np.arange(3), [0, 1, 2])\n",
    )
    values = tmp_path / "values.json"
    done = _pytest(project, "-p", "tensorlint.sanitize", "--tensorlint-no-static",
                   f"--tensorlint-values={values}")  # fmt: skip
    assert done.returncode == 0, done.stdout
    compared = json.loads(values.read_text(encoding="utf-8"))
    (digests,) = compared.values()
    assert list(compared) == ["tests/test_close.py::test_close"]
    assert len(digests) >= 3  # (a comparison may call another: both are kept)
    assert digests[0].startswith("float64:(2,):") and "/list:" in digests[0]
    assert any(d.startswith("float32:(3,):") for d in digests)
    again = tmp_path / "again.json"
    _pytest(project, "-p", "tensorlint.sanitize", "--tensorlint-no-static",
            f"--tensorlint-values={again}")  # fmt: skip
    assert json.loads(again.read_text(encoding="utf-8")) == compared  # the same each run


def test_an_error_of_the_plugin_changes_no_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error while recording is counted, never raised into the test."""
    watcher = sanitize.Watcher(os.getcwd())

    def broken(*args: Any) -> None:
        raise ZeroDivisionError("a bug of ours")

    monkeypatch.setattr(sanitize, "_checksum", broken)
    watcher.install()
    try:
        a = np.zeros(2, dtype=np.float32)
        t = torch.from_numpy(a)  # (a held here: recorded, and the checksum fails)
        assert t.sum() == 0
    finally:
        watcher.uninstall()
    assert watcher.internal_errors == 1
