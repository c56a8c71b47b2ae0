"""Element types, where the code states them.

A cast (``t.float()``, ``t.to(torch.float32)``, ``a.astype(np.float32,
copy=False)``) returns the same memory when the value already has the
target type and new memory otherwise (SEMANTICS.md section 4,
"conditional"). The memory walk (``flow.EventsWalker``) treats a cast as a
view, except where both types are known here and differ: then the cast is a
copy, and a write to its result changes nothing else.

Known types come from what made the value: a NumPy or torch constructor
with ``dtype=``, the default of one without it (``np.zeros`` gives float64,
``torch.zeros`` float32), ``a.astype(t)``, ``cv2.imread`` (uint8), and a
conversion, which keeps its argument's type. Everything else is unknown.
"""

from __future__ import annotations

from typing import Optional

from tensorlint.analysis import ops, syntax
from tensorlint.analysis.facts import keyword, positional
from tensorlint.analysis.names import Scope, dotted_name, qualified_name


def named(node: Optional[syntax.BaseExpression], scope: Scope) -> Optional[str]:
    """The type ``node`` names (``torch.float``, ``np.float32``, ``"f4"``), or None."""
    if node is None:
        return None
    if isinstance(node, syntax.SimpleString):
        value = node.evaluated_value
        return ops.DTYPE_NAMES.get(value) if isinstance(value, str) else None
    if isinstance(node, syntax.Name) and node.value in ("float", "bool"):
        if scope.lookup(node.value) is None:  # the builtin, as NumPy reads it
            return ops.DTYPE_NAMES[node.value]
        return None
    qual = qualified_name(node, scope)
    return ops.DTYPE_NAMES.get(qual) if qual is not None else None


def cast_to(call: syntax.Call, scope: Scope) -> Optional[str]:
    """The type a cast converts to, when the call is a cast to a known type:
    ``t.float()``, ``t.to(torch.float32)``, ``t.type(torch.float32)``,
    ``a.astype(np.float32, copy=False)``, ``np.asarray(a, dtype=np.float32)``."""
    func = call.func
    qual = qualified_name(func, scope)
    if qual is not None:
        if qual in ops.NUMPY_VIEW_FUNCS:
            return named(keyword(call, "dtype"), scope)
        return None
    if not isinstance(func, syntax.Attribute):
        return None
    method = func.attr.value
    if method in ops.CAST_METHODS and not call.args:
        return ops.CAST_METHODS[method]
    if method in ("to", "type"):
        given = keyword(call, "dtype")
        if given is not None:
            return named(given, scope)
        for arg in call.args:
            if arg.keyword is None:
                found = named(arg.value, scope)
                if found is not None:
                    return found
        return None
    if method == "astype":
        return named(positional(call, 0) or keyword(call, "dtype"), scope)
    return None


def made_as(value: syntax.BaseExpression, scope: Scope) -> Optional[str]:
    """The type of the new value an expression makes (a constructor, ``astype``,
    a cast that copies), or None."""
    if not isinstance(value, syntax.Call):
        return None
    cast = cast_to(value, scope)
    if cast is not None:
        return cast
    qual = qualified_name(value.func, scope)
    if qual is None:
        return None
    given = keyword(value, "dtype")
    if qual in ops.DTYPE_SECOND_ARGUMENT and given is None:
        given = positional(value, 1)
    if given is not None:
        return named(given, scope) if qual.startswith(("numpy.", "torch.")) else None
    if qual == "cv2.imread":
        flags = positional(value, 1) or keyword(value, "flags")
        flag = dotted_name(flags) if flags is not None else None
        if flags is None or (flag is not None and flag.endswith(ops.CV2_UINT8_FLAGS)):
            return "uint8"
        return None
    return ops.DEFAULT_DTYPES.get(qual)


#: ``step_type``: the step may change the type to one not known here
CHANGED = "?"


def step_type(node: syntax.BaseExpression, scope: Scope) -> Optional[str]:
    """What one view step (``flow.view_step``) does to the element type: the
    type a cast converts to, ``CHANGED`` when it may change it to one not
    named here (``t.to(x)``, ``a.view(np.int32)``, ``.real``), None when the
    type stays (``t.view(-1)``, ``a.T``, ``t.detach()``)."""
    if isinstance(node, syntax.Attribute):
        return CHANGED if node.attr.value in ("real", "imag") else None
    if not isinstance(node, syntax.Call):
        return None
    target = cast_to(node, scope)
    if target is not None:
        return target
    func = node.func
    qual = qualified_name(func, scope)
    if qual is not None:
        return CHANGED if keyword(node, "dtype") is not None else None
    if not isinstance(func, syntax.Attribute):
        return None
    method = func.attr.value
    if method == "to" and _is_device(positional(node, 0)) and len(node.args) == 1:
        return None  # ``.to("cpu")``, ``.to(torch.device(...))``
    if method == "view":
        first = positional(node, 0) or keyword(node, "dtype")
        return CHANGED if first is not None and _may_be_dtype(first) else None
    return CHANGED if method in ops.TYPE_CHANGING_METHODS else None


def _is_device(node: Optional[syntax.BaseExpression]) -> bool:
    if isinstance(node, syntax.SimpleString):
        return True
    return isinstance(node, syntax.Call) and dotted_name(node.func) in ("torch.device", "device")


def _may_be_dtype(node: syntax.BaseExpression) -> bool:
    """``t.view(-1)`` and ``t.view(n, 3)`` reshape; ``t.view(torch.int32)`` or
    ``a.view(dt)`` may reinterpret the bytes as another type."""
    if isinstance(node, (syntax.Integer, syntax.UnaryOperation, syntax.Tuple, syntax.List)):
        return False
    if isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute):
        return node.func.attr.value not in ("size", "shape")
    return not (isinstance(node, syntax.Attribute) and node.attr.value == "shape")
