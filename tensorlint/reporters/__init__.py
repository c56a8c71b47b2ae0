"""Reporters are pure functions of the results: ``render(results, options) -> str``.

``FORMATS`` is the one list of output formats; ``--output-format`` offers its
keys. ``text`` is for people; ``json``, ``sarif``, ``github``, ``junit`` and
``gitlab`` are for CI (see the README, section *CI output formats*). Each is imported only
when used.
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


def _json(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import json

    return json.render(results, options)


def _sarif(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import sarif

    return sarif.render(results, options)


def _github(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import github

    return github.render(results, options)


def _junit(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import junit

    return junit.render(results, options)


def _gitlab(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import gitlab

    return gitlab.render(results, options)


FORMATS: dict[str, Renderer] = {
    "text": _text,
    "concise": _text,  # Ruff's name for the one-line form
    "full": _text,  # with ``sources``: the lines of each finding and its evidence
    "json": _json,
    "sarif": _sarif,
    "github": _github,
    "junit": _junit,
    "gitlab": _gitlab,
}
