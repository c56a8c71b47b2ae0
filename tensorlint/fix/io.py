"""Read source files and write them back atomically, losing nothing.

:func:`read_regular` is how tensorlint reads any file (sources, notebooks,
configurations, ``.gitignore`` files, its cache): regular files only, opened
so that a FIFO cannot block, and no more than a limit, so that neither a
FIFO nor a link to ``/dev/zero`` (which git commits and clones) can hang or
exhaust a run. :func:`read_source` keeps everything needed to write the file back byte for
byte: the encoding (PEP 263 cookie or UTF-8), whether it had a UTF-8 BOM, and
the newlines exactly as they were (no translation). A cookie naming a codec
Python does not know (``# -*- coding: future_fstrings -*-``, ``pyxl``: the
import-time source transformers of the Python 2 to 3 years, which need their
package installed) is read as UTF-8 when the bytes are UTF-8, as Ruff reads
every file; :attr:`SourceFile.unknown_codec` says so. :func:`write_atomic` writes
through a temporary file in the same directory and ``os.replace``, keeping the
file's permission bits, so a crash never leaves a half-written file behind.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import io
import os
import re
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, Optional, Union

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_SETTINGS_BYTES",
    "ReadRefused",
    "SourceFile",
    "SourceReadError",
    "read_regular",
    "read_source",
    "write_atomic",
]

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_DEFAULT_MODE = 0o644


class SourceFile(NamedTuple):
    """A decoded source file and what is needed to encode it back unchanged."""

    text: str
    encoding: str
    bom: bool
    newline: str
    #: the codec the coding cookie names when Python does not know it
    #: (``future_fstrings``): the file was read, and is written, as UTF-8
    unknown_codec: Optional[str] = None


class SourceReadError(Exception):
    """A source file that cannot be read or decoded; ``str()`` is one line."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = " ".join(reason.split())
        super().__init__(path, reason)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def _first_newline(text: str) -> str:
    match = _NEWLINE_RE.search(text)
    return match.group() if match else "\n"


def _line_of(data: bytes, offset: int) -> int:
    prefix = data[:offset]
    return prefix.count(b"\n") + prefix.count(b"\r") - prefix.count(b"\r\n") + 1


def _directory_reason(path: Path, error: OSError) -> str:
    """Why a directory is not checked: it cannot be listed (a walk met it),
    or it was named where a file was expected."""
    try:
        with os.scandir(path):
            pass
    except OSError as listing:
        return f"cannot list the directory: {listing.strerror or listing}"
    return error.strerror or str(error)


#: The most tensorlint reads of a source file, a notebook or its cache (a
#: source this large is over the engine's limit on the text it checks anyway).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: ... and of a settings file: ``pyproject.toml``, ``.gitignore``, git's
#: ``info/exclude`` (the largest real ones are some 100 KB; parsing 1 MB of
#: patterns takes seconds).
MAX_SETTINGS_BYTES = 1024 * 1024

_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class ReadRefused(OSError):
    """A file tensorlint will not read; the message says why, in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.3g} MB"


def _check_regular(path: Union[str, os.PathLike[str]], status: os.stat_result, limit: int) -> None:
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_KINDS if test(mode)), "a special file")
        raise ReadRefused(f"not a regular file ({kind})")
    if status.st_size > limit:
        raise ReadRefused(
            f"too large ({_megabytes(status.st_size)}; the limit is {_megabytes(limit)})"
        )


def read_regular(path: Union[str, os.PathLike[str]], limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (a link to one is followed).

    Raises :class:`ReadRefused` for anything else (a FIFO, a device, a socket)
    and for a file over ``limit`` bytes, ``IsADirectoryError`` for a directory
    and ``OSError`` when it cannot be read. A special file is never opened (a
    device may act on an open); the file is opened non-blocking, so that one
    swapped for a FIFO in the meantime cannot block, and checked again.
    """
    _check_regular(path, os.stat(path), limit)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        _check_regular(path, os.fstat(fd), limit)
        data = handle.read(limit + 1)  # (a file that grew since)
    if len(data) > limit:
        raise ReadRefused(f"too large (over {_megabytes(limit)}, the limit)")
    return data


def read_source(path: Path) -> SourceFile:
    """Read and decode ``path``; raises :class:`SourceReadError` on any failure."""
    try:
        data = read_regular(path)
    except OSError as exc:
        if os.path.isdir(path):
            raise SourceReadError(path, _directory_reason(path, exc)) from exc
        raise SourceReadError(path, exc.strerror or str(exc)) from exc
    import tokenize  # (a warm run reads no file: not imported at start-up)

    unknown = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        unknown = _unknown_codec(data)
        if unknown is None:
            raise SourceReadError(path, exc.msg or str(exc)) from exc
        encoding = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"
    bom = encoding == "utf-8-sig"
    if bom:
        encoding = "utf-8"
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = _line_of(data, exc.start)
        if unknown is not None:
            reason = (
                f"unknown encoding {unknown!r} (a codec Python does not have), "
                f"and not UTF-8 either (line {line})"
            )
            raise SourceReadError(path, reason) from exc
        raise SourceReadError(path, f"cannot decode as {encoding} (line {line})") from exc
    except LookupError as exc:  # a codec that is not a text encoding
        raise SourceReadError(path, f"unknown encoding {encoding!r}") from exc
    newline = _first_newline(text)
    return SourceFile(text, encoding, bom, newline, unknown)


#: A PEP 263 coding cookie, and a line that lets the cookie be on the next
#: one (blank, or only a comment): ``tokenize``'s own patterns.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)
_BLANK = re.compile(r"^[ \t\f]*(?:[#\r\n]|$)", re.ASCII)


def _unknown_codec(data: bytes) -> Optional[str]:
    """Why ``tokenize`` refused the coding cookie of ``data``: the codec it
    names, when Python has no codec by that name (``codecs.lookup`` fails);
    None for any other reason (a first line that is not UTF-8, a BOM with a
    cookie naming another codec). (``utf-8-validate`` is not asked about:
    ``tokenize`` reads ``utf-8-*`` as UTF-8.)

    Python itself refuses such a file; its codec came from a package that
    registered it at start-up, usually to rewrite newer syntax for older
    Pythons (``future_fstrings``), over text that is UTF-8."""
    lines = io.BytesIO(data[len(codecs.BOM_UTF8) :] if data.startswith(codecs.BOM_UTF8) else data)
    for _ in range(2):
        try:
            line = lines.readline().decode("utf-8")
        except UnicodeDecodeError:
            return None
        match = _COOKIE.match(line)
        if match is not None:
            name = match.group(1)
            try:
                codecs.lookup(name)
            except LookupError:
                return name
            return None
        if not _BLANK.match(line):
            return None
    return None


def _fsync_directory(directory: str) -> None:
    """Make the rename durable where the platform allows it (best effort)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class WriteRefused(OSError):
    """A write tensorlint will not do; the message says why, in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason


#: a temporary file ``write_atomic`` left behind when killed, after this long
_STALE_TEMP_SECONDS = 600


def write_atomic(
    path: Path, source: SourceFile, new_text: str, *, within: Sequence[str] = ()
) -> bool:
    """Write ``new_text`` to ``path`` the way ``source`` was stored.

    Returns ``False`` without touching the file when the text is unchanged.
    Otherwise the text is encoded with ``source``'s encoding (and BOM), written
    to a temporary file next to the target, synced, given the target's
    permission bits and moved over it with ``os.replace``; on failure the
    temporary file is removed and the exception re-raised. Newlines are
    written exactly as they appear in ``new_text``. A symlink is followed, so
    the file it points to is rewritten and the link kept, but only when that
    file lies inside one of the ``within`` folders (when given).

    Refused with :class:`WriteRefused`, the file untouched: a target outside
    ``within``, a read-only file, and a file whose text changed since it was
    read (another tool or run wrote it: their edit wins). Temporary files of
    an earlier run that was killed mid-write are removed.
    """
    if new_text == source.text:
        return False
    data = new_text.encode(source.encoding)
    if source.bom:
        data = codecs.BOM_UTF8 + data
    target = os.path.realpath(path)
    if within and not any(_inside(target, folder) for folder in within):
        raise WriteRefused("not rewritten: it links to a file outside the checked tree")
    directory, name = os.path.split(target)
    try:
        original = os.stat(target)
    except FileNotFoundError:
        original = None
    if original is not None and (
        not original.st_mode & 0o222 or not os.access(target, os.W_OK)
    ):  # no write bit at all (root could still write it) or not writable by us
        raise WriteRefused("not rewritten: the file is read-only")
    _remove_stale_temps(directory or os.curdir, name)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{name}.{os.getpid()}.", suffix=".tmp", dir=directory or None
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if original is not None:
            if hasattr(os, "chown"):  # before chmod: chown may clear setuid bits
                with contextlib.suppress(OSError):
                    os.chown(tmp, original.st_uid, original.st_gid)
            os.chmod(tmp, stat.S_IMODE(original.st_mode))
        else:
            os.chmod(tmp, _DEFAULT_MODE)
        if original is not None and _changed_since_read(Path(target), source):
            raise WriteRefused("not rewritten: the file changed while it was being fixed")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory or os.curdir)
    return True


def _inside(target: str, folder: str) -> bool:
    base = os.path.realpath(folder)
    return target == base or target.startswith(base.rstrip(os.sep) + os.sep)


def _changed_since_read(path: Path, source: SourceFile) -> bool:
    try:
        return read_source(path).text != source.text
    except SourceReadError:
        return True


def _remove_stale_temps(directory: str, name: str) -> None:
    """``.<name>.<pid>.*.tmp`` files a killed run left: its process is gone
    (or, whatever the process, the file is older than a few minutes)."""
    import time

    prefix = f".{name}."
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith(".tmp")):
            continue
        stale = os.path.join(directory, entry)
        owner = entry[len(prefix) :].split(".", 1)[0]
        with contextlib.suppress(OSError):
            old = now - os.lstat(stale).st_mtime > _STALE_TEMP_SECONDS
            if old or (owner.isdigit() and not _alive(int(owner))):
                os.unlink(stale)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True
