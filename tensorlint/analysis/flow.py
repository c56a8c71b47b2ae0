"""Statement-order walks of one function body.

``FactsWalker`` propagates provenance facts (see ``facts.py``) and records the
environment in force before each statement that holds a candidate.

``EventsWalker`` numbers the statements in execution order and records what
happens to memory: which names share storage, where a conversion links two
storages, where a storage is written in place and where it is read. Loops
are ranges of statement numbers, so "later" can wrap around a back edge.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Hashable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple, Optional, Union

from tensorlint.analysis import dtypes, ops, paths, syntax
from tensorlint.analysis.callees import bind_arguments
from tensorlint.analysis.containers import literal_index, single_index
from tensorlint.analysis.facts import (
    CPU,
    ELEMS,
    EMPTY,
    FROZEN,
    GRAD,
    LIST0,
    LISTANY,
    MODULE,
    MOVED,
    NDARRAY,
    NOGRAD,
    NOTTENSOR,
    NUMBER,
    OTHER,
    TENSOR,
    AttributeFacts,
    Env,
    FactEvaluator,
    Facts,
    _always_exits,
    bind_loop_target,
    bind_target,
    bound_method_test,
    calls_in,
    carry,
    computed_without_grad,
    cpu_device_test,
    cuda_and_tensor_test,
    cuda_available_flag,
    device_key,
    dict_lists_key,
    element_facts,
    evidence,
    flag_test,
    frozen,
    grad_mode,
    guard_moves,
    guards_something,
    is_basic_index,
    is_empty_list,
    is_false,
    is_true,
    keyword,
    meet,
    merge,
    moved_only_to,
    never_moved_attributes,
    never_moved_under,
    on_cpu_test,
    parameter_loop_sets_grad,
    positional,
    record,
    refine,
    registered_buffer,
    requires_grad_test,
    returns_indices,
    settle,
    sole_move_target,
    type_guards,
    unpacks_tensors,
)
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.analysis.names import Scope, dotted_name, qualified_name, target_names
from tensorlint.analysis.summaries import FILLS, WRITES
from tensorlint.analysis.walk import children, own_statements

Body = Sequence[Union[syntax.BaseStatement, syntax.BaseSmallStatement]]


def suite_body(suite: syntax.BaseSuite) -> Body:
    if isinstance(suite, (syntax.IndentedBlock, syntax.SimpleStatementSuite)):
        return suite.body
    return ()


def owner_body(owner: syntax.CSTNode) -> Body:
    if isinstance(owner, syntax.Module):
        return owner.body
    if isinstance(owner, (syntax.FunctionDef, syntax.ClassDef)):
        return suite_body(owner.body)
    return ()


# --- facts --------------------------------------------------------------------


class _Path:
    """One path through an ``if`` statement: the facts at its end, and what
    holds there (what held where it began, less what its block changed;
    worked out when a later test asks)."""

    __slots__ = ("_block", "_holds", "env", "plain")

    def __init__(
        self, holds: paths.DNF, env: Env, block: Optional[Body] = None, plain: bool = False
    ) -> None:
        self._holds = holds
        self._block = block
        self.env = env
        #: the way round an ``if`` with no ``else``: its facts are those before
        #: the ``if`` where its test fails (an earlier join may narrow them)
        self.plain = plain

    @property
    def holds(self) -> paths.DNF:
        if self._block is not None:
            self._holds = paths.after_block(self._holds, self._block)
            self._block = None
        return self._holds

    def may_hold(self) -> bool:
        """Can a test tell this path apart at all (without working it out)?"""
        return self._holds != paths.TRUE or (
            self._block is not None and paths.sets_constants(self._block)
        )


class _Join(NamedTuple):
    """The paths an ``if`` statement of a block joins, by its place there."""

    position: int
    paths: list[_Path]

    @property
    def keys(self) -> set[str]:
        return {lit.key for p in self.paths for c in p.holds for lit in c}


_JOINS_KEPT = 4  #: the latest ``if`` statements of a block a test is compared with
_DEPTH = 2  #: how many joins back the way round an ``if`` is narrowed


class _Context(NamedTuple):
    """Where an ``if`` statement is: its block, its place there (of the ``if``
    whose ``elif`` it is), what holds before its test, whether an ``elif``."""

    block: _Block
    position: int
    before: paths.DNF
    is_elif: bool


class _Block:
    """A block being walked: its statements, the one being walked, and the
    ``if`` statements walked so far that joined paths a test can tell apart."""

    __slots__ = ("body", "index", "joins")

    def __init__(self, body: Body) -> None:
        self.body = body
        self.index = 0
        self.joins: list[_Join] = []


class FactsWalker:
    def __init__(
        self,
        scope: Scope,
        wanted: set[int],
        attributes: Optional[AttributeFacts] = None,
        params: Optional[Mapping[str, Facts]] = None,
        flags: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.evaluator = FactEvaluator(scope, attributes, params, flags)
        self.scope = scope
        self.wanted = wanted
        self.snapshots: dict[int, Env] = {}
        self.no_grad = False  #: inside ``with torch.no_grad():`` and the like
        self._aliases: Optional[dict[str, str]] = None
        #: the blocks being walked, innermost last (``_Block``)
        self._blocks: list[_Block] = []
        #: set by an ``if`` for the ``elif`` it walks next: its block, its
        #: place there, and what holds where every test before failed
        self._elif: Optional[_Context] = None
        #: what an ``elif`` gives back to its ``if``: its paths (``_Path``)
        self._elif_paths: Optional[list[_Path]] = None
        self._again = False  #: walking statements again for one set of paths

    def run(self, body: Body, env: Env) -> Env:
        block = _Block(body)
        self._blocks.append(block)
        try:
            for index, statement in enumerate(body):
                block.index = index
                env = self.statement(statement, env)
        finally:
            self._blocks.pop()
        return env

    def _merge(self, a: Env, b: Env) -> Env:
        """``merge``, where a parameter one path rebinds keeps, on the other
        path, what it held on entry (``if x is None: x = torch.zeros(3)``)."""
        params = self.scope.params
        for one, other in ((a, b), (b, a)):
            missing = [k for k in one if k not in other and k in params]
            if missing:
                other = dict(other)
                for key in missing:
                    other[key] = self.evaluator.expr(syntax.Name(key), {})
                if one is a:
                    b = other
                else:
                    a = other
        return merge(a, b)

    def _snap(self, node: syntax.CSTNode, env: Env) -> None:
        if id(node) in self.wanted:
            self.snapshots[id(node)] = dict(env)

    def statement(
        self, node: Union[syntax.BaseStatement, syntax.BaseSmallStatement], env: Env
    ) -> Env:
        self._snap(node, env)
        if isinstance(node, syntax.SimpleStatementLine):
            for small in node.body:
                env = self._used_as_tensor(small, self.statement(small, env))
            return env
        if isinstance(node, syntax.Assign):
            facts = self.evaluator.expr(node.value, env)
            without_grad = self.no_grad and computed_without_grad(node.value, self.scope)
            if without_grad:
                facts = settle(facts | {NOGRAD})
            env = dict(env)
            for target in node.targets:
                if isinstance(target.target, (syntax.Tuple, syntax.List)):
                    self._bind_unpacked(env, target.target, node.value, facts, without_grad)
                elif isinstance(target.target, syntax.Attribute) and _sets_requires_grad(
                    target.target
                ):
                    self._set_requires_grad(env, target.target, node.value)
                else:
                    bind_target(env, target.target, facts)
                    _bind_dict_of_lists(env, target.target, node.value, self.scope)
                    self._stored_into_tensor(env, target.target, facts)
            return env
        if isinstance(node, syntax.Expr):
            value = node.value
            if isinstance(value, syntax.Call) and (
                qualified_name(value.func, self.scope) in ops.SET_GRAD_ENABLED
            ):
                self.no_grad = grad_mode(value, self.scope) is True  # for what follows
                return env
            registered = self._register_buffer(value, env)
            if registered is not None:
                return registered
            backpropagated = self._backward(value, env)
            if backpropagated is not None:
                return backpropagated
            filled = self._list_call(value, env)
            if filled is not None:
                return filled
            copied = self._copied_into_tensor(value, env)
            if copied is not None:
                return copied
            assigned = self._method_assigns(value, env)
            return assigned if assigned is not None else self._in_place_call(value, env)
        if isinstance(node, syntax.AugAssign):
            return self._augmented(node, env)
        if isinstance(node, syntax.AnnAssign):
            if node.value is None:
                return env
            env = dict(env)
            bind_target(env, node.target, self.evaluator.expr(node.value, env))
            return env
        if isinstance(node, syntax.If):
            return self._if(node, env)
        if isinstance(node, (syntax.For, syntax.While)):
            return self._loop(node, env)
        if isinstance(node, syntax.With):
            env = dict(env)
            modes = [grad_mode(item.item, self.scope) for item in node.items]
            for item, mode in zip(node.items, modes):
                if item.asname is not None:
                    bind_target(env, item.asname.name, self._entered(item.item, mode, env))
            outer = self.no_grad
            if True in modes or False in modes:
                self.no_grad = True in modes and False not in modes
            try:
                return self.run(suite_body(node.body), env)
            finally:
                self.no_grad = outer
        if isinstance(node, (syntax.Try, syntax.TryStar)):
            after_body = self.run(suite_body(node.body), env)
            outcomes = [self.run(suite_body(node.orelse.body), after_body) if node.orelse
                        else after_body]  # fmt: skip
            for handler in node.handlers:
                start = self._merge(env, after_body)
                if handler.name is not None:
                    bind_target(start, handler.name.name, EMPTY)
                outcomes.append(self.run(suite_body(handler.body), start))
            result = outcomes[0]
            for outcome in outcomes[1:]:
                result = self._merge(result, outcome)
            if node.finalbody is not None:
                result = self.run(suite_body(node.finalbody.body), result)
            return result
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef)):
            env = dict(env)
            bind_target(env, node.name, EMPTY)
            return env
        if isinstance(node, syntax.Match):
            merged: Optional[Env] = None
            for case in node.cases:
                out = self.run(suite_body(case.body), dict(env))
                merged = out if merged is None else self._merge(merged, out)
            return self._merge(env, merged) if merged is not None else env
        return env

    def _bind_unpacked(
        self,
        env: Env,
        target: syntax.Tuple | syntax.List,
        value: syntax.BaseExpression,
        facts: Facts,
        without_grad: bool,
    ) -> None:
        """``a, b = x.cpu(), y.cpu()`` element-wise; ``_, idx = torch.max(x, 1)``:
        indices. ``without_grad``: ``value`` is computed with grad disabled."""
        elements = [e.value for e in target.elements]
        if isinstance(value, (syntax.Tuple, syntax.List)) and len(value.elements) == len(elements):
            values = [self.evaluator.expr(e.value, env) for e in value.elements]
            for element, element_facts in zip(elements, values):
                bind_target(env, element, element_facts)
            return
        if isinstance(value, syntax.Call) and not any(
            isinstance(e, syntax.StarredElement) for e in target.elements
        ):
            # a function of the project that returns tuples: each position's own facts
            known = self.evaluator.call_elements(value, env, len(elements))
            if known is not None:
                for element, element_facts in zip(elements, known):
                    if without_grad:
                        element_facts = settle(element_facts | {NOGRAD})
                    bind_target(env, element, element_facts)
                return
        shared = evidence(facts)
        if without_grad:
            shared = shared | {NOGRAD}  # computed with grad disabled: every part
        parts = shared
        if isinstance(value, syntax.Call) and unpacks_tensors(facts):
            # a torch call's tensor, or its tuple of them (``u, s, v = torch.svd(a)``,
            # ``values, indices = x.sort()``): each part is a tensor, on the
            # inputs' device, with their grad
            parts = shared | (facts & {TENSOR, CPU, NOGRAD})
        indices = isinstance(value, syntax.Call) and returns_indices(value, self.scope)
        for position, part in enumerate(target.elements):
            if indices and position == 1:
                bind_target(env, part.value, (carry(facts) - {MODULE, FROZEN}) | {NOGRAD})
            elif isinstance(part, syntax.StarredElement):
                bind_target(env, part.value, shared)  # a list of the rest
            else:
                bind_target(env, part.value, parts)

    def _set_requires_grad(
        self, env: Env, target: syntax.Attribute, value: syntax.BaseExpression
    ) -> None:
        """``x.requires_grad = True`` / ``False`` changes what ``x`` is known to be."""
        key = dotted_name(target.value)
        if key is None:
            return
        facts = self.evaluator.expr(target.value, env)
        if is_false(value):
            env[key] = settle(facts | {NOGRAD})
        elif is_true(value):
            env[key] = facts - {NOGRAD} | {record(self.scope, "requires-grad", target)}

    def _used_as_tensor(self, node: syntax.BaseSmallStatement, env: Env) -> Env:
        """After ``pred.cpu().detach()`` or ``x.size(0)`` (a method only a tensor
        has), the name is a tensor, or that statement raised. Not a name the
        statement rebinds, nor one inside a lambda or comprehension, nor an
        attribute."""
        if not isinstance(node, (syntax.Expr, syntax.Assign, syntax.AugAssign, syntax.AnnAssign)):
            return env
        cache = self.scope.module().tensor_uses
        found = cache.get(id(node))
        if found is None:
            found = cache[id(node)] = _tensor_uses(node)
        missing = [k for k in found if TENSOR not in env.get(k, EMPTY)]
        if not missing:
            return env
        env = dict(env)
        for key in missing:
            facts = env.get(key)
            if facts is None:
                facts = self.evaluator.expr(syntax.Name(key), env)
            if not facts & {NDARRAY, OTHER, NOTTENSOR}:
                env[key] = facts | {TENSOR}
        return env

    def _backward(self, value: syntax.BaseExpression, env: Env) -> Optional[Env]:
        """``loss.backward()`` (also ``scaler.scale(loss).backward()``,
        ``torch.autograd.backward(loss)``, ``self.manual_backward(loss)``,
        ``accelerator.backward(loss)``): ``loss`` is a tensor that requires
        grad, or the call would have raised."""
        loss = backpropagated(value, self.scope, env)
        key = dotted_name(loss) if loss is not None else None
        if loss is None or key is None:
            return None
        assert isinstance(value, syntax.Call)
        facts = self.evaluator.expr(loss, env) - {NOGRAD, FROZEN}
        env = dict(env)
        env[key] = facts | {TENSOR, record(self.scope, "backward", value)}
        return env

    def _register_buffer(self, value: syntax.BaseExpression, env: Env) -> Optional[Env]:
        """``self.register_buffer("name", t)`` binds ``self.name``: a buffer,
        which moves with its module (no device proof) and does not require
        grad unless ``t`` is shown to."""
        found = registered_buffer(value)
        if found is None:
            return None
        key, tensor = found
        facts = self.evaluator.expr(tensor, env) - {CPU} if tensor is not None else EMPTY
        if not any(t.startswith(GRAD) for t in facts):
            facts = facts | {TENSOR, NOGRAD}
        env = dict(env)
        bind_target(env, _parse_key(key), facts)
        return env

    def _list_call(self, value: syntax.BaseExpression, env: Env) -> Optional[Env]:
        """``xs.append(v)``, ``xs.extend(vs)``, ``xs.insert(i, v)`` on a list
        known to be empty or to hold tensors: it holds what was added too."""
        if not (isinstance(value, syntax.Call) and isinstance(value.func, syntax.Attribute)):
            return None
        method = value.func.attr.value
        if method not in LIST_ADDS or len(value.args) != LIST_ADDS[method]:
            return None
        key, seeds = self._tracked(value.func.value, env)
        if key is None:
            return None
        env = {**env, **seeds}
        argument = value.args[-1].value
        added = self.evaluator.expr(argument, env)
        if method != "extend":
            if self.no_grad and computed_without_grad(argument, self.scope):
                added = settle(added | {NOGRAD})
            raw, added = added, self.evaluator.elements([added])
            if ELEMS not in added and _of_unknown_type(raw):
                added = added | {LISTANY}  # (see ``_add_to_list``)
        elif TENSOR in added and not added & {ELEMS, LIST0, LISTANY}:
            added = self.evaluator.elements([element_facts(added)])  # its rows
        elif _of_unknown_type(added):
            added = added | {LISTANY}
        _add_to_list(env, value.func.value, key, added)
        return env

    def _tracked(self, target: syntax.BaseExpression, env: Env) -> tuple[Optional[str], Env]:
        """``_tracked_list``, also for a list of ``self`` that another method
        of the class made (``self.preds = []`` in ``__init__``, then
        ``self.preds.append(y)`` here): the key, and the facts of the class's
        lists to put in ``env`` first (none where ``env`` has them)."""
        key = _tracked_list(target, env)
        if key is not None:
            return key, {}
        if isinstance(target, syntax.Subscript):
            lists = dict_lists_key(target.value)
            entry = literal_index(target)
            keys = [lists, dict_lists_key(target.value, entry) if entry is not None else None]
        else:
            keys = [dotted_name(target)]
        seeds: dict[str, Facts] = {}
        for one in keys:
            facts = self.evaluator.stored_list(one) if one is not None and one not in env else None
            if one is not None and facts is not None:
                seeds[one] = facts
        if not seeds:
            return None, {}
        key = _tracked_list(target, {**env, **seeds})
        return (key, seeds) if key is not None else (None, {})

    def _entered(self, item: syntax.BaseExpression, mode: Optional[bool], env: Env) -> Facts:
        """What ``with item as name:`` binds: a module entered as a context
        (``with Encoder().to(dev) as enc:``) is the module, whose ``__enter__``
        returns itself by convention; anything else is not known."""
        if mode is not None:
            return EMPTY
        facts = self.evaluator.expr(item, env)
        return facts if facts & {MODULE, FROZEN, MOVED} and TENSOR not in facts else EMPTY

    def _augmented(self, node: syntax.AugAssign, env: Env) -> Env:
        """``xs += [v]`` on a list known to be empty or to hold tensors: it holds
        what was added too. Any other ``x op= v`` binds ``x op v`` (a running
        total that starts at ``0`` and adds losses is a tensor after the loop)."""
        key, seeds = self._tracked(node.target, env)
        if key is not None:
            if not isinstance(node.operator, syntax.AddAssign):
                return env
            env = {**env, **seeds}
            added = self.evaluator.expr(node.value, env)
            if _of_unknown_type(added):
                added = added | {LISTANY}
            _add_to_list(env, node.target, key, added)
            return env
        key = dotted_name(node.target)
        if key is None:
            return env
        before = self.evaluator.expr(node.target, env)
        facts = self.evaluator.operation(before, self.evaluator.expr(node.value, env))
        if self.no_grad and TENSOR not in before:  # a new value, computed without grad
            facts = settle(facts | {NOGRAD})
        env = dict(env)
        env[key] = facts
        return env

    def _stored_into_tensor(self, env: Env, target: syntax.BaseExpression, facts: Facts) -> None:
        """``m[i] = out``: a tensor written with a value that may require grad
        requires grad from then on (the copy is recorded by autograd), what
        made it (``torch.zeros``) proving no grad or not. Its device stays."""
        root = target
        while isinstance(root, syntax.Subscript):
            root = root.value
        if root is target:
            return
        key = dotted_name(root)
        if key is None or key not in env or TENSOR not in env[key]:
            return
        env[key] = _written_with(env[key], facts, self.no_grad)

    def _copied_into_tensor(self, value: syntax.BaseExpression, env: Env) -> Optional[Env]:
        """``m.copy_(out)`` (or of a slice, ``m[i].copy_(out)``): as a store."""
        if not (
            isinstance(value, syntax.Call)
            and isinstance(value.func, syntax.Attribute)
            and value.func.attr.value == "copy_"
            and value.args
        ):
            return None
        root = value.func.value
        while isinstance(root, syntax.Subscript):
            root = root.value
        key = dotted_name(root)
        if key is None or key not in env or TENSOR not in env[key]:
            return None
        env = dict(env)
        written = self.evaluator.expr(value.args[0].value, env)
        env[key] = _written_with(env[key], written, self.no_grad)
        return env

    def _method_assigns(self, value: syntax.BaseExpression, env: Env) -> Optional[Env]:
        """``self.test()`` as a statement, where ``test`` assigns attributes:
        they hold what it leaves in them (``test`` runs the network under
        ``no_grad`` into ``self.output``; what ``optimize`` stores there with
        grad is gone), not what any assigning method might."""
        me = self.evaluator.self_name
        after = getattr(self.evaluator.attributes, "after", None)
        if (
            me is None
            or not after
            or not isinstance(value, syntax.Call)
            or not isinstance(value.func, syntax.Attribute)
            or not isinstance(value.func.value, syntax.Name)
            or value.func.value.value != me
        ):
            return None
        left: Optional[Mapping[str, Facts]] = after.get(value.func.attr.value)
        if not left:
            return None
        env = dict(env)
        for name, facts in left.items():
            env[f"{me}.{name}"] = facts
        return env

    def _in_place_call(self, value: syntax.BaseExpression, env: Env) -> Env:
        """``model.to(device)``, ``model.requires_grad_(False)``: modules change
        in place; ``t.detach_()`` takes a tensor out of the graph."""
        if not (isinstance(value, syntax.Call) and isinstance(value.func, syntax.Attribute)):
            return env
        method = value.func.attr.value
        if method == "detach_" and not value.args:
            key = dotted_name(value.func.value)
            if key is None:
                return env
            env = dict(env)
            env[key] = settle(self.evaluator.expr(value.func.value, env) | {TENSOR, NOGRAD})
            return env
        if method not in ops.MODULE_IN_PLACE_METHODS and method != "requires_grad_":
            return env
        key = dotted_name(value.func.value)
        if key is None:
            return env
        receiver = self.evaluator.expr(value.func.value, env)
        if method != "requires_grad_" and receiver & {TENSOR, NDARRAY}:
            return env  # ``t.to(device)`` alone does nothing to ``t``
        env = dict(env)
        env[key] = self.evaluator.expr(value, env)
        return env

    def _if(self, node: syntax.If, env: Env) -> Env:
        guarded = requires_grad_test(node.test)
        start = dict(env)
        else_env = dict(env)
        context = self._where(node)
        holds = fails = paths.TRUE
        if context is not None:
            block, position, before, _ = context
            holds = paths.both(before, paths.dnf(node.test))
            fails = paths.both(before, paths.dnf(node.test, holds=False))
            if not self._again:
                self._correlate(block, position, holds, start)
                self._correlate(block, position, fails, else_env)
        device = cpu_device_test(node.test)  # ``if d == "cpu":`` (or ``!=``, ``== "cuda"``)
        if device is not None:
            where = self._device_alias(device[0])  # ``kind = x.device.type``, then ``kind``
            self._on_cpu_device(where, start if device[1] else else_env)
        tested = cuda_and_tensor_test(node.test, self.scope)
        if tested is not None:  # ``if d.type == "cuda" and isinstance(x, torch.Tensor):``
            self._on_cpu_device(tested[0], else_env, tested[1])
        guards = type_guards(node.test, self.scope)  # ``if isinstance(x, tf.Tensor):``
        for branch, kinds in ((start, guards.body), (else_env, guards.orelse)):
            refine(branch, kinds, lambda key: self.evaluator.expr(_parse_key(key), env))
        flag = flag_test(node.test)  # ``if use_cuda:`` / ``if not use_cuda:``
        if flag is not None and not flag[1]:
            self._never_moved_under(flag[0], start)
        on_cpu = on_cpu_test(node.test)  # ``if x.is_cuda:``, ``if not x.is_cpu:``
        if on_cpu is not None:
            branch = start if on_cpu[1] else else_env
            key = on_cpu[0]
            branch[key] = settle(self.evaluator.expr(_parse_key(key), env) | {CPU})
        body_env = self.run(suite_body(node.body), start)
        if flag is not None and flag[1]:
            guard_moves(self.scope, calls_in(node.body), flag[0])
            self._never_moved_under(flag[0], else_env)
        if guarded is not None and guarded in else_env:
            else_env[guarded] = else_env[guarded] | {NOGRAD}
        elif guarded is not None:
            else_env[guarded] = self.evaluator.expr(_parse_key(guarded), env) | {NOGRAD}
        found: list[_Path] = []
        if not _always_exits(node.body):
            found.append(_Path(holds, body_env, suite_body(node.body)))
        if isinstance(node.orelse, syntax.If):
            self._elif = (
                _Context(context.block, context.position, fails, True)
                if context is not None
                else None
            )
            self._elif_paths = None
            else_env = self.statement(node.orelse, else_env)
            inner, self._elif_paths = self._elif_paths, None
            found.extend(inner if inner is not None else [_Path(fails, else_env)])
        elif isinstance(node.orelse, syntax.Else):
            else_env = self.run(suite_body(node.orelse.body), else_env)
            if not _always_exits(node.orelse.body):
                found.append(_Path(fails, else_env, suite_body(node.orelse.body)))
        else:
            found.append(_Path(fails, else_env, plain=True))
        if context is not None:
            self._paths_found(context, found)
        if _always_exits(node.body):
            return else_env
        if isinstance(node.orelse, syntax.Else) and _always_exits(node.orelse.body):
            return body_env
        method = bound_method_test(node.test)
        if method is not None and TENSOR in self.evaluator.expr(_parse_key(method), env):
            return body_env  # ``if x.cuda: x = x.cpu()``: the test always holds
        return self._merge(body_env, else_env)

    # -- correlated branches (``paths``) ----------------------------------------

    def _where(self, node: syntax.If) -> Optional[_Context]:
        """The block ``node`` is a statement of, its place there, and what holds
        before its test: for an ``elif``, what the ``if`` it belongs to said."""
        context, self._elif = self._elif, None
        if context is not None:
            return context
        if self._blocks:
            block = self._blocks[-1]
            if block.index < len(block.body) and block.body[block.index] is node:
                return _Context(block, block.index, paths.TRUE, False)
        return None

    def _paths_found(self, context: _Context, found: list[_Path]) -> None:
        """Keep the paths an ``if`` statement joins (an ``elif`` gives them to
        its ``if``), where a later test may tell them apart."""
        block, position, _, is_elif = context
        if is_elif:
            self._elif_paths = found
            return
        if self._again or not any(p.may_hold() for p in found):
            return
        block.joins = [j for j in block.joins if j.position != position]
        block.joins.append(_Join(position, found))
        del block.joins[:-_JOINS_KEPT]

    def _correlate(self, block: _Block, position: int, holds: paths.DNF, env: Env) -> None:
        """Where the test of the ``if`` at ``position`` of ``block`` (with what
        ``holds`` there) rules out some of the paths an earlier ``if`` of the
        block joined (``return_type = "numpy"`` on one, then ``if return_type
        == "numpy":``; ``if force:`` twice), drop from ``env`` the evidence
        that reaches it only through the others (``_narrowed``). Evidence is
        only ever dropped: each value keeps the proofs it had."""
        found = self._narrowed(block, position, holds, 0)
        if found is not None:
            self._drop_dead(env, found)

    def _narrowed(
        self, block: _Block, position: int, holds: paths.DNF, depth: int
    ) -> Optional[Env]:
        """The facts before statement ``position`` of ``block`` on the paths
        where ``holds`` does, as the latest join of the block that tells its
        paths apart says: the statements between walked again from the paths
        left (a flag they know to fail without the moves made under it; the
        way round an ``if`` with no ``else`` narrowed in turn by the joins
        before it, ``_DEPTH`` deep). None where no join tells them apart."""
        tested = paths.keys(holds)
        if not tested:
            return None
        for join in reversed(block.joins):
            if join.position >= position or not tested & join.keys:
                continue
            between = block.body[join.position + 1 : position]
            if tested & paths.binds(between):
                continue  # (a name the test reads is bound again since)
            left = [(p, d | c) for p in join.paths for d in p.holds for c in holds
                    if paths.consistent(d | c)]  # fmt: skip
            if not left:
                continue  # (no path of the join reaches the test: dead code)
            reaching: dict[int, tuple[_Path, paths.DNF]] = {}
            for path, conjunction in left:
                reaching.setdefault(id(path), (path, []))[1].append(conjunction)
            deeper = {
                key: self._narrowed(block, join.position, held, depth + 1)
                for key, (path, held) in reaching.items()
                if path.plain and depth < _DEPTH
            }
            if (
                len(reaching) == len(join.paths)
                and not any(lit.op == "truth" and not lit.truthy for _, c in left for lit in c)
                and all(d is None for d in deeper.values())
            ):
                continue  # (every path reaches it, no flag known to fail)
            start: Optional[Env] = None
            for key, (path, held) in reaching.items():
                base = dict(path.env)
                before = deeper.get(key)
                if before is not None:
                    self._drop_dead(base, before)
                failing = {self._failing_flags(c) for c in held}  # (``if not use_cuda``)
                for flags in failing:
                    one = base if len(failing) == 1 else dict(base)
                    for flag in flags:
                        self._never_moved_under(flag, one)
                    start = one if start is None else self._merge(start, one)
            assert start is not None
            return self._walk_again(between, start)
        return None

    def _failing_flags(self, conjunction: paths.Conjunction) -> frozenset[str]:
        """The flags ``conjunction`` says fail, where moves were made under them."""
        return frozenset(
            lit.key
            for lit in conjunction
            if lit.op == "truth"
            and not lit.truthy
            and guards_something(lit.key, self.scope, self.evaluator.flags.get(lit.key, ""))
        )

    def _drop_dead(self, env: Env, found: Env) -> None:
        """Drop from each value of ``env`` the evidence its value in ``found``
        (the same place, on fewer paths) does not have. A value that is
        another framework's on every path left (``inputs = tf.constant(a)``
        under the same test) is that framework's here."""
        for key, there in found.items():
            if key not in env and OTHER in there and TENSOR not in there:
                env[key] = there
        for key, facts in list(env.items()):
            narrowed = found.get(key)
            if narrowed is None:  # (not bound on those paths: as on entry)
                narrowed = self.evaluator.expr(_parse_key(key), found)
            if narrowed is facts:
                continue
            if OTHER in narrowed and TENSOR not in narrowed and OTHER not in facts:
                env[key] = narrowed
                continue
            dead = {token for token in facts - narrowed if ":" in token}
            if dead:
                env[key] = settle((facts - dead) | (narrowed & {CPU, NOGRAD}))

    def _walk_again(self, statements: Body, env: Env) -> Env:
        """``statements`` walked from ``env``, recording nothing."""
        wanted, no_grad, again = self.wanted, self.no_grad, self._again
        self.wanted, self._again = set(), True
        try:
            for statement in statements:
                env = self.statement(statement, env)
        finally:
            self.wanted, self.no_grad, self._again = wanted, no_grad, again
        return env

    def _device_alias(self, key: str) -> str:
        """``x.device`` for a name the function binds once, to ``x.device``,
        ``x.device.type`` or ``str(x.device)`` (``kind = x.device.type``, then
        ``if kind == "cpu":``); else ``key`` itself."""
        if "." in key:
            return key
        if self._aliases is None:
            self._aliases = _device_aliases(self.scope.node)
        return self._aliases.get(key, key)

    def _never_moved_under(self, flag: str, env: Env) -> None:
        """Where ``flag`` fails, values moved only where it holds are on the host
        (the method's ``self`` attributes too: ``self.model`` moved where CUDA
        is available; and, where ``flag`` says whether CUDA is, its
        parameters as the callers in the file pass them; so where ``flag`` is
        what every one of them passes for a parameter, ``self.evaluator.flags``)."""
        also = self.evaluator.flags.get(flag, "")
        for key, facts in list(env.items()):
            env[key] = never_moved_under(facts, flag, self.scope, also)
        if also or cuda_available_flag(flag, self.scope):
            for name in self.scope.params:
                if name not in env:
                    # a parameter not rebound yet, as the callers in the file
                    # pass it (``_g(x.to(device))``, then ``if
                    # torch.cuda.is_available(): x = x.cpu()``)
                    facts = self.evaluator.expr(_parse_key(name), env)
                    changed = never_moved_under(facts, flag, self.scope, also)
                    if changed != facts:
                        env[name] = changed
        never_moved_attributes(self.evaluator, flag, env)

    def _on_cpu_device(self, device: str, env: Env, only: Optional[frozenset[str]] = None) -> None:
        """Where the device ``device`` names is the CPU: the values moved there
        (and the tensor whose ``.device`` it is) are on the CPU; ``only``:
        of these values, just the ones it names."""
        scope = self.evaluator.scope
        for key, facts in list(env.items()):
            if (only is None or key in only) and moved_only_to(facts, device, scope):
                env[key] = settle(facts | {CPU})
        for param in scope.params:
            # a parameter not bound here yet: what its callers pass
            if param not in env and (only is None or param in only):
                facts = self.evaluator.expr(syntax.Name(param), env)
                if moved_only_to(facts, device, scope):
                    env[param] = settle(facts | {CPU})
        owner, _, attr = device.rpartition(".")
        if attr == "device" and owner and (only is None or owner in only):
            known = env.get(owner, self.evaluator.expr(_parse_key(owner), env))
            env[owner] = settle(known | {CPU})
            # ``A = A.to(d); b = b.to(d)``, then ``if A.device.type == "cuda":``:
            # where ``A`` is on the CPU so is ``d``, and what was moved there
            target = sole_move_target(known, scope)
            if target is not None and target != device and not target.endswith(".device"):
                self._on_cpu_device(target, env, only)

    def _loop(self, node: Union[syntax.For, syntax.While], env: Env) -> Env:
        start = dict(env)
        if isinstance(node, syntax.For):
            bind_loop_target(self.evaluator, start, node.target, node.iter, env)
        first = self.run(suite_body(node.body), dict(start))
        entry = self._merge(start, first)
        if isinstance(node, syntax.For):
            # each turn starts by binding the target afresh: what the body
            # bound to its names last turn does not reach the next one
            bind_loop_target(self.evaluator, entry, node.target, node.iter, env)
        second = self.run(suite_body(node.body), dict(entry))
        result = self._merge(env, second)
        if isinstance(node, syntax.For):
            self._set_parameters_grad(node, result)
        if node.orelse is not None:
            result = self.run(suite_body(node.orelse.body), result)
        return result

    def _set_parameters_grad(self, node: syntax.For, env: Env) -> None:
        """``for p in m.parameters(): p.requires_grad = False`` freezes ``m``
        (as ``m.requires_grad_(False)`` does); ``= True`` unfreezes it."""
        found = parameter_loop_sets_grad(node)
        if found is None:
            return
        key, module, flag = found
        facts = self.evaluator.expr(module, env)
        env[key] = facts - {FROZEN, NOGRAD} if flag else frozen(facts)


def _device_aliases(function: syntax.CSTNode) -> dict[str, str]:
    """The names ``function`` binds exactly once (by ``=``, outside nested
    functions) to where a tensor is: name -> ``x.device``."""
    bound: dict[str, list[Optional[syntax.BaseExpression]]] = {}
    if not isinstance(function, syntax.FunctionDef):
        return {}
    for node in own_statements(function):
        if isinstance(node, (syntax.Assign, syntax.AugAssign, syntax.AnnAssign, syntax.For)):
            targets = (
                [t.target for t in node.targets]
                if isinstance(node, syntax.Assign)
                else [node.target]
            )
            simple = node.value if isinstance(node, syntax.Assign) and len(targets) == 1 else None
            for target in targets:
                for name in target_names(target):
                    value = simple if isinstance(target, syntax.Name) else None
                    bound.setdefault(name, []).append(value)
    found: dict[str, str] = {}
    for name, values in bound.items():
        if len(values) != 1 or values[0] is None:
            continue
        key = device_key(values[0])
        if key is not None and key.endswith(".device"):
            found[name] = key
    return found


def _parallel(target: syntax.BaseExpression, value: syntax.BaseExpression) -> bool:
    """Is ``target = value`` a parallel assignment of displays of one length
    (``a, b = x, y``) that binds no name its values read (not a swap,
    ``a, b = b, a``, whose values are read before either is bound)?"""
    if not (
        isinstance(target, (syntax.Tuple, syntax.List))
        and isinstance(value, (syntax.Tuple, syntax.List))
        and len(target.elements) == len(value.elements)
    ):
        return False
    if any(isinstance(e, syntax.StarredElement) for e in (*target.elements, *value.elements)):
        return False
    bound = set(target_names(target))
    stack: list[syntax.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, syntax.Name) and node.value in bound:
            return False
        stack.extend(children(node))
    return True


def _written_with(tensor: Facts, written: Facts, no_grad: bool) -> Facts:
    """A tensor's facts after a value with ``written`` facts is stored into it:
    unchanged where the store runs without grad or the value has none;
    else it may require grad, with the value's grad evidence."""
    if no_grad or NOGRAD in written or written & (NUMBER | {NDARRAY}):
        return tensor
    # (a value of unknown grad: the proof goes, with the value's evidence if any)
    return tensor - {NOGRAD} | frozenset(t for t in written if t.startswith(GRAD))


def _tracked_list(target: syntax.BaseExpression, env: Env) -> Optional[str]:
    """The key of ``target`` when it is a list known to be empty or to hold
    tensors (``d[k]`` of a dict of lists: the key of all its lists)."""
    key = dotted_name(target)
    if key is None and isinstance(target, syntax.Subscript):
        key = dict_lists_key(target.value)
    if key is None or not env.get(key, EMPTY) & {ELEMS, LIST0, LISTANY}:
        return None
    return key


def _of_unknown_type(facts: Facts) -> bool:
    """Is a value (or a list of values) with these facts of a type not known
    here: not a tensor or a list of them, a number, an array, another
    framework's value, or a value a type test refuted?"""
    return not facts & {TENSOR, ELEMS, LIST0, LISTANY, NDARRAY, OTHER, NOTTENSOR} and not (
        facts & NUMBER
    )


def _add_to_list(env: Env, target: syntax.BaseExpression, key: str, added: Facts) -> None:
    """``xs.append(v)`` (or ``+=``): the list of ``key`` holds ``added`` too;
    for ``d["val"]`` of a dict of lists, that list as well as all of them.
    A value of unknown type (``LISTANY`` in ``added``) makes it a list of
    values of unknown type, which a tensor added later still makes a list
    that holds tensors: one CUDA element is enough for a conversion to raise."""
    env[key] = meet(env[key], added)
    if isinstance(target, syntax.Subscript):
        entry = literal_index(target)
        one = dict_lists_key(target.value, entry) if entry is not None else None
        if one is not None:
            env[one] = meet(env.get(one, frozenset({LIST0})), added)


#: nodes whose names are their own (a lambda's parameters, a comprehension's targets)
_OWN_SCOPES = (
    syntax.Lambda,
    syntax.ListComp,
    syntax.SetComp,
    syntax.DictComp,
    syntax.GeneratorExp,
)


def _tensor_uses(node: syntax.BaseSmallStatement) -> tuple[str, ...]:
    """The names ``node`` calls a tensor-only method on (``x.size(0)``,
    ``x.cpu().numpy()``) and does not rebind, outside lambdas and comprehensions."""
    rebound: set[str] = set()
    if isinstance(node, syntax.Assign):
        for target in node.targets:
            rebound.update(target_names(target.target))
    elif isinstance(node, (syntax.AugAssign, syntax.AnnAssign)):
        rebound.update(target_names(node.target))
    found: list[str] = []
    stack: list[syntax.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, _OWN_SCOPES):
            continue
        receiver: Optional[syntax.BaseExpression] = None
        if (
            isinstance(current, syntax.Call)
            and isinstance(current.func, syntax.Attribute)
            and current.func.attr.value in ops.TENSOR_ONLY_METHODS
        ):
            receiver = current.func.value
        elif (  # ``x.cpu().numpy()``, ``x.to(dev).data``: a module has no such result
            isinstance(current, syntax.Attribute)
            and current.attr.value in _TENSOR_RESULT_ATTRS
            and isinstance(current.value, syntax.Call)
            and isinstance(current.value.func, syntax.Attribute)
            and current.value.func.attr.value in _MOVES
        ):
            receiver = current.value.func.value
        # names only: an attribute chain's key (``value.data``) would stand in
        # for what the evaluator knows of the attribute
        if (
            isinstance(receiver, syntax.Name)
            and receiver.value not in rebound
            and receiver.value not in found
        ):
            found.append(receiver.value)
        stack.extend(children(current))
    return tuple(found)


#: moves a module has too, and what only a moved tensor has after them
_MOVES = frozenset({"cpu", "cuda", "to"})
_TENSOR_RESULT_ATTRS = frozenset({"numpy", "data", "detach", "item", "tolist"})

#: receivers whose ``backward(loss)`` backpropagates ``loss`` (Accelerate, Fabric)
_BACKWARD_OWNERS = ("accelerator", "fabric")


def backpropagated(
    value: syntax.BaseExpression, scope: Scope, env: Env
) -> Optional[syntax.BaseExpression]:
    """The tensor a statement's call backpropagates from, if it is one."""
    if not isinstance(value, syntax.Call):
        return None
    positional = [a.value for a in value.args if a.keyword is None and not a.star]
    func = value.func
    if qualified_name(func, scope) == "torch.autograd.backward":
        return positional[0] if positional else None
    if not isinstance(func, syntax.Attribute):
        return None
    method = func.attr.value
    receiver = func.value
    if method == "manual_backward":  # Lightning
        return positional[0] if positional else None
    if method != "backward":
        return None
    owner = (dotted_name(receiver) or "").rpartition(".")[2].lower()
    if len(positional) == 1 and owner.endswith(_BACKWARD_OWNERS):
        return positional[0]
    if (
        isinstance(receiver, syntax.Call)  # ``scaler.scale(loss).backward()``
        and isinstance(receiver.func, syntax.Attribute)
        and receiver.func.attr.value == "scale"
        and len(receiver.args) == 1
    ):
        return receiver.args[0].value
    if positional and TENSOR not in env.get(dotted_name(receiver) or "", EMPTY):
        return None  # ``y.backward(g)`` on a value not known to be a tensor
    return receiver


def _bind_dict_of_lists(
    env: Env, target: syntax.BaseExpression, value: syntax.BaseExpression, scope: Scope
) -> None:
    """``history = {"train": [], "val": []}`` or ``defaultdict(list)``: a dict
    whose lists are tracked together (``history[phase].append(loss)``)."""
    key = dict_lists_key(target)
    if key is None:
        return
    entries: list[str] = []  # the literal keys, each list tracked on its own too
    if isinstance(value, syntax.Dict):
        lists = bool(value.elements) and all(
            isinstance(e, syntax.DictElement) and is_empty_list(e.value, scope)
            for e in value.elements
        )
        for e in value.elements:
            if (
                isinstance(e, syntax.DictElement)
                and isinstance(e.key, syntax.SimpleString)
                and isinstance(e.key.evaluated_value, str)
            ):
                entries.append(e.key.evaluated_value)
    elif (
        isinstance(value, syntax.Call)
        and isinstance(value.func, syntax.Name)
        and value.func.value == "dict"
        and scope.lookup("dict") is None
    ):
        # ``dict(mu=[], y=list())``
        lists = bool(value.args) and all(
            a.keyword is not None and is_empty_list(a.value, scope) for a in value.args
        )
        entries = [a.keyword.value for a in value.args if a.keyword is not None]
    else:
        lists = (
            isinstance(value, syntax.Call)
            and qualified_name(value.func, scope) == "collections.defaultdict"
            and len(value.args) == 1
            and isinstance(value.args[0].value, syntax.Name)
            and value.args[0].value.value == "list"
        )
    if lists:
        env[key] = frozenset({LIST0})
        for entry in entries:
            one = dict_lists_key(target, entry)
            if one is not None:
                env[one] = frozenset({LIST0})


#: list methods that add elements, and how many arguments they take
LIST_ADDS = {"append": 1, "extend": 1, "insert": 2}


def _parse_key(key: str) -> syntax.BaseExpression:
    return parse_expression(key)


def _sets_requires_grad(target: syntax.BaseExpression) -> bool:
    return isinstance(target, syntax.Attribute) and target.attr.value == "requires_grad"


# --- events -------------------------------------------------------------------


class Storage:
    """One runtime object (an array or tensor buffer) as the walk sees it."""

    __slots__ = (
        "buffer", "container", "created_at", "dtype", "id", "name", "readonly", "visible",
        "zero_copy",
    )  # fmt: skip

    def __init__(
        self, id: int, created_at: int, visible: bool = False, name: Optional[str] = None
    ) -> None:
        self.id = id
        self.created_at = created_at
        self.visible = visible  #: reachable by the caller (parameter, attribute, global)
        self.zero_copy = False
        self.readonly = False
        self.name = name  #: the first name bound to it
        self.container = False  #: a list/dict holding a storage (named by ``name``)
        self.dtype: Optional[str] = None  #: the element type, where known (``dtypes.py``)
        #: a tensor or array made here by a factory (``torch.zeros(n)``): an
        #: element assignment into it copies, it holds no reference
        self.buffer = False


class Event(NamedTuple):
    idx: int
    kind: str  # "use" or "write"
    storages: frozenset[int]
    node: syntax.CSTNode
    key: Optional[str] = None
    write_kind: str = "any"  # "any", "torch" (``add_``) or "numpy" (``a.sort()``)
    through_conversion: bool = False  #: the write goes through the conversion itself
    #: storages reached through a container (``tensors`` holding the tensors of
    #: every earlier iteration): a later use counts whatever was rebound since
    held: frozenset[int] = frozenset()
    #: a write made by a call: what the call does, for the message
    #: (```train(...)` (train.py:22) steps an optimizer over `net```)
    by: str = ""
    #: the write replaces every element of what it writes without reading
    #: them (``t.copy_(src)``, ``a[:] = v``, ``out=a``): it fills a buffer
    fills: bool = False
    #: a write of the part of one axis before (``a[:, :k] = v``: ``(1, True,
    #: key of k)``) or from (``a[k:] = v``: ``(0, False, key of k)``) a bound,
    #: the other axes whole: with the other part written too, the two fill it
    part: Optional[tuple[int, bool, Hashable]] = None
    #: a use that reads only metadata (``a.shape``, ``t.size()``, ``len(a)``)
    metadata: bool = False
    #: a use that only shows the value (``print(b)``, a bare ``b`` statement:
    #: a notebook cell's output); nothing is computed from it
    display: bool = False
    #: the constant keys a use reads through, from its name (``out[1]``:
    #: ``("1",)``; ``s["a"]["b"]``: ``("'a'", "'b'")``); None: the whole value
    #: or through another index
    entry: Optional[tuple[str, ...]] = None


class Conversion(NamedTuple):
    node: syntax.Call
    kind: str  # "from_numpy", "as_tensor" or "numpy"
    idx: int
    source: Optional[int]  #: storage of the converted value's root (None: fresh)
    result: int  #: storage of the conversion's result
    #: the name the converted value is read from and the constant keys on the
    #: way (``out[0].cpu().numpy()``: ``("out", ("0",))``), as ``entry_path``
    entry: Optional[tuple[str, tuple[str, ...]]] = None

    def apart_from(self, use: Event) -> bool:
        """Does ``use`` read another entry of the converted value's name
        (``out[1]`` where ``out[0]`` was converted: another item of a list,
        or another row of a tensor), so not the shared bytes?"""
        if self.entry is None or use.entry is None or use.key != self.entry[0]:
            return False
        return any(a != b for a, b in zip(self.entry[1], use.entry))


class Loop:
    __slots__ = ("end", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = 1 << 30


#: a statement number past every statement of a function
_LAST = 1 << 62


class _Events:
    """Where the events of one kind on one storage are in the log, with their
    statement numbers (non-decreasing: the walk numbers statements as it
    goes and records each event at its own)."""

    __slots__ = ("idxs", "positions")

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.idxs: list[int] = []

    def add(self, position: int, event: Event) -> None:
        self.positions.append(position)
        self.idxs.append(event.idx)

    def within(self, spans: Sequence[tuple[int, int]]) -> Iterator[int]:
        """The positions of the events whose statement is in one of ``spans``
        (ordered, disjoint ranges)."""
        for lo, hi in spans:
            start = bisect.bisect_left(self.idxs, lo)
            stop = bisect.bisect_right(self.idxs, hi, start)
            yield from self.positions[start:stop]


class EventLog:
    def __init__(self) -> None:
        self.storages: dict[int, Storage] = {}
        self.events: list[Event] = []
        self.conversions: dict[int, Conversion] = {}  # id(call) ->
        self.loops: list[Loop] = []
        self.contained: dict[int, set[int]] = {}  #: container -> held
        #: the queries' indexes, built on the first query (the walk is done)
        self._indexed = -1  #: how many events they hold
        self._writes: dict[int, _Events] = {}
        self._uses: dict[int, _Events] = {}
        self._held_uses: dict[int, _Events] = {}  #: uses reaching a storage through a container
        self._loops: list[Loop] = []  #: by start
        self._loop_starts: list[int] = []
        self._loop_parents: list[int] = []  #: index of the enclosing loop, -1: none

    def spans(self, first: int, storage: Optional[int]) -> list[tuple[int, int]]:
        """The statements ``second`` that run after statement ``first`` on the
        same object, as ordered, disjoint ranges [lo, hi].

        ``storage`` None asks about order only (the object is reached through
        a container, so rebinding its name does not matter). A later
        statement counts unless the object was created again in between; an
        earlier (or the same) one counts when a loop around ``first`` starts
        at or before it and runs it again on the same object (not created
        again between ``first`` and the loop's end, nor between the loop's
        start and it).
        """
        self._index()
        created = self.storages[storage].created_at if storage is not None else -2
        found: list[tuple[int, int]] = []
        for loop in self._loops_around(first):
            if first < created <= loop.end:
                continue
            hi = min(first, created - 1) if loop.start <= created else first
            if loop.start <= hi:
                found.append((loop.start, hi))
        later = (first + 1, _LAST if created <= first else created - 1)
        if later[0] <= later[1]:
            found.append(later)
        merged: list[tuple[int, int]] = []
        for lo, hi in sorted(found):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return merged

    def after(self, first: int, second: int, storage: Optional[int]) -> bool:
        """Does statement ``second`` run after ``first`` on the same object?"""
        return any(lo <= second <= hi for lo, hi in self.spans(first, storage))

    def uses_after(self, idx: int, storage: int) -> Iterator[Event]:
        self._index()
        found: list[Iterator[int]] = []
        direct = self._uses.get(storage)
        if direct is not None:
            found.append(direct.within(self.spans(idx, storage)))
        held = self._held_uses.get(storage)
        if held is not None:  # a later use counts whatever was rebound since
            found.append(held.within(self.spans(idx, None)))
        for position in heapq.merge(*found):
            yield self.events[position]

    def writes_after(self, idx: int, storage: int) -> Iterator[Event]:
        self._index()
        writes = self._writes.get(storage)
        if writes is None:
            return
        spans = self.spans(idx, storage)
        if not any(lo <= idx <= hi for lo, hi in spans):
            # the writes the conversion at ``idx`` makes itself, in their place
            earlier = [span for span in spans if span[1] < idx]
            for position in writes.within([*earlier, (idx, idx)]):
                event = self.events[position]
                if event.idx < idx or event.through_conversion:
                    yield event
            spans = spans[len(earlier) :]
        for position in writes.within(spans):
            yield self.events[position]

    def _index(self) -> None:
        if self._indexed == len(self.events):
            return
        self._indexed = len(self.events)
        self._writes, self._uses, self._held_uses = {}, {}, {}
        for position, event in enumerate(self.events):
            if event.kind == "write":
                for sid in event.storages:
                    self._writes.setdefault(sid, _Events()).add(position, event)
            elif event.kind == "use":
                for sid in event.storages - event.held:
                    self._uses.setdefault(sid, _Events()).add(position, event)
                for sid in event.held:  # (either way: the order alone decides)
                    self._held_uses.setdefault(sid, _Events()).add(position, event)
        # loops nest: each is the range of the statements of its body
        self._loops = sorted(self.loops, key=lambda loop: (loop.start, -loop.end))
        self._loop_starts = [loop.start for loop in self._loops]
        self._loop_parents = []
        open_loops: list[int] = []
        for n, loop in enumerate(self._loops):
            while open_loops and self._loops[open_loops[-1]].end < loop.start:
                open_loops.pop()
            self._loop_parents.append(open_loops[-1] if open_loops else -1)
            open_loops.append(n)

    def _loops_around(self, idx: int) -> Iterator[Loop]:
        """The loops whose range holds statement ``idx``, innermost first."""
        n = bisect.bisect_right(self._loop_starts, idx) - 1
        while n >= 0:
            loop = self._loops[n]
            if loop.end >= idx:
                yield loop
            n = self._loop_parents[n]


#: Conversion call -> (kind, the expression whose storage is converted)
ConversionOf = tuple[str, Optional[syntax.BaseExpression]]


class EventsWalker:
    def __init__(
        self, scope: Scope, is_module: bool, containers: AbstractSet[str] = frozenset()
    ) -> None:
        self.scope = scope
        self.is_module = is_module
        self.log = EventLog()
        #: dotted name -> storage; and an entry of a container (``d[k]``) ->
        #: storage, under a key ``[<container's storage>]<index>`` (``_slot``)
        self.keys: dict[str, int] = {}
        #: the dotted names that hold lists or dicts (``containers.py``)
        self.containers = containers
        #: names the walk found to be containers that ``containers`` lacks: an
        #: entry replaced by a conversion of itself (the walk is run again)
        self.found_containers: set[str] = set()
        #: every dotted key ever bound, by its first name: what a rebinding of
        #: a name may have to forget (``net.w`` when ``net`` is rebound)
        self.dotted: dict[str, set[str]] = {}
        self.idx = 0
        self.callees = scope.module().callees
        #: optimizer name -> the storage of the module whose parameters it was given
        self.optimizers: dict[str, tuple[int, str]] = {}
        for name in scope.params:
            self.keys[name] = self._new(-1, visible=True, name=name)

    # -- storages --------------------------------------------------------------

    def _new(self, idx: int, *, visible: bool = False, name: Optional[str] = None) -> int:
        sid = len(self.log.storages)
        self.log.storages[sid] = Storage(sid, idx, visible=visible, name=name)
        return sid

    def storage_of_key(self, key: str) -> int:
        sid = self.keys.get(key)
        if sid is None:
            head = key.split(".")[0]
            held = self.keys.get(head) if "." in key else None
            visible = (
                # ``x.values`` of a local the function made: the caller's only
                # where ``x`` is (``self.a``, a parameter's attribute)
                ("." in key and (held is None or self.log.storages[held].visible))
                or (not self.is_module and not self.scope.binds_locally(head))
                or head in self.scope.global_names
            )
            sid = self._new(-1, visible=visible, name=key)
            if held is not None and not visible:
                # a later use of ``x`` may read ``x.values``
                self.log.contained.setdefault(held, set()).add(sid)
            self._set_key(key, sid)
        return sid

    def _set_key(self, key: str, sid: int) -> None:
        if "." in key:
            self.dotted.setdefault(key.split(".", 1)[0], set()).add(key)
        self.keys[key] = sid

    # -- what an expression refers to ------------------------------------------

    def conversion_of(self, call: syntax.Call) -> Optional[ConversionOf]:
        func = call.func
        if isinstance(func, syntax.Attribute) and func.attr.value == "numpy":
            return "numpy", func.value
        qual = qualified_name(func, self.scope)
        if qual == ops.FROM_NUMPY:
            return "from_numpy", positional(call, 0)
        if qual in ops.AS_TENSOR_FUNCS:
            return "as_tensor", positional(call, 0)
        callee = self.callees.of(call, self.scope) if self.callees else None
        if callee is not None and callee.summary.alias is not None:
            param, kind, _ = callee.summary.alias
            value = bind_arguments(call, callee.summary).get(param)
            if value is not None:
                return kind, value
        return None

    def root(self, node: syntax.BaseExpression) -> tuple[Optional[int], bool, Optional[str]]:
        """(storage, through a conversion, the key) of what ``node`` aliases.

        A cast between two known element types copies: its root is None."""
        steps: list[Optional[str]] = []
        node = self._strip(node, steps)
        found: tuple[Optional[int], bool, Optional[str]] = (None, False, None)
        container = self._container_of(node) if isinstance(node, syntax.Subscript) else None
        if container is not None:  # an entry of a list or dict
            assert isinstance(node, syntax.Subscript)
            found = (self._entry(node, container), False, entry_name(node))
        elif isinstance(node, syntax.Call):
            conversion = self.log.conversions.get(id(node))
            if conversion is not None:
                found = (conversion.result, True, None)
        else:
            key = dotted_name(node)
            if key is not None:
                found = (self.storage_of_key(key), False, key)
        sid = found[0]
        if sid is not None and self._cast_copies(self.log.storages[sid].dtype, steps):
            return None, False, None
        return found

    def _cast_copies(self, dtype: Optional[str], steps: Sequence[Optional[str]]) -> bool:
        """Does a cast in ``steps`` (outermost first, as ``_strip`` records
        them) convert ``dtype`` to another known type, so copy?"""
        for step in reversed(steps):
            if step == dtypes.CHANGED:
                dtype = None
            elif step is not None:
                if dtype is not None and dtype != step:
                    return True
                dtype = step
        return False

    def _strip(
        self, node: syntax.BaseExpression, steps: Optional[list[Optional[str]]] = None
    ) -> syntax.BaseExpression:
        """``strip_views``, stopping at an entry of a container (``d[k]`` is
        the object kept there, not a view of ``d``); what each step does to
        the element type goes to ``steps`` (``dtypes.step_type``)."""
        while True:
            if isinstance(node, syntax.Subscript) and self._container_of(node) is not None:
                return node
            inner = view_step(node, self.scope)
            if inner is None:
                return node
            if steps is not None:
                steps.append(dtypes.step_type(node, self.scope))
            node = inner

    # -- lists and dicts ---------------------------------------------------------

    def _container_of(self, node: syntax.Subscript) -> Optional[int]:
        """The storage of ``d`` in ``d[k]`` when ``d`` holds a list or dict (and
        not, here, an array of a known type: ``x = np.zeros(3)`` after ``x = {}``)."""
        key = dotted_name(node.value)
        if key is None or key not in self.containers:
            return None
        sid = self.storage_of_key(key)
        return sid if self.log.storages[sid].dtype is None else None

    def _slot(
        self, container: int, index: Optional[syntax.BaseExpression]
    ) -> tuple[Optional[str], Optional[int]]:
        """The key of the entry ``index`` of ``container`` (a literal, or a name
        as the object it is bound to now: ``d[k]`` is another entry once ``k``
        is rebound), and the storage of that name. (None, None) for any other
        index."""
        literal = _literal_key(index)
        if literal is not None:
            return f"[{container}]{literal}", None
        key = dotted_name(index) if index is not None else None
        if key is None:
            return None, None
        bound = self.storage_of_key(key)
        return f"[{container}]#{bound}", bound

    def _entry(self, node: syntax.Subscript, container: int) -> int:
        """The storage of the object kept at ``d[k]``: what the walk saw stored
        there, else an entry made when ``d`` was (or, for ``d[k]`` with ``k``
        bound later, when ``k`` was; for any other index, here)."""
        slot, bound = self._slot(container, single_index(node))
        if slot is not None and slot in self.keys:
            return self.keys[slot]
        holder = self.log.storages[container]
        created = holder.created_at
        if slot is None:
            created = self.idx
        elif bound is not None:
            created = max(created, self.log.storages[bound].created_at)
        sid = self._new(created, visible=holder.visible, name=entry_name(node))
        self._contain(container, sid)
        if slot is not None:
            self.keys[slot] = sid
        return sid

    def _replace_entry(
        self, target: syntax.Subscript, container: int, value: syntax.BaseExpression, idx: int
    ) -> None:
        """``d[k] = v`` on a list or dict: ``d[k]`` is now ``v``; no bytes are written."""
        sid, _, _ = self.root(value)
        if sid is None:
            sid = self._new(idx)
            self._mark_source(sid, value)
            if isinstance(value, (syntax.List, syntax.Tuple, syntax.Dict, syntax.Set)):
                self._store_elements(sid, value, idx)
        slot, _ = self._slot(container, single_index(target))
        if slot is not None:
            self.keys[slot] = sid
        self._contain(container, sid)

    def _replaced_by_itself(self, target: syntax.Subscript, value: syntax.BaseExpression) -> bool:
        """``d[k] = torch.from_numpy(d[k])``: an entry replaced by a conversion
        of itself (on an array, a copy of the bytes onto themselves)."""
        stripped = self._strip(value)
        conversion = self.log.conversions.get(id(stripped))
        if conversion is None or conversion.source is None:
            return False
        return conversion.source == self.root(target.value)[0]

    # -- the walk --------------------------------------------------------------

    def run(self, body: Body) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: Union[syntax.BaseStatement, syntax.BaseSmallStatement]) -> None:
        if isinstance(node, syntax.SimpleStatementLine):
            for small in node.body:
                self.statement(small)
            return
        self.idx += 1
        idx = self.idx
        if isinstance(node, syntax.Assign):
            self.expression(node.value, idx)
            for target in node.targets:
                self.bind(target.target, node.value, idx)
                self._note_optimizer(target.target, node.value)
        elif isinstance(node, syntax.AnnAssign):
            if node.value is not None:
                self.expression(node.value, idx)
                self.bind(node.target, node.value, idx)
        elif isinstance(node, syntax.AugAssign):
            self.expression(node.value, idx)
            self.target_subexpressions(node.target, idx)
            self.write(node.target, idx, node, "any")
        elif isinstance(node, syntax.Del):
            for name in target_names(node.target):
                self.keys.pop(name, None)
        elif isinstance(node, syntax.If):
            self.expression(node.test, idx)
            before = dict(self.keys)
            self.run(suite_body(node.body))
            if node.orelse is None:
                return
            # the other branch starts from what held before the ``if``
            after_body, self.keys = self.keys, dict(before)
            if isinstance(node.orelse, syntax.If):
                self.statement(node.orelse)
            else:
                self.run(suite_body(node.orelse.body))
            for key, sid in after_body.items():
                if self.keys.get(key) == before.get(key):  # rebound on the first path only
                    self.keys[key] = sid
        elif isinstance(node, syntax.For):
            self.expression(node.iter, idx)
            loop = Loop(self.idx + 1)
            self.log.loops.append(loop)
            self.idx += 1
            iter_storage, _, _ = self.root(node.iter)
            visible = iter_storage is not None and self.log.storages[iter_storage].visible
            owner = self.parameters_of(node.iter)
            for name in target_names(node.target):
                if owner is not None and isinstance(node.target, syntax.Name):
                    self.keys[name] = owner  # ``for p in net.parameters()``: parts of ``net``
                else:
                    self.keys[name] = self._new(self.idx, visible=visible, name=name)
            self.run(suite_body(node.body))
            loop.end = self.idx
            if node.orelse is not None:
                self.run(suite_body(node.orelse.body))
        elif isinstance(node, syntax.While):
            loop = Loop(self.idx)
            self.log.loops.append(loop)
            self.expression(node.test, idx)
            self.run(suite_body(node.body))
            loop.end = self.idx
            if node.orelse is not None:
                self.run(suite_body(node.orelse.body))
        elif isinstance(node, syntax.With):
            for item in node.items:
                self.expression(item.item, idx)
                if item.asname is not None:
                    for name in target_names(item.asname.name):
                        self.keys[name] = self._new(idx, name=name)
            self.run(suite_body(node.body))
        elif isinstance(node, (syntax.Try, syntax.TryStar)):
            self.run(suite_body(node.body))
            for handler in node.handlers:
                self.run(suite_body(handler.body))
            if node.orelse is not None:
                self.run(suite_body(node.orelse.body))
            if node.finalbody is not None:
                self.run(suite_body(node.finalbody.body))
        elif isinstance(node, syntax.Match):
            self.expression(node.subject, idx)
            for case in node.cases:
                self.run(suite_body(case.body))
        elif isinstance(node, (syntax.FunctionDef, syntax.ClassDef)):
            self.keys.pop(node.name.value, None)
            if isinstance(node, syntax.FunctionDef):
                # a closure reads what it names; count those reads here
                self.expression(node, idx)
        elif isinstance(node, (syntax.Expr, syntax.Return, syntax.Assert, syntax.Raise)):
            self.expression(node, idx)

    def bind(self, target: syntax.BaseExpression, value: syntax.BaseExpression, idx: int) -> None:
        key = dotted_name(target)
        if key is not None:
            sid, _, _ = self.root(value)
            if sid is None:
                sid = self._new(idx, name=key)
                self._mark_source(sid, value)
                if isinstance(value, (syntax.List, syntax.Tuple, syntax.Dict, syntax.Set)):
                    self._store_elements(sid, value, idx)
            storage = self.log.storages[sid]
            if storage.name is None:
                storage.name = key
            if "." in key or key in self.scope.global_names:
                self._make_visible(sid)
            prefix = key + "."
            dotted = self.dotted.get(key.split(".", 1)[0], ())
            for stale in [k for k in dotted if k.startswith(prefix) and k in self.keys]:
                del self.keys[stale]
            self._set_key(key, sid)
            if isinstance(value, (syntax.ListComp, syntax.SetComp, syntax.GeneratorExp)):
                self._store(sid, value.elt, idx)  # ``[p.numpy() for p in ...]``
            return
        if isinstance(target, syntax.Subscript):
            self.target_subexpressions(target, idx)
            holder = self._container_of(target)
            if holder is not None:
                self._replace_entry(target, holder, value, idx)
                return
            key = dotted_name(target.value)
            itself = self._replaced_by_itself(target, value)
            if key is not None and itself:
                self.found_containers.add(key)
            container, _, _ = self.root(target.value)
            if container is not None and not self.log.storages[container].buffer:
                self._store(container, value, idx)  # (into a tensor or array: a copy)
            if itself and key is None:
                # an entry of a nested container replaced by a conversion of
                # itself (``self.f["levels"][k] = torch.from_numpy(self.f["levels"][k])``):
                # a slot rebound, or on an array its bytes copied onto themselves
                return
            fills = self._fills(target, [value])
            piece = None if fills else self._part(target, value)
            self.write(target, idx, target, "any", fills=fills, part=piece)
            return
        if _parallel(target, value):
            # ``t1, t2 = torch.from_numpy(a), torch.from_numpy(b)``: pairwise
            assert isinstance(target, (syntax.Tuple, syntax.List))
            assert isinstance(value, (syntax.Tuple, syntax.List))
            for part, part_value in zip(target.elements, value.elements):
                self.bind(part.value, part_value.value, idx)
            return
        for name in target_names(target):
            self.keys[name] = self._new(idx, name=name)

    def _make_visible(self, sid: int) -> None:
        stack = [sid]
        while stack:
            current = stack.pop()
            storage = self.log.storages[current]
            if not storage.visible:
                storage.visible = True
            stack.extend(s for s in self.log.contained.get(current, ()) if s != current
                         and not self.log.storages[s].visible)  # fmt: skip

    def _store(self, container: int, value: syntax.BaseExpression, idx: int) -> Optional[int]:
        stored, _, _ = self.root(value)
        if stored is not None:
            self._contain(container, stored)
        return stored

    def _contain(self, container: int, stored: int) -> None:
        self.log.contained.setdefault(container, set()).add(stored)
        self.log.storages[container].container = True
        if self.log.storages[container].visible:
            self._make_visible(stored)

    def _store_elements(self, container: int, value: syntax.BaseExpression, idx: int) -> None:
        """The items of a display, each under its literal slot (``xs[0]``, ``d["a"]``)."""
        if isinstance(value, syntax.Dict):
            for element in value.elements:
                if isinstance(element, syntax.DictElement):
                    stored = self._store(container, element.value, idx)
                    slot, _ = self._slot(container, element.key)
                    if stored is not None and slot is not None:
                        self.keys[slot] = stored
        elif isinstance(value, (syntax.List, syntax.Tuple, syntax.Set)):
            for n, item in enumerate(value.elements):
                stored = self._store(container, item.value, idx)
                if stored is not None and not isinstance(value, syntax.Set):
                    self.keys[f"[{container}]{n}"] = stored

    def _mark_source(self, sid: int, value: syntax.BaseExpression) -> None:
        zero_copy, readonly = source_kind(value, self.scope)
        storage = self.log.storages[sid]
        storage.zero_copy = zero_copy
        storage.readonly = readonly
        storage.dtype = dtypes.made_as(value, self.scope)
        storage.buffer = (
            isinstance(value, syntax.Call)
            and qualified_name(value.func, self.scope) in ops.NEW_BUFFERS
        )

    def target_subexpressions(self, target: syntax.BaseExpression, idx: int) -> None:
        """Reads inside an assignment target (``x[i] = v`` reads ``i``)."""
        if isinstance(target, syntax.Subscript):
            for element in target.slice:
                self.expression(element, idx)
            self.target_subexpressions(target.value, idx)
        elif isinstance(target, syntax.Attribute):
            self.target_subexpressions(target.value, idx)

    def write(
        self,
        target: syntax.BaseExpression,
        idx: int,
        node: syntax.CSTNode,
        kind: str,
        by: str = "",
        *,
        fills: bool = False,
        part: Optional[tuple[int, bool, Hashable]] = None,
    ) -> None:
        # ``x[mask] = v`` writes into ``x`` whatever the index: only reads copy
        # (``d[k] += 1`` on a list or dict writes the entry ``d[k]``)
        while isinstance(target, syntax.Subscript) and self._container_of(target) is None:
            target = target.value
        sid, through, key = self.root(target)
        if sid is None:
            return
        # a call that updates ``net`` updates ``net.w`` too
        storages = self._with_parts(sid, key) if by and key is not None else frozenset({sid})
        if key is None and not (through and by):  # (a callee given the conversion: unnamed)
            key = _root_key(target)
        self.log.events.append(
            Event(idx, "write", storages, node, key, kind, through, by=by, fills=fills, part=part)
        )

    def _fills(
        self, target: syntax.BaseExpression, values: Sequence[syntax.BaseExpression]
    ) -> bool:
        """Does a write of ``values`` into ``target`` replace all of what ``target``
        refers to, without reading it? ``t.copy_(src)``, ``a[:] = v``,
        ``a[...] = v`` (a view of all of it counts: ``a.T[:] = v``), but not
        ``a[0] = v`` and not ``a[:] = a[::-1]``."""
        node = target
        while True:
            if isinstance(node, syntax.Subscript):
                if self._container_of(node) is not None:
                    break  # a whole entry of a list or dict
                if not all(_selects_all(element) for element in node.slice):
                    return False
                node = node.value
                continue
            inner = view_step(node, self.scope)
            if inner is None:
                break
            if _view_name(node, self.scope) in ops.PARTIAL_VIEWS:
                return False  # ``t.narrow(0, 0, 2).zero_()``: a part of it
            node = inner
        written, _, _ = self.root(node)
        if written is None:
            return False
        for value in values:
            collector = _Collector()
            collector.visit(value)
            if any(self.keys.get(key) == written for _, key in collector.names):
                return False
        return True

    def _part(
        self, target: syntax.Subscript, value: syntax.BaseExpression
    ) -> Optional[tuple[int, bool, Hashable]]:
        """``a[:k] = v`` / ``a[:, k:] = v`` of a name, not reading ``a`` in ``v``:
        the axis, the side of the bound and the bound (``Event.part``)."""
        found: Optional[tuple[int, bool, Hashable]] = None
        for axis, element in enumerate(target.slice):
            if _selects_all(element):
                continue
            index = element.slice
            if found is not None or not isinstance(index, syntax.Slice) or index.step is not None:
                return None
            if (index.lower is None) == (index.upper is None):
                return None
            bound = _bound_key(index.upper if index.upper is not None else index.lower)
            if bound is None:
                return None
            found = (axis, index.lower is None, bound)
        if found is None or dotted_name(target.value) is None:
            return None
        return found if self._fills(target.value, [value]) else None

    def _with_parts(self, sid: int, key: str) -> frozenset[int]:
        """``net``'s storage and those of the attributes the walk knows (``net.w``)."""
        prefix = key + "."
        return frozenset({sid, *(s for k, s in self.keys.items() if k.startswith(prefix))})

    def parameters_of(self, node: syntax.BaseExpression) -> Optional[int]:
        """``net.parameters()``: the storage of ``net`` (its items are parts of it)."""
        if (
            isinstance(node, syntax.Call)
            and isinstance(node.func, syntax.Attribute)
            and node.func.attr.value in ops.PARAMETER_ITERATORS
        ):
            key = dotted_name(node.func.value)
            if key is not None:
                return self.storage_of_key(key)
        return None

    def _note_optimizer(self, target: syntax.BaseExpression, value: syntax.BaseExpression) -> None:
        """``opt = torch.optim.SGD(net.parameters(), ...)``: ``opt.step()`` writes ``net``."""
        key = dotted_name(target)
        if key is None:
            return
        self.optimizers.pop(key, None)
        if not isinstance(value, syntax.Call):
            return
        qual = qualified_name(value.func, self.scope)
        if qual is None or not qual.startswith("torch.optim.") or "lr_scheduler" in qual:
            return
        first = positional(value, 0) or keyword(value, "params")
        module = self.parameters_of(first) if first is not None else None
        if module is not None and isinstance(first, syntax.Call):
            assert isinstance(first.func, syntax.Attribute)
            self.optimizers[key] = (module, dotted_name(first.func.value) or "?")

    def _summarised_call(self, call: syntax.Call, idx: int) -> None:
        """Writes a call makes: a summarised callee's, a state-dict load, an optimizer step."""
        func = call.func
        if isinstance(func, syntax.Attribute):
            method = func.attr.value
            receiver = dotted_name(func.value)
            if receiver is not None and method in ops.STATE_LOADING_METHODS:
                by = f"`{receiver}.{method}(...)` loads a state dict into `{receiver}`"
                self.write(func.value, idx, call, "any", by)
                return
            stepped = self.optimizers.get(receiver or "")
            if stepped is not None and method in ops.OPTIMIZER_STEP_METHODS:
                sid, name = stepped
                by = f"`{receiver}.{method}()` steps an optimizer over `{name}`"
                self.log.events.append(
                    Event(idx, "write", self._with_parts(sid, name), call, name, "any", by=by)
                )
                return
        callee = self.callees.of(call, self.scope) if self.callees else None
        if callee is None or not callee.summary.writes:
            return
        passed = bind_arguments(call, callee.summary)
        for param, write in sorted(callee.summary.writes.items()):
            value = passed.get(param)
            if value is None:
                continue
            arg = dotted_name(value) or param
            if write.what == WRITES:
                by = f"{callee.describe()} writes it in place"
            else:
                by = f"{callee.describe()} {write.what} `{arg}`"
            self.write(value, idx, call, "any", by, fills=write.what == FILLS)

    def expression(self, node: syntax.CSTNode, idx: int) -> None:
        collector = _Collector()
        collector.visit(node)
        if isinstance(node, syntax.Expr) and isinstance(
            node.value, (syntax.Name, syntax.Attribute)
        ):
            collector.display.update(range(len(collector.names)))  # a bare ``b``: shown
        for comp in collector.comps:  # ``[p.numpy() for p in net.parameters()]``
            owner = self.parameters_of(comp.iter)
            if owner is not None and isinstance(comp.target, syntax.Name):
                self.keys[comp.target.value] = owner
        for call in collector.calls:  # innermost first
            self.call(call, idx)
        for n, (name_node, key) in enumerate(collector.names):
            sid = self.keys.get(key)
            if sid is None:
                if key not in self.scope.params and not self.is_module:
                    sid = self.storage_of_key(key)
                else:
                    sid = self.storage_of_key(key)
            self.log.events.append(
                Event(
                    idx, "use", frozenset({sid}), name_node, key,
                    held=frozenset(self._contents(sid)), metadata=n in collector.metadata,
                    display=n in collector.display, entry=collector.entries.get(id(name_node)),
                )
            )  # fmt: skip

    def _contents(self, sid: int) -> set[int]:
        seen: set[int] = set()
        stack = [sid]
        while stack:
            for inner in self.log.contained.get(stack.pop(), ()):
                if inner not in seen:
                    seen.add(inner)
                    stack.append(inner)
        return seen

    def call(self, call: syntax.Call, idx: int) -> None:
        conversion = self.conversion_of(call)
        if conversion is not None:
            kind, operand = conversion
            source = self.root(operand)[0] if operand is not None else None
            result = self._new(idx)
            if source is None and operand is not None:
                source = self._new(idx)
                self._mark_source(source, operand)
            entry = entry_path(operand) if operand is not None else None
            self.log.conversions[id(call)] = Conversion(call, kind, idx, source, result, entry)
            if source is not None:
                src = self.log.storages[source]
                res = self.log.storages[result]
                res.readonly = src.readonly and kind != "numpy"
                res.dtype = src.dtype if kind != "as_tensor" else None
        func = call.func
        qual = qualified_name(func, self.scope)
        self._summarised_call(call, idx)
        if isinstance(func, syntax.Attribute) and qual is None:
            method = func.attr.value
            written = ops.in_place_method(method)
            if written is not None:
                fills = method in ops.FILL_METHODS and self._fills(func.value, _arguments(call))
                self.write(func.value, idx, call, written, fills=fills)
            elif method in ops.CONTAINER_STORE_METHODS:
                container, _, _ = self.root(func.value)
                if container is not None:
                    for arg in call.args:
                        self._store(container, arg.value, idx)
            elif method == "setflags":
                target, _, _ = self.root(func.value)
                write = keyword(call, "write")
                if target is not None and write is not None and is_false(write):
                    self.log.storages[target].readonly = True
        elif qual is not None:
            first = positional(call, 0)
            if first is not None and (
                qual in ops.NUMPY_INPLACE_FUNCS
                or (qual.startswith("numpy.") and qual.endswith(".at"))
                or (qual.startswith("torch.") and qual.endswith("_"))
            ):
                fills = (qual in ops.FILL_FUNCS or qual.startswith(ops.FILL_MODULES)) and (
                    self._fills(first, _arguments(call)[1:])
                )
                self.write(first, idx, call, "any", fills=fills)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in ops.OUT_KEYWORDS:
                others = [a.value for a in call.args if a is not arg]
                self.write(arg.value, idx, call, "any", fills=self._fills(arg.value, others))
            if arg.keyword is not None and arg.keyword.value == "inplace" and is_true(arg.value):
                first = positional(call, 0)
                if first is not None:
                    self.write(first, idx, call, "torch")


def entry_name(node: syntax.Subscript) -> Optional[str]:
    """``d[k]``, ``xs[0]``, ``sample['image']`` for messages (None for other indexes)."""
    container = dotted_name(node.value)
    index = single_index(node)
    if container is None or index is None:
        return None
    if isinstance(index, (syntax.Integer, syntax.SimpleString)):
        return f"{container}[{index.value}]"
    key = dotted_name(index)
    return f"{container}[{key}]" if key is not None else None


def _view_name(node: syntax.BaseExpression, scope: Scope) -> Optional[str]:
    """The method, attribute or function name of one view step."""
    if isinstance(node, syntax.Attribute):
        return node.attr.value
    if isinstance(node, syntax.Call):
        qual = qualified_name(node.func, scope)
        if qual is not None:
            return qual
        if isinstance(node.func, syntax.Attribute):
            return node.func.attr.value
    return None


def _arguments(call: syntax.Call) -> list[syntax.BaseExpression]:
    return [arg.value for arg in call.args]


def _bound_key(node: Optional[syntax.BaseExpression]) -> Optional[Hashable]:
    """A slice bound two writes can be seen to share: names, attributes,
    whole numbers and arithmetic on them (``k * per_channel``), as a key
    equal for equal code; None for anything else (a call may differ)."""
    if isinstance(node, syntax.Integer):
        return ("int", node.value)
    if isinstance(node, (syntax.Name, syntax.Attribute)):
        name = dotted_name(node)
        return ("name", name) if name is not None else None
    if isinstance(node, syntax.BinaryOperation):
        left, right = _bound_key(node.left), _bound_key(node.right)
        if left is None or right is None:
            return None
        return ("op", type(node.operator).__name__, left, right)
    return None


def _selects_all(element: syntax.SubscriptElement) -> bool:
    """``:`` or ``...``: the whole of an axis (or of every axis)."""
    index = element.slice
    if isinstance(index, syntax.Slice):
        return index.lower is None and index.upper is None and index.step is None
    return isinstance(index, syntax.Index) and isinstance(index.value, syntax.Ellipsis)


def _root_key(node: syntax.BaseExpression) -> Optional[str]:
    while isinstance(node, (syntax.Subscript, syntax.Attribute, syntax.Call)):
        if isinstance(node, syntax.Call):
            node = node.func
        else:
            key = dotted_name(node)
            if key is not None:
                return key
            node = node.value
    return dotted_name(node)


def strip_views(node: syntax.BaseExpression, scope: Scope) -> syntax.BaseExpression:
    """Walk from an expression to what it is a view of."""
    while True:
        inner = view_step(node, scope)
        if inner is None:
            return node
        node = inner


def _literal_key(index: Optional[syntax.BaseExpression]) -> Optional[str]:
    """``0`` or ``'a'`` for the index of ``x[0]`` or ``x["a"]``; None for any
    other index (a negative number may name the same row as a positive one)."""
    if isinstance(index, syntax.Integer):
        return index.value
    if isinstance(index, syntax.SimpleString):
        return repr(index.evaluated_value)
    return None


def _keys_down(node: syntax.Subscript) -> Optional[tuple[syntax.BaseExpression, tuple[str, ...]]]:
    """The base of ``x[0]["a"]`` and its constant keys, outermost last; None
    when an index in the chain is not constant."""
    keys: list[str] = []
    current: syntax.BaseExpression = node
    while isinstance(current, syntax.Subscript):
        key = _literal_key(single_index(current))
        if key is None:
            return None
        keys.append(key)
        current = current.value
    return current, tuple(reversed(keys))


def entry_path(node: syntax.BaseExpression) -> Optional[tuple[str, tuple[str, ...]]]:
    """``("out", ("0",))`` for ``out[0].cpu()``: the name a value is read from
    and the constant keys applied to it first, before any method or
    attribute (``out.T[0]`` indexes a view: None)."""
    while not isinstance(node, syntax.Subscript):
        if isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute):
            node = node.func.value
        elif isinstance(node, syntax.Attribute) and dotted_name(node) is None:
            node = node.value
        else:
            return None
    found = _keys_down(node)
    if found is None:
        return None
    base, keys = found
    name = dotted_name(base)
    return (name, keys) if name is not None else None


def view_step(node: syntax.BaseExpression, scope: Scope) -> Optional[syntax.BaseExpression]:
    """What ``node`` is a view of, one step down (``a`` for ``a.T``), or None."""
    if isinstance(node, syntax.Call):
        func = node.func
        qual = qualified_name(func, scope)
        if qual is not None:  # a function: ``np.asarray(a)``
            if qual in ops.READONLY_SOURCES:
                return None  # a read-only view: its own storage, flagged read-only
            copy = keyword(node, "copy")
            if (
                (qual in ops.NUMPY_VIEW_FUNCS or qual in ops.TORCH_VIEW_FUNCS)
                and node.args
                and node.args[0].keyword is None
                and (copy is None or not is_true(copy))
            ):
                return node.args[0].value
            return None
        if isinstance(func, syntax.Attribute) and is_view_call(node, func.attr.value):
            return func.value  # a method: ``t.view(-1)``
        return None
    if isinstance(node, syntax.Attribute) and (
        node.attr.value in ops.TORCH_VIEW_ATTRS or node.attr.value in ops.NUMPY_VIEW_ATTRS
    ):
        return node.value
    if isinstance(node, syntax.Subscript) and is_basic_index(node):
        return node.value
    return None


def is_view_call(call: syntax.Call, method: str, array: Optional[bool] = None) -> bool:
    """Does ``x.method(...)`` return (a view of) ``x``? ``array`` says what
    ``x`` is, where known: an ndarray (True) or a tensor (False). The same
    name can differ: ``a.flatten()`` always copies, ``t.flatten()`` may not."""
    if method == "astype":
        copy = keyword(call, "copy")
        return array is not False and copy is not None and is_false(copy)
    if array is not False and method in ops.NUMPY_VIEW_METHODS:
        return True
    if array is True:
        return False
    if method == "to" and is_true(keyword(call, "copy") or syntax.Name("False")):
        return False
    if method in ops.TORCH_VIEW_METHODS:
        return True
    return method.endswith("_") and not method.startswith("_")


def source_kind(value: syntax.BaseExpression, scope: Scope) -> tuple[bool, bool]:
    """(zero-copy by design, read-only) for the producer of a value."""
    node = strip_views(value, scope)
    if not isinstance(node, syntax.Call):
        return False, False
    qual = qualified_name(node.func, scope)
    if qual is None:
        return False, False
    readonly = qual in ops.READONLY_SOURCES
    if qual == "numpy.load":
        mode = keyword(node, "mmap_mode")
        if mode is not None and not (isinstance(mode, syntax.Name) and mode.value == "None"):
            text = mode.evaluated_value if isinstance(mode, syntax.SimpleString) else None
            return True, text == "r"
        return False, False
    if qual in ("numpy.memmap", "numpy.lib.format.open_memmap"):
        mode = keyword(node, "mode")
        text = mode.evaluated_value if isinstance(mode, syntax.SimpleString) else None
        return True, (text in ("r", "readonly")) or (
            mode is None and qual == "numpy.lib.format.open_memmap"
        )
    if qual == "numpy.frombuffer":
        return True, _is_bytes(positional(node, 0) or keyword(node, "buffer"), scope)
    if qual == "numpy.ndarray" and keyword(node, "buffer") is not None:
        return True, _is_bytes(keyword(node, "buffer"), scope)
    if qual in ops.ZERO_COPY_SOURCES:
        return True, readonly
    return False, readonly


#: Methods whose result is an immutable ``bytes`` object.
_BYTES_METHODS = frozenset({"read", "tobytes", "getvalue", "read_bytes", "encode", "digest"})


def _is_bytes(node: Optional[syntax.BaseExpression], scope: Scope) -> bool:
    """Is this buffer known to be immutable ``bytes`` (so arrays over it are read-only)?"""
    if isinstance(node, (syntax.SimpleString, syntax.ConcatenatedString)):
        return True
    if isinstance(node, syntax.Name):
        annotation = scope.params.get(node.value)
        return isinstance(annotation, syntax.Name) and annotation.value == "bytes"
    if isinstance(node, syntax.Call):
        func = node.func
        if isinstance(func, syntax.Name):
            return func.value == "bytes"
        if isinstance(func, syntax.Attribute):
            return func.attr.value in _BYTES_METHODS
    return False


class _Collector:
    """Names read and calls made in an expression (calls innermost first)."""

    def __init__(self) -> None:
        self.names: list[tuple[syntax.CSTNode, str]] = []
        self.calls: list[syntax.Call] = []
        self.comps: list[syntax.CompFor] = []
        #: positions in ``names`` of reads of metadata only (``a.shape``, ``len(a)``)
        self.metadata: set[int] = set()
        #: positions in ``names`` of reads that only show the value (``print(b)``)
        self.display: set[int] = set()
        #: per name read through constant keys (by its node's id), the keys:
        #: ``Event.entry`` (the outermost chain, seen first, gives them all)
        self.entries: dict[int, tuple[str, ...]] = {}

    def visit(self, node: syntax.CSTNode) -> None:
        if isinstance(node, syntax.Name):
            self.names.append((node, node.value))
            return
        if isinstance(node, syntax.Attribute):
            key = dotted_name(node)
            if key is not None:
                parts = key.split(".")
                if not ops.METADATA_ATTRS.isdisjoint(parts[1:]):
                    self.metadata.update((len(self.names), len(self.names) + 1))
                self.names.append((node, key))
                self.names.append((node, parts[0]))
                return
        if (
            isinstance(node, syntax.Call)
            and isinstance(node.func, syntax.Name)
            and node.func.value in ops.METADATA_BUILTINS
            and node.args
            and isinstance(node.args[0].value, syntax.Name)
        ):
            self.metadata.add(len(self.names) + 1)  # ``len(a)``: ``a`` after ``len``
        if isinstance(node, syntax.ClassDef):
            return
        if isinstance(node, syntax.Subscript):
            down = _keys_down(node)
            if down is not None:
                self.entries.setdefault(id(down[0]), down[1])
        if isinstance(node, syntax.CompFor):
            self.comps.append(node)
        first = len(self.names)
        for child in children(node):
            self.visit(child)
        if isinstance(node, syntax.Call):
            self.calls.append(node)
            if isinstance(node.func, syntax.Name) and node.func.value in ops.DISPLAY_BUILTINS:
                self.display.update(range(first + 1, len(self.names)))  # (not ``print`` itself)
