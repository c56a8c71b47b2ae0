"""Scopes, imports and qualified names, without LibCST's metadata providers.

One visitor pass over the module records, for every scope, which names it
binds and to what: an import binds a qualified name, anything else binds an
unknown value. A name resolves through the scopes the way Python looks it up;
when the bindings that could be in effect disagree (``import torch`` in one
place, ``torch = None`` in another) the answer is ``None``, and rules do not
report on what they cannot name for sure. Bindings made in an
``except ImportError:`` fallback are the exception: that code path cannot
reach a use of the missing module, so they do not count as a disagreement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NamedTuple, Optional, Union

from tensorlint.analysis import library_table, ops, syntax

ScopeNode = Union[syntax.Module, syntax.FunctionDef, syntax.Lambda, syntax.ClassDef]

#: A binding that is not an import (an assignment, a parameter, a def, ...).
UNKNOWN = ""


class Boundary(NamedTuple):
    """A parameter through which values enter from callers outside the file."""

    node: syntax.CSTNode  #: the ``Param``
    function: str  #: ``f()``
    #: device evidence: None (none), "" (callers no one here sees), or the
    #: clause naming the call it comes through, ``{what}`` standing for what
    #: may be passed: "`Base.run()` at base.py:12, which passes on ..."
    device: Optional[str]
    grad: Optional[str]  #: the same for grad evidence
    note: str = ""  #: what the related location says of the parameter
    #: callers in the project move what they pass to a device: a tensor
    tensor: bool = False
    #: callers in the project show the cause (a value they moved, a module's
    #: output): evidence that follows the value like any other, not the guess
    shown: bool = False


#: Where a file, or a module it imports, makes CUDA the default device of new
#: tensors, and whether ``torch.Tensor(...)`` follows (``facts.default_cuda_of``).
DefaultCuda = Optional[tuple[str, bool]]


class Scope:
    """The names one module, function, lambda or class body binds."""

    __slots__ = (
        "bindings",
        "boundary",
        "callees",
        "cuda_flags",
        "default_cuda",
        "device_flags",
        "evidence",
        "functions",
        "global_names",
        "guards",
        "instances",
        "kind",
        "maps_locations",
        "names_accelerator",
        "node",
        "owned_devices",
        "params",
        "parent",
        "stars",
        "tensor_uses",
        "type_flags",
    )  # fmt: skip

    def __init__(self, kind: str, node: ScopeNode, parent: Optional[Scope]) -> None:
        self.kind = kind
        self.node = node
        self.parent = parent
        #: name -> the qualified names it may be bound to (UNKNOWN for non-imports)
        self.bindings: dict[str, set[str]] = {}
        self.global_names: set[str] = set()
        #: parameter name -> its annotation (or None)
        self.params: dict[str, Optional[syntax.BaseExpression]] = {}
        #: parameters through which values enter from outside the file (a public
        #: library function no code here calls): name -> what may enter
        self.boundary: dict[str, Boundary] = {}
        #: the module scope's table of evidence tokens (see ``facts.record``)
        self.evidence: dict[str, Any] = {}
        #: the module scope's flags some evidence of its table was made under
        #: (``Evidence.guard``)
        self.guards: set[str] = set()
        #: the module scope's cache: a function, module or class node's id ->
        #: the names it binds to ``torch.cuda.is_available()`` only
        #: (``facts.cuda_available_flag``)
        self.cuda_flags: dict[int, frozenset[str]] = {}
        #: the module scope's cache: a function, module or class node's id ->
        #: the names it binds to a device a flag chooses, with the flag
        #: (``facts.device_flag``)
        self.device_flags: dict[int, dict[str, str]] = {}
        #: the module scope's answer to "does this file, or a module of the
        #: tree it imports, make CUDA the default device of new tensors":
        #: (where, reaches ``torch.Tensor``) or None; until first asked, the
        #: function that answers it (``sites.default_cuda``)
        self.default_cuda: Union[DefaultCuda, Callable[[], DefaultCuda]] = None
        #: the module scope's names of every function defined in the file
        self.functions: set[str] = set()
        #: the module scope's resolver of calls to summarised functions
        self.callees: Any = None
        #: the module scope's text names an accelerator (``roles.mentions_accelerator``)
        self.names_accelerator = False
        #: (a module) library code, where the users of a module defined here
        #: may move it to a CUDA device: its parameters go with it
        self.owned_devices = False
        #: (a module) does its text name ``map_location``: checkpoints that
        #: may hold tensors saved on another device?
        self.maps_locations = False
        #: the module scope's cache: a small statement's id -> the names it
        #: calls a tensor-only method on (``flow.FactsWalker._used_as_tensor``)
        self.tensor_uses: dict[int, tuple[str, ...]] = {}
        #: the module scope's cache: a function or module node's id -> the
        #: names it binds once to a type test (``facts.type_guards``)
        self.type_flags: dict[int, tuple[Mapping[str, Any], frozenset[str]]] = {}
        #: names bound once here, by a call of what may be a class
        #: (``model = VAE(shape)``): name -> the dotted name called (``VAE``,
        #: ``models.VAE``); None once the name is bound again
        self.instances: dict[str, Optional[str]] = {}
        #: the modules a star-import here reads from, in order (``from .utils
        #: import *`` -> ``.utils``): a name bound nowhere may come from one
        self.stars: list[str] = []

    def bind(self, name: str, qualname: str = UNKNOWN) -> None:
        self.bindings.setdefault(name, set()).add(qualname)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def lookup(self, name: str) -> Optional[set[str]]:
        """The bindings of ``name`` in effect here, the way Python looks it up."""
        scope = self.binding_scope(name)
        return scope.bindings[name] if scope is not None else None

    def binding_scope(self, name: str) -> Optional[Scope]:
        """The scope whose binding of ``name`` is in effect here."""
        scope: Optional[Scope] = self
        first = True
        while scope is not None:
            if name in scope.global_names and scope.parent is not None:
                scope, first = scope.module(), False
                continue  # (``global x`` at module level changes nothing)
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            if name in scope.bindings:
                return scope
            scope, first = scope.parent, False
        return None

    def resolve(self, name: str) -> Optional[str]:
        """The qualified name ``name`` is bound to by an import, if certain."""
        values = self.lookup(name)
        if values is None or len(values) != 1:
            return None
        (value,) = values
        return value or None

    def possible(self, name: str) -> frozenset[str]:
        """Every qualified name ``name`` may be bound to (ambiguous ones included)."""
        return frozenset(v for v in self.lookup(name) or () if v)

    def binds_locally(self, name: str) -> bool:
        return name in self.bindings and name not in self.global_names


def dotted_name(node: syntax.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, syntax.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, syntax.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def method_of(scope: Scope) -> Optional[tuple[Scope, Scope]]:
    """(the method, its class) when ``scope`` is a method of a class, or a
    lambda or comprehension inside one; else None."""
    function = scope
    while function.kind not in ("function", "module") and function.parent is not None:
        function = function.parent
    cls = function.parent
    if function.kind != "function" or cls is None or cls.kind != "class":
        return None
    return (function, cls) if isinstance(cls.node, syntax.ClassDef) else None


def is_dataset_class(node: syntax.CSTNode) -> bool:
    """Is ``node`` a class one of whose bases is named like a Dataset
    (``Dataset``, ``NonGeoDataset``, ``Dataset[Sample]``)?"""
    if not isinstance(node, syntax.ClassDef):
        return False
    for base in node.bases:
        value = base.value
        if isinstance(value, syntax.Subscript):  # ``Dataset[Sample]``
            value = value.value
        dotted = dotted_name(value)
        if dotted is not None and dotted.rsplit(".", 1)[-1].endswith("Dataset"):
            return True
    return False


def constructed_class(value: syntax.BaseExpression) -> Optional[str]:
    """``VAE`` (as written) when ``value`` calls a capitalised name, perhaps
    followed by module methods (``VAE(shape).eval().to(device)``): the class
    it makes an instance of, if it is one (the callee's lookup decides)."""
    value = through_module_methods(value)
    called = dotted_name(value.func) if isinstance(value, syntax.Call) else None
    if called is not None and called.rsplit(".", 1)[-1][:1].isupper():
        return called
    return None


def through_module_methods(value: syntax.BaseExpression) -> syntax.BaseExpression:
    """What module methods that return the module itself are called on:
    ``model`` of ``model.to(device).eval()``, ``VAE(s)`` of ``VAE(s).cuda()``
    (``value`` itself when it calls none)."""
    while (
        isinstance(value, syntax.Call)
        and isinstance(value.func, syntax.Attribute)
        and value.func.attr.value in ops.MODULE_IN_PLACE_METHODS
    ):
        value = value.func.value
    return value


def qualified_name(node: syntax.BaseExpression, scope: Scope) -> Optional[str]:
    """The import-qualified name of a name or attribute chain, if certain.

    ``th.from_numpy`` with ``import torch as th`` gives ``torch.from_numpy``;
    a name not bound by an import gives None.
    """
    dotted = dotted_name(node)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    qual = scope.resolve(head)
    if qual is None:
        return None
    return f"{qual}.{rest}" if rest else qual


def target_names(node: syntax.BaseExpression) -> Iterator[str]:
    """Names bound by an assignment target (tuples and starred unpacked)."""
    if isinstance(node, syntax.Name):
        yield node.value
    elif isinstance(node, (syntax.Tuple, syntax.List)):
        for element in node.elements:
            yield from target_names(element.value)
    elif isinstance(node, syntax.StarredElement):
        yield from target_names(node.value)


def bind_arguments(
    call: syntax.Call, positional: Sequence[str], names: AbstractSet[str]
) -> dict[str, syntax.BaseExpression]:
    passed: dict[str, syntax.BaseExpression] = {}
    index = 0
    for arg in call.args:
        if arg.star:
            if arg.star == "*":
                index = len(positional)  # what follows a ``*xs`` is unknown
            continue
        if arg.keyword is not None:
            if arg.keyword.value in names:
                passed[arg.keyword.value] = arg.value
            continue
        if index < len(positional):
            passed[positional[index]] = arg.value
        index += 1
    return passed


def _import_alias_name(alias: syntax.ImportAlias) -> str:
    name = alias.name
    return dotted_name(name) or ""


def _is_import_error_handler(node: syntax.ExceptHandler) -> bool:
    kinds: list[syntax.BaseExpression] = []
    if isinstance(node.type, syntax.Tuple):
        kinds = [e.value for e in node.type.elements]
    elif node.type is not None:
        kinds = [node.type]
    return any(
        isinstance(k, syntax.Name) and k.value in ("ImportError", "ModuleNotFoundError")
        for k in kinds
    )


class ScopeBuilder:
    """Records bindings into scopes; driven by the module index visitor."""

    def __init__(self, star_names: Optional[Callable[[str], Mapping[str, str]]] = None) -> None:
        self.fallback_depth = 0
        #: what a star-import of one of the checked tree's modules binds (the
        #: modules that module imports: ``np`` -> ``numpy``), by the module named
        self.star_names = star_names

    def bind(self, scope: Scope, name: str, qualname: str = UNKNOWN) -> None:
        if self.fallback_depth and name in scope.bindings:
            return
        if name in scope.instances:
            scope.instances[name] = None  # bound again: not known to be that instance
        scope.bind(name, qualname)

    def bind_instance(self, scope: Scope, name: str, value: syntax.BaseExpression) -> None:
        """``model = VAE(shape)``, the first binding of ``name`` here (made
        just now): an instance of what it calls, if that is a class (the
        callee's lookup decides)."""
        value = through_module_methods(value)  # ``VAE(shape).eval().to(device)``
        if (
            isinstance(value, syntax.Call)
            and isinstance(value.func, syntax.Attribute)
            and value.func.attr.value in library_table.ESTIMATOR_SELF_METHODS
            and isinstance(value.func.value, syntax.Call)
            and library_table.names_estimator(qualified_name(value.func.value.func, scope))
        ):
            value = value.func.value  # ``StandardScaler().fit(x)``: the scaler, fitted
        called = constructed_class(value)
        if called is not None:
            scope.instances[name] = called

    def bind_target(self, scope: Scope, target: syntax.BaseExpression) -> None:
        for name in target_names(target):
            self.bind(scope, name)

    def bind_import(self, scope: Scope, node: Union[syntax.Import, syntax.ImportFrom]) -> None:
        if isinstance(node, syntax.Import):
            for alias in node.names:
                full = _import_alias_name(alias)
                if alias.asname is not None and isinstance(alias.asname.name, syntax.Name):
                    self.bind(scope, alias.asname.name.value, full)
                else:
                    top = full.split(".")[0]
                    self.bind(scope, top, top)
            return
        module = dotted_name(node.module) if node.module is not None else ""
        prefix = "." * len(node.relative) + (module or "")
        if isinstance(node.names, syntax.ImportStar):
            if prefix:
                scope.stars.append(prefix)
            if not node.relative:
                # a front end's star-import binds the modules it imported itself
                for name, full in ops.star_exports(prefix).items():
                    self.bind(scope, name, full)
            if prefix and self.star_names is not None:
                # ``from utils import *`` of the tree's own module: the modules
                # it imports come with its names (a name bound here stays)
                for name, full in self.star_names(prefix).items():
                    if name not in scope.bindings:
                        self.bind(scope, name, full)
            return
        for alias in node.names:
            # ``from . import utils`` -> ``.utils``; ``from .utils import f`` -> ``.utils.f``
            sep = "." if module else ""
            full = f"{prefix}{sep}{_import_alias_name(alias)}" if prefix else ""
            if alias.asname is not None and isinstance(alias.asname.name, syntax.Name):
                self.bind(scope, alias.asname.name.value, full)
            else:
                self.bind(scope, _import_alias_name(alias), full)


def _base_names(scope: Scope) -> Optional[list[str]]:
    """The last names of the bases of a method's class (``LightningModule``
    of ``pl.LightningModule``); None for other scopes."""
    parent = scope.parent
    if (
        not isinstance(scope.node, syntax.FunctionDef)
        or parent is None
        or not isinstance(parent.node, syntax.ClassDef)
    ):
        return None
    found = []
    for base in parent.node.bases:
        dotted = dotted_name(base.value) if base.keyword is None else None
        found.append(dotted.rsplit(".", 1)[-1] if dotted is not None else "")
    return found


def framework_bases(scope: Scope) -> frozenset[str]:
    """The framework base classes (``ops.FRAMEWORK_NO_GRAD_METHODS``' keys) a
    method's class derives from by name, directly (``pl.LightningModule``,
    a project's own ``ReAgentLightningModule``): empty for other scopes."""
    bases = _base_names(scope) or []
    return frozenset(s for last in bases for s in ops.FRAMEWORK_NO_GRAD_METHODS if last.endswith(s))


def framework_data(scope: Scope) -> frozenset[str]:
    """The parameters of a method that a framework calls with data, which
    never requires grad (``ops.FRAMEWORK_DATA_PARAMETERS``: ``o`` of a
    fastcore ``Transform``'s ``encodes(self, o)``)."""
    bases = _base_names(scope)
    node = scope.node
    if not bases or not isinstance(node, syntax.FunctionDef):
        return frozenset()
    params = [*node.params.posonly_params, *node.params.params][1:]
    found: set[str] = set()
    for last in bases:
        for suffix, methods in ops.FRAMEWORK_DATA_PARAMETERS.items():
            position = methods.get(node.name.value) if last.endswith(suffix) else None
            if position is not None and position < len(params):
                found.add(params[position].name.value)
    return frozenset(found)


def framework_inputs(scope: Scope) -> tuple[tuple[syntax.Param, str], ...]:
    """``(parameter, kind)`` for each parameter of a method that a framework
    calls with values it prepared: ``batch`` (``training_step(self, batch,
    i)`` of a Lightning module gets a batch moved to the module's device) or
    ``step:<name>`` (its ``validation_epoch_end(self, outputs)`` gets what
    ``validation_step`` returned: ``step:validation_step``)."""
    node = scope.node
    if not isinstance(node, syntax.FunctionDef) or node.asynchronous:
        return ()
    params = [*node.params.posonly_params, *node.params.params][1:]
    name = node.name.value
    found: list[tuple[syntax.Param, str]] = []
    for base in sorted(framework_bases(scope)):
        position = ops.FRAMEWORK_BATCH_PARAMETERS.get(base, {}).get(name)
        if position is not None and position < len(params):
            found.append((params[position], "batch"))
        step = ops.FRAMEWORK_STEP_OUTPUTS.get(base, {}).get(name)
        if step is not None and step[1] < len(params):
            found.append((params[step[1]], f"step:{step[0]}"))
    return tuple(found)


def raises_always(statement: syntax.BaseSmallStatement) -> bool:
    """Is the statement a call that always raises (``pytest.skip(...)``,
    ``sys.exit(...)``: ``ops.ALWAYS_RAISING_CALLS``)?"""
    return (
        isinstance(statement, syntax.Expr)
        and isinstance(statement.value, syntax.Call)
        and dotted_name(statement.value.func) in ops.ALWAYS_RAISING_CALLS
    )
