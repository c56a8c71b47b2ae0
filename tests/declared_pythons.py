"""The oldest Python the package declares (``requires-python``), to check
that text tensorlint writes still parses there while the tests run on a
newer one.

The interpreter is found at ``TENSORLINT_OLDEST_PYTHON``, on ``PATH`` as
``python3.X`` or among pyenv's versions; tests that need it are skipped when
none runs. One process compiles every text it is sent (``compile()`` only:
nothing is executed), so a fuzz run pays its start-up once.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
_DECLARED = re.search(r'requires-python = ">=(\d+)\.(\d+)"', _PYPROJECT.read_text("utf-8"))
assert _DECLARED is not None, "pyproject.toml declares requires-python"
OLDEST = (int(_DECLARED.group(1)), int(_DECLARED.group(2)))
NAME = f"Python {OLDEST[0]}.{OLDEST[1]}"

#: compiles each JSON-encoded text of a line of stdin; answers null or the error
_COMPILER = r"""
import json, sys
for line in sys.stdin:
    try:
        compile(json.loads(line), "<written>", "exec", dont_inherit=True)
        answer = None
    except Exception as error:
        answer = f"{type(error).__name__}: {error}"
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
"""


def _candidates() -> list[str]:
    major, minor = OLDEST
    found = [os.environ.get("TENSORLINT_OLDEST_PYTHON", "")]
    if sys.version_info[:2] == OLDEST:
        found.append(sys.executable)
    found.append(shutil.which(f"python{major}.{minor}") or "")
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found += sorted(
        glob.glob(os.path.join(pyenv, "versions", f"{major}.{minor}.*", "bin", "python"))
    )
    return [c for c in found if c]


def _runs(executable: str) -> bool:
    try:
        done = subprocess.run(
            [executable, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.split() == [str(n) for n in OLDEST]


def find_oldest() -> Optional[str]:
    """An interpreter of the oldest declared Python, or None."""
    return next((c for c in _candidates() if _runs(c)), None)


class OldestPython:
    """A process of the oldest declared Python that compiles texts."""

    def __init__(self, executable: str) -> None:
        self.process = subprocess.Popen(
            [executable, "-W", "ignore", "-c", _COMPILER],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="ascii",
        )  # fmt: skip

    def error(self, text: str) -> Optional[str]:
        """Why ``text`` does not compile there; None when it does."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(text) + "\n")
        self.process.stdin.flush()
        answer: Optional[str] = json.loads(self.process.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)
