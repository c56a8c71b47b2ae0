"""Where a kept conversion result goes: can it leave its function?

TL211 and TL212 report a tensor and an array that share memory while both
stay in use. The copy they insert buys something only when the kept value
can reach code that writes it or keeps it past the function. It cannot in
two places:

- **a local that is only read**: every use of the name is an operand, a
  comparison, a metadata read (``a.shape``), a method whose result is new
  memory or a scalar (``a.sum()``, ``t.item()``), or an argument of a NumPy,
  torch or builtin function that neither writes it nor returns a view of it
  (``np.outer(a, b)``, ``torch.cat([x, t])``, ``print(a)``). Views of it
  (``a[0]``, ``t.T``) are followed to where they go. Anything else
  (returned, stored, bound to another name, passed to any other callable,
  captured by a nested function) lets it leave;
- **what a Dataset's ``__getitem__`` returns**: a DataLoader's collate stacks
  the samples of a batch into new memory (``torch.stack`` for tensors, and
  for arrays ``torch.as_tensor`` then ``torch.stack``), so the sample's alias
  ends there. A class is a Dataset when a base's name ends in ``Dataset``.

Writes in view are TL201/TL202's business, checked before this.

A value assigned into an element or slice of an array or tensor
(``buf[i] = t.numpy()``) is copied into it, not kept: ``copied_into`` says
so where every binding of ``buf`` in the function makes an array or tensor of
a known element type (``np.zeros(n)``, ``torch.empty(3, 4)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Union

from tensorlint.analysis import dtypes, ops, syntax
from tensorlint.analysis.facts import keyword
from tensorlint.analysis.flow import is_view_call
from tensorlint.analysis.names import Scope, is_dataset_class, qualified_name
from tensorlint.analysis.walk import children

#: ndarray and tensor methods whose result is new memory or a plain value,
#: never a view of the receiver.
FRESH_RESULT_METHODS = ops.PLAIN_RESULT_METHODS | frozenset(
    {
        "sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax",
        "argmin", "argsort", "nonzero", "norm", "all", "any", "copy", "clone", "cumsum",
        "cumprod", "abs", "exp", "log", "sqrt", "round", "dot", "matmul", "mm",
        "nansum", "nanmean", "median", "count_nonzero", "tobytes", "isnan", "isinf",
        "isfinite", "eq", "ne", "lt", "le", "gt", "ge", "astype",
    }
)  # fmt: skip

#: NumPy functions that return views of their argument's pieces, or an
#: object over its memory (``np.frombuffer(a)``, ``np.broadcast_arrays``).
_NUMPY_SHARING = frozenset(
    {"numpy.split", "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit",
     "numpy.unstack", "numpy.broadcast_arrays", "numpy.frombuffer", "numpy.ndarray",
     "numpy.matrix", "numpy.memmap", "numpy.nditer"}
)  # fmt: skip
#: NumPy namespaces whose constructors keep their argument's memory
#: (``np.ma.masked_array(a)`` does not copy by default)
_NUMPY_SHARING_MODULES = ("numpy.ma.", "numpy.rec.", "numpy.char.", "numpy.lib.")
_TORCH_VIEWS = frozenset(
    f"torch.{m}" for m in ops.TORCH_VIEW_METHODS | ops.TORCH_VIEW_TUPLE_METHODS
) | frozenset({"torch.real", "torch.imag", "torch.view_as_complex"})
#: Where a name stops being the value the walk follows.
_NESTED = (syntax.FunctionDef, syntax.Lambda, syntax.ClassDef)


def stays_in_function(
    node: syntax.CSTNode,
    ancestors: Sequence[syntax.CSTNode],
    scope: Scope,
    array: Optional[bool] = None,
) -> bool:
    """Is the conversion result at ``node`` (below ``ancestors``) kept only
    where it cannot leave its function (see the module's docstring)?
    ``array``: the result is an ndarray (True) or a tensor (False)."""
    if scope.kind != "function" or not isinstance(scope.node, syntax.FunctionDef):
        return False
    collated = _collated(scope)
    walk = _Walk(scope, collated, array)
    found = walk.context(node, ancestors, len(ancestors) - 1)
    if not isinstance(found, str):
        return found
    return walk.only_read(found, scope.node)


def _collated(scope: Scope) -> bool:
    """Is ``scope`` the ``__getitem__`` of a Dataset class?"""
    function = scope.node
    owner = scope.parent
    if not isinstance(function, syntax.FunctionDef) or function.name.value != "__getitem__":
        return False
    return owner is not None and is_dataset_class(owner.node)


class _Walk:
    """Where values go in one function."""

    def __init__(self, scope: Scope, collated: bool, array: Optional[bool]) -> None:
        self.scope = scope
        self.collated = collated  #: returned values are collated (a Dataset's ``__getitem__``)
        self.array = array  #: the followed value is an ndarray (True) or a tensor (False)

    def only_read(self, name: str, function: syntax.FunctionDef) -> bool:
        """Is every use of local ``name`` in ``function`` a read that keeps nothing?"""
        stack: list[tuple[syntax.CSTNode, tuple[syntax.CSTNode, ...]]] = [
            (child, (function,)) for child in children(function.body)
        ]
        while stack:
            node, ancestors = stack.pop()
            if isinstance(node, syntax.Name):
                if node.value == name and not self._use_is_read(node, ancestors):
                    return False
                continue
            below = (*ancestors, node)
            stack.extend((child, below) for child in children(node))
        return True

    def _use_is_read(self, node: syntax.Name, ancestors: Sequence[syntax.CSTNode]) -> bool:
        parent = ancestors[-1]
        if isinstance(parent, syntax.Attribute) and parent.attr is node:
            return True  # ``x.name``: another object's attribute
        if isinstance(parent, syntax.Arg) and parent.keyword is node:
            return True
        if any(isinstance(a, _NESTED) for a in ancestors[1:]):
            return False  # a closure may keep it
        binding = _binding(node, ancestors)
        if binding is not None:
            return binding
        return self.context(node, ancestors, len(ancestors) - 1) is True

    def context(
        self, expr: syntax.CSTNode, ancestors: Sequence[syntax.CSTNode], i: int
    ) -> Union[bool, str]:
        """Where the value of ``expr`` goes: True (read only, or collated),
        False (it may leave or be written), or the local name it is bound to."""
        scope, collated = self.scope, self.collated
        while i >= 0:
            parent = ancestors[i]
            if isinstance(parent, syntax.Attribute) and parent.value is expr:
                attr = parent.attr.value
                call = ancestors[i - 1] if i >= 1 else None
                if not (isinstance(call, syntax.Call) and call.func is parent):
                    if attr in ops.METADATA_ATTRS:
                        return True
                    if attr in ops.TORCH_VIEW_ATTRS or attr in ops.NUMPY_VIEW_ATTRS:
                        expr, i = parent, i - 1
                        continue
                    return False
                if ops.in_place_method(attr) is not None:
                    return False
                if is_view_call(call, attr, self.array):
                    expr, i = call, i - 2
                    continue
                if attr in FRESH_RESULT_METHODS:
                    return True
                # an ndarray method that is neither a view nor a write makes
                # new memory (``a.flatten()``, ``a.clip(0, 1)``)
                return self.array is True and not attr.startswith("_")
            if isinstance(parent, syntax.Subscript) and parent.value is expr:
                expr, i = parent, i - 1  # an element or a slice: where it goes decides
                continue
            if isinstance(parent, (syntax.BinaryOperation, syntax.UnaryOperation,
                                   syntax.Comparison, syntax.ComparisonTarget)):  # fmt: skip
                return True
            if isinstance(parent, syntax.FormattedStringExpression):
                return True
            if isinstance(parent, (syntax.If, syntax.While, syntax.Assert)) and parent.test is expr:
                return True
            if isinstance(parent, syntax.Arg) and parent.value is expr:
                call = ancestors[i - 1] if i >= 1 else None
                return isinstance(call, syntax.Call) and _reads_only(call, parent, scope)
            if isinstance(parent, syntax.Element) and i >= 2:
                display, arg = ancestors[i - 1], ancestors[i - 2]
                if (
                    isinstance(display, (syntax.List, syntax.Tuple))
                    and isinstance(arg, syntax.Arg)
                    and i >= 3
                    and isinstance(ancestors[i - 3], syntax.Call)
                ):  # ``np.concatenate([a, b])``
                    return _reads_only(ancestors[i - 3], arg, scope)  # type: ignore[arg-type]
            if collated and isinstance(parent, (syntax.Element, syntax.DictElement, syntax.List,
                                                syntax.Tuple, syntax.Dict)):  # fmt: skip
                if isinstance(parent, syntax.DictElement) and parent.value is not expr:
                    return False
                expr, i = parent, i - 1
                continue
            if isinstance(parent, syntax.Return):
                return collated
            if isinstance(parent, syntax.Assign) and parent.value is expr:
                targets = parent.targets
                if len(targets) == 1 and isinstance(targets[0].target, syntax.Name):
                    name = targets[0].target.value
                    return name if scope.binds_locally(name) else False
                return False
            if isinstance(parent, syntax.AnnAssign) and parent.value is expr:
                target = parent.target
                if isinstance(target, syntax.Name) and scope.binds_locally(target.value):
                    return target.value
                return False
            return False
        return False


def _binding(node: syntax.CSTNode, ancestors: Sequence[syntax.CSTNode]) -> Optional[bool]:
    """True where ``node`` is (part of) a target that rebinds the name, False
    where it is written in place (``a += b``), None where it is read."""
    child, i = node, len(ancestors) - 1
    while i >= 0 and isinstance(ancestors[i], (syntax.Tuple, syntax.List, syntax.Element,
                                               syntax.StarredElement)):  # fmt: skip
        child, i = ancestors[i], i - 1
    if i < 0:
        return None
    parent = ancestors[i]
    if isinstance(parent, syntax.AssignTarget) and parent.target is child:
        return True
    if (
        isinstance(parent, (syntax.AnnAssign, syntax.For, syntax.CompFor, syntax.NamedExpr))
        and parent.target is child
    ):
        return True
    if isinstance(parent, (syntax.AsName, syntax.Del)):
        return True
    if isinstance(parent, syntax.AugAssign) and parent.target is child:
        return False
    return None


def _reads_only(call: syntax.Call, arg: syntax.Arg, scope: Scope) -> bool:
    """Does ``call`` only read its argument ``arg``: no write, no view of it
    in the result, nothing of it kept?"""
    if arg.star or (arg.keyword is not None and arg.keyword.value in ops.OUT_KEYWORDS):
        return False
    if any(a.keyword is not None and a.keyword.value in ops.OUT_KEYWORDS for a in call.args):
        return False
    func = call.func
    if isinstance(func, syntax.Name) and func.value in ops.READ_ONLY_BUILTINS:
        return scope.lookup(func.value) is None
    qual = qualified_name(func, scope)
    if qual is None:
        return False
    head, _, rest = qual.partition(".")
    if head == "numpy":
        if qual in ops.NUMPY_VIEW_FUNCS or qual in ops.NUMPY_INPLACE_FUNCS:
            return False
        if qual in ops.FILL_FUNCS or qual in _NUMPY_SHARING:
            return False
        if qual.startswith(_NUMPY_SHARING_MODULES):
            return False
        if qual in ops.NUMPY_COPYING_CTORS:
            copy = keyword(call, "copy")
            return copy is None
        return True
    if head == "torch" and rest and "." not in rest:
        if qual in ops.ARRAY_TO_TENSOR_FUNCS or qual in _TORCH_VIEWS:
            return False
        return not rest.endswith("_") and not rest[0].isupper()
    return False


def copied_into(assign: syntax.Assign, scope: Scope) -> bool:
    """Does ``assign`` write its value into an element or slice of an array
    or tensor the function made (``buf[i] = v``), so copy the value?"""
    if len(assign.targets) != 1 or not isinstance(scope.node, syntax.FunctionDef):
        return False
    target = assign.targets[0].target
    if not isinstance(target, syntax.Subscript) or not isinstance(target.value, syntax.Name):
        return False
    name = target.value.value
    if not scope.binds_locally(name) or name in scope.params:
        return False
    made = False
    stack: list[syntax.CSTNode] = [scope.node.body]
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, (syntax.Assign, syntax.AnnAssign, syntax.AugAssign)):
            bound = (
                [t.target for t in node.targets] if isinstance(node, syntax.Assign)
                else [node.target]
            )  # fmt: skip
            if any(isinstance(t, syntax.Name) and t.value == name for t in bound):
                value = node.value
                if value is None or dtypes.made_as(value, scope) is None:
                    return False
                made = True
        elif isinstance(node, (syntax.For, syntax.CompFor, syntax.NamedExpr, syntax.AsName)):
            target_node = node.name if isinstance(node, syntax.AsName) else node.target
            if any(
                isinstance(n, syntax.Name) and n.value == name
                for n in (target_node, *children(target_node))
            ):
                return False
        stack.extend(children(node))
    return made
