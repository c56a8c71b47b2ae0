"""The result cache (Ruff's and Black's model).

Entries are keyed by the file's path and the effective settings, and hold the
file's size, mtime and content hash with its findings. The cache file is named
by the tool version, so an upgrade starts fresh. A matching size and mtime is
the fast path; otherwise the content hash decides, so a touched but unchanged
file is still a hit and a changed file never is. Writes are atomic (temp file
and rename): concurrent runs cannot corrupt it, the last one wins.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from tensorlint import __version__
from tensorlint.diagnostics import Diagnostic
from tensorlint.rule import Settings

CACHE_DIR = ".tensorlint_cache"


@dataclass(frozen=True)
class Entry:
    size: int
    mtime_ns: int
    digest: str
    diagnostics: tuple[Diagnostic, ...]


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
    text = repr((sorted(settings.enabled), settings.numpy_idiom, settings.assume_torch))
    return _digest(text.encode())


class Cache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / f"v{__version__}-{tool_fingerprint()}.pickle"
        self.entries: dict[tuple[str, str], Entry] = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as handle:
                loaded = pickle.load(handle)
            if isinstance(loaded, dict):
                self.entries = loaded
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
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
        self.entries[key] = Entry(stat.st_size, stat.st_mtime_ns, digest, entry.diagnostics)
        self.dirty = True
        return entry.diagnostics

    def put(self, path: Path, settings: Settings, diagnostics: tuple[Diagnostic, ...]) -> None:
        try:
            stat = path.stat()
            digest = _digest(path.read_bytes())
        except OSError:
            return
        key = (os.path.abspath(path), settings_key(settings))
        self.entries[key] = Entry(stat.st_size, stat.st_mtime_ns, digest, diagnostics)
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        import tempfile

        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by tensorlint\n*\n")
            fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # a read-only tree still gets checked, just not cached
        self.dirty = False
