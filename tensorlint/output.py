"""``-o/--output-file``: the report written to a file, whole or not at all.

The report is written to a temporary file in the target's folder (made when
missing, as Ruff makes it), synced, given the mode an existing file had (a
new one gets the mode the umask gives), and renamed over the target: a
reader (a CI step uploading the report, an editor watching it) never sees
half a report, and a run that fails leaves the previous report as it was.
A link at the target is replaced, never written through. The text is UTF-8;
an undecodable file name keeps its bytes (``surrogateescape``).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_report(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically; raises OSError."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        mode = _new_file_mode()
    else:
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(21, "is a folder", str(path))
        regular = stat.S_ISREG(status.st_mode)
        mode = stat.S_IMODE(status.st_mode) if regular else _new_file_mode()
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
