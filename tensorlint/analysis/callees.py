"""Which function a call runs, and that function's summary.

A call resolves when it names a function of the module (``f(x)``), a method
of the enclosing class through ``self`` (``self.f(x)``), or a function
imported from another module of the checked tree (``from .utils import f``,
``import pkg.utils as u``; ``u.f(x)``). Summaries of other modules come from
a lookup the engine provides (it reads and caches them); the analysis itself
never reads a file.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Protocol

from tensorlint.analysis import syntax
from tensorlint.analysis.classes import ClassLookup
from tensorlint.analysis.facts import self_name
from tensorlint.analysis.names import Scope, qualified_name
from tensorlint.analysis.names import bind_arguments as names_bind
from tensorlint.analysis.project_calls import Call
from tensorlint.analysis.summaries import FunctionSummary, ModuleSummary


class Lookup(ClassLookup, Protocol):
    """The checked tree's summaries, as the engine provides them (and its
    classes: ``ClassLookup.lookup_class``)."""

    def external_callers(
        self, name: str, method: Optional[str] = None
    ) -> Optional[list[tuple[Call, str]]]:
        """The calls of this file's module function ``name`` in the project's
        other files, each with its place (``train.py:40``); None when they
        cannot be known."""

    def lookup(self, qual: str) -> Optional[tuple[FunctionSummary, str]]:
        """The function a qualified name (``pkg.utils.f``, ``.utils.f``) names,
        and where it is defined (``pkg/utils.py:12``)."""

    def type_alias(self, qual: str) -> list[str]:
        """What an imported name is an alias of (``MappedTriples`` ->
        ``LongTensor``, ``torch.Tensor``); empty when it is not one."""


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

    def __bool__(self) -> bool:
        return bool(self.own.functions) or self.tree is not None

    def of(self, call: syntax.Call, scope: Scope) -> Optional[Callee]:
        key = id(call)
        if key not in self._cache:
            self._cache[key] = self._resolve(call.func, scope)
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
            return self._instance_method(func, scope)
        return None

    def _instance_method(self, func: syntax.Attribute, scope: Scope) -> Optional[Callee]:
        """``model.generate(n)`` where ``model = VAE(shape)`` was the name's one
        binding: ``VAE.generate``, of this module or of the one ``VAE`` is
        imported from (not a method ``VAE`` inherits)."""
        assert isinstance(func.value, syntax.Name)
        owner = scope.binding_scope(func.value.value)
        called = owner.instances.get(func.value.value) if owner is not None else None
        if called is None:
            return None
        method = func.attr.value
        head, _, rest = called.partition(".")
        module = scope.module()
        if not rest and module.binding_scope(head) is module and module.resolve(head) is None:
            return self._own(f"{head}.{method}")  # a class of this module
        qual = module.resolve(head)
        if qual is None:
            return None
        return self._imported(f"{qual}.{rest}.{method}" if rest else f"{qual}.{method}")

    def _own(self, name: str) -> Optional[Callee]:
        summary = self.own.functions.get(name)
        return Callee(summary, f"line {summary.line}") if summary is not None else None

    def _starred(self, name: str, module: Scope) -> Optional[Callee]:
        """A name bound nowhere in the file, read from the modules it
        star-imports (``from utils import *``), the last one first."""
        for star in reversed(module.stars):
            found = self._imported(star + name if star.endswith(".") else f"{star}.{name}")
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

    def _method(self, func: syntax.Attribute, scope: Scope) -> Optional[Callee]:
        """``self.f(...)`` in a method of a top-level class."""
        function = scope
        while function.kind not in ("function", "module") and function.parent is not None:
            function = function.parent
        if function.kind != "function":
            return None
        me = self_name(function)
        assert isinstance(func.value, syntax.Name)
        if me is None or func.value.value != me:
            return None
        cls = function.parent
        if cls is None or cls.kind != "class" or not isinstance(cls.node, syntax.ClassDef):
            return None
        return self._own(f"{cls.node.name.value}.{func.attr.value}")


def bind_arguments(call: syntax.Call, summary: FunctionSummary) -> dict[str, syntax.BaseExpression]:
    """Which argument expression each of the callee's parameters receives."""
    return names_bind(call, summary.params, summary.names)
