"""Classes across files: how a base class calls the methods its subclasses
override (a template method and its hooks).

A base class that calls ``self.evaluating_forward(batch)`` inside
``torch.no_grad()`` decides the grad mode in which every override runs, and
it is the override's caller: the override's parameters are not entered from
"callers outside this file" but from that call. This module summarises, per
top-level class, from CPython's ``ast``:

- its bases, as qualified names the checked tree can resolve (``.base.Base``,
  ``pkg.models.Base``, or the name of a class of the same module);
- for each method it calls on ``self``: whether every such call is made with
  grad disabled (a ``with torch.no_grad():`` around it, or the calling method
  decorated so), and whether some call passes a value it moves
  (``x.cuda()``, ``x.to(device)``, ``device=``), which keeps the hook's
  parameters device evidence.

``inherited_calls`` walks the bases of a class (in the same module or, through
the engine's lookup, in other modules of the checked tree; at most
``_DEPTH`` classes up) and meets what they say of one method. Nothing is
imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import NamedTuple, Optional, Protocol, Union

from tensorlint.analysis import ops

#: How many classes up the bases are followed.
_DEPTH = 4
#: How many calls up, within a class, a value passed on is followed.
_CHAIN_DEPTH = 3


class SelfCall(NamedTuple):
    """What a class's calls of one method on ``self`` show."""

    line: int  #: the first call's line
    caller: str  #: the method that makes it
    no_grad: bool  #: every call is made with grad disabled
    moved: bool  #: some call passes a value it moves to a device
    #: some call passes a value computed from the calling method's parameters:
    #: the value still comes from the calling method's own callers
    passes_parameters: bool = False


class ClassSummary(NamedTuple):
    name: str
    line: int
    #: the bases, qualified as the module imports them (``.base.Base``), or
    #: the bare name of a class defined in the same module
    bases: tuple[str, ...]
    calls: Mapping[str, SelfCall]


class ClassLookup(Protocol):
    """Classes of the checked tree, as the engine provides them."""

    def lookup_class(
        self, qual: str
    ) -> Optional[tuple[ClassSummary, Mapping[str, ClassSummary], str, ClassLookup]]:
        """The class a qualified name names; the classes of its module; where
        it is (``pkg/base.py``); and the lookup as that module sees the tree."""


class Inherited(NamedTuple):
    """How the bases of a class call one of its methods."""

    no_grad: bool  #: every call the bases make is with grad disabled
    #: some call passes a value it moves, or one from its own parameters: the
    #: hook's parameters still take values from outside
    from_outside: bool
    where: str  #: the first call and its place (```Base.run()` at pkg/base.py:40``)


def inherited_calls(
    own: Mapping[str, ClassSummary],
    tree: Optional[ClassLookup],
    cls: str,
    method: str,
) -> Optional[Inherited]:
    """How the bases of ``cls`` (a class of this module) call ``self.<method>``;
    None when none of them does (or none can be read)."""
    found: Optional[Inherited] = None
    for _, resolved in _ancestors(own, tree, cls):
        if resolved is None:
            continue
        summary, place_there = resolved
        call = summary.calls.get(method)
        if call is not None:
            where = f"`{summary.name}.{call.caller}()` at " + (
                f"{place_there}:{call.line}" if place_there else f"line {call.line}"
            )
            outside = call.moved or call.passes_parameters
            if found is None:
                found = Inherited(call.no_grad, outside, where)
            else:
                found = Inherited(
                    found.no_grad and call.no_grad, found.from_outside or outside, found.where
                )
    return found


def is_module_class(
    own: Mapping[str, ClassSummary], tree: Optional[ClassLookup], cls: str, modules: frozenset[str]
) -> bool:
    """Does ``cls`` (a class of this module) derive from one of ``modules``
    (qualified names: ``torch.nn.Module``), through bases in this module or
    in other modules of the checked tree (``_DEPTH`` classes up)?"""
    return any(base in modules for base, _ in _ancestors(own, tree, cls))


def other_framework_class(tree: ClassLookup, qual: str) -> bool:
    """Is ``qual`` a class of the checked tree (``pkg.layers.Highway``) one of
    whose ancestors, through the tree's modules, is another framework's
    (``tensorflow.keras.layers.Layer``, ``flax.linen.Module``)? Its
    instances, and what they compute, are no torch values."""
    if qual.startswith(("torch.", "numpy.")) or not qual.rsplit(".", 1)[-1][:1].isupper():
        return False
    found = tree.lookup_class(qual)
    if found is None:
        return False
    summary, classes, _, there = found
    return any(ops.is_other_framework(base) for base, _ in _ancestors(classes, there, summary.name))


def _ancestors(
    own: Mapping[str, ClassSummary], tree: Optional[ClassLookup], cls: str
) -> Iterator[tuple[str, Optional[tuple[ClassSummary, str]]]]:
    """The bases of ``cls`` (a class of this module), then theirs, ``_DEPTH``
    classes up, each once: its name as its module writes it and, where the
    checked tree holds it, its summary and place (``pkg/base.py``; empty in
    this module)."""
    start = own.get(cls)
    if start is None:
        return
    #: (a base, the classes of the module naming it, the tree as it sees it, its place)
    frontier: list[tuple[str, Mapping[str, ClassSummary], Optional[ClassLookup], str]]
    frontier = [(base, own, tree, "") for base in start.bases]
    seen: set[tuple[str, str]] = {("", cls)}
    for _ in range(_DEPTH):
        following: list[tuple[str, Mapping[str, ClassSummary], Optional[ClassLookup], str]]
        following = []
        for base, classes, lookup, place in frontier:
            resolved = _resolve(base, classes, lookup, place)
            if resolved is None:
                yield base, None
                continue
            summary, classes_there, lookup_there, place_there = resolved
            if (place_there, summary.name) in seen:
                continue
            seen.add((place_there, summary.name))
            yield base, (summary, place_there)
            following += [(b, classes_there, lookup_there, place_there) for b in summary.bases]
        frontier = following
        if not frontier:
            break


def _resolve(
    base: str,
    classes: Mapping[str, ClassSummary],
    lookup: Optional[ClassLookup],
    place: str,
) -> Optional[tuple[ClassSummary, Mapping[str, ClassSummary], Optional[ClassLookup], str]]:
    if "." not in base:
        local = classes.get(base)
        return (local, classes, lookup, place) if local is not None else None
    if lookup is None or base.startswith(("torch.", "numpy.")):
        return None
    found = lookup.lookup_class(base)
    if found is None:
        return None
    summary, classes_there, where, lookup_there = found
    return summary, classes_there, lookup_there, where


# -- summarising a module's classes (CPython's ``ast``) ------------------------


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a module runs at its top level: inside ``if``, ``try``
    and ``else`` blocks too (``try: import tensorflow as tf``), not in the
    handlers of ``except ImportError:`` (the fallback, ``tf = None``)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)


def _lazy_import(node: ast.stmt) -> Optional[tuple[str, str]]:
    """``tf = importlib.import_module("tensorflow")`` and the other lazy
    imports of ``ops.LAZY_IMPORT_CALLS``: (name, module); else None."""
    if not (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
    ):
        return None
    callee = dotted_name_of(node.value.func)
    if callee is None:
        return None
    texts = [
        a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
        for a in node.value.args
    ]
    module = ops.lazy_import(callee, texts)
    return (node.targets[0].id, module) if module is not None else None


def all_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name for the module's top-level imports,
    relative ones included (``from .base import B`` -> ``.base.B``), those
    made in its top-level ``if`` and ``try`` blocks and its lazy imports
    (``hub = LazyLoader("hub", globals(), "tensorflow_hub")``) too."""
    found: dict[str, str] = {}
    for node in _top_level(tree.body):
        lazy = _lazy_import(node)
        if lazy is not None:
            found[lazy[0]] = lazy[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    found[top] = top
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            sep = "" if prefix.endswith(".") or not prefix else "."
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = f"{prefix}{sep}{alias.name}"
                elif not node.level:
                    found.update(ops.star_exports(prefix))
    return found


def star_imports(tree: ast.Module) -> list[str]:
    """The modules a module star-imports at its top level, in order
    (``from .ops import *`` -> ``.ops``, ``from . import *`` -> ``.``)."""
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            prefix = "." * node.level + (node.module or "")
            if prefix:
                found.append(prefix)
    return found


class LazyClasses(Mapping[str, ClassSummary]):
    """A module's top-level classes, each summarised when first asked for."""

    def __init__(
        self,
        nodes: Mapping[str, ast.ClassDef],
        imports: Mapping[str, str],
        source: Optional[str] = None,
    ) -> None:
        self.nodes = nodes
        self.imports = imports
        self._source = source
        self._lines: Optional[list[str]] = None
        self._done: dict[str, ClassSummary] = {}

    def __getitem__(self, name: str) -> ClassSummary:
        found = self._done.get(name)
        if found is None:
            node = self.nodes[name]
            text = None
            if self._source is not None and node.end_lineno is not None:
                if self._lines is None:
                    self._lines = self._source.splitlines(keepends=True)
                text = "".join(self._lines[node.lineno - 1 : node.end_lineno])
            found = self._done[name] = summarize_class(node, self.imports, self.nodes, text)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def reexport(self, name: str) -> Optional[str]:
        """What an imported name of this module is (``__init__.py`` re-exports)."""
        return self.imports.get(name)


def summarize_class(
    node: ast.ClassDef,
    imports: Mapping[str, str],
    local: Mapping[str, object],
    text: Optional[str] = None,
) -> ClassSummary:
    bases = []
    for base in node.bases:
        dotted = dotted_name_of(base)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        if head in imports:
            bases.append(imports[head] + (f".{rest}" if rest else ""))
        elif not rest and dotted in local:
            bases.append(dotted)
    return ClassSummary(node.name, node.lineno, tuple(bases), _LazyCalls(node, imports, text))


class _LazyCalls(Mapping[str, SelfCall]):
    """A class's calls on ``self``, by method name: which names are called is
    one walk of the class; how (grad mode, arguments) is worked out for a
    name when it is asked for (a check asks for its hooks only)."""

    def __init__(
        self, node: ast.ClassDef, imports: Mapping[str, str], text: Optional[str] = None
    ) -> None:
        self.node = node
        self.imports = imports
        #: the class's source text, when known: a name it never writes after a
        #: dot is not called on ``self`` (no walk needed to say so)
        self.text = text
        self._callers: Optional[dict[str, list[tuple[_Method, str]]]] = None
        self._done: dict[str, SelfCall] = {}
        self._tainted: dict[int, set[str]] = {}

    def callers(self) -> dict[str, list[tuple[_Method, str]]]:
        """Method name -> the methods (with their ``self``) that call it."""
        if self._callers is None:
            self._callers = {}
            for item in self.node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                args = [*item.args.posonlyargs, *item.args.args]
                if not args or any(
                    _decorator_name(d) == "staticmethod" for d in item.decorator_list
                ):
                    continue
                me = args[0].arg
                for name in dict.fromkeys(
                    n.func.attr  # type: ignore[attr-defined]
                    for n in ast.walk(item)
                    if _is_self_call(n, me)
                ):
                    self._callers.setdefault(name, []).append((item, me))
        return self._callers

    def __getitem__(self, name: str) -> SelfCall:
        found = self._done.get(name)
        if found is None:
            if name not in self:
                raise KeyError(name)
            found = self._done[name] = self._summarize(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.callers())

    def __len__(self) -> int:
        return len(self.callers())

    def __contains__(self, name: object) -> bool:
        if self.text is not None and isinstance(name, str) and f".{name}" not in self.text:
            return False
        return name in self.callers()

    def _summarize(self, wanted: str) -> SelfCall:
        found: Optional[SelfCall] = None
        for item, me in self.callers()[wanted]:
            mode = decorated_mode(item, self.imports)
            for call, no_grad in _self_calls(item.body, me, mode, self.imports):
                assert isinstance(call.func, ast.Attribute)
                if call.func.attr != wanted:
                    continue
                passed = [*call.args, *(k.value for k in call.keywords)]
                moved = any(moves(arg) for arg in passed)
                tainted = self._tainted.get(id(item))
                if tainted is None:
                    tainted = self._tainted[id(item)] = from_parameters(item, me)
                outside = any(mentions(arg, tainted) for arg in passed) and self._entered(
                    item.name, _CHAIN_DEPTH
                )
                if found is None:
                    found = SelfCall(call.lineno, item.name, no_grad, moved, outside)
                else:
                    found = found._replace(
                        no_grad=found.no_grad and no_grad,
                        moved=found.moved or moved,
                        passes_parameters=found.passes_parameters or outside,
                    )
        assert found is not None  # (every name listed has a call)
        return found

    def _entered(self, method: str, depth: int) -> bool:
        """Do the values ``self.<method>`` is given come from callers outside
        the class? Yes when the class never calls it (or mentions it other
        than by a call: ``callback=self.step``), or passes it its own
        callers' values; no when every call here passes values the calling
        method makes (``play_steps`` calling ``self.env_step(res["actions"])``):
        those calls are its callers, as a function's calls in its file are."""
        callers = self.callers().get(method)
        if not callers or depth <= 0:
            return True
        if self.text is not None and self.text.count(f".{method}") > self.text.count(f".{method}("):
            return True  # passed as a value: called where no one here sees
        for item, me in callers:
            tainted = self._tainted.get(id(item))
            if tainted is None:
                tainted = self._tainted[id(item)] = from_parameters(item, me)
            for call, _ in _self_calls(item.body, me, False, self.imports):
                assert isinstance(call.func, ast.Attribute)
                if call.func.attr != method:
                    continue
                passed = [*call.args, *(k.value for k in call.keywords)]
                if any(mentions(arg, tainted) for arg in passed) and self._entered(
                    item.name, depth - 1
                ):
                    return True
        return False


_Method = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists nested in ``statement``: its body, ``else`` and
    ``finally`` blocks, its handlers' and ``match`` cases' bodies."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(statement, field, None)
        if isinstance(block, list):
            yield block
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def mode_inside(statement: ast.stmt, no_grad: bool, imports: Mapping[str, str]) -> bool:
    """Is grad off in the blocks of ``statement`` (a ``with torch.no_grad():``
    turns it off, a ``with torch.enable_grad():`` on), given ``no_grad`` outside?"""
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            verdict = grad_mode(item.context_expr, imports)
            if verdict is not None:
                no_grad = verdict
    return no_grad


def decorated_mode(
    function: Union[ast.FunctionDef, ast.AsyncFunctionDef], imports: Mapping[str, str]
) -> bool:
    """Is grad off in the body of ``function`` by its decorators (not for an
    ``async def``, whose body runs when awaited)?"""
    mode = False
    if isinstance(function, ast.FunctionDef):
        for decorator in function.decorator_list:
            verdict = grad_mode(decorator, imports)
            if verdict is not None:
                mode = verdict
    return mode


def _self_calls(
    body: list[ast.stmt], me: str, no_grad: bool, imports: Mapping[str, str]
) -> Iterator[tuple[ast.Call, bool]]:
    """The calls ``me.<name>(...)`` in ``body``, each with whether grad is off."""
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # a nested def runs when it is called, in a grad mode not known here
            yield from _calls_in(statement, me, False)
            continue
        inside = mode_inside(statement, no_grad, imports)
        for block in blocks(statement):
            yield from _self_calls(block, me, inside, imports)
        for part in _own_parts(statement):
            yield from _calls_in(part, me, no_grad)


def _calls_in(node: ast.AST, me: str, no_grad: bool) -> Iterator[tuple[ast.Call, bool]]:
    """The calls ``me.<name>(...)`` in an expression; one inside a lambda runs
    when the lambda is called, in a grad mode not known here."""
    if isinstance(node, ast.Lambda):
        no_grad = False
    if _is_self_call(node, me):
        assert isinstance(node, ast.Call)
        yield node, no_grad
    for child in ast.iter_child_nodes(node):
        yield from _calls_in(child, me, no_grad)


def _own_parts(statement: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of a statement that are not nested blocks."""
    for name, value in ast.iter_fields(statement):
        if name in ("body", "orelse", "handlers", "finalbody", "cases"):
            continue
        if name == "items":  # ``with`` items run before the block's grad mode
            yield from value
            continue
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def from_parameters(function: Union[ast.FunctionDef, ast.AsyncFunctionDef], me: str) -> set[str]:
    """The names in ``function`` that hold values computed from its parameters
    (``self`` aside): the parameters, and the names assigned or looped over
    from them (in any order, to a fixed point; flow-insensitive)."""
    args = function.args
    tainted = {
        a.arg
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
        if a is not None and a.arg != me
    }
    found: list[tuple[ast.expr, ast.expr]] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            found += [(target, node.value) for target in node.targets]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            found.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            found.append((node.target, node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            found.append((node.optional_vars, node.context_expr))
    changed = True
    while changed:
        changed = False
        for target, value in found:
            if mentions(value, tainted):
                for name in assigned_names(target):
                    if name not in tainted:
                        tainted.add(name)
                        changed = True
    return tainted


def mentions(node: ast.expr, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def assigned_names(target: ast.expr) -> Iterator[str]:
    """The names an assignment target binds (``a``, ``a, *b``; not ``self.x``
    or ``d[k]``, which bind no name)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from assigned_names(element)
    elif isinstance(target, ast.Starred):
        yield from assigned_names(target.value)


def _is_self_call(node: ast.AST, me: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == me
    )


def moves(node: ast.expr) -> bool:
    """Does the expression move a value to a device (``x.cuda()``,
    ``x.to(device)``, ``f(x, device=dev)``, ``torch.cuda.FloatTensor(n)``)?
    A move to ``"cpu"`` does not count."""
    for inner in ast.walk(node):
        if not isinstance(inner, ast.Call):
            continue
        func = inner.func
        if dotted_name_of(func) in ops.CUDA_TENSOR_TYPES:
            return True
        if isinstance(func, ast.Attribute) and func.attr in ops.DEVICE_CHANGING_METHODS:
            target = inner.args[0] if inner.args else None
            if func.attr != "to" or (target is not None and not cpu_or_dtype(target)):
                return True
        for keyword in inner.keywords:
            value = keyword.value
            if keyword.arg == "device" and not (
                isinstance(value, ast.Constant) and value.value in ("cpu", None)
            ):
                return True
    return False


def names_the_cpu(node: ast.expr) -> bool:
    """``"cpu"``, or a call of a function named ``cpu`` with no arguments: a
    backend's CPU device (``F.cpu()``), or a tensor on the CPU, whose device
    ``x.to(t.cpu())`` takes."""
    if isinstance(node, ast.Constant):
        return node.value == "cpu"
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return (dotted_name_of(node.func) or "").rsplit(".", 1)[-1] == "cpu"
    return False


def names_the_cpu_device(node: ast.expr) -> bool:
    """``names_the_cpu``, or ``torch.device("cpu")`` (a call of a function
    whose name ends in ``device``, given one argument that names it)."""
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and (dotted_name_of(node.func) or "").endswith("device")
    ):
        node = node.args[0]
    return names_the_cpu(node)


def cpu_or_dtype(node: ast.expr) -> bool:
    """``"cpu"`` (``names_the_cpu``), ``torch.float32``, ``x.dtype``: not a
    move to an accelerator."""
    if names_the_cpu(node):
        return True
    if isinstance(node, ast.Constant):
        return node.value in ops.DTYPE_NAMES
    dotted = dotted_name_of(node)
    if dotted is None:
        return False
    last = dotted.rsplit(".", 1)[-1]
    return dotted in ops.DTYPE_NAMES or "dtype" in last.lower() or last in ("float", "long")


def grad_mode(expr: ast.expr, imports: Mapping[str, str]) -> Optional[bool]:
    """True for a no-grad context manager or decorator, False for a grad one."""
    call = expr if isinstance(expr, ast.Call) else None
    dotted = dotted_name_of(call.func if call is not None else expr)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    qual = imports.get(head, head) + (f".{rest}" if rest else "")
    mode = None
    if call is not None:
        mode = (
            call.args[0]
            if call.args
            else next((k.value for k in call.keywords if k.arg == "mode"), None)
        )
    if qual in ops.NO_GRAD_CONTEXTS:
        if qual.endswith("inference_mode") and isinstance(mode, ast.Constant):
            return mode.value is not False
        return True
    if qual in ops.GRAD_CONTEXTS:
        return False
    if qual in ops.SET_GRAD_ENABLED and isinstance(mode, ast.Constant):
        if mode.value is False:
            return True
        if mode.value is True:
            return False
    if not qual.startswith("torch.") and ops.NO_GRAD_HELPER.match(qual.rsplit(".", 1)[-1]):
        return True  # the project's own (``@smart_inference_mode()``)
    return None


def _decorator_name(node: ast.expr) -> Optional[str]:
    return node.id if isinstance(node, ast.Name) else None


def literal(node: ast.expr) -> bool:
    """A number, a string, a bool (or a tuple or list of them), ``-1``."""
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(literal(e) for e in node.elts)
    return False


def dotted_name_of(node: ast.expr) -> Optional[str]:
    """``a.b.c`` for a chain of names and attributes (CPython's ``ast``), else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
