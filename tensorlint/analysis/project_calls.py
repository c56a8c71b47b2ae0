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
import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, NamedTuple, Optional, Union

from tensorlint.analysis import library_table, ops
from tensorlint.analysis.classes import (
    assigned_names,
    blocks,
    decorated_mode,
    dotted_name_of,
    literal,
    mode_inside,
    moves,
    names_the_cpu_device,
)

if TYPE_CHECKING:
    from tensorlint.analysis.summaries import FunctionSummary

_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]
#: What a function of the project returns, by its qualified name as the
#: calling module imports it (``pkg.io.f``, ``.io.f``) or, with ``True``, by
#: the name of a module-level function of the calling module itself
Returns = Callable[[str, bool], Optional["FunctionSummary"]]
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
    #: passes on its own callers' values (not moved to the CPU)
    passes_parameters: bool
    value: bool = False  #: not a call: the function is passed on as a value
    #: made in a test, which passes what it needs: evidence, never a proof
    test: bool = False
    #: passes on its own callers' values, not detached (None: as ``passes_parameters``)
    passes_parameters_with_grad: Optional[bool] = None
    #: the arguments that carry the moved value (``"0"``: the first positional,
    #: ``"scores"``: a keyword; None: not known, ``*args`` or ``**kwargs``)
    moved_keys: Optional[frozenset[str]] = None
    #: the same for a module's output computed with grad enabled
    grad_keys: Optional[frozenset[str]] = None
    #: what it passes with grad is a module's parameter, read directly
    #: (``self.embs[lang].weight``), not a forward pass's output
    grad_parameter: bool = False
    #: the calling function (``train``) and its class (``Trainer``; empty for
    #: a module-level function), and its parameters as its own callers bind
    #: them (``self`` left out): where to look for what they pass
    caller_name: str = ""
    caller_owner: str = ""
    caller_params: tuple[str, ...] = ()
    #: per argument that reads the calling function's parameters: its key,
    #: the parameters whose device it may keep (not moved to the host since),
    #: and those whose grad it may keep (not detached since)
    param_reads: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()
    #: where the moved value (or module output) it passes on was made, when
    #: that is one of the calling function's own callers in another file
    #: (``"`main()` at run.py:70"``); empty when the call itself makes it
    moved_from: str = ""
    grad_from: str = ""


def module_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name for every import of the module, those
    inside functions included (``from .io import f`` -> ``.io.f``; the first
    binding of a name wins)."""
    found: dict[str, str] = {}
    for node in _statements(tree.body):
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
                elif not node.level:
                    for name, full in ops.star_exports(prefix).items():
                        found.setdefault(name, full)
    return found


def star_modules(tree: ast.Module) -> tuple[str, ...]:
    """The modules the module's top level star-imports that are not known
    packages (``from plots.chapter4 import *``, ``from .utils import *``):
    a bare name it calls and does not bind itself may be one of theirs."""
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            prefix = "." * node.level + (node.module or "")
            if node.level or not ops.star_exports(prefix):
                found.append(prefix)
    return tuple(found)


def _top_level_names(tree: ast.Module) -> frozenset[str]:
    """The names the module's top level defines or assigns itself."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(found)


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``body`` and in the blocks nested in it."""
    for statement in body:
        yield statement
        for block in blocks(statement):
            yield from _statements(block)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _annotated_classes(function: _Function) -> Iterator[tuple[str, ast.expr]]:
    """The parameters annotated with a class (``model: Net``,
    ``Optional[Net]``), each with it."""
    args = function.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        named = _annotated_class(arg.annotation) if arg.annotation is not None else None
        if named is not None:
            yield arg.arg, named


def _annotated_class(annotation: ast.expr) -> Optional[ast.expr]:
    """The class an annotation names (``Cls``, ``m.Cls``, ``Optional[Cls]``),
    as written; None for anything else."""
    if isinstance(annotation, ast.Subscript) and dotted_name_of(annotation.value) in (
        "Optional",
        "typing.Optional",
    ):
        annotation = annotation.slice
    return annotation if isinstance(annotation, (ast.Name, ast.Attribute)) else None


def _comprehension_calls(
    node: Union[ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp],
    elements: dict[int, dict[str, ast.expr]],
) -> None:
    """Record, for each call in the comprehension's element, what its
    targets are bound from (``o`` from ``outputs``; an inner comprehension's
    own targets, recorded after, take over)."""
    bound: dict[str, ast.expr] = {}
    for generator in node.generators:
        for target, source in _loop_parts(generator.target, generator.iter):
            for name in assigned_names(target):
                bound[name] = source
    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for part in parts:
        for inner in ast.walk(part):
            if isinstance(inner, ast.Call):
                elements.setdefault(id(inner), {}).update(bound)


class _Elements(ast.NodeTransformer):
    """Read a comprehension's targets as what they are bound from."""

    def __init__(self, bound: Mapping[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.expr:
        source = self.bound.get(node.id)
        if source is None or not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(copy.deepcopy(source), node)


def _with_elements(call: ast.Call, bound: Mapping[str, ast.expr]) -> ast.Call:
    """``call`` with the arguments reading the comprehension's targets as
    what they are bound from (``helper(o)`` -> ``helper(outputs)``: the
    same device and grad as each element), twice over for targets bound
    from other targets (``for x in xs for y in x``)."""
    args: list[ast.expr] = list(call.args)
    keywords = [(k.arg, k.value) for k in call.keywords]
    for _ in range(2):
        transform = _Elements(bound)
        args = [transform.visit(copy.deepcopy(a)) for a in args]
        keywords = [(k, transform.visit(copy.deepcopy(v))) for k, v in keywords]
    made = ast.Call(
        func=call.func, args=args, keywords=[ast.keyword(arg=k, value=v) for k, v in keywords]
    )
    return ast.copy_location(made, call)


class _Ref(NamedTuple):
    """A call of something, or a mention of a name that is not a call."""

    node: ast.expr  #: the ``Call``, or the ``Name`` / ``Attribute`` mentioned
    value: bool  #: not a call made where it is written (a mention, a lambda's call)
    function: Optional[_Function]  #: the function it is in (None: the module's code)
    owner: Optional[str]  #: that function's class
    no_grad: bool  #: grad is disabled where it runs


def _registries(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """Dicts of classes or functions by name, in any function of the module
    (``TRACKERS = {"sort": Sort, "byte": ByteTrack}``): the values each
    name holds, when every value is a name (a registry, not data)."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Dict)
            and node.value.values
            and all(isinstance(v, (ast.Name, ast.Attribute)) for v in node.value.values)
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).extend(node.value.values)
    return found


def _registered(func: ast.expr, registries: Mapping[str, list[ast.expr]]) -> list[ast.expr]:
    """What ``REGISTRY[key]`` (the callee of ``REGISTRY[key](...)``) may be:
    every value of the dict the name holds (none: not a registry)."""
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name):
        return registries.get(func.value.id, [])
    return []


def _constructor(call: ast.Call) -> ast.expr:
    """What a call that makes an instance calls: ``Model`` of ``Model(...)``
    and of ``Model(...).eval().to(device)`` (module methods that return the
    module itself)."""
    while (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in ops.MODULE_IN_PLACE_METHODS
        and isinstance(call.func.value, ast.Call)
    ):
        call = call.func.value
    return call.func


class CallingModule:
    """One module that may call functions of other modules, read once: its
    imports, its calls and mentions by their last name, and the instances
    it makes. ``library``: it is library code, whose public functions are
    entered from outside (what they pass on is a guess one level up),
    unless it is part of an ``application`` (a project nobody installs: its
    callers are all in the project, none outside to guess about)."""

    def __init__(
        self,
        tree: ast.Module,
        library: bool,
        returns: Optional[Returns] = None,
        application: bool = False,
    ) -> None:
        self.imports = module_imports(tree)
        self.stars = star_modules(tree)
        self._own = _top_level_names(tree) if self.stars else frozenset()
        self.context = _Context(self.imports, library, tree, returns, application)
        self.context.stars = self.stars
        self.context.own = self._own
        #: last name (``f`` of ``io.f``) -> the calls and mentions ending in it
        self.refs: dict[str, list[_Ref]] = {}
        #: per function (its id; 0: the module's code): (name, what it calls) of
        #: each ``name = something(...)``
        self.made: dict[int, list[tuple[str, ast.expr]]] = {}
        #: per class: (attribute, what it calls) of each ``self.attr = something(...)``
        self.made_attributes: dict[str, list[tuple[str, ast.expr]]] = {}
        self.context.refs = self.refs
        self.context.made_attributes = self.made_attributes
        registries = _registries(tree)
        self.context.framework_no_grad = _framework_no_grad(tree)
        #: per function (its id): its parameters annotated with a class
        typed: dict[int, dict[str, ast.expr]] = {}
        for statement, part, function, owner, no_grad in _parts(
            tree.body, None, None, False, self.imports, self.context.framework_no_grad
        ):
            annotated: dict[str, ast.expr] = {}
            if function is not None:
                known = typed.get(id(function))
                if known is None:
                    # ``def train(model: Net, ...)``: ``model`` is an instance of ``Net``
                    known = typed[id(function)] = dict(_annotated_classes(function))
                    for name, annotation in known.items():
                        self.made.setdefault(id(function), []).append((name, annotation))
                annotated = known
            if (
                owner is not None
                and isinstance(statement, ast.Assign)
                and part is statement.value
                and isinstance(part, ast.Name)
                and part.id in annotated
            ):
                # ``self.encoder = encoder`` of a parameter ``encoder: Encoder``
                self._made(statement, annotated[part.id], function, owner)
            self._index(part, function, owner, no_grad)
            if isinstance(statement, ast.AnnAssign) and part is statement.value:
                # ``self.encoder: Encoder = build(cfg)``: an instance of ``Encoder``
                named = _annotated_class(statement.annotation)
                if named is not None:
                    self._made(statement, named, function, owner)
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and part is statement.value:
                if isinstance(part, ast.Call):
                    made = _constructor(part)
                    # ``TRACKERS[name](opts)`` makes an instance of any class the dict holds
                    for func in _registered(made, registries) or (made,):
                        self._made(statement, func, function, owner)
                elif (
                    owner is not None
                    and isinstance(part, (ast.Name, ast.Attribute))
                    and not (
                        function is not None
                        and isinstance(part, ast.Name)
                        and part.id in _parameter_names(function)
                    )
                ):
                    # ``self.get_boxes = get_boxes``: a function kept to be called
                    for target in statement.targets if isinstance(statement, ast.Assign) else ():
                        if _is_own_attribute(target, owner, owner):
                            assert isinstance(target, ast.Attribute)
                            kept = self.context.kept_functions.setdefault(owner, {})
                            kept.setdefault(target.attr, []).append(part)
                if owner is not None and moves(part) and not _ends_with(part, _ON_CPU):
                    # ``self.scores = torch.zeros(n, device=self.device)`` in any method
                    targets = (
                        statement.targets
                        if isinstance(statement, ast.Assign)
                        else [statement.target]
                    )
                    self.context.moved_attributes.setdefault(owner, set()).update(
                        _self_paths(targets)
                    )

    def forget(self) -> None:
        """Drop what was worked out from other modules' summaries (the engine
        calls this on a new run: they may have changed, this module not)."""
        self.context.forget()

    def _made(
        self,
        statement: Union[ast.Assign, ast.AnnAssign],
        func: ast.expr,
        function: Optional[_Function],
        owner: Optional[str],
    ) -> None:
        """Record ``name = func(...)`` (and ``self.attr = func(...)`` in a method)."""
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if (
                owner is not None
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            ):
                self.made_attributes.setdefault(owner, []).append((target.attr, func))
            scope = id(function) if function is not None else 0
            for name in assigned_names(target):
                self.made.setdefault(scope, []).append((name, func))

    def _index(
        self, part: ast.AST, function: Optional[_Function], owner: Optional[str], no_grad: bool
    ) -> None:
        nodes = list(ast.walk(part))
        callees: set[int] = set()
        deferred: set[int] = set()
        #: a call in a comprehension -> what the comprehension's targets are bound from
        elements: dict[int, dict[str, ast.expr]] = {}
        #: ``f`` of ``map(f, xs)`` -> that call
        mapped: dict[int, ast.Call] = {}
        for inner in nodes:
            if isinstance(inner, ast.Call):
                callees.add(id(inner.func))
                if (
                    isinstance(inner.func, ast.Name)
                    and inner.func.id == "map"
                    and len(inner.args) == 2
                    and not inner.keywords
                    and isinstance(inner.args[0], ast.Name)
                    and not isinstance(inner.args[1], ast.Starred)
                ):
                    mapped[id(inner.args[0])] = inner
            elif isinstance(inner, ast.Lambda):
                deferred.update(id(n) for n in ast.walk(inner.body))
            elif isinstance(inner, _COMPREHENSIONS):
                _comprehension_calls(inner, elements)
        imports = self.imports
        refs = self.refs
        for inner in nodes:
            if isinstance(inner, ast.Call):
                func = inner.func
                key = (
                    func.attr
                    if isinstance(func, ast.Attribute)
                    else (func.id if isinstance(func, ast.Name) else None)
                )
                value = id(inner) in deferred
                bound = elements.get(id(inner))
                if bound and not value:
                    # ``[helper(o) for o in outputs]``: each element of ``outputs``
                    inner = _with_elements(inner, bound)
            elif isinstance(inner, ast.Attribute):
                if id(inner) in callees or not isinstance(inner.ctx, ast.Load):
                    continue
                key, value = inner.attr, True
            elif isinstance(inner, ast.Name):
                # (a bare name can be the function only where it is imported,
                # or defined: ``steps = [step]`` passes this module's ``step`` on)
                if (
                    id(inner) in callees
                    or not isinstance(inner.ctx, ast.Load)
                    or (inner.id not in imports and inner.id not in self.context.functions)
                ):
                    continue
                key, value = inner.id, True
                through = mapped.get(id(inner))
                if through is not None and id(through) not in deferred:
                    # ``map(helper, outputs)`` calls ``helper`` on each element
                    call = ast.Call(func=inner, args=[through.args[1]], keywords=[])
                    refs.setdefault(key, []).append(
                        _Ref(ast.copy_location(call, through), False, function, owner, no_grad)
                    )
                    continue
            else:
                continue
            if key is not None:
                refs.setdefault(key, []).append(_Ref(inner, value, function, owner, no_grad))

    def calls_of(
        self,
        name: str,
        refers: Callable[[str], bool],
        method: Optional[str] = None,
        local: bool = False,
        by_class: bool = False,
    ) -> list[Call]:
        """The calls and other mentions of the function ``name``;
        ``refers(qual)`` says whether an imported qualified name (``.io.f``,
        ``pkg.io.f``) is that function.

        With ``method``, ``name`` is a class and the calls are those of that
        method on its instances the module makes: ``obj = Cls(...)`` then
        ``obj.method(...)`` in the same function (or a module-level ``obj``),
        ``self.obj = Cls(...)`` then ``self.obj.method(...)`` in the same
        class, ``Cls(...).method(...)``; for ``forward``, calling the instance
        (``obj(x)``) too. ``local``: the module defines ``name`` itself (a
        bare ``name`` that it does not import is that class)."""
        imports = self.imports
        known: dict[str, bool] = {}

        def resolves(node: ast.expr) -> bool:
            dotted = dotted_name_of(node)
            if dotted is None or dotted.rsplit(".", 1)[-1] != name:
                return False
            if local and dotted == name and name not in imports:
                return True
            if dotted == name and name not in imports and name not in self._own:
                # ``from plots.chapter4 import *`` then ``weights_comparison(...)``
                for prefix in self.stars:
                    qual = f"{prefix}{'' if prefix.endswith('.') else '.'}{name}"
                    if qual not in known:
                        known[qual] = refers(qual)
                    if known[qual]:
                        return True
            head, _, rest = dotted.partition(".")
            if head not in imports:
                return False
            qual = imports[head] + (f".{rest}" if rest else "")
            if qual not in known:
                known[qual] = refers(qual)
            return known[qual]

        found: list[_Ref] = []
        if method is None:
            for ref in self.refs.get(name, ()):
                node = ref.node.func if isinstance(ref.node, ast.Call) else ref.node
                if resolves(node):
                    found.append(ref)
        else:
            found = self._method_calls(name, resolves, method, by_class)
        describe = self.context.describe
        return [
            describe(r.node, r.value, r.function, r.owner, r.no_grad, _GIVEN_DEPTH) for r in found
        ]

    def _method_calls(
        self, name: str, resolves: Callable[[ast.expr], bool], method: str, by_class: bool = False
    ) -> list[_Ref]:
        names = {
            scope: {name for name, func in made if resolves(func)}
            for scope, made in self.made.items()
        }
        attributes = {
            cls: {attribute for attribute, func in made if resolves(func)}
            for cls, made in self.made_attributes.items()
        }

        def is_instance(node: ast.expr, ref: _Ref) -> bool:
            if isinstance(node, ast.Name):
                scope = id(ref.function) if ref.function is not None else 0
                return node.id in names.get(scope, ()) or node.id in names.get(0, ())
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                return node.value.id == "self" and node.attr in attributes.get(ref.owner or "", ())
            return isinstance(node, ast.Call) and resolves(node.func)

        found = []
        if method == "__init__":  # ``Cls(...)`` runs ``Cls.__init__``
            return [
                ref
                for ref in self.refs.get(name, ())
                if isinstance(ref.node, ast.Call) and resolves(ref.node.func)
            ]
        for ref in self.refs.get(method, ()):
            node = ref.node.func if isinstance(ref.node, ast.Call) else ref.node
            if isinstance(node, ast.Attribute) and (
                is_instance(node.value, ref)
                # ``Converter.to_array(t)``: a static or class method on the class
                or (by_class and isinstance(ref.node, ast.Call) and resolves(node.value))
            ):
                found.append(ref)
        if method in ("forward", "__call__"):  # ``obj(x)`` runs ``obj.forward(x)``
            held = set().union(*names.values(), *attributes.values())
            for key in held:
                for ref in self.refs.get(key, ()):
                    if isinstance(ref.node, ast.Call) and is_instance(ref.node.func, ref):
                        found.append(ref)
        return found


class _Effect(NamedTuple):
    """What a value passed or bound carries from the caller's names."""

    value: ast.expr  #: the expression, whose names reach it
    moves: bool  #: it moves something to a device
    forward: bool  #: it holds a module's forward pass
    on_cpu: bool  #: it ends on the CPU
    detached: bool  #: it ends detached
    parameter: bool = False  #: it is a module's parameter, read directly


class _Binding(NamedTuple):
    """One ``target = value`` (or loop, or ``with ... as``) of a function,
    with what the analysis asks of its value, worked out once."""

    targets: frozenset[str]
    names: frozenset[str]  #: the names the value mentions
    attributes: frozenset[str]  #: the ``self.<attr>`` the value mentions
    moves: bool  #: the value moves something to a device
    forward: bool  #: the value holds a module's forward pass
    on_cpu: bool  #: the value ends on the CPU (``.cpu()``, ``.numpy()``, ...)
    detached: bool  #: the value ends detached (``.detach()``, ``.item()``, ...)
    no_grad: bool  #: it runs with grad disabled
    line: int = 0  #: where it is
    parameter: bool = False  #: the value is a module's parameter, read directly
    augmented: bool = False  #: ``x += v``: the new value reads the old one too


class _Context:
    """What the calling functions bind, worked out once per function."""

    def __init__(
        self,
        imports: Mapping[str, str],
        library: bool,
        tree: ast.Module,
        returns: Optional[Returns] = None,
        application: bool = False,
    ) -> None:
        self.imports = imports
        self.library = library
        #: its public functions are entered from outside the project
        self.entered = library and not application
        #: the summaries of the project's functions, where the engine gives them
        self.returns = returns
        #: the modules it star-imports (``CallingModule.stars``), and the
        #: names its top level binds itself
        self.stars: tuple[str, ...] = ()
        self.own: frozenset[str] = frozenset()
        #: the methods a framework runs with grad disabled (``_framework_no_grad``)
        self.framework_no_grad: frozenset[int] = frozenset()
        #: the module's own top-level functions
        self.functions = frozenset(
            s.name for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        )
        self._callees: dict[int, Optional[FunctionSummary]] = {}
        #: per class: (attribute, what it calls) of each ``self.attr =
        #: something(...)`` (``CallingModule.made_attributes``)
        self.made_attributes: Mapping[str, list[tuple[str, ast.expr]]] = {}
        #: per class: the values of each ``self.attr = name`` (a function
        #: kept to be called, ``self.get_boxes = get_boxes``)
        self.kept_functions: dict[str, dict[str, list[ast.expr]]] = {}
        #: the module's own top-level classes
        self.classes = frozenset(s.name for s in tree.body if isinstance(s, ast.ClassDef))
        #: the methods of the module's top-level classes: id -> the class's name
        self.owners = {
            id(method): statement.name
            for statement in tree.body
            if isinstance(statement, ast.ClassDef)
            for method in statement.body
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        #: the module's own code, its functions and classes left out
        self.top = ast.Module(
            body=[
                statement
                for statement in tree.body
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ],
            type_ignores=[],
        )
        self._bindings: dict[int, list[_Binding]] = {}
        #: per function: the names it binds to instances of one class (``_instances``)
        self._made: dict[int, dict[str, ast.expr]] = {}
        #: per class: the ``self.<attr>`` its methods bind to a value moved to a device
        self.moved_attributes: dict[str, set[str]] = {}
        self._moved: dict[tuple[int, int], set[str]] = {}
        self._in_place: dict[tuple[int, int], set[str]] = {}
        self._local_names: dict[int, set[str]] = {}
        self._grad: dict[tuple[int, int, bool], set[str]] = {}
        self._params: dict[int, set[str]] = {}
        self._from_params: dict[tuple[int, str, bool], set[str]] = {}
        #: per method a framework gives a batch it moved to the module's
        #: device (a Lightning ``training_step``): that parameter's name (its
        #: forward passes are values on that device)
        self.batches: dict[int, str] = framework_batches(tree)
        #: the module's calls and mentions by last name (``CallingModule.refs``)
        self.refs: dict[str, list[_Ref]] = {}
        #: per function: the parameters the module's own calls of it pass a
        #: value moved to a device, and a module's output with grad enabled
        self._given: dict[tuple[int, int], tuple[set[str], set[str]]] = {}
        #: per (function, depth): it runs only with grad disabled
        self._quiet: dict[tuple[int, int], bool] = {}

    def forget(self) -> None:
        """Drop the bindings and answers worked out so far (``CallingModule.forget``)."""
        for cache in (self._callees, self._bindings, self._made, self._moved, self._grad,
                      self._given, self._quiet, self._from_params, self._in_place,
                      self._local_names):  # fmt: skip
            cache.clear()

    def describe(
        self,
        node: ast.expr,
        value: bool,
        function: Optional[_Function],
        owner: Optional[str],
        no_grad: bool,
        depth: int = 0,
    ) -> Call:
        """What the call (or mention) ``node`` passes; ``depth``: how many calls
        up this module's own calls of the calling function are followed."""
        caller = (
            "<module>"
            if function is None
            else (f"{owner}.{function.name}()" if owner else f"{function.name}()")
        )
        if not no_grad and function is not None:
            # a calling function this module calls only with grad disabled
            no_grad = self.runs_without_grad(function, owner, _QUIET_DEPTH)
        if value or not isinstance(node, ast.Call):
            return Call(
                node.lineno, caller, False, False, False, passes_parameters=True, value=True
            )
        passed = [*node.args, *(k.value for k in node.keywords)]
        scope: _Scope = function if function is not None else self.top
        moved_attributes = self.moved_attributes.get(owner or "", set())
        # a module's own code (a script, a notebook) runs in order: only what
        # it binds before the call counts (a function's body: all of it)
        before = node.lineno if isinstance(scope, ast.Module) else 0
        moved_names = self._moved_in(scope, moved_attributes, before)
        grad_names = self._grad_in(scope, before)
        parameter_names = self._grad_in(scope, before, parameters=True)
        given_moved: set[str] = set()
        given_grad: set[str] = set()
        if function is not None:
            # what this module's own calls of the calling function pass it (the
            # parameter itself: what a call computes from it need not be there)
            given_moved, given_grad = self._given_by_calls(function, owner, depth)
            moved_names = moved_names | given_moved
            grad_names = grad_names | given_grad
        params = self._params_of(function, owner) if function is not None else set()
        named = [*(str(i) for i in range(len(node.args))), *(k.arg or "**" for k in node.keywords)]
        starred = any(isinstance(a, ast.Starred) for a in node.args) or "**" in named
        keys = None if starred else named  # (with ``*args``: which parameter gets what?)
        effects = [self._passed_effect(arg, owner, scope, node.lineno) for arg in passed]
        moving = [
            not e.on_cpu
            and (
                e.moves
                or (
                    self._reads(e.value, moved_names)
                    and not self._passed_free(
                        e.value,
                        scope,
                        node.lineno,
                        moved_names,
                        moved_attributes,
                        False,
                        frozenset(given_moved),
                    )
                )
                or _overlap(_self_paths([e.value]), moved_attributes)
            )
            for e in effects
        ]
        carrying = grad_names | parameter_names

        def carries_grad(e: _Effect, names: set[str]) -> bool:
            """Does ``e`` read one of ``names`` (a forward pass's output, a
            parameter) where the binding that reaches the call holds one?"""
            return self._reads(e.value, names) and not self._passed_free(
                e.value, scope, node.lineno, carrying, set(), True, frozenset(given_grad)
            )

        forwards = [
            not no_grad and not e.detached and (e.forward or carries_grad(e, grad_names))
            for e in effects
        ]
        parameters = [
            not no_grad and not e.detached and (e.parameter or carries_grad(e, parameter_names))
            for e in effects
        ]
        graded = [f or p for f, p in zip(forwards, parameters)]
        moved, grad_output = any(moving), any(graded)
        passing = [e for e in effects if params and self._reads(e.value, params)]
        outside = any(not e.on_cpu for e in passing)
        with_grad = not no_grad and any(not e.detached for e in passing)
        reads = (
            self._param_reads(function, owner, keys, effects)
            if function is not None and keys is not None
            else ()
        )
        return Call(
            node.lineno,
            caller,
            no_grad,
            moved,
            grad_output,
            outside,
            passes_parameters_with_grad=with_grad,
            moved_keys=_keys(keys, moving),
            grad_keys=_keys(keys, graded),
            grad_parameter=any(parameters) and not any(forwards),
            caller_name=function.name if reads and function is not None else "",
            caller_owner=(owner or "") if reads else "",
            caller_params=(
                _positional(function, owner is not None) if reads and function is not None else ()
            ),
            param_reads=reads,
        )

    def _passed_free(
        self,
        value: ast.expr,
        scope: _Scope,
        line: int,
        carrying: set[str],
        attributes: set[str],
        grad: bool,
        entry: frozenset[str] = frozenset(),
    ) -> bool:
        """Is every name ``value`` reads free, where ``line`` passes it, of
        what ``carrying`` names carry elsewhere in the function (``_free``)?
        (What the value itself computes is the caller's effect's to say:
        ``moves``, ``forward``.)"""
        read = {n for n in _names_read(value, self.imports) if n in carrying}
        return bool(read) and all(
            self._free(scope, name, line, carrying, attributes, grad, entry) for name in read
        )

    def _passed_effect(
        self, arg: ast.expr, owner: Optional[str], scope: _Scope, line: int
    ) -> _Effect:
        """What an argument carries; a list or tuple display, what its
        elements carry together (``[out]`` of an ``out`` on the host is on
        the host)."""
        if (
            isinstance(arg, (ast.List, ast.Tuple))
            and arg.elts
            and not any(isinstance(e, ast.Starred) for e in arg.elts)
        ):
            parts = [self._rebound(self.effect(e, owner, scope), scope, line) for e in arg.elts]
            whole = self._rebound(self.effect(arg, owner, scope), scope, line)
            return whole._replace(
                on_cpu=whole.on_cpu or all(p.on_cpu for p in parts),
                detached=whole.detached or all(p.detached for p in parts),
            )
        return self._rebound(self.effect(arg, owner, scope), scope, line)

    def _rebound(self, effect: _Effect, scope: _Scope, line: int) -> _Effect:
        """``effect`` of a name passed at ``line``, knowing what the function
        last bound it to before, in a block that holds the call (``olist =
        [o.cpu().numpy() for o in olist]``, then ``get_predictions(olist)``:
        host data, whatever ``olist`` held before; ``emb = f(w).detach()``,
        then ``emb = emb / emb.norm()``: detached)."""
        value = effect.value
        while isinstance(value, ast.Subscript):  # (``emb[:10]``: a part of it)
            value = value.value
        if not isinstance(value, ast.Name) or isinstance(scope, ast.Module):
            return effect
        return effect._replace(
            on_cpu=effect.on_cpu or self._settled(scope, value.id, line, grad=False),
            detached=effect.detached or self._settled(scope, value.id, line, grad=True),
        )

    def _settled(self, scope: _Scope, name: str, line: int, grad: bool, depth: int = 3) -> bool:
        """Is ``name``, where ``line`` reads it, what the function last bound
        on the host (with ``grad``: detached, or computed without grad), on
        every path: by a binding that does so, or one that computes only from
        such names?"""
        if isinstance(scope, ast.Module):
            return False
        last = self._dominating(scope, name, line)
        if last is None:
            return False
        if (last.detached or last.no_grad) if grad else last.on_cpu:
            return True
        if depth <= 0 or last.moves or last.forward or last.parameter or last.attributes:
            return False
        read = last.names & self._locals(scope)
        return bool(read) and all(
            self._settled(scope, other, last.line, grad, depth - 1) for other in read
        )

    def _free(
        self,
        scope: _Scope,
        name: str,
        line: int,
        carrying: set[str],
        attributes: set[str],
        grad: bool,
        entry: frozenset[str] = frozenset(),
        depth: int = 6,
        memo: Optional[dict[tuple[str, int], bool]] = None,
    ) -> bool:
        """Is ``name``, where ``line`` reads it, free of what the function's
        ``carrying`` names carry somewhere in its body (moved to a device;
        with ``grad``: a forward pass or a parameter not detached)? It is when
        every binding that may reach the line carries nothing and computes
        only from names free there (``img = imread(path)`` at the top of a
        loop whose end moves ``img``), and, where a parameter's own value
        may reach it, the function's callers here pass it nothing (not in
        ``entry``). ``memo``: the answers of this question so far (one being
        worked out counts as not free: a cycle through a loop proves nothing)."""
        if name not in carrying:
            return True
        if isinstance(scope, ast.Module) or depth <= 0:
            return False
        memo = {} if memo is None else memo
        known = memo.get((name, line))
        if known is not None:
            return known
        memo[(name, line)] = False
        memo[(name, line)] = found = self._free_bindings(
            scope, name, line, carrying, attributes, grad, entry, depth, memo
        )
        return found

    def _free_bindings(
        self,
        scope: _Function,
        name: str,
        line: int,
        carrying: set[str],
        attributes: set[str],
        grad: bool,
        entry: frozenset[str],
        depth: int,
        memo: dict[tuple[str, int], bool],
    ) -> bool:
        """``_free``, worked out."""
        local = self._locals(scope)
        if name not in local or (not grad and name in self._moved_in_place(scope)):
            return False  # (``model.to(device)``: moved in place, wherever)
        bindings, from_entry = self._reaching(scope, name, line)
        if from_entry and name in entry and name in _parameter_names(scope):
            # what this module's callers pass the parameter may reach the line
            # (a local bound on some paths only is unbound on the others)
            return False
        for binding in bindings:
            if (binding.detached or binding.no_grad) if grad else binding.on_cpu:
                continue
            carries = (
                binding.forward or binding.parameter
                if grad
                else binding.moves or binding.forward or _overlap(binding.attributes, attributes)
            )
            read = binding.names & local
            if binding.augmented:
                read = read | binding.targets  # (``x += v`` reads ``x`` too)
            if carries or not all(
                self._free(
                    scope, other, binding.line, carrying, attributes, grad, entry, depth - 1, memo
                )
                for other in read
            ):
                return False
        return True

    def _reaching(self, scope: _Function, name: str, line: int) -> tuple[list[_Binding], bool]:
        """The bindings of ``name`` that may reach ``line``: the last one in
        a block that holds the line, those after it (in branches), and those
        later in a loop around the line that does not hold that one (the next
        turn); and whether the value ``name`` had on entering the function
        may reach it too (no binding before the line on every path)."""
        bound = [b for b in self._flow(scope) if name in b.targets]
        lines, loops = _enclosing_lines(scope.body, line)
        before = [b for b in bound if b.line < line]
        ruling = [b for b in before if b.line in lines]
        first = max(b.line for b in ruling) if ruling else 0
        found = [b for b in before if b.line >= first]
        for loop in loops:
            if first not in loop:
                found.extend(b for b in bound if b.line > line and b.line in loop)
        return found, not ruling

    def _locals(self, scope: _Function) -> set[str]:
        """The names the function binds, its parameters too."""
        found = self._local_names.get(id(scope))
        if found is None:
            found = {t for b in self._flow(scope) for t in b.targets} | _parameter_names(scope)
            self._local_names[id(scope)] = found
        return found

    def _dominating(self, scope: _Function, name: str, line: int) -> Optional[_Binding]:
        """The binding of ``name`` that ``line`` reads on every path, if one
        does: the only one that may reach it (``_reaching``)."""
        bindings, from_entry = self._reaching(scope, name, line)
        return bindings[0] if len(bindings) == 1 and not from_entry else None

    def _param_reads(
        self,
        function: _Function,
        owner: Optional[str],
        keys: list[str],
        effects: list[_Effect],
    ) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
        """For a call in ``function``: which arguments read which of its
        parameters (``Call.param_reads``), so that the engine can ask the
        calling function's own callers in other files what they pass."""
        named = [
            *_positional(function, owner is not None),
            *(a.arg for a in function.args.kwonlyargs),
        ]
        if not named:
            return ()
        reads = []
        for key, effect in zip(keys, effects):
            # (a device passes until the value is moved to the host; grad,
            # until it is detached)
            device = frozenset(
                p
                for p in named
                if not effect.on_cpu and self._reads(effect.value, self._from_param(function, p))
            )
            grad = frozenset(
                p
                for p in named
                if not effect.detached
                and self._reads(effect.value, self._from_param(function, p, grad=True))
            )
            if device or grad:
                reads.append((key, device, grad))
        return tuple(reads)

    def _from_param(self, function: _Function, param: str, grad: bool = False) -> set[str]:
        """The names holding what ``function``'s parameter ``param`` is given,
        and what is computed from it, until it is moved to the host (with
        ``grad``: until it is detached, or computed with grad disabled)."""
        key = (id(function), param, grad)
        found = self._from_params.get(key)
        if found is None:
            flow = self._flow(function)
            found = self._from_params[key] = (
                _spread(flow, {param}, lambda b: not b.detached and not b.no_grad)
                if grad
                else _spread(flow, {param}, lambda b: not b.on_cpu)
            )
        return found

    def _reads(self, value: ast.expr, names: set[str]) -> bool:
        """Does ``value`` read one of ``names`` (not through a NumPy call)?"""
        return bool(names) and any(n in names for n in _names_read(value, self.imports))

    def runs_without_grad(self, function: _Function, owner: Optional[str], depth: int) -> bool:
        """Does ``function`` run only with grad disabled: every call of it is
        this module's (a script's function, or a private one of library
        code: no one outside calls it) and is made with grad disabled, or
        from a function that runs so (``depth`` calls up)? ``evaluate()``
        called once, in ``with torch.no_grad():``, and the helpers only it
        calls (``prep_display(net(batch))``)."""
        key = (id(function), depth)
        known = self._quiet.get(key)
        if known is not None:
            return known
        self._quiet[key] = False  # (a recursive call proves nothing)
        name = function.name
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        found = False
        if depth > 0 and (not self.library or private):
            calls = 0
            for ref in self.refs.get(name, ()):
                node = ref.node.func if isinstance(ref.node, ast.Call) else ref.node
                if ref.function is function:
                    continue  # (recursion: the outer call decides)
                if ref.value:
                    if isinstance(node, ast.Name) or _is_own_attribute(node, owner, ref.owner):
                        calls = -1  # passed on as a value: called from anywhere
                        break
                    continue
                if not _calls_own(node, function, owner, ref.owner):
                    continue
                if not ref.no_grad and not (
                    ref.function is not None
                    and self.runs_without_grad(ref.function, ref.owner, depth - 1)
                ):
                    calls = -1
                    break
                calls += 1
            found = calls > 0
        self._quiet[key] = found
        return found

    def _given_by_calls(
        self, function: _Function, owner: Optional[str], depth: int
    ) -> tuple[set[str], set[str]]:
        """The parameters of ``function`` to which a call of it in this module
        passes a value moved to a device, and those to which one passes a
        module's output computed with grad enabled (``train(model, ...)`` in
        ``main()`` after ``model = model.cuda()``): ``depth`` calls up."""
        key = (id(function), depth)
        known = self._given.get(key)
        if known is not None:
            return known
        self._given[key] = (set(), set())  # (a recursive call gives nothing)
        moved: set[str] = set()
        grad: set[str] = set()
        if depth > 0:
            for ref in self.refs.get(function.name, ()):
                call = ref.node
                if ref.value or not isinstance(call, ast.Call) or ref.function is function:
                    continue
                if not _calls_own(call.func, function, owner, ref.owner):
                    continue
                described = self.describe(
                    call, False, ref.function, ref.owner, ref.no_grad, depth - 1
                )
                params = _bound(function, call, owner is not None)
                for given, param in params.items():
                    if described.moved_keys is not None and given in described.moved_keys:
                        moved.add(param)
                    if described.grad_keys is not None and given in described.grad_keys:
                        grad.add(param)
        found = self._given[key] = (moved, grad)
        return found

    def _flow(self, scope: _Scope) -> list[_Binding]:
        found = self._bindings.get(id(scope))
        if found is None:
            found = self._bindings[id(scope)] = []
            owner = self.owners.get(id(scope))
            for target, value, no_grad, augmented in _bindings_with_mode(
                scope, self.imports, self.framework_no_grad
            ):
                names = frozenset(_names_read(value, self.imports))
                attributes = frozenset(_self_paths([value]))
                line = getattr(target, "lineno", 0)
                for targets, effect in self._unpacked(target, value, owner, scope):
                    found.append(
                        _Binding(
                            targets,
                            names,
                            attributes,
                            effect.moves,
                            effect.forward,
                            effect.on_cpu,
                            effect.detached,
                            no_grad,
                            line,
                            effect.parameter,
                            augmented,
                        )
                    )
        return found

    def _unpacked(
        self, target: ast.expr, value: ast.expr, owner: Optional[str], scope: _Scope
    ) -> Iterator[tuple[frozenset[str], _Effect]]:
        """The names ``target`` binds with what the value gives them: one
        effect for them all, or, where a call of the project's function that
        returns tuples of that length is unpacked (``preds, gts =
        predict(model, loader)``), what its summary says of each position."""
        effect = self.effect(value, owner, scope)
        summary = self._callee(value, owner, scope)
        shape = (
            summary.unpacked(len(target.elts))
            if summary is not None and isinstance(target, (ast.Tuple, ast.List))
            else ()
        )
        if (
            summary is None
            or not isinstance(target, (ast.Tuple, ast.List))
            or not shape
            or not all(isinstance(e, ast.Name) for e in target.elts)
        ):
            yield frozenset(assigned_names(target)), effect
            return
        assert isinstance(value, ast.Call)
        moved = moves(value) or _names_its_device(value, summary)
        fed = any(_forward_pass(a) for a in (*value.args, *(k.value for k in value.keywords)))
        for element, part in zip(target.elts, shape):
            assert isinstance(element, ast.Name)
            yield (
                frozenset({element.id}),
                effect._replace(
                    moves=moved or part.device_output,
                    forward=part.grad_output or fed,
                    on_cpu="cpu" in part.returns,
                    detached="nograd" in part.returns,
                ),
            )

    def effect(
        self, value: ast.expr, owner: Optional[str] = None, scope: Optional[_Scope] = None
    ) -> _Effect:
        """What ``value`` carries, read from the expression; for a call of a
        function of the project whose summary the engine gives, what the
        summary proves of the result too (``feats = collect(loader,
        model.cuda())`` of a helper that returns ``torch.cat`` of ``.cpu()``
        copies is on the CPU, whatever its arguments were), and the function
        is no module whose call is a forward pass, whatever its name. A
        summary proves what it says only: one that names no device output
        may still carry its arguments' device (through a list it fills), so
        the arguments still count."""
        # ``np.asarray(x)``: an array; ``int(model.stride.max())``: a number;
        # ``f1_score(y, p)``: a metric's value; ``DataLoader(ds)``: batches
        host = _host_call(value, self.imports) or self._number(value)
        found = _Effect(
            value,
            moves(value) and not host,
            _forward_pass(value) and not host,
            host or _ends_with(value, _ON_CPU),
            host or _ends_with(value, _NO_GRAD),
            _a_parameter(value),
        )
        call = value
        while isinstance(call, ast.Subscript):  # (``detect(net, img)[0]``: a part of it)
            call = call.value
        summary = self._callee(call, owner, scope)
        if summary is None or not isinstance(call, ast.Call):
            return found
        returns = summary.returns
        return found._replace(
            moves=found.moves or summary.device_output or _names_its_device(call, summary),
            # (a function of the project is no module, whatever its name:
            # ``convert_model(backbone)``; its summary says what it returns)
            forward=summary.grad_output
            or any(_forward_pass(a) for a in (*call.args, *(k.value for k in call.keywords))),
            on_cpu=found.on_cpu or "cpu" in returns,
            detached=found.detached or "nograd" in returns,
        )

    def _number(self, value: ast.expr) -> bool:
        """Is ``value`` a builtin's Python number (``int(x)``, ``len(xs)``),
        whatever it was given (the name not rebound by the module)?"""
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in ops.NUMBER_RESULT_BUILTINS
            and value.func.id not in self.imports
            and value.func.id not in self.functions
        )

    def _callee(
        self, value: ast.expr, owner: Optional[str] = None, scope: Optional[_Scope] = None
    ) -> Optional[FunctionSummary]:
        """The summary of the project's function ``value`` calls, if any (in
        a method of class ``owner``: ``self.f(...)`` of its own methods too;
        in ``scope``: the ``__call__`` of a project class whose instance a
        name there holds, ``gb = GuidedModel(model)`` then ``gb(x)``)."""
        if self.returns is None or not isinstance(value, ast.Call):
            return None
        key = id(value)
        if key in self._callees:
            return self._callees[key]
        found = None
        dotted = dotted_name_of(value.func)
        if dotted is not None:
            found = self._named(dotted, owner)
            made = (
                self._instances(scope).get(dotted) if found is None and scope is not None else None
            )
            if made is not None:  # (``gb = GuidedModel(model)``, then ``gb(x)``)
                cls = dotted_name_of(made)
                found = self._named(f"{cls}.__call__", owner) if cls is not None else None
        self._callees[key] = found
        return found

    def _named(self, dotted: str, owner: Optional[str]) -> Optional[FunctionSummary]:
        """The summary of the project's function the dotted name ``dotted``
        names where the module calls it, if any (``_callee``)."""
        if self.returns is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return self.returns(self.imports[head] + (f".{rest}" if rest else ""), False)
        if not rest and head in self.functions:
            return self.returns(head, True)
        if rest and "." not in rest and head in self.classes:
            return self.returns(dotted, True)  # (``Model.__call__`` of a class of its own)
        if not rest and head not in self.own:
            # ``from .detect import *`` then ``detect(net, img)``
            for prefix in self.stars:
                found = self.returns(f"{prefix}{'' if prefix.endswith('.') else '.'}{head}", False)
                if found is not None:
                    return found
            return None
        if owner is not None and head == "self" and rest and "." not in rest:
            found = self.returns(f"{owner}.{rest}", True)
            made = {dotted_name_of(f) for a, f in self.made_attributes.get(owner, ()) if a == rest}
            cls = made.pop() if found is None and len(made) == 1 else None
            if cls is not None and not cls.startswith("self."):
                # ``self.saliency = GuidedSaliency(model)``, then ``self.saliency(x)``
                return self._named(f"{cls}.__call__", None)
            kept = {dotted_name_of(v) for v in self.kept_functions.get(owner, {}).get(rest, ())}
            function = kept.pop() if found is None and len(kept) == 1 else None
            if function is not None and function.partition(".")[0] != "self":
                # ``self.get_boxes = get_boxes``, then ``self.get_boxes(net, img)``
                return self._named(function, None)
            return found
        return None

    def _instances(self, scope: _Scope) -> dict[str, ast.expr]:
        """The names ``scope`` binds only by calls of one class (``gb =
        GuidedModel(model)``, every assignment of ``gb`` in it): the class."""
        found = self._made.get(id(scope))
        if found is None:
            made: dict[str, Optional[ast.expr]] = {}
            for target, value in _plain_assignments(scope.body):
                cls = _constructor(value) if isinstance(value, ast.Call) else None
                dotted = dotted_name_of(cls) if cls is not None else None
                for name in assigned_names(target):
                    known = made.get(name, cls)
                    same = known is not None and dotted_name_of(known) == dotted
                    single = isinstance(target, ast.Name) and dotted is not None and same
                    made[name] = cls if single else None
            params = set() if isinstance(scope, ast.Module) else _parameter_names(scope)
            found = self._made[id(scope)] = {
                n: c for n, c in made.items() if c is not None and n not in params
            }
        return found

    def _moved_in(self, scope: _Scope, attributes: set[str], before: int = 0) -> set[str]:
        """The names bound to values moved to a device (or read from the
        ``self.<attr>`` of ``attributes``), and to what is computed from them
        (a module moved in place computes on the device); with ``before``,
        by the statements above that line only."""
        found = self._moved.get((id(scope), before))
        if found is None:
            flow = [b for b in self._flow(scope) if not before or b.line < before]
            seeds = {
                t
                for b in flow
                if (b.moves or _overlap(b.attributes, attributes)) and not b.on_cpu
                for t in b.targets
            }
            batch = self.batches.get(id(scope))
            if batch is not None:
                # a forward pass of what the framework moved (the batch's
                # other values, ids or strings, need not be tensors)
                fed = _spread(flow, {batch}, lambda b: not b.on_cpu)
                seeds |= {
                    t
                    for b in flow
                    if b.forward and b.names & fed and not b.on_cpu
                    for t in b.targets
                }
            seeds |= self._moved_in_place(scope, before)
            found = self._moved[(id(scope), before)] = _spread(flow, seeds, lambda b: not b.on_cpu)
        return found

    def _moved_in_place(self, scope: _Scope, before: int = 0) -> set[str]:
        """The names ``model.to(device)`` / ``model.cuda()`` as a statement
        moves (a module, in place), by the statements above ``before``."""
        key = (id(scope), before)
        known = self._in_place.get(key)
        if known is not None:
            return known
        found = self._in_place[key] = set()
        for statement in _statements(scope.body):
            if before and statement.lineno >= before:
                continue
            if isinstance(statement, ast.Expr) and moves(statement.value):
                call = statement.value
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                    moved = dotted_name_of(call.func.value)
                    if moved is not None and "." not in moved:
                        found.add(moved)
        return found

    def _grad_in(self, scope: _Scope, before: int = 0, parameters: bool = False) -> set[str]:
        """The names bound to a module's output computed with grad enabled
        (with ``parameters``: to a module's parameter read directly, ``tgt =
        self.embs[lang].weight``), and to what is computed from them, not
        detached (``before``: as above)."""
        key = (id(scope), before, parameters)
        found = self._grad.get(key)
        if found is None:
            flow = [b for b in self._flow(scope) if not before or b.line < before]
            seeds = {
                t
                for b in flow
                if not b.no_grad and (b.parameter if parameters else b.forward and not b.detached)
                for t in b.targets
            }
            found = self._grad[key] = _spread(flow, seeds, lambda b: not b.detached)
        return found

    def _params_of(self, function: _Function, owner: Optional[str]) -> set[str]:
        """The names holding what the function's own callers pass, when those
        callers are outside the module (a public function of library code)."""
        name = function.name
        dunder = name.startswith("__") and name.endswith("__")  # ``__new__``, ``__call__``
        if not self.entered or (name.startswith("_") and not dunder) or name == "main":
            return set()
        found = self._params.get(id(function))
        if found is None:
            args = function.args
            me = [*args.posonlyargs, *args.args][0].arg if owner is not None and args.args else ""
            seeds = _parameter_names(function) - {me}
            found = self._params[id(function)] = _spread(self._flow(function), seeds)
        return found


def framework_batches(tree: ast.Module) -> dict[int, str]:
    """Per method of a top-level class that a framework calls with a batch it
    moved to the module's device (``ops.FRAMEWORK_BATCH_PARAMETERS``: a
    Lightning module's ``training_step(self, batch, i)``), by the method's
    id: the batch parameter's name."""
    found: dict[int, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        positions: dict[str, int] = {}
        for base in node.bases:
            name = dotted_name_of(base) or ""
            last = name.rsplit(".", 1)[-1]
            for suffix, table in ops.FRAMEWORK_BATCH_PARAMETERS.items():
                if last.endswith(suffix):
                    positions.update(table)
        for item in node.body if positions else ():
            if isinstance(item, ast.FunctionDef) and item.name in positions:
                params = [*item.args.posonlyargs, *item.args.args][1:]
                if positions[item.name] < len(params):
                    found[id(item)] = params[positions[item.name]].arg
    return found


#: how many calls up a calling module's own calls of the calling function are
#: followed (``main()`` moves the model, ``train(model)`` passes it on)
_GIVEN_DEPTH = 2
#: how many calls up ``runs_without_grad`` follows (``evaluate()`` under
#: ``no_grad`` -> ``evalimages()`` -> ``evalimage()`` -> ``prep_display()``)
_QUIET_DEPTH = 5


def _names_its_device(call: ast.Call, summary: FunctionSummary) -> bool:
    """Does ``call`` pass the parameter that names the device the function of
    ``summary`` moves what it returns to (``moves_to``; not ``"cpu"``)?"""
    if not summary.moves_to:
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    params = summary.params
    for position, arg in enumerate(call.args):
        if (
            position < len(params)
            and params[position] in summary.moves_to
            and not _cpu_literal(arg)
        ):
            return True
    return any(
        k.arg is None or (k.arg in summary.moves_to and not _cpu_literal(k.value))
        for k in call.keywords
    )


def _cpu_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == "cpu"


def _calls_own(
    func: ast.expr, function: _Function, owner: Optional[str], where: Optional[str]
) -> bool:
    """Does a call of ``func`` made in class ``where`` (None: not in a class)
    call ``function`` (of class ``owner``): ``f(...)`` of a module-level
    function, ``self.f(...)`` in a method of the same class?"""
    if owner is None:
        return isinstance(func, ast.Name) and func.id == function.name
    return (
        where == owner
        and isinstance(func, ast.Attribute)
        and func.attr == function.name
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    )


def _is_own_attribute(node: ast.expr, owner: Optional[str], where: Optional[str]) -> bool:
    """``self.f`` mentioned in a method of ``owner``'s class."""
    return (
        owner is not None
        and where == owner
        and isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _enclosing_lines(body: list[ast.stmt], line: int) -> tuple[set[int], list[range]]:
    """The first lines of the statements of every block that holds ``line``
    (the function's body, the loop or branch around it, ...): a binding
    there, before the line, runs before it on every path; and the lines of
    the loops around ``line`` (a binding later in one runs before it too, on
    the next turn)."""
    found: set[int] = set()
    loops: list[range] = []
    block: Optional[list[ast.stmt]] = body
    while block:
        found.update(s.lineno for s in block)
        holder = next((s for s in block if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
        block = None
        if holder is None or isinstance(
            holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            break
        if isinstance(holder, (ast.For, ast.AsyncFor, ast.While)):
            loops.append(range(holder.lineno, (holder.end_lineno or holder.lineno) + 1))
        for inner in blocks(holder):
            if inner and inner[0].lineno <= line <= (inner[-1].end_lineno or inner[-1].lineno):
                block = inner
                break
    return found, loops


def _positional(function: _Function, method: bool) -> tuple[str, ...]:
    """The positional parameters of ``function`` as its callers bind them
    (``self`` of a ``method`` left out)."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    return tuple(positional[1:] if method and positional else positional)


def _parameter_names(function: _Function) -> set[str]:
    """Every parameter ``function`` binds (``*args`` and ``**kwargs`` too)."""
    args = function.args
    return {
        a.arg
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
        if a is not None
    }


def _bound(function: _Function, call: ast.Call, method: bool) -> dict[str, str]:
    """The keys ``describe`` names a call's arguments by (``"0"``: the first
    positional; a keyword's name) -> the parameter of ``function`` each binds to
    (none for ``*args`` and ``**kwargs``)."""
    args = function.args
    positional = _positional(function, method)
    found = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if i < len(positional):
            found[str(i)] = positional[i]
    names = {a.arg for a in (*args.args, *args.kwonlyargs)}
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in names:
            found[keyword.arg] = keyword.arg
    return found


def _keys(keys: Optional[list[str]], which: list[bool]) -> Optional[frozenset[str]]:
    return None if keys is None else frozenset(k for k, w in zip(keys, which) if w)


def _self_paths(nodes: Sequence[ast.AST]) -> set[str]:
    """The ``self.<attr>`` chains that ``nodes`` mention, as dotted paths
    (``self.cfg.sizes`` -> ``cfg.sizes``; ``self.scores[i]`` -> ``scores``)."""
    found: set[str] = set()
    for node in nodes:
        chains = [inner for inner in ast.walk(node) if isinstance(inner, ast.Attribute)]
        links = {id(inner.value) for inner in chains if isinstance(inner.value, ast.Attribute)}
        for inner in chains:
            dotted = dotted_name_of(inner) if id(inner) not in links else None
            if dotted is not None and dotted.startswith("self."):
                found.add(dotted[len("self.") :])
    return found


def _overlap(read: Union[set[str], frozenset[str]], kept: Union[set[str], frozenset[str]]) -> bool:
    """Does a path of ``read`` hold or lie inside one of ``kept`` (``cfg`` and
    ``cfg.model``, ``cfg.model`` and ``cfg.model.head``), not beside it
    (``cfg.sizes`` and ``cfg.model``)?"""
    return any(a == b or a.startswith(b + ".") or b.startswith(a + ".") for a in read for b in kept)


def _spread(
    flow: list[_Binding],
    tainted: set[str],
    keeps: Callable[[_Binding], bool] = lambda binding: True,
) -> set[str]:
    """``tainted`` and the names bound from a value that mentions one of them
    (and that ``keeps``), to a fixed point; flow-insensitive."""
    if not tainted:
        return tainted
    changed = True
    while changed:
        changed = False
        for binding in flow:
            if binding.names & tainted and not binding.targets <= tainted and keeps(binding):
                tainted |= binding.targets
                changed = True
    return tainted


def _framework_no_grad(tree: ast.Module) -> frozenset[int]:
    """The methods (by id) of the module's top-level classes that a framework
    runs with grad disabled: a ``LightningModule``'s ``validation_step`` and
    its evaluation hooks (``ops.FRAMEWORK_NO_GRAD_METHODS``)."""
    found: set[int] = set()
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        lasts = [(dotted_name_of(base) or "").rsplit(".", 1)[-1] for base in node.bases]
        bases = [b for b in ops.FRAMEWORK_NO_GRAD_METHODS if any(x.endswith(b) for x in lasts)]
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and any(
                item.name in ops.FRAMEWORK_NO_GRAD_METHODS[b] for b in bases
            ):
                found.add(id(item))
    return frozenset(found)


def _parts(
    body: list[ast.stmt],
    function: Optional[_Function],
    owner: Optional[str],
    no_grad: bool,
    imports: Mapping[str, str],
    framework: AbstractSet[int] = frozenset(),
) -> Iterator[tuple[ast.stmt, ast.AST, Optional[_Function], Optional[str], bool]]:
    """The expressions of ``body`` that are not nested blocks, each with its
    statement, the function it runs in, that function's class, and whether
    grad is off (``framework``: the methods a framework runs with grad off)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in statement.decorator_list:
                yield statement, decorator, function, owner, no_grad
            # (a nested function runs when called, in a mode not known here)
            mode = decorated_mode(statement, imports) or id(statement) in framework
            inner_owner = owner if function is None else None
            yield from _parts(statement.body, statement, inner_owner, mode, imports, framework)
            continue
        if isinstance(statement, ast.ClassDef):
            yield from _parts(statement.body, None, statement.name, False, imports, framework)
            continue
        inside = mode_inside(statement, no_grad, imports)
        for block in blocks(statement):
            yield from _parts(block, function, owner, inside, imports, framework)
        for name, value in ast.iter_fields(statement):
            if name in ("body", "orelse", "handlers", "finalbody", "cases"):
                continue
            values = value if isinstance(value, list) else [value]
            for part in values:
                if isinstance(part, ast.AST):
                    yield statement, part, function, owner, no_grad


def _bindings_with_mode(
    function: _Scope, imports: Mapping[str, str], framework: AbstractSet[int] = frozenset()
) -> Iterator[tuple[ast.expr, ast.expr, bool, bool]]:
    """The function's assignments, each with whether grad is off where it
    runs and whether it is augmented (``x += v``)."""
    mode = False
    if not isinstance(function, ast.Module):
        mode = decorated_mode(function, imports) or id(function) in framework
    yield from _assignments(function.body, mode, imports)


def _assignments(
    body: list[ast.stmt], no_grad: bool, imports: Mapping[str, str]
) -> Iterator[tuple[ast.expr, ast.expr, bool, bool]]:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inside = mode_inside(statement, no_grad, imports)
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    yield item.optional_vars, item.context_expr, no_grad, False
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                yield target, statement.value, no_grad, False
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
            augmented = isinstance(statement, ast.AugAssign)
            yield statement.target, statement.value, no_grad, augmented
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            for target, source in _loop_parts(statement.target, statement.iter):
                yield target, source, no_grad, False
        for block in blocks(statement):
            yield from _assignments(block, inside, imports)


def _loop_parts(target: ast.expr, source: ast.expr) -> Iterator[tuple[ast.expr, ast.expr]]:
    """What each part of a loop's target is bound from: ``for labels, out in
    zip(targets, outputs)`` binds ``labels`` from ``targets`` only, and
    ``for i, x in enumerate(xs)`` ``i`` to a number (nested too)."""
    if (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(source, ast.Call)
        and isinstance(source.func, ast.Name)
        and source.func.id in ("zip", "enumerate")
        and not source.keywords
        and not any(isinstance(a, ast.Starred) for a in source.args)
        and not any(isinstance(e, ast.Starred) for e in target.elts)
    ):
        if source.func.id == "zip":
            parts = list(source.args)
        else:
            parts = [ast.Constant(value=0), *source.args[:1]]
        if len(parts) == len(target.elts):
            for element, part in zip(target.elts, parts):
                yield from _loop_parts(element, part)
            return
    yield target, source


def _plain_assignments(
    body: list[ast.stmt],
) -> Iterator[tuple[ast.expr, Optional[ast.expr]]]:
    """Every binding by an assignment in ``body`` and its blocks (not in
    the functions and classes it defines): the target and the value, or
    ``None`` for the value of a binding of another kind (a loop's target,
    ``with ... as``, an augmented assignment, an import)."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield ast.Name(id=statement.name, ctx=ast.Store()), None
            continue
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                yield target, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            yield statement.target, statement.value
        elif isinstance(statement, (ast.AugAssign, ast.For, ast.AsyncFor)):
            yield statement.target, None
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    yield item.optional_vars, None
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                yield ast.Name(id=(alias.asname or alias.name).split(".")[0], ctx=ast.Store()), None
        for block in blocks(statement):
            yield from _plain_assignments(block)


def _forward_pass(node: ast.expr) -> bool:
    """Does the expression hold a module's forward pass (``model(x)``,
    ``self.encoder(h)``, ``self(x)`` in a module's method) whose result it
    does not detach?"""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            dotted = dotted_name_of(inner.func)
            last = dotted.rsplit(".", 1)[-1] if dotted is not None else ""
            if (
                dotted is not None
                and (dotted == "self" or ops.names_a_forward_pass(last))
                and not last[:1].isupper()  # (``Classifier(backbone)``: a class made)
                and not (inner.args and all(literal(a) for a in inner.args))
            ):
                return True  # (``df.head(1)``: a forward pass is given tensors)
    return False


def _called(node: ast.AST, imports: Mapping[str, str]) -> Optional[str]:
    """The qualified name ``node`` calls (``numpy.stack`` for ``np.stack(xs)``),
    where ``node`` is a call of an imported name."""
    if not isinstance(node, ast.Call):
        return None
    dotted = dotted_name_of(node.func)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    qual = imports.get(head)
    if qual is None:
        return None
    return f"{qual}.{rest}" if rest else qual


def _host_call(node: ast.AST, imports: Mapping[str, str]) -> bool:
    """Is ``node`` a call whose result holds none of its arguments' tensors:
    a NumPy function (``np.asarray(x)``: an array in host memory), a library
    function of the measured table (``roc_auc_score(y, p)``: host values;
    ``library_table``), or torch's data pipeline (``DataLoader(ds)``: its
    batches are what the dataset reads)? A tensor on another device, or one
    that requires grad, raises in the first two and reaches nothing."""
    qual = _called(node, imports)
    return qual is not None and (
        qual == "numpy"
        or qual.startswith(("numpy.", ops.TORCH_DATA_PIPELINE))
        or qual in library_table.BY_NAME
    )


def _names_read(node: ast.expr, imports: Mapping[str, str]) -> Iterator[str]:
    """The names ``node`` reads for its value, as the facts of a function
    leave them. Left out: what is inside a call whose result holds none of
    its arguments' tensors (``_host_call``: ``np.asarray(x)``, a metric,
    ``DataLoader(Loader(path, stride=model.stride))``); an index (``d[k]`` is
    an element of ``d``, whatever ``k`` is); and what only a value's
    description reads (``_describes``: ``len(xs)``, ``x.shape``,
    ``obs.keys()``)."""
    stack: list[ast.AST] = [node]
    while stack:
        inner = stack.pop()
        if _host_call(inner, imports) or _describes(inner, imports):
            continue
        if isinstance(inner, ast.Name):
            yield inner.id
        if isinstance(inner, ast.Subscript):
            stack.append(inner.value)
            continue
        if isinstance(inner, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            yield from _comprehension_reads(inner, imports)
            continue
        stack.extend(ast.iter_child_nodes(inner))


def _comprehension_reads(
    node: Union[ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp],
    imports: Mapping[str, str],
) -> Iterator[str]:
    """The names a comprehension reads from the scope around it: what it
    iterates over, and what its element reads other than its own targets
    (``{k: segs[k].obs() for k in ready}`` reads ``segs`` and ``ready``,
    not an outer ``k``). A dict comprehension's key is left out, as an index
    is, and so are its filters: they choose elements, and hold none."""
    bound: set[str] = set()
    for generator in node.generators:
        yield from (n for n in _names_read(generator.iter, imports) if n not in bound)
        bound.update(assigned_names(generator.target))
    element = node.value if isinstance(node, ast.DictComp) else node.elt
    yield from (n for n in _names_read(element, imports) if n not in bound)


def _describes(node: ast.AST, imports: Mapping[str, str]) -> bool:
    """Does ``node`` read only what a value is, never a tensor of it: a
    builtin that keeps nothing of its argument (``len(xs)``, ``float(loss)``;
    ``ops.READ_ONLY_BUILTINS``), a tensor's metadata other than its device
    (``x.shape``, ``x.size()``; ``ops.METADATA_ATTRS``), or a mapping's keys
    (``obs.keys()``)?"""
    if isinstance(node, ast.Attribute):
        return node.attr in ops.METADATA_ATTRS and node.attr != "device"
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in ops.READ_ONLY_BUILTINS and func.id not in imports
    return isinstance(func, ast.Attribute) and (
        func.attr == "keys" or (func.attr in ops.METADATA_ATTRS and func.attr != "device")
    )


def _a_parameter(node: ast.expr) -> bool:
    """Is ``node`` a module's trainable parameter read directly:
    ``self.embs[lang].weight``, ``model.fc.bias`` (not ``.data``, not
    called: ``.weight`` of a name or of a chain of attributes and items)?"""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ops.PARAMETER_ATTRIBUTES
        and isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript))
    )


def _ends_with(node: ast.expr, methods: frozenset[str]) -> bool:
    """Does the expression end in a call of one of ``methods``, or pass
    through one on its outer chain (``x.detach().cpu()`` for ``detach``)?
    For a comprehension, its every element (``[o.cpu().numpy() for o in
    outs]``)."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        node = node.elt
    elif isinstance(node, ast.DictComp):
        node = node.value
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "data" and methods is _NO_GRAD:
            return True  # ``model(x).data``: a tensor that does not require grad
        if methods is _ON_CPU and _to_the_cpu(node):
            return True  # ``best.to("cpu")``, ``x.to(device="cpu")``
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


def _to_the_cpu(node: ast.expr) -> bool:
    """``x.to("cpu")``, ``x.to(device="cpu")``, ``x.to(torch.device("cpu"))``."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "to"
    ):
        return False
    target = node.args[0] if node.args else None
    for keyword in node.keywords:
        if keyword.arg == "device":
            target = keyword.value
    return target is not None and names_the_cpu_device(target)


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
    #: the arguments those calls move (``Call.moved_keys``, united; None: any)
    moved_keys: Optional[frozenset[str]] = frozenset()
    grad_keys: Optional[frozenset[str]] = frozenset()  #: the same for module outputs

    @classmethod
    def of(cls, name: str, calls: Sequence[tuple[Call, str]]) -> External:
        """Meet ``calls``, each with its place (``train.py:40``)."""
        device: Optional[str] = None
        grad: Optional[str] = None
        moved: Optional[str] = None
        grad_output: Optional[str] = None
        moved_keys: Optional[frozenset[str]] = frozenset()
        grad_keys: Optional[frozenset[str]] = frozenset()
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
            with_grad = call.passes_parameters_with_grad
            if call.passes_parameters and device is None:
                device = f"{where}, {PASSES_ON}"
            if (call.passes_parameters if with_grad is None else with_grad) and grad is None:
                grad = f"{where}, {PASSES_ON}"
            if call.moved and moved is None:
                moved = f"{where}, which passes " + (
                    f"on what {call.moved_from} gives it: a value moved to a device that may "
                    "be CUDA"
                    if call.moved_from
                    else "a value moved to a device that may be CUDA"
                )
            if call.grad_output and grad_output is None:
                grad_output = f"{where}, " + (
                    f"which passes on what {call.grad_from} gives it: a module's output "
                    "computed with grad enabled"
                    if call.grad_from
                    else "which passes a module's parameter, which requires grad"
                    if call.grad_parameter
                    else "which passes a module's output computed with grad enabled"
                )
            if call.moved:
                moved_keys = _union(moved_keys, call.moved_keys)
            if call.grad_output:
                grad_keys = _union(grad_keys, call.grad_keys)
        no_grad = all(call.no_grad and not call.value for call, _ in calls)
        return cls(
            no_grad, device or moved, grad or grad_output, moved, grad_output, moved_keys, grad_keys
        )


def _union(
    one: Optional[frozenset[str]], other: Optional[frozenset[str]]
) -> Optional[frozenset[str]]:
    return None if one is None or other is None else one | other
