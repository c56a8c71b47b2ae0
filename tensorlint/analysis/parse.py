"""Build the analysis tree of what can matter, from CPython's ``ast``.

Every statement that is not a ``def`` or ``class`` is kept (imports, module
code), and a top-level ``def`` or ``class`` only when its text matches one of
the enabled rules' triggers, or when it calls a function kept for that reason
(callers are evidence about a function's parameters). Inside a kept class,
the members that cannot matter are left out the same way. What is left out
becomes a stub binding its name (``name = None``), so scopes still see the
binding, and costs neither conversion nor analysis. Nodes keep their
offsets in the whole file.

A file CPython cannot parse (newer syntax than the running interpreter, or a
syntax error) is parsed whole by LibCST, which reports errors as usual.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable
from typing import Optional, Union

from tensorlint.analysis import ops, syntax
from tensorlint.analysis.from_ast import Builder, line_starts
from tensorlint.analysis.pytree import python_tree

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = (*_FUNCTIONS, ast.ClassDef)


def parse_relevant(
    source: str,
    trigger: re.Pattern[str],
    *,
    tree: Optional[ast.Module] = None,
    keep_calls: frozenset[str] = frozenset(),
) -> syntax.Module:
    """The module to analyse: ``source`` with the blocks that cannot matter
    left out (each becomes ``name = None``).

    ``tree`` is CPython's tree of ``source`` when the caller has it;
    ``keep_calls`` names functions whose callers must be kept (they return an
    alias of their argument: the caller holds the finding).
    """
    if tree is None:
        tree = python_tree(source)
        if tree is None:
            return _whole(source)
    starts = line_starts(source)
    hits = _lines_of(starts, (m.start() for m in trigger.finditer(source)))
    ranges: list[list[int]] = []  # [first line, last line, keep]
    blocks: dict[int, ast.stmt] = {}  # first line -> a block that may be left out
    kept_functions: list[str] = []
    kept_classes: list[str] = []
    for node in tree.body:
        decorators = getattr(node, "decorator_list", None)
        first = decorators[0].lineno if decorators else node.lineno
        last = node.end_lineno or node.lineno
        keep = 1
        if isinstance(node, _BLOCKS) and not _any_between(hits, first, last):
            keep = 0
            blocks[first] = node
        elif isinstance(node, _FUNCTIONS):
            kept_functions.append(node.name)
        elif isinstance(node, ast.ClassDef):
            kept_classes.append(node.name)
        if ranges and first <= ranges[-1][1]:  # ``a = 1; b = 2``: one line, one piece
            ranges[-1][1] = max(ranges[-1][1], last)
            ranges[-1][2] = 1
            blocks.pop(first, None)
            continue
        ranges.append([first, last, keep])
    if kept_functions or keep_calls:
        _keep_callers(ranges, _call_lines(source, starts, [*kept_functions, *sorted(keep_calls)]))
    if kept_classes:
        # ``Converter.to_array(t)``: a static or class method called by its class
        _keep_callers(ranges, _class_call_lines(source, starts, kept_classes))
    callees = [*kept_functions, *keep_calls]
    whole = _keep_bases(tree.body, ranges, blocks)
    builder = Builder(source, starts)
    for first, _, keep in ranges:
        block = blocks.get(first)
        if not keep and block is not None:
            builder.stubs[id(block)] = block.name  # type: ignore[attr-defined]
    by_first = {r[0]: r for r in ranges}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        range_ = by_first.get(first)
        if (
            range_ is not None
            and range_[2]
            and range_[1] == node.end_lineno
            and id(node) not in whole
        ):
            for member in _left_out_members(node, source, starts, hits, callees):
                builder.stubs[id(member)] = member.name
    return builder.module(tree.body)


def _keep_bases(
    body: list[ast.stmt], ranges: list[list[int]], blocks: dict[int, ast.stmt]
) -> set[int]:
    """Keep, whole, the module's classes a kept class derives from (by name,
    to any depth): what their methods assign to ``self`` is what the kept
    class's methods read (``self._cpu_device`` set in a base's
    ``__init__``). Returns the ids of the classes so kept."""
    by_name: dict[str, tuple[int, ast.ClassDef]] = {}
    for node in body:
        if isinstance(node, ast.ClassDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            by_name[node.name] = (first, node)
    by_first = {r[0]: r for r in ranges}
    pending = [node for first, node in by_name.values() if first not in blocks]
    whole: set[int] = set()
    while pending:
        node = pending.pop()
        for base in node.bases:
            found = by_name.get(base.id) if isinstance(base, ast.Name) else None
            if found is None or found[0] not in blocks:
                continue
            first, kept = found
            del blocks[first]
            by_first[first][2] = 1
            whole.add(id(kept))
            pending.append(kept)
    return whole


def parse_whole(source: str) -> syntax.Module:
    """The whole module, nothing left out (for tests and comparisons)."""
    tree = python_tree(source)
    return _whole(source) if tree is None else Builder(source).module(tree.body)


Member = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]
#: a framework's epoch-end hook -> the step methods whose returns it is given
_GATHERED_STEPS: dict[str, set[str]] = {}
for _hooks in ops.FRAMEWORK_STEP_OUTPUTS.values():
    for _hook, (_step, _) in _hooks.items():
        _GATHERED_STEPS.setdefault(_hook, set()).add(_step)
_WORD = re.compile(r"[A-Za-z_]\w*")


def _left_out_members(
    node: ast.ClassDef, source: str, starts: list[int], hits: list[int], callees: list[str]
) -> list[Member]:
    """The members of a kept class that cannot matter (each becomes ``name = None``).

    Kept: the class's own statements, every method or nested class with a
    trigger, and then, until nothing changes, the members that mention a kept
    member or a kept function of the module by name (callers are evidence
    about parameters) and the methods that assign an attribute a kept member
    mentions (``self.model = model.cuda()`` in ``__init__``: the facts of
    ``self.<name>`` come from every method that assigns it).
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
        return []
    texts = [source[starts[start - 1] : _end(source, starts, end)] for start, end, _ in members]
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
        calls = _call_lines(source, starts, dotted)
        for index, (start, end, _) in enumerate(members):
            if _any_between(calls, start, end):
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
            # a hook a framework gives what a step returned: that step
            names.update(_GATHERED_STEPS.get(members[index][2].name, ()))
            mentioned |= words[index]
        for index in range(len(members)):
            if not kept[index] and (
                not names.isdisjoint(words[index]) or not mentioned.isdisjoint(assigned(index))
            ):
                kept[index] = True
    return [item for (_, _, item), keep in zip(members, kept) if not keep]


def _assigned_attributes(method: Member, text: str) -> frozenset[str]:
    """Attributes of the method's first parameter its text assigns
    (``self.x = ...``, ``self.x: T = ...``, ``self.x += ...``), adds to
    (``self.x.append(...)``, ``self.x[k].append(...)``), registers as buffers
    (``self.register_buffer("x", ...)``) or may set to require grad (every
    ``self.x`` of a method whose text says ``requires_grad``): a scan of the
    text, which may find more than the analysis counts (in a nested function,
    in a string), never fewer, so a method it misses cannot matter."""
    if isinstance(method, ast.ClassDef):
        return frozenset()
    params = [*method.args.posonlyargs, *method.args.args]
    if not params:
        return frozenset()
    me = re.escape(params[0].arg)  # (the lookbehind after it: a leading literal)
    receiver = rf"{me}(?<![\w.]{me})\s*\.\s*"
    found = set(re.findall(rf"{receiver}(\w+)\s*(?::[^=\n]*)?=(?!=)", text))
    # ``self.total += loss``, ``self.preds.append(y)``, ``self.stats[k].append(v)``
    found.update(re.findall(rf"{receiver}(\w+)\s*(?:[-+*/@%&|^]|//|\*\*|<<|>>)=", text))
    adds = r"(?:\[[^\]\n]*\]\s*)?\.\s*(?:append|extend|insert)\s*\("
    found.update(re.findall(rf"{receiver}(\w+)\s*{adds}", text))
    found.update(re.findall(rf"{receiver}register_buffer\s*\(\s*(?:name\s*=\s*)?[\"'](\w+)", text))
    if "requires_grad" in text:
        found.update(re.findall(rf"{receiver}(\w+)", text))
    return frozenset(found)


def _keep_callers(ranges: list[list[int]], calls: list[int]) -> None:
    """Keep the blocks that call a kept function (``calls``: the lines where
    such a call starts): what they pass to it is evidence about its
    parameters (see ``callers.py``)."""
    for block in ranges:
        if not block[2] and _any_between(calls, block[0], block[1]):
            block[2] = 1


def _call_lines(source: str, starts: list[int], names: list[str]) -> list[int]:
    """The lines where a call of one of ``names`` starts (``f(``, ``u.f(``;
    not ``obj.f(``), in order. One scan per name: the pattern starts with
    the name's literal text (the lookbehind after it), which ``re`` scans for
    far faster than for an alternation."""
    found: list[int] = []
    for name in names:
        escaped = re.escape(name)
        call = re.compile(rf"{escaped}(?<![\w.]{escaped})\s*\(")
        found += _lines_of(starts, (m.start() for m in call.finditer(source)))
    if "map(" in source:  # ``map(f, xs)`` calls ``f`` on each element of ``xs``
        wanted = set(names)
        found += _lines_of(
            starts, (m.start() for m in _MAPPED.finditer(source) if m.group(1) in wanted)
        )
    return sorted(found)


def _class_call_lines(source: str, starts: list[int], classes: list[str]) -> list[int]:
    """The lines where a method is called on one of ``classes`` by name
    (``Converter.to_array(``), in order."""
    wanted = set(classes)
    return _lines_of(
        starts, (m.start() for m in _CLASS_CALL.finditer(source) if m.group(1) in wanted)
    )


#: ``Name.method(``: a method called on a class by its name
_CLASS_CALL = re.compile(r"(?<![\w.])([A-Z]\w*)\.\w+\s*\(")
#: ``map(f, ...)``: the function it calls
_MAPPED = re.compile(r"(?<![\w.])map\(\s*([A-Za-z_]\w*)\s*,")


def _lines_of(starts: list[int], offsets: Iterable[int]) -> list[int]:
    """The 1-based lines of ``offsets`` (``starts``: where each line starts)."""
    return [bisect.bisect_right(starts, offset) for offset in offsets]


def _end(source: str, starts: list[int], line: int) -> int:
    """Where the 1-based ``line`` ends, its line break included."""
    return starts[line] if line < len(starts) else len(source)


def _any_between(hits: list[int], first: int, last: int) -> bool:
    index = bisect.bisect_left(hits, first)
    return index < len(hits) and hits[index] <= last


def _whole(source: str) -> syntax.Module:
    """LibCST's parse, for a file CPython cannot parse (newer syntax than the
    running interpreter's; a syntax error raises LibCST's error)."""
    import libcst as cst

    from tensorlint.analysis import from_cst

    return from_cst.build(cst.parse_module(source))
