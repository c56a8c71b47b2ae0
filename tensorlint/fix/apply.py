"""Apply fixes: text edits by applicability, re-parse, re-lint to convergence.

A fix is applied whole or not at all. Identical edits from several findings
(TL101 and TL202 inserting the same ``.cpu().detach()``) are applied once;
a fix that overlaps or touches one already taken waits for the next pass,
when it is linted again on the new text. A pass whose result does not
parse is retried fix by fix, dropping (and reporting) the ones that break
the syntax; a file that does not settle in ``MAX_PASSES`` stays as it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Optional

from tensorlint.diagnostics import Applicability, Diagnostic, Edit, Position
from tensorlint.engine.lint import TreeView, lint_source
from tensorlint.rule import Settings

MAX_PASSES = 8

_NEWLINE = re.compile(r"\r\n|\r|\n")

#: Fixes that contain another rule's fix go first (TL202 before TL101).
_PRIORITY = {"TL202": 0, "TL103": 1}


@dataclass
class FixOutcome:
    source: str
    applied: Counter[str] = field(default_factory=Counter)
    remaining: list[Diagnostic] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    error: Optional[str] = None


def applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    fix = diagnostic.fix
    if fix is None:
        return False
    if fix.applicability is Applicability.SAFE:
        return True
    return unsafe and fix.applicability is Applicability.UNSAFE


def _offsets(source: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(source))
    return starts


def _offset(starts: list[int], position: Position) -> int:
    return starts[position.line - 1] + position.column


def apply_edits(source: str, diagnostics: Sequence[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """Apply as many whole fixes as do not conflict; returns (text, applied)."""
    ordered = sorted(
        (d for d in diagnostics if d.fix is not None),
        key=lambda d: (_PRIORITY.get(d.code, 5), d.start, d.code),
    )
    taken: dict[Edit, None] = {}
    applied: list[Diagnostic] = []
    for diagnostic in ordered:
        assert diagnostic.fix is not None
        edits = [e for e in diagnostic.fix.edits if e not in taken]
        if any(_conflicts(edit, other) for edit in edits for other in taken):
            continue
        for edit in edits:
            taken[edit] = None
        applied.append(diagnostic)
    starts = _offsets(source)
    result = source
    for edit in sorted(taken, key=lambda e: (e.start, e.end), reverse=True):
        start, end = _offset(starts, edit.start), _offset(starts, edit.end)
        result = result[:start] + edit.content + result[end:]
    return result, applied


def _conflicts(a: Edit, b: Edit) -> bool:
    if a == b:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    return a.start <= b.end and b.start <= a.end


def _parses(source: str, grammar: bool = True) -> bool:
    """Does ``source`` parse, with LibCST and (when ``grammar``) with the running
    interpreter's own parser? LibCST accepts syntax older Pythons reject (a
    quote reused inside an f-string), so a fix must pass both where the
    original did."""
    import libcst as cst

    from tensorlint.analysis.pytree import parse

    try:
        cst.parse_module(source)
        if grammar:
            parse(source)
    except Exception:
        return False
    return True


def _interpreter_parses(source: str) -> bool:
    from tensorlint.analysis.pytree import parse

    try:
        parse(source)
    except Exception:
        return False
    return True


def fix_source(
    source: str, settings: Settings, *, unsafe: bool = False, tree: Optional[TreeView] = None
) -> FixOutcome:
    """Lint and fix until nothing fixable is left; never raises on bad fixes."""
    outcome = FixOutcome(source)
    current = source
    banned: set[tuple[str, str]] = set()
    grammar = _interpreter_parses(source)  # newer syntax than ours: LibCST alone
    for _ in range(MAX_PASSES):
        diagnostics = lint_source(current, settings, tree)
        fixable = [
            d for d in diagnostics
            if applicable(d, unsafe) and (d.code, _fingerprint(d)) not in banned
        ]  # fmt: skip
        if not fixable:
            outcome.source = current
            outcome.remaining = diagnostics
            return outcome
        candidate, applied = apply_edits(current, fixable)
        if not _parses(candidate, grammar):
            candidate, applied = _apply_one_by_one(current, fixable, banned, outcome, grammar)
            if not applied:
                outcome.source = current
                outcome.remaining = diagnostics
                return outcome
        for diagnostic in applied:
            outcome.applied[diagnostic.code] += 1
        current = candidate
    outcome.source = source
    outcome.applied.clear()
    outcome.remaining = lint_source(source, settings, tree)
    outcome.error = f"fixes did not settle after {MAX_PASSES} passes; file left unchanged"
    return outcome


def _fingerprint(diagnostic: Diagnostic) -> str:
    assert diagnostic.fix is not None
    return repr(diagnostic.fix.edits)


def _apply_one_by_one(
    source: str,
    fixable: list[Diagnostic],
    banned: set[tuple[str, str]],
    outcome: FixOutcome,
    grammar: bool,
) -> tuple[str, list[Diagnostic]]:
    current = source
    applied: list[Diagnostic] = []
    for diagnostic in fixable:
        # positions refer to ``source``: apply each fix alone on it, keep the good
        candidate, taken = apply_edits(source, [*applied, diagnostic])
        parses = _parses(candidate, grammar)
        if taken and parses and len(taken) == len(applied) + 1:
            current, applied = candidate, taken
        elif not parses:
            banned.add((diagnostic.code, _fingerprint(diagnostic)))
            outcome.dropped.append(
                f"{diagnostic.code} fix at line {diagnostic.start.line} would leave a "
                "syntax error; not applied"
            )
    return current, applied
