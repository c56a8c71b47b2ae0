"""``noqa`` comments: how ``check``, the flake8 plugin, ``--add-noqa`` and
TL900 read them (one reading: a listed code also covers the codes it is a
prefix of, as flake8 has it)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tensorlint.diagnostics import Diagnostic


def split_codes(text: str) -> list[str]:
    """``"TL101, E501"`` -> ``["TL101", "E501"]`` (as written)."""
    return [c for c in re.split(r"[\s,]+", text) if c]


#: line ends as Python's tokenizer counts them
LINE_ENDS = re.compile(r"\r\n|\r|\n")
#: a noqa comment on a line, bare or with codes (``TL101, E501`` after a colon)
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)


#: ``# tensorlint: noqa`` or ``# tensorlint: noqa: TL201`` on a line of its own:
#: for the whole file (as Ruff's file-level comment)
FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*tensorlint:[ \t]*noqa"
    r"(?::[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[ \t,]+[A-Z]+[0-9]*)*))?[ \t]*$",
    re.I | re.M,
)


def filter_noqa(diagnostics: Sequence[Diagnostic], source: str) -> list[Diagnostic]:
    """Drop findings suppressed by ``# noqa`` or ``# noqa: TL201`` on their line,
    or by ``# tensorlint: noqa[: TL201]`` on a line of its own (the whole file).

    A listed code also matches the codes it is a prefix of (``# noqa: TL2``
    silences TL201 and TL202), as flake8 reads it, so the plugin and
    ``check`` agree."""
    if "noqa" not in source:
        return list(diagnostics)
    file_codes: list[str] = []
    for whole in FILE_NOQA.finditer(source):
        if whole.group("codes") is None:
            return []
        file_codes += [c.upper() for c in split_codes(whole.group("codes"))]
    if file_codes:
        diagnostics = [d for d in diagnostics if not d.code.startswith(tuple(file_codes))]
    lines = LINE_ENDS.split(source)
    kept = []
    for diagnostic in diagnostics:
        index = diagnostic.start.line - 1
        line = lines[index] if index < len(lines) else ""
        match = NOQA.search(line)
        if match is None:
            kept.append(diagnostic)
            continue
        codes = match.group("codes")
        if codes is None:
            continue
        listed = tuple(c.upper() for c in split_codes(codes))
        if not diagnostic.code.startswith(listed):
            kept.append(diagnostic)
    return kept
