from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from typing import ClassVar, Optional

from tensorlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position
from tensorlint.noqa import (
    CODE,
    FILE_NOQA,
    FLAKE8_FILE_NOQA,
    LINE_ENDS,
    NOQA,
    Comment,
    Comments,
)
from tensorlint.rule import Rule

_OURS = re.compile(r"TL[0-9]+$")
#: ``oqa|oqA|...|OQA``: a noqa directive in any case, in literal words for
#: the prefilter's substring screen (a case-insensitive pattern has none)
_OQA_IN_ANY_CASE = "|".join(sorted({"".join(c) for c in itertools.product(*zip("oqa", "OQA"))}))


class UnusedNoqa(Rule):
    """## What it does
    Checks for tensorlint codes in `# noqa: ...` comments that silence
    nothing: no finding of that code on that line. Only the codes of rules
    the run enables are judged (a default check leaves the code of a strict
    rule alone: it cannot tell whether it is used); codes of other tools
    (`E501`, `F401`) are left alone. Off by default; on with `strict = true`
    or `--extend-select TL900`.

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
    Safe: it removes the unused codes from the comment, the others kept as
    written (the whole directive when nothing is left; words after it stay
    a comment); the code itself is not touched.
    """

    CODE = "TL900"
    NAME = "unused-noqa"
    DEFAULT = False
    KINDS: ClassVar[frozenset[str]] = frozenset()  # not a site rule: see ``unused_noqa``
    TRIGGERS = (rf"#\s*[Nn](?:{_OQA_IN_ANY_CASE})\s*:[^\r\n]*[Tt][Ll][0-9]",)
    FIX = "safe"


def unused_noqa(
    source: str,
    comments: Comments,
    found: Sequence[Diagnostic],
    enabled: Collection[str],
    known: Collection[str],
) -> list[Diagnostic]:
    """TL900 for each ``# noqa:`` comment (``comments``: those of ``source``)
    that lists tensorlint codes no finding of ``found`` (before suppression)
    on its line needs.

    A code is judged only when every rule of ``known`` it names is in
    ``enabled``: a rule this run does not run may still need it (a strict
    baseline burned down by a default check). A code that names no rule is
    unused everywhere."""
    by_line: dict[int, set[str]] = {}
    for diagnostic in found:
        by_line.setdefault(diagnostic.start.line, set()).add(diagnostic.code)
    lines: list[str] = []
    out = []
    for number, comment in sorted(comments.by_line.items()):
        match = NOQA.search(comment.text)
        if match is None or match.group("codes") is None:
            continue  # a bare noqa lists nothing to report
        listed = list(CODE.finditer(comment.text, match.start("codes"), match.end("codes")))
        present = by_line.get(number, set())
        unused = [
            i for i, code in enumerate(c.group().upper() for c in listed)
            if _OURS.match(code)
            and all(rule in enabled for rule in known if rule.startswith(code))
            and not any(p.startswith(code) for p in present)
        ]  # fmt: skip
        if not unused:
            continue
        lines = lines or LINE_ENDS.split(source)
        edit = _removal(lines[number - 1], number, comment, match, listed, set(unused))
        fix = Fix(Applicability.SAFE, (edit,), "Remove the unused `noqa` codes") if edit else None
        why = [
            listed[i].group() + ("" if any(r.startswith(listed[i].group().upper()) for r in known)
                                 else " (no such rule)")
            for i in unused
        ]  # fmt: skip
        column = comment.column
        out.append(
            Diagnostic(
                UnusedNoqa.CODE,
                UnusedNoqa.NAME,
                f"unused `noqa` code{'s' if len(unused) > 1 else ''}: {', '.join(why)}: "
                "no such finding on this line",
                Position(number, column + match.start()),
                Position(number, column + match.end()),
                fix,
            )
        )
    return out


def _removal(
    line: str,
    number: int,
    comment: Comment,
    match: re.Match[str],
    listed: list[re.Match[str]],
    unused: set[int],
) -> Optional[Edit]:
    """The edit that removes the ``unused`` codes of ``listed`` from the
    directive ``match`` of ``comment``, keeping the other codes as written
    and the rest of the comment a comment. None where what is left of the
    comment would read as a directive (``# noqa: TL101  # noqa``: the bare
    one, text until now, would silence the line)."""
    column = comment.column
    kept = [i for i in range(len(listed)) if i not in unused]
    if kept:  # each kept code keeps the separator written before it
        text = comment.text
        content = listed[kept[0]].group() + "".join(
            text[listed[i - 1].end() : listed[i].start()] + listed[i].group() for i in kept[1:]
        )
        start, end = column + match.start("codes"), column + match.end("codes")
        return Edit(Position(number, start), Position(number, end), content)
    # the whole directive, as Ruff removes one
    before, rest = comment.text[: match.start()], comment.text[match.end() :]
    start, end = column + match.start(), column + match.end() + len(rest) - len(rest.lstrip())
    if not rest.strip():  # the end of the comment: with the spaces before it
        left, start = before.rstrip(), len(line[:start].rstrip())
        edit = Edit(Position(number, start), Position(number, column + len(comment.text)), "")
    elif rest.lstrip().startswith("#"):  # another comment follows the directive
        left = before + rest.lstrip()
        edit = Edit(Position(number, start), Position(number, end), "")
    else:  # words follow it (``- reviewed``): they stay a comment
        left = f"{before}# {rest.lstrip()}"
        edit = Edit(Position(number, start), Position(number, end), "# ")
    if NOQA.search(left) or FILE_NOQA.fullmatch(left) or FLAKE8_FILE_NOQA.match(left):
        return None
    return edit
