"""``--output-format pylint``: one line per finding, as Pylint's parseable
format (and Ruff's ``pylint`` format) writes it::

    src/a.py:5: [TL101] `.numpy()` on `model(x)`, which may be on a CUDA device ...

``path:line: [CODE] message``, the line 1-based, for the problem matchers of
editors and CI servers that read Pylint's output (Jenkins' Warnings Next
Generation, Visual Studio Code's ``$pylint``-style matchers, ...). A finding
in a notebook cell is ``nb.ipynb:cell 3:2: [TL101] ...``, as the text output
names it. A file that could not be checked is ``path:1: [TL000] reason``
(``TL000``: tensorlint could not check it, as the flake8 plugin says).
Control and bidirectional characters from file names and code are written
escaped (``\\x1b``, ``\\u202e``), as in the text output.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensorlint.diagnostics import FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._errors import NOT_CHECKED, error_reason
from tensorlint.reporters.text import printable


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    lines: list[str] = []
    for result in results:
        path = printable(result.path)
        if result.error:
            reason = printable(error_reason(result.path, result.error))
            lines.append(f"{path}:1: [{NOT_CHECKED}] {reason}")
        for d in result.diagnostics:
            where = f"{path}:cell {d.cell}" if d.cell is not None else path
            lines.append(f"{where}:{d.start.line}: [{d.code}] {printable(d.message)}")
    return "".join(line + "\n" for line in lines)
