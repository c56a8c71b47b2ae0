"""The per-function answers, computed once and only where a candidate sits."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Optional, Union

from tensorlint.analysis import syntax
from tensorlint.analysis.containers import container_keys
from tensorlint.analysis.facts import (
    FROZEN,
    NOGRAD,
    AttributeFacts,
    Env,
    Facts,
    is_false,
    keyword,
    meet,
    parameter_loop_sets_grad,
    positional,
    registered_buffer,
    self_name,
    settle,
)
from tensorlint.analysis.flow import (
    LIST_ADDS,
    Conversion,
    Event,
    EventLog,
    EventsWalker,
    FactsWalker,
    owner_body,
)
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.analysis.names import Scope, dotted_name
from tensorlint.analysis.walk import children

Owner = Union[syntax.Module, syntax.FunctionDef, syntax.ClassDef]


class FunctionAnalysis:
    """Facts and memory events of one function (or module or class) body."""

    def __init__(
        self,
        owner: Owner,
        scope: Scope,
        wanted: set[int],
        attributes: Optional[AttributeFacts] = None,
        params: Optional[Mapping[str, Facts]] = None,
        via: Optional[Mapping[str, syntax.Call]] = None,
        *,
        no_grad: bool = False,
        flags: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.owner = owner
        #: the body runs with grad disabled (a ``@torch.no_grad()`` function)
        self.no_grad = no_grad
        self.scope = scope
        self.attributes = attributes
        #: parameter facts from the callers in the file (``callers.py``)
        self.params: Mapping[str, Facts] = params or {}
        #: evidence token -> the call in the file that passed it in
        self.via: Mapping[str, syntax.Call] = via or {}
        #: parameter -> the name every caller in the file passes to it
        self.flags: Mapping[str, str] = flags or {}
        self._wanted = wanted
        self._snapshots: Optional[dict[int, Env]] = None
        self._log: Optional[EventLog] = None

    @property
    def snapshots(self) -> dict[int, Env]:
        if self._snapshots is None:
            walker = FactsWalker(self.scope, self._wanted, self.attributes, self.params, self.flags)
            walker.no_grad = self.no_grad
            walker.run(owner_body(self.owner), {})
            self._snapshots = walker.snapshots
        return self._snapshots

    def env_at(self, ancestors: Sequence[syntax.CSTNode]) -> Env:
        """The facts in force before the innermost statement among ``ancestors``."""
        snapshots = self.snapshots
        for node in reversed(ancestors):
            env = snapshots.get(id(node))
            if env is not None:
                return env
        return {}

    @property
    def log(self) -> EventLog:
        if self._log is None:
            is_module = isinstance(self.owner, syntax.Module)
            containers = frozenset(container_keys(self.owner, self.scope))
            walker = EventsWalker(self.scope, is_module, containers)
            walker.run(owner_body(self.owner))
            for _ in range(2):  # names the walk found to hold lists or dicts: again
                if walker.found_containers <= containers:
                    break
                containers |= walker.found_containers
                walker = EventsWalker(self.scope, is_module, containers)
                walker.run(owner_body(self.owner))
            self._log = walker.log
        return self._log

    def conversion(self, call: syntax.Call) -> Optional[Conversion]:
        return self.log.conversions.get(id(call))

    def source_persists(self, conversion: Conversion) -> bool:
        """Is the converted value's root kept beyond the conversion?"""
        if conversion.source is None:
            return False
        storage = self.log.storages[conversion.source]
        if storage.visible:
            return True
        return next(self.log.uses_after(conversion.idx, conversion.source), None) is not None

    def source_is_zero_copy(self, conversion: Conversion) -> bool:
        return conversion.source is not None and self.log.storages[conversion.source].zero_copy

    def source_is_readonly(self, conversion: Conversion) -> bool:
        return conversion.source is not None and self.log.storages[conversion.source].readonly

    def write_through(
        self, conversion: Conversion, discarded: Optional[Callable[[str], bool]] = None
    ) -> Optional[tuple[Event, str, str]]:
        """A write that changes the shared bytes, made after the conversion to
        one side, followed by a read of the other side's bytes (not of its
        shape or type only: ``a.shape``, ``len(a)``; nor a display of it,
        ``print(b)`` or a bare ``b``, which computes nothing from it: a
        tutorial showing the sharing), or the other side belongs to the
        caller (a parameter, an attribute, a global).

        Not a write: replacing a list or dict entry, a shape-only method
        (``unsqueeze_``), a write to a name rebound to new memory first (the
        walk gives it a new storage). Not a write-through: filling the
        conversion's result whole (``t = torch.from_numpy(buf); t.copy_(src)``,
        ``a = t.numpy(); a[:] = v``): the alias was made to fill the other side.

        A parameter's tensor or array that the function only converts is the
        caller's only while the caller still holds it: where ``discarded``
        says that every caller rebinds the name it passed
        (``d = xi * _l2_normalize(d)``), a write through it changes nothing
        anyone reads.

        Returns the write, the written side's name and the other side's name.
        """
        log = self.log
        if conversion.source is None:
            return None
        sides = {conversion.source: conversion.result, conversion.result: conversion.source}
        array_side = conversion.result if conversion.kind == "numpy" else conversion.source
        for storage, other in sides.items():
            for write in log.writes_after(conversion.idx, storage):
                if write.through_conversion and not write.by:
                    continue  # ``t.numpy()[:] = v``: the conversion made to write through
                if storage == conversion.result and (
                    write.fills or self._completed(write, storage)
                ):
                    continue  # the alias was made to fill the other side
                if write.write_kind == "numpy" and storage != array_side:
                    continue
                if write.write_kind == "torch" and storage == array_side:
                    continue
                if self._before_its_own_result(conversion, write, storage, other):
                    continue
                read = any(
                    not (use.metadata or use.display or conversion.apart_from(use))
                    for use in log.uses_after(write.idx, other)
                )
                if (
                    not read
                    and discarded is not None
                    and self._discarded(conversion, other, discarded)
                ):
                    continue
                if read or log.storages[other].visible:
                    written = write.key or (
                        "the array" if storage == array_side else "the tensor"
                    )  # (the conversion itself, passed to a function that writes it)
                    return write, written, self.side_name(other)
        return None

    def _discarded(
        self, conversion: Conversion, storage: int, discarded: Callable[[str], bool]
    ) -> bool:
        """Is ``storage`` what a parameter was passed, used here only by the
        conversion (not kept in an attribute, a container or a global, not
        returned), by callers that all let go of it (``discarded``)?"""
        named = self.log.storages[storage]
        if named.created_at != -1 or named.name not in self.scope.params:
            return False
        if any(storage in held for held in self.log.contained.values()):
            return False
        for event in self.log.events:
            if event.idx == conversion.idx or event.metadata or event.display:
                continue
            if event.kind == "use" and (storage in event.storages or storage in event.held):
                return False
        return discarded(named.name)

    def _before_its_own_result(
        self, conversion: Conversion, write: Event, storage: int, other: int
    ) -> bool:
        """Is ``write`` part of the converted expression itself, a loop's
        next turn coming back to it (``out[:, i].cpu().clamp_(0, 1).numpy()``
        in a loop)? It runs before that turn's result exists; the last turn's
        result, neither kept in a container, nor visible outside, nor read
        through another name (``prev = img``), is the one the name no longer
        holds."""
        if write.idx != conversion.idx or storage != conversion.source:
            return False
        result = self.log.storages[other]
        if (
            result.visible
            or result.name is None
            or any(other in held for held in self.log.contained.values())
        ):
            return False
        for event in self.log.events:
            if event.kind == "use" and other in event.storages:
                key = event.key or ""
                if re.split(r"[.\[]", key, maxsplit=1)[0] != result.name:
                    return False
        if _handed_on(self.owner, result.name):
            return False
        return _inside(write.node, conversion.node)

    def filled_through(self, conversion: Conversion) -> bool:
        """Is the conversion's result filled whole after it is made? Then the
        sharing is the point: the alias exists to fill the other side."""
        return any(
            w.fills or self._completed(w, conversion.result)
            for w in self.log.writes_after(conversion.idx, conversion.result)
        )

    def _completed(self, write: Event, storage: int) -> bool:
        """Is ``write`` one part of a fill in two (``a[:k] = u`` and ``a[k:] =
        v``, in either order, through the same name, with the same bound)?"""
        if write.part is None:
            return False
        axis, head, bound = write.part
        return any(
            e.kind == "write" and e.part == (axis, not head, bound) and e.key == write.key
            and storage in e.storages
            for e in self.log.events
        )  # fmt: skip

    def readonly_writes(self, conversion: Conversion) -> list[Event]:
        return [
            w
            for w in self.log.writes_after(conversion.idx, conversion.result)
            if w.write_kind != "numpy"
        ]

    def side_name(self, storage: int) -> str:
        named = self.log.storages[storage]
        if named.name is not None:
            if named.created_at == -1 and named.name in self.scope.params:
                return f"the caller's `{named.name}`"  # what the parameter was passed
            if named.name.split("[", 1)[0] in self.scope.params and named.visible:
                return f"the caller's `{named.name}`"  # an entry of what it was passed
            return named.name
        for sid, held in self.log.contained.items():
            holder = self.log.storages[sid]
            if storage in held and holder.name is not None:
                return f"the value kept in `{holder.name}`"
        return "the converted value"


class ClassAttributes(dict[str, Facts]):
    """What holds for each ``self.<name>`` of a class, and, for each method
    that assigns attributes, what it leaves in them (``after``): a statement
    ``self.test()`` sets what ``test`` assigns, whatever other methods stored."""

    def __init__(
        self,
        facts: Mapping[str, Facts],
        after: Mapping[str, Mapping[str, Facts]],
        assigned: frozenset[str] = frozenset(),
    ):
        super().__init__(facts)
        self.after = after
        #: every attribute a method of the class assigns or fills, facts or not
        self.assigned = assigned


def class_attribute_facts(
    node: syntax.ClassDef, scopes: Mapping[syntax.CSTNode, Scope]
) -> ClassAttributes:
    """What holds for ``self.<name>`` after every method that assigns it.

    Each method is walked like any function (so ``self.x = np.load(p)`` then
    ``self.x = torch.from_numpy(self.x)`` ends as a CPU tensor); an attribute
    keeps the proofs every assigning method agrees on, and the evidence of
    any of them (one assignment the walk cannot explain leaves no proof). The
    assigning methods are walked twice, the second time reading what the
    first said of the attributes (``self.buf = self.net(x)`` where
    ``__init__`` moved ``self.net``). A test method (``test*`` of a
    ``Test...`` class or a ``TestCase``) runs on an instance of its own
    (unittest and pytest make one per test): what it assigns is no fact of
    the other methods. Assignments from outside the class are not seen: the
    price of looking at one class at a time."""
    found: dict[str, Facts] = {}
    unfrozen: set[str] = set()
    body = node.body.body if isinstance(node.body, syntax.IndentedBlock) else ()
    methods: list[tuple[syntax.FunctionDef, Scope, str, set[str], set[str], set[str]]] = []
    tests = _is_test_class(node)
    for item in body:
        if not isinstance(item, syntax.FunctionDef) or item not in scopes:
            continue
        if tests and item.name.value.startswith("test"):
            continue
        scope = scopes[item]
        me = self_name(scope)
        if me is None:
            continue
        assigned, unfreezes, filled, nones = _assigned_attributes(item, me)
        unfrozen |= unfreezes
        if assigned or filled:
            methods.append((item, scope, me, assigned, filled, nones))
    known: Optional[dict[str, Facts]] = None
    after: dict[str, dict[str, Facts]] = {}
    for _ in range(2):
        found = {}
        rebinds: list[tuple[set[str], dict[str, Facts]]] = []
        for item, scope, me, assigned, filled, nones in methods:
            final = FactsWalker(scope, set(), known).run(owner_body(item), {})
            left = after[item.name.value] = {}
            for name in assigned:
                # (settled first: evidence a proof of the same value answers,
                # ``if self.v.requires_grad: self.v = self.v.detach()``, is gone)
                facts = left[name] = settle(final.get(f"{me}.{name}", frozenset()))
                if name in nones:
                    # ``self.model = None`` (in ``__init__``, set later): no
                    # tensor and no module, so nothing a conversion can meet
                    continue
                found[name] = meet(found[name], facts) if name in found else facts
            for name in filled:
                # a list it only adds to, a total it only adds to: what the walk
                # made of it from what the other methods left there (so not on
                # the first walk, which starts from nothing)
                key = f"{me}.{name}"
                if known is not None and key in final:
                    facts = left[name] = final[key]
                    found[name] = meet(found[name], facts) if name in found else facts
            lists = {}
            for key, facts in final.items():
                # the lists of a dict of lists (``self.stats = defaultdict(list)``,
                # ``self.stats[k].append(v)``): ``stats.[]``, ``stats.['val']``
                head, dot, rest = key.partition(".")
                if head == me and dot and ".[" in rest and rest.split(".[")[0] in assigned | filled:
                    lists[rest] = facts
                    found[rest] = meet(found[rest], facts) if rest in found else facts
            rebinds.append((assigned, lists))
        for rest in [k for k in found if ".[" in k]:
            # a method that binds the dict anew without these lists: no proof
            base = rest.split(".[")[0]
            if any(base in assigned and rest not in lists for assigned, lists in rebinds):
                found[rest] = meet(found[rest], frozenset())
        settled = {name: facts for name, facts in found.items() if facts}
        if not methods or settled == known:
            break
        known = settled
    for name in unfrozen & found.keys():
        # a module one method freezes and another may set to require grad again
        found[name] = found[name] - {FROZEN, NOGRAD}
        for left in after.values():
            if name in left:
                left[name] = left[name] - {FROZEN, NOGRAD}
    assigned_anywhere = frozenset(
        n for *_, assigned, filled, _ in methods for n in assigned | filled
    )
    return ClassAttributes(
        {name: facts for name, facts in found.items() if facts}, after, assigned_anywhere
    )


def _is_test_class(node: syntax.ClassDef) -> bool:
    """A test class: named ``Test...`` (pytest), or deriving from a ``...TestCase``."""
    if node.name.value.startswith("Test"):
        return True
    for base in node.bases:
        dotted = dotted_name(base.value)
        if dotted is not None and dotted.endswith("TestCase"):
            return True
    return False


def _assigned_attributes(
    method: syntax.FunctionDef, me: str
) -> tuple[set[str], set[str], set[str], set[str]]:
    """The ``self.<name>`` attributes the method assigns (or registers as
    buffers), those whose parameters it may set to require grad, those
    it only adds to (``self.preds.append(y)``, ``self.total += loss``), and
    those it assigns ``None`` only (``self.model = None``)."""
    names: set[str] = set()
    nones: set[str] = set()
    values: set[str] = set()
    unfreezes: set[str] = set()
    filled: set[str] = set()
    stack: list[syntax.CSTNode] = [method.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
            continue
        targets: list[syntax.BaseExpression] = []
        unfrozen: Optional[syntax.BaseExpression] = None
        if isinstance(current, syntax.Assign):
            targets = [t.target for t in current.targets]
            none = isinstance(current.value, syntax.Name) and current.value.value == "None"
            for target in targets:
                name = _own_attribute(target, me)
                if name is not None and not isinstance(target, syntax.Subscript):
                    (nones if none else values).add(name)
        elif isinstance(current, syntax.AnnAssign):
            targets = [current.target]
        elif isinstance(current, syntax.AugAssign):
            # ``self.total += loss``: a running total, what the method leaves
            # in it computed from what the other methods left there
            name = _own_attribute(current.target, me)
            if name is not None and not isinstance(current.target, syntax.Subscript):
                filled.add(name)
        elif isinstance(current, syntax.Call):
            buffer = registered_buffer(current)
            if buffer is not None:
                targets = [parse_expression(buffer[0])]
            elif _sets_requires_grad(current):
                unfrozen = current.func.value  # type: ignore[attr-defined]
            elif (
                isinstance(current.func, syntax.Attribute) and current.func.attr.value in LIST_ADDS
            ):
                # ``self.preds.append(y)``: a list the walk follows where it is
                # known to be empty or to hold tensors
                name = _own_attribute(current.func.value, me)
                if name is not None:
                    filled.add(name)
        elif isinstance(current, syntax.For):
            loop = parameter_loop_sets_grad(current)
            if loop is not None and loop[2]:
                unfrozen = loop[1]
        for target in targets:
            name = _attribute_of(target, me)
            if name is not None:
                names.add(name)
        name = _attribute_of(unfrozen, me) if unfrozen is not None else None
        if name is not None:
            unfreezes.add(name)
        stack.extend(children(current))
    return names, unfreezes, filled - names, nones - values


def _own_attribute(node: syntax.BaseExpression, me: str) -> Optional[str]:
    """``name`` when ``node`` is ``self.name`` or ``self.name[k]`` (a dict of lists)."""
    if isinstance(node, syntax.Subscript):
        node = node.value
    if (
        isinstance(node, syntax.Attribute)
        and isinstance(node.value, syntax.Name)
        and node.value.value == me
    ):
        return node.attr.value
    return None


def _attribute_of(node: syntax.BaseExpression, me: str) -> Optional[str]:
    """``name`` when ``node`` is ``self.name`` (or a part of it: ``self.name.fc``)."""
    while isinstance(node, syntax.Attribute):
        if isinstance(node.value, syntax.Name) and node.value.value == me:
            return node.attr.value
        node = node.value
    return None


def _sets_requires_grad(call: syntax.Call) -> bool:
    """``x.requires_grad_()`` / ``x.requires_grad_(True)``."""
    func = call.func
    return (
        isinstance(func, syntax.Attribute)
        and func.attr.value == "requires_grad_"
        and not is_false(positional(call, 0) or keyword(call, "requires_grad"))
    )


def _inside(node: syntax.CSTNode, outer: syntax.CSTNode) -> bool:
    """Is ``node`` ``outer`` or one of its descendants?"""
    stack = [outer]
    while stack:
        current = stack.pop()
        if current is node:
            return True
        stack.extend(children(current))
    return False


def _handed_on(owner: Owner, name: str) -> bool:
    """Does ``owner``'s body bind ``name`` itself to another name or return
    or yield it (``prev = img``, ``return img``): the value outlives the
    name's next binding?"""
    stack: list[syntax.CSTNode] = [owner]
    while stack:
        node = stack.pop()
        value = None
        if isinstance(node, (syntax.Assign, syntax.AnnAssign, syntax.Return, syntax.Yield)):
            value = node.value if isinstance(node.value, syntax.BaseExpression) else None
        if value is not None:
            parts = (
                [e.value for e in value.elements]
                if isinstance(value, (syntax.Tuple, syntax.List))
                else [value]
            )
            if any(isinstance(p, syntax.Name) and p.value == name for p in parts):
                return True
        stack.extend(children(node))
    return False
