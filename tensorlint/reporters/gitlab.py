"""``--output-format gitlab``: a GitLab Code Quality report (JSON array).

Each finding is an issue with ``description`` (code and message),
``check_name`` (the rule code), ``severity`` (``major`` for a rule on by
default, ``minor`` for a strict-profile rule), ``location`` (``path`` and
``lines.begin``/``lines.end``; in a notebook the cell is named in the
description) and a ``fingerprint`` GitLab uses to match an issue across
commits: a digest of the path, the rule, the code the finding spans and the
code of its evidence (whitespace normalised), and a counter for identical
findings in one file. Never a line number: inserting or removing lines above
a finding keeps its fingerprint, so moving code neither "fixes" an issue nor
adds one. (Without the file's text, the message stands in for the code, with
its line numbers left out.) A file that could not be checked is a
``blocker`` named ``tensorlint-error``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Optional

from tensorlint.diagnostics import Diagnostic, FileResult, Position
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import level

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: where a message names a place: ``at line 40``, ``(line 3)``, ``lines 3-5``,
#: ``line 2, column 5``, ``cell 3``
_PLACE = re.compile(r"\b(?:lines?|columns?|cell)\s+\d+(?:\s*[-–]\s*\d+)?", re.I)


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _placeless(message: str) -> str:
    """``message`` without the line, column and cell numbers it names."""
    return " ".join(_PLACE.sub("#", message).split())


class _Code:
    """The text of one checked file, by line (of each code cell in a notebook)."""

    def __init__(self, path: str, text: Optional[str]) -> None:
        #: cell (None in a ``.py`` file) -> its lines, without line ends
        self.lines: dict[Optional[int], list[str]] = {}
        if text is None:
            return
        if not path.endswith(".ipynb"):
            self.lines[None] = _LINE_BREAK.split(text)
            return
        from tensorlint.notebook import NotebookError, load

        try:
            notebook = load(text)
        except NotebookError:
            return
        for cell in notebook.cells:
            self.lines[cell.number] = [line.rstrip("\r\n") for line in cell.lines]

    def span(self, cell: Optional[int], start: Position, end: Position) -> Optional[str]:
        """The code from ``start`` to ``end``, its whitespace normalised; None
        when the text is not known (or does not hold the span)."""
        lines = self.lines.get(cell)
        if lines is None or not 1 <= start.line <= end.line <= len(lines):
            return None
        if start.line == end.line:
            text = lines[start.line - 1][start.column : end.column]
        else:
            text = "\n".join(
                [
                    lines[start.line - 1][start.column :],
                    *lines[start.line : end.line - 1],
                    lines[end.line - 1][: end.column],
                ]
            )
        return " ".join(text.split())


def _identity(d: Diagnostic, code: _Code) -> tuple[str, ...]:
    """What a finding's fingerprint is made of, after its path: the rule, the
    code it spans, and the code of each piece of evidence; never a place."""
    spanned = code.span(d.cell, d.start, d.end)
    evidence = []
    for related in d.related:
        cell = related.cell if related.cell is not None else d.cell
        text = code.span(cell, related.start, related.end)
        evidence.append(text if text is not None else _placeless(related.message))
    return (d.code, spanned if spanned is not None else _placeless(d.message), *evidence)


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    issues: list[dict[str, object]] = []
    sources = options.sources or {}
    for result in results:
        path = result.path.replace("\\", "/")
        if result.error:
            issues.append(
                {
                    "description": result.error,
                    "check_name": "tensorlint-error",
                    "fingerprint": _fingerprint(path, "error", _placeless(result.error)),
                    "severity": "blocker",
                    "location": {"path": path, "lines": {"begin": 1}},
                }
            )
        code = _Code(result.path, sources.get(result.path))
        seen: Counter[tuple[str, ...]] = Counter()
        for d in result.diagnostics:
            identity = _identity(d, code)
            seen[identity] += 1
            where = f"cell {d.cell}: " if d.cell is not None else ""
            issues.append(
                {
                    "description": f"{d.code} {where}{d.message}",
                    "check_name": d.code,
                    "fingerprint": _fingerprint(path, *identity, str(seen[identity])),
                    "severity": "major" if level(d.code) == "error" else "minor",
                    "location": {
                        "path": path,
                        "lines": {"begin": d.start.line, "end": d.end.line},
                    },
                }
            )
    return json.dumps(issues, indent=2) + "\n"
