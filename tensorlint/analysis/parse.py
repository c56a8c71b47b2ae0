"""Parse only what can matter: LibCST for the top-level blocks with a trigger.

LibCST's parser costs ~2 s per MB here and grows faster than linearly with
the size of a file, while CPython's ``ast`` finds the top-level statements of
the same file ten times faster. So a file is split at its top-level
statements: every statement that is not a ``def`` or ``class`` is kept
(imports, module code), and a ``def`` or ``class`` only when its text matches
one of the enabled rules' triggers (or when it calls a top-level function
kept for that reason: callers are evidence about a function's parameters);
the others become a stub binding their
name (``name = None``), so scopes still see the binding. Each kept block is
parsed on its own and the blocks are joined into one module. Positions stay
those of the original file: each block knows the line it starts on.

A file CPython cannot parse (newer syntax than the running interpreter, or a
syntax error) is parsed whole by LibCST, which reports errors as usual.
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from tensorlint.analysis.pytree import python_tree

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = (*_FUNCTIONS, ast.ClassDef)


@dataclass(frozen=True)
class Piece:
    """A parsed block of the file, starting after ``line_offset`` lines."""

    module: cst.Module
    text: str
    line_offset: int


def parse_relevant(
    source: str,
    trigger: re.Pattern[str],
    *,
    tree: Optional[ast.Module] = None,
    keep_calls: frozenset[str] = frozenset(),
) -> tuple[cst.Module, list[Piece]]:
    """The module to analyse, and the parsed pieces its positions come from.

    ``tree`` is CPython's tree of ``source`` when the caller has it;
    ``keep_calls`` names functions whose callers must be kept (they return an
    alias of their argument: the caller holds the finding).
    """
    if tree is None:
        tree = python_tree(source)
        if tree is None:
            return _whole(source)
    lines = _LINE.findall(source)
    hits = _trigger_lines(lines, source, trigger)
    ranges: list[list[int]] = []  # [first line, last line, keep]
    stubs: dict[int, str] = {}
    kept_functions: list[str] = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", None)
        first = decorators[0].lineno if decorators else node.lineno
        last = node.end_lineno or node.lineno
        keep = 1
        if isinstance(node, _BLOCKS) and not _any_between(hits, first, last):
            keep = 0
            stubs[first] = node.name
        elif isinstance(node, _FUNCTIONS):
            kept_functions.append(node.name)
        if ranges and first <= ranges[-1][1]:  # ``a = 1; b = 2``: one line, one piece
            ranges[-1][1] = max(ranges[-1][1], last)
            ranges[-1][2] = 1
            stubs.pop(first, None)
            continue
        ranges.append([first, last, keep])
    if kept_functions or keep_calls:
        _keep_callers(ranges, lines, [*kept_functions, *sorted(keep_calls)])
    callees = [*kept_functions, *keep_calls]
    texts: dict[int, str] = {}  # first line -> the text to parse, for kept ranges
    by_first = {r[0]: r for r in ranges}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        range_ = by_first.get(first)
        if range_ is not None and range_[2] and range_[1] == node.end_lineno:
            text = _class_text(node, first, lines, hits, callees)
            if text is not None:
                texts[first] = text
    if not texts and all(keep for _, _, keep in ranges):
        return _whole(source)
    body: list[cst.SimpleStatementLine | cst.BaseCompoundStatement] = []
    pieces: list[Piece] = []
    for first, last, keep in ranges:
        if not keep:
            stub = cst.parse_statement(f"{stubs[first]} = None\n")
            assert isinstance(stub, cst.SimpleStatementLine)
            body.append(stub)
            continue
        text = texts.get(first) or "".join(lines[first - 1 : last])
        try:
            piece = cst.parse_module(text)
        except cst.ParserSyntaxError:
            return _whole(source)
        body.extend(piece.body)
        pieces.append(Piece(piece, text, first - 1))
    return cst.Module(body=body), pieces


Member = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]
_WORD = re.compile(r"[A-Za-z_]\w*")


def _class_text(
    node: ast.ClassDef, first: int, lines: list[str], hits: list[int], callees: list[str]
) -> Optional[str]:
    """The text of a kept class (from its line ``first``) with the methods that
    cannot matter blanked; None when every method may matter.

    Kept: the class's own statements, every method or nested class with a
    trigger, and then, until nothing changes, the members that mention a kept
    member or a kept function of the module by name (callers are evidence
    about parameters) and the methods that assign an attribute a kept member
    mentions (``self.model = model.cuda()`` in ``__init__``: the facts of
    ``self.<name>`` come from every method that assigns it). A blanked member
    becomes ``name = None`` followed by empty lines, so every kept line keeps
    its number and its columns.
    """
    members: list[tuple[int, int, Member]] = []
    for item in node.body:
        if isinstance(item, _BLOCKS):
            start = item.decorator_list[0].lineno if item.decorator_list else item.lineno
            end = item.end_lineno or item.lineno
            if start > node.lineno:  # ``class A: def f(self): ...`` on one line stays
                members.append((start, end, item))
    kept = [_any_between(hits, start, end) for start, end, _ in members]
    if all(kept):
        return None
    texts = ["".join(lines[start - 1 : end]) for start, end, _ in members]
    words = [frozenset(_WORD.findall(text)) for text in texts]
    assigns: dict[int, frozenset[str]] = {}  # computed when first needed

    def assigned(index: int) -> frozenset[str]:
        found = assigns.get(index)
        if found is None:
            found = assigns[index] = _assigned_attributes(members[index][2], texts[index])
        return found

    names = {name for name in callees if "." not in name}
    # a helper imported as a module attribute (``arrays.to_host(x)``): its callers
    dotted = [name for name in callees if "." in name]
    if dotted:
        call = _call_pattern(dotted)
        for index, text in enumerate(texts):
            if call.search(text):
                kept[index] = True
    mentioned: set[str] = set()
    seen: set[int] = set()
    while True:
        fresh = [i for i, keep in enumerate(kept) if keep and i not in seen]
        if not fresh:
            break
        for index in fresh:
            seen.add(index)
            names.add(members[index][2].name)
            mentioned |= words[index]
        for index in range(len(members)):
            if not kept[index] and (
                not names.isdisjoint(words[index]) or not mentioned.isdisjoint(assigned(index))
            ):
                kept[index] = True
    if all(kept):
        return None
    out = lines[first - 1 : node.end_lineno]
    for (start, end, item), keep in zip(members, kept):
        if keep:
            continue
        for number in range(start, end + 1):
            line = out[number - first]
            out[number - first] = line[len(line.rstrip("\r\n")) :]  # its line ending only
        line = lines[start - 1]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        out[start - first] = f"{indent}{item.name} = None{out[start - first]}"
    return "".join(out)


def _assigned_attributes(method: Member, text: str) -> frozenset[str]:
    """Attributes of the method's first parameter its text assigns
    (``self.x = ...``, ``self.x: T = ...``): a scan of the text, which may
    find more than the analysis counts (in a nested function, in a string),
    never fewer, so a method it misses cannot matter."""
    if isinstance(method, ast.ClassDef):
        return frozenset()
    params = [*method.args.posonlyargs, *method.args.args]
    if not params:
        return frozenset()
    me = re.escape(params[0].arg)
    pattern = rf"(?<![\w.]){me}\s*\.\s*(\w+)\s*(?::[^=\n]*)?=(?!=)"
    return frozenset(re.findall(pattern, text))


def _keep_callers(ranges: list[list[int]], lines: list[str], names: list[str]) -> None:
    """Keep the blocks that call a kept function: what they pass to it is
    evidence about its parameters (see ``callers.py``)."""
    call = _call_pattern(names)
    for block in ranges:
        if not block[2] and call.search("".join(lines[block[0] - 1 : block[1]])):
            block[2] = 1


def _call_pattern(names: list[str]) -> re.Pattern[str]:
    """A call of one of ``names`` (``f(``, ``u.f(``; not ``obj.f(``)."""
    return re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, names))})\s*\(")


def _trigger_lines(lines: list[str], source: str, trigger: re.Pattern[str]) -> list[int]:
    """The 1-based lines where a trigger match starts, in order (one regex pass)."""
    starts = list(itertools.accumulate((len(line) for line in lines), initial=0))
    return [bisect.bisect_right(starts, m.start()) for m in trigger.finditer(source)]


def _any_between(hits: list[int], first: int, last: int) -> bool:
    index = bisect.bisect_left(hits, first)
    return index < len(hits) and hits[index] <= last


def _whole(source: str) -> tuple[cst.Module, list[Piece]]:
    module = cst.parse_module(source)
    return module, [Piece(module, source, 0)]
