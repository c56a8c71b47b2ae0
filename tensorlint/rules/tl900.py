from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import ClassVar

from tensorlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position
from tensorlint.noqa import LINE_ENDS, NOQA, split_codes
from tensorlint.rule import Rule

_OURS = re.compile(r"TL[0-9]*$", re.I)


class UnusedNoqa(Rule):
    """## What it does
    Checks for tensorlint codes in `# noqa: ...` comments that silence
    nothing: no finding of that code on that line, or the rule is not
    enabled. Codes of other tools (`E501`, `F401`) are left alone. Off by
    default; on with `strict = true` or `--extend-select TL900`.

    ## Why is this bad?
    A baseline (`tensorlint check --add-noqa`) is meant to shrink: when the
    code under a comment is fixed or removed, the comment stays and would
    silence the next real finding on that line. Reporting it lets the list
    be burned down.

    ## Example
    ```python
    import torch

    def f(t):
        return t.detach().cpu().numpy()  # noqa: TL101
    ```

    ## Use instead
    ```python
    import torch

    def f(t):
        return t.detach().cpu().numpy()
    ```

    ## Fix safety
    Safe: it removes the unused codes from the comment (the whole comment
    when nothing is left); the code itself is not touched.
    """

    CODE = "TL900"
    NAME = "unused-noqa"
    DEFAULT = False
    KINDS: ClassVar[frozenset[str]] = frozenset()  # not a site rule: see ``unused_noqa``
    TRIGGERS = (r"noqa[ \t]*:[ \t]*TL",)
    FIX = "safe"


def unused_noqa(
    source: str, found: Sequence[Diagnostic], enabled: Collection[str]
) -> list[Diagnostic]:
    """TL900 for each line whose ``# noqa:`` lists tensorlint codes that no
    finding of ``found`` (before suppression) on that line needs."""
    if "noqa" not in source:
        return []
    by_line: dict[int, set[str]] = {}
    for diagnostic in found:
        by_line.setdefault(diagnostic.start.line, set()).add(diagnostic.code)
    out = []
    for number, line in enumerate(LINE_ENDS.split(source), 1):
        match = NOQA.search(line)
        if match is None or match.group("codes") is None:
            continue  # a bare noqa lists nothing to report
        listed = split_codes(match.group("codes"))
        present = by_line.get(number, set())
        unused = [
            c for c in listed
            if _OURS.match(c) and not any(code.startswith(c.upper()) for code in present)
        ]  # fmt: skip
        if not unused:
            continue
        kept = [c for c in listed if c not in unused]
        if kept:
            start, end = match.span("codes")
            edit = Edit(Position(number, start), Position(number, end), ", ".join(kept))
        else:  # the whole comment, and the spaces before it
            start = len(line[: match.start()].rstrip())
            edit = Edit(Position(number, start), Position(number, match.end()), "")
        why = [
            f"{c} (not enabled)" if not any(r.startswith(c.upper()) for r in enabled) else c
            for c in unused
        ]
        out.append(
            Diagnostic(
                UnusedNoqa.CODE,
                UnusedNoqa.NAME,
                f"unused `noqa` code{'s' if len(unused) > 1 else ''}: {', '.join(why)}: "
                "no such finding on this line",
                Position(number, match.start()),
                Position(number, match.end()),
                Fix(Applicability.SAFE, (edit,), "Remove the unused `noqa` codes"),
            )
        )
    return out
