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


def moved_here(function: syntax.FunctionDef, names: Collection[str]) -> set[str]:
    """The ``names`` (parameters of ``function``) that the body itself moves
    to a device, directly or through a name bound to one (``x = batch``,
    then ``x_gpu = x.to(self.device)`` or ``x.cuda()``): the function takes
    them on the host and moves them where it wants them, so the guess that
    its callers pass them on a device does not apply."""
    wanted = set(names)
    if not wanted:
        return set()
    aliases: dict[str, str] = {}  # a local name -> the parameter it was bound to
    moves: list[str] = []  # the receivers of moves
    stack: list[syntax.CSTNode] = [function.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (syntax.FunctionDef, syntax.Lambda, syntax.ClassDef)):
            continue  # (a closure runs when, and on what, it likes)
        if (
            isinstance(current, syntax.Assign)
            and len(current.targets) == 1
            and isinstance(current.targets[0].target, syntax.Name)
            and isinstance(current.value, syntax.Name)
            and current.value.value in wanted
        ):
            aliases[current.targets[0].target.value] = current.value.value
        if isinstance(current, syntax.Call) and isinstance(current.func, syntax.Attribute):
            receiver = current.func.value
            if isinstance(receiver, syntax.Name) and _moves(current, current.func.attr.value):
                moves.append(receiver.value)
        stack.extend(children(current))
    return {
        name if name in wanted else aliases[name]
        for name in moves
        if name in wanted or name in aliases
    }


def _moves(call: syntax.Call, method: str) -> bool:
    """``.cuda()`` (or another device's method), or ``.to(...)`` given what
    names a device (``device=``, a ``device`` or ``dev`` variable, ``"cuda"``)."""
    if method in ops.DEVICE_CHANGING_METHODS and method != "to":
        return True
    if method != "to" or not call.args:
        return False
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == "device":
                return True
            continue
        value = arg.value
        if isinstance(value, syntax.SimpleString):
            text = value.evaluated_value
            return isinstance(text, str) and text.startswith("cuda")
        last = value.attr.value if isinstance(value, syntax.Attribute) else None
        if isinstance(value, syntax.Name):
            last = value.value
        return last is not None and last.lower() in _DEVICE_NAMES
    return False


#: names of variables that hold a device
_DEVICE_NAMES = frozenset({"device", "dev", "_device", "gpu", "cuda_device", "target_device"})
