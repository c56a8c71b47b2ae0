"""``--fix`` killed at random moments never loses a byte.

Each trial copies a tree of files with fixable findings, starts
``tensorlint check --fix`` on it with two workers and kills it with SIGKILL
after a random delay (the whole process group, or the parent alone, whose
workers must then stop). Every file must then be its original text or its
fully fixed text, never a mix or a truncation; a later run fixes the rest and
leaves no temporary file behind.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SOURCE = """import numpy as np
import torch


def _convert{n}(x, w):
    t = x.cuda()
    a = t.numpy()
    b = (t * {n}).numpy()
    return a, b, np.asarray(w.to("cuda"))
"""
FILES = 150
TRIALS = 20


def _tensorlint(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        **kwargs,  # type: ignore[call-overload]
    )


def _group_gone(group: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_fix_killed_at_random_moments_leaves_every_file_whole(tmp_path: Path) -> None:
    original = tmp_path / "original"
    original.mkdir()
    for n in range(FILES):
        (original / f"m{n}.py").write_text(SOURCE.format(n=n))
    expected = tmp_path / "expected"
    shutil.copytree(original, expected)
    assert _tensorlint("--fix", "--jobs", "2", str(expected)).wait(timeout=300) == 0
    fixed = {p.name: p.read_bytes() for p in expected.iterdir()}
    before = {p.name: p.read_bytes() for p in original.iterdir()}
    assert all(fixed[name] != before[name] for name in before)

    rng = random.Random(20261122)
    outcomes = {"original": 0, "fixed": 0}
    for trial in range(TRIALS):
        tree = tmp_path / f"trial{trial}"
        shutil.copytree(original, tree)
        proc = _tensorlint("--fix", "--jobs", "2", str(tree), start_new_session=True)
        time.sleep(rng.uniform(0.2, 2.5))
        whole_group = trial % 2 == 0
        try:
            if whole_group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                os.kill(proc.pid, signal.SIGKILL)  # the workers are orphaned
        except ProcessLookupError:
            pass
        proc.wait(timeout=60)
        assert _group_gone(proc.pid, within=10.0)  # orphaned workers notice and stop
        for path in tree.iterdir():
            if path.suffix == ".tmp":
                continue
            data = path.read_bytes()
            assert data in (before[path.name], fixed[path.name]), path
            outcomes["original" if data == before[path.name] else "fixed"] += 1
        assert _tensorlint("--fix", str(tree)).wait(timeout=300) == 0
        assert sorted(p.name for p in tree.iterdir()) == sorted(fixed)
        assert all(p.read_bytes() == fixed[p.name] for p in tree.iterdir())
    # the delays cover the run: some kills came early, some late
    assert outcomes["original"] and outcomes["fixed"]
