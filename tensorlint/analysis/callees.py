"""Which function a call runs, and that function's summary.

A call resolves when it names a function of the module (``f(x)``), a method
of the enclosing class through ``self`` (``self.f(x)``), or a function
imported from another module of the checked tree (``from .utils import f``,
``import pkg.utils as u``; ``u.f(x)``). Summaries of other modules come from
a lookup the engine provides (it reads and caches them); the analysis itself
never reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Optional, Protocol

from tensorlint.analysis import syntax
from tensorlint.analysis.classes import ClassLookup
from tensorlint.analysis.facts import self_name, union_members
from tensorlint.analysis.names import (
    Scope,
    constructed_class,
    dotted_name,
    method_of,
    qualified_name,
    through_module_methods,
)
from tensorlint.analysis.names import bind_arguments as names_bind
from tensorlint.analysis.project_calls import Call
from tensorlint.analysis.summaries import FunctionSummary, ModuleSummary, is_abstract
from tensorlint.analysis.walk import own_statements


class Lookup(ClassLookup, Protocol):
    """The checked tree's summaries, as the engine provides them (and its
    classes: ``ClassLookup.lookup_class``)."""

    def external_callers(
        self, name: str, method: Optional[str] = None, *, by_class: bool = False
    ) -> Optional[list[tuple[Call, str]]]:
        """The calls of this file's module function ``name`` in the project's
        other files, each with its place (``train.py:40``); None when they
        cannot be known. ``by_class``: a static or class ``method``, whose
        calls on the class itself count (``Converter.to_array(t)``)."""

    def in_application(self) -> bool:
        """Is the file's project an application: its folder holds no
        ``pyproject.toml``, ``setup.py`` or ``setup.cfg`` (nothing installs
        it, so nothing outside the checked tree imports it)?"""

    def lookup(self, qual: str) -> Optional[tuple[FunctionSummary, str]]:
        """The function a qualified name (``pkg.utils.f``, ``.utils.f``) names,
        and where it is defined (``pkg/utils.py:12``)."""

    def type_alias(self, qual: str) -> list[str]:
        """What an imported name is an alias of (``MappedTriples`` ->
        ``LongTensor``, ``torch.Tensor``); empty when it is not one."""

    def cpu_constant(self, qual: str) -> bool:
        """Does a qualified name (``tests.conftest.DEVICE``) name a constant of
        one of the tree's modules that is the CPU device?"""

    def star_names(self, module: str) -> Mapping[str, str]:
        """What ``from <module> import *`` of one of the tree's modules binds
        to other packages' modules (``np`` -> ``numpy``); empty when the
        module is not the tree's."""

    def default_cuda(self, modules: Sequence[str]) -> Optional[tuple[str, bool]]:
        """Where one of the tree's ``modules`` makes CUDA the default device
        of new tensors when imported (``box_utils.py:6``), and whether
        ``torch.Tensor(...)`` follows; None when none does."""


#: How many classes up ``self.f(...)`` is looked for in the bases.
_DEPTH = 3


class Callee(NamedTuple):
    summary: FunctionSummary
    where: str  #: ``line 12`` in this file, ``pkg/utils.py:12`` in another

    @property
    def name(self) -> str:
        return self.summary.name.rsplit(".", 1)[-1]

    def describe(self) -> str:
        return f"`{self.name}(...)` (defined at {self.where})"


class Callees:
    def __init__(self, own: ModuleSummary, tree: Optional[Lookup] = None) -> None:
        self.own = own
        self.tree = tree
        self._cache: dict[int, Optional[Callee]] = {}
        self._attributes: dict[int, dict[str, frozenset[str]]] = {}
        self._cpu_constants: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self.own.functions) or self.tree is not None

    def of(self, call: syntax.Call, scope: Scope) -> Optional[Callee]:
        return self.named(call.func, scope)

    def named(self, func: syntax.BaseExpression, scope: Scope) -> Optional[Callee]:
        """The function an expression names (a callee, or a decorator used
        bare: ``@f``)."""
        key = id(func)
        if key not in self._cache:
            self._cache[key] = self._resolve(func, scope)
        return self._cache[key]

    def _resolve(self, func: syntax.BaseExpression, scope: Scope) -> Optional[Callee]:
        if isinstance(func, syntax.Name):
            name = func.value
            owner = scope.binding_scope(name)
            if owner is None:
                return self._starred(name, scope.module())
            if owner.kind == "module":
                qual = owner.resolve(name)
                if qual is None:
                    return self._own(name)
                return self._imported(qual)
            return None
        if isinstance(func, syntax.Attribute) and isinstance(func.value, syntax.Name):
            method = self._method(func, scope)
            if method is not None:
                return method
            qual = qualified_name(func, scope)
            if qual is not None:
                return self._imported(qual)
            return self._instance_method(func, scope) or self._attribute_call(func, scope)
        if isinstance(func, syntax.Attribute) and isinstance(func.value, syntax.Attribute):
            return self._attribute_method(func, scope)
        return None

    def _attribute_call(self, func: syntax.Attribute, scope: Scope) -> Optional[Callee]:
        """``self.potential(graph)``, where ``self.potential`` is an instance of
        one class of the checked tree (``_attribute_method``) that defines
        ``forward`` and no ``__call__`` of its own: a module, whose call runs
        ``forward``. (A plain callable's ``__call__`` is left to the call's
        own facts: its summary would carry a shape argument's guess.)"""
        if self._attribute_method(func, scope, "__call__") is not None:
            return None
        return self._attribute_method(func, scope, "forward")

    def _attribute_method(
        self, func: syntax.Attribute, scope: Scope, called: Optional[str] = None
    ) -> Optional[Callee]:
        """``self.head.predict_proba(x)`` in a method, where every assignment
        of ``self.head`` in the class makes an instance of one class
        (``self.head = Head(n)``) or stores a parameter annotated with classes
        (``head: Optional[Union[Head, LogisticRegression]]``): that class's
        method, when exactly one of the classes has it in the checked tree.
        With ``called``, ``func`` is the attribute itself (``self.head``) and
        ``called`` the method its call runs."""
        holder = func.value if called is None else func
        method = func.attr.value if called is None else called
        if not isinstance(holder, syntax.Attribute) or not isinstance(holder.value, syntax.Name):
            return None
        method_scope = method_of(scope)
        if method_scope is None or self_name(method_scope[0]) != holder.value.value:
            return None
        cls = method_scope[1]
        assert isinstance(cls.node, syntax.ClassDef)
        classes = self._attribute_classes(cls.node).get(holder.attr.value)
        if not classes:
            return None
        module = scope.module()
        found = [
            callee
            for name in sorted(classes)
            for callee in [self._method_of(name, method, module)]
            if callee is not None
        ]
        return found[0] if len(found) == 1 else None

    def _method_of(self, called: str, method: str, module: Scope) -> Optional[Callee]:
        """``called.method``, ``called`` a class named as this module names it
        (a class of this module, or one it imports)."""
        head, _, rest = called.partition(".")
        if not rest and module.binding_scope(head) is module and module.resolve(head) is None:
            return self._own(f"{head}.{method}") or self._inherited(head, method)
        if module.binding_scope(head) is None:
            # a class bound nowhere in the file, from a module it star-imports
            # (``from agents import *``)
            for cls in _star_candidates(called, module):
                found = self._imported(f"{cls}.{method}") or self._inherited_there(cls, method)
                if found is not None:
                    return found
            return None
        qual = module.resolve(head)
        if qual is None:
            return None
        cls = f"{qual}.{rest}" if rest else qual
        return self._imported(f"{cls}.{method}") or self._inherited_there(cls, method)

    def _attribute_classes(self, node: syntax.ClassDef) -> dict[str, frozenset[str]]:
        key = id(node)
        found = self._attributes.get(key)
        if found is None:
            found = self._attributes[key] = attribute_classes(node)
        return found

    def _instance_method(self, func: syntax.Attribute, scope: Scope) -> Optional[Callee]:
        """``model.generate(n)`` where ``model = VAE(shape)`` was the name's one
        binding: ``VAE.generate``, of this module or of the one ``VAE`` is
        imported from, or of a base of ``VAE`` (``_inherited``)."""
        assert isinstance(func.value, syntax.Name)
        owner = scope.binding_scope(func.value.value)
        called = owner.instances.get(func.value.value) if owner is not None else None
        if called is None:
            return None
        return self._method_of(called, func.attr.value, scope.module())

    def _own(self, name: str) -> Optional[Callee]:
        summary = self.own.functions.get(name)
        return Callee(summary, f"line {summary.line}") if summary is not None else None

    def _starred(self, name: str, module: Scope) -> Optional[Callee]:
        """A name bound nowhere in the file, read from the modules it
        star-imports (``from utils import *``), the last one first."""
        for qual in _star_candidates(name, module):
            found = self._imported(qual)
            if found is not None:
                return found
        return None

    def _imported(self, qual: str) -> Optional[Callee]:
        if self.tree is None or qual.startswith(("torch.", "numpy.")) or "." not in qual:
            return None
        found = self.tree.lookup(qual)
        return Callee(*found) if found is not None else None

    def type_alias(self, annotation: syntax.BaseExpression, scope: Scope) -> list[str]:
        """What an annotation name is an alias of, in this module or the one it
        is imported from (``MappedTriples: TypeAlias = LongTensor``)."""
        if isinstance(annotation, syntax.Name) and annotation.value in self.own.aliases:
            return self.own.alias_chain(annotation.value)
        qual = qualified_name(annotation, scope)
        if qual is None or self.tree is None or qual.startswith(("torch.", "numpy.")):
            return []
        return self.tree.type_alias(qual)

    def cpu_constant(self, node: syntax.BaseExpression, scope: Scope) -> bool:
        """Is ``node`` an imported constant of the checked tree that is the
        CPU device (``from tests.conftest import DEVICE``, ``config.DEVICE``)?"""
        if not isinstance(node, (syntax.Name, syntax.Attribute)) or self.tree is None:
            return False
        qual = qualified_name(node, scope)
        if qual is None or "." not in qual or qual.startswith(("torch.", "numpy.")):
            return False
        found = self._cpu_constants.get(qual)
        if found is None:
            found = self._cpu_constants[qual] = self.tree.cpu_constant(qual)
        return found

    def _method(self, func: syntax.Attribute, scope: Scope) -> Optional[Callee]:
        """``self.f(...)`` in a method of a top-level class."""
        method_scope = method_of(scope)
        if method_scope is None:
            return None
        function, cls = method_scope
        me = self_name(function)
        assert isinstance(func.value, syntax.Name) and isinstance(cls.node, syntax.ClassDef)
        if me is None or func.value.value != me:
            return None
        name, method = cls.node.name.value, func.attr.value
        return (
            self._own(f"{name}.{method}")
            or self._inherited(name, method)
            or self._overridden(name, method)
        )

    def _overridden(self, cls: str, method: str) -> Optional[Callee]:
        """``self.f(...)`` in a base whose own ``f`` is abstract (it raises
        ``NotImplementedError``, or does nothing) and which one class of this
        module derives from and overrides ``f`` in: that override is what runs."""
        nodes = getattr(self.own.functions, "nodes", None)
        if nodes is None:
            return None
        entry = nodes.get(f"{cls}.{method}")
        if entry is None or not is_abstract(entry[0]):
            return None
        overrides = [
            name
            for name, summary in self.own.classes.items()
            if cls in summary.bases and f"{name}.{method}" in nodes
        ]
        return self._own(f"{overrides[0]}.{method}") if len(overrides) == 1 else None

    def _inherited(self, cls: str, method: str) -> Optional[Callee]:
        """``self.f(...)`` where a base of ``cls`` (a class of this module)
        defines ``f``: bases of this module, and imported ones with the bases
        their own module defines, ``_DEPTH`` classes up, nearest first."""
        own = self.own.classes.get(cls)
        return self._in_bases(list(own.bases) if own is not None else [], method, cls)

    def _inherited_there(self, cls: str, method: str) -> Optional[Callee]:
        """The same for ``cls``, a class imported from another module."""
        return self._in_bases(self._bases_there(cls), method, cls)

    def _in_bases(self, frontier: list[str], method: str, cls: str) -> Optional[Callee]:
        seen = {cls}
        for _ in range(_DEPTH):
            following: list[str] = []
            for base in frontier:
                if base in seen:
                    continue
                seen.add(base)
                if "." not in base:  # a class of this module
                    found = self._own(f"{base}.{method}")
                    local = self.own.classes.get(base)
                    following += local.bases if local is not None else ()
                else:
                    found = self._imported(f"{base}.{method}")
                    following += self._bases_there(base)
                if found is not None:
                    return found
            frontier = following
        return None

    def _bases_there(self, qual: str) -> list[str]:
        """The bases of the imported class ``qual`` that its own module
        defines, named from here (``pkg.base.Base`` for ``Base``)."""
        if self.tree is None or qual.startswith(("torch.", "numpy.")):
            return []
        found = self.tree.lookup_class(qual)
        if found is None:
            return []
        module = qual.rpartition(".")[0]
        return [f"{module}.{b}" for b in found[0].bases if "." not in b]


def _star_candidates(name: str, module: Scope) -> list[str]:
    """What a name the file binds nowhere may be, read from the modules it
    star-imports (``from utils import *`` -> ``utils.name``), the last first."""
    return [
        star + name if star.endswith(".") else f"{star}.{name}" for star in reversed(module.stars)
    ]


def attribute_classes(node: syntax.ClassDef) -> dict[str, frozenset[str]]:
    """The classes each ``self.<name>`` of a class may be an instance of, by
    its assignments in the class's methods: ``self.x = Cls(...)`` (a
    capitalised callee, perhaps followed by module methods: ``.eval()``,
    ``.to(d)``), or ``self.x = p`` for a parameter ``p`` annotated with
    classes (``Optional[Union[A, B]]``, ``A | None``). ``None`` assigned, or
    the attribute itself moved (``self.x = self.x.to(d)``), says nothing; any
    other assignment leaves the attribute out."""
    found: dict[str, set[str]] = {}
    unknown: set[str] = set()
    body = node.body.body if isinstance(node.body, syntax.IndentedBlock) else ()
    for item in body:
        if not isinstance(item, syntax.FunctionDef):
            continue
        params = [*item.params.posonly_params, *item.params.params]
        if not params:
            continue
        me = params[0].name.value
        annotated = {
            p.name.value: p.annotation.annotation
            for p in (*params[1:], *item.params.kwonly_params)
            if p.annotation is not None
        }
        for target, value in _self_assignments(item):
            if not (
                isinstance(target, syntax.Attribute)
                and isinstance(target.value, syntax.Name)
                and target.value.value == me
            ):
                continue
            name = target.attr.value
            if isinstance(value, syntax.Name) and value.value == "None":
                continue
            kept = through_module_methods(value)  # ``self.x = self.x.to(device)``
            if dotted_name(kept) == f"{me}.{name}":
                continue
            classes = _classes_of(value, annotated)
            if classes is None:
                unknown.add(name)
            else:
                found.setdefault(name, set()).update(classes)
    return {name: frozenset(c) for name, c in found.items() if name not in unknown and c}


def _self_assignments(
    function: syntax.FunctionDef,
) -> list[tuple[syntax.BaseExpression, syntax.BaseExpression]]:
    """``target = value`` pairs of the function's own statements (not nested ones)."""
    pairs: list[tuple[syntax.BaseExpression, syntax.BaseExpression]] = []
    for statement in own_statements(function):
        if isinstance(statement, syntax.Assign):
            pairs += [(t.target, statement.value) for t in statement.targets]
        elif isinstance(statement, syntax.AnnAssign) and statement.value is not None:
            pairs.append((statement.target, statement.value))
    return pairs


def _classes_of(
    value: syntax.BaseExpression, annotated: Mapping[str, syntax.BaseExpression]
) -> Optional[set[str]]:
    if isinstance(value, syntax.Name) and value.value in annotated:
        names = set()
        for member in _members(annotated[value.value]):
            dotted = dotted_name(member)
            if dotted is None or not dotted.rsplit(".", 1)[-1][:1].isupper():
                return None
            names.add(dotted)
        return names
    called = constructed_class(value)
    return {called} if called is not None else None


def _members(annotation: syntax.BaseExpression) -> list[syntax.BaseExpression]:
    """The classes an annotation names: a union's members, ``None`` left out."""
    members = union_members(annotation) or [annotation]
    return [m for m in members if not (isinstance(m, syntax.Name) and m.value == "None")]


def bind_arguments(call: syntax.Call, summary: FunctionSummary) -> dict[str, syntax.BaseExpression]:
    """Which argument expression each of the callee's parameters receives."""
    return names_bind(call, summary.params, summary.names)
