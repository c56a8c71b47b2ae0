"""Stores into a NumPy array: which ones convert a tensor.

``arr[i] = t`` reads ``t`` one of two ways (measured: ``numpy_table.STORES``,
docs/numpy-functions.md). A store into one element goes through ``float(t)``
or ``int(t)``, which ``Tensor.item()`` answers on any device and with grad:
no hazard. A store into a sub-array (a slice, or fewer indices than the
array has dimensions: a row of a 2-D array) goes through ``np.asarray(t)``,
that is ``Tensor.__array__``, and raises there on a CUDA tensor
(``TypeError``) or on one that requires grad (``RuntimeError``).

The array must be shown to be one: every binding of its name in the
function (or module) is a NumPy constructor given a shape
(``preds = np.zeros((n, k))``). Its dimensions are known when every shape
is a literal tuple or list, or a single number.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple, Optional

from tensorlint.analysis import syntax
from tensorlint.analysis.flow import owner_body
from tensorlint.analysis.names import Scope, qualified_name
from tensorlint.analysis.walk import children

#: NumPy constructors whose first argument is the array's shape.
SHAPE_FACTORIES = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})


class Store(NamedTuple):
    """``array[index] = value``, a store that converts ``value``."""

    #: the array stored into (a name)
    array: syntax.Name
    #: the value stored: converted through ``Tensor.__array__``
    value: syntax.BaseExpression


def subarray_store(
    target: syntax.Subscript, value: syntax.BaseExpression, owner: syntax.CSTNode, scope: Scope
) -> Optional[Store]:
    """The store ``target = value`` when ``target`` is a sub-array of a
    NumPy array made in ``owner`` (so ``value`` goes through
    ``np.asarray``); None when it is one element, or not known to be
    either."""
    array = target.value
    if not isinstance(array, syntax.Name):
        return None
    indices = _indices(target)
    if indices is None:
        return None
    known = _array_dimensions(array.value, owner, scope)
    if known is None:
        return None  # (not shown to be a NumPy array)
    sliced = any(isinstance(index, syntax.Slice) for index in indices)
    if sliced or (known.ndim is not None and len(indices) < known.ndim):
        return Store(array, value)
    return None


def _indices(target: syntax.Subscript) -> Optional[list[syntax.BaseSlice]]:
    """The subscript's indices, one per dimension (``a[i, j]``, ``a[(i,
    j)]``); None when one may stand for several dimensions or none
    (``...``, ``None``, a starred tuple)."""
    indices: list[syntax.BaseSlice] = [element.slice for element in target.slice]
    if len(indices) == 1 and isinstance(indices[0], syntax.Index):
        inner = indices[0].value
        if isinstance(inner, syntax.Tuple):
            if any(isinstance(e, syntax.StarredElement) for e in inner.elements):
                return None
            indices = [syntax.Index(e.value) for e in inner.elements]
    for index in indices:
        if isinstance(index, syntax.Index) and (
            isinstance(index.value, syntax.Ellipsis)
            or (isinstance(index.value, syntax.Name) and index.value.value == "None")
            or isinstance(index.value, syntax.StarredElement)
        ):
            return None
    return indices


class _Array(NamedTuple):
    #: the number of dimensions, when every shape shows it
    ndim: Optional[int]


def _array_dimensions(name: str, owner: syntax.CSTNode, scope: Scope) -> Optional[_Array]:
    """Is ``name`` a NumPy array wherever ``owner`` binds it (every binding
    a ``SHAPE_FACTORIES`` call), and how many dimensions has it?"""
    ndims: set[Optional[int]] = set()
    for bound in _bindings(name, owner):
        if bound is None:
            return None  # (bound some other way: a loop, a tuple, a ``with``)
        if not (isinstance(bound, syntax.Call) and bound.args):
            return None
        if qualified_name(bound.func, scope) not in SHAPE_FACTORIES:
            return None
        first = bound.args[0]
        if first.star or (first.keyword is not None and first.keyword.value != "shape"):
            return None
        ndims.add(_dimensions(first.value))
    if not ndims:
        return None
    return _Array(ndims.pop() if len(ndims) == 1 else None)


def _dimensions(shape: syntax.BaseExpression) -> Optional[int]:
    """How many dimensions ``shape`` gives: a literal tuple or list's length,
    1 for a number (``np.zeros(5)``, ``np.zeros(len(xs))``); None when the
    code does not show it (``np.zeros(shape)``)."""
    if isinstance(shape, (syntax.Tuple, syntax.List)):
        if any(isinstance(e, syntax.StarredElement) for e in shape.elements):
            return None
        return len(shape.elements)
    if isinstance(shape, syntax.Integer):
        return 1
    if (
        isinstance(shape, syntax.Call)
        and isinstance(shape.func, syntax.Name)
        and shape.func.value in ("len", "int")
    ):
        return 1
    return None


def _bindings(name: str, owner: syntax.CSTNode) -> Iterator[Optional[syntax.BaseExpression]]:
    """What ``owner``'s own code binds ``name`` to: the value of each plain
    ``name = value``, None for any other binding (nested functions and
    classes are theirs; ``name += x`` keeps an array what it was)."""
    stack: list[syntax.CSTNode] = list(owner_body(owner))
    if isinstance(owner, syntax.FunctionDef):
        params = owner.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params,
                 params.star_arg, params.star_kwarg)  # fmt: skip
        if any(isinstance(p, syntax.Param) and p.name.value == name for p in every):
            yield None
    while stack:
        node = stack.pop()
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
            if isinstance(node, (syntax.FunctionDef, syntax.ClassDef)) and node.name.value == name:
                yield None
            continue
        if isinstance(node, syntax.Assign):
            for target in node.targets:
                if isinstance(target.target, syntax.Name) and target.target.value == name:
                    yield node.value
                elif _binds(target.target, name):
                    yield None
        elif isinstance(node, syntax.AnnAssign):
            if _binds(node.target, name):
                yield node.value
        elif isinstance(node, (syntax.For, syntax.CompFor)):
            if _binds(node.target, name):
                yield None
        elif isinstance(node, syntax.WithItem):
            if node.asname is not None and _binds(node.asname.name, name):
                yield None
        elif isinstance(node, syntax.NamedExpr):
            if _binds(node.target, name):
                yield None
        elif isinstance(node, (syntax.Global, syntax.Nonlocal)) and any(
            n.name.value == name for n in node.names
        ):
            yield None
        stack.extend(children(node))


def _binds(target: syntax.CSTNode, name: str) -> bool:
    """Does the target ``target`` bind ``name`` (a name, or inside a tuple or list)?"""
    if isinstance(target, syntax.Name):
        return target.value == name
    if isinstance(target, (syntax.Tuple, syntax.List)):
        return any(_binds(e.value, name) for e in target.elements)
    if isinstance(target, syntax.StarredElement):
        return _binds(target.value, name)
    return False
