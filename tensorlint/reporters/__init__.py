"""Reporters are pure functions of the results: ``render(results, options) -> str``.

``FORMATS`` is the one list of output formats; ``--output-format`` offers its
keys. ``text`` is for people; ``json``, ``json-lines``, ``sarif``, ``github``,
``junit``, ``gitlab``, ``pylint``, ``rdjson`` and ``azure`` are for CI and
tools (see the README, section *CI output formats*). Each is imported only
when used. ``SOURCE_FORMATS`` are the ones that need each file's text
(``ReportOptions.sources``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Callable, NamedTuple, Optional

from tensorlint.diagnostics import FileResult


class ReportOptions(NamedTuple):
    fixing: bool = False  #: ``--fix`` or ``--diff`` ran
    unsafe: bool = False  #: ``--unsafe-fixes`` was given
    dry_run: bool = False  #: ``--diff``: the fixes were computed, nothing written
    color: bool = False  #: ANSI colours in the text output (``--color``)
    #: each file's text (a notebook's JSON), as its findings' positions count it:
    #: ``full`` shows the lines of a finding, ``gitlab`` fingerprints its code
    sources: Optional[Mapping[str, str]] = None
    list_findings: bool = True  #: not with ``--fix-only``: the summary only
    quiet: bool = False  #: ``--quiet``: the findings only, no summary


Renderer = Callable[[Sequence[FileResult], ReportOptions], str]


def _text(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import text

    return text.render(
        results,
        fixing=options.fixing,
        unsafe=options.unsafe,
        dry_run=options.dry_run,
        color=options.color,
        sources=options.sources,
        list_findings=options.list_findings,
        quiet=options.quiet,
    )


def _lazy(module: str) -> Renderer:
    """``tensorlint.reporters.<module>.render``, imported when first used."""

    def render(results: Sequence[FileResult], options: ReportOptions) -> str:
        from importlib import import_module

        found: Renderer = import_module(f"tensorlint.reporters.{module}").render
        return found(results, options)

    return render


FORMATS: dict[str, Renderer] = {
    "text": _text,
    "concise": _text,  # Ruff's name for the one-line form
    "full": _text,  # with ``sources``: the lines of each finding and its evidence
    "json": _lazy("json"),
    "json-lines": _lazy("jsonlines"),  # one finding per line (Ruff's name)
    "sarif": _lazy("sarif"),
    "github": _lazy("github"),
    "junit": _lazy("junit"),
    "gitlab": _lazy("gitlab"),
    "pylint": _lazy("pylint"),  # ``path:line: [CODE] message``
    "rdjson": _lazy("rdjson"),  # reviewdog's Reviewdog Diagnostic Format
    "azure": _lazy("azure"),  # Azure Pipelines logging commands
}

#: the formats that print from each file's text (``full``: its lines;
#: ``rdjson``: UTF-8 byte columns)
SOURCE_FORMATS: frozenset[str] = frozenset({"full", "rdjson", "gitlab"})
