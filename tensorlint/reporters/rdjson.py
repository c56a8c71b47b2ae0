"""``--output-format rdjson``: reviewdog's Reviewdog Diagnostic Format (JSON).

One ``DiagnosticResult`` document, for ``reviewdog -f=rdjson`` (pull-request
review comments on GitHub, GitLab, Gitea, Bitbucket)::

    {
      "source": {"name": "tensorlint", "url": "..."},
      "diagnostics": [
        {
          "message": "`.numpy()` on `model(x)`, ...",
          "location": {"path": "src/a.py",
                       "range": {"start": {"line": 5, "column": 12},
                                 "end": {"line": 5, "column": 28}}},
          "severity": "ERROR",
          "code": {"value": "TL101"},
          "suggestions": [{"range": {...}, "text": ".cpu().detach()"}],
          "related_locations": [{"message": "...", "location": {...}}]
        }
      ]
    }

As the format asks, lines are 1-based and columns are 1-based *UTF-8 byte*
offsets, ranges end after the last character (exclusive). Byte columns need
the line's text: the command line hands the reporter each file's text; given
none (a caller of :func:`render` without ``sources``), columns count
characters, which is the same for ASCII lines. ``severity`` is ``ERROR`` for
the rules on by default and ``WARNING`` for the strict profile;
``suggestions`` are the edits of the finding's fix (safe and unsafe alike:
a reviewer applies them by hand), ``related_locations`` its evidence. A
finding in a notebook cell names only the file, with ``cell N, line L,
column C:`` before its message; a file that could not be checked is an
``ERROR`` naming only the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from tensorlint.diagnostics import Diagnostic, FileResult, Position
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import INFORMATION_URI, TOOL_NAME, json_safe, level, one_based
from tensorlint.reporters._errors import error_reason

_LINE_ENDS = re.compile(r"\r\n|\r|\n")
_SEVERITY = {"error": "ERROR", "warning": "WARNING"}


class _Columns:
    """1-based UTF-8 byte columns of one file's positions."""

    def __init__(self, text: Optional[str]) -> None:
        self.lines = _LINE_ENDS.split(text) if text is not None else None

    def position(self, position: Position) -> dict[str, int]:
        line, column = one_based(position)
        if self.lines is not None and 0 < position.line <= len(self.lines):
            before = self.lines[position.line - 1][: position.column]
            column = len(before.encode("utf-8", "surrogatepass")) + 1
        return {"line": line, "column": column}

    def range(self, start: Position, end: Position) -> dict[str, Any]:
        return {"start": self.position(start), "end": self.position(end)}


def _diagnostic(path: str, d: Diagnostic, columns: _Columns) -> dict[str, Any]:
    found: dict[str, Any] = {"message": d.message, "location": {"path": path}}
    if d.cell is not None:
        line, column = one_based(d.start)
        found["message"] = f"cell {d.cell}, line {line}, column {column}: {d.message}"
    else:
        found["location"]["range"] = columns.range(d.start, d.end)
    found["severity"] = _SEVERITY[level(d.code)]
    found["code"] = {"value": d.code}
    if d.fix is not None and d.cell is None:
        found["suggestions"] = [
            {"range": columns.range(e.start, e.end), "text": e.content} for e in d.fix.edits
        ]
    if d.related and d.cell is None:
        found["related_locations"] = [
            {
                "message": r.message,
                "location": {"path": path, "range": columns.range(r.start, r.end)},
            }
            for r in d.related
        ]
    return found


def document(
    results: Sequence[FileResult], sources: Optional[Mapping[str, str]] = None
) -> dict[str, Any]:
    diagnostics: list[dict[str, Any]] = []
    for result in results:
        if result.error:
            diagnostics.append(
                {
                    "message": error_reason(result.path, result.error),
                    "location": {"path": result.path},
                    "severity": "ERROR",
                }
            )
        if result.diagnostics:
            columns = _Columns(sources.get(result.path) if sources is not None else None)
            diagnostics.extend(_diagnostic(result.path, d, columns) for d in result.diagnostics)
    return {"source": {"name": TOOL_NAME, "url": INFORMATION_URI}, "diagnostics": diagnostics}


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    text = json.dumps(document(results, options.sources), indent=2, ensure_ascii=False)
    return json_safe(text) + "\n"
