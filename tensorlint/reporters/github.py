"""``--output-format github``: GitHub Actions workflow commands (annotations).

One line per finding (shown here on two)::

    ::error file=src/a.py,line=5,col=12,endLine=5,endColumn=25,\
    title=TL101 numpy-on-accelerator-tensor::message

``warning`` instead of ``error`` for the strict-profile rules. Lines and
columns are 1-based; GitHub accepts columns only on a one-line annotation, so
a finding that spans lines gives ``line`` and ``endLine`` only. GitHub would
place a notebook's line numbers in its JSON, so a finding in a notebook cell
names only the file and starts its message with ``cell N, line L, column C:``.
A file that could not be checked is an ``::error`` with ``file`` and the
reason. Values are escaped as the Actions toolkit does: ``%``, CR and LF
everywhere, and also ``:`` and ``,`` in properties; before that, control
characters and bidirectional controls (from file names and quoted code) are
written as ``\x1b`` and ``\u202e``, as in the text output: the log is read by
people.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensorlint.diagnostics import Diagnostic, FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import level, one_based
from tensorlint.reporters.text import printable


def escape_data(value: str) -> str:
    """Escape a command's message (the part after ``::``)."""
    return printable(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """Escape a property value (``file=``, ``title=``, ...)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, properties: Sequence[tuple[str, object]], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def _annotation(path: str, d: Diagnostic) -> str:
    line, column = one_based(d.start)
    end_line, end_column = one_based(d.end)
    title = ("title", f"{d.code} {d.name}")
    if d.cell is not None:
        where = f"cell {d.cell}, line {line}, column {column}: "
        return command(level(d.code), [("file", path), title], where + d.message)
    properties: list[tuple[str, object]] = [("file", path), ("line", line)]
    if line == end_line:
        properties += [("col", column), ("endLine", end_line), ("endColumn", end_column)]
    else:
        properties += [("endLine", end_line)]
    properties.append(title)
    return command(level(d.code), properties, d.message)


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    lines: list[str] = []
    for result in results:
        if result.error:
            lines.append(
                command("error", [("file", result.path), ("title", "tensorlint")], result.error)
            )
        lines.extend(_annotation(result.path, d) for d in result.diagnostics)
    return "".join(line + "\n" for line in lines)
