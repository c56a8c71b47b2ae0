"""Callers in other files: how a module of the checked tree calls a function
that another module defines.

A public function of library code is entered "from callers outside this
file". When the checked tree holds those callers (a training script, the
package's other modules), what they pass decides, not a guess. This module
reads one calling module (CPython's ``ast``; nothing is imported or run) and
says, for each call of the function (resolved through the module's imports,
wherever they are: ``from pkg.io import f``, ``from . import io`` then
``io.f(...)``, ``import pkg.io as io``):

- whether it is made with grad disabled (a ``with torch.no_grad():`` around
  it, the calling function decorated so; a call in a lambda or a nested
  ``def`` counts as grad on: it runs later);
- whether it passes a value the caller moved to a device (``x.cuda()``,
  ``x.to(device)``, a name bound from one, or from a module moved in place
  by ``model.to(device)``): device evidence;
- whether it passes a module's output computed with grad enabled
  (``model(x)``, or a name bound from one, not detached): grad evidence;
- whether it passes on what the calling function's own callers give it (a
  public function of library code passing its parameters): the guess stands,
  one level up;
- mentions of the function that are not calls (``map(f, xs)``, a registry
  ``{"f": f}``): it is called from places no one can see.

Which module an import names is the engine's question (``refers``); which
names are bound from what is flow-insensitive, as in ``classes``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple, Optional, Union

from tensorlint.analysis import ops
from tensorlint.analysis.classes import (
    assigned_names,
    bindings,
    dotted_name_of,
    from_parameters,
    grad_mode,
    mentions,
    moves,
    spread,
)

_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]
#: a function, or a module's own code
_Scope = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Module]

#: Methods whose result is on the CPU (the value passed is no device evidence).
_ON_CPU = frozenset({"cpu", "numpy", "item", "tolist"})
#: Methods whose result does not require grad.
_NO_GRAD = frozenset({"detach", "detach_", "numpy", "item", "tolist"})


class Call(NamedTuple):
    """One call (or other mention) of the function in a calling module."""

    line: int
    caller: str  #: ``train()``, ``Trainer.fit()``, or ``<module>``
    no_grad: bool  #: made with grad disabled
    moved: bool  #: passes a value moved to a device
    grad_output: bool  #: passes a module's output computed with grad enabled
    passes_parameters: bool  #: passes on its own callers' values
    value: bool = False  #: not a call: the function is passed on as a value
    #: made in a test, which passes what it needs: evidence, never a proof
    test: bool = False


def module_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name for every import of the module, those
    inside functions included (``from .io import f`` -> ``.io.f``; the first
    binding of a name wins)."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found.setdefault(alias.asname, alias.name)
                else:
                    top = alias.name.split(".")[0]
                    found.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            sep = "" if prefix.endswith(".") or not prefix else "."
            for alias in node.names:
                if alias.name != "*":
                    found.setdefault(alias.asname or alias.name, f"{prefix}{sep}{alias.name}")
    return found


def calls_of(
    tree: ast.Module,
    name: str,
    refers: Callable[[str], bool],
    library: bool,
    method: Optional[str] = None,
    local: bool = False,
) -> list[Call]:
    """The calls and other mentions of the function ``name`` in ``tree``;
    ``refers(qual)`` says whether an imported qualified name (``.io.f``,
    ``pkg.io.f``) is that function. ``library``: the calling module is
    library code, whose public functions are entered from outside.

    With ``method``, ``name`` is a class and the calls are those of that
    method on its instances the module makes: ``obj = Cls(...)`` then
    ``obj.method(...)`` in the same function, ``self.obj = Cls(...)`` then
    ``self.obj.method(...)`` in the same class, ``Cls(...).method(...)``; for
    ``forward``, calling the instance (``obj(x)``) too. ``local``: the
    module defines ``name`` itself (a bare ``name`` that it does not import
    is that class)."""
    imports = module_imports(tree)
    wanted = {
        local
        for local, qual in imports.items()
        if qual == name or qual.endswith("." + name) or _may_hold(qual)
    }
    if not wanted and not local:
        return []
    known: dict[str, bool] = {}

    def resolves(node: ast.expr) -> bool:
        dotted = dotted_name_of(node)
        if dotted is None or dotted.rsplit(".", 1)[-1] != name:
            return False
        if local and dotted == name and name not in imports:
            return True
        head, _, rest = dotted.partition(".")
        if head not in wanted:
            return False
        qual = imports[head] + (f".{rest}" if rest else "")
        if qual not in known:
            known[qual] = refers(qual)
        return known[qual]

    found: list[Call] = []
    context = _Context(imports, library, tree)
    instances = _Instances(tree, resolves) if method is not None else None
    for node, function, owner, no_grad in _parts(tree.body, None, None, False, imports):
        if instances is not None and method is not None:
            is_instance = instances.test(function, owner)
            mentions_found = _method_mentions(node, is_instance, method)
        else:
            mentions_found = _mentions_in(node, resolves)
        for call, value in mentions_found:
            found.append(context.describe(call, value, function, owner, no_grad))
    return found


class _Instances:
    """Which expressions hold an instance of the class: names bound to
    ``Cls(...)`` in a function (or at module level), ``self.<attr>`` bound so
    in any method of a class, and ``Cls(...)`` itself."""

    def __init__(self, tree: ast.Module, resolves: Callable[[ast.expr], bool]) -> None:
        self.tree = tree
        self.resolves = resolves
        self._names: dict[int, set[str]] = {}
        self._attributes: dict[str, set[str]] = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                attributes = self._attributes.setdefault(node.name, set())
                for target, value in bindings(node):
                    if (
                        self._makes(value)
                        and isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        attributes.add(target.attr)

    def _makes(self, value: ast.expr) -> bool:
        return isinstance(value, ast.Call) and self.resolves(value.func)

    def names(self, function: Optional[_Function]) -> set[str]:
        scope: ast.AST = function if function is not None else self.tree
        found = self._names.get(id(scope))
        if found is None:
            found = set()
            pairs = (
                bindings(scope)
                if function is not None
                else [
                    (target, statement.value)
                    for statement in self.tree.body
                    if isinstance(statement, ast.Assign)
                    for target in statement.targets
                ]
            )
            for target, value in pairs:
                if self._makes(value) and isinstance(target, ast.Name):
                    found.add(target.id)
            self._names[id(scope)] = found
        return found

    def test(
        self, function: Optional[_Function], owner: Optional[str]
    ) -> Callable[[ast.expr], bool]:
        names = self.names(function)
        attributes = self._attributes.get(owner or "", set())

        def is_instance(node: ast.expr) -> bool:
            if isinstance(node, ast.Name):
                return node.id in names
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                return node.value.id == "self" and node.attr in attributes
            return self._makes(node)

        return is_instance


def _method_mentions(
    node: ast.AST, is_instance: Callable[[ast.expr], bool], method: str
) -> Iterator[tuple[ast.expr, bool]]:
    """Calls of ``method`` on an instance in an expression (``False``), and
    mentions of the bound method that are not calls (``True``)."""
    callees: set[int] = set()
    lambdas: list[ast.Lambda] = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Lambda):
            lambdas.append(inner)
        elif isinstance(inner, ast.Call):
            callees.add(id(inner.func))
    deferred = {id(n) for lam in lambdas for n in ast.walk(lam.body)}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            on_instance = (
                isinstance(func, ast.Attribute) and func.attr == method and is_instance(func.value)
            )
            called = method == "forward" and not isinstance(func, ast.Call) and is_instance(func)
            if on_instance or called:
                yield inner, id(inner) in deferred
        elif (
            isinstance(inner, ast.Attribute)
            and inner.attr == method
            and isinstance(inner.ctx, ast.Load)
            and id(inner) not in callees
            and is_instance(inner.value)
        ):
            yield inner, True


def _may_hold(qual: str) -> bool:
    """Could an imported name be a module the function is reached through
    (``import pkg.io as io``, ``from pkg import io``)? Anything but a name
    of torch or numpy."""
    return not qual.startswith(("torch", "numpy"))


class _Context:
    """What the calling functions bind, worked out once per function."""

    def __init__(self, imports: Mapping[str, str], library: bool, tree: ast.Module) -> None:
        self.imports = imports
        self.library = library
        #: the module's own code, its functions and classes left out
        self.top = ast.Module(
            body=[
                statement
                for statement in tree.body
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ],
            type_ignores=[],
        )
        self._moved: dict[int, set[str]] = {}
        self._grad: dict[int, set[str]] = {}
        self._params: dict[int, set[str]] = {}

    def describe(
        self,
        node: ast.expr,
        value: bool,
        function: Optional[_Function],
        owner: Optional[str],
        no_grad: bool,
    ) -> Call:
        caller = (
            "<module>"
            if function is None
            else (f"{owner}.{function.name}()" if owner else f"{function.name}()")
        )
        if value or not isinstance(node, ast.Call):
            return Call(node.lineno, caller, False, False, False, True, True)
        passed = [*node.args, *(k.value for k in node.keywords)]
        scope: _Scope = function if function is not None else self.top
        moved_names = self._moved_in(scope)
        grad_names = self._grad_in(scope)
        params = self._params_of(function, owner) if function is not None else set()
        moved = any(
            not _ends_with(arg, _ON_CPU) and (moves(arg) or mentions(arg, moved_names))
            for arg in passed
        )
        grad_output = not no_grad and any(
            not _ends_with(arg, _NO_GRAD) and (_forward_pass(arg) or mentions(arg, grad_names))
            for arg in passed
        )
        outside = any(mentions(arg, params) for arg in passed)
        return Call(node.lineno, caller, no_grad, moved, grad_output, outside)

    def _moved_in(self, function: _Scope) -> set[str]:
        """The names bound to values moved to a device, and to what is
        computed from them (a module moved in place computes on the device)."""
        found = self._moved.get(id(function))
        if found is None:
            seeds: set[str] = set()
            pairs = bindings(function)
            for target, value in pairs:
                if moves(value) and not _ends_with(value, _ON_CPU):
                    seeds.update(assigned_names(target))
            for statement in ast.walk(function):
                # ``model.to(device)`` / ``model.cuda()`` as a statement moves a module
                if isinstance(statement, ast.Expr) and moves(statement.value):
                    call = statement.value
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                        moved = dotted_name_of(call.func.value)
                        if moved is not None and "." not in moved:
                            seeds.add(moved)
            found = self._moved[id(function)] = spread(
                pairs, seeds, lambda v: not _ends_with(v, _ON_CPU)
            )
        return found

    def _grad_in(self, function: _Scope) -> set[str]:
        """The names bound to a module's output computed with grad enabled,
        and to what is computed from them, not detached."""
        found = self._grad.get(id(function))
        if found is None:
            seeds: set[str] = set()
            for target, value, no_grad in _bindings_with_mode(function, self.imports):
                if not no_grad and _forward_pass(value) and not _ends_with(value, _NO_GRAD):
                    seeds.update(assigned_names(target))
            found = self._grad[id(function)] = spread(
                bindings(function), seeds, lambda v: not _ends_with(v, _NO_GRAD)
            )
        return found

    def _params_of(self, function: _Function, owner: Optional[str]) -> set[str]:
        """The names holding what the function's own callers pass, when those
        callers are outside the module (a public function of library code)."""
        if not self.library or function.name.startswith("_") or function.name == "main":
            return set()
        found = self._params.get(id(function))
        if found is None:
            args = [*function.args.posonlyargs, *function.args.args]
            me = args[0].arg if owner is not None and args else ""
            found = self._params[id(function)] = from_parameters(function, me)
        return found


def _parts(
    body: list[ast.stmt],
    function: Optional[_Function],
    owner: Optional[str],
    no_grad: bool,
    imports: Mapping[str, str],
) -> Iterator[tuple[ast.AST, Optional[_Function], Optional[str], bool]]:
    """The expressions of ``body`` that are not nested blocks, each with the
    function it runs in, that function's class, and whether grad is off."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in statement.decorator_list:
                yield decorator, function, owner, no_grad
            mode = False  # a nested function runs when called, in a mode not known here
            if isinstance(statement, ast.FunctionDef):
                for decorator in statement.decorator_list:
                    verdict = grad_mode(decorator, imports)
                    if verdict is not None:
                        mode = verdict
            inner_owner = owner if function is None else None
            yield from _parts(statement.body, statement, inner_owner, mode, imports)
            continue
        if isinstance(statement, ast.ClassDef):
            yield from _parts(statement.body, None, statement.name, False, imports)
            continue
        inside = no_grad
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                verdict = grad_mode(item.context_expr, imports)
                if verdict is not None:
                    inside = verdict
        for field in ("body", "orelse", "finalbody"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                yield from _parts(block, function, owner, inside, imports)
        for handler in getattr(statement, "handlers", ()):
            yield from _parts(handler.body, function, owner, inside, imports)
        for case in getattr(statement, "cases", ()):
            yield from _parts(case.body, function, owner, inside, imports)
        for name, value in ast.iter_fields(statement):
            if name in ("body", "orelse", "handlers", "finalbody", "cases"):
                continue
            values = value if isinstance(value, list) else [value]
            for part in values:
                if isinstance(part, ast.AST):
                    yield part, function, owner, no_grad


def _mentions_in(
    node: ast.AST, resolves: Callable[[ast.expr], bool]
) -> Iterator[tuple[ast.expr, bool]]:
    """Calls of the function in an expression (``False``), and mentions that
    are not calls (``True``). A call inside a lambda runs later: a mention."""
    callees: set[int] = set()
    lambdas: list[ast.Lambda] = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Lambda):
            lambdas.append(inner)
        elif isinstance(inner, ast.Call):
            callees.add(id(inner.func))
    deferred = {id(n) for lam in lambdas for n in ast.walk(lam.body)}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and resolves(inner.func):
            yield inner, id(inner) in deferred
        elif (
            isinstance(inner, (ast.Name, ast.Attribute))
            and isinstance(inner.ctx, ast.Load)
            and id(inner) not in callees
            and resolves(inner)
        ):
            yield inner, True


def _bindings_with_mode(
    function: _Scope, imports: Mapping[str, str]
) -> Iterator[tuple[ast.expr, ast.expr, bool]]:
    """The function's assignments, each with whether grad is off where it runs."""
    mode = False
    if isinstance(function, ast.FunctionDef):
        for decorator in function.decorator_list:
            verdict = grad_mode(decorator, imports)
            if verdict is not None:
                mode = verdict
    yield from _assignments(function.body, mode, imports)


def _assignments(
    body: list[ast.stmt], no_grad: bool, imports: Mapping[str, str]
) -> Iterator[tuple[ast.expr, ast.expr, bool]]:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inside = no_grad
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                verdict = grad_mode(item.context_expr, imports)
                if verdict is not None:
                    inside = verdict
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                yield target, statement.value, no_grad
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
            yield statement.target, statement.value, no_grad
        for field in ("body", "orelse", "finalbody"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                yield from _assignments(block, inside, imports)
        for handler in getattr(statement, "handlers", ()):
            yield from _assignments(handler.body, inside, imports)


def _forward_pass(node: ast.expr) -> bool:
    """Does the expression hold a module's forward pass (``model(x)``,
    ``self.encoder(h)``) whose result it does not detach?"""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            dotted = dotted_name_of(inner.func)
            if dotted is not None and ops.names_a_forward_pass(dotted.rsplit(".", 1)[-1]):
                return True
    return False


def _ends_with(node: ast.expr, methods: frozenset[str]) -> bool:
    """Does the expression end in a call of one of ``methods``, or pass
    through one on its outer chain (``x.detach().cpu()`` for ``detach``)?"""
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods
        ):
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


#: The clause for a call that passes on its own callers' values.
PASSES_ON = "which passes on what its own callers give it, who may pass {what}"


class External(NamedTuple):
    """What the calls of a function in the project's other files say, met
    over all of them."""

    #: every mention is a call made with grad disabled
    no_grad: bool
    #: the clause naming the first call that gives device evidence (None: none does)
    device: Optional[str]
    grad: Optional[str]  #: the same for grad evidence
    #: the clause naming the first call that passes a value moved to a device
    #: (evidence, not a guess; None: none does)
    moved: Optional[str] = None
    #: the same for a module's output computed with grad enabled
    grad_output: Optional[str] = None

    @classmethod
    def of(cls, name: str, calls: Sequence[tuple[Call, str]]) -> External:
        """Meet ``calls``, each with its place (``train.py:40``)."""
        device: Optional[str] = None
        grad: Optional[str] = None
        moved: Optional[str] = None
        grad_output: Optional[str] = None
        for call, place in calls:
            where = (
                f"the module's code at {place}"
                if call.caller == "<module>"
                else f"`{call.caller}` at {place}"
            )
            if call.value:
                both = (
                    f"{place}, where `{name}` is passed on as a value to callers no one "
                    "here sees, who may pass {what}"
                )
                device = both if device is None else device
                grad = both if grad is None else grad
                continue
            if call.passes_parameters:
                device = f"{where}, {PASSES_ON}" if device is None else device
                grad = f"{where}, {PASSES_ON}" if grad is None else grad
            if call.moved and moved is None:
                moved = f"{where}, which passes a value moved to a device that may be CUDA"
            if call.grad_output and grad_output is None:
                grad_output = f"{where}, which passes a module's output computed with grad enabled"
        no_grad = all(call.no_grad and not call.value for call, _ in calls)
        return cls(no_grad, device or moved, grad or grad_output, moved, grad_output)
