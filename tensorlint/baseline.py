"""``--add-noqa``: a baseline for legacy code.

Every current finding gets ``# noqa: CODE`` on its line, so a team can turn
the hook on today and burn the list down: new code is checked, and each
removed comment brings its finding back. Existing comments are kept: a
``# noqa: TL101`` line gains the missing codes (``# noqa: TL101, TL102``,
the codes already listed kept as written), a bare ``# noqa`` already covers
everything. A comment goes only where every supported Python accepts one: a
line that ends inside a string, inside an f-string's braces (a comment there
parses from Python 3.12 on) or in a backslash continuation is left as it is
(counted as left). TL900 findings are never written (counted apart): a
``# noqa: TL900`` would silence the rule that burns the baseline down.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tensorlint.analysis.pytree import parse
from tensorlint.diagnostics import Diagnostic
from tensorlint.noqa import LINE_ENDS, NOQA, read_comments, split_codes
from tensorlint.reporters._common import CONTROLS
from tensorlint.rules.tl900 import UnusedNoqa

#: splits a text into line, ending, line, ending, ..., last line
_LINES_AND_ENDS = re.compile(f"({LINE_ENDS.pattern})")

#: the blanks Python allows at the end of a line
_BLANKS = " \t\f"

#: codes a baseline never lists: a TL900 in its comments silences its own burn-down
NEVER_WRITTEN = frozenset({UnusedNoqa.CODE})


@dataclass(frozen=True)
class Baseline:
    text: str
    added: int  #: codes written
    left: int  #: findings whose line could not take a comment
    unwritten: int = 0  #: findings of ``NEVER_WRITTEN`` codes


def add_noqa(text: str, diagnostics: Sequence[Diagnostic], reason: str = "") -> Baseline:
    """``text`` with ``# noqa: CODES`` on the line of each finding, and
    ``reason`` after the codes of each new comment (``# noqa: TL101 reason``,
    Ruff's ``--add-noqa=REASON``; see :func:`reason_problem`).

    Only comments are added: the new text has the same syntax tree as
    ``text``; a text the running Python cannot parse (newer syntax), where
    that cannot be checked, is returned unchanged with every finding left.
    """
    wanted: dict[int, set[str]] = {}
    unwritten = 0
    for diagnostic in diagnostics:
        if diagnostic.code in NEVER_WRITTEN:
            unwritten += 1
        else:
            wanted.setdefault(diagnostic.start.line, set()).add(diagnostic.code)
    everything = Baseline(text, 0, sum(len(c) for c in wanted.values()), unwritten)
    if not wanted:
        return everything
    try:
        before = ast.dump(parse(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return everything
    comments = read_comments(text)
    pieces = _LINES_AND_ENDS.split(text)  # line, ending, line, ending, ..., last line
    added = left = 0
    for number, codes in sorted(wanted.items()):
        slot = 2 * (number - 1)
        comment = comments.by_line.get(number)
        if slot >= len(pieces) or (comment is None and number not in comments.open_ends):
            left += len(codes)
            continue
        line = pieces[slot]
        match = NOQA.search(comment.text) if comment is not None else None
        if comment is not None and match is not None:
            if match.group("codes") is None:
                continue  # a bare noqa comment silences every code already
            listed = tuple(c.upper() for c in split_codes(match.group("codes")))
            missing = sorted(c for c in codes if not c.startswith(listed))
            if missing:  # after the codes listed, which stay as written
                at = comment.column + match.end("codes")
                pieces[slot] = f"{line[:at]}, {', '.join(missing)}{line[at:]}"
                added += len(missing)
            continue
        tail = f" {reason}" if reason else ""
        pieces[slot] = f"{line.rstrip(_BLANKS)}  # noqa: {', '.join(sorted(codes))}{tail}"
        added += len(codes)
    new = "".join(pieces)
    if added and not _same_tree(before, new):  # (a safety net: not expected)
        return everything
    return Baseline(new, added, left, unwritten)


def _same_tree(before: str, new: str) -> bool:
    try:
        return before == ast.dump(parse(new))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


#: a word that every reader of noqa comments (flake8, Ruff, tensorlint) takes for a code
_CODE_LIKE = re.compile(r"[A-Za-z]+[0-9]")


def reason_problem(reason: str) -> str | None:
    """Why ``reason`` cannot follow the codes of a noqa comment, or None: it
    must stay on the line and read as written (no line break, no other
    control or bidirectional character) and must not start with a word that
    reads as one more code (``E501 later`` would silence E501 too)."""
    if CONTROLS.search(reason):
        return "it holds a line break or another control or bidirectional character"
    if _CODE_LIKE.match(reason.lstrip(" \t\f,")):  # (codes are split at blanks and commas)
        return "its first word reads as a code (after `TL101`, `E501 ...` silences E501 too)"
    return None
