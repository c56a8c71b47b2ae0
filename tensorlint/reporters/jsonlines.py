"""``--output-format json-lines``: one JSON object per line (JSON Lines).

Each finding is a line holding the object the ``json`` format lists under
``findings`` (the same keys, 1-based lines and columns); a file that could
not be checked is a line ``{"file": ..., "error": ...}`` (its ``error`` key
tells it apart). Lines come in the order of the findings, and a clean run
prints nothing: a stream to filter (``jq 'select(.code == "TL101")'``), to
append to, or to read a line at a time. Strings are kept exact, with the
characters that would drive a terminal escaped the JSON way, as in ``json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tensorlint.diagnostics import FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import json_safe
from tensorlint.reporters.json import _finding


def _line(value: object) -> str:
    return json_safe(json.dumps(value, ensure_ascii=False)) + "\n"


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    lines: list[str] = []
    for result in results:
        if result.error:
            lines.append(_line({"file": result.path, "error": result.error}))
        lines.extend(_line(_finding(result.path, d)) for d in result.diagnostics)
    return "".join(lines)
