"""``--output-format gitlab``: a GitLab Code Quality report (JSON array).

Each finding is an issue with ``description`` (code and message),
``check_name`` (the rule code), ``severity`` (``major`` for a rule on by
default, ``minor`` for a strict-profile rule), ``location`` (``path`` and
``lines.begin``/``lines.end``; in a notebook the cell is named in the
description) and a ``fingerprint`` GitLab uses to match an issue across
commits: a digest of the path, the code and the message (not the line, so
moving code does not make an old issue look fixed and a new one appear), with
a counter for identical findings in one file. A file that could not be
checked is a ``blocker`` named ``tensorlint-error``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence

from tensorlint.diagnostics import FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import level


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    issues: list[dict[str, object]] = []
    for result in results:
        path = result.path.replace("\\", "/")
        if result.error:
            issues.append(
                {
                    "description": result.error,
                    "check_name": "tensorlint-error",
                    "fingerprint": _fingerprint(path, "error", result.error),
                    "severity": "blocker",
                    "location": {"path": path, "lines": {"begin": 1}},
                }
            )
        seen: Counter[tuple[str, str]] = Counter()
        for d in result.diagnostics:
            seen[(d.code, d.message)] += 1
            where = f"cell {d.cell}: " if d.cell is not None else ""
            issues.append(
                {
                    "description": f"{d.code} {where}{d.message}",
                    "check_name": d.code,
                    "fingerprint": _fingerprint(
                        path, d.code, d.message, str(seen[(d.code, d.message)])
                    ),
                    "severity": "major" if level(d.code) == "error" else "minor",
                    "location": {
                        "path": path,
                        "lines": {"begin": d.start.line, "end": d.end.line},
                    },
                }
            )
    return json.dumps(issues, indent=2) + "\n"
