"""The README's tables that a bench measures: written by the bench, never typed.

Each such table sits in the README between two marker comments::

    <!-- precision table: written by `python -m bench precision --readme README.md` -->
    ...
    <!-- end of the precision table -->

and ``--readme FILE`` of that bench rewrites what is between them: a first line
saying which command printed it, when, and from which tensorlint (version and
commit), then the table. Nothing else of the file changes.
"""

from __future__ import annotations

import datetime
from pathlib import Path

__all__ = ["COMMANDS", "begin", "block", "end", "replace", "stamp", "write"]

#: the tables, and the command that writes each (the one the README documents)
COMMANDS: dict[str, str] = {
    "precision": "python -m bench precision --readme README.md",
    "recall": "python -m bench recall --strict --readme README.md",
    "held-out recall": "python -m bench recall --held-out --strict --readme README.md",
    "unread": "python -m bench unread --readme README.md",
}


def begin(name: str) -> str:
    return f"<!-- {name} table: written by `{COMMANDS[name]}` -->"


def end(name: str) -> str:
    return f"<!-- end of the {name} table -->"


def _bounds(text: str, name: str) -> tuple[int, int]:
    """Where the block's content starts and ends in ``text``; ValueError when
    its markers are not there exactly once each, in order."""
    first, last = begin(name), end(name)
    if text.count(first) != 1 or text.count(last) != 1:
        raise ValueError(f"the {name} table needs its markers once each: {first} ... {last}")
    start = text.index(first) + len(first)
    stop = text.index(last)
    if stop < start:
        raise ValueError(f"the {name} table's end marker comes before its start: {last}")
    return start, stop


def block(text: str, name: str) -> str:
    """The content of the ``name`` table (without the markers and the line
    breaks next to them)."""
    start, stop = _bounds(text, name)
    return text[start:stop].strip("\n")


def replace(text: str, name: str, content: str) -> str:
    """``text`` with the ``name`` table's content replaced by ``content``."""
    start, stop = _bounds(text, name)
    return f"{text[:start]}\n{content.strip()}\n{text[stop:]}"


def write(path: Path, name: str, content: str) -> None:
    """Rewrite the ``name`` table of the file ``path``; a bad file stops the
    bench with one line naming it and the reason."""
    try:
        text = path.read_text(encoding="utf-8")
        new = replace(text, name, content)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise SystemExit(f"{path}: cannot write the {name} table: {error}") from None
    if new != text:
        path.write_text(new, encoding="utf-8")


def stamp(command: str, today: datetime.date | None = None) -> str:
    """``Printed by `python -m bench recall --strict` on 2026-11-26, tensorlint
    0.1.0 (git 3b35aa6c1f2e).``: what printed a table, when, from what."""
    from bench.tools import _git_describe, tensorlint_package

    day = (today or datetime.datetime.now(datetime.timezone.utc).date()).isoformat()
    try:
        from tensorlint import __version__ as version
    except ImportError:  # pragma: no cover - the benches need tensorlint
        version = "(not installed)"
    package = tensorlint_package()
    described = _git_describe(package) if package is not None else None
    where = f" ({described})" if described else ""
    return f"Printed by `{command}` on {day}, tensorlint {version}{where}."
