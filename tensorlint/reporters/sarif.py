"""``--output-format sarif``: SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure).

One run. ``tool.driver.rules`` describes every rule tensorlint has, enabled
or not, in code order, so ``ruleIndex`` is stable across runs. Findings are
``results`` with 1-based lines and columns (``columnKind`` is
``unicodeCodePoints``); a finding's fix, when it has one, is a SARIF ``fix``
whose ``properties.applicability`` says whether ``--fix`` applies it. Files
that could not be checked are ``toolExecutionNotifications`` of the one
invocation, which is then not ``executionSuccessful``.

Relative paths become relative URIs against ``%SRCROOT%`` (GitHub resolves
them from the repository root); absolute paths become ``file://`` URIs.

A finding in a notebook cell has no ``region`` (its lines count from the
cell, not from the top of the notebook's JSON): its location names the file,
says ``cell N, line L, column C`` in its ``message`` and holds the numbers in
``properties`` (``cell``, ``startLine``, ...); it carries no ``fixes``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tensorlint import __version__
from tensorlint.diagnostics import Diagnostic, FileResult, Fix, Position
from tensorlint.docs import rule_description, rule_documentation, rule_header, rule_summary
from tensorlint.registry import ALL_RULES
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import (
    INFORMATION_URI,
    TOOL_NAME,
    json_safe,
    level,
    one_based,
)
from tensorlint.rule import BY_EVIDENCE, Rule

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"

_RULE_INDEX = {rule.CODE: index for index, rule in enumerate(ALL_RULES)}


def artifact_location(path: str) -> dict[str, str]:
    """A SARIF ``artifactLocation`` for a path as tensorlint printed it."""
    pure = Path(path)
    if pure.is_absolute():
        return {"uri": pure.as_uri()}
    parts = [part for part in pure.as_posix().split("/") if part not in ("", ".")]
    return {"uri": quote("/".join(parts), safe="/"), "uriBaseId": SRCROOT}


def _region(start: Position, end: Position) -> dict[str, int]:
    start_line, start_column = one_based(start)
    end_line, end_column = one_based(end)
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def _rule(rule: type[Rule]) -> dict[str, Any]:
    markdown = f"{rule_header(rule)}\n\n{rule_documentation(rule)}"
    return {
        "id": rule.CODE,
        "name": rule.NAME,
        "shortDescription": {"text": rule_summary(rule)},
        "fullDescription": {"text": rule_description(rule)},
        "help": {"text": rule_documentation(rule), "markdown": markdown},
        "defaultConfiguration": {"enabled": bool(rule.DEFAULT), "level": level(rule.CODE)},
        "properties": {
            "tags": ["correctness", "pytorch", "numpy"],
            # (GitHub code scanning ranks alerts by it; each result has its own
            # ``confidence`` too)
            "precision": "medium" if rule.CONFIDENCE == BY_EVIDENCE else rule.CONFIDENCE,
            "fix": rule.FIX or "none",
            "profile": "default" if rule.DEFAULT else "strict",
        },
    }


def _fix(path: str, fix: Fix) -> dict[str, Any]:
    return {
        "description": {"text": fix.description or "Apply the tensorlint fix"},
        "artifactChanges": [
            {
                "artifactLocation": artifact_location(path),
                "replacements": [
                    {
                        "deletedRegion": _region(edit.start, edit.end),
                        "insertedContent": {"text": edit.content},
                    }
                    for edit in fix.edits
                ],
            }
        ],
        "properties": {"applicability": fix.applicability.value},
    }


def _result(path: str, d: Diagnostic) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": d.code}
    if d.code in _RULE_INDEX:
        result["ruleIndex"] = _RULE_INDEX[d.code]
    result["level"] = level(d.code)
    result["message"] = {"text": d.message}
    result["properties"] = {"confidence": d.confidence}
    if d.cell is not None:
        region = _region(d.start, d.end)
        where = f"cell {d.cell}, line {region['startLine']}, column {region['startColumn']}"
        result["locations"] = [
            {
                "physicalLocation": {"artifactLocation": artifact_location(path)},
                "message": {"text": where},
                "properties": {"cell": d.cell, **region},
            }
        ]
        return result
    result["locations"] = [
        {
            "physicalLocation": {
                "artifactLocation": artifact_location(path),
                "region": _region(d.start, d.end),
            }
        }
    ]
    if d.related:
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {
                    "artifactLocation": artifact_location(path),
                    "region": _region(r.start, r.end),
                },
                "message": {"text": r.message},
            }
            for number, r in enumerate(d.related)
        ]
    if d.fix is not None:
        result["fixes"] = [_fix(path, d.fix)]
    return result


def document(results: Sequence[FileResult], options: ReportOptions) -> dict[str, Any]:
    """The SARIF log as JSON-ready data (what :func:`render` serialises)."""
    notifications = [
        {
            "level": "error",
            "message": {"text": r.error},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(r.path)}}],
        }
        for r in results
        if r.error
    ]
    invocation: dict[str, Any] = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(rule) for rule in ALL_RULES],
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": [_result(r.path, d) for r in results for d in r.diagnostics],
            }
        ],
    }


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    text = json.dumps(document(results, options), indent=2, ensure_ascii=False)
    return json_safe(text) + "\n"
