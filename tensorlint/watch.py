"""``check --watch``: check again whenever a file changes.

Changes are found by polling, with no dependency: every
:data:`POLL_SECONDS` the files a check would read (found as a check finds
them: ``exclude``, ``.gitignore`` and the default excludes apply, so a
virtual environment is never walked), and the ``pyproject.toml`` and
``.gitignore`` files of their folders and of every folder above the named
paths, are stat-ed; a file added, removed, or whose modification time, size
or inode changed starts a new check once the tree has been quiet for one
more poll (an editor's save is often several writes). The snapshot is taken
before each check, so a change made while it runs is not missed (a check
with ``--fix`` is followed by one more: the files it fixed changed).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Callable, TextIO

#: seconds between two looks at the files
POLL_SECONDS = 0.5

Stamp = tuple[int, int, int]


def _config_of(paths: Sequence[Path]) -> tuple[tuple[str, ...], Path | None, bool]:
    """(exclude, root, respect-gitignore) of the configuration a check would
    start from; the defaults when it cannot be used (the check says why)."""
    from tensorlint.config import Config, ConfigError, find_config_file, load_config

    try:
        config = load_config(find_config_file(paths))
    except ConfigError:
        config = Config()
    return config.exclude, config.root, config.respect_gitignore


def snapshot(paths: Sequence[Path]) -> dict[str, Stamp]:
    """(mtime, size, inode) of every file a change of which a check would see."""
    from tensorlint.engine.discovery import discover

    exclude, root, gitignore = _config_of(paths)
    files = [str(p) for p in discover(paths, exclude, root, respect_gitignore=gitignore)]
    folders: set[str] = set()
    for name in files:
        folders.add(os.path.dirname(os.path.abspath(name)))
    for path in paths:
        folder = os.path.abspath(path)
        if not os.path.isdir(folder):
            folder = os.path.dirname(folder)
        while True:  # the configuration and ignore files above: they apply too
            folders.add(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    settings = ("pyproject.toml", ".gitignore")
    watched = files + [os.path.join(folder, name) for folder in folders for name in settings]
    stamps: dict[str, Stamp] = {}
    for name in watched:
        try:
            status = os.stat(name)
        except OSError:
            continue  # not there (yet): its appearance is a change
        stamps[name] = (status.st_mtime_ns, status.st_size, status.st_ino)
    return stamps


def _now() -> str:
    return time.strftime("%H:%M:%S")


def watch(
    paths: Sequence[Path],
    check: Callable[[], int],
    *,
    clear: bool = False,
    stderr: TextIO | None = None,
    poll: float = POLL_SECONDS,
) -> int:
    """Run ``check`` now and after every change under ``paths``, until
    interrupted (Ctrl-C: exit code 0). ``clear``: clear the terminal before
    each check after the first."""
    err = stderr if stderr is not None else sys.stderr
    print(f"[{_now()}] Starting tensorlint in watch mode (Ctrl-C to stop)...", file=err)
    try:
        while True:
            before = snapshot(paths)
            check()
            sys.stdout.flush()  # (a pipe: the report is read as it comes)
            print(f"[{_now()}] Watching for file changes.", file=err, flush=True)
            now = before
            while now == before:
                time.sleep(poll)
                now = snapshot(paths)
            while True:  # until the tree is quiet for one poll
                time.sleep(poll)
                later = snapshot(paths)
                if later == now:
                    break
                now = later
            if clear:
                sys.stdout.write("\x1b[2J\x1b[H")
            print(f"[{_now()}] File change detected, checking again...", file=err)
    except KeyboardInterrupt:
        return 0
