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
  the sum over concurrent workers);
* peak tree RSS (Linux): the largest sum of the resident sets of every
  process of the command's session, sampled every 20 ms from ``/proc`` (a
  pool's workers together; 0 where ``/proc`` is not there).
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
import threading
job = json.load(sys.stdin)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
page_kib = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4
tree_peak = [0]
finished = threading.Event()

def sample_tree(session):
    # the session's processes (the command and its workers), summed
    while not finished.wait(0.02):
        total = 0
        try:
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
        except OSError:
            return
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                if int(fields[3]) != session:  # field 6, the session id
                    continue
                with open(f"/proc/{pid}/statm", "rb") as handle:
                    total += int(handle.read().split()[1]) * page_kib
            except (OSError, ValueError, IndexError):
                continue
        tree_peak[0] = max(tree_peak[0], total)

with open(job["stdout"], "wb") as out, open(job["stderr"], "wb") as err:
    start = time.perf_counter()
    proc = subprocess.Popen(
        job["argv"], cwd=job["cwd"], stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        start_new_session=True,
    )
    sampler = threading.Thread(target=sample_tree, args=(proc.pid,), daemon=True)
    if os.path.isdir("/proc"):
        sampler.start()
    expired = threading.Event()

    def kill():
        expired.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    # a blocking wait returns when the command exits; Popen.wait(timeout=...)
    # polls with sleeps of up to 50 ms, which a one-file run would feel
    timer = threading.Timer(job["timeout"], kill)
    timer.daemon = True
    timer.start()
    returncode = proc.wait()
    wall = time.perf_counter() - start
    timer.cancel()
    timed_out = expired.is_set()
    finished.set()
    if sampler.is_alive():
        sampler.join()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({
    "wall_s": wall,
    "user_s": after.ru_utime - before.ru_utime,
    "sys_s": after.ru_stime - before.ru_stime,
    "maxrss_kib": after.ru_maxrss // 1024 if sys.platform == "darwin" else after.ru_maxrss,
    "tree_rss_kib": tree_peak[0],
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
    #: peak of the summed resident sets of the whole process tree, KiB (0: not sampled)
    tree_rss_kib: int = 0

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
        tree_rss_kib=int(data.get("tree_rss_kib", 0)),
    )
