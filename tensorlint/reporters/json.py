"""``--output-format json``: one JSON document, schema version 1.

The schema (documented in the README, section *CI output formats*)::

    {
      "version": 1,
      "tool": {"name": "tensorlint", "version": "0.1.0"},
      "findings": [
        {
          "file": "src/a.py",
          "cell": null,                      # notebooks: the 1-based code cell
          "line": 5, "column": 12,           # 1-based, as in the text output
          "end_line": 5, "end_column": 25,   # the character after the finding
          "code": "TL101",
          "name": "numpy-on-accelerator-tensor",
          "level": "error",                  # "warning" for strict-profile rules
          "confidence": "high",              # or "medium", "low" (README: Confidence)
          "message": "...",
          "related": [                       # the evidence the finding rests on
            {"cell": null, "line": 3, "column": 9, "end_line": 3, "end_column": 21,
             "message": "moved to a device that may be CUDA"}
          ],
          "fix": null | {
            "applicability": "safe" | "unsafe" | "display-only",
            "description": "...",
            "edits": [
              {"start": {"line": 5, "column": 20}, "end": {"line": 5, "column": 20},
               "content": ".cpu().detach()"}
            ]
          }
        }
      ],
      "errors": [{"file": "src/b.py", "message": "src/b.py: syntax error at ..."}],
      "fixed": [{"file": "src/c.py", "codes": ["TL101", "TL102"]}],
      "summary": {"files": 3, "findings": 1, "fixable": 1, "unsafe_fixable": 0,
                  "fixed": 2, "errors": 1}
    }

Columns count characters (Unicode code points). In a notebook (``cell`` set)
lines count from the first line of that code cell. Keys are never removed or
renamed within a schema version; new keys may be added.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from tensorlint import __version__
from tensorlint.diagnostics import (
    CONFIDENCES,
    Applicability,
    Diagnostic,
    FileResult,
    Fix,
    Position,
    Related,
)
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import TOOL_NAME, json_safe, level, one_based

#: Bumped only when a key is removed or changes meaning.
SCHEMA_VERSION = 1

_POSITION = {
    "type": "object",
    "required": ["line", "column"],
    "properties": {
        "line": {"type": "integer", "minimum": 1},
        "column": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
}
_COUNT = {"type": "integer", "minimum": 0}

#: A JSON Schema (draft 2020-12) of the document :func:`render` writes.
JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tensorlint JSON report",
    "type": "object",
    "required": ["version", "tool", "findings", "errors", "fixed", "summary"],
    "properties": {
        "version": {"const": SCHEMA_VERSION},
        "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"const": "tensorlint"}, "version": {"type": "string"}},
        },
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "file",
                    "cell",
                    "line",
                    "column",
                    "end_line",
                    "end_column",
                    "code",
                    "name",
                    "level",
                    "message",
                    "fix",
                ],
                "properties": {
                    "file": {"type": "string"},
                    "cell": {"type": ["integer", "null"], "minimum": 1},
                    "line": {"type": "integer", "minimum": 1},
                    "column": {"type": "integer", "minimum": 1},
                    "end_line": {"type": "integer", "minimum": 1},
                    "end_column": {"type": "integer", "minimum": 1},
                    "code": {"type": "string", "pattern": "^TL[0-9]{3}$"},
                    "name": {"type": "string"},
                    "level": {"enum": ["error", "warning"]},
                    "confidence": {"enum": list(CONFIDENCES)},
                    "message": {"type": "string"},
                    "related": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": [
                                "cell",
                                "line",
                                "column",
                                "end_line",
                                "end_column",
                                "message",
                            ],
                            "properties": {
                                "cell": {"type": ["integer", "null"], "minimum": 1},
                                "line": {"type": "integer", "minimum": 1},
                                "column": {"type": "integer", "minimum": 1},
                                "end_line": {"type": "integer", "minimum": 1},
                                "end_column": {"type": "integer", "minimum": 1},
                                "message": {"type": "string"},
                            },
                        },
                    },
                    "fix": {
                        "oneOf": [
                            {"type": "null"},
                            {
                                "type": "object",
                                "required": ["applicability", "description", "edits"],
                                "properties": {
                                    "applicability": {"enum": ["safe", "unsafe", "display-only"]},
                                    "description": {"type": "string"},
                                    "edits": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["start", "end", "content"],
                                            "properties": {
                                                "start": _POSITION,
                                                "end": _POSITION,
                                                "content": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            },
                        ]
                    },
                },
            },
        },
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["file", "message"],
                "properties": {"file": {"type": "string"}, "message": {"type": "string"}},
            },
        },
        "fixed": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["file", "codes"],
                "properties": {
                    "file": {"type": "string"},
                    "codes": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "summary": {
            "type": "object",
            "required": ["files", "findings", "fixable", "unsafe_fixable", "fixed", "errors"],
            "properties": {
                key: _COUNT
                for key in ("files", "findings", "fixable", "unsafe_fixable", "fixed", "errors")
            },
        },
    },
}


def _position(position: Position) -> dict[str, int]:
    line, column = one_based(position)
    return {"line": line, "column": column}


def _fix(fix: Optional[Fix]) -> Optional[dict[str, Any]]:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "edits": [
            {"start": _position(e.start), "end": _position(e.end), "content": e.content}
            for e in fix.edits
        ],
    }


def _finding(path: str, d: Diagnostic) -> dict[str, Any]:
    line, column = one_based(d.start)
    end_line, end_column = one_based(d.end)
    return {
        "file": path,
        "cell": d.cell,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "code": d.code,
        "name": d.name,
        "level": level(d.code),
        "confidence": d.confidence,
        "message": d.message,
        "related": [_related(r) for r in d.related],
        "fix": _fix(d.fix),
    }


def _related(r: Related) -> dict[str, Any]:
    line, column = one_based(r.start)
    end_line, end_column = one_based(r.end)
    return {"cell": r.cell, "line": line, "column": column, "end_line": end_line,
            "end_column": end_column, "message": r.message}  # fmt: skip


def document(
    results: Sequence[FileResult], options: ReportOptions, findings: Any = None
) -> dict[str, Any]:
    """The report as JSON-ready data (what :func:`render` serialises);
    ``findings`` stands in for the list of findings when given."""
    fixes = [d.fix for r in results for d in r.diagnostics if d.fix is not None]
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "findings": (
            [_finding(r.path, d) for r in results for d in r.diagnostics]
            if findings is None
            else findings
        ),
        "errors": [{"file": r.path, "message": r.error} for r in results if r.error],
        "fixed": [
            {"file": r.path, "codes": list(r.fixes_applied)} for r in results if r.fixes_applied
        ],
        "summary": {
            "files": len(results),
            "findings": sum(len(r.diagnostics) for r in results),
            "fixable": sum(f.applicability is Applicability.SAFE for f in fixes),
            "unsafe_fixable": sum(f.applicability is Applicability.UNSAFE for f in fixes),
            "fixed": sum(len(r.fixes_applied) for r in results),
            "errors": sum(1 for r in results if r.error),
        },
    }


#: stands in for the findings while the rest of the document is serialised
#: (a NUL cannot occur in a path or message unescaped, so nothing else matches)
_PLACEHOLDER = "\x00findings\x00"


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    """The document, as ``json.dumps(document(...), indent=2)`` writes it, with
    the findings serialised one at a time: a run with 100,000 findings never
    holds them all as dictionaries (and the encoder's pieces) at once."""
    text = json.dumps(document(results, options, _PLACEHOLDER), indent=2, ensure_ascii=False)
    head, _, tail = json_safe(text).partition(json.dumps(_PLACEHOLDER, ensure_ascii=False))
    pieces = [head, "["]
    for result in results:
        for diagnostic in result.diagnostics:
            finding = json.dumps(_finding(result.path, diagnostic), indent=2, ensure_ascii=False)
            pieces += [",\n    " if len(pieces) > 2 else "\n    ", finding.replace("\n", "\n    ")]
            pieces[-1] = json_safe(pieces[-1])
    pieces += ["\n  ]" if len(pieces) > 2 else "]", tail, "\n"]
    return "".join(pieces)  # one copy of the whole text
