"""Function summaries: what a function returns of its parameters, and what it
writes of them. Computed once per file from CPython's ``ast`` (ten times
cheaper than LibCST), kept as plain data so they can be cached and read by
the analysis of other files.

A summary says, for one module function or method:

- ``alias``: the function returns a conversion of one of its parameters
  (``return torch.from_numpy(x)``, ``return np.asarray(t.cpu())``): the
  caller's value and the result share memory;
- ``writes``: the parameters it writes in place (``x[:, k] = 0``,
  ``x.mul_(2)``, ``np.copyto(out, v)``), directly or through a function of
  the same module, and the parameters whose state it updates (it steps an
  optimizer over a module it was given, or loads a state dict into it);
- ``returns``: what holds of every value it returns (``cpu``, ``nograd``),
  for the device and grad rules.

The analysis is a may-analysis for aliases and writes (any path counts) and a
must-analysis for what the returns prove (every ``return`` must agree). It
looks one level into functions of the same module (two rounds), and never
runs or imports anything.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any, NamedTuple, Optional, Union

from tensorlint.analysis import library_table, ops, tensor_methods
from tensorlint.analysis.classes import (
    ClassSummary,
    LazyClasses,
    SelfCall,
    all_imports,
    assigned_names,
    cpu_or_dtype,
    decorated_mode,
    grad_mode,
    literal,
    names_the_cpu,
    names_the_cpu_device,
    star_imports,
)
from tensorlint.analysis.classes import dotted_name_of as _dotted
from tensorlint.analysis.pytree import parse

#: An alias of a parameter: (parameter, how). ``view`` is the parameter or a
#: view of it; ``tview`` a view made by a torch-only method (``.cpu()``), so a
#: NumPy wrapper of it is a conversion; anything else names the conversion.
Alias = tuple[str, str]

CONVERSIONS = ("from_numpy", "numpy", "as_tensor")

#: What a summary's write does to the parameter, for messages.
WRITES = "writes"
#: a write that replaces every element without reading any (``x[:] = v``,
#: ``out=x``, ``np.copyto(x, v)``, ``x.copy_(v)``): the parameter is a buffer to fill
FILLS = "fills"
STEPS = "steps an optimizer over"
LOADS = "loads a state dict into"

_FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
_OPTIMIZER_NAME = re.compile(r"(?:^|_)(?:opt|optim|optimizer|optimiser)s?(?:_|$|\d)", re.I)


class Write(NamedTuple):
    line: int
    what: str = WRITES
    via: str = ""  #: the function of the module the write goes through


#: in an ``Element``'s ``returns``: the position is a tensor (``x.detach()``)
TENSOR_MADE = "tensor"
#: in an ``Element``'s ``returns``: the position is a forward pass's own value
#: (``logits = self.net(x)`` under ``no_grad``, ``return 0, logits``): torch data
FORWARD_MADE = "output"
#: in a summary's ``returns``: every value it returns is its own module's
#: parameters or buffers (``return self.named_parameters()``): where the
#: module's users moved it
OWNED = "owned"
#: in a summary's ``returns``: every value it returns turns grad off, as a
#: context manager or as a decorator (``return torch.no_grad()``; a project's
#: ``smart_inference_mode()`` returning a nested ``decorate`` of the kind below)
GRAD_OFF = "grad-off"
#: in a summary's ``returns``: every value it returns is its argument wrapped
#: to run with grad off (``return torch.no_grad()(fn)``): the function is a
#: no-grad decorator itself
GRAD_OFF_WRAP = "grad-off-wrap"
#: in a summary's ``returns``: every value it returns is another framework's
#: (``return tf.convert_to_tensor(a)``, a forward pass given one): no torch
#: tensor, whatever its callers pass it
OTHER_MADE = "other"


def _returns_at_once(node: ast.FunctionDef) -> bool:
    """Is the body of ``node`` one ``return`` (after a docstring), undecorated?"""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return not node.decorator_list and len(body) == 1 and isinstance(body[0], ast.Return)


def _turns_grad_off(node: ast.expr, imports: Mapping[str, str]) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, and a choice between
    them called (``(torch.inference_mode if new else torch.no_grad)()``)."""
    if not isinstance(node, ast.Call):
        return False
    if grad_mode(node, imports) is True:
        return True
    func = node.func
    return (
        isinstance(func, ast.IfExp)
        and not node.args
        and not node.keywords
        and grad_mode(func.body, imports) is True
        and grad_mode(func.orelse, imports) is True
    )


def _makes_tensor(node: ast.expr) -> bool:
    """Is ``node`` a call of a method only tensors have that gives a tensor,
    perhaps moved or cast after it (``x.detach().cpu()``)?"""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (node.func.attr in _KEEPS_KIND or node.func.attr in ops.CAST_METHODS)
    ):
        node = node.func.value
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ops.TENSOR_ONLY_METHODS
        and node.func.attr not in ops.TENSOR_ONLY_INFO_METHODS
    )


#: methods whose result is what their receiver is (a tensor, a module)
_KEEPS_KIND = frozenset({"cpu", "cuda", "to"})


class Element(NamedTuple):
    """What one position of the tuples a function returns is (``return
    x.detach().cpu(), model(x)``: the first proven, the second an output)."""

    returns: frozenset[str] = frozenset()
    grad_output: bool = False
    device_output: bool = False

    def meet(self, other: Element) -> Element:
        """Over two ``return`` statements: what both prove, what either may be."""
        return Element(
            self.returns & other.returns,
            self.grad_output or other.grad_output,
            self.device_output or other.device_output,
        )


class FunctionSummary(NamedTuple):
    name: str  #: ``f`` or ``Class.method``
    line: int
    params: tuple[str, ...]  #: positional parameters as a caller binds them
    kwonly: tuple[str, ...] = ()
    #: (parameter, conversion kind, line of the conversion)
    alias: Optional[tuple[str, str, int]] = None
    writes: Mapping[str, Write] = MappingProxyType({})
    returns: frozenset[str] = frozenset()
    #: parameters whose values flow into what it returns (through any computation)
    carries: tuple[str, ...] = ()
    #: it may return a module's output computed with grad enabled (``return
    #: net(x)``, ``return self.encoder(h).softmax(-1)``), not detached
    grad_output: bool = False
    #: it may return a value it moved to a device or made on one (``return
    #: x.to(self.device)``, ``return model(batch.cuda())``), not moved back
    device_output: bool = False
    #: every ``return`` gives a tensor it set to require grad (``return
    #: torch.tensor(a, requires_grad=True)``, ``return w.requires_grad_()``)
    grad_made: bool = False
    #: parameters naming the device it may move what it returns to (``x =
    #: x.to(device)``, ``return x, y``): the caller's argument decides
    moves_to: tuple[str, ...] = ()
    #: parameters whose values reach what it returns only through calls of
    #: functions imported from elsewhere (``replicate_input(x)``): what those
    #: do is not known here, so a guess about the parameter does not pass
    carries_unseen: tuple[str, ...] = ()
    #: where every ``return`` gives a tuple of the same length (no ``*``):
    #: what each position is; else empty
    elements: tuple[Element, ...] = ()
    #: parameters whose device what it returns keeps: it returns a module's
    #: output computed from them (``return self.model(batch)``: a forward pass
    #: runs where its inputs are), or views, arithmetic and tensor methods of
    #: them, not moved elsewhere
    keeps_device: tuple[str, ...] = ()
    #: it may return the very value a forward pass returned (``out =
    #: self.model(batch)``, ``return out``), with grad enabled or not: a
    #: tensor, or a tuple or dict of them
    forward_output: bool = False
    #: the one device it chose and moves to (``x.to(self.device)``:
    #: ``"self.device"``; a module constant: ``"DEVICE"``), where every move
    #: it makes names that device; else empty
    device_target: str = ""
    #: the flag every move it makes is made under (``if use_cuda: x =
    #: x.cuda()``: ``"use_cuda"``); else empty
    device_flag: str = ""
    #: where every ``return`` gives a tuple (no ``*``) but not all of one
    #: length: what each position is, one entry per length
    shapes: tuple[tuple[Element, ...], ...] = ()

    def unpacked(self, count: int) -> tuple[Element, ...]:
        """What each of ``count`` names unpacking a call binds (``a, b =
        f(x)``): the positions of the tuples of that length it returns. A
        function that returns tuples of two lengths (``return y, i`` on one
        path, ``return y, i, e, p, q`` on another) gives the unpacking the
        right length only: unpacking any other raises before the names are
        bound. Empty where not known."""
        if len(self.elements) == count:
            return self.elements
        return next((shape for shape in self.shapes if len(shape) == count), ())

    @property
    def names(self) -> frozenset[str]:
        """Every parameter a caller can pass by keyword."""
        return frozenset(self.params) | frozenset(self.kwonly)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "line": self.line,
            "params": list(self.params),
            "kwonly": list(self.kwonly),
            "alias": list(self.alias) if self.alias is not None else None,
            "writes": {k: [w.line, w.what, w.via] for k, w in sorted(self.writes.items())},
            "returns": sorted(self.returns),
            "carries": list(self.carries),
            "grad_output": self.grad_output,
            "device_output": self.device_output,
            "grad_made": self.grad_made,
            "moves_to": list(self.moves_to),
            "carries_unseen": list(self.carries_unseen),
            "elements": [
                [sorted(e.returns), e.grad_output, e.device_output] for e in self.elements
            ],
            "keeps_device": list(self.keeps_device),
            "forward_output": self.forward_output,
            "device_target": self.device_target,
            "device_flag": self.device_flag,
            "shapes": [
                [[sorted(e.returns), e.grad_output, e.device_output] for e in shape]
                for shape in self.shapes
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> FunctionSummary:
        """Raises ValueError (or a TypeError/KeyError) on anything malformed."""
        alias = data["alias"]
        if alias is not None:
            param, kind, line = alias
            alias = (_text(param), _text(kind), _int(line))
        return cls(
            _text(data["name"]),
            _int(data["line"]),
            tuple(_text(p) for p in data["params"]),
            tuple(_text(p) for p in data["kwonly"]),
            alias,
            {
                _text(k): Write(_int(v[0]), _text(v[1]), _text(v[2]))
                for k, v in data["writes"].items()
            },
            frozenset(_text(r) for r in data["returns"]),
            tuple(_text(c) for c in data["carries"]),
            _bool(data.get("grad_output", False)),
            _bool(data.get("device_output", False)),
            _bool(data.get("grad_made", False)),
            tuple(_text(p) for p in data.get("moves_to", ())),
            tuple(_text(p) for p in data.get("carries_unseen", ())),
            tuple(
                Element(frozenset(_text(r) for r in e[0]), _bool(e[1]), _bool(e[2]))
                for e in data.get("elements", ())
            ),
            tuple(_text(p) for p in data.get("keeps_device", ())),
            _bool(data.get("forward_output", False)),
            _text(data.get("device_target", "")),
            _text(data.get("device_flag", "")),
            tuple(
                tuple(
                    Element(frozenset(_text(r) for r in e[0]), _bool(e[1]), _bool(e[2]))
                    for e in shape
                )
                for shape in data.get("shapes", ())
            ),
        )


def _flag(test: ast.expr) -> Optional[str]:
    """``use_cuda`` for ``if use_cuda:`` (a name, an attribute, or
    ``torch.cuda.is_available()``), as ``facts.flag_test`` names it."""
    if isinstance(test, ast.Call) and not test.args:
        name = _dotted(test.func)
        return f"{name}()" if name is not None and name.endswith("cuda.is_available") else None
    if isinstance(test, (ast.Name, ast.Attribute)):
        return _dotted(test)
    return None


def _none_test(test: ast.expr) -> tuple[Optional[str], Optional[str]]:
    """The name each branch of ``if test:`` sees bound to ``None``: ``x`` in
    the ``else`` of ``if x is not None:``, in the body of ``if x is None:``."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and _is_const(test.comparators[0], None)
    ):
        if isinstance(test.ops[0], ast.IsNot):
            return None, test.left.id
        if isinstance(test.ops[0], ast.Is):
            return test.left.id, None
    return None, None


def _cuda_test(test: ast.expr) -> Optional[bool]:
    """True for ``torch.cuda.is_available()``, False for ``not
    torch.cuda.is_available()``; None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _cuda_test(test.operand)
        return None if inner is None else not inner
    flag = _flag(test) if isinstance(test, ast.Call) and not test.keywords else None
    return True if flag is not None and flag.endswith("()") else None


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not a boolean")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError("not an integer")
    return value


class ModuleSummary(NamedTuple):
    functions: Mapping[str, FunctionSummary] = MappingProxyType({})
    #: module-level aliases of a name (``MappedTriples = LongTensor``): name -> target
    aliases: Mapping[str, str] = MappingProxyType({})
    #: top-level classes: their bases and how they call methods on ``self``
    #: (``classes.py``)
    classes: Mapping[str, ClassSummary] = MappingProxyType({})
    #: the module's top-level imports, name -> qualified name (relative ones
    #: kept relative): what it re-exports (``__init__.py``)
    imports: Mapping[str, str] = MappingProxyType({})
    #: the modules it star-imports, in order (``from .ops import *`` -> ``.ops``)
    stars: tuple[str, ...] = ()
    #: the line where the module, when imported, makes CUDA the default device
    #: of new tensors (``torch.set_default_tensor_type("torch.cuda.FloatTensor")``
    #: at its top level, maybe under ``if torch.cuda.is_available():``); 0: none
    default_cuda: int = 0
    #: ... and whether that setting reaches ``torch.Tensor(...)`` too (the
    #: default tensor *type* does; ``set_default_device`` does not)
    default_cuda_legacy: bool = False
    #: the names the module binds once, at its top level, to the CPU device
    #: (``DEVICE = torch.device("cpu")`` in a test suite's ``conftest.py``):
    #: a module that imports one moves nothing off the CPU with it
    cpu_names: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "functions": {name: f.to_json() for name, f in sorted(self.functions.items())},
            "aliases": dict(sorted(self.aliases.items())),
            "classes": {
                name: {
                    "line": c.line,
                    "bases": list(c.bases),
                    "calls": {m: list(call) for m, call in sorted(c.calls.items())},
                }
                for name, c in sorted(self.classes.items())
            },
            "imports": dict(sorted(self.imports.items())),
            "stars": list(self.stars),
            "default_cuda": [self.default_cuda, self.default_cuda_legacy],
            "cpu_names": sorted(self.cpu_names),
        }

    @classmethod
    def from_json(cls, data: Any) -> ModuleSummary:
        if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
            raise ValueError("not a module summary")
        functions = {_text(k): FunctionSummary.from_json(v) for k, v in data["functions"].items()}
        classes = {
            _text(name): ClassSummary(
                name,
                _int(c["line"]),
                tuple(_text(b) for b in c["bases"]),
                {
                    _text(m): SelfCall(
                        _int(line), _text(caller), _bool(no_grad), _bool(moved), _bool(outside)
                    )
                    for m, (line, caller, no_grad, moved, outside) in c["calls"].items()
                },
            )
            for name, c in data.get("classes", {}).items()
        }
        aliases = {_text(k): _text(v) for k, v in data["aliases"].items()}
        imports = {_text(k): _text(v) for k, v in data.get("imports", {}).items()}
        stars = tuple(_text(m) for m in data.get("stars", ()))
        line, legacy = data.get("default_cuda", (0, False))
        cpu_names = frozenset(_text(n) for n in data.get("cpu_names", ()))
        return cls(
            functions, aliases, classes, imports, stars, _int(line), _bool(legacy), cpu_names
        )

    def alias_chain(self, name: str) -> list[str]:
        """``MappedTriples`` -> [``LongTensor``, ``torch.Tensor``] (at most 3 steps)."""
        chain: list[str] = []
        while name in self.aliases and len(chain) < 3:
            name = self.aliases[name]
            chain.append(name)
        return chain

    def alias_functions(self) -> frozenset[str]:
        """The functions (``f``, ``Class.m``) that return an alias of an argument."""
        if isinstance(self.functions, _Lazy):
            return self.functions.alias_functions()
        return frozenset(name for name, f in self.functions.items() if f.alias is not None)

    def alias_names(self) -> frozenset[str]:
        """How the module calls its functions that return an alias of an
        argument: ``f`` for a function, ``m`` for a method (``self.m``)."""
        return frozenset(name.rsplit(".", 1)[-1] for name in self.alias_functions())


EMPTY_SUMMARY = ModuleSummary()


def summarize(tree: ast.Module, source: Optional[str] = None) -> ModuleSummary:
    """The summaries of a module's functions and of its top-level classes' methods
    (computed on demand); ``source`` lets ``alias_names`` skip functions
    whose text has no conversion."""
    found = all_imports(tree)
    imported = {**found, **_renamed(tree, found)}
    imports = {k: v for k, v in imported.items() if not v.startswith(".")}
    functions: list[tuple[str, _FunctionNode, bool]] = []
    aliases: dict[str, str] = {}
    class_nodes: dict[str, ast.ClassDef] = {}
    for node in tree.body:
        alias = _type_alias(node)
        if alias is not None:
            aliases[alias[0]] = alias[1]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append((node.name, node, False))
        elif isinstance(node, ast.ClassDef):
            class_nodes[node.name] = node
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions.append((f"{node.name}.{item.name}", item, True))
    stars = tuple(star_imports(tree))
    default = default_cuda_call(tree) if source is None or "set_default_" in source else None
    line, legacy = default if default is not None else (0, False)
    cpu_names = cpu_constants(tree) if source is None or "cpu" in source else frozenset()
    classes: Mapping[str, ClassSummary] = EMPTY_SUMMARY.classes
    if class_nodes or any(isinstance(n, ast.ImportFrom) and n.level for n in tree.body):
        classes = LazyClasses(class_nodes, imported, source)
    if not functions and not class_nodes and not isinstance(classes, LazyClasses):
        if not aliases and not imported and not stars and not cpu_names:
            return EMPTY_SUMMARY
        return ModuleSummary({}, aliases, imports=imported, stars=stars, default_cuda=line,
                             default_cuda_legacy=legacy, cpu_names=cpu_names)  # fmt: skip
    lazy = _Lazy(imports, functions, source, frozenset(imported)) if functions else {}
    return ModuleSummary(lazy, aliases, classes, imported, stars, line, legacy, cpu_names)


def cpu_constants(tree: ast.Module) -> frozenset[str]:
    """The names ``tree`` binds to the CPU device (``"cpu"``,
    ``torch.device("cpu")``) in a plain assignment at its top level, and
    nowhere else: not again, not in a function (``global``), not in a loop,
    a ``with`` or an ``import``."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and names_the_cpu_device(value):
            found.add(target.id)
    if not found:
        return frozenset()
    bound: dict[str, int] = {}
    for inner in ast.walk(tree):
        names: list[str] = []
        if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
            names = [inner.id]
        elif isinstance(inner, (ast.Global, ast.Nonlocal)):
            names = list(inner.names)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).partition(".")[0] for a in inner.names]
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [inner.name]
        for name in names:
            if name in found:
                bound[name] = bound.get(name, 0) + 1
    return frozenset(n for n in found if bound.get(n) == 1)


def default_cuda_call(tree: ast.Module, top_level: bool = True) -> Optional[tuple[int, bool]]:
    """(line, reaches ``torch.Tensor(...)``) of the first call that makes
    CUDA the default device of new tensors (``ops.default_cuda``): at the
    module's top level (in its ``if`` / ``try`` / ``with`` blocks too: what
    importing it runs), or, not ``top_level``, anywhere in it."""
    restored = set() if top_level else _restored_settings(tree)
    found = [
        (call.lineno, legacy)
        for call in (_top_level_calls(tree.body) if top_level else ast.walk(tree))
        if isinstance(call, ast.Call)
        and id(call) not in restored
        and (legacy := ops.default_cuda(_dotted(call.func) or "", _setting(call))) is not None
    ]
    return min(found) if found else None


def _restored_settings(tree: ast.Module) -> set[int]:
    """The calls in the body of a ``try`` whose ``finally`` sets the default
    again (``try: torch.set_default_tensor_type(torch.cuda.FloatTensor);
    self.check() finally: torch.set_default_tensor_type(torch.FloatTensor)``):
    a setting for that block only, not the file's."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(
            isinstance(call, ast.Call)
            and (_dotted(call.func) or "").rsplit(".", 1)[-1] in ops.DEFAULT_DEVICE_SETTERS
            for statement in node.finalbody
            for call in ast.walk(statement)
        ):
            continue
        found.update(id(call) for statement in node.body for call in ast.walk(statement))
    return found


def _top_level_calls(body: list[ast.stmt]) -> Iterator[ast.expr]:
    for node in body:
        if isinstance(node, ast.Expr):
            yield node.value
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (node.body, getattr(node, "orelse", ()), getattr(node, "finalbody", ())):
                yield from _top_level_calls(list(block))
            for handler in getattr(node, "handlers", ()):
                yield from _top_level_calls(handler.body)


def _setting(call: ast.Call) -> Optional[str]:
    """What a setter's first argument reads: a string, ``torch.device("...")``'s
    string, or a dotted name (``torch.cuda.FloatTensor``)."""
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Call) and _dotted(first.func) in ("torch.device", "device"):
        first = first.args[0] if first.args else None
    if isinstance(first, ast.Constant):
        return first.value if isinstance(first.value, str) else None
    return _dotted(first) if first is not None else None


def _renamed(tree: ast.Module, imported: Mapping[str, str]) -> dict[str, str]:
    """Names a module binds once, at its top level, to an imported function
    or class (``zeros = torch.zeros``; ``imported``: the module's imports):
    what they name, as imports do."""
    found: dict[str, str] = {}
    bound: dict[str, int] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            for name in assigned_names(target):
                bound[name] = bound.get(name, 0) + 1
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        dotted = _dotted(node.value)
        if dotted is None or "." not in dotted:
            continue
        head, _, rest = dotted.partition(".")
        qual = imported.get(head)
        if qual is not None and not qual.startswith("."):
            found[node.targets[0].id] = f"{qual}.{rest}"
    return {k: v for k, v in found.items() if bound.get(k) == 1 and k not in imported}


class _Lazy(Mapping[str, FunctionSummary]):
    """A module's function summaries, each computed when first asked for
    (a check asks for the few its calls resolve to). A function's summary
    asks for its callees' in turn; a cycle sees no summary for the callee."""

    def __init__(
        self,
        imports: Mapping[str, str],
        functions: list[tuple[str, _FunctionNode, bool]],
        source: Optional[str],
        imported: frozenset[str] = frozenset(),
    ) -> None:
        self.imports = imports
        #: every name the module imports, relative imports' included
        self.imported = imported
        self.nodes = {name: (node, method) for name, node, method in functions}
        #: lines where the text holds a conversion (None: not known)
        self.conversion_lines: Optional[list[int]] = None
        if source is not None:
            starts = conversion_starts(source)
            self.conversion_lines = [source.count("\n", 0, s) + 1 for s in starts[:1]]
            if len(starts) > 1:  # one pass over the text for the rest
                line, last = self.conversion_lines[0], starts[0]
                for start in starts[1:]:
                    line += source.count("\n", last, start)
                    last = start
                    self.conversion_lines.append(line)
        self.done: dict[str, Optional[FunctionSummary]] = {}

    def __bool__(self) -> bool:
        return bool(self.nodes)  # without computing every summary

    def get(self, name: str, default: Any = None) -> Any:
        if name in self.done:
            found = self.done[name]
            return default if found is None else found
        entry = self.nodes.get(name)
        if entry is None:
            return default
        self.done[name] = None  # in progress: a recursive call sees nothing
        summary = _Summarizer(self.imports, self, name, self.imported).run(*entry)
        if (
            summary.alias
            or summary.writes
            or summary.returns
            or summary.carries
            or summary.carries_unseen
            or summary.grad_output
            or summary.device_output
            or summary.grad_made
            or summary.moves_to
            or summary.keeps_device
            or summary.forward_output
            or any(e.returns - {TENSOR_MADE} or e.grad_output or e.device_output
                   for shape in (summary.elements, *summary.shapes) for e in shape)
        ):  # fmt: skip
            self.done[name] = summary
            return summary
        return default

    def __getitem__(self, name: str) -> FunctionSummary:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter([name for name in self.nodes if self.get(name) is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def alias_functions(self) -> frozenset[str]:
        """Functions whose text holds a conversion and that return one."""
        found = set()
        lines = self.conversion_lines
        for name, (node, _) in self.nodes.items():
            if lines is not None:
                first = bisect.bisect_left(lines, node.lineno)
                if first >= len(lines) or lines[first] > (node.end_lineno or node.lineno):
                    continue
            summary = self.get(name)
            if summary is not None and summary.alias is not None:
                found.add(name)
        return frozenset(found)


#: A text without any of these holds no function that returns a conversion.
CONVERSION_TEXT = re.compile(r"from_numpy|\.numpy\s*\(|asarray|as_tensor|asanyarray")
_CONVERSION_WORDS = ("from_numpy", "asarray", "as_tensor", "asanyarray")
_NUMPY_CALL = re.compile(r"\.numpy\s*\(")


def conversion_starts(text: str) -> list[int]:
    """Where ``CONVERSION_TEXT`` matches, in order: one scan per word (each
    starts with a literal, which ``re`` scans for fast; no two overlap)."""
    starts = [m.start() for m in _NUMPY_CALL.finditer(text)] if ".numpy" in text else []
    for word in _CONVERSION_WORDS:
        index = text.find(word)
        while index >= 0:
            starts.append(index)
            index = text.find(word, index + len(word))
    return sorted(starts)


def has_conversion(text: str) -> bool:
    """``CONVERSION_TEXT.search(text)``, answered by substring tests first
    (an alternation without a literal prefix is slow to scan for)."""
    if any(word in text for word in _CONVERSION_WORDS):
        return True
    return ".numpy" in text and _NUMPY_CALL.search(text) is not None


def alias_functions_of(source: str) -> frozenset[str]:
    """``summarize(ast.parse(source)).alias_functions()``; a text without a
    conversion is not parsed. Raises what ``ast.parse`` raises."""
    if not has_conversion(source):
        return frozenset()
    return summarize(parse(source), source).alias_functions()


def _type_alias(node: ast.stmt) -> Optional[tuple[str, str]]:
    """``X = a.B`` or ``X: TypeAlias = B`` at module level: (``X``, ``a.B``)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    dotted = _dotted(value)
    if not isinstance(target, ast.Name) or dotted is None or dotted == target.id:
        return None
    return target.id, dotted


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


#: what a Python number proves: it is on no device and never requires grad
_PLAIN = frozenset({"cpu", "nograd"})
_OTHER = frozenset({OTHER_MADE})
_PLAIN_OR_OTHER = _PLAIN | _OTHER


def _number_params(args: ast.arguments) -> Iterator[str]:
    """The parameters that default to a number (``start_lr=1e-7``) or are
    annotated ``int`` or ``float``, and whose annotation names no tensor:
    callers pass numbers there."""
    every = (*args.posonlyargs, *args.args)
    defaults: dict[str, Optional[ast.expr]] = dict.fromkeys((a.arg for a in every), None)
    for arg, given in zip(every[len(every) - len(args.defaults) :], args.defaults):
        defaults[arg.arg] = given
    for arg, maybe in zip(args.kwonlyargs, args.kw_defaults):
        defaults[arg.arg] = maybe
    for arg in (*every, *args.kwonlyargs):
        annotation = arg.annotation
        if annotation is not None:
            if isinstance(annotation, ast.Name) and annotation.id in ("int", "float"):
                yield arg.arg
            continue  # (``x: Tensor | float = 1.0``: a tensor is welcome too)
        default = defaults.get(arg.arg)
        if isinstance(default, ast.Constant) and _is_number(default):
            yield arg.arg


def _is_number(node: ast.expr) -> bool:
    """A numeric literal (``0``, ``-1.5``), a size (``x.shape[0]``, ``len(xs)``),
    or ``float(...)`` / ``int(...)`` of anything."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _is_number(node.operand)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        return node.value.attr == "shape"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ops.NUMBER_RESULT_BUILTINS
        and len(node.args) == 1
        and not node.keywords
    )


def _reads_a_shape(node: ast.expr) -> bool:
    """``x.shape``, ``x.size()``, ``img.spatial_size()`` (``ops.SHAPE_METHOD``):
    a tuple of numbers."""
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and bool(ops.SHAPE_METHOD.search(node.func.attr))
        and not node.args
        and not node.keywords
    )


def _arithmetic(left: frozenset[str], right: frozenset[str]) -> frozenset[str]:
    """What arithmetic of two values proves: a tensor where either is one, on
    the CPU or without grad only where both are."""
    made = frozenset({TENSOR_MADE}) if TENSOR_MADE in left | right else frozenset()
    return (left & right & _PLAIN) | made


def is_abstract(node: ast.AST) -> bool:
    """Is the function ``node`` a placeholder for its overrides: a body (after
    a docstring) of one ``raise NotImplementedError``, ``pass`` or ``...``?"""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and _is_const(statement.value, Ellipsis):
        return True
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def _is_const(node: Optional[ast.expr], value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _sets_requires_grad(call: ast.Call) -> bool:
    """``torch.tensor(a, requires_grad=True)`` and the like."""
    return any(k.arg == "requires_grad" and _is_const(k.value, True) for k in call.keywords)


def _basic_index(node: ast.expr) -> bool:
    """``a[0]``, ``a[1:]``, ``a[..., None]``, ``a[:, k]``: views, not copies."""
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    for element in elements:
        if isinstance(element, ast.Constant) and isinstance(element.value, bool):
            return False
        if not isinstance(element, (ast.Constant, ast.Slice, ast.Name, ast.UnaryOp)):
            return False
    return True


#: Keywords that say where a call puts what it makes or loads.
_PLACING_KEYWORDS = frozenset({"device", "map_location"})


_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class _State(NamedTuple):
    """What a summarizer has proved of its local names at one point (what
    they may be is read in the code's order and needs no copy): kept
    before alternative paths, put back for each, and met after them."""

    proofs: dict[str, frozenset[str]]
    held: dict[str, Optional[frozenset[str]]]

    @classmethod
    def of(cls, summarizer: _Summarizer) -> _State:
        """The summarizer's proofs, copied."""
        return cls(dict(summarizer.proofs), dict(summarizer.held))

    def put(self, summarizer: _Summarizer) -> None:
        """Make (a copy of) these the summarizer's proofs: the paths change theirs."""
        summarizer.proofs = dict(self.proofs)
        summarizer.held = dict(self.held)

    @staticmethod
    def _proved(state: _State, name: str) -> Optional[frozenset[str]]:
        """What ``name`` proves in ``state``: of a list made empty here, what
        every element added proves (None: none added yet, nothing to refute)."""
        if name in state.held:
            held = state.held[name]
            return None if held is None else held & _PLAIN
        return state.proofs.get(name, frozenset())

    @staticmethod
    def meet(
        states: list[_State], params: AbstractSet[str]
    ) -> tuple[dict[str, frozenset[str]], dict[str, Optional[frozenset[str]]]]:
        """What is proved after any of ``states`` (``proofs``, ``held``): a
        value is on the CPU or without grad (every element appended to a
        list is) only where each path that binds the name proves it (a local
        no other path binds is unbound there: reading it raises; a parameter
        is bound on entry, to what callers pass)."""
        proofs: dict[str, frozenset[str]] = {}
        for name in {n for state in states for n in state.proofs}:
            proved = [
                _State._proved(state, name)
                for state in states
                if name in state.proofs or name in params
            ]
            known = [p for p in proved if p is not None]
            proofs[name] = frozenset.intersection(*known) if known else _PLAIN
        held: dict[str, Optional[frozenset[str]]] = {}
        for name in states[0].held:
            if all(name in state.held for state in states):
                found = [h for h in (state.held[name] for state in states) if h is not None]
                held[name] = frozenset.intersection(*found) if found else None
        return proofs, held


class _Summarizer:
    def __init__(self, imports: Mapping[str, str], known: Mapping[str, FunctionSummary],
                 name: str, imported: frozenset[str] = frozenset()) -> None:  # fmt: skip
        # ``known.get`` computes a callee's summary on demand (``_Lazy``)
        self.imports = imports
        self.imported = imported
        self.known = known
        self.name = name
        self.cls = name.split(".")[0] if "." in name else None
        self.env: dict[str, set[Alias]] = {}
        self.proofs: dict[str, frozenset[str]] = {}
        #: lists made empty here (``out = []``): what holds of every value
        #: appended so far (None: nothing yet)
        self.held: dict[str, Optional[frozenset[str]]] = {}
        self.writes: dict[str, Write] = {}
        self.aliases: list[tuple[str, str, int]] = []
        self.returns: Optional[frozenset[str]] = None
        self.modules: set[str] = set()  #: parameters used as modules
        self.optimizers: set[str] = set()  #: local names bound to a torch optimizer
        self.step: Optional[int] = None  #: line of an optimizer step
        self.me: Optional[str] = None
        self.instance = False
        #: name -> the parameters whose values flow into it
        self.flows: dict[str, set[str]] = {}
        #: name -> the parameters whose device it keeps (``_device_flow``)
        self.device_flows: dict[str, set[str]] = {}
        self.keeps_device: set[str] = set()
        #: local names bound to what a forward pass returned (``out = net(x)``)
        self.forwarded: set[str] = set()
        self.forward_output = False
        self.carries: set[str] = set()
        self.params: set[str] = set()
        self.module_params: set[str] = set()
        #: local names holding a module's output computed with grad enabled
        self.made: set[str] = set()
        #: grad mode is off here (a ``with torch.no_grad():`` block, a decorator)
        self.no_grad = False
        self.grad_output = False
        #: local names holding a value moved to a device or made on one
        self.on_device: set[str] = set()
        self.device_output = False
        #: the devices the moves seen name (dotted; ``"?"``: not by a name)
        self.move_targets: set[str] = set()
        #: the flag each move seen was made under (``""``: none)
        self.move_flags: set[str] = set()
        #: the flag the statement being read is under (``if use_cuda:``)
        self.flag = ""
        #: the statement being read runs only where CUDA is not available
        #: (the ``else`` of ``if torch.cuda.is_available():``)
        self.without_cuda = False
        #: local names holding a tensor set to require grad here
        self.set_grad: set[str] = set()
        #: every ``return`` so far gives a tensor set to require grad
        self.grad_made: Optional[bool] = None
        #: local name -> the parameters naming the device it was moved to
        self.moved_to: dict[str, set[str]] = {}
        self.moves_to: set[str] = set()
        #: per length of the tuples returned so far, what each position is
        #: (None: a ``return`` of something else)
        self.shapes: Optional[dict[int, list[Element]]] = {}
        #: functions defined in this one that are no-grad decorators (``GRAD_OFF_WRAP``)
        self.wrappers: set[str] = set()
        #: functions defined in this one, by name: their summaries
        self.local: dict[str, FunctionSummary] = {}

    # -- the walk ------------------------------------------------------------

    def run(self, node: _FunctionNode, method: bool) -> FunctionSummary:
        args = node.args
        positional = [a.arg for a in (*args.posonlyargs, *args.args)]
        static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
        )
        if method and not static and positional:
            self.me = positional[0]
            positional = positional[1:]
            #: ``cls`` of a class method makes an instance; ``self`` is the module
            self.instance = not any(
                isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list
            )
        kwonly = [a.arg for a in args.kwonlyargs]
        self.params = {*positional, *kwonly}
        #: the parameters annotated as a torch module (``extractor: nn.Module``)
        self.module_params = {
            a.arg
            for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
            if a.annotation is not None
            and (_dotted(a.annotation) or "").rsplit(".", 1)[-1] == "Module"
        }
        self.no_grad = decorated_mode(node, self.imports)
        for param in (*positional, *kwonly):
            self.env[param] = {(param, "view")}
            self.flows[param] = {param}
            self.device_flows[param] = {param}
        for param in _number_params(args):
            # ``start_lr: float = 1e-7``: callers pass numbers, not tensors
            self.proofs[param] = _PLAIN
        for statement in node.body:
            self.statement(statement)
        if self.step is not None:
            for param in sorted(self.modules):
                self.writes.setdefault(param, Write(self.step, STEPS))
        returned = _dotted(node.returns) if node.returns is not None else None
        if (returned or "").rsplit(".", 1)[-1] == "Module":
            # ``def load_model(model_class, ...) -> nn.Module``: it returns a
            # module (built by calling a class), not a module's output
            self.grad_output = self.forward_output = False
        alias = self.aliases[0] if self.aliases else None
        shapes = tuple(tuple(shape) for shape in (self.shapes or {}).values())
        return FunctionSummary(
            self.name,
            node.lineno,
            tuple(positional),
            tuple(kwonly),
            alias,
            {k: v for k, v in self.writes.items() if k in self.env and not k.startswith("*")},
            self.returns or frozenset(),
            tuple(p for p in (*positional, *kwonly) if p in self.carries),
            self.grad_output,
            self.device_output,
            bool(self.grad_made),
            tuple(p for p in (*positional, *kwonly) if p in self.moves_to),
            tuple(
                p
                for p in (*positional, *kwonly)
                if _UNSEEN + p in self.carries and p not in self.carries
            ),
            shapes[0] if len(shapes) == 1 else (),
            tuple(sorted(self.keeps_device)),
            self.forward_output,
            self._sole(self.move_targets),
            self._sole(self.move_flags),
            shapes if len(shapes) > 1 else (),
        )

    def _sole(self, found: set[str]) -> str:
        """The one device (or flag) every move here names, where it returns a
        moved value (``FunctionSummary.device_target`` / ``device_flag``)."""
        return next(iter(found)) if self.device_output and len(found) == 1 else ""

    def _moved(self, target: Optional[ast.expr]) -> None:
        """Note a move to ``target`` (None: not named) under the current flag."""
        name = _dotted(target) if target is not None else None
        self.move_targets.add(name or "?")
        self.move_flags.add(self.flag)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.FunctionDef) and _returns_at_once(node):
            # a nested decorator (``def decorate(fn): return torch.no_grad()(fn)``)
            inner = _Summarizer(self.imports, self.known, node.name, self.imported)
            if GRAD_OFF_WRAP in inner.run(node, False).returns:
                self.wrappers.add(node.name)
            return
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            # a helper defined here (``def test(loader): ...``): what its calls return
            inner = _Summarizer(self.imports, self.known, node.name, self.imported)
            self.local[node.name] = inner.run(node, False)
            self.env.pop(node.name, None)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        for call in _calls(node):
            self.call(call)
        if isinstance(node, ast.Assign):
            flow = self.flow(node.value)
            device_flow = self._device_flow(node.value)
            forwarded = self._forward_pass(node.value)
            for target in node.targets:
                for name in assigned_names(target):
                    self.flows[name] = flow
                    self.device_flows[name] = device_flow
                    (self.forwarded.add if forwarded else self.forwarded.discard)(name)
                stored = target
                while isinstance(stored, ast.Subscript):  # ``scores[k] = out``
                    stored = stored.value
                if stored is not target and isinstance(stored, ast.Name):
                    # (into a tensor: the value is copied where the tensor is,
                    # without grad where grad is off)
                    tensor = TENSOR_MADE in self.proofs.get(stored.id, frozenset())
                    if not (tensor and self.no_grad):
                        self._store(stored.id, [node.value], device=not tensor)
            aliases = self.alias(node.value)
            proofs = self.prove(node.value)
            if self.no_grad and self._computes(node.value):
                proofs = proofs | {"nograd"}  # ``out = net(x)`` under ``no_grad``
            optimizer = self._is_optimizer_ctor(node.value)
            made = self.module_output(node.value)
            moved = self.device_value(node.value)
            grad = self.requires_grad_value(node.value)
            to = self.device_params(node.value)
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    # ``result[k] = v``: the container holds what is stored in it
                    if moved:
                        self.on_device.add(target.value.id)
                    if made:
                        self.made.add(target.value.id)
                    written = target.value.id
                    if written in self.held:
                        # ``out[i] = y.cpu()`` into a list made here: what
                        # every element is (a list made empty has none to set)
                        before = self.held[written]
                        if before is None:
                            del self.held[written]
                        else:
                            self.held[written] = before & proofs
                    if written in self.proofs and not self.no_grad and "nograd" not in proofs:
                        # a tensor written into keeps its device, not its freedom from grad
                        self.proofs[written] = self.proofs[written] - {"nograd"}
                self.bind(target, aliases, proofs, optimizer)
                self.mark(target, made)
                if isinstance(target, ast.Name) and _is_empty_list(node.value, self.qualified):
                    self.held[target.id] = None
                elif (
                    isinstance(target, ast.Tuple)
                    and isinstance(node.value, ast.Tuple)
                    and len(target.elts) == len(node.value.elts)
                ):
                    # ``scores, labels = [], []``: each a list made empty here
                    for bound, part in zip(target.elts, node.value.elts):
                        if isinstance(bound, ast.Name) and _is_empty_list(part, self.qualified):
                            self.held[bound.id] = None
                elif isinstance(target, ast.Name):
                    shown = _list_display(node.value)
                    if shown:
                        # ``out = [torch.zeros(0, 6)] * n``: what every element is
                        self.held[target.id] = self._every(shown)
                self._bind_index_pair(target, node.value)
                self.unpacked(target, node.value)
                self.mark_device(target, moved)
                for name in assigned_names(target):
                    self.moved_to[name] = to
                    (self.set_grad.add if grad else self.set_grad.discard)(name)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.bind(node.target, self.alias(node.value), self.prove(node.value), False)
            self.mark(node.target, self.module_output(node.value))
            self.mark_device(node.target, self.device_value(node.value))
        elif isinstance(node, ast.AugAssign):
            if self.module_output(node.value):
                self.mark(node.target, True)
            if isinstance(node.target, ast.Name) and node.target.id in self.proofs:
                # ``total += v``: what both the running value and ``v`` prove
                name = node.target.id
                self.proofs[name] = _arithmetic(self.proofs[name], self.prove(node.value))
            self.write(node.target, node.lineno)
            for name in assigned_names(node.target):
                self.flows[name] = self.flows.get(name, set()) | self.flow(node.value)
                self.device_flows[name] = self.device_flows.get(name, set()) | self._device_flow(
                    node.value
                )
        elif isinstance(node, ast.Return):
            self.on_return(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            if isinstance(node.target, ast.Name):
                self.env[node.target.id] = self._iterated(node.iter)
                self.proofs.pop(node.target.id, None)
            self.mark(node.target, False)
            # the rows of a tensor on the device are there too
            self.mark_device(node.target, self.device_value(node.iter))
            for name in self._parameter_targets(node.target, node.iter):
                self.made.add(name)
            for name in assigned_names(node.target):
                self.flows[name] = self.flow(node.iter)
                self.device_flows[name] = self._device_flow(node.iter)
            self.paths([node.body], through=True)  # (a loop may run no turn)
            self.body(node.orelse)
        elif isinstance(node, ast.If):
            flag = _flag(node.test)
            outer_flag = self.flag
            if flag is not None:
                self.flag = flag  # ``if use_cuda: x = x.cuda()``
            outer_cuda = self.without_cuda
            # ``if torch.cuda.is_available(): ... else: return x``: no CUDA there
            cuda = _cuda_test(node.test)
            self.paths(
                [node.body, node.orelse],
                flags=(flag or outer_flag, outer_flag),
                without_cuda=(outer_cuda or cuda is False, outer_cuda or cuda is True),
                nones=_none_test(node.test),
            )
            self.flag = outer_flag
            self.without_cuda = outer_cuda
        elif isinstance(node, ast.While):
            self.paths([node.body], through=True)
            self.body(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            outer = self.no_grad
            for item in node.items:
                verdict = grad_mode(item.context_expr, self.imports)
                if verdict is not None:
                    self.no_grad = verdict
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, set(), frozenset(), False)
            self.body(node.body)
            self.no_grad = outer
        elif isinstance(node, _TRY):
            tried: ast.Try = node  # type: ignore[assignment]  # (or ``ast.TryStar``: same fields)
            # (a handler may start anywhere in the body: from where it began, here)
            self.paths([tried.body + tried.orelse, *(h.body for h in tried.handlers)])
            self.body(tried.finalbody)
        elif _MATCH is not None and isinstance(node, _MATCH):
            cases = [case.body for case in node.cases]  # type: ignore[attr-defined]
            self.paths(cases, through=True)

    def _bind_index_pair(self, target: ast.expr, value: ast.expr) -> None:
        """``_, predicted = out.max(1)``: the values are what ``out`` is, the
        indices are on its device and never require grad."""
        source = _index_pair_source(value, self.qualified)
        if source is None or not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != 2:
            return
        values, indices = target.elts
        proved = self.prove(source)
        if isinstance(values, ast.Name):
            self.proofs[values.id] = proved
        if isinstance(indices, ast.Name):
            self.proofs[indices.id] = (proved & {"cpu"}) | {"nograd"}

    def body(self, *suites: list[ast.stmt]) -> None:
        for suite in suites:
            for statement in suite:
                self.statement(statement)

    def paths(
        self,
        suites: list[list[ast.stmt]],
        through: bool = False,
        flags: Optional[tuple[str, ...]] = None,
        without_cuda: Optional[tuple[bool, ...]] = None,
        nones: Optional[tuple[Optional[str], ...]] = None,
    ) -> None:
        """Read the alternative ``suites`` (an ``if``'s two branches, a
        ``try``'s body and handlers). What a value is proved to be (on the
        CPU, without grad) is worked out for each from the state before them
        and kept after only where every one proves it (``_State.meet``): a
        name bound on the CPU in one branch and moved in the other proves
        nothing after. What a value may be (moved, a forward pass's output,
        an alias, the parameters flowing into it) is read in the code's
        order, the suites one after the other, as the rest of the summary
        is: joining every branch's may-facts made the branches of a backend
        switch tested twice (``if backend == "torch": ...`` then again)
        look mixed, each branch's inputs reaching the other's outputs.
        ``through``: none of them may run (a loop's body, ``match`` cases);
        ``flags``: the device flag each suite runs under; ``without_cuda``:
        whether each runs only where CUDA is not available; ``nones``: the
        name each runs with bound to ``None`` (the other branch of ``if x is
        not None:``). A suite that ends
        in ``return``, ``raise``, ``break`` or ``continue`` leaves nothing
        behind."""
        before = _State.of(self)
        after = [before] if through else []
        for n, suite in enumerate(suites):
            before.put(self)
            if flags is not None:
                self.flag = flags[n]
            if without_cuda is not None:
                self.without_cuda = without_cuda[n]
            none = nones[n] if nones is not None else None
            if none is not None:
                self._none(none)
            self.body(suite)
            if not (suite and isinstance(suite[-1], _LEAVES)):
                after.append(_State.of(self))
        _State(*_State.meet(after or [before], self.params)).put(self)

    def _none(self, name: str) -> None:
        """``name`` holds ``None`` here: no tensor (what it may be otherwise
        is read in the code's order, ``paths``)."""
        if name in self.proofs or name in self.params:
            self.proofs[name] = _PLAIN

    def bind(self, target: ast.expr, aliases: set[Alias], proofs: frozenset[str],
             optimizer: bool) -> None:  # fmt: skip
        if isinstance(target, ast.Name):
            self.env[target.id] = aliases
            self.proofs[target.id] = proofs
            self.local.pop(target.id, None)
            self.held.pop(target.id, None)
            if optimizer:
                self.optimizers.add(target.id)
            else:
                self.optimizers.discard(target.id)
        elif isinstance(target, ast.Subscript):
            self.write(target, target.lineno, FILLS if _selects_all(target) else WRITES)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, set(), frozenset(), False)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, set(), frozenset(), False)

    def _iterated(self, iterable: ast.expr) -> set[Alias]:
        """``for p in net.parameters()``: parts of ``net``; ``for row in x``: views of ``x``."""
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr in ops.PARAMETER_ITERATORS
        ):
            self._module_use(iterable.func.value)
            return self.alias(iterable.func.value)
        return self.alias(iterable)

    # -- aliases -------------------------------------------------------------

    def alias(self, node: ast.expr) -> set[Alias]:
        if isinstance(node, ast.Name):
            return set(self.env.get(node.id, ()))
        if isinstance(node, ast.Attribute):
            return self.alias(node.value)  # a view, or a part of the object
        if isinstance(node, ast.Subscript):
            return self.alias(node.value) if _basic_index(node.slice) else set()
        if isinstance(node, ast.Call):
            return self._call_alias(node)
        if isinstance(node, ast.IfExp):
            return self.alias(node.body) | self.alias(node.orelse)
        if isinstance(node, ast.BoolOp):
            found: set[Alias] = set()
            for value in node.values:
                found |= self.alias(value)
            return found
        if isinstance(node, ast.NamedExpr):
            aliases = self.alias(node.value)
            self.env[node.target.id] = aliases
            return aliases
        return set()

    def _call_alias(self, node: ast.Call) -> set[Alias]:
        func = node.func
        qual = self.qualified(func)
        if qual is not None:
            first = node.args[0] if node.args else None
            if first is None:
                return set()
            if qual == ops.FROM_NUMPY:
                return _converted(self.alias(first), "from_numpy")
            if qual in ops.AS_TENSOR_FUNCS:
                if _keyword(node, "dtype") is not None or _keyword(node, "device") is not None:
                    return set()
                return _converted(self.alias(first), "as_tensor")
            if qual in ops.NUMPY_VIEW_FUNCS and not _keyword(node, "dtype"):
                if _is_const(_keyword(node, "copy"), True):
                    return set()
                return {(p, "numpy" if k == "tview" else k) for p, k in self.alias(first)}
            return set()
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "numpy":
                return _converted(self.alias(func.value), "numpy")
            if _is_view_method(node, method):
                aliases = self.alias(func.value)
                if method in ops.TORCH_VIEW_METHODS and method not in ops.NUMPY_VIEW_METHODS:
                    return {(p, "tview" if k == "view" else k) for p, k in aliases}
                return aliases
        callee = self.callee(func)
        if callee is not None and callee.alias is not None:
            param, kind, _ = callee.alias
            passed = bind_arguments(node, callee)
            value = passed.get(param)
            if value is not None:
                return _converted(self.alias(value), kind)
        return set()

    def callee(self, func: ast.expr) -> Optional[FunctionSummary]:
        """A function of this module called by name, or a method through ``self``."""
        if isinstance(func, ast.Name) and func.id in self.local:
            return self.local[func.id]
        if isinstance(func, ast.Name) and func.id not in self.env:
            return self.known.get(func.id)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == self.me
            and self.cls is not None
        ):
            return self.known.get(f"{self.cls}.{func.attr}")
        return None

    def qualified(self, func: ast.expr) -> Optional[str]:
        dotted = _dotted(func)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.env:
            return None
        qual = self.imports.get(head)
        if qual is None:
            return None
        return f"{qual}.{rest}" if rest else qual

    # -- writes --------------------------------------------------------------

    def write(self, target: ast.expr, line: int, what: str = WRITES, via: str = "") -> None:
        while isinstance(target, ast.Subscript):  # ``x[mask] = v`` writes ``x``
            target = target.value
        for param, _ in self.alias(target):
            known = self.writes.get(param)
            if known is None or (known.what == FILLS and what != FILLS):
                self.writes[param] = Write(line, what, via)  # (a write that reads wins)

    def call(self, node: ast.Call) -> None:
        func = node.func
        line = node.lineno
        for keyword in node.keywords:
            if keyword.arg in ops.OUT_KEYWORDS:
                read = any(ast.dump(a) == ast.dump(keyword.value) for a in node.args)
                self.write(keyword.value, line, WRITES if read else FILLS)
            if keyword.arg == "inplace" and _is_const(keyword.value, True) and node.args:
                self.write(node.args[0], line)
        qual = self.qualified(func)
        if qual is not None:
            if node.args and (
                qual in ops.NUMPY_INPLACE_FUNCS
                or (qual.startswith("torch.") and qual.endswith("_"))
            ):
                fills = qual in ops.FILL_FUNCS or qual.startswith(ops.FILL_MODULES)
                self.write(node.args[0], line, FILLS if fills else WRITES)
            return
        if isinstance(func, ast.Name) and func.id in self.env:
            self._module_use(func)  # ``model(x)``: a forward pass
        if isinstance(func, ast.Attribute):
            method = func.attr
            receiver = func.value
            if ops.in_place_method(method) is not None:
                whole = method in ops.FILL_METHODS and isinstance(receiver, ast.Name)
                self.write(receiver, line, FILLS if whole else WRITES)
            elif method in ops.STATE_LOADING_METHODS:
                self.write(receiver, line, LOADS)
            elif method in ops.OPTIMIZER_STEP_METHODS and self._is_optimizer(receiver):
                if self.step is None:
                    self.step = line
            elif method in ops.MODULE_USE_METHODS:
                self._module_use(receiver)
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ops.CONTAINER_STORE_METHODS
            and isinstance(func.value, ast.Name)
            and node.args
            and self.module_output(node.args[-1])
        ):
            self.made.add(func.value.id)  # ``params.append(p.view(-1))``
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ops.CONTAINER_STORE_METHODS
            and isinstance(func.value, ast.Name)
            and node.args
            and self.device_value(node.args[-1])
        ):
            self.on_device.add(func.value.id)  # ``out.append(row.mean(0))``
        holder = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(holder, ast.Subscript):  # ``by_key[k].append(y.cpu())``: a dict of lists
            holder = holder.value
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ops.CONTAINER_STORE_METHODS
            and isinstance(holder, ast.Name)
        ):
            self._store(holder.id, [*node.args, *(k.value for k in node.keywords)])
        if isinstance(func, ast.Attribute) and isinstance(holder, ast.Name):
            held = holder.id
            if held in self.held:  # ``out.append(y.cpu())``: what every element is
                if func.attr == "append" and len(node.args) == 1 and not node.keywords:
                    added = self.prove(node.args[0])
                    before = self.held[held]
                    self.held[held] = added if before is None else before & added
                elif func.attr not in ops.CONTAINER_READ_METHODS:
                    del self.held[held]  # (``extend``, ``insert``, ``+=``: not followed)
        callee = self.callee(func)
        if callee is not None and callee.writes:
            passed = bind_arguments(node, callee)
            for param, write in callee.writes.items():
                value = passed.get(param)
                if value is not None:
                    self.write(value, line, write.what, callee.name)

    def _store(self, holder: str, values: list[ast.expr], device: bool = True) -> None:
        """``holder.append(v)``, ``holder[k] = v``: what flows into ``v`` flows
        into the container too, and (``device``: not a tensor written into)
        it keeps ``v``'s device."""
        for value in values:
            self.flows[holder] = self.flows.get(holder, set()) | self.flow(value)
            if device:
                self.device_flows[holder] = self.device_flows.get(
                    holder, set()
                ) | self._device_flow(value)

    def _module_use(self, node: ast.expr) -> None:
        self.modules.update(p for p, _ in self.alias(node))

    def _is_optimizer(self, node: ast.expr) -> bool:
        dotted = _dotted(node)
        if dotted is None:
            return False
        if dotted in self.optimizers:
            return True
        return bool(_OPTIMIZER_NAME.search(dotted.rsplit(".", 1)[-1])) and "sched" not in dotted

    def _is_optimizer_ctor(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call):
            return False
        qual = self.qualified(node.func)
        return qual is not None and qual.startswith("torch.optim.") and "lr_scheduler" not in qual

    # -- returns -------------------------------------------------------------

    def on_return(self, node: ast.Return) -> None:
        value = node.value
        if value is None or _is_const(value, None):
            self.grad_made = False  # (a path that returns ``None``)
            return
        for param, kind in sorted(self.alias(value)):
            if kind in CONVERSIONS:
                self.aliases.append((param, kind, node.lineno))
        returned = self._returned(value)
        proofs = returned.returns
        if OTHER_MADE in proofs:
            # another framework's value: none of the torch facts below
            self.returns = proofs if self.returns is None else self.returns & proofs
            self.grad_made = False
            self._return_elements(value)
            return
        if self.without_cuda:
            # (``else: return x`` of ``if torch.cuda.is_available():``)
            proofs = proofs | {"cpu"}
        self.returns = proofs if self.returns is None else self.returns & proofs
        self.carries |= self.flow(value)
        self.grad_output = self.grad_output or returned.grad_output
        self.device_output = self.device_output or (
            returned.device_output and not self.without_cuda
        )
        if "cpu" not in proofs:
            self.moves_to |= self.device_params(value)
            self.keeps_device |= self._device_flow(value)
        if self._forward_value(value):
            self.forward_output = True
        made = self.requires_grad_value(value)
        self.grad_made = made if self.grad_made is None else self.grad_made and made
        self._return_elements(value)

    def _returned(self, value: ast.expr) -> Element:
        """What a returned value is: what it proves (``nograd`` too when
        computed with grad disabled), and whether it may be a module's output
        with grad enabled or a value moved to a device this function chose."""
        proofs = self.prove(value)
        if OTHER_MADE in proofs:
            return Element(frozenset({OTHER_MADE}), False, False)
        if self.no_grad and self._computes(value):
            proofs = proofs | {"nograd"}  # computed with grad disabled
        if self._owned(value):
            proofs = proofs | {OWNED}
        return Element(
            proofs,
            "nograd" not in proofs and self.module_output(value),
            "cpu" not in proofs and self.device_value(value),
        )

    def _owned(self, node: ast.expr) -> bool:
        """Is ``node`` its own module's parameters or buffers: ``self.parameters()``,
        ``self.named_buffers()``, ``self.state_dict()``, ``self.proj.weight``;
        also ``list(...)`` of them, or a comprehension that keeps some
        (``[p for p in self.named_parameters() if p[0] in names]``)?"""
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            loop = node.generators[0]
            elt, target = node.elt, loop.target
            if not (isinstance(elt, ast.Name) and isinstance(target, ast.Name)):
                return False
            return elt.id == target.id and self._owned(loop.iter)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("list", "tuple", "dict")
            and len(node.args) == 1
            and not node.keywords
        ):
            return self._owned(node.args[0])
        if isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr in ops.MODULE_TENSOR_METHODS):
                return False
            node = func.value
        elif isinstance(node, ast.Attribute) and node.attr in ops.MODULE_TENSOR_ATTRIBUTES:
            node = node.value
        else:
            return False
        while isinstance(node, ast.Attribute):
            node = node.value
        return self.me is not None and isinstance(node, ast.Name) and node.id == self.me

    def _return_elements(self, value: ast.expr) -> None:
        """Meet what each position of a returned tuple is with the returns
        before of that length."""
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            self.shapes = None
            return
        found = []
        for element in value.elts:
            returned = self._returned(element)
            if _makes_tensor(element):
                returned = returned._replace(returns=returned.returns | {TENSOR_MADE})
            if self._forward_value(element):
                returned = returned._replace(returns=returned.returns | {FORWARD_MADE})
            found.append(returned)
        if self.shapes is not None:
            before = self.shapes.get(len(found))
            self.shapes[len(found)] = (
                found if before is None else [a.meet(b) for a, b in zip(before, found)]
            )

    def requires_grad_value(self, node: ast.expr) -> bool:
        """Is ``node`` a tensor set to require grad here (``torch.tensor(a,
        requires_grad=True)``, ``w.requires_grad_()``, a name bound to one)?"""
        if isinstance(node, ast.Name):
            return node.id in self.set_grad
        if not isinstance(node, ast.Call):
            return False
        if _sets_requires_grad(node):
            return True
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "requires_grad_"
            and (not node.args or _is_const(node.args[0], True))
        )

    # -- module outputs --------------------------------------------------------

    def mark(self, target: ast.expr, made: bool) -> None:
        for name in assigned_names(target):
            if made:
                self.made.add(name)
            else:
                self.made.discard(name)

    def mark_device(self, target: ast.expr, moved: bool) -> None:
        for name in assigned_names(target):
            if moved:
                self.on_device.add(name)
            else:
                self.on_device.discard(name)

    def device_value(self, node: ast.expr) -> bool:
        """Is ``node`` a value this function moved to a device it chose
        (``x.to(self.device)``, ``x.cuda()``, ``torch.zeros(n, device=DEVICE)``),
        or computed from one, not moved elsewhere since (``.cpu()``,
        ``.to(source)``, ``.numpy()``, ``.item()``)?"""
        if "cpu" in self.prove(node):
            return False
        if isinstance(node, ast.Name):
            return node.id in self.on_device
        if isinstance(node, ast.IfExp):
            return self.device_value(node.body) or self.device_value(node.orelse)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ops.DEVICE_CHANGING_METHODS:
                # this call decides where the value is
                target = node.args[0] if node.args else None
                if func.attr != "to":
                    self._moved(None)  # ``.cuda()``: the current device
                    return True
                if target is None:
                    return self._chosen_device(node) or self.device_value(func.value)
                if cpu_or_dtype(target):
                    return not names_the_cpu(target) and self.device_value(func.value)
                chosen = self._chosen(target)
                if chosen:
                    self._moved(target)
                return chosen
            if self._chosen_device(node):
                return True  # ``torch.zeros(n, device=DEVICE)``
            if isinstance(func, ast.Attribute) and self.device_value(func.value):
                return True  # ``x.cuda().float()``
            if isinstance(func, ast.Name) and func.id in ops.READ_ONLY_BUILTINS:
                return False  # ``float(loss)``
            callee = self.callee(func)
            if callee is not None:
                # a function of this module: its summary says what it returns
                # (``bench(model, inputs)`` that returns a timing it computes)
                return callee.device_output or any(
                    self.device_value(a) for a in _carried_arguments(node, callee)
                )
            # what a call computes from a value on the device stays there
            # (``net(x)``, ``renderer.query(decoder, points)``)
            return any(
                self.device_value(a) for a in (*node.args, *(k.value for k in node.keywords))
            )
        if isinstance(node, ast.Attribute):
            return node.attr not in ops.METADATA_ATTRS and self.device_value(node.value)
        if isinstance(node, ast.Subscript):
            return self.device_value(node.value)
        if isinstance(node, ast.BinOp):
            return self.device_value(node.left) or self.device_value(node.right)
        if isinstance(node, ast.Dict):  # ``{"images": x.to(self.device), ...}``
            return any(self.device_value(v) for v in node.values)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.device_value(e) for e in node.elts)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            # ``[row.mean(0) for row in x.cuda()]``: what it iterates is there
            return self.device_value(node.elt) or any(
                self.device_value(g.iter) for g in node.generators
            )
        return False

    def device_params(self, node: ast.expr) -> set[str]:
        """The parameters naming the device ``node``'s value was moved to
        (``x.to(device)``, ``x.cuda(device)``, a name bound to one, a tuple
        of such), not moved elsewhere since."""
        if isinstance(node, ast.Name):
            return set(self.moved_to.get(node.id, ()))
        if isinstance(node, (ast.Tuple, ast.List)):
            return {p for e in node.elts for p in self.device_params(e)}
        if isinstance(node, ast.DictComp):  # ``{k: v.to(device) for k, v in sd.items()}``
            return self.device_params(node.value)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.device_params(node.elt)
        if not isinstance(node, ast.Call):
            return set()
        for keyword in node.keywords:
            # ``torch.zeros(n, device=device)``, ``torch.load(f, map_location=device)``
            # (a tensor; an object built with ``device=`` may hold more than that)
            value = keyword.value
            if (
                keyword.arg in _PLACING_KEYWORDS
                and isinstance(value, ast.Name)
                and value.id in self.params
                and (self.qualified(node.func) or "").startswith("torch.")
            ):
                return {value.id}
        if not isinstance(node.func, ast.Attribute):
            if not any(
                isinstance(a, ast.Name) and a.id in self.params
                for a in (*node.args, *(k.value for k in node.keywords))
            ):
                return set()  # (no parameter of this function is passed on)
            callee = self.callee(node.func)
            if callee is None or not callee.moves_to:
                return set()
            # ``load(path, device)`` of a function that moves to its ``device``
            passed = bind_arguments(node, callee)
            return {
                a.id
                for p in callee.moves_to
                for a in (passed.get(p),)
                if isinstance(a, ast.Name) and a.id in self.params
            }
        func = node.func
        if func.attr in ops.DEVICE_CHANGING_METHODS:
            target = node.args[0] if node.args else None
            for keyword in node.keywords:
                if keyword.arg == "device":
                    target = keyword.value
            if isinstance(target, ast.Name) and target.id in self.params:
                return {target.id}
            if (target is None and func.attr == "to") or (
                target is not None and cpu_or_dtype(target) and not names_the_cpu(target)
            ):
                return self.device_params(func.value)  # ``.to(torch.float32)``
            return set()  # moved elsewhere
        if func.attr in ops.GRAD_ENDING_METHODS - ops.INTEGER_RESULT_METHODS:
            return set()  # ``.numpy()``, ``.item()``
        return self.device_params(func.value)  # ``x.to(device).float()``

    def _chosen_device(self, call: ast.Call) -> bool:
        for keyword in call.keywords:
            if keyword.arg == "device" and self._chosen(keyword.value):
                self._moved(keyword.value)
                return True
        return False

    def _chosen(self, device: ast.expr) -> bool:
        """Is ``device`` one the function chose itself, not the CPU?"""
        if isinstance(device, ast.Constant):
            return isinstance(device.value, str) and device.value != "cpu"
        if isinstance(device, ast.Call):  # ``torch.device("cuda")``
            return any(self._chosen(a) for a in device.args)
        return not self._passed_in(device)

    def _passed_in(self, node: ast.expr) -> bool:
        """Is the device ``node`` names not the function's own choice: a
        parameter, or a local name (``input_device = get_device(wav)``, which
        may be where the value came from)? Chosen: an attribute
        (``self.device``), a module constant (``DEVICE``), a literal."""
        if isinstance(node, ast.Name):
            return node.id in self.params or not node.id.isupper()
        if isinstance(node, ast.Attribute) and node.attr == "device":
            # ``scores.device``: where a value already is (``torch.full(n, v,
            # device=scores.device)``), not a choice; ``self.device`` and a
            # configuration's (``args.device``, ``cfg.device``) are choices
            root = node.value
            return isinstance(root, ast.Name) and root.id not in ops.SETTINGS_NAMES
        return False

    def module_output(self, node: ast.expr) -> bool:
        """Does ``node`` compute (here, with grad enabled) from a module's
        output: a call of a parameter or an attribute named like a module
        (``net(x)``, ``self.encoder(h)``), a function of this module that returns
        one, a name bound to one; not through ``.detach()``, ``.item()`` or an
        integer result."""
        if self.no_grad:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.made
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ops.GRAD_ENDING_METHODS:
                return False
            if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2:
                # ``getattr(p, "grad")`` reads as ``p.grad``; a name computed
                # at run time could be ``data`` or ``grad``: no evidence
                name = node.args[1]
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    return False
                return name.value not in ops.GRAD_FREE_ATTRS and self.module_output(node.args[0])
            if self._is_module_call(node):
                return True
            if isinstance(func, ast.Attribute) and func.attr in ops.MODULE_PARAMETER_METHODS:
                return True  # ``parameters_to_vector(net.parameters())``
            callee = self.callee(func)
            if callee is not None and callee.grad_output:
                return True
            if isinstance(func, ast.Attribute) and self.module_output(func.value):
                return True  # ``net(x).softmax(-1)``
            return any(
                self.module_output(a) for a in (*node.args, *(k.value for k in node.keywords))
            )
        if isinstance(node, ast.Attribute):
            if node.attr in ops.METADATA_ATTRS or node.attr in ops.GRAD_FREE_ATTRS:
                return False
            return self.module_output(node.value)
        if isinstance(node, ast.Subscript):
            return self.module_output(node.value)
        if isinstance(node, ast.BinOp):
            return self.module_output(node.left) or self.module_output(node.right)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self._comprehension_output(node)
        if isinstance(node, ast.UnaryOp):
            return self.module_output(node.operand)
        if isinstance(node, ast.IfExp):
            return self.module_output(node.body) or self.module_output(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.module_output(e) for e in node.elts)
        return False

    def _parameter_targets(self, target: ast.expr, iterable: ast.expr) -> list[str]:
        """The names a loop over a module's parameters binds to a parameter
        (``p`` of ``for p in net.parameters()``, ``for name, p in
        net.named_parameters()``): they require grad (and what is computed
        from them, with grad enabled)."""
        if self.no_grad or not (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr in ops.MODULE_PARAMETER_METHODS
        ):
            return []
        if iterable.func.attr == "named_parameters":
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
            else:
                return []
        return [target.id] if isinstance(target, ast.Name) else []

    def _comprehension_output(
        self, node: Union[ast.ListComp, ast.GeneratorExp, ast.SetComp]
    ) -> bool:
        """``[p.view(-1) for p in net.parameters()]``: its elements are."""
        bound = [
            name
            for generator in node.generators
            for name in self._parameter_targets(generator.target, generator.iter)
            if name not in self.made
        ]
        self.made.update(bound)
        try:
            return self.module_output(node.elt)
        finally:
            self.made.difference_update(bound)

    def _computes(self, node: ast.expr) -> bool:
        """Is ``node`` a new value (a forward pass, a torch function), not a
        name or a view, whose ``requires_grad`` would be its source's? A view
        of a new value is new too (``net(x).mean(1).cpu()``, ``net(x)[0]``,
        ``net(**enc).last_hidden_state``), and so is what a tensor method that
        is no view computes (``h.mean(1)``)."""
        while True:
            if isinstance(node, ast.Subscript):
                node = node.value
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Call)
                and node.attr not in ops.PARAMETER_ATTRIBUTES
            ):
                node = node.value  # a field of what a call returns
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ops.SAME_GRAD_FLAG_METHODS
                and node.func.attr != "requires_grad_"
                and not _sets_requires_grad(node)
            ):
                node = node.func.value
            else:
                break
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in tensor_methods.TENSOR_NAMES
            and node.func.attr not in ops.SAME_GRAD_FLAG_METHODS
            and not node.func.attr.endswith("_")  # (in place: the receiver itself)
            and not _sets_requires_grad(node)
        ):
            return True
        if isinstance(node, ast.BinOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Invert))
        ):
            return True  # (``x * 2``: a new tensor, if a tensor at all)
        if not isinstance(node, ast.Call) or _sets_requires_grad(node):
            return False  # (``requires_grad=True`` holds under no-grad too)
        qual = self.qualified(node.func)
        callee = self.callee(node.func)
        return (
            self._is_module_call(node)
            or self._calls_a_stored_module(node.func)
            or (callee is not None and callee.grad_output and not callee.elements)
            or (
                qual is not None
                and qual.startswith("torch.")
                and qual not in ops.AS_TENSOR_FUNCS
                and qual.rsplit(".", 1)[1] not in ops.SAME_GRAD_FLAG_METHODS
            )
        )

    def _calls_a_stored_module(self, func: ast.expr) -> bool:
        """``self.fc(x)`` where ``fc`` is no method of the class nor named to
        fetch something (``self.get_weight()``: an inherited method may hand
        back a parameter) nor one that hands back the module itself
        (``self.to(dev)``, ``self.float()``): a callable stored on the object
        (a layer), whose result is computed from its input."""
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return False
        functions = getattr(self.known, "nodes", self.known)
        return (
            func.value.id == self.me
            and self.cls is not None
            and f"{self.cls}.{func.attr}" not in functions
            and func.attr not in ops.MODULE_OWN_VALUE_METHODS
            and func.attr not in ops.MODULE_IN_PLACE_METHODS
            and func.attr not in ops.MODULE_ACCESSOR_METHODS
            and not func.attr.lstrip("_").startswith(ops.MODULE_ACCESSOR_PREFIXES)
        )

    def _is_module_call(self, call: ast.Call) -> bool:
        if call.args and all(literal(a) for a in call.args):
            return False  # ``df.head(1)``: a forward pass is given tensors, not literals
        func = call.func
        if isinstance(func, ast.Name):
            name = func.id
            functions = getattr(self.known, "nodes", self.known)  # (computes nothing)
            if name == self.me and self.cls is not None and self.instance:
                # ``self(x)``: the module's forward pass, unless the class
                # defines its own ``__call__`` (then that runs)
                return f"{self.cls}.__call__" not in functions
            if name in functions or (name in self.imports and name not in self.env):
                return False  # a function of this module, or an imported one
            return ops.names_a_forward_pass(name) or name in self.module_params
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            return func.value.id == self.me and ops.names_a_forward_pass(func.attr)
        return False

    def _forward_value(self, node: ast.expr) -> bool:
        """Is ``node`` the very value a forward pass returned: the pass
        itself, or a name bound to one (``out = self.model(batch)``)?"""
        named = isinstance(node, ast.Name) and node.id in self.forwarded
        return named or self._forward_pass(node)

    def _forward_pass(self, node: ast.expr) -> bool:
        """Is ``node`` a forward pass (``self.model(x)``, ``net.forward(x)``)?"""
        return isinstance(node, ast.Call) and (
            self._is_module_call(node)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "forward")
        )

    def _device_flow(self, node: ast.expr) -> set[str]:
        """The parameters whose device ``node``'s value keeps: through forward
        passes, views, arithmetic, tensor methods and torch functions of
        them, displays holding them, and functions here that keep theirs;
        not through moves, conversions, or calls of anything else."""
        if isinstance(node, ast.Name):
            return set(self.device_flows.get(node.id, ()))
        if isinstance(node, (ast.Subscript, ast.Starred)):
            return self._device_flow(node.value)
        if isinstance(node, ast.BinOp):
            return self._device_flow(node.left) | self._device_flow(node.right)
        if isinstance(node, ast.UnaryOp):
            return self._device_flow(node.operand)
        if isinstance(node, ast.IfExp):
            return self._device_flow(node.body) | self._device_flow(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List)):
            return {p for e in node.elts for p in self._device_flow(e)}
        if isinstance(node, ast.Dict):
            return {p for v in node.values for p in self._device_flow(v)}
        if not isinstance(node, ast.Call):
            return set()
        arguments = (*node.args, *(k.value for k in node.keywords))
        if self._forward_pass(node):
            return {p for a in arguments for p in self._device_flow(a)}
        callee = self.callee(node.func)
        if callee is not None:
            passed = bind_arguments(node, callee)
            return {
                p
                for name in callee.keeps_device
                for value in (passed.get(name),)
                if value is not None
                for p in self._device_flow(value)
            }
        func = node.func
        qual = self.qualified(func)
        if qual is not None and qual.startswith("torch."):
            if qual in ops.TORCH_FACTORIES or qual in ops.AS_TENSOR_FUNCS or qual == ops.FROM_NUMPY:
                return set()
            return {p for a in arguments for p in self._device_flow(a)}
        if isinstance(func, ast.Attribute) and qual is None:
            method = func.attr
            if (
                method in ops.DEVICE_CHANGING_METHODS
                or method in ("cpu", "numpy", "tolist")
                or method in ops.PLAIN_RESULT_METHODS
            ):
                return set()
            return self._device_flow(func.value)  # ``x.sum(1)``, ``out.items()``
        return set()

    def flow(self, node: ast.expr) -> set[str]:
        """The parameters whose values flow into ``node``'s value; ``~p`` for
        ``p`` when it flows only through a call of a function imported from
        elsewhere (not torch's or NumPy's)."""
        found: set[str] = set()
        self._flow(node, found, False)
        return found

    def _flow(self, node: ast.AST, found: set[str], unseen: bool) -> None:
        if isinstance(node, ast.Name):
            for param in self.flows.get(node.id, ()):
                found.add(_UNSEEN + param.lstrip(_UNSEEN) if unseen else param)
            return
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ops.NUMBER_RESULT_BUILTINS
            and node.func.id not in self.env
        ) or (isinstance(node, ast.Attribute) and node.attr in ops.METADATA_ATTRS):
            return  # ``len(prompts)``, ``x.shape``: a number, or what describes a value
        if isinstance(node, ast.Call) and self._unseen(node.func):
            for arg in (*node.args, *(k.value for k in node.keywords)):
                self._flow(arg, found, True)
            return
        callee = self.callee(node.func) if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and callee is not None:
            # a function of the module: what its summary says reaches its result
            for name, value in _arguments(node, callee):
                if name is None or name in callee.carries:
                    self._flow(value, found, unseen)
                elif name in callee.carries_unseen:
                    self._flow(value, found, True)
            self._flow(node.func, found, unseen)
            return
        for child in ast.iter_child_nodes(node):
            self._flow(child, found, unseen)

    def _unseen(self, func: ast.expr) -> bool:
        """Is ``func`` a function imported from elsewhere, not torch's or NumPy's?"""
        dotted = _dotted(func)
        if dotted is None:
            return False
        head = dotted.partition(".")[0]
        if head in self.env or head not in self.imported:
            return False
        qual = self.qualified(func)
        return qual is None or qual.split(".")[0] not in _SEEN_MODULES

    def prove(self, node: ast.expr) -> frozenset[str]:
        """What holds of ``node``'s value: on the CPU, without grad (of a list
        made empty here and filled, or a ``defaultdict(list)``: what holds of
        every element added to it), a torch tensor (``TENSOR_MADE``: what a
        torch function, a method only tensors have, or arithmetic on a tensor
        gives)."""
        if isinstance(node, ast.Name):
            held = self.held.get(node.id)
            if held is not None:
                return held & {"cpu", "nograd"}
            if node.id in self.wrappers:
                return frozenset({GRAD_OFF})
            return self.proofs.get(node.id, frozenset())
        if _turns_grad_off(node, self.imports):
            return frozenset({GRAD_OFF})
        if (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in self.params
            and _turns_grad_off(node.func, self.imports)
        ):
            return frozenset({GRAD_OFF_WRAP})  # ``torch.no_grad()(fn)``
        if _is_number(node) or _is_const(node, None):
            return _PLAIN  # a Python number (or ``None``) is no tensor: nowhere, without grad
        called = self.qualified(node.func) if isinstance(node, ast.Call) else None
        if called is not None and ops.is_other_framework(called):
            return _OTHER  # ``tf.convert_to_tensor(a)``, ``jnp.asarray(x)``
        if called in ops.NUMPY_HOST_VALUES or called in library_table.BY_NAME:
            # ``np.stack(boxes)``, ``np.transpose(img, ...)``, ``roc_auc_score(y,
            # p)``: host values (a tensor on CUDA, or one that requires grad,
            # raises there: ``docs/library-functions.md``)
            return _PLAIN
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            inner = self.prove(node.func.value)
            if method in ("numpy", "tolist") or method in ops.PLAIN_RESULT_METHODS:
                return _PLAIN
            if OTHER_MADE in inner:
                return _OTHER  # ``t.reshape(...)`` of a TensorFlow tensor
            if method in ops.INTEGER_RESULT_METHODS:
                return inner | {"nograd"}  # integers never require grad
            if method == "cpu":
                return inner | {"cpu"}
            if method == "detach":
                return inner | {"nograd", TENSOR_MADE}
            if method in ops.DEVICE_CHANGING_METHODS or method in ("type", "type_as"):
                return inner - {"cpu"}  # (``x.type_as(y)``: where ``y`` is)
            if method == "requires_grad_":
                return inner - {"nograd"}
            if method in ops.TENSOR_NEW_METHODS and method != "new":
                # ``x.new_zeros(n)``: a fresh tensor where ``x`` is (unless
                # ``device=`` says), without grad unless ``requires_grad=True``
                # (``**kw`` may say either)
                made = frozenset({TENSOR_MADE})
                if not any(k.arg in ("requires_grad", None) for k in node.keywords):
                    made = made | {"nograd"}
                placed = [k for k in node.keywords if k.arg in ("device", None)]
                if not placed:
                    return made | (inner & {"cpu"})
                return made | {"cpu"} if all(map(_host_factory_keyword, placed)) else made
            if method in ops.TORCH_VIEW_METHODS or method in ops.CAST_METHODS or method == "clone":
                return inner  # (a copy keeps the device, and grad only where there was)
            if method in ops.TENSOR_ONLY_METHODS and method not in ops.TENSOR_ONLY_INFO_METHODS:
                # (a tensor's method computes where the tensor is: ``.cpu().sigmoid()``)
                return frozenset({TENSOR_MADE}) | (inner & {"cpu"})
            if method in tensor_methods.TENSOR_NAMES and "cpu" in inner:
                return frozenset({"cpu"})  # ``t.cpu().sum(1)``: on the host still
        if isinstance(node, ast.Attribute) and node.attr in ops.GRAD_FREE_ATTRS:
            # ``p.grad``, ``p.data``: where ``p`` is, never requiring grad
            return (self.prove(node.value) & {"cpu"}) | {"nograd"}
        if isinstance(node, ast.Subscript):  # an element or a slice: same device, same grad
            part = self._returned_part(node.value, node.slice)
            return part if part is not None else self.prove(node.value)
        if isinstance(node, ast.BinOp):
            return _arithmetic(self.prove(node.left), self.prove(node.right))
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.prove(node.operand)
        if isinstance(node, ast.IfExp):  # what both arms prove
            return self.prove(node.body) & self.prove(node.orelse)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            # ``[np.array(b) for b in boxes]``: what holds of every element
            return self._comprehended(node) & _PLAIN
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return frozenset()
            return frozenset.intersection(*(self.prove(e) for e in node.elts)) & _PLAIN
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("max", "min")
            and node.func.id not in self.env
            and node.args
            and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args)
        ):
            # ``max(0, m - 1 - i)``: one of its arguments (or an element of
            # the one): what holds of them all
            return frozenset.intersection(*(self.prove(a) for a in node.args)) & _PLAIN
        values = _mapping_values(node, self.env)
        if values:
            # ``{"boxes": b.cpu(), "n": len(b)}``, ``dict(start=i, scores=s.numpy())``:
            # what holds of every value (a key is no tensor)
            return frozenset.intersection(*(self.prove(v) for v in values)) & _PLAIN
        if isinstance(node, ast.Call):
            qual = self.qualified(node.func)
            if qual in ops.TORCH_JOINING_FUNCTIONS:
                return self._joined(node) | {TENSOR_MADE}
            if (
                qual in ops.SIZE_FACTORIES
                and all(_host_factory_keyword(k) for k in node.keywords)
                and not any(isinstance(a, ast.Starred) for a in node.args)
            ):
                # ``torch.zeros(n, 1)``, ``torch.zeros(n, dtype=torch.long, device="cpu")``
                return frozenset({"cpu", "nograd", TENSOR_MADE})
            if qual in ops.LEGACY_TENSOR_TYPES and qual != "torch.Tensor":
                # ``torch.FloatTensor(n, d)``: a CPU tensor whatever the default
                # device (given a tensor on another device, it raises)
                return frozenset({"cpu", TENSOR_MADE})
            if qual is not None and qual != ops.TORCH_LOAD and ops.is_torch_function(qual):
                return frozenset({TENSOR_MADE})
            if qual in ops.GRAD_NORM_FUNCTIONS:
                return frozenset({"nograd", TENSOR_MADE})
            callee = self.callee(node.func)
            if callee is not None:
                return callee.returns & _PLAIN_OR_OTHER  # what every ``return`` of it proves
            if qual is None and any(OTHER_MADE in self.prove(a) for a in node.args):
                # ``model(x)`` given a TensorFlow tensor: that framework's model
                return _OTHER
        return frozenset()

    def _comprehended(
        self, node: Union[ast.ListComp, ast.SetComp, ast.GeneratorExp]
    ) -> frozenset[str]:
        """What holds of every element a comprehension makes (its own
        names are not the function's: what they were bound to does not count)."""
        own = {n for g in node.generators for n in assigned_names(g.target)}
        proofs = {n: self.proofs.pop(n) for n in own if n in self.proofs}
        held = {n: self.held.pop(n) for n in own if n in self.held}
        for loop in node.generators:
            if (
                isinstance(loop.target, ast.Name)
                and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name)
                and loop.iter.func.id == "range"
            ):
                self.proofs[loop.target.id] = _PLAIN  # ``for i in range(n)``: a number
        try:
            return self.prove(node.elt)
        finally:
            for name in own:
                self.proofs.pop(name, None)
            self.proofs.update(proofs)
            self.held.update(held)

    def _returned_part(self, value: ast.expr, index: ast.expr) -> Optional[frozenset[str]]:
        """What position ``index`` of the tuples a call of a function here
        returns proves (``evaluate(net, data)[1]``); None where not known."""
        if not isinstance(value, ast.Call) or not isinstance(index, ast.Constant):
            return None
        position = index.value
        callee = self.callee(value.func)
        if callee is None or not isinstance(position, int) or isinstance(position, bool):
            return None
        if not -len(callee.elements) <= position < len(callee.elements):
            return None
        return callee.elements[position].returns & _PLAIN_OR_OTHER

    def unpacked(self, target: ast.expr, value: ast.expr) -> None:
        """``n, acc = evaluate(net, data)`` of a function here that returns
        tuples of that length: each name proves what its position does."""
        if not isinstance(target, (ast.Tuple, ast.List)):
            return
        if _reads_a_shape(value):
            # ``m, n = x.size()``, ``h, w = img.shape``: numbers
            for element in target.elts:
                if isinstance(element, ast.Name):
                    self.proofs[element.id] = _PLAIN
            return
        if not isinstance(value, ast.Call):
            return
        callee = self.callee(value.func)
        shape = callee.unpacked(len(target.elts)) if callee is not None else ()
        if not shape:
            return
        for element, part in zip(target.elts, shape):
            if isinstance(element, ast.Name):
                proofs = part.returns & _PLAIN_OR_OTHER
                if self.no_grad and part.grad_output:
                    proofs = proofs | {"nograd"}  # its forward pass, run with grad off
                self.proofs[element.id] = proofs

    def _joined(self, node: ast.Call) -> frozenset[str]:
        """``torch.cat(out)``: what holds of every element joined (a list
        made here and appended to, or a display)."""
        if not node.args or (node.keywords and any(k.arg is None for k in node.keywords)):
            return frozenset()
        joined = node.args[0]
        if isinstance(joined, ast.Name):
            held = self.held.get(joined.id)
            return held & {"cpu", "nograd"} if held is not None else frozenset()
        if isinstance(joined, (ast.List, ast.Tuple)) and joined.elts:
            return self._every(joined.elts)
        return frozenset()

    def _every(self, elements: Sequence[ast.expr]) -> frozenset[str]:
        """What ``prove`` says of every one of ``elements`` (not empty): on
        the CPU, without grad."""
        found = self.prove(elements[0])
        for element in elements[1:]:
            found &= self.prove(element)
        return found & {"cpu", "nograd"}


#: marks a parameter that flows through a call nobody here can see (``flow``)
_UNSEEN = "~"
#: modules whose functions are known to compute from their arguments
_SEEN_MODULES = frozenset({"torch", "numpy", "math", "builtins"})

_MATCH: Optional[type] = getattr(ast, "Match", None)
#: ``try`` and, on Python 3.11 and newer, ``try`` with ``except*`` (same fields)
_TRY: tuple[type, ...] = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))


def _index_pair_source(
    value: ast.expr, qualified: Callable[[ast.expr], Optional[str]]
) -> Optional[ast.expr]:
    """The tensor a (values, indices) pair is taken from: ``x`` of
    ``x.max(1)``, ``x.topk(k)`` or ``torch.sort(x)``; None for another call."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return None
    name = value.func.attr
    function = (qualified(value.func) or "").startswith("torch.")
    source = value.args[0] if function and value.args else value.func.value
    if name in ops.ALWAYS_INDEX_PAIR:
        return source
    if name in ops.INDEX_PAIR_WITH_DIM:
        dim = _keyword(value, "dim") is not None or len(value.args) > int(function)
        return source if dim else None
    return None


def _host_factory_keyword(keyword: ast.keyword) -> bool:
    """A keyword that leaves a factory's tensor on the CPU without grad: a
    ``dtype`` or ``layout``, ``device="cpu"``."""
    if keyword.arg in ("dtype", "layout"):
        return True
    value = keyword.value
    return keyword.arg == "device" and isinstance(value, ast.Constant) and value.value == "cpu"


def _mapping_values(node: ast.expr, env: Container[str]) -> list[ast.expr]:
    """The values of a dict display (``{"a": x}``) or of a call of the builtin
    ``dict`` with keywords only (``dict(a=x)``; ``env``: the names the module
    binds, which may shadow it); none where a ``**`` unpacks another mapping
    into it."""
    if isinstance(node, ast.Dict):
        return [] if any(k is None for k in node.keys) else list(node.values)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and node.func.id not in env
        and not node.args
        and all(k.arg is not None for k in node.keywords)
    ):
        return [k.value for k in node.keywords]
    return []


def _list_display(node: ast.expr) -> list[ast.expr]:
    """The elements of a list display (``[a, b]``), repeated or not (``[a] *
    n``, ``n * [a]``); empty for anything else (starred elements too)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        node = node.left if isinstance(node.left, ast.List) else node.right
    if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return list(node.elts)
    return []


def _is_empty_list(node: ast.expr, qualified: Callable[[ast.expr], Optional[str]]) -> bool:
    """``[]``, or a dict of lists filled by key: ``defaultdict(list)``."""
    if isinstance(node, ast.List) and not node.elts:
        return True
    return (
        isinstance(node, ast.Call)
        and qualified(node.func) == "collections.defaultdict"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "list"
        and not node.keywords
    )


def _converted(aliases: set[Alias], kind: str) -> set[Alias]:
    return {(p, kind if k in ("view", "tview") else k) for p, k in aliases}


def _is_view_method(call: ast.Call, method: str) -> bool:
    if method == "to":
        return not _is_const(_keyword(call, "copy"), True)
    if method == "astype":
        return _is_const(_keyword(call, "copy"), False)
    if method in ops.TORCH_VIEW_METHODS or method in ops.NUMPY_VIEW_METHODS:
        return True
    return method.endswith("_") and not method.startswith("_")


def _calls(node: ast.stmt) -> Iterator[ast.Call]:
    """The calls a statement makes itself (not those of nested blocks or defs)."""
    stack: list[ast.AST] = []
    for name, value in ast.iter_fields(node):
        if name in ("body", "orelse", "handlers", "finalbody", "cases"):
            continue
        if isinstance(value, ast.AST):
            stack.append(value)
        elif isinstance(value, list):
            stack.extend(v for v in value if isinstance(v, ast.AST))
    found: list[ast.Call] = []
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(current, ast.Call):
            found.append(current)
        stack.extend(ast.iter_child_nodes(current))
    found.sort(key=lambda c: (c.lineno, c.col_offset))
    return iter(found)


def _arguments(call: ast.Call, callee: FunctionSummary) -> Iterator[tuple[Optional[str], ast.expr]]:
    """Each argument of ``call`` with the parameter of ``callee`` it binds
    (None: one it binds to no named parameter, ``*args`` or ``**kwargs``)."""
    passed = bind_arguments(call, callee)
    yield from passed.items()
    bound = {id(v) for v in passed.values()}
    for value in (*call.args, *(k.value for k in call.keywords)):
        if id(value) not in bound:
            yield None, value.value if isinstance(value, ast.Starred) else value


def _carried_arguments(call: ast.Call, callee: FunctionSummary) -> Iterator[ast.expr]:
    """The arguments of ``call`` that may reach what ``callee`` returns:
    those bound to a parameter its summary says flows there (``carries``,
    through calls it does not see too, ``keeps_device``, ``moves_to``), and
    any it does not bind to a named parameter (``_arguments``)."""
    flowing = {*callee.carries, *callee.carries_unseen, *callee.keeps_device, *callee.moves_to}
    return (value for name, value in _arguments(call, callee) if name is None or name in flowing)


def bind_arguments(call: ast.Call, callee: FunctionSummary) -> dict[str, ast.expr]:
    """Which argument expression each of ``callee``'s parameters receives."""
    passed: dict[str, ast.expr] = {}
    index = 0
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            index = len(callee.params)
            continue
        if index < len(callee.params):
            passed[callee.params[index]] = arg
        index += 1
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in callee.names:
            passed[keyword.arg] = keyword.value
    return passed


def _selects_all(target: ast.Subscript) -> bool:
    """``x[:]``, ``x[...]``, ``x[:, :]``: every element of ``x`` (a plain name)."""
    if not isinstance(target.value, ast.Name):
        return False
    index = target.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(
        (isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None)
        or (isinstance(p, ast.Constant) and p.value is Ellipsis)
        for p in parts
    )
