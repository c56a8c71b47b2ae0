"""Which names a function uses as lists or dicts.

``d[k] = v`` on a list or dict replaces the entry: it rebinds a slot and
writes no array or tensor bytes, and ``x = d[k]`` is the entry itself, not
a view of ``d``. On an array or a tensor the same syntax writes into (or
views) the buffer. The memory walk (``flow.EventsWalker``) asks this module
which dotted names hold containers; the answer is one set per function (a
name used as a dict anywhere in it is a dict everywhere in it).

A name is a container when the function:

- binds it to a list, dict, set or tuple display or comprehension, or to a
  call of a container class (``dict(...)``, ``OrderedDict()``, ...);
- calls a method that only containers have (``d.keys()``, ``xs.append(v)``);
- indexes it with a string (``sample["image"]``);
- annotates the parameter as one (``batch: dict``, ``xs: List[np.ndarray]``).

The walk adds one more sign it sees itself: an entry replaced by a
conversion of itself (``d[k] = torch.from_numpy(d[k])``), which on an
array would be a no-op copy.
"""

from __future__ import annotations

from typing import Optional

from tensorlint.analysis import ops, syntax
from tensorlint.analysis.names import Scope, dotted_name
from tensorlint.analysis.walk import children

_DISPLAYS = (
    syntax.List,
    syntax.Dict,
    syntax.Set,
    syntax.Tuple,
    syntax.ListComp,
    syntax.DictComp,
    syntax.SetComp,
)


def container_keys(body: syntax.CSTNode, scope: Scope) -> set[str]:
    """The dotted names ``body`` (a function, class or module) uses as containers."""
    found: set[str] = set()
    for name, annotation in scope.params.items():
        if annotation is not None and _names_container(annotation):
            found.add(name)
    stack: list[syntax.CSTNode] = (
        list(children(body)) if isinstance(body, (syntax.FunctionDef, syntax.ClassDef)) else [body]
    )
    while stack:
        node = stack.pop()
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
            continue  # another scope
        if isinstance(node, (syntax.Assign, syntax.AnnAssign)) and node.value is not None:
            if _is_container_value(node.value):
                targets = (
                    [t.target for t in node.targets]
                    if isinstance(node, syntax.Assign)
                    else [node.target]
                )
                found.update(k for k in map(dotted_name, targets) if k is not None)
        elif isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute):
            if node.func.attr.value in ops.CONTAINER_ONLY_METHODS:
                key = dotted_name(node.func.value)
                if key is not None:
                    found.add(key)
        elif isinstance(node, syntax.Subscript) and string_index(node) is not None:
            key = dotted_name(node.value)
            if key is not None:
                found.add(key)
        stack.extend(children(node))
    return found


def string_index(node: syntax.Subscript) -> Optional[str]:
    """``"image"`` for ``sample["image"]`` (an f-string gives its source shape)."""
    literal = literal_index(node)
    if literal is not None:
        return literal
    if isinstance(single_index(node), (syntax.FormattedString, syntax.ConcatenatedString)):
        return "<str>"
    return None


def literal_index(node: syntax.Subscript) -> Optional[str]:
    """``"val"`` of ``history["val"]``: a subscript by one literal string."""
    index = single_index(node)
    if isinstance(index, syntax.SimpleString) and isinstance(index.evaluated_value, str):
        return index.evaluated_value
    return None


def single_index(node: syntax.Subscript) -> Optional[syntax.BaseExpression]:
    """The index of ``x[i]`` when it is one expression (not a slice or a tuple)."""
    if len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    return index.value if isinstance(index, syntax.Index) else None


def _is_container_value(value: syntax.BaseExpression) -> bool:
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, syntax.Call):
        func = value.func
        name = func.attr.value if isinstance(func, syntax.Attribute) else None
        if isinstance(func, syntax.Name):
            name = func.value
        return name in ops.CONTAINER_CLASSES
    return False


def _names_container(annotation: syntax.BaseExpression) -> bool:
    """``dict``, ``Dict[str, np.ndarray]``, ``typing.List[...]``, ``Optional[dict]``."""
    node = annotation
    if isinstance(node, syntax.Subscript):
        base = dotted_name(node.value)
        if base is not None and base.rsplit(".", 1)[-1] == "Optional":
            inner = single_index(node)
            return inner is not None and _names_container(inner)
        node = node.value
    key = dotted_name(node)
    return key is not None and key.rsplit(".", 1)[-1] in ops.CONTAINER_ANNOTATIONS
