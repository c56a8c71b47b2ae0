"""What the callers in the same file pass to a function: one level of context.

A conversion of a parameter is often decided by the function's callers. When
the function is called in its own file (``helper(x)`` at module level, or
``self.helper(x)`` in a method of the same class), the facts of the arguments
at those calls become the parameter's facts:

- evidence is united over the call sites: one caller passing a moved tensor
  is enough to say the parameter may be on an accelerator;
- proofs are intersected, and kept only when every call in the file was seen
  (a call the selective parse left out, ``map(helper, xs)`` or
  ``obj.helper(x)``, would be a caller we know nothing about); a caller that
  passes a tensor still says the parameter may be one (``MAY_TENSOR``).

The callers' own parameters are taken as they are (their boundary evidence,
their annotations), not from *their* callers: one level, so the cost stays
one extra walk of each calling function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Optional, Union

from tensorlint.analysis import syntax
from tensorlint.analysis.facts import (
    EMPTY,
    GRAD,
    MAY_TENSOR,
    MOVED,
    TENSOR,
    FactEvaluator,
    Facts,
    decorated_with,
    element_facts,
    evidence,
    first_parameter,
    meet,
    self_name,
)
from tensorlint.analysis.names import Scope, bind_arguments, dotted_name


class CallSite(NamedTuple):
    """A call of a function defined in the file, where it was found."""

    call: syntax.Call
    ancestors: Sequence[syntax.CSTNode]
    scope: Scope


def targets(function: syntax.FunctionDef, scope: Scope, site: CallSite) -> bool:
    """Does ``site`` call ``function`` (by its name, or as ``self.<name>``)?"""
    name = function.name.value
    func = site.call.func
    parent = scope.parent
    if parent is None:
        return False
    if parent.kind == "module":
        return isinstance(func, syntax.Name) and func.value == name
    if parent.kind == "function":
        # a function defined in a function, called by its name there (or in
        # another function nested in it)
        if not (isinstance(func, syntax.Name) and func.value == name):
            return False
        caller: Optional[Scope] = site.scope
        while caller is not None and caller is not parent:
            caller = caller.parent
        return caller is parent
    if parent.kind != "class" or not isinstance(func, syntax.Attribute):
        return False
    if func.attr.value != name or not isinstance(func.value, syntax.Name):
        return False
    if (
        isinstance(parent.node, syntax.ClassDef)
        and func.value.value == parent.node.name.value
        and parent.parent is not None
        and parent.parent.kind == "module"
    ):
        # ``Converter.to_array(t)``: a static or class method called by its class
        return is_static(function) or decorated_with(function, "classmethod")
    # ``self.<name>(...)`` in a method of the same class; ``cls.<name>(...)``
    # in a class method, of a class or static method
    caller = site.scope
    while caller.kind not in ("function", "module") and caller.parent is not None:
        caller = caller.parent
    if caller.parent is not parent or caller.kind != "function":
        return False
    me = self_name(caller)
    node = caller.node
    if me is None and isinstance(node, syntax.FunctionDef) and decorated_with(node, "classmethod"):
        me = first_parameter(node)
        if not (decorated_with(function, "classmethod") or is_static(function)):
            return False  # (``cls.f(x)`` of an instance method binds ``x`` to ``self``)
    return me is not None and me == func.value.value


def parameter_facts(
    function: Union[syntax.FunctionDef, syntax.Lambda],
    scope: Scope,
    sites: Sequence[CallSite],
    evaluate: Mapping[int, FactEvaluatorAt],
    complete: bool,
    mapped: Sequence[CallSite] = (),
) -> tuple[dict[str, Facts], dict[str, syntax.Call]]:
    """The facts each parameter of ``function`` gets from ``sites``, and for
    each evidence token the first call that passed it. ``mapped``: calls
    ``map(function, xs)``, which pass each element of ``xs`` to its first
    parameter."""
    positional, names = parameter_names(function, scope)
    found: dict[str, Facts] = {}
    via: dict[str, syntax.Call] = {}
    mapping = {id(site.call) for site in mapped}
    for site in [*sites, *mapped]:
        at = evaluate.get(id(site.call))
        if at is None:
            complete = False
            continue
        if id(site.call) in mapping:
            first = positional[0] if positional else None
            elements = element_facts(at(site.call.args[1].value))
            given = {name: elements if name == first else EMPTY for name in names}
        else:
            passed = bind_arguments(site.call, positional, names)
            given = {name: at(passed[name]) if name in passed else EMPTY for name in names}
        for name in names:
            facts = given[name]
            if TENSOR in facts:
                facts = facts | {MAY_TENSOR}  # (kept when the other callers are unknown)
            found[name] = meet(found[name], facts) if name in found else facts
            for token in evidence(facts):
                via.setdefault(token, site.call)
    if not complete:
        found = {
            name: evidence(facts) | (facts & {MAY_TENSOR, MOVED}) for name, facts in found.items()
        }
    return {name: facts for name, facts in found.items() if facts}, via


def passed_names(
    function: Union[syntax.FunctionDef, syntax.Lambda],
    scope: Scope,
    sites: Sequence[CallSite],
) -> dict[str, str]:
    """Parameter -> the name or attribute (``USE_CUDA``, ``args.cuda``) that
    every one of ``sites`` passes to it, where that is another name than the
    parameter's own: what the function tests of it is what the callers
    tested of that name (``if USE_CUDA: model.cuda()``, then ``tts(model,
    USE_CUDA)`` of ``def tts(model, use_cuda)``)."""
    positional, names = parameter_names(function, scope)
    found: dict[str, Optional[str]] = {}
    for site in sites:
        passed = bind_arguments(site.call, positional, names)
        for name in names:
            value = passed.get(name)
            key = dotted_name(value) if value is not None else None
            if found.get(name, key) != key:
                key = None
            found[name] = key
    return {name: key for name, key in found.items() if key is not None and key != name}


def parameter_names(
    function: Union[syntax.FunctionDef, syntax.Lambda], scope: Scope
) -> tuple[list[str], set[str]]:
    """The parameters a call in the file binds: the positional ones in order
    (``self`` left out of a method: the receiver of ``self.f(...)``), and all
    it can bind by keyword."""
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    method = (
        isinstance(function, syntax.FunctionDef)
        and scope.parent is not None
        and scope.parent.kind == "class"
        and not is_static(function)
    )
    if method and positional:
        positional = positional[1:]
    return positional, set(positional) | {p.name.value for p in params.kwonly_params}


def is_static(function: syntax.FunctionDef) -> bool:
    return decorated_with(function, "staticmethod")


class FactEvaluatorAt:
    """The facts of an expression at one call site (its caller's environment)."""

    def __init__(
        self, evaluator: FactEvaluator, env: Mapping[str, Facts], *, no_grad: bool = False
    ) -> None:
        self.evaluator = evaluator
        self.env = env
        #: the call is made with grad disabled: what requires grad is no
        #: evidence in the callee it runs
        self.no_grad = no_grad

    def __call__(self, expr: syntax.BaseExpression) -> Facts:
        facts = self.evaluator.expr(expr, self.env)
        if self.no_grad:
            facts = frozenset(t for t in facts if not t.startswith(GRAD))
        return facts


def lambda_owner(
    ancestors: Sequence[syntax.CSTNode],
) -> Optional[tuple[syntax.CSTNode, syntax.Lambda]]:
    """For a node in a lambda's body: the innermost function, class or
    module the lambda is in, and the lambda (the innermost one). None
    elsewhere."""
    lam: Optional[syntax.Lambda] = None
    for node in reversed(ancestors):
        if isinstance(node, syntax.Lambda):
            lam = lam or node
        elif isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Module)):
            return (node, lam) if lam is not None else None
    return None


def owner_of(ancestors: Sequence[syntax.CSTNode]) -> Optional[syntax.CSTNode]:
    """The innermost function, class or module among ``ancestors``."""
    for node in reversed(ancestors):
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Module)):
            return node
        if isinstance(node, syntax.Lambda):
            return None  # a lambda's parameters are not walked
    return None
