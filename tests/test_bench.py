"""`python -m bench --quick` on a tiny corpus: the JSON report has every run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

CLEAN = '''\
import torch


def scale(t, factor):
    """Multiply a tensor; no NumPy anywhere."""
    out = t * factor
    out = out + 1
    return out


def total(ts):
    return sum(t.sum() for t in ts)
'''

CONVERTS = """\
import numpy as np
import torch


def to_array(model, x):
    out = model(x)
    return out.numpy()


def to_tensor(a):
    t = torch.from_numpy(a)
    t += 1
    return a, t


def both(a):
    return torch.from_numpy(np.asarray(a)).numpy()
"""


def _tiny_corpus(root: Path) -> Path:
    package = root / "corpus" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for index in range(4):
        (package / f"clean_{index}.py").write_text(CLEAN, encoding="utf-8")
    for index in range(2):
        (package / f"converts_{index}.py").write_text(CONVERTS, encoding="utf-8")
    return package.parent


RUFF = shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not on PATH (pip install ruff)")
def test_quick_benchmark_reports_runs_medians_and_ratios(tmp_path: Path) -> None:
    assert RUFF is not None
    corpus = _tiny_corpus(tmp_path)
    report_path = tmp_path / "bench.json"
    markdown_path = tmp_path / "bench.md"
    # PATH holds ruff and nothing else: Fixit, asked for too, must come out as
    # unavailable (with why), not be dropped.
    only_ruff = tmp_path / "bin"
    only_ruff.mkdir()
    (only_ruff / "ruff").symlink_to(RUFF)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "--quick",
            "--corpus",
            str(corpus),
            "--peers",
            "ruff,fixit",
            "--repeat",
            "1",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--json",
            str(report_path),
            "--markdown",
            str(markdown_path),
        ],
        cwd=REPO,
        env={**os.environ, "PATH": str(only_ruff)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(report_path.read_text(encoding="utf-8"))

    assert report["corpus"]["files"] == 7
    assert report["corpus"]["candidate_files"] == 2
    assert report["machine"]["cores"] >= 1
    assert report["tools"]["tensorlint"]["available"]
    assert report["tools"]["ruff"]["version"]
    assert report["settings"]["peers"] == ["ruff", "fixit"]
    assert report["settings"]["peer_source"] == "path"  # --quick's default
    assert not report["tools"]["fixit"]["available"]
    assert "not found on PATH" in report["tools"]["fixit"]["unavailable"]

    runs = {run["id"]: run for run in report["runs"]}
    expected = {
        "tensorlint.cold",
        "tensorlint.fix",
        "tensorlint.single.clean",
        "tensorlint.single.conversions",
        "python.startup",
        "tensorlint.startup",
        "tensorlint.files.25",
        "tensorlint.files.50",
        "tensorlint.files.100",
        "tensorlint.candidates.0",
        "tensorlint.candidates.50",
        "ruff.E9",
        "ruff.ALL",
        "ruff.E9.single.clean",
        "ruff.ALL.single.conversions",
    }
    if "--no-cache" in report["tools"]["tensorlint"]["features"]:
        expected |= {"tensorlint.cache_fill", "tensorlint.warm"}
    assert expected <= set(runs)
    for run_id in expected:
        run = runs[run_id]
        assert run["status"] == "ok", (run_id, run["reason"])
        assert run["reps"] == 1
        assert run["median_wall_s"] > 0
        assert run["median_cpu_s"] >= 0
        assert run["peak_rss_mib"] > 0
    assert runs["tensorlint.cold"]["files"] == 7
    assert runs["tensorlint.cold"]["findings"] >= 1  # the conversions above are real bugs
    assert runs["tensorlint.single.clean"]["findings"] == 0
    assert runs["tensorlint.candidates.0"]["candidate_files"] == 0

    ratios = {(row["tensorlint"], row["peer"]): row for row in report["ratios"]}
    for pair in (
        ("tensorlint.cold", "ruff.E9"),
        ("tensorlint.cold", "ruff.ALL"),
        ("tensorlint.single.clean", "ruff.E9.single.clean"),
        ("tensorlint.single.conversions", "ruff.ALL.single.conversions"),
    ):
        assert ratios[pair]["wall_ratio"] > 0, pair
        assert ratios[pair]["cpu_ratio"] is not None, pair

    assert runs["fixit"]["status"] == "unavailable"
    assert runs["fixit.single.clean"]["status"] == "unavailable"
    assert ratios[("tensorlint.cold", "fixit")]["wall_ratio"] is None
    assert "unavailable" in ratios[("tensorlint.cold", "fixit")]["why_missing"]
    assert any(line.startswith("fixit: unavailable") for line in report["unavailable"])

    fractions = [row["fraction"] for row in report["scaling"]["files"]]
    assert fractions == [0.25, 0.5, 1.0]
    assert [row["candidate_files"] for row in report["scaling"]["candidates"]] == [0, 1, 2]

    markdown = markdown_path.read_text(encoding="utf-8")
    assert "| `tensorlint.cold` |" in markdown
    assert "## tensorlint / peer" in markdown
    assert "Start-up: the interpreter alone takes" in markdown
    assert "One file (clean):" in markdown
    assert "fixit: unavailable" in markdown
    # nothing of the run lands outside the cache dir and the report files
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "bench.json",
        "bench.md",
        "bin",
        "cache",
        "corpus",
    ]
    assert (tmp_path / "cache" / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert list((tmp_path / "cache" / "work").iterdir()) == []  # the run's scratch dir is gone


def test_the_load_bench_generates_checks_and_reports_every_run() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "load", "--small", "30", "--big", "2", "--big-mib", "0.05"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| cold") or
            line.startswith("| warm")]  # fmt: skip
    assert len(rows) == 2
    # every run found the same findings (30 small files: 2 each; the big ones more)
    findings = {row.split("|")[7].strip() for row in rows}
    assert len(findings) == 1 and int(findings.pop().replace(",", "")) > 60
    assert "cache directory:" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the measured command forks its workers")
def test_repetitions_take_turns_and_the_whole_process_tree_is_measured(tmp_path: Path) -> None:
    from bench.suite import RunSpec, execute_interleaved

    log = tmp_path / "order.txt"
    # B forks two workers that each hold ~40 MiB: the tree's peak is their sum
    workers = (
        "import multiprocessing as mp, time\n"
        "def hold(n):\n    b = bytearray(n); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.3)\n"
        "if __name__ == '__main__':\n"
        "    with mp.get_context('fork').Pool(2) as p: p.map(hold, [40 << 20] * 2)\n"
    )

    def spec(name: str, code: str) -> RunSpec:
        command = f"open({str(log)!r}, 'a').write({name!r})\n" + code
        return RunSpec(
            id=name, tool=name, group="corpus", title=name,
            prefix=[sys.executable, "-c", command], files=[], cwd=tmp_path, shown=name,
        )  # fmt: skip

    results = execute_interleaved(
        [spec("A", ""), spec("B", workers)],
        repeat=3, timeout=60, slow_after=60, env=dict(os.environ), logs=tmp_path / "logs",
    )  # fmt: skip
    assert log.read_text() == "ABABAB"
    a, b = results
    assert all(r.ok and len(r.measurements) == 3 for r in results)
    if sys.platform.startswith("linux"):
        tree, largest = b.tree_rss_mib, b.peak_rss_mib
        assert tree is not None and largest is not None
        assert tree > largest + 30  # two workers of ~40 MiB at once, summed
        assert a.tree_rss_mib is None or a.tree_rss_mib < 40


def test_measure_kills_a_command_past_its_timeout_and_says_so(tmp_path: Path) -> None:
    from bench.measure import measure

    out, err = tmp_path / "out", tmp_path / "err"
    slow = measure(
        [sys.executable, "-c", "import time; time.sleep(30)"],
        cwd=tmp_path, stdout=out, stderr=err, timeout=0.5,
    )  # fmt: skip
    assert slow.timed_out and slow.returncode != 0
    assert slow.wall_s < 20
    quick = measure(
        [sys.executable, "-c", "print('hi')"], cwd=tmp_path, stdout=out, stderr=err, timeout=60
    )
    assert not quick.timed_out and quick.returncode == 0
    assert out.read_text() == "hi\n"
