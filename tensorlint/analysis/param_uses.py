"""Which parameters a function uses only as numbers.

The API boundary guesses that a public function's parameter may be a CUDA
tensor, or one that requires grad. A parameter the body uses as a size or a
count (``torch.arange(steps + 1)``, ``range(n)``, ``int(k)``) and never as
anything else a tensor could be (a method's receiver, an attribute's owner,
an argument of another call, a value returned or stored) is a number: the
guess does not apply to it. Arithmetic and comparisons say nothing either
way (``t * 2`` and ``n * 2`` read the same).
"""

from __future__ import annotations

from collections.abc import Collection

from tensorlint.analysis import ops, syntax
from tensorlint.analysis.names import Scope, qualified_name
from tensorlint.analysis.walk import children

#: where a name is met: as a number, as anything, or in arithmetic (neither)
_NUMBER, _ANY, _NEUTRAL = "number", "any", "neutral"


def numbers_only(function: syntax.FunctionDef, names: Collection[str], scope: Scope) -> set[str]:
    """The ``names`` (parameters of ``function``) used at least once as a
    number and never in a way only a non-number allows."""
    if not names:
        return set()
    uses: dict[str, set[str]] = {name: set() for name in names}
    _visit(function.body, _ANY, uses, scope)
    return {name for name, seen in uses.items() if seen == {_NUMBER}}


def _visit(node: syntax.CSTNode, where: str, uses: dict[str, set[str]], scope: Scope) -> None:
    stack: list[tuple[syntax.CSTNode, str]] = [(node, where)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, syntax.Name):
            seen = uses.get(current.value)
            if seen is not None and where != _NEUTRAL:
                seen.add(where)
            continue
        if isinstance(current, (syntax.FunctionDef, syntax.Lambda, syntax.ClassDef)):
            for child in children(current):  # (a closure's uses count as any)
                stack.append((child, _ANY))
            continue
        if isinstance(current, syntax.Call):
            func = current.func
            numeric = (
                isinstance(func, syntax.Name) and func.value in ops.NUMBER_BUILTINS
            ) or qualified_name(func, scope) in ops.SIZE_FACTORIES
            inner = _NUMBER if numeric else _ANY
            stack.append((func, _ANY))
            for arg in current.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if inner == _NUMBER and keyword not in ("out", "device", "dtype"):
                    stack.append((arg.value, _NUMBER))
                else:
                    stack.append((arg.value, _ANY))
            continue
        if isinstance(current, (syntax.BinaryOperation, syntax.UnaryOperation)):
            # ``steps + 1`` inside ``torch.arange(...)`` is a number; elsewhere
            # arithmetic says nothing of its operands
            inside = _NUMBER if where == _NUMBER else _NEUTRAL
            for child in children(current):
                stack.append((child, inside))
            continue
        if isinstance(current, (syntax.Attribute, syntax.Subscript)):
            # ``x.shape``, ``x[0]``: what only a container, an array or a
            # tensor allows
            for child in children(current):
                stack.append((child, _ANY))
            continue
        if isinstance(current, syntax.Comparison):
            for child in children(current):
                stack.append((child, _NEUTRAL))
            continue
        for child in children(current):
            stack.append((child, _ANY if where == _NEUTRAL else where))
