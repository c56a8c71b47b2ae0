"""``tensorlint migrate --verify``: fixes are kept only where the project's
own tests keep their results; run through the CLI and the real pytest on a
fixture project whose suite one fix breaks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the fixture project's tests need torch (test extra)")

from tensorlint import migrate

STAGING = Path(__file__).resolve().parent.parent / "fixtures" / "migrate" / "staging"
PYTEST = f'"{sys.executable}" -m pytest -q -p no:cacheprovider'


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "staging"
    shutil.copytree(STAGING, project)
    return project


def _tensorlint(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tensorlint", "migrate", *args],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_the_fix_that_breaks_a_test_is_named_and_left_out(tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = _tensorlint(project, "--verify", PYTEST, "--strict")
    assert done.returncode == 1, done.stdout + done.stderr
    readme = (STAGING.parent.parent.parent / "README.md").read_text(encoding="utf-8")
    part = readme.split("### Verified migration", 1)[1].split("\n### ", 1)[0]
    shown = part.split("```text\n", 1)[1].split("```", 1)[0]
    assert done.stdout == shown  # the README's example, as the command prints it
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "left out: staging/buffers.py:10:21: TL211 `torch.from_numpy(self.buf)` shares memory "
        "with an array that is still in use; the tensor is kept without `.clone()`"
    )
    assert "test_staging_sees_each_load: passed -> failed" in done.stdout
    assert lines[-1].startswith("Applied 3 of 4 fixes in 1 file(s); 1 left out;")
    text = (project / "staging" / "buffers.py").read_text(encoding="utf-8")
    assert "self.view = torch.from_numpy(self.buf)\n" in text  # left as it was
    assert "t = torch.from_numpy(table).clone()\n" in text
    assert "return t.cpu().detach().numpy().copy()\n" in text
    after = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert after.returncode == 0, after.stdout


def _package(tmp_path: Path, name: str, module: str, source: str, test: str) -> Path:
    """A project: package ``name`` with ``module`` holding ``source``, one test
    file ``tests/test_<module>.py`` holding ``test``, and the staging project's
    pytest settings."""
    project = tmp_path / name
    (project / name).mkdir(parents=True)
    (project / "tests").mkdir()
    shutil.copy(STAGING / "pyproject.toml", project / "pyproject.toml")
    (project / name / "__init__.py").write_text("")
    (project / name / f"{module}.py").write_text(source)
    (project / "tests" / f"test_{module}.py").write_text(test)
    return project


def test_a_fix_that_changes_compared_values_is_left_out(tmp_path: Path) -> None:
    """A test whose assertion tolerates the change still passes; the values it
    compares changed, and that is enough to leave the fix out."""
    project = _package(
        tmp_path,
        "running",
        "buffer",
        "import numpy as np\nimport torch\n\n\n"
        "class Running:\n"
        "    def __init__(self, n):\n"
        "        self.values = np.zeros(n, dtype=np.float32)\n"
        "        self.tensor = torch.from_numpy(self.values)\n\n"
        "    def push(self, x):\n"
        "        self.values[:-1] = self.values[1:]\n"
        "        self.values[-1] = x\n",
        "import numpy as np\n\nfrom running.buffer import Running\n\n\n"
        "def test_running():\n"
        "    r = Running(3)\n"
        "    r.push(2.0)\n"
        "    np.testing.assert_allclose(r.tensor.sum(), 2.0, atol=3)\n",
    )
    done = _tensorlint(project, "--verify", PYTEST, "--strict")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "left out: running/buffer.py:8:23: TL211" in done.stdout
    assert "test_buffer.py::test_running: the values it compares changed" in done.stdout
    assert "passed -> failed" not in done.stdout


def test_every_fix_kept_exits_0(tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = _tensorlint(project, "--verify", PYTEST)  # the default profile: TL101/TL102 only
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("Applied 1 of 1 fixes in 1 file(s); 0 left out")


def test_an_unstable_command_changes_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path)
    before = (project / "staging" / "buffers.py").read_bytes()
    flip = project / "flip.py"
    flip.write_text(
        "import pathlib, sys\n"
        "p = pathlib.Path('count')\n"
        "n = int(p.read_text()) if p.exists() else 0\n"
        "p.write_text(str(n + 1))\n"
        "sys.exit(n % 2)\n"
    )
    done = _tensorlint(project, "--verify", f'"{sys.executable}" flip.py', "--strict")
    assert done.returncode == 2
    assert "results differ between two runs: exit status 0 -> 1" in done.stderr
    assert (project / "staging" / "buffers.py").read_bytes() == before


def test_a_bad_batch_size_is_an_error(tmp_path: Path) -> None:
    done = _tensorlint(_project(tmp_path), "--verify", PYTEST, "--batch-size", "0")
    assert done.returncode == 2 and "--batch-size" in done.stderr


@pytest.mark.parametrize(("count", "broken"), [(5, {0, 3}), (16, {11})])
def test_bisection_finds_each_breaking_fix(tmp_path: Path, count: int, broken: set[int]) -> None:
    """Breaking fixes in one batch, with a command that fails while any of
    them is applied: each is named, the others kept; one among sixteen is
    found in far fewer runs than one a fix."""
    source = tmp_path / "m.py"
    source.write_text(
        "import torch\n\n\n"
        + "".join(f"def f{i}(t):\n    return t.numpy()\n\n\n" for i in range(count))
    )
    units = migrate.collect([source], strict=False, unsafe=False, errors=[])
    assert len(units) == count  # TL101 on each line (the API boundary's guess): one fix each
    assert [x.code for x in units[0].diagnostics] == ["TL101"]
    line = {i: 5 + 4 * i for i in range(count)}  # the ``return`` line of f<i>

    def run(command: str) -> migrate.Outcome:
        lines = source.read_text().splitlines()
        failed = any("cpu()" in lines[line[i] - 1] for i in broken)
        return migrate.Outcome(1 if failed else 0)

    result = migrate.verify(units, "cmd", batch_size=count, run=run)
    assert sorted(u.diagnostic.start.line for u, _ in result.left_out) == sorted(
        line[i] for i in broken
    )
    assert len(result.kept) == count - len(broken)
    assert source.read_text().count("t.cpu().detach().numpy()") == count - len(broken)
    if count == 16:
        assert result.runs <= 2 + 1 + 2 * 4  # baseline twice, the batch, two per level


def test_an_interruption_restores_the_files(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    original = "import torch\n\n\ndef f(t):\n    return t.numpy()\n"
    source.write_text(original)
    units = migrate.collect([source], strict=False, unsafe=False, errors=[])
    calls = []

    def run(command: str) -> migrate.Outcome:
        calls.append(source.read_text())
        if len(calls) == 3:
            raise KeyboardInterrupt
        return migrate.Outcome(0)

    with pytest.raises(KeyboardInterrupt):
        migrate.verify(units, "cmd", run=run)
    assert calls[2] != original  # the fixes were on disk during the run
    assert source.read_text() == original


def test_a_repair_is_kept_and_must_stay_repaired(tmp_path: Path) -> None:
    """A fix under which a failing test passes is kept (and reported); a later
    fix that breaks it again is left out, though the baseline had it failing."""
    source = tmp_path / "m.py"
    source.write_text(
        "import torch\n\n\n"
        + "".join(f"def f{i}(t):\n    return t.numpy()\n\n\n" for i in range(2))
    )
    units = migrate.collect([source], strict=False, unsafe=False, errors=[])

    def run(command: str) -> migrate.Outcome:
        lines = source.read_text().splitlines()
        first, second = ("cpu()" in lines[n - 1] for n in (5, 9))
        result = "passed" if first and not second else "failed"
        return migrate.Outcome(0 if result == "passed" else 1, (("t::gpu", result),))

    result = migrate.verify(units, "cmd", batch_size=1, run=run)
    assert [u.diagnostic.start.line for u in result.kept] == [5]
    assert [(u.diagnostic.start.line, c) for u, c in result.left_out] == [
        (9, ["exit status 0 -> 1", "t::gpu: passed -> failed"])
    ]
    assert result.repaired == ["t::gpu"]
    assert "repaired: t::gpu: failed -> passed" in list(migrate.report(result))


@pytest.mark.cuda
@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA device")
def test_on_cuda_the_fix_repairs_the_crash(tmp_path: Path) -> None:
    """On a GPU the user's test crashes on ``.numpy()`` of a CUDA tensor; the
    TL101 fix repairs it, and migrate keeps it and says so."""
    project = _package(
        tmp_path,
        "gpu",
        "convert",
        "import torch\n\n\ndef to_host(t):\n    return t.numpy()\n",
        "import torch\n\nfrom gpu.convert import to_host\n\n\n"
        "def test_host_on_the_gpu():\n"
        "    assert to_host(torch.ones(2, device='cuda')).tolist() == [1.0, 1.0]\n",
    )
    done = _tensorlint(project, "--verify", PYTEST)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "repaired: tests.test_convert::test_host_on_the_gpu: failed -> passed" in done.stdout
    assert "t.cpu().detach().numpy()" in (project / "gpu" / "convert.py").read_text()
