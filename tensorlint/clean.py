"""``tensorlint clean``: remove the result cache (as ``ruff clean`` does).

It removes the cache a ``check`` of the same paths would use (``--cache-dir``,
else ``$TENSORLINT_CACHE_DIR``, else ``.tensorlint_cache/`` next to the
configuration, or in the current directory without one), and every
``.tensorlint_cache/`` folder under the named directories (a nested project's;
links are not followed). A folder is removed only when it holds nothing but
what tensorlint writes there (its cache files, their temporary files and the
``.gitignore`` it made); one that holds anything else (a ``--cache-dir``
pointed at the wrong place), or that is a symbolic link, is left untouched,
with one error line (exit code 2). The key that signs caches (outside every tree) is kept.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from tensorlint.engine.cache import CACHE_DIR
from tensorlint.engine.discovery import DEFAULT_EXCLUDES

#: the files tensorlint writes in a cache folder (see ``engine/cache.py``): its
#: cache files and their temporary files
_OURS = re.compile(r"v[^/\\]*\.cache|\.[^/\\]*\.tmp")
#: the ``.gitignore`` it writes there (another one is not its to remove)
_GITIGNORE = ".gitignore"
_GITIGNORE_TEXT = b"# created by tensorlint\n"


def _ours(entry: os.DirEntry[str]) -> bool:
    if entry.is_dir(follow_symlinks=False):
        return False
    if entry.name == _GITIGNORE:
        if not entry.is_file(follow_symlinks=False):  # (never opened: a FIFO would block)
            return False
        try:
            with open(entry.path, "rb") as file:
                return file.read(len(_GITIGNORE_TEXT)) == _GITIGNORE_TEXT
        except OSError:
            return False
    return _OURS.fullmatch(entry.name) is not None


def nested_caches(paths: Sequence[Path]) -> Iterator[Path]:
    """The ``.tensorlint_cache`` folders under the named directories."""
    skipped = frozenset(DEFAULT_EXCLUDES) - {CACHE_DIR}
    for path in paths:
        if not path.is_dir():
            continue
        for folder, names, _ in os.walk(path):  # (links to folders are not followed)
            if CACHE_DIR in names:
                yield Path(folder, CACHE_DIR)
            names[:] = [n for n in names if n not in skipped and n != CACHE_DIR]


def remove_cache(folder: Path) -> str | None:
    """Remove the cache folder ``folder``: None when done (or when there is
    none), else why it was left."""
    try:
        status = os.lstat(folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"{folder}: not removed: {error.strerror or error}"
    if stat.S_ISLNK(status.st_mode):
        return f"{folder}: not removed: it is a symbolic link"
    if not stat.S_ISDIR(status.st_mode):
        return f"{folder}: not removed: it is not a folder"
    try:
        with os.scandir(folder) as entries:
            listed = list(entries)
        others = sorted(entry.name for entry in listed if not _ours(entry))
        if others:  # (then nothing is removed: it may not be a cache at all)
            return (
                f"{folder}: not removed: it holds what tensorlint does not write "
                f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''})"
            )
        for entry in listed:
            os.unlink(entry.path)  # (a link itself, never what it points to)
        os.rmdir(folder)
    except OSError as error:
        return f"{folder}: not removed: {error.strerror or error}"
    return None


def clean(main_cache: Path, paths: Sequence[Path]) -> int:
    """Remove ``main_cache`` and the caches under ``paths``; exit code."""
    from tensorlint.reporters.text import printable

    seen: dict[str, Path] = {}
    for folder in (main_cache, *nested_caches(paths)):
        seen.setdefault(os.path.normcase(os.path.abspath(folder)), folder)
    removed = failed = 0
    for folder in seen.values():
        existed = os.path.lexists(folder)
        problem = remove_cache(folder)
        if problem is not None:
            print(f"error: {printable(problem)}", file=sys.stderr)
            failed += 1
        elif existed:
            print(f"Removed {printable(str(folder))}", file=sys.stderr)
            removed += 1
    if not removed and not failed:
        print(f"No cache to remove ({printable(str(main_cache))} is not there).", file=sys.stderr)
    return 2 if failed else 0
