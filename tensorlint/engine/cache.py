"""The result cache (Ruff's and Black's model).

Entries are keyed by the file's path and the effective settings, and hold the
file's size, mtime and content hash with its findings. The cache file is named
by the tool version, so an upgrade starts fresh. A matching size and mtime is
the fast path; otherwise the content hash decides, so a touched but unchanged
file is still a hit and a changed file never is. Writes are atomic (temp file
and rename): concurrent runs cannot corrupt it, the last one wins.

The cache lives inside the checked tree, so a repository can ship one: it is
plain JSON, read with ``json`` and checked field by field. A malformed or
hostile file is a cache miss and nothing else; nothing in it can run code.
A cache directory that is a symbolic link is never written through.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from tensorlint import __version__
from tensorlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position, Related
from tensorlint.rule import Settings

CACHE_DIR = ".tensorlint_cache"


@dataclass(frozen=True)
class Entry:
    size: int
    mtime_ns: int
    digest: str
    diagnostics: tuple[Diagnostic, ...]
    #: (path, size, mtime_ns) of the modules whose summaries the result used
    deps: tuple[tuple[str, int, int], ...] = ()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def tool_fingerprint() -> str:
    """The version plus the size and mtime of tensorlint's own modules.

    A released version never changes, but an edited checkout does: findings
    cached by older rule code must not be served.
    """
    package = Path(__file__).resolve().parent.parent
    parts = [__version__]
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return _digest("\n".join(parts).encode())[:12]


def settings_key(settings: Settings) -> str:
    # ``library=None`` (outside a package: the text decides) keys like True:
    # the text is in the entry's digest, and the two differ only for a file
    # with a ``__main__`` guard whose folder gains or loses ``__init__.py``
    library = settings.library is not False
    text = repr((sorted(settings.enabled), settings.numpy_idiom, settings.assume_torch, library))
    return _digest(text.encode())


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / f"v{__version__}-{tool_fingerprint()}.json"
        self.entries: dict[tuple[str, str], Entry] = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as handle:
                self.entries = decode(handle.read())
        except (OSError, ValueError):
            self.entries = {}

    def get(self, path: Path, settings: Settings) -> Optional[tuple[Diagnostic, ...]]:
        key = (os.path.abspath(path), settings_key(settings))
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            stat = path.stat()
        except OSError:
            return None
        if not _unchanged(entry.deps):
            return None
        if stat.st_size == entry.size and stat.st_mtime_ns == entry.mtime_ns:
            return entry.diagnostics
        if stat.st_size != entry.size:
            return None
        try:
            digest = _digest(path.read_bytes())
        except OSError:
            return None
        if digest != entry.digest:
            return None
        self.entries[key] = Entry(
            stat.st_size, stat.st_mtime_ns, digest, entry.diagnostics, entry.deps
        )
        self.dirty = True
        return entry.diagnostics

    def put(
        self,
        path: Path,
        settings: Settings,
        diagnostics: tuple[Diagnostic, ...],
        deps: tuple[tuple[str, int, int], ...] = (),
    ) -> None:
        try:
            stat = path.stat()
            digest = _digest(path.read_bytes())
        except OSError:
            return
        key = (os.path.abspath(path), settings_key(settings))
        self.entries[key] = Entry(stat.st_size, stat.st_mtime_ns, digest, diagnostics, deps)
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        import tempfile

        if self.directory.is_symlink():
            self.dirty = False
            return  # it may point anywhere: never write through it
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by tensorlint\n*\n")
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(encode(self.entries))
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a read-only tree still gets checked, just not cached
        self.dirty = False


def _unchanged(deps: tuple[tuple[str, int, int], ...]) -> bool:
    """Are the modules a result used as they were? (A stat each.)"""
    for path, size, mtime_ns in deps:
        try:
            stat = os.stat(path)
        except OSError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != mtime_ns:
            return False
    return True


# --- the file format: JSON, checked on the way in ------------------------------

_FORMAT = "tensorlint-cache"
_FORMAT_VERSION = 2


def encode(entries: dict[tuple[str, str], Entry]) -> bytes:
    rows = [
        [
            path,
            key,
            e.size,
            e.mtime_ns,
            e.digest,
            [_diagnostic_row(d) for d in e.diagnostics],
            [list(d) for d in e.deps],
        ]
        for (path, key), e in entries.items()
    ]
    data = {"format": _FORMAT, "version": _FORMAT_VERSION, "entries": rows}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def decode(data: bytes) -> dict[tuple[str, str], Entry]:
    """The entries in ``data``; ValueError when anything is not as written."""
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
    entries: dict[tuple[str, str], Entry] = {}
    for row in _list(loaded.get("entries")):
        path, key, size, mtime_ns, digest, diagnostics, deps = _list(row, 7)
        entries[(_str(path), _str(key))] = Entry(
            _int(size),
            _int(mtime_ns),
            _str(digest),
            tuple(_diagnostic(d) for d in _list(diagnostics)),
            tuple(_dependency(d) for d in _list(deps)),
        )
    return entries


def _dependency(row: object) -> tuple[str, int, int]:
    path, size, mtime_ns = _list(row, 3)
    return _str(path), _int(size), _int(mtime_ns)


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
    return [d.code, d.name, d.message, _span(d.start, d.end), fix, d.cell, related]


def _span(start: Position, end: Position) -> list[int]:
    return [start.line, start.column, end.line, end.column]


def _diagnostic(row: object) -> Diagnostic:
    code, name, message, span, fix, cell, related = _list(row, 7)
    start, end = _positions(span)
    return Diagnostic(
        _str(code),
        _str(name),
        _str(message),
        start,
        end,
        None if fix is None else _fix(fix),
        _optional_int(cell),
        tuple(_related(r) for r in _list(related)),
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
