"""The default human-readable output."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Optional

from tensorlint.diagnostics import Applicability, Diagnostic, FileResult
from tensorlint.registry import BY_CODE
from tensorlint.reporters._common import CONTROLS, escape, level


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``, ``\\u202e``),
    so one finding stays one line and neither a file name nor the checked code
    can drive the terminal or reorder the line. For the output people read;
    the machine formats (JSON, SARIF) keep the exact text."""
    return escape(CONTROLS, text)


_BOLD, _RED, _GREEN, _YELLOW, _CYAN, _RESET = (
    "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[0m",
)  # fmt: skip


def _paint(text: str, *styles: str) -> str:
    return "".join(styles) + text + _RESET


def paint_diff(lines: Sequence[str]) -> str:
    """One file's unified diff (``difflib.unified_diff``'s lines) coloured as
    ``git diff`` colours it: the two file headers bold, hunk headers cyan,
    removed lines red, added lines green (each line's ending after the reset)."""
    out = []
    for index, line in enumerate(lines):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if index < 2:
            styles: tuple[str, ...] = (_BOLD,)
        elif body.startswith("@@"):
            styles = (_CYAN,)
        elif body.startswith("-"):
            styles = (_RED,)
        elif body.startswith("+"):
            styles = (_GREEN,)
        else:
            out.append(line)
            continue
        out.append(_paint(body, *styles) + ending)
    return "".join(out)


def render(
    results: Sequence[FileResult],
    *,
    fixing: bool = False,
    unsafe: bool = False,
    dry_run: bool = False,
    color: bool = False,
    sources: Optional[Mapping[str, str]] = None,
    list_findings: bool = True,
    quiet: bool = False,
) -> str:
    """The findings (unless not ``list_findings``: ``--fix-only``) and, unless
    ``quiet``, the summary."""
    lines: list[str] = []
    findings = 0
    for result in results:
        if result.error:
            lines.append(f"error: {printable(result.error)}")
        for d in result.diagnostics:
            findings += 1
            marker = " [*]" if marked(d, unsafe) else ""
            if not list_findings:
                continue
            path = printable(result.path)
            where = f"{path}:cell {d.cell}" if d.cell is not None else path
            code = d.code
            if color:
                where = _paint(where, _BOLD)
                code = _paint(code, _BOLD, _YELLOW if level(d.code) == "warning" else _RED)
                marker = _paint(marker, _CYAN) if marker else ""
            line = f"{where}:{d.start.line}:{d.start.column + 1}: {code} {printable(d.message)}"
            lines.append(line + marker)
            text = sources.get(result.path) if sources is not None else None
            if text is not None and d.cell is None:
                lines.extend(_context(text, d))
    safe, hidden = _fixable_counts(results)
    fixed = sum(len(r.fixes_applied) for r in results)
    errors = sum(1 for r in results if r.error)
    if quiet:
        pass
    elif fixing:
        lines.extend(migration_summary(results, hidden, unsafe, dry_run))
    else:
        lines.extend(summary(findings, safe, hidden, fixed, fixing, unsafe, errors))
        lines.append(checked(results))
    return "\n".join(lines) + ("\n" if lines else "")


def statistics(results: Sequence[FileResult], unsafe: bool = False) -> str:
    """``--statistics``: findings per rule, most frequent first (Ruff's layout).

    The marker counts the findings as the listing marks them (:func:`marked`):
    ``[*]`` when every finding of the rule has a fix the run would apply,
    ``[~]`` when some have, ``[ ]`` when none has; then the summary's lines on
    what is fixable, with the same counts."""
    counts = Counter(d.code for r in results for d in r.diagnostics)
    fixable = Counter(d.code for r in results for d in r.diagnostics if marked(d, unsafe))
    lines = [f"error: {printable(r.error)}" for r in results if r.error]
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if fixable[code] == count else "[~]" if fixable[code] else "[ ]"
        lines.append(f"{count:>5}\t{code}\t{marker} {BY_CODE[code].NAME}")
    safe, hidden = _fixable_counts(results)
    lines.extend(fixable_lines(safe, hidden, unsafe))
    return "".join(line + "\n" for line in lines)


def marked(d: Diagnostic, unsafe: bool) -> bool:
    """Whether a finding gets ``[*]``: a fix ``--fix`` applies (a safe one;
    with ``--unsafe-fixes``, an unsafe one too)."""
    if d.fix is None:
        return False
    if d.fix.applicability is Applicability.SAFE:
        return True
    return unsafe and d.fix.applicability is Applicability.UNSAFE


def _fixable_counts(results: Sequence[FileResult]) -> tuple[int, int]:
    """(findings with a safe fix, findings with an unsafe one)."""
    fixes = [d.fix.applicability for r in results for d in r.diagnostics if d.fix is not None]
    return fixes.count(Applicability.SAFE), fixes.count(Applicability.UNSAFE)


def fixable_lines(safe: int, hidden: int, unsafe: bool) -> list[str]:
    """What the summary says about fixes, given how many findings have a safe
    and an unsafe fix: the ``[*]`` count is the number of findings marked."""
    if unsafe:
        both = safe + hidden
        return [f"[*] {both} fixable with `--fix --unsafe-fixes`."] if both else []
    out = []
    if safe:
        out.append(f"[*] {safe} fixable with `--fix`.")
    if hidden:
        out.append(f"{hidden} more fixable with `--fix --unsafe-fixes`.")
    return out


def fixes_listing(results: Sequence[FileResult], dry_run: bool) -> str:
    """``--show-fixes``: ``path: TL101 x2, TL102`` per file changed."""
    lines = ["Fixes that would be applied:" if dry_run else "Fixes applied:"]
    for result in results:
        if not result.fixes_applied:
            continue
        counts = Counter(result.fixes_applied)
        listed = ", ".join(f"{c} x{n}" if n > 1 else c for c, n in sorted(counts.items()))
        lines.append(f"  {printable(result.path)}: {listed}")
    return "".join(line + "\n" for line in lines) if len(lines) > 1 else ""


def checked(results: Sequence[FileResult]) -> str:
    """How many files were checked, and how: ``Checked 12 files: 3 parsed, 9
    without a conversion (not parsed).``"""
    how = Counter(r.how for r in results)
    done = len(results) - how["failed"]  # (a file that could not be read was not checked)
    parts = [
        f"{how['parsed']} parsed" if how["parsed"] else "",
        f"{how['skipped']} without a conversion (not parsed)" if how["skipped"] else "",
        f"{how['cached']} unchanged since the last run (cached)" if how["cached"] else "",
    ]
    listed = ", ".join(p for p in parts if p)
    return f"Checked {_count(done, 'file')}{': ' + listed if listed else ''}."


def _context(text: str, d: Diagnostic) -> list[str]:
    """The finding's first line with a caret under it, and its evidence."""
    source_lines = text.splitlines()
    if not 1 <= d.start.line <= len(source_lines):
        return []
    width = len(str(d.start.line))
    line = source_lines[d.start.line - 1]
    body = printable(line)
    end = d.end.column if d.end.line == d.start.line else len(line)
    # (under the escaped text: a control character is printed as several)
    marked = printable(line[d.start.column : end])
    caret = " " * len(printable(line[: d.start.column])) + "^" * max(1, len(marked))
    out = [f"{' ' * width} |", f"{d.start.line} | {body}", f"{' ' * width} | {caret}"]
    for related in d.related:
        out.append(f"{' ' * width} = line {related.start.line}: {printable(related.message)}")
    out.append("")
    return out


def migration_summary(
    results: Sequence[FileResult], hidden: int, unsafe: bool, dry_run: bool = False
) -> list[str]:
    """What a fix run did (with ``--diff``: would do): the report a codemod
    migration is judged by."""
    per_rule = Counter(code for r in results for code in r.fixes_applied)
    changed = sum(1 for r in results if r.fixed_source is not None)
    remaining = sum(len(r.diagnostics) for r in results)
    errors = sum(1 for r in results if r.error)
    fixed = sum(per_rule.values())
    changes, fixes = ("would change", "Would fix") if dry_run else ("changed", "Fixed")
    scanned = sum(1 for r in results if r.how != "failed")
    out = [f"Scanned {_count(scanned, 'file')}; {changes} {_count(changed, 'file')}."]
    if fixed:
        detail = ", ".join(f"{code} {n}" for code, n in sorted(per_rule.items()))
        out.append(f"{fixes} {_count(fixed, 'finding')} ({detail}); {remaining} remaining.")
    elif remaining:
        out.append(f"Nothing fixed; {_count(remaining, 'finding')} remaining.")
    elif not errors:
        out.append("All checks passed!")
    if hidden and not unsafe:
        out.append(
            f"{_count(hidden, 'unsafe fix', 'unsafe fixes')} held back: they change what the "
            "program does; review them with `--diff --unsafe-fixes`, apply with "
            "`--fix --unsafe-fixes`."
        )
    if errors:
        out.append(f"{_count(errors, 'file')} could not be checked or fixed (listed above).")
    return out


def _count(n: int, noun: str, plural: str = "") -> str:
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def summary(
    findings: int,
    safe: int,
    hidden: int,
    fixed: int,
    fixing: bool,
    unsafe: bool,
    errors: int = 0,
) -> list[str]:
    out: list[str] = []
    if fixing and fixed:
        noun = "finding" if fixed == 1 else "findings"
        out.append(f"Fixed {fixed} {noun} ({findings} remaining).")
    elif findings:
        noun = "finding" if findings == 1 else "findings"
        out.append(f"Found {findings} {noun}.")
    elif not fixed and not errors:
        out.append("All checks passed!")
    if findings:
        out.extend(fixable_lines(0 if fixing else safe, hidden, unsafe))
    if errors:
        out.append(f"{errors} file{'s' if errors != 1 else ''} could not be checked.")
    return out
