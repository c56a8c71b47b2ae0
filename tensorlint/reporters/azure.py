"""``--output-format azure``: Azure Pipelines logging commands.

One line per finding (shown here on two)::

    ##vso[task.logissue type=error;sourcepath=src/a.py;linenumber=5;\
    columnnumber=12;code=TL101;]`.numpy()` on `model(x)`, ...

which Azure Pipelines shows as an error (``type=warning`` for the
strict-profile rules) in the job's log and its summary, at the file and
line. Lines and columns are 1-based. A finding in a notebook cell names
only the file, and its message starts with ``cell N, line L, column C:``
(Azure would read the line as a line of the notebook's JSON). A file that
could not be checked is an error with ``sourcepath`` and the reason.

Values are escaped as Microsoft's task library escapes them: ``%`` as
``%AZP25``, CR and LF as ``%0D`` and ``%0A`` everywhere, and also ``;`` and
``]`` as ``%3B`` and ``%5D`` in properties, so that a message stays one
command; before that, control and bidirectional characters (from file names
and quoted code) are written as ``\\x1b`` and ``\\u202e``, as in the text
output: the log is read by people.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensorlint.diagnostics import Diagnostic, FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import level, one_based
from tensorlint.reporters._errors import error_reason
from tensorlint.reporters.text import printable


def escape_data(value: str) -> str:
    """Escape a command's message (the part after ``]``)."""
    return printable(value.replace("%", "%AZP25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(value: str) -> str:
    """Escape a property value (``sourcepath=``, ``code=``, ...)."""
    return escape_data(value).replace("]", "%5D").replace(";", "%3B")


def command(properties: Sequence[tuple[str, object]], message: str) -> str:
    props = "".join(f"{key}={escape_property(str(value))};" for key, value in properties)
    return f"##vso[task.logissue {props}]{escape_data(message)}"


def _issue(path: str, d: Diagnostic) -> str:
    line, column = one_based(d.start)
    kind = ("type", level(d.code))
    if d.cell is not None:
        where = f"cell {d.cell}, line {line}, column {column}: "
        return command([kind, ("sourcepath", path), ("code", d.code)], where + d.message)
    properties: list[tuple[str, object]] = [
        kind,
        ("sourcepath", path),
        ("linenumber", line),
        ("columnnumber", column),
        ("code", d.code),
    ]
    return command(properties, d.message)


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    lines: list[str] = []
    for result in results:
        if result.error:
            reason = error_reason(result.path, result.error)
            lines.append(command([("type", "error"), ("sourcepath", result.path)], reason))
        lines.extend(_issue(result.path, d) for d in result.diagnostics)
    return "".join(line + "\n" for line in lines)
