"""``tensorlint clean``: remove the result cache (as ``ruff clean`` does).

It removes the cache a ``check`` of the same paths would use (``--cache-dir``,
else ``$TENSORLINT_CACHE_DIR``, else ``.tensorlint_cache/`` next to the
configuration, or in the current directory without one), and every
``.tensorlint_cache/`` folder under the named directories (a nested project's;
links are not followed). Only what tensorlint writes there is removed (its
cache files, their temporary files and the folder's ``.gitignore``), then the
folder: a folder that holds anything else (a ``--cache-dir`` pointed at the
wrong place), or that is a symbolic link, is left as it is, with one error
line (exit code 2). The key that signs caches (outside every tree) is kept.
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

#: the names tensorlint writes in a cache folder (see ``engine/cache.py``)
_OURS = re.compile(r"\.gitignore|v[^/\\]*\.cache|\.[^/\\]*\.tmp")


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
        others = []
        for entry in listed:
            if _OURS.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)  # (a link itself, never what it points to)
            else:
                others.append(entry.name)
        if others:
            return (
                f"{folder}: not removed: it holds what tensorlint does not write "
                f"({', '.join(sorted(others)[:3])})"
            )
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
