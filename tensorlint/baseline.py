"""``--add-noqa``: a baseline for legacy code.

Every current finding gets ``# noqa: CODE`` on its line, so a team can turn
the hook on today and burn the list down: new code is checked, and each
removed comment brings its finding back. Existing comments are kept: a
``# noqa: TL101`` line gains the missing codes (``# noqa: TL101, TL102``), a
bare ``# noqa`` already covers everything. A line that ends in a backslash
continuation cannot take a comment and is left as it is (counted as left).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tensorlint.analysis.pytree import parse
from tensorlint.diagnostics import Diagnostic
from tensorlint.noqa import LINE_ENDS, NOQA, split_codes

#: splits a text into line, ending, line, ending, ..., last line
_LINES_AND_ENDS = re.compile(f"({LINE_ENDS.pattern})")


@dataclass(frozen=True)
class Baseline:
    text: str
    added: int  #: codes written
    left: int  #: findings whose line could not take a comment


def add_noqa(text: str, diagnostics: Sequence[Diagnostic]) -> Baseline:
    """``text`` with ``# noqa: CODES`` on the line of each finding.

    Only comments are added: the new text has the same syntax tree as
    ``text``; if the edit would change it (a line inside a string, say) the
    text is returned unchanged, with every finding counted as left.
    """
    wanted: dict[int, set[str]] = {}
    for diagnostic in diagnostics:
        wanted.setdefault(diagnostic.start.line - 1, set()).add(diagnostic.code)
    pieces = _LINES_AND_ENDS.split(text)  # line, ending, line, ending, ..., last line
    added = left = 0
    for index, codes in wanted.items():
        slot = 2 * index
        if slot >= len(pieces):
            left += len(codes)
            continue
        line = pieces[slot]
        match = NOQA.search(line)
        if match is not None and match.group("codes") is None:
            continue  # a bare noqa comment silences every code already
        if match is not None:
            listed = [c.upper() for c in split_codes(match.group("codes"))]
            missing = sorted(c for c in codes if not c.startswith(tuple(listed)))
            if missing:
                start, end = match.span("codes")
                pieces[slot] = line[:start] + ", ".join([*listed, *missing]) + line[end:]
                added += len(missing)
            continue
        if line.rstrip().endswith("\\"):
            left += len(codes)
            continue
        pieces[slot] = f"{line.rstrip()}  # noqa: {', '.join(sorted(codes))}"
        added += len(codes)
    new = "".join(pieces)
    if added and not _same_tree(text, new):
        return Baseline(text, 0, sum(len(c) for c in wanted.values()))
    return Baseline(new, added, left)


def _same_tree(old: str, new: str) -> bool:
    try:
        return ast.dump(parse(old)) == ast.dump(parse(new))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
