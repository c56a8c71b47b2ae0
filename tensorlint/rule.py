"""The rule base: a rule looks at one site and reports through its context.

Rules never parse, read files, print or import torch: they ask the analysis
layer (``tensorlint.analysis``) and describe fixes as text edits.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Optional

from tensorlint.diagnostics import (
    HIGH,
    LOW,
    Applicability,
    Diagnostic,
    Edit,
    Fix,
    Position,
    Related,
)

if TYPE_CHECKING:
    from tensorlint.analysis import syntax
    from tensorlint.analysis.sites import ModuleAnalysis, Site

_NEWLINE = re.compile(r"\r\n|\r|\n")
_COMMENT = re.compile(r"#[^\r\n]*")
_LINE_BREAK = re.compile(r"\s*[\r\n]\s*")
_SPACES = re.compile(r"\s+")


class FixSafety(NamedTuple):
    """What a value of ``Rule.FIX`` promises."""

    #: the applicabilities the rule's fixes may have
    applicabilities: frozenset[Applicability]
    #: the promise in words (``tensorlint rule``'s header)
    meaning: str


#: The values ``Rule.FIX`` may take: the one source of what a rule's fix is.
#: ``tensorlint rule``, ``tensorlint rules``, SARIF and the README's rule table
#: print the key; the rule's *Fix safety* section says when, and the test suite
#: checks every fix the rules make against it.
FIX_SAFETY: dict[str, FixSafety] = {
    "safe": FixSafety(
        frozenset({Applicability.SAFE}), "every fix keeps the program's meaning; `--fix` applies it"
    ),
    "unsafe": FixSafety(
        frozenset({Applicability.UNSAFE}),
        "every fix changes what the program observes; it needs `--unsafe-fixes`",
    ),
    "safe or unsafe": FixSafety(
        frozenset({Applicability.SAFE, Applicability.UNSAFE}),
        "each finding says which (`[*]` marks what `--fix` applies); *Fix safety* below says "
        "when it is unsafe",
    ),
}


#: ``Rule.CONFIDENCE`` of a rule whose findings each take the confidence of
#: the evidence they rest on (``Evidence.confidence``: high or medium)
BY_EVIDENCE = "by evidence"

#: What each value of ``Rule.CONFIDENCE`` means (``tensorlint rule``'s header).
CONFIDENCE_MEANING: dict[str, str] = {
    HIGH: "high (the code shows what the finding says)",
    BY_EVIDENCE: "high where the code shows the cause, medium where it rests on the "
    "public-API guess that callers no checked code shows may pass a CUDA tensor, or on a "
    "forward pass whose grad mode a caller or the module may set",
    LOW: "low (nothing the code shows makes the hazard happen: reported for a migration, "
    "hidden by `--min-confidence medium`)",
}


class Settings(NamedTuple):
    """What rules may depend on besides the code: the effective options."""

    enabled: frozenset[str] = frozenset()
    numpy_idiom: str = "cpu-detach"
    assume_torch: bool = False
    #: the file is library code: values entering its public functions come from
    #: callers tensorlint cannot see (see ``tensorlint.roles``); None: its path
    #: does not say, its text does (a ``__main__`` guard makes it a script)
    library: Optional[bool] = True
    #: ``extend-converting-calls``: the project's functions that convert
    #: tensor arguments (entries as ``library_table.parse_entry`` reads them)
    converting_calls: tuple[str, ...] = ()
    #: the oldest torch the code must run on (``target-version``), or None: any
    target_version: Optional[tuple[int, int]] = None
    #: ``unfixable``: the codes whose findings carry no fix (never applied)
    unfixable: frozenset[str] = frozenset()
    #: ``--ignore-noqa``: noqa comments suppress nothing
    ignore_noqa: bool = False
    #: ``min-confidence``: findings below this level of ``CONFIDENCES`` are
    #: not reported (nor fixed)
    min_confidence: str = LOW


class Rule:
    """Subclasses set the class attributes and implement ``check``.

    The class docstring is the rule's user documentation, with the sections
    *What it does*, *Why is this bad?*, *Example*, *Use instead* and
    *Fix safety*.
    """

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    DEFAULT: ClassVar[bool] = True
    #: candidate kinds this rule looks at ("numpy", "from_numpy", ...)
    KINDS: ClassVar[frozenset[str]]
    #: regular expressions one of which must match a file for the rule to fire
    TRIGGERS: ClassVar[tuple[str, ...]]
    #: triggers that count only in a file that imports one of the libraries of
    #: ``library_table`` (``plt.plot(``: ``step(`` alone is every optimizer's)
    LIBRARY_TRIGGERS: ClassVar[tuple[str, ...]] = ()
    #: and, when given, one of these must match too (the prefilter's second word)
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    #: what the rule's fixes are: a key of ``FIX_SAFETY`` (None: no fix)
    FIX: ClassVar[Optional[str]] = None
    #: the confidence of the rule's findings: a level of ``CONFIDENCES``, or
    #: ``BY_EVIDENCE`` for a rule that gives each finding its evidence's
    CONFIDENCE: ClassVar[str] = HIGH

    def check(self, site: Site, ctx: RuleContext) -> None:
        raise NotImplementedError


class RuleContext:
    """Collects one file's reports and turns nodes into positions."""

    def __init__(self, analysis: ModuleAnalysis, source: str, settings: Settings) -> None:
        self.analysis = analysis
        self.source = source
        self.settings = settings
        self.diagnostics: list[Diagnostic] = []
        self._line_starts: Optional[list[int]] = None

    def enabled(self, code: str) -> bool:
        return code in self.settings.enabled

    def report(
        self,
        rule: Rule,
        node: syntax.CSTNode,
        message: str,
        edits: Optional[list[Edit]] = None,
        applicability: Applicability = Applicability.SAFE,
        description: str = "",
        related: Sequence[tuple[syntax.CSTNode, str]] = (),
        confidence: Optional[str] = None,
    ) -> None:
        fix = None
        if edits:
            fix = Fix(applicability, tuple(sorted(set(edits))), description)
        self.diagnostics.append(
            Diagnostic(
                rule.CODE,
                rule.NAME,
                message,
                self.start(node),
                self.end(node),
                fix,
                related=tuple(
                    Related(self.start(where), self.end(where), text) for where, text in related
                ),
                confidence=_confidence(rule, confidence),
            )
        )

    # -- edit helpers ----------------------------------------------------------

    def start(self, node: syntax.CSTNode) -> Position:
        """Where ``node`` starts, its own parentheses included."""
        return Position(*self.analysis.outer_start(node))

    def end(self, node: syntax.CSTNode) -> Position:
        """Where ``node`` ends, its own parentheses included (an insertion at
        the end of ``(a + b)`` must land after them, not inside)."""
        return Position(*self.analysis.outer_end(node))

    def insert_after(self, node: syntax.CSTNode, text: str) -> Edit:
        end = self.end(node)
        return Edit(end, end, text)

    def replace(self, node: syntax.CSTNode, text: str) -> Edit:
        return Edit(self.start(node), self.end(node), text)

    def text(self, start: Position, end: Position) -> str:
        return self.source[self.offset(start) : self.offset(end)]

    def offset(self, position: Position) -> int:
        if self._line_starts is None:
            starts = [0]
            starts.extend(match.end() for match in _NEWLINE.finditer(self.source))
            self._line_starts = starts
        return self._line_starts[position.line - 1] + position.column

    def position_at(self, offset: int) -> Position:
        self.offset(Position(1, 0))
        assert self._line_starts is not None
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1])

    def offset_position(self, start: Position, chars: int) -> Position:
        return self.position_at(self.offset(start) + chars)

    @functools.cached_property
    def _quote(self) -> str:
        return "'" if self.source.count("'") > self.source.count('"') else '"'

    def quote(self) -> str:
        """The file's usual string quote, for strings a fix inserts."""
        return self._quote

    def short(self, node: syntax.CSTNode, limit: int = 40) -> str:
        """The node's code on one line, without comments, for messages."""
        code = _COMMENT.sub("", self.analysis.code(node))
        text = _SPACES.sub(" ", _LINE_BREAK.sub("", code)).strip()
        return text if len(text) <= limit else text[: limit - 1] + "…"


def _confidence(rule: Rule, given: Optional[str]) -> str:
    if given is not None:
        return given
    if rule.CONFIDENCE == BY_EVIDENCE:
        raise ValueError(f"{rule.CODE} reports on evidence: its findings need their confidence")
    return rule.CONFIDENCE
