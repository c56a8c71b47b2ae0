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

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Optional

from tensorlint.analysis import syntax
from tensorlint.analysis.flow import owner_body
from tensorlint.analysis.names import Scope, qualified_name, target_names
from tensorlint.analysis.walk import children

#: NumPy constructors whose first argument is the array's shape.
SHAPE_FACTORIES = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})


class Store(NamedTuple):
    """``array[index] = value``, a store that converts ``value``."""

    #: what is stored into (``preds[i]``, a sub-array of the array ``preds``)
    target: syntax.Subscript
    #: the value stored: converted through ``Tensor.__array__``
    value: syntax.BaseExpression


def subarray_store(
    target: syntax.Subscript,
    value: syntax.BaseExpression,
    bound: Callable[[], Bindings],
    scope: Scope,
) -> Optional[Store]:
    """The store ``target = value`` when ``target`` is a sub-array of a
    NumPy array that the function or module around it makes (``bound``: its
    ``bindings``, asked only when needed), so ``value`` goes through
    ``np.asarray``; None when it is one element, or not known to be
    either."""
    array = target.value
    if not isinstance(array, syntax.Name):
        return None
    indices = _indices(target)
    if indices is None:
        return None
    known = _array_dimensions(array.value, bound(), scope)
    if known is None:
        return None  # (not shown to be a NumPy array)
    sliced = any(isinstance(index, syntax.Slice) for index in indices)
    if sliced or (known.ndim is not None and len(indices) < known.ndim):
        return Store(target, value)
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


def _array_dimensions(name: str, bound: Bindings, scope: Scope) -> Optional[_Array]:
    """Is ``name`` a NumPy array wherever its owner binds it (every binding
    a ``SHAPE_FACTORIES`` call), and how many dimensions has it?"""
    ndims: set[Optional[int]] = set()
    for value in bound.get(name, ()):
        # (None: bound some other way: a parameter, a loop, a tuple, a ``with``)
        if not (isinstance(value, syntax.Call) and value.args):
            return None
        if qualified_name(value.func, scope) not in SHAPE_FACTORIES:
            return None
        first = value.args[0]
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


#: what a function or module binds each name to (``bindings``)
Bindings = Mapping[str, Sequence[Optional[syntax.BaseExpression]]]


def bindings(owner: syntax.CSTNode) -> Bindings:
    """What ``owner``'s own code binds each name to: the value of each plain
    ``name = value`` (or ``name: T = value``), None for any other binding (a
    parameter, a loop, a tuple target, a ``with``, ``global``; nested
    functions and classes are theirs; ``name += x`` keeps an array what it
    was). One walk per owner: the sites of an owner share it."""
    found: dict[str, list[Optional[syntax.BaseExpression]]] = {}

    def other(target: syntax.BaseExpression) -> None:
        for name in target_names(target):
            found.setdefault(name, []).append(None)

    if isinstance(owner, syntax.FunctionDef):
        params = owner.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params,
                 params.star_arg, params.star_kwarg)  # fmt: skip
        for param in every:
            if isinstance(param, syntax.Param):
                found.setdefault(param.name.value, []).append(None)
    stack: list[syntax.CSTNode] = list(owner_body(owner))
    while stack:
        node = stack.pop()
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef)):
            found.setdefault(node.name.value, []).append(None)
            continue
        if isinstance(node, syntax.Lambda):
            continue
        if isinstance(node, syntax.Assign):
            for target in node.targets:
                if isinstance(target.target, syntax.Name):
                    found.setdefault(target.target.value, []).append(node.value)
                else:
                    other(target.target)
        elif isinstance(node, syntax.AnnAssign):
            if isinstance(node.target, syntax.Name):
                found.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, (syntax.For, syntax.CompFor, syntax.NamedExpr)):
            other(node.target)
        elif isinstance(node, syntax.WithItem):
            if node.asname is not None:
                other(node.asname.name)
        elif isinstance(node, (syntax.Global, syntax.Nonlocal)):
            for alias in node.names:
                found.setdefault(alias.name.value, []).append(None)
        stack.extend(children(node))
    return found
