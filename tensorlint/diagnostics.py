"""The values every layer passes around: positions, edits, fixes, diagnostics.

All of them are immutable named tuples, so results can be cached, compared and
sent between processes without surprises (and, unlike dataclasses, defining
them costs next to nothing when the command starts).
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional


class Applicability(enum.Enum):
    """How much a fix can be trusted (Ruff's model).

    ``SAFE`` fixes keep the program's meaning and are applied by ``--fix``;
    ``UNSAFE`` ones may change what the program does (usually that *is* the bug
    fix) and need ``--unsafe-fixes``; ``DISPLAY_ONLY`` fixes are only shown.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


#: How sure a finding is, least sure first: the one list of the levels.
#: ``high``: the code shows the hazard's cause (a move to a device, a
#: module's output, a trainable parameter, a write into shared memory);
#: ``medium``: it rests on the public-API guess that callers no checked code
#: shows may pass a CUDA tensor or one that requires grad; ``low``: the
#: strict rules, which report what no evidence supports. ``--min-confidence``
#: hides the findings below a level; docs/confidence.md has each level's
#: measured precision.
HIGH, MEDIUM, LOW = "high", "medium", "low"
CONFIDENCES: tuple[str, ...] = (LOW, MEDIUM, HIGH)


def confidence_rank(level: str) -> int:
    """The place of ``level`` in ``CONFIDENCES`` (``low`` is 0)."""
    return CONFIDENCES.index(level)


class Position(NamedTuple):
    """A place in a source file: 1-based line, 0-based column in characters."""

    line: int
    column: int


class Edit(NamedTuple):
    """Replace the text between ``start`` and ``end`` with ``content``.

    ``start == end`` is an insertion.
    """

    start: Position
    end: Position
    content: str


class Fix(NamedTuple):
    applicability: Applicability
    edits: tuple[Edit, ...]
    description: str


class Related(NamedTuple):
    """Another place a finding rests on: the evidence that makes it right."""

    start: Position
    end: Position
    message: str
    #: for notebooks, as ``Diagnostic.cell``
    cell: Optional[int] = None


class Diagnostic(NamedTuple):
    code: str
    name: str
    message: str
    start: Position
    end: Position
    fix: Optional[Fix] = None
    #: for notebooks: the 1-based code cell; ``start``/``end`` lines are then
    #: lines within that cell
    cell: Optional[int] = None
    #: the evidence, where the finding names it
    related: tuple[Related, ...] = ()
    #: one of ``CONFIDENCES``
    confidence: str = HIGH


class FileResult(NamedTuple):
    """Everything tensorlint has to say about one file.

    ``error`` is set when the file could not be read, parsed or fixed; the
    other files are still processed. ``fixed_source`` is the rewritten text
    when fixes were applied (``None`` when nothing changed).
    """

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    error: Optional[str] = None
    fixed_source: Optional[str] = None
    original_source: Optional[str] = None
    fixes_applied: tuple[str, ...] = ()
    #: (path, size, mtime_ns) of the other modules whose summaries the
    #: findings used (the cache reuses them only while these are unchanged)
    deps: tuple[tuple[str, int, int], ...] = ()
    #: how the result was had: "parsed", "skipped" (the prefilter found no
    #: conversion: not parsed, so a syntax error there is not seen), "cached",
    #: or "failed" (not checked: it could not be read or parsed; ``error`` says why)
    how: str = "parsed"
    #: the codec the file's coding cookie names when Python does not know it
    #: (``future_fstrings``): the file was read as UTF-8 (the command line
    #: says so on stderr)
    unknown_codec: Optional[str] = None
