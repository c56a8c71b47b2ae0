"""The result cache (Ruff's and Black's model).

Entries are keyed by the file's path and the effective settings, and hold the
file's size, mtime and content hash with its findings. The cache file is named
by the tool version, so an upgrade starts fresh. A matching size and mtime is
the fast path; otherwise the content hash decides, so a touched but unchanged
file is still a hit and a changed file never is. Writes are atomic (temp file
and rename): concurrent runs cannot corrupt it, the last one wins.

The cache lives inside the checked tree, so a repository can ship one: it is
plain JSON (after the line of its MAC), read with ``json`` and checked field
by field. A file that is not a cache file is ignored; a row is checked when
its file is first asked for, and a malformed one is that file's miss (and is
dropped when the cache is written). Nothing in it can run code.

Nor can a shipped cache hide a finding. Everything in a row can be
computed from the tree (the path, the size, the content hash), so rows that
say "no findings" could be forged; instead, every cache file is signed: its
first line is a keyed BLAKE2b MAC of the rest, under a random key of the
user's own (:func:`signing_key`), kept outside every tree in the user's
cache folder (``~/.cache/tensorlint/cache-key``, made ``0600`` in a ``0700``
folder). A file whose MAC does not match (written by another user or
machine, or edited) is not a cache file: every file is checked, and the
cache is rewritten. A key that is a link, belongs to another user or that
others can read or write is not used, and neither is the cache.

A cache that someone else could have written is not used at all (git's
``safe.directory`` reasoning; ``refused`` says why, and the run goes on
without a cache): a cache folder or file that is a symbolic link, holds one,
is not owned by the current user or is writable by others. The folder is
created ``0700`` and its files ``0600``, never through a link.

The file lists each settings text once and refers to it from each row; a
warm run reads the file once and builds only the entries it serves.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
from pathlib import Path
from typing import NamedTuple, Optional

from tensorlint import __version__
from tensorlint.diagnostics import (
    CONFIDENCES,
    LOW,
    Applicability,
    Diagnostic,
    Edit,
    Fix,
    Position,
    Related,
)
from tensorlint.engine.tree import PROJECT_DEPENDENCY, project_fingerprint
from tensorlint.file_settings import folder_key
from tensorlint.fix.io import read_regular
from tensorlint.rule import Settings

CACHE_DIR = ".tensorlint_cache"


class Entry(NamedTuple):
    size: int
    mtime_ns: int
    digest: str
    diagnostics: tuple[Diagnostic, ...]
    #: (path, size, mtime_ns) of the modules whose summaries the result used
    deps: tuple[tuple[str, int, int], ...] = ()
    #: the codec the file's coding cookie names that Python does not know
    unknown_codec: Optional[str] = None


def _digest(data: bytes) -> str:
    import hashlib  # (loads OpenSSL: only when a file is hashed)

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def tool_fingerprint() -> str:
    """The version plus the size and mtime of tensorlint's own modules.

    A released version never changes, but an edited checkout does: findings
    cached by older rule code must not be served. (Two checksums of the
    listing, not a cryptographic hash: nobody crafts the package's own stat
    data, and a warm run should not load OpenSSL for it.)
    """
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    parts = [__version__]
    for path in sorted(_modules(package)):
        status = os.stat(path)
        parts.append(f"{os.path.relpath(path, package)}:{status.st_size}:{status.st_mtime_ns}")
    listing = "\n".join(parts).encode()
    return f"{zlib.crc32(listing):08x}{zlib.adler32(listing) & 0xFFFF:04x}"


def _modules(folder: str) -> list[str]:
    """The ``.py`` files under ``folder`` (``os.scandir``: far cheaper than ``rglob``)."""
    found = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                found.extend(_modules(entry.path))
            elif entry.name.endswith(".py"):
                found.append(entry.path)
    return found


def settings_key(settings: Settings) -> str:
    """The settings as a short text (each cache file lists them once)."""
    # ``library=None`` (outside a package: the text decides) keys like True:
    # the text is in the entry's digest, and the two differ only for a file
    # with a ``__main__`` guard whose folder gains or loses ``__init__.py``
    library = settings.library is not False
    enabled = ",".join(sorted(settings.enabled))
    calls = ",".join(settings.converting_calls)
    key = f"{enabled}|{settings.numpy_idiom}|{int(settings.assume_torch)}|{int(library)}|{calls}"
    target = settings.target_version
    key = key if target is None else f"{key}|{target[0]}.{target[1]}"
    # (only when set: the keys of existing caches stay as they were)
    if settings.unfixable:
        key += f"|unfixable={','.join(sorted(settings.unfixable))}"
    if settings.ignore_noqa:
        key += "|ignore-noqa"
    if settings.min_confidence != LOW:
        key += f"|min-confidence={settings.min_confidence}"
    return key


def _current_user() -> Optional[int]:
    """The user a cache must belong to (None where there are no owners to
    compare: Windows); a seam for tests, which cannot become another user."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def _untrusted(path: Path, status: os.stat_result) -> Optional[str]:
    """Why the cache folder or file ``path`` (``lstat``-ed) must not be used."""
    mode = status.st_mode
    if stat.S_ISLNK(mode):
        return f"{path} is a symbolic link"
    user = _current_user()
    if user is None:
        return None
    if status.st_uid != user:
        return f"{path} is owned by another user (uid {status.st_uid})"
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{path} is writable by other users (mode {stat.S_IMODE(mode):o})"
    return None


def _untrusted_folder(directory: Path) -> Optional[str]:
    """Why the cache folder must not be used (None: it may, or is not there yet)."""
    try:
        status = os.lstat(directory)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{directory}: {error.strerror or error}"
    reason = _untrusted(directory, status)
    if reason is None and not stat.S_ISDIR(status.st_mode):
        reason = f"{directory} is not a folder"
    if reason is None:
        try:
            with os.scandir(directory) as entries:
                link = next((e.name for e in entries if e.is_symlink()), None)
        except OSError as error:
            return f"{directory}: {error.strerror or error}"
        if link is not None:
            reason = f"{directory} holds a symbolic link ({link})"
    return reason


#: the flags of a file the cache creates: a new file, never through a link
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


# --- the key that signs this user's caches ------------------------------------

_KEY_BYTES = 32


class KeyUnavailable(Exception):
    """There is no key to sign the cache with; ``str()`` says why, in one line."""


def key_file() -> Optional[Path]:
    """Where this user's cache key lives, outside every checked tree:
    ``$XDG_CACHE_HOME/tensorlint/cache-key``, by default under ``~/.cache``
    (``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows). None
    when there is no home folder to find."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.environ.get("LOCALAPPDATA", "") if sys.platform == "win32" else ""
    if not os.path.isabs(base):
        try:
            home = Path.home()
        except (RuntimeError, KeyError):
            return None
        if not home.is_absolute():
            return None
        base = str(home / ("Library/Caches" if sys.platform == "darwin" else ".cache"))
    return Path(base) / "tensorlint" / "cache-key"


def signing_key() -> bytes:
    """This user's key for the caches' MACs: read from :func:`key_file`, and
    made there (random, ``0600``, in a ``0700`` folder) when there is none.
    Raises :class:`KeyUnavailable`."""
    path = key_file()
    if path is None:
        raise KeyUnavailable("there is no home folder to keep the cache key in")
    try:
        return _read_key(path)
    except FileNotFoundError:
        _make_key(path)
    try:
        return _read_key(path)
    except FileNotFoundError:
        raise KeyUnavailable(f"the cache key {path} vanished as it was made") from None


def _read_key(path: Path) -> bytes:
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        raise
    except OSError as error:
        if error.errno == errno.ELOOP or os.path.islink(path):
            raise KeyUnavailable(f"the cache key {path} is a symbolic link") from None
        raise KeyUnavailable(
            f"cannot read the cache key {path}: {error.strerror or error}"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        reason = _unusable_key(path, status)
        if reason is not None:
            raise KeyUnavailable(reason)
        data = handle.read(4 * _KEY_BYTES)
    try:
        key = bytes.fromhex(data.decode("ascii"))
    except ValueError:  # (UnicodeDecodeError is one)
        key = b""
    if len(key) != _KEY_BYTES:
        raise KeyUnavailable(f"the cache key {path} is malformed (remove it: a new one is made)")
    return key


def _unusable_key(path: Path, status: os.stat_result) -> Optional[str]:
    """Why the key file must not be used: someone else could know or set it."""
    if not stat.S_ISREG(status.st_mode):
        return f"the cache key {path} is not a regular file"
    user = _current_user()
    if user is None:
        return None
    if status.st_uid != user:
        return f"the cache key {path} is owned by another user (uid {status.st_uid})"
    if status.st_mode & 0o077:
        mode = stat.S_IMODE(status.st_mode)
        return f"the cache key {path} is readable or writable by other users (mode {mode:o})"
    return None


def _make_key(path: Path) -> None:
    """A new random key at ``path``, written whole before it appears there,
    and never over a key another run made meanwhile."""
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # (mkstemp: a new file, 0600, never through a link)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(os.urandom(_KEY_BYTES).hex() + "\n")
            with contextlib.suppress(FileExistsError):  # another run's key: it is read
                os.link(temp, path)
        finally:
            os.unlink(temp)
    except OSError as error:
        raise KeyUnavailable(
            f"cannot make the cache key {path}: {error.strerror or error}"
        ) from None


def _mac(key: bytes, body: bytes) -> bytes:
    """The keyed BLAKE2b of ``body``, in hex: CPython's own module, as
    ``hashlib`` would load OpenSSL first (which a warm run otherwise never
    needs), else ``hashlib``'s."""
    try:
        from _blake2 import blake2b
    except ImportError:  # (a build without it: hashlib has OpenSSL's)
        from hashlib import blake2b
    return blake2b(body, key=key, digest_size=32).hexdigest().encode("ascii")


def seal(key: bytes, body: bytes) -> bytes:
    """A cache file: the MAC of ``body`` under ``key`` on the first line, then ``body``."""
    return _mac(key, body) + b"\n" + body


def unseal(key: bytes, data: bytes) -> bytes:
    """The body of the cache file ``data``; ValueError unless its MAC is
    ``key``'s (another user's or machine's cache, or one edited since)."""
    mac, newline, body = data.partition(b"\n")
    # (compared in plain: a forger has no timing to measure, only one try a run)
    if not newline or mac != _mac(key, body):
        raise ValueError("not a cache file signed with this user's key")
    return body


class Cache:
    """The entries of one cache file. Rows are checked when first asked for:
    a warm run reads the file once and builds only the entries it serves.

    ``refused`` is why the cache is not used (someone else could have written
    it); it then serves and saves nothing."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / f"v{__version__}-{tool_fingerprint()}.cache"
        #: checked entries: those asked for, and the new ones
        self.entries: dict[tuple[str, str], Entry] = {}
        #: rows read from the file and not asked for yet (kept as read)
        self._rows: dict[tuple[str, str], list[object]] = {}
        self._keys: dict[Settings, str] = {}
        #: ``folder_key`` -> the folder, absolute
        self._folders: dict[tuple[str, str], str] = {}
        #: what ``os.stat`` said of a dependency this run: many files depend
        #: on the same few modules (a run sees the file system as it found it,
        #: as the tree's summaries do)
        self._stats: dict[str, tuple[int, int]] = {}
        #: per project a result read callers in, its files' digests (this run)
        self._projects: dict[str, Optional[dict[str, int]]] = {}
        self.dirty = False
        #: this user's key for the file's MAC
        self._secret = b""
        self.refused = _untrusted_folder(directory)
        if self.refused is None:
            try:
                self._secret = signing_key()
            except KeyUnavailable as error:
                self.refused = str(error)
        if self.refused is None:
            self.refused = self._read()

    def _read(self) -> Optional[str]:
        """Read the cache file; why it must not be used, if it must not."""
        try:
            reason = _untrusted(self.path, os.lstat(self.path))
            if reason is None:
                self._rows = rows(unseal(self._secret, read_regular(self.path)))
        except (OSError, ValueError):
            return None  # none yet, or not a cache file (or not ours): rewritten
        return reason

    def __len__(self) -> int:
        return len(self.entries) + len(self._rows)

    def _key(self, path: Path, settings: Settings) -> tuple[str, str]:
        key = self._keys.get(settings)
        if key is None:
            key = self._keys[settings] = settings_key(settings)
        where = folder_key(path)
        absolute = self._folders.get(where)
        if absolute is None:
            absolute = self._folders[where] = os.path.abspath(where[1])
        return os.path.join(absolute, os.path.basename(path)), key

    def _entry(self, key: tuple[str, str]) -> Optional[Entry]:
        entry = self.entries.get(key)
        if entry is None:
            row = self._rows.pop(key, None)
            if row is None:
                return None
            try:
                entry = _entry(row)
            except ValueError:
                self.dirty = True  # dropped: written without it
                return None
            self.entries[key] = entry
        return entry

    def get(self, path: Path, settings: Settings) -> Optional[tuple[Diagnostic, ...]]:
        """The findings cached for ``path`` checked with ``settings``, if
        still true (see :meth:`lookup`)."""
        entry = self.lookup(path, settings)
        return None if entry is None else entry.diagnostics

    def lookup(self, path: Path, settings: Settings) -> Optional[Entry]:
        """The entry for ``path`` checked with ``settings``, when the file
        and the modules it depends on are unchanged; else None."""
        key = self._key(path, settings)
        entry = self._entry(key)
        if entry is None:
            return None
        try:
            status = os.stat(path)
        except OSError:
            return None
        if not self._unchanged(entry.deps):
            return None
        if status.st_size == entry.size and status.st_mtime_ns == entry.mtime_ns:
            return entry
        if status.st_size != entry.size:
            return None
        try:
            digest = _digest(read_regular(path))
        except OSError:
            return None
        if digest != entry.digest:
            return None
        entry = entry._replace(size=status.st_size, mtime_ns=status.st_mtime_ns, digest=digest)
        self.entries[key] = entry
        self.dirty = True
        return entry

    def put(
        self,
        path: Path,
        settings: Settings,
        diagnostics: tuple[Diagnostic, ...],
        deps: tuple[tuple[str, int, int], ...] = (),
        unknown_codec: Optional[str] = None,
    ) -> None:
        try:
            status = os.stat(path)
            digest = _digest(read_regular(path))
        except OSError:
            return
        key = self._key(path, settings)
        self._rows.pop(key, None)
        self.entries[key] = Entry(
            status.st_size, status.st_mtime_ns, digest, diagnostics, deps, unknown_codec
        )
        self.dirty = True

    def _unchanged(self, deps: tuple[tuple[str, int, int], ...]) -> bool:
        """Are the modules a result used as they were?"""
        for path, size, mtime_ns in deps:
            now = self._stats.get(path)
            if now is None:
                if path.startswith(PROJECT_DEPENDENCY):
                    # callers in other files: the project's files as a whole
                    found = project_fingerprint(path, self._projects)
                    if found is None:
                        return False
                    now = self._stats[path] = found
                else:
                    try:
                        status = os.stat(path)
                    except OSError:
                        return False
                    now = self._stats[path] = (status.st_size, status.st_mtime_ns)
            if now != (size, mtime_ns):
                return False
        return True

    def save(self) -> None:
        if not self.dirty or self.refused is not None:
            return
        import tempfile

        self.dirty = False
        try:
            self.directory.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.mkdir(self.directory, 0o700)
            if _untrusted_folder(self.directory) is not None:
                return  # it may point anywhere (made a link since): never write through it
            try:
                fd = os.open(self.directory / ".gitignore", _CREATE, 0o600)
            except FileExistsError:
                pass
            else:
                with os.fdopen(fd, "w") as handle:
                    handle.write("# created by tensorlint\n*\n")
            # (mkstemp: a new file, 0600, never through a link)
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(seal(self._secret, encode(self.entries, self._rows)))
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a read-only tree still gets checked, just not cached


# --- the file format: JSON, checked on the way in ------------------------------

_FORMAT = "tensorlint-cache"
_FORMAT_VERSION = 7


def encode(
    entries: dict[tuple[str, str], Entry],
    unread: Optional[dict[tuple[str, str], list[object]]] = None,
) -> bytes:
    """The cache file: each settings text once, then one row per entry
    (``unread``: rows read from the old file and not asked for, as read)."""
    settings: dict[str, int] = {}
    table = []
    for (path, key), e in entries.items():
        index = settings.setdefault(key, len(settings))
        table.append(
            [
                path,
                index,
                e.size,
                e.mtime_ns,
                e.digest,
                [_diagnostic_row(d) for d in e.diagnostics],
                [list(d) for d in e.deps],
                e.unknown_codec,
            ]
        )
    for (path, key), row in (unread or {}).items():
        table.append([path, settings.setdefault(key, len(settings)), *row[2:]])
    data = {
        "format": _FORMAT,
        "version": _FORMAT_VERSION,
        "settings": list(settings),
        "entries": table,
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def rows(data: bytes) -> dict[tuple[str, str], list[object]]:
    """The rows of a cache file by (path, settings); ValueError when the file
    is not one. Each row's other fields are checked by ``_entry`` when asked."""
    try:
        loaded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError) as error:
        raise ValueError("not a cache file") from error
    if (
        not isinstance(loaded, dict)
        or loaded.get("format") != _FORMAT
        or loaded.get("version") != _FORMAT_VERSION
    ):
        raise ValueError("not a cache file")
    settings = [_str(key) for key in _list(loaded.get("settings"))]
    found: dict[tuple[str, str], list[object]] = {}
    for row in _list(loaded.get("entries")):
        fields = _list(row, 8)
        index = _int(fields[1])
        if not 0 <= index < len(settings):
            raise ValueError("malformed cache entry")
        found[(_str(fields[0]), settings[index])] = fields
    return found


def _entry(row: list[object]) -> Entry:
    _, _, size, mtime_ns, digest, diagnostics, deps, unknown_codec = row
    return Entry(
        _int(size),
        _int(mtime_ns),
        _str(digest),
        tuple(_diagnostic(d) for d in _list(diagnostics)),
        tuple(_dependency(d) for d in _list(deps)),
        None if unknown_codec is None else _str(unknown_codec),
    )


def _dependency(row: object) -> tuple[str, int, int]:
    # (asked once per dependency of every file a warm run serves: the checks
    # are written out; ``type(x) is int`` also refuses a bool, as ``_int`` does)
    if type(row) is list and len(row) == 3:
        path, size, mtime_ns = row
        if type(path) is str and type(size) is int and type(mtime_ns) is int:
            return path, size, mtime_ns
    raise ValueError("malformed cache entry")


def _diagnostic_row(d: Diagnostic) -> list[object]:
    fix = (
        None
        if d.fix is None
        else [
            d.fix.applicability.value,
            d.fix.description,
            [[*_span(e.start, e.end), e.content] for e in d.fix.edits],
        ]
    )
    related = [[*_span(r.start, r.end), r.message, r.cell] for r in d.related]
    return [d.code, d.name, d.message, _span(d.start, d.end), fix, d.cell, related, d.confidence]


def _span(start: Position, end: Position) -> list[int]:
    return [start.line, start.column, end.line, end.column]


def _diagnostic(row: object) -> Diagnostic:
    code, name, message, span, fix, cell, related, confidence = _list(row, 8)
    start, end = _positions(span)
    if confidence not in CONFIDENCES:
        raise ValueError("malformed cache entry")
    return Diagnostic(
        _str(code),
        _str(name),
        _str(message),
        start,
        end,
        None if fix is None else _fix(fix),
        _optional_int(cell),
        tuple(_related(r) for r in _list(related)),
        _str(confidence),
    )


def _fix(row: object) -> Fix:
    applicability, description, edits = _list(row, 3)
    parsed = []
    for edit in _list(edits):
        *span, content = _list(edit, 5)
        start, end = _positions(span)
        parsed.append(Edit(start, end, _str(content)))
    return Fix(Applicability(_str(applicability)), tuple(parsed), _str(description))


def _related(row: object) -> Related:
    *span, message, cell = _list(row, 6)
    start, end = _positions(span)
    return Related(start, end, _str(message), _optional_int(cell))


def _positions(span: object) -> tuple[Position, Position]:
    line, column, end_line, end_column = (_int(v) for v in _list(span, 4))
    return Position(line, column), Position(end_line, end_column)


def _list(value: object, length: Optional[int] = None) -> list[object]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError("malformed cache entry")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("malformed cache entry")
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("malformed cache entry")
    return value


def _optional_int(value: object) -> Optional[int]:
    return None if value is None else _int(value)
