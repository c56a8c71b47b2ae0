"""The values every layer passes around: positions, edits, fixes, diagnostics.

All of them are frozen dataclasses, so results can be cached, compared and sent
between processes without surprises.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional


class Applicability(enum.Enum):
    """How much a fix can be trusted (Ruff's model).

    ``SAFE`` fixes keep the program's meaning and are applied by ``--fix``;
    ``UNSAFE`` ones may change what the program does (usually that *is* the bug
    fix) and need ``--unsafe-fixes``; ``DISPLAY_ONLY`` fixes are only shown.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True, order=True)
class Position:
    """A place in a source file: 1-based line, 0-based column in characters."""

    line: int
    column: int


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text between ``start`` and ``end`` with ``content``.

    ``start == end`` is an insertion.
    """

    start: Position
    end: Position
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[Edit, ...]
    description: str


@dataclass(frozen=True)
class Related:
    """Another place a finding rests on: the evidence that makes it right."""

    start: Position
    end: Position
    message: str
    #: for notebooks, as ``Diagnostic.cell``
    cell: Optional[int] = None


@dataclass(frozen=True)
class Diagnostic:
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


@dataclass(frozen=True)
class FileResult:
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
    fixes_applied: tuple[str, ...] = field(default=())
    #: (path, size, mtime_ns) of the other modules whose summaries the
    #: findings used (the cache reuses them only while these are unchanged)
    deps: tuple[tuple[str, int, int], ...] = ()
    #: how the result was had: "parsed", "skipped" (the prefilter found no
    #: conversion: not parsed, so a syntax error there is not seen) or "cached"
    how: str = "parsed"
