"""Lint one source text: prefilter, parse once, run every enabled rule."""

from __future__ import annotations

import contextlib
import gc
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, Optional, Protocol

from tensorlint.analysis import ops
from tensorlint.diagnostics import LOW, Diagnostic, confidence_rank
from tensorlint.engine.imports import imports_torch
from tensorlint.engine.literals import required_words
from tensorlint.noqa import (
    NO_COMMENTS,
    Comments,
    filter_noqa,
    may_have_directives,
    read_comments,
)
from tensorlint.registry import ALL_RULES
from tensorlint.roles import is_script_text
from tensorlint.rule import Rule, RuleContext, Settings
from tensorlint.rules.tl900 import UnusedNoqa, unused_noqa

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tensorlint.analysis.classes import ClassLookup, ClassSummary
    from tensorlint.analysis.project_calls import Call
    from tensorlint.analysis.summaries import FunctionSummary


#: every rule's code: TL900 judges a code only when all the rules it names run
_KNOWN = frozenset(rule.CODE for rule in ALL_RULES)


class LintError(Exception):
    """The source could not be linted (a syntax error); one clear line."""


class Plan(NamedTuple):
    """The rules to run for a settings value, and their prefilter."""

    rules: tuple[Rule, ...]
    #: per rule: (its triggers, its second-word requirement or None)
    filters: tuple[tuple[re.Pattern[str], Optional[re.Pattern[str]]], ...]
    by_kind: dict[str, tuple[Rule, ...]]
    #: any enabled rule's trigger: a ``def``/``class`` without one is not parsed
    blocks: re.Pattern[str]
    #: words every trigger match contains (None: not known)
    words: Optional[frozenset[str]] = None
    #: the library calls' triggers (``plt.plot(``), which count only in a
    #: file that imports a library of ``library_table``: (the import, the
    #: triggers, ``blocks`` with them); None when no enabled rule has any
    library: Optional[tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = None

    @classmethod
    def for_settings(cls, settings: Settings) -> Plan:
        rules = tuple(r() for r in ALL_RULES if r.CODE in settings.enabled)
        filters = tuple(
            (
                re.compile("|".join(rule.TRIGGERS)),
                re.compile("|".join(rule.REQUIRES)) if rule.REQUIRES else None,
            )
            for rule in rules
        )
        kinds: dict[str, list[Rule]] = {}
        for rule in rules:
            for kind in rule.KINDS:
                kinds.setdefault(kind, []).append(rule)
        configured = _configured_trigger(settings, rules)
        if configured is not None:
            filters += ((re.compile(configured), None),)
        triggers = list(dict.fromkeys(t for rule in rules for t in rule.TRIGGERS))
        triggers += [configured] if configured is not None else []
        blocks = re.compile("|".join(triggers) or "(?!)")
        extra = list(dict.fromkeys(t for rule in rules for t in rule.LIBRARY_TRIGGERS))
        library = None
        if extra:
            from tensorlint.analysis.library_table import IMPORT_PATTERN

            library = (
                re.compile(IMPORT_PATTERN, re.MULTILINE),
                re.compile("|".join(extra)),
                re.compile("|".join(triggers + extra)),
            )
        words = required_words(triggers + extra)
        by_kind = {k: tuple(v) for k, v in kinds.items()}
        return cls(rules, filters, by_kind, blocks, words, library)

    def may_match(self, source: str, settings: Settings, tree: Optional[TreeView] = None) -> bool:
        """Can this text produce any finding? (No parse: a scan of the text,
        and of the modules of the tree it imports when it does not import
        torch itself.)

        Every rule needs torch code (``.numpy()`` receivers count as torch
        only then, unless ``assume-torch``; conversions must resolve to
        ``torch.*``): a file that imports torch or a package built on it, or
        one that imports a module of the tree that does (``torch_reaches``),
        and one of the enabled rules' trigger strings.
        """
        if self.words is not None and not any(word in source for word in self.words):
            return False  # substring tests: far faster than the pattern's scan
        if not self._triggered(source):
            return False
        return settings.assume_torch or torch_reaches(source, tree, self.blocks_for(source))

    def _triggered(self, source: str) -> bool:
        if self.blocks.search(source) and any(  # (one pass for the common "no")
            trigger.search(source) and (requires is None or requires.search(source))
            for trigger, requires in self.filters
        ):
            return True
        library = self.library
        return library is not None and bool(library[0].search(source) and library[1].search(source))

    def blocks_for(self, source: str) -> re.Pattern[str]:
        """The triggers that keep a ``def``/``class`` in this file's parse:
        the library calls' too when the file imports a library."""
        library = self.library
        if library is not None and library[0].search(source):
            return library[2]
        return self.blocks

    @property
    def follows_helpers(self) -> bool:
        """Does a rule report at calls of functions that return a conversion?"""
        return any(kind.startswith("helper_") for kind in self.by_kind)


def _configured_trigger(settings: Settings, rules: tuple[Rule, ...]) -> Optional[str]:
    """A trigger for the calls ``extend-converting-calls`` names, when a rule
    that reads them runs (``show_image(``)."""
    if not settings.converting_calls or not any("library_function" in r.KINDS for r in rules):
        return None
    from tensorlint.analysis.library_table import parse_entry

    names = sorted(
        {
            entry.name.rsplit(".", 1)[1]
            for entry in map(parse_entry, settings.converting_calls)
            if entry is not None
        }
    )
    return r"\b(?:" + "|".join(names) + r")\s*\(" if names else None


_PLANS: dict[Settings, Plan] = {}


def torch_reaches(
    source: str, tree: Optional[TreeView], triggers: Optional[re.Pattern[str]] = None
) -> bool:
    """Is ``source`` torch code: does it import torch or a package built on
    torch, or a module of the checked tree through which torch reaches it, or
    do the project's other files pass its functions tensors they moved to a
    device or a module's outputs?"""
    if imports_torch(source) or tests_for_torch(source):
        return True
    return tree is not None and _torch_via(tree, source, triggers) is not None


def tests_for_torch(source: str) -> bool:
    """Does the file test values for torch tensors with a helper named so
    (``_is_torch_tensor(x)``, ``ops.TORCH_TEST_CALL``)? Where that test holds,
    ``x`` is a torch tensor (``facts.type_guards``)."""
    return ops.TORCH_TEST_CALL.search(source) is not None


def _torch_via(tree: TreeView, source: str, triggers: Optional[re.Pattern[str]]) -> Optional[str]:
    """The module (or the caller) through which torch reaches ``source``, as
    the prefilter found it (``torch_reaches``)."""
    return tree.torch_via(source) or tree.torch_callers(source, triggers)


def plan_for(settings: Settings) -> Plan:
    plan = _PLANS.get(settings)
    if plan is None:
        plan = _PLANS[settings] = Plan.for_settings(settings)
    return plan


class TreeView(Protocol):
    """The checked tree as one file sees it (see ``engine/tree.py``)."""

    def lookup(self, qual: str) -> Optional[tuple[FunctionSummary, str]]:
        """The summary of an imported function, and where it is defined."""

    def type_alias(self, qual: str) -> list[str]:
        """What an imported name is an alias of (``MappedTriples`` -> ``LongTensor``)."""

    def cpu_constant(self, qual: str) -> bool:
        """Does an imported name name a module's constant CPU device?"""

    def lookup_class(
        self, qual: str
    ) -> Optional[tuple[ClassSummary, Mapping[str, ClassSummary], str, ClassLookup]]:
        """The class a qualified name names, its module's classes, where it
        is, and the tree as its module sees it (``analysis/classes.py``)."""

    def external_callers(
        self, name: str, method: Optional[str] = None, *, by_class: bool = False
    ) -> Optional[list[tuple[Call, str]]]:
        """The calls of the file's module function ``name`` in the project's
        other files, each with its place (``analysis/project_calls.py``)."""

    def in_application(self) -> bool:
        """Does the file's project lack packaging metadata (nothing outside
        imports it)?"""

    def helpers(self, source: str) -> frozenset[str]:
        """Names ``source`` calls that are imported functions returning an
        alias of their argument (``to_tensor``, or ``u.to_tensor``)."""

    def torch_via(self, source: str) -> Optional[str]:
        """The module of the tree through which torch reaches a file that does
        not import it (``models.py``), or None."""

    def torch_callers(
        self, source: str, triggers: Optional[re.Pattern[str]] = None
    ) -> Optional[str]:
        """Where the project's other files pass a function of this file (which
        does not import torch) a tensor they moved or a module's output."""

    def aliases(self, source: str) -> frozenset[str]:
        """The functions of the file (its text is ``source``) that return an
        alias of an argument; raises what ``ast.parse`` raises."""

    def star_names(self, module: str) -> Mapping[str, str]:
        """What ``from <module> import *`` of one of the tree's modules binds
        to other packages' modules (``np`` -> ``numpy``)."""

    def default_cuda(self, modules: Sequence[str]) -> Optional[tuple[str, bool]]:
        """Where one of the tree's ``modules`` makes CUDA the default device
        of new tensors when imported (``box_utils.py:6``), and whether
        ``torch.Tensor(...)`` follows; None when none does."""


def lint_source(
    source: str, settings: Settings, tree: Optional[TreeView] = None
) -> list[Diagnostic]:
    """All findings for a source text, sorted; raises LintError on bad syntax.

    ``tree`` gives the summaries of the functions the file imports from the
    rest of the checked tree; without it, only the file's own are used.
    """
    plan = plan_for(settings)
    helpers = _helpers(source, settings, plan, tree)
    if helpers is None:
        return []
    # building the analysis tree allocates many small objects that never form
    # cycles; the cyclic collector running meanwhile costs much of the time
    with _gc_paused():
        try:
            return _lint_parsed(source, settings, plan, tree, helpers)
        except RecursionError:
            return _with_deep_stack(lambda: _lint_parsed(source, settings, plan, tree, helpers))


def may_lint(source: str, settings: Settings, tree: Optional[TreeView] = None) -> bool:
    """The prefilter: can this text produce any finding?"""
    plan = plan_for(settings)
    if plan.may_match(source, settings, tree):
        return True  # (the helpers it calls are found when it is checked)
    return _helpers(source, settings, plan, tree, matches=False) is not None


def _helpers(
    source: str,
    settings: Settings,
    plan: Plan,
    tree: Optional[TreeView],
    matches: Optional[bool] = None,
) -> Optional[frozenset[str]]:
    """None when the text cannot produce a finding; else the names it calls
    that are imported functions returning a conversion of their argument.
    ``matches``: the prefilter's answer, when known."""
    if matches is None:
        matches = plan.may_match(source, settings, tree)
    if not plan.follows_helpers:
        return frozenset() if matches else None
    helpers = tree.helpers(source) if tree is not None else frozenset()
    if helpers or matches:
        return helpers
    from tensorlint.analysis.summaries import alias_functions_of

    # a function of this file may return a conversion (``np.asarray(t.cpu())``)
    # to a caller in the file: CPython's parser answers that cheaply
    try:
        own = tree.aliases(source) if tree is not None else alias_functions_of(source)
        return helpers if own else None
    except SyntaxError as error:
        if "too many nested" in str(error.msg):
            return frozenset()  # the full check reports it
        return None
    except ValueError:
        return None
    except (RecursionError, MemoryError):
        return frozenset()  # the full check reports it


#: for valid but deeply nested code (a 500-term sum): the analysis recurses
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 60_000


def _with_deep_stack(work: Callable[[], list[Diagnostic]]) -> list[Diagnostic]:
    """Run ``work`` again in a thread with a large stack and recursion limit;
    LintError when even that is not deep enough."""
    import threading

    found: list[list[Diagnostic]] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            found.append(work())
        except BaseException as error:  # handed to the caller's thread
            failed.append(error)

    limit = sys.getrecursionlimit()
    size = threading.stack_size(_DEEP_STACK_BYTES)
    sys.setrecursionlimit(max(limit, _DEEP_RECURSION_LIMIT))
    try:
        # a daemon: a check given up on for time must not keep the process alive
        thread = threading.Thread(target=run, name="tensorlint-deep", daemon=True)
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(size)
    if failed:
        if isinstance(failed[0], (RecursionError, MemoryError)):
            raise LintError("too deeply nested to analyse") from None
        raise failed[0]
    return found[0]


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _lint_parsed(
    source: str,
    settings: Settings,
    plan: Plan,
    tree: Optional[TreeView],
    helpers: frozenset[str],
) -> list[Diagnostic]:
    from tensorlint.analysis.parse import parse_relevant
    from tensorlint.analysis.pytree import TooDeep, python_tree
    from tensorlint.analysis.sites import ModuleAnalysis
    from tensorlint.analysis.summaries import EMPTY_SUMMARY, summarize

    try:
        python = python_tree(source)
        summary = summarize(python, source) if python is not None else EMPTY_SUMMARY
        helpers = helpers | summary.alias_names()
        module = parse_relevant(source, plan.blocks_for(source), tree=python, keep_calls=helpers)
    except (TooDeep, MemoryError):  # pathological nesting (a RecursionError is
        # retried with a deep stack by the caller)
        raise LintError(
            "too deeply nested to parse (more than Python's own parser accepts)"
        ) from None
    except Exception as error:
        if type(error).__name__ != "ParserSyntaxError":  # LibCST's, for what CPython rejects
            raise
        raise LintError(_syntax_message(source, error)) from None
    direct = imports_torch(source)
    tested = not direct and tests_for_torch(source)
    analysis = ModuleAnalysis(
        module,
        source,
        assume_torch=settings.assume_torch,
        torch_imported=direct,
        torch_tested=tested,
        torch_via=None
        if direct or tested or tree is None
        else _torch_via(tree, source, plan.blocks_for(source)),
        library=(settings.library if settings.library is not None else not is_script_text(source)),
        summary=summary,
        tree=tree,
        helpers=helpers,
        converting_calls=settings.converting_calls,
        target_version=settings.target_version,
    )
    ctx = RuleContext(analysis, source, settings)
    for site in analysis.sites():
        for rule in plan.by_kind.get(site.kind, ()):
            rule.check(site, ctx)
    comments = NO_COMMENTS
    if (ctx.diagnostics or UnusedNoqa.CODE in settings.enabled) and may_have_directives(source):
        comments = read_comments(source, python_parses=python is not None)
    diagnostics = filter_noqa(ctx.diagnostics, comments, source)
    if UnusedNoqa.CODE in settings.enabled:
        unused = unused_noqa(source, comments, ctx.diagnostics, settings.enabled, _KNOWN)
        diagnostics += filter_noqa(unused, comments, source)
    diagnostics = sorted(diagnostics, key=lambda d: (d.start, d.code))
    return _as_configured(diagnostics, ctx, comments, settings)


def _as_configured(
    diagnostics: list[Diagnostic], ctx: RuleContext, comments: Comments, settings: Settings
) -> list[Diagnostic]:
    """``--ignore-noqa``: every finding, whatever the comments say (TL900's
    too: its own findings are not suppressed either); ``min-confidence``:
    the findings of that level or surer; ``unfixable``: those codes'
    findings without their fix."""
    if settings.ignore_noqa:
        found = list(ctx.diagnostics)
        if UnusedNoqa.CODE in settings.enabled:
            found += unused_noqa(ctx.source, comments, ctx.diagnostics, settings.enabled, _KNOWN)
        diagnostics = sorted(found, key=lambda d: (d.start, d.code))
    if settings.min_confidence != LOW:  # after TL900: a noqa a hidden finding needs is used
        least = confidence_rank(settings.min_confidence)
        diagnostics = [d for d in diagnostics if confidence_rank(d.confidence) >= least]
    if settings.unfixable:
        diagnostics = [
            d._replace(fix=None) if d.fix is not None and d.code in settings.unfixable else d
            for d in diagnostics
        ]
    return diagnostics


def _syntax_message(source: str, error: Exception) -> str:
    """Python's own wording where it has one (LibCST's points past the error)."""
    from tensorlint.analysis.pytree import parse

    nul = source.find("\0")
    if nul >= 0:  # (a ValueError before Python 3.12, with no position)
        line = source.count("\n", 0, nul) + 1
        column = nul - (source.rfind("\n", 0, nul) + 1) + 1
        reason = "source code cannot contain null bytes"
        return f"syntax error at line {line}, column {column}: {reason}"
    try:
        parse(source)
    except SyntaxError as python_error:
        line, column = python_error.lineno or 0, python_error.offset or 0
        return f"syntax error at line {line}, column {column}: {python_error.msg}"
    except (ValueError, RecursionError, MemoryError):
        pass
    # LibCST's ParserSyntaxError (LibCST is imported only for what CPython rejects)
    text = getattr(error, "message", "")
    message = str(text).splitlines()[0] if text else "invalid syntax"
    line, column = getattr(error, "raw_line", 0), getattr(error, "raw_column", 0)
    return f"cannot parse at line {line}, column {column + 1}: {message}"
