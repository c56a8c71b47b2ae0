"""Reporters are pure functions of the results: ``render(results, options) -> str``.

``FORMATS`` is the one list of output formats; ``--output-format`` offers its
keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

from tensorlint.diagnostics import FileResult


@dataclass(frozen=True)
class ReportOptions:
    fixing: bool = False  #: ``--fix`` or ``--diff`` ran
    unsafe: bool = False  #: ``--unsafe-fixes`` was given


Renderer = Callable[[Sequence[FileResult], ReportOptions], str]


def _text(results: Sequence[FileResult], options: ReportOptions) -> str:
    from tensorlint.reporters import text

    return text.render(results, fixing=options.fixing, unsafe=options.unsafe)


FORMATS: dict[str, Renderer] = {"text": _text}
