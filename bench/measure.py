"""Time one command: wall clock, CPU time and peak memory of its process tree.

Each measurement runs in a fresh wrapper interpreter (``python -c``) that
starts the command, waits for it and reports its own ``RUSAGE_CHILDREN``
delta. A process's ``ru_maxrss`` for its children is the maximum over every
child it has ever waited for, so measuring two commands from the same process
would report the larger one twice; a fresh wrapper per command avoids that.

What the numbers mean:

* wall: from just before ``fork``/``exec`` of the command until it has exited
  (interpreter start-up included: the pre-commit case);
* CPU: user + system time of the command and every descendant it waited for
  (a process pool's workers included);
* peak RSS: the largest resident set of any single process in that tree (not
  the sum over concurrent workers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["MeasureError", "Measurement", "measure"]

# Run by the wrapper interpreter; reads its job as JSON on stdin and prints
# one JSON line. Kept free of anything but the standard library.
_WRAPPER = r"""
import json, os, resource, signal, subprocess, sys, time
job = json.load(sys.stdin)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(job["stdout"], "wb") as out, open(job["stderr"], "wb") as err:
    start = time.perf_counter()
    proc = subprocess.Popen(
        job["argv"], cwd=job["cwd"], stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        start_new_session=True,
    )
    timed_out = False
    try:
        returncode = proc.wait(timeout=job["timeout"])
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        returncode = proc.wait()
    wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({
    "wall_s": wall,
    "user_s": after.ru_utime - before.ru_utime,
    "sys_s": after.ru_stime - before.ru_stime,
    "maxrss_kib": after.ru_maxrss // 1024 if sys.platform == "darwin" else after.ru_maxrss,
    "returncode": returncode,
    "timed_out": timed_out,
}, sys.stdout)
"""


@dataclass(frozen=True)
class Measurement:
    """One run of one command."""

    wall_s: float
    user_s: float
    sys_s: float
    #: peak resident set of the largest process of the tree, KiB (Linux units)
    maxrss_kib: int
    returncode: int
    timed_out: bool

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.sys_s

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["cpu_s"] = self.cpu_s
        return data


class MeasureError(Exception):
    """The wrapper itself failed (not the measured command)."""


def measure(
    argv: Sequence[str],
    *,
    cwd: Path,
    stdout: Path,
    stderr: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> Measurement:
    """Run ``argv`` once in a fresh wrapper process and return what it cost.

    The command's output goes to the files ``stdout`` and ``stderr``. After
    ``timeout`` seconds its whole process group is killed and the measurement
    says ``timed_out``.
    """
    job = {
        "argv": list(argv),
        "cwd": str(cwd),
        "stdout": str(stdout),
        "stderr": str(stderr),
        "timeout": timeout,
    }
    result = subprocess.run(
        [sys.executable, "-I", "-c", _WRAPPER],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        env=dict(env) if env is not None else dict(os.environ),
        timeout=timeout + 120,
        check=False,
    )
    if result.returncode != 0:
        raise MeasureError(f"measurement wrapper failed: {result.stderr.strip()[-500:]}")
    data = json.loads(result.stdout)
    return Measurement(
        wall_s=float(data["wall_s"]),
        user_s=float(data["user_s"]),
        sys_s=float(data["sys_s"]),
        maxrss_kib=int(data["maxrss_kib"]),
        returncode=int(data["returncode"]),
        timed_out=bool(data["timed_out"]),
    )
