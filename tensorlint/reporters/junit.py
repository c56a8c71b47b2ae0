"""``--output-format junit``: a JUnit XML report, for CI test-report viewers.

One ``<testsuite name="tensorlint">`` with one ``<testcase>`` per checked
file (``name`` and ``file`` are the path, ``classname`` is ``tensorlint``).
A clean file is a passed test; each finding is a ``<failure>`` of its file's
test case: ``type`` is the rule code, ``message`` is ``line:column: CODE
message``, the text is ``path:line:column: CODE name: message`` (in a
notebook ``cell N:line:column``, as in the text output). A file that could
not be checked has an ``<error>``. ``tests`` counts files, ``failures`` the
files with findings, ``errors`` the files that could not be checked.

CI servers show these texts to people, so the characters that drive a
terminal or reorder a line (ESC, the C1 controls such as CSI ``\\x9b``, the
bidirectional controls such as U+202E) are written escaped, as in the text
output (``\\x1b``, ``\\x9b``, ``\\u202e``), and so is what XML 1.0 cannot
hold at all (a lone surrogate from an undecodable file name: ``\\udcff``).
Tab, line feed and carriage return are kept (a message may span lines).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from tensorlint.diagnostics import FileResult
from tensorlint.reporters import ReportOptions
from tensorlint.reporters._common import C1_AND_BIDI, TOOL_NAME, escape, one_based

#: Characters XML 1.0 cannot hold, even escaped, and the C1 and bidirectional
#: controls it can: all written escaped (``\x1b``, ``\x9b``, ``\u202e``).
_ESCAPED = re.compile(rf"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[{C1_AND_BIDI}]")


def _clean(text: str) -> str:
    return escape(_ESCAPED, text)


def render(results: Sequence[FileResult], options: ReportOptions) -> str:
    failures = sum(1 for r in results if r.diagnostics)
    errors = sum(1 for r in results if r.error)
    counts = {"tests": str(len(results)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", {"name": TOOL_NAME, **counts})
    suite = ET.SubElement(root, "testsuite", {"name": TOOL_NAME, **counts, "skipped": "0"})
    for result in results:
        path = _clean(result.path)
        case = ET.SubElement(
            suite, "testcase", {"name": path, "classname": TOOL_NAME, "file": path}
        )
        if result.error:
            error = ET.SubElement(case, "error", {"type": "error", "message": _clean(result.error)})
            error.text = _clean(result.error)
        for d in result.diagnostics:
            line, column = one_based(d.start)
            where = f"{line}:{column}" if d.cell is None else f"cell {d.cell}:{line}:{column}"
            failure = ET.SubElement(
                case,
                "failure",
                {"type": d.code, "message": _clean(f"{where}: {d.code} {d.message}")},
            )
            failure.text = _clean(f"{result.path}:{where}: {d.code} {d.name}: {d.message}")
    ET.indent(root)
    # a carriage return in text would be read back as a line feed; markup has none
    body = ET.tostring(root, encoding="unicode").replace("\r", "&#13;")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
