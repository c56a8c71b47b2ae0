"""Provenance facts: what is known about a value where it is converted.

Facts are small sets of strings, propagated through assignments in statement
order and intersected where branches meet (a fact holds after an ``if`` only
when it holds on every path). Loops are walked twice so that facts flowing
around the back edge are seen.

Two kinds of string live in a set. *Proofs* (``cpu``, ``nograd``, ...) are
must-facts: intersected at a merge. *Evidence* tokens (``dev:<id>``,
``grad:<id>``) say that the code shows the value may be on an accelerator or
may require grad, and where: they are may-facts, united at a merge and carried
through every computation. ``Evidence`` records behind each token name the
node that gave it, so a finding can say why it is right. A proof wins over
evidence (``x.cuda().cpu()`` is on the CPU).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Optional, Union

from tensorlint.analysis import ops, syntax, tensor_methods
from tensorlint.analysis.classes import is_module_class, other_framework_class
from tensorlint.analysis.containers import literal_index
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.analysis.names import (
    Scope,
    bind_arguments,
    dotted_name,
    framework_inputs,
    is_dataset_class,
    method_of,
    qualified_name,
    raises_always,
    target_names,
)
from tensorlint.analysis.summaries import FORWARD_MADE, GRAD_OFF, GRAD_OFF_WRAP, OTHER_MADE, OWNED
from tensorlint.analysis.walk import children, own_statements
from tensorlint.diagnostics import HIGH, MEDIUM

if TYPE_CHECKING:
    from tensorlint.analysis.callees import Callee
    from tensorlint.analysis.summaries import Element

Facts = frozenset[str]

CPU = "cpu"  #: known to live on the CPU
NOGRAD = "nograd"  #: cannot require grad
TENSOR = "tensor"  #: known to be a torch tensor
NDARRAY = "ndarray"  #: known to be a NumPy array
OTHER = "other"  #: comes from another framework (TensorFlow, JAX, ...)
#: not a torch tensor itself (a type test for one failed): says nothing of
#: its attributes or elements (a model's output object holds tensors)
NOTTENSOR = "nottensor"
#: an OpenMMLab data element (``data_sample.pred_instances``): not a tensor,
#: its own ``.numpy()`` converts its fields safely; its fields are tensors
ELEMENT = "element"
_NUMBER = "number"  #: a numeric literal: neutral in arithmetic

MODULE = "module"  #: an ``nn.Module`` (its call is a forward pass)
FROZEN = "frozen"  #: a module whose parameters were set not to require grad
PARAMFREE = "paramfree"  #: a module without parameters (``nn.ReLU()``, a loss)
#: a front end's predictor (``YOLO(...)``) whose call runs under ``no_grad``
#: or ``inference_mode``; with ``NOGRAD`` and not ``MODULE``: what such a call
#: returned, whose attributes are its no-grad tensors (``r.boxes.xyxy``)
INFERENCE = "inference"
#: a list or tuple whose elements are all torch tensors; its other facts are
#: the elements' (proofs all of them share, evidence any of them gives)
ELEMS = "elems"
#: (name, tensor) pairs: what ``m.named_parameters()`` gives, kept by a name
#: bound to it, whose second parts a ``for name, p in ...`` loop unpacks
PAIRS = "pairs"
#: the very value a forward pass returned (``logits = model(x)``: a tensor, or
#: a tuple or dict of them), not what is computed from it; not carried
OUTPUT = "output"
#: a list known to be empty (``[]``): adding elements gives it their facts
LIST0 = "list0"
#: a list display of values not known to be tensors nor anything else
#: (``[embedding]``): adding a tensor makes it a list that holds tensors
#: (``ELEMS``), without the proofs, which its first values may not share
LISTANY = "listany"

#: a value that is a plain number on some path (a running total still at its
#: ``0``): a may-fact, kept like evidence (it has a colon), that no table names
MAY_NUMBER = "number:"
#: a value that is a torch tensor on some path (a public function's parameter
#: one of its callers in the file passes a tensor, where callers no one here
#: sees may pass other values; a name a branch binds to a tensor): kept where
#: paths meet, like evidence, but not by what is computed from the value (an
#: element, an attribute, a call's result); not a proof for the fixes
MAY_TENSOR = "maytensor"
#: the result of ``.cuda()`` / ``.to(dev)`` on some path (a tensor or a
#: module: arithmetic on it makes it a tensor there); kept by views and
#: arithmetic, not by calls it is passed to
MOVED = "moved"
#: computed from a forward pass's output on some path (with grad enabled or
#: not: ``out = net(x)`` under ``no_grad``, then ``out["loss"]``): torch data,
#: as a module's grad evidence says with grad on; kept like evidence through
#: subscripts, arithmetic and methods, not through calls it is passed to
TORCH_DATA = "data:"

EMPTY: Facts = frozenset()
NUMBER: Facts = frozenset({_NUMBER})
CARRY: Facts = frozenset(
    {CPU, NOGRAD, TENSOR, NDARRAY, OTHER, MODULE, FROZEN, PARAMFREE, INFERENCE, MOVED, ELEMENT}
)

#: prefixes of evidence tokens
DEV = "dev:"
GRAD = "grad:"
#: marks the evidence of a public function's parameter (``dev:a<id>``)
API_MARK = "a"
#: the kinds of evidence that are the API boundary's guess about callers
API_KINDS = frozenset({"api", "api-grad"})
#: The grad evidence that code run as written (an example, a script, a
#: notebook) shows itself: a tensor made to require grad, or one it calls
#: ``.backward()`` on (``Site.grad_evidence``).
GRAD_SHOWN_AS_WRITTEN = frozenset({"requires-grad", "backward"})
#: A forward pass with grad enabled where it is made (``out = net(x)``).
#: Where the code already moved its output to the host (``out.cpu().numpy()``)
#: in a file that runs no backward pass, it is not counted unless the module
#: is a ``torch.nn`` one built in the code (``BUILT``; ``Site.grad_evidence``):
#: read by hand on code no one here had tuned on, such findings were false 27
#: times of 28 (frozen or loaded-for-inference models, callers or framework
#: loops that disable grad); the strict TL112 reports them, naming the pass.
FORWARD_PASS = "module-output"
#: the note of a forward pass of a ``torch.nn`` module built in the code
BUILT = "built"


def is_forward_pass(found: Evidence) -> bool:
    """Is ``found`` a forward pass's output, computed with grad enabled?"""
    return found.kind == FORWARD_PASS


def is_grad_guess(found: Evidence) -> bool:
    """Is ``found`` the API boundary's grad guess: a parameter of a public
    function that callers no checked code shows may pass a tensor that
    requires grad? Measured on code nobody had tuned on, it was real or weak
    in 4 of 65 findings (docs/confidence.md): not evidence for the default
    rules, only for the strict TL112, which names it."""
    return found.kind == "api-grad" and not found.shown


def forward_pass_of_a_given_module(found: Evidence) -> bool:
    """Is ``found`` a forward pass of a module the code did not build
    (loaded, passed in, made by a factory: frozen or not, elsewhere)?"""
    return found.kind == FORWARD_PASS and found.note != BUILT


#: ``Parameter`` of ``nn.Parameter(w)``: the parameter classes' own names
_PARAMETER_CLASS_NAMES = frozenset(name.rsplit(".", 1)[1] for name in ops.PARAMETER_CLASSES)


def shown_as_written(found: Evidence) -> bool:
    """Is ``found`` grad evidence that code run as written shows itself:
    ``GRAD_SHOWN_AS_WRITTEN``, or a parameter it makes (``nn.Parameter(w)``
    is a leaf that requires grad, like ``requires_grad=True``; a module's
    ``.weight`` is not: the module may be frozen or loaded for inference)?"""
    if found.kind in GRAD_SHOWN_AS_WRITTEN:
        return True
    node = found.node
    if found.kind != "parameter" or not isinstance(node, syntax.Call):
        return False  # ``model.fc.weight``
    func = node.func  # ``Parameter(w)``, ``nn.Parameter(w)``; not ``model.parameters()``
    return isinstance(func, syntax.Name) or (
        isinstance(func, syntax.Attribute) and func.attr.value in _PARAMETER_CLASS_NAMES
    )


class Evidence(NamedTuple):
    """Why a value may be on an accelerator, or may require grad.

    ``kind`` is one of ``move`` (``.cuda()``, ``.to(device)``), ``device``
    (``device=dev``), ``api`` / ``api-grad`` (a parameter of a public library
    function: callers may pass a CUDA tensor / one that requires grad),
    ``parameter`` (a trainable parameter), ``requires-grad``
    (``requires_grad=True``), ``backward`` (``loss.backward()``: what it is
    called on requires grad) or ``module-output`` (a forward pass with grad
    enabled).
    """

    kind: str
    node: syntax.CSTNode
    name: str = ""  #: the parameter and its function, for ``api``
    #: for ``api`` evidence that comes through a call the analysis saw (a base
    #: class calling a hook, a caller in another file): that call, as a clause
    through: str = ""
    #: for ``api`` evidence: what the related location says of the parameter
    note: str = ""
    #: the call in this file that passed the value to the site's function
    via: Optional[syntax.Call] = None
    #: for ``api`` evidence: a caller in another file shows the value's cause
    #: (it passes a value it moved, or a module's output), not its own guess
    shown: bool = False
    #: for ``move`` / ``device`` evidence made only where a flag holds (``if
    #: use_cuda: x = x.cuda()``): the flag's dotted name (``flow.flag_test``)
    guard: str = ""
    #: for ``callee-device`` evidence: the device the callee moves to, as the
    #: caller names it (``self.device``), where that is known
    target: str = ""
    #: for ``api`` evidence that reached the value through a helper of the
    #: project (``x, y = self._subgraph(x, y)``): it counts only where the
    #: function's callers show the cause, never as the guess
    settled_only: bool = False

    @property
    def confidence(self) -> str:
        """How sure a finding resting on this evidence is (``CONFIDENCES``):
        ``medium`` for the API boundary's guess about callers no checked code
        shows, for a forward pass with grad enabled where it is made (a
        caller in another file, or the module's own ``forward``, may run it
        under ``no_grad``: measured, these were false far more often than
        not, docs/confidence.md), and for a library module's own parameters
        or buffers; ``high`` for a cause the code shows."""
        if self.kind in API_KINDS:
            return HIGH if self.shown else MEDIUM
        return MEDIUM if self.kind in (FORWARD_PASS, "owned") else HIGH


#: the kinds of device evidence (the others are grad evidence)
_DEVICE_KINDS = frozenset(
    {"move", "device", "load", "api", "callee-device", "batch", "gathered", "owned",
     "default-device"}
)  # fmt: skip


def record(
    scope: Scope,
    kind: str,
    node: syntax.CSTNode,
    name: str = "",
    through: str = "",
    note: str = "",
    target: str = "",
    guard: str = "",
    shown: bool = False,
    settled_only: bool = False,
) -> str:
    """The token for evidence of ``kind`` given by ``node`` (registered once)."""
    prefix = DEV if kind in _DEVICE_KINDS else GRAD
    # ``api`` tokens are marked: they follow a value, not the calls it is passed to
    token = f"{prefix}{API_MARK if kind in API_KINDS else ''}{id(node)}"
    table = scope.module().evidence
    if token not in table:
        if guard:
            scope.module().guards.add(guard)
        table[token] = Evidence(
            kind,
            node,
            name,
            through=through,
            note=note,
            guard=guard,
            target=target,
            shown=shown,
            settled_only=settled_only,
        )
    return token


def _through_helper(tokens: set[str], scope: Scope) -> set[str]:
    """``through_helper`` of each token, the ones nothing settles left out."""
    found = (through_helper(t, scope) for t in tokens)
    return {t for t in found if t is not None}


def through_helper(token: str, scope: Scope) -> Optional[str]:
    """``token`` as it reaches a value through a helper of the project (a
    call whose summary says it keeps its argument's device or grad): the
    same, or for the guess of a public function's parameter, a token that
    counts only where callers settle the guess with a cause they show
    (``Evidence.settled_only``); None where nothing can settle it."""
    if not is_api(token):
        return token
    table = scope.module().evidence
    found = table.get(token)
    if found is None:
        return None
    if found.shown:
        return token
    settled = f"{token}s"
    if settled not in table:
        table[settled] = found._replace(settled_only=True)
    return settled


def _callee_target(node: syntax.Call, callee: Callee) -> tuple[str, str]:
    """The device a callee moves what it returns to, and the flag it moves
    under (``if use_cuda:``), named as the caller names them: ``self.device``
    / ``self.use_cuda`` for a method called on ``self``, a name of this module
    (``DEVICE``, ``train_on_gpu``) for a function of this module; else empty
    (not known here)."""
    func = node.func
    on_self = (
        isinstance(func, syntax.Attribute)
        and isinstance(func.value, syntax.Name)
        and func.value.value == "self"
    )
    local = callee.where.startswith("line ")

    def as_here(name: str) -> str:
        if name.startswith("self."):
            return name if on_self else ""
        return name if local and "." not in name.rstrip("()") else ""

    summary = callee.summary
    target = as_here(summary.device_target) if summary.device_target else ""
    if target and not target.startswith("self.") and not target.isupper():
        target = ""  # (a local name of the callee's: not the caller's)
    return target, as_here(summary.device_flag) if summary.device_flag else ""


#: The kinds of expression whose facts can hold ``TENSOR`` (see
#: ``FactEvaluator._expr``: a number, a display, a string, a comprehension
#: carries evidence at most).
_TYPED = (
    syntax.Name,
    syntax.Attribute,
    syntax.Subscript,
    syntax.Call,
    syntax.BinaryOperation,
    syntax.UnaryOperation,
    syntax.Comparison,
    syntax.IfExp,
)


def may_be_tensor(node: syntax.BaseExpression) -> bool:
    """Can the facts of ``node`` say ``TENSOR``? (Asked before paying for the
    walk of the function: ``Site.is_tensor``.)"""
    return isinstance(node, _TYPED)


def evidence(facts: Facts) -> Facts:
    return frozenset(t for t in facts if ":" in t)


def is_api(token: str) -> bool:
    """Is ``token`` the evidence of a public function's parameter (the guess
    that stands in for callers no one has read: ``dev:a<id>``)?"""
    return ":" in token and token[token.index(":") + 1 :][:1] == API_MARK


def without_api(facts: Facts) -> Facts:
    """``facts`` less the guess of a public function's parameter."""
    return frozenset(t for t in facts if not is_api(t))


def without_api_device(facts: Facts) -> Facts:
    """``facts`` less the guess that a public function's parameter may be
    on an accelerator (its grad guess stays)."""
    return frozenset(t for t in facts if not (t.startswith(DEV) and is_api(t)))


def without_api_grad(facts: Facts) -> Facts:
    """``facts`` less the guess that a public function's parameter may
    require grad (for a part of it named for data: ``batch["labels"]``)."""
    return frozenset(t for t in facts if not (t.startswith(GRAD) and is_api(t)))


#: what a list or tuple of values may be known as
LISTS = frozenset({ELEMS, LISTANY, LIST0})


def may_be_tensor_only(facts: Facts) -> bool:
    """Is the value a torch tensor on some path only (``MAY_TENSOR``), not a
    list that holds one?"""
    return MAY_TENSOR in facts and not facts & LISTS


def meet(a: Facts, b: Facts) -> Facts:
    """Where two values (or paths) meet: proofs both agree on, evidence of either."""
    if a == b:
        return a
    # a running total that is still ``0`` on one path and a tensor on the
    # other (``total = 0``, then ``total += loss`` in a loop): converting a
    # number cannot fail, so the tensor's facts decide
    # (``MAY_NUMBER`` remembers the number, for the fixes' safety)
    if a == NUMBER and TENSOR in b:
        return b | {MAY_NUMBER}
    if b == NUMBER and TENSOR in a:
        return a | {MAY_NUMBER}
    # an empty list meets a list that was filled: it holds what was added
    if LIST0 in a and b & {ELEMS, LIST0, LISTANY}:
        return b
    if LIST0 in b and a & {ELEMS, LIST0, LISTANY}:
        return a
    # a list of unknown values that a tensor was added to holds tensors
    # (it keeps ``LISTANY``: its elements are not all known to be tensors)
    if LISTANY in a and ELEMS in b:
        return b - {CPU, NOGRAD} | {LISTANY}
    if LISTANY in b and ELEMS in a:
        return a - {CPU, NOGRAD} | {LISTANY}
    # a torch tensor on one path, a value a type test refuted on the other
    # (``if isinstance(x, torch.Tensor): x = x.data``): where the value is a
    # torch tensor, the first path's facts hold
    if TENSOR in a and NOTTENSOR in b and TENSOR not in b:
        return a
    if TENSOR in b and NOTTENSOR in a and TENSOR not in a:
        return b
    found = (a & b) | evidence(a) | evidence(b) | ((a | b) & {MAY_TENSOR, MOVED})
    other = b if TENSOR in a else a
    if (TENSOR in a) != (TENSOR in b) and not other and not (a | b) & LISTS:
        # a torch tensor on one path only, nothing said of the value on the
        # other (``if grid is None: grid = torch.zeros(n, device=d)``): it
        # may be one, and the evidence is that path's
        found = found | {MAY_TENSOR}
    return found - {MAY_TENSOR} if TENSOR in found else found


def carry(facts: Facts) -> Facts:
    """What a view, element or same-device result keeps of its source."""
    return frozenset(t for t in facts if t in CARRY or ":" in t)


def element_facts(iterated: Facts) -> Facts:
    """What an element of a value with these facts is known to be (a
    tensor's rows share its device and grad facts; an array's are numbers;
    an element of a list of tensors is a tensor with the list's proofs)."""
    if iterated & {NDARRAY, OTHER}:
        return EMPTY
    found = carry(iterated) - {MODULE, FROZEN}
    return found | {TENSOR} if ELEMS in iterated and LISTANY not in iterated else found


def is_empty_list(node: syntax.BaseExpression, scope: Scope) -> bool:
    """``[]``, or ``list()`` of the builtin ``list``."""
    if isinstance(node, syntax.List):
        return not node.elements
    return (
        isinstance(node, syntax.Call)
        and not node.args
        and isinstance(node.func, syntax.Name)
        and node.func.value == "list"
        and scope.lookup("list") is None
    )


def dict_lists_key(node: syntax.BaseExpression, entry: Optional[str] = None) -> Optional[str]:
    """The key under which the lists of the dict ``node`` are tracked together
    (``history.[]``; rebinding ``history`` drops it with its other sub-keys),
    or, with ``entry``, the one list of that literal key (``history.['val']``)."""
    key = dotted_name(node)
    if key is None:
        return None
    return f"{key}.[]" if entry is None else f"{key}.[{entry!r}]"


def unpacks_tensors(facts: Facts) -> bool:
    """Is every value unpacked from a call with ``facts`` a tensor? A torch
    call's result is a tensor (its rows are tensors) or a tuple of them; not
    a forward pass's (a dict of outputs unpacks into its keys)."""
    return TENSOR in facts and not facts & {OUTPUT, NDARRAY, OTHER, NOTTENSOR, MODULE}


def bind_target(env: dict[str, Facts], target: syntax.BaseExpression, facts: Facts) -> None:
    """Bind an assignment or loop target: a name or dotted name takes the
    facts (and its stale sub-keys go); each name unpacked from a tuple keeps
    their evidence only."""
    key = dotted_name(target)
    if key is not None:
        prefix = key + "."
        for stale in [k for k in env if k.startswith(prefix)]:
            del env[stale]
        env[key] = facts
        return
    for name in target_names(target):
        env[name] = evidence(facts)


def bind_loop_target(
    evaluator: FactEvaluator,
    env: dict[str, Facts],
    target: syntax.BaseExpression,
    iterable: syntax.BaseExpression,
    outer: Mapping[str, Facts],
) -> None:
    """``for row in t`` (a statement or a comprehension's ``for``): rows of a
    tensor share its device and grad facts; ``zip(a, b)`` and
    ``enumerate(t)`` unpack element-wise into tuple targets, and
    ``m.named_parameters()`` or ``d.items()`` into (key, value) targets.
    ``outer``: the facts in force where ``iterable`` is evaluated."""

    def elements_of(source: syntax.BaseExpression) -> Facts:
        return element_facts(evaluator.expr(source, outer))

    bind_target(env, target, EMPTY)
    pair = isinstance(target, (syntax.Tuple, syntax.List)) and len(target.elements) == 2
    if pair and (
        isinstance(iterable, syntax.Call)
        and isinstance(iterable.func, syntax.Attribute)
        and _yields_pairs(iterable.func.attr.value)
    ):
        assert isinstance(target, (syntax.Tuple, syntax.List))
        found = elements_of(iterable)
        if iterable.func.attr.value in ops.MODULE_PARAMETER_METHODS:
            found = found | {TENSOR}  # ``for name, p in m.named_parameters()``
        bind_target(env, target.elements[1].value, found)
        return
    if pair and isinstance(iterable, syntax.Name):
        iterated = evaluator.expr(iterable, outer)
        if PAIRS in iterated:  # ``named = m.named_parameters()``, then ``for n, p in named``
            assert isinstance(target, (syntax.Tuple, syntax.List))
            bind_target(env, target.elements[1].value, element_facts(iterated) | {TENSOR})
            return

    def bind_elements(target: syntax.BaseExpression, source: syntax.BaseExpression) -> None:
        """``target`` takes the elements of ``source``: position by position
        through ``zip`` and ``enumerate``, nested too (``for i, (x, y) in
        enumerate(zip(xs, ys))``)."""
        if (
            isinstance(source, syntax.Call)
            and isinstance(source.func, syntax.Name)
            and source.func.value in ("zip", "enumerate")
            and isinstance(target, (syntax.Tuple, syntax.List))
            and not any(a.star for a in source.args)
        ):
            sources: list[Optional[syntax.BaseExpression]] = [
                a.value
                for a in source.args
                if a.keyword is None  # (``strict=True``, ``start=1``)
            ]
            if source.func.value == "enumerate":
                sources = [None, *sources[:1]]
            for element, inner in zip(target.elements, sources):
                if inner is not None:
                    bind_elements(element.value, inner)
            return
        bind_target(env, target, elements_of(source))

    bind_elements(target, iterable)


#: the comprehensions (LibCST's ``BaseComp`` does not declare ``for_in``)
Comprehension = Union[syntax.ListComp, syntax.SetComp, syntax.DictComp, syntax.GeneratorExp]
COMPREHENSIONS = (syntax.ListComp, syntax.SetComp, syntax.DictComp, syntax.GeneratorExp)


def comprehension_env(
    evaluator: FactEvaluator,
    node: Comprehension,
    env: Mapping[str, Facts],
    path: Sequence[syntax.CSTNode] = (),
) -> dict[str, Facts]:
    """The facts in force inside a comprehension: ``env`` with each ``for``
    target bound to the elements of what it iterates. ``path``: the nodes
    from ``node`` (excluded) down to a site inside it; a site in a ``for``'s
    ``iter`` sees only the targets bound before that ``for``."""
    on_path = {id(n): k for k, n in enumerate(path)}
    inner = dict(env)
    comp: Optional[syntax.CompFor] = node.for_in
    while comp is not None:
        k = on_path.get(id(comp))
        if k is not None and k + 1 < len(path) and path[k + 1] in (comp.iter, comp.target):
            break
        bind_loop_target(evaluator, inner, comp.target, comp.iter, inner)
        comp = comp.inner_for_in
    return inner


def _yields_pairs(method: str) -> bool:
    """Does ``x.method()`` yield (key, value) pairs (``named_buffers``, ``items``)?"""
    return method == "items" or method.startswith("named_")


def torch_valued(facts: Facts, scope: Scope) -> bool:
    """Is a value with these facts torch data: a tensor, or the output of a
    module's forward pass (a tensor, or tensors in a tuple or dict)?"""
    if TENSOR in facts or TORCH_DATA in facts:
        return True
    table = scope.module().evidence
    return any(t.startswith(GRAD) and t in table and table[t].kind in _OUTPUT_KINDS for t in facts)


#: Evidence kinds that say a value is a module's output (torch data).
_OUTPUT_KINDS = frozenset({FORWARD_PASS, "callee-output"})


def _inferred(facts: Facts) -> Facts:
    """What a predictor returns: its inputs' device evidence, and no grad."""
    return frozenset(t for t in facts if t.startswith(DEV)) | {NOGRAD, INFERENCE}


def settle(facts: Facts) -> Facts:
    """Proofs win: no device evidence on a CPU value, no grad evidence without grad."""
    if CPU in facts and any(t.startswith(DEV) for t in facts):
        facts = frozenset(t for t in facts if not t.startswith(DEV))
    if NOGRAD in facts and any(t.startswith(GRAD) for t in facts):
        facts = frozenset(t for t in facts if not t.startswith(GRAD))
    return facts


#: Attributes of a tensor that are not tensors (they carry no evidence).
_PLAIN_ATTRIBUTES = frozenset(
    {"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "grad_fn", "layout",
     "is_leaf", "names", "itemsize", "nbytes", "size"}
)  # fmt: skip

Env = dict[str, Facts]

#: a function summary's ``returns`` -> the proof it gives (``"tensor"``: a
#: position of the tuples it returns is a tensor, ``summaries.TENSOR_MADE``)
_PROOFS = {"cpu": CPU, "nograd": NOGRAD, "tensor": TENSOR}


def _literal_default(param: syntax.CSTNode) -> bool:
    """Does the parameter default to a literal (``cosine_s=8e-3``,
    ``min_max=(0, 1)``, ``mode="bilinear"``, ``-1``)? Then callers pass
    values of that kind, not tensors (a ``None`` default says nothing)."""
    if not isinstance(param, syntax.Param) or param.default is None:
        return False
    if param.annotation is not None and _names_a_tensor(param.annotation.annotation):
        return False  # ``u: float | Tensor = 0.0``: a tensor is welcome too
    return _is_literal(param.default)


def _names_a_tensor(annotation: syntax.CSTNode) -> bool:
    """Does the annotation mention a tensor type (``Tensor``, ``torch.Tensor``,
    ``"torch.FloatTensor"``, inside ``Union``/``Optional``/``|`` too)?"""
    stack = [annotation]
    while stack:
        node = stack.pop()
        if isinstance(node, syntax.Name) and node.value.endswith("Tensor"):
            return True
        if isinstance(node, syntax.Attribute) and node.attr.value.endswith("Tensor"):
            return True
        if isinstance(node, syntax.SimpleString) and "Tensor" in node.value:
            return True
        stack.extend(children(node))
    return False


def _is_literal(node: syntax.BaseExpression) -> bool:
    if isinstance(node, (syntax.BaseNumber, syntax.BaseString)):
        return True
    if isinstance(node, syntax.Name):
        return node.value in ("True", "False")
    if isinstance(node, syntax.UnaryOperation):
        return isinstance(node.expression, syntax.BaseNumber)
    if isinstance(node, (syntax.Tuple, syntax.List)):
        return all(_is_literal(e.value) for e in node.elements)
    return False


#: Keywords that pass a torch function its tensors (``F.interpolate(input=x)``).
_TENSOR_KEYWORDS = frozenset({"input", "tensors", "other"})


def is_cpu_device(node: syntax.BaseExpression, scope: Scope) -> bool:
    """``"cpu"``, ``'cpu:0'`` or ``torch.device("cpu")``; or a call of a
    function named ``cpu`` with no arguments: a backend's CPU device
    (``x.to(F.cpu())`` in DGL's tests), or a tensor moved to the CPU, whose
    device and dtype ``x.to(t.cpu())`` takes; or an imported constant of the
    checked tree bound once to the CPU device (``Callees.cpu_constant``)."""
    if isinstance(node, syntax.SimpleString):
        value = node.evaluated_value
        return isinstance(value, str) and value.split(":")[0] == "cpu"
    if isinstance(node, syntax.Call) and qualified_name(node.func, scope) == "torch.device":
        return bool(node.args) and is_cpu_device(node.args[0].value, scope)
    if isinstance(node, syntax.Call) and not node.args:
        return (dotted_name(node.func) or "").rsplit(".", 1)[-1] == "cpu"
    if isinstance(node, (syntax.Name, syntax.Attribute)):
        # an imported constant of the checked tree (``DEVICE`` of a test
        # suite's ``conftest.py``, bound once to ``torch.device("cpu")``)
        callees = scope.module().callees
        return callees is not None and callees.cpu_constant(node, scope)
    return False


def keyword(call: syntax.Call, name: str) -> Optional[syntax.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def positional(call: syntax.Call, index: int) -> Optional[syntax.BaseExpression]:
    count = 0
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            if count == index:
                return arg.value
            count += 1
    return None


def is_false(node: Optional[syntax.BaseExpression]) -> bool:
    return isinstance(node, syntax.Name) and node.value == "False"


def is_true(node: Optional[syntax.BaseExpression]) -> bool:
    return isinstance(node, syntax.Name) and node.value == "True"


def _is_literal_data(node: syntax.BaseExpression) -> bool:
    return isinstance(
        node, (syntax.List, syntax.Tuple, syntax.Integer, syntax.Float, syntax.ListComp)
    )


_IDENTITY_OR_MEMBERSHIP = (syntax.Is, syntax.IsNot, syntax.In, syntax.NotIn)


def _combine(a: Facts, b: Facts) -> Facts:
    """An operator's operands: a number, or a NumPy value next to a tensor, is neutral."""
    if _NUMBER in a or (NDARRAY in a and TENSOR in b):
        return b | evidence(a)
    if _NUMBER in b or (NDARRAY in b and TENSOR in a):
        return a | evidence(b)
    return meet(a, b)


def _operands(a: Facts, b: Facts) -> Facts:
    """An operator's result (``a + b``, ``a != b``): as ``_combine`` says,
    but a CPU tensor next to a value not known to be a tensor (a parameter, a
    scalar) gives a CPU result, or the operator raises before any conversion
    could: ``torch.arange(n) / steps`` is on the CPU."""
    found = _combine(a, b)
    if (TENSOR in a and CPU in a and TENSOR not in b) or (
        TENSOR in b and CPU in b and TENSOR not in a
    ):
        found = frozenset(t for t in found if not t.startswith(DEV)) | {CPU}
    return found


def annotation_facts(annotation: Optional[syntax.BaseExpression], scope: Scope) -> Facts:
    if annotation is None:
        return EMPTY
    if isinstance(annotation, syntax.SimpleString):
        text = annotation.evaluated_value
        if isinstance(text, str):
            if text in ("torch.Tensor", "Tensor"):
                return frozenset({TENSOR})
            if text in ("np.ndarray", "numpy.ndarray"):
                return frozenset({NDARRAY})
        return EMPTY
    qual = qualified_name(annotation, scope)
    if qual == "torch.Tensor":
        return frozenset({TENSOR})
    dotted = dotted_name(annotation)
    if dotted is not None and dotted.rsplit(".", 1)[-1] in ops.INTEGER_TENSOR_ANNOTATIONS:
        return frozenset({TENSOR, NOGRAD})  # ``LongTensor``, an alias of one: no grad
    callees = scope.module().callees
    if dotted is not None and callees:
        # ``MappedTriples``, defined elsewhere as ``MappedTriples = LongTensor``
        for name in callees.type_alias(annotation, scope):
            if name.rsplit(".", 1)[-1] in ops.INTEGER_TENSOR_ANNOTATIONS:
                return frozenset({TENSOR, NOGRAD})
    if qual in ("numpy.ndarray", "numpy.typing.NDArray"):
        return frozenset({NDARRAY})
    members = union_members(annotation)
    if members is not None:
        # ``None | MappedTriples | list[MappedTriples]``: integer tensors (or
        # collections of them) whichever member it is, so nothing requires grad
        kept = [m for m in members if not _is_none(m)]
        if kept and all(_integer_tensors(m, scope) for m in kept):
            return frozenset({NOGRAD})
        return EMPTY
    if isinstance(annotation, syntax.Subscript):
        return annotation_facts(annotation.value, scope) & frozenset({NDARRAY})
    return EMPTY


def union_members(
    annotation: syntax.BaseExpression,
) -> Optional[list[syntax.BaseExpression]]:
    """The members of ``A | B``, ``Union[A, B]`` or ``Optional[A]``, nested
    unions flattened (None: not a union)."""
    if isinstance(annotation, syntax.BinaryOperation) and isinstance(
        annotation.operator, syntax.BitOr
    ):
        left = union_members(annotation.left) or [annotation.left]
        right = union_members(annotation.right) or [annotation.right]
        return [*left, *right]
    if isinstance(annotation, syntax.Subscript) and dotted_name(annotation.value) in (
        "Union", "typing.Union", "Optional", "typing.Optional"
    ):  # fmt: skip
        found: list[syntax.BaseExpression] = []
        for element in annotation.slice:
            if not isinstance(element.slice, syntax.Index):
                return None
            found += union_members(element.slice.value) or [element.slice.value]
        return found
    return None


def _integer_tensors(annotation: syntax.BaseExpression, scope: Scope) -> bool:
    """An integer tensor type (``LongTensor``, ``MappedTriples``), or a
    ``list``/``Sequence``/``tuple`` of them."""
    if isinstance(annotation, syntax.Subscript):
        container = dotted_name(annotation.value)
        if container is None or container.rsplit(".", 1)[-1] not in ops.SEQUENCE_ANNOTATIONS:
            return False
        return all(
            isinstance(e.slice, syntax.Index)
            and (
                isinstance(e.slice.value, syntax.Ellipsis) or _integer_tensors(e.slice.value, scope)
            )
            for e in annotation.slice
        )
    return NOGRAD in annotation_facts(annotation, scope)


def is_plain_annotation(annotation: Optional[syntax.BaseExpression]) -> bool:
    """Is the parameter annotated as something that is never a tensor
    (``int``, ``str``, ``Optional[bool]``, ``Collection[int]``, ``int | None``)?"""
    if annotation is None:
        return False
    if isinstance(annotation, syntax.SimpleString):
        text = annotation.evaluated_value
        if not isinstance(text, str):
            return False
        try:
            annotation = parse_expression(text)
        except SyntaxError:
            return False
    if isinstance(annotation, syntax.BinaryOperation) and isinstance(
        annotation.operator, syntax.BitOr
    ):
        return is_plain_annotation(annotation.left) and is_plain_annotation(annotation.right)
    if isinstance(annotation, syntax.Subscript):
        if not is_plain_annotation(annotation.value):
            return False
        return all(
            isinstance(e.slice, syntax.Index) and is_plain_annotation(e.slice.value)
            for e in annotation.slice
        )
    if isinstance(annotation, (syntax.List, syntax.Tuple)):  # ``Callable[[int], str]``
        return all(is_plain_annotation(e.value) for e in annotation.elements)
    if isinstance(annotation, (syntax.SimpleString, syntax.Integer, syntax.Ellipsis)):
        return True  # ``Literal["a", 1]``
    dotted = dotted_name(annotation)
    return dotted is not None and dotted.rsplit(".", 1)[-1] in ops.PLAIN_ANNOTATIONS


#: Facts of ``self.<name>`` attributes, by name, for the class of a method.
AttributeFacts = Mapping[str, Facts]


class FactEvaluator:
    """Computes the facts of expressions against an environment.

    ``attributes`` holds what every assignment in the class says about
    ``self.<name>`` (see ``class_attribute_facts``); the method's first
    parameter is ``self``.
    """

    def __init__(
        self,
        scope: Scope,
        attributes: Optional[AttributeFacts] = None,
        params: Optional[Mapping[str, Facts]] = None,
        flags: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.scope = scope
        self.attributes = attributes if attributes is not None else {}
        self.self_name = self_name(scope) if attributes is not None else None
        #: what the callers in the file pass to the parameters (``callers.py``)
        self.params = params or {}
        #: parameter -> the name every caller in the file passes to it
        #: (``callers.passed_names``): a flag tested here is that one
        self.flags: Mapping[str, str] = flags or {}
        #: ``self`` of a method of a module, in library code, that runs after
        #: the module is built: its parameters are where its users moved it
        self.owner = (
            self.self_name if self.self_name is not None and _owns_parameters(scope) else None
        )

    def expr(self, node: syntax.BaseExpression, env: Mapping[str, Facts]) -> Facts:
        return settle(self._expr(node, env))

    def _expr(self, node: syntax.BaseExpression, env: Mapping[str, Facts]) -> Facts:
        if isinstance(node, syntax.SimpleString):
            # ``"cpu"``: a device name that is the CPU (``device = "cpu"``)
            return frozenset({CPU}) if is_cpu_device(node, self.scope) else EMPTY
        if isinstance(node, syntax.Name):
            known = env.get(node.value)
            if known is not None:
                return known
            if node.value in self.scope.params:
                return self._param(node.value)
            if is_cpu_device(node, self.scope):
                return frozenset({CPU})  # ``device = DEVICE`` of a ``conftest.py``
            return EMPTY
        if isinstance(node, syntax.Attribute):
            return self._owned(node, self._attribute(node, env), env)
        if isinstance(node, syntax.Subscript):
            if _legacy_item(node):
                return EMPTY
            lists = dict_lists_key(node.value)
            stored = self.stored_list(lists) if lists is not None and lists not in env else None
            if lists is not None and (lists in env or stored is not None):  # ``history[phase]``
                entry = literal_index(node)  # ``history["val"]``: that list alone
                one = dict_lists_key(node.value, entry) if entry is not None else None
                if one is not None and one in env:
                    return env[one]
                if stored is not None:
                    # the lists of a dict of lists of ``self`` that other methods fill
                    return (self.stored_list(one) if one is not None else None) or stored
                return env[lists]
            part = self._returned_part(node, env)
            if part is not None:
                return part  # ``evaluate(net, data)[1]``: one position of its tuples
            base = self.expr(node.value, env)
            if _index_of_pair(node, self.scope):
                return carry(base) | {NOGRAD}
            if ELEMS in base and TENSOR not in base and _single_index(node):
                return element_facts(base)  # ``outputs[i]`` of a list of tensors
            if ELEMS in base and TENSOR not in base and _one_slice(node):
                return base  # ``outputs[-5:]``: a list of the same tensors
            key = literal_index(node)
            if key is not None and is_data_name(key):
                return without_api_grad(carry(base))  # ``batch["labels"]``: data
            return carry(base)
        if isinstance(node, syntax.Call):
            return self._owned(node, self.call(node, env), env)
        if isinstance(node, syntax.BinaryOperation):
            if isinstance(node.left, syntax.BaseString):  # ``"%s" % t`` formats
                return EMPTY
            found = self.operation(self.expr(node.left, env), self.expr(node.right, env))
            if MOVED in found and TENSOR not in found:
                # ``img.cuda() / 2``: what ``.cuda()`` / ``.to(dev)`` moved is a
                # tensor or a module, and a module has no arithmetic: a tensor
                # on the path that moved it
                found = found | {MAY_TENSOR}
            return found
        if isinstance(node, syntax.UnaryOperation):
            return self.expr(node.expression, env)
        if isinstance(node, syntax.Comparison):
            facts = self.expr(node.left, env)
            tensor = TENSOR in facts
            for target in node.comparisons:
                right = self.expr(target.comparator, env)
                tensor = tensor or TENSOR in right
                facts = _operands(facts, right)
            # ``hyp != ref`` is a tensor when either side is; ``t is None`` and
            # ``x in t`` are bools
            if tensor and not any(isinstance(c.operator, _IDENTITY_OR_MEMBERSHIP)
                                  for c in node.comparisons):  # fmt: skip
                facts = facts | {TENSOR}
            if not tensor or TENSOR not in facts:
                facts = facts - {CPU}  # (a bool: where it is says nothing)
            return (facts - {_NUMBER, NDARRAY}) | {NOGRAD}
        if isinstance(node, syntax.IfExp):
            body = self.expr(node.body, env)
            orelse = self.expr(node.orelse, env)
            flag = flag_test(node.test)  # ``x.cpu() if use_cuda else x``
            if flag is not None:
                # (``x.cuda() if use_cuda else x``: a move only where it holds)
                guard_moves(self.scope, calls_in(node.body if flag[1] else node.orelse), flag[0])
                if flag[1]:
                    orelse = never_moved_under(
                        orelse, flag[0], self.scope, self.flags.get(flag[0], "")
                    )
                else:
                    body = never_moved_under(body, flag[0], self.scope, self.flags.get(flag[0], ""))
            guarded = requires_grad_test(node.test)
            if guarded is not None and dotted_name(node.orelse) == guarded:
                orelse = orelse | {NOGRAD}
            return _combine(body, orelse)
        if isinstance(node, (syntax.Integer, syntax.Float, syntax.Imaginary)):
            return NUMBER
        if isinstance(node, (syntax.List, syntax.Tuple)):
            if not node.elements:
                return frozenset({LIST0}) if isinstance(node, syntax.List) else EMPTY
            values = [self.expr(e.value, env) for e in node.elements]
            found = self.elements(
                values,
                exact=not any(isinstance(e, syntax.StarredElement) for e in node.elements),
            )
            if (
                isinstance(node, syntax.List)
                and ELEMS not in found
                and not any(f & {NDARRAY, OTHER, _NUMBER, LIST0, ELEMS} for f in values)
            ):
                return found | {LISTANY}
            return found
        if isinstance(node, (syntax.ListComp, syntax.GeneratorExp)):
            return self._comprehension(node, env)
        return EMPTY

    def _owned(
        self, node: syntax.Attribute | syntax.Call, facts: Facts, env: Mapping[str, Facts]
    ) -> Facts:
        """A parameter or buffer of the module whose method this is
        (``self.weight``, ``self.embed.weight``, ``self.parameters()``) lives
        where its users moved the module: evidence that it may be on CUDA,
        unless this method shows where it is (where it was made, on the CPU
        in ``__init__``, says nothing once the module is moved)."""
        if self.owner is None or any(t.startswith(DEV) for t in facts):
            return facts
        if not _owned_by(node, self.owner, facts, self.scope):
            return facts
        read = (
            node.func.value
            if isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute)
            else node
        )
        key = dotted_name(read)
        if key is not None and any(
            k != self.owner and (k == key or key.startswith(f"{k}.")) for k in env
        ):
            return facts  # (it, or what holds it, is bound in this method: that holds)
        return facts - {CPU} | {record(self.scope, "owned", node)}

    def elements(self, facts: Sequence[Facts], *, exact: bool = True) -> Facts:
        """The facts of a list or tuple of values with these facts: ``ELEMS``
        and their shared proofs when every one is torch data (and the display
        lists them all), else their evidence only."""
        found = EMPTY
        for element in facts:
            found = found | evidence(element)
        if not exact or not facts or not all(torch_valued(f, self.scope) for f in facts):
            return found
        shared = facts[0]
        for element in facts[1:]:
            shared = shared & element
        return found | (shared & {CPU, NOGRAD}) | {ELEMS}

    def _comprehension(
        self, node: syntax.ListComp | syntax.GeneratorExp, env: Mapping[str, Facts]
    ) -> Facts:
        """``[model(x) for x in batch]``: the element's facts, its targets bound
        to the elements of what they iterate (a tensor's rows are tensors)."""
        inner = comprehension_env(self, node, env)
        found = self.elements([self.expr(node.elt, inner)], exact=True)
        return found  # (values not known to be torch data: their evidence only)

    @staticmethod
    def operation(left: Facts, right: Facts) -> Facts:
        """The facts of an arithmetic operator's result (``a + b``, ``x += v``):
        a tensor when either side is one (``t / len(xs)``), whatever the other."""
        if left == NUMBER and right == NUMBER:
            return NUMBER  # ``self.count + 1``: a number still
        found = _operands(left, right) - {_NUMBER}
        return found | {TENSOR} if TENSOR in left or TENSOR in right else found

    def _param(self, name: str) -> Facts:
        facts = annotation_facts(self.scope.params[name], self.scope)
        passed = self.params.get(name)
        if passed is not None:
            facts = facts | passed
        for param, kind in framework_inputs(self.scope):
            if kind == "batch" and param.name.value == name:
                # a batch the framework moved to the module's device
                assert isinstance(self.scope.node, syntax.FunctionDef)
                method = f"{self.scope.node.name.value}()"
                facts = facts | {record(self.scope, "batch", param, method)}
        if ops.DATA_SAMPLE_PARAMETER.search(name) and _imports_mm(self.scope):
            # an OpenMMLab data sample: not a tensor, but its fields are, and
            # what callers may pass in them is the boundary's guess as before
            facts = facts | {ELEMENT}
        boundary = self.scope.boundary.get(name)
        if (
            boundary is not None
            and not facts & {NDARRAY, OTHER, NOTTENSOR}
            and not is_plain_annotation(self.scope.params[name])
            and name not in ops.NOT_TENSOR_PARAMETER_NAMES
            and not _literal_default(boundary.node)
        ):
            where = (boundary.node, boundary.function)
            if boundary.device is not None:
                facts = facts | {
                    record(
                        self.scope,
                        "api",
                        *where,
                        boundary.device,
                        boundary.note,
                        shown=boundary.shown,
                        settled_only=self._dataset_method(),
                    )
                }
                if boundary.tensor:
                    # a caller in the project moves what it passes to a device:
                    # a tensor (``roc_curve(labels, scores)`` converts one)
                    facts = facts | {TENSOR}
            if boundary.grad is not None and not is_data_name(name):
                grad = record(
                    self.scope,
                    "api-grad",
                    *where,
                    boundary.grad,
                    boundary.note,
                    shown=boundary.shown,
                )
                facts = facts | {grad}
        return facts

    def _dataset_method(self) -> bool:
        """Is this a method of a Dataset class (``SeCo.plot(sample)``)? What
        it is given is its own samples, read on the host (a DataLoader's
        workers run its ``__getitem__``): the boundary's device guess counts
        only where callers in the project show the cause."""
        parent = self.scope.parent
        return parent is not None and parent.kind == "class" and is_dataset_class(parent.node)

    def stored_list(self, key: str) -> Optional[Facts]:
        """What the class's methods left in the list (or the lists of a dict
        of lists) ``key`` of ``self`` names (``self.preds``, ``self.stats.[]``),
        when it is one known to be empty or to hold tensors."""
        me = self.self_name
        if me is None or not key.startswith(me + "."):
            return None
        facts = self.attributes.get(key[len(me) + 1 :])
        return facts if facts is not None and facts & {ELEMS, LIST0, LISTANY} else None

    def _attribute(self, node: syntax.Attribute, env: Mapping[str, Facts]) -> Facts:
        key = dotted_name(node)
        if key is not None and key in env:
            return env[key]
        if (
            self.self_name is not None
            and isinstance(node.value, syntax.Name)
            and node.value.value == self.self_name
            and node.attr.value in self.attributes
        ):
            return self.attributes[node.attr.value]
        return self._member(node.value, node.attr.value, node, env)

    def _member(
        self,
        owner: syntax.BaseExpression,
        attr: str,
        node: syntax.CSTNode,
        env: Mapping[str, Facts],
    ) -> Facts:
        """The facts of attribute ``attr`` of ``owner`` (``owner.attr``, or
        ``getattr(owner, "attr")``), ``node`` the expression that reads it."""
        base = self.expr(owner, env)
        if attr in ops.GRAD_FREE_ATTRS:
            found = carry(base) - {MODULE} | {NOGRAD}
            if attr == "data" and (OUTPUT in base or self._output_entry(owner, env)):
                # a module's output's ``.data`` (or one of its entries'): a tensor
                found = found | {TENSOR}
            return found
        if attr in ops.TORCH_VIEW_ATTRS or attr in ops.NUMPY_VIEW_ATTRS or attr == "values":
            return carry(base)
        if OTHER in base:
            return frozenset({OTHER})  # a TensorFlow model's output's tensors
        if attr in _PLAIN_ATTRIBUTES or NDARRAY in base:
            return EMPTY
        if INFERENCE in base and MODULE not in base:  # ``results[0].boxes``
            return evidence(base) | {NOGRAD, INFERENCE}
        if attr in ops.BUFFER_ATTRIBUTES:  # ``bn.running_mean``: a buffer
            return _device_facts(base) | {TENSOR, NOGRAD}
        if (
            attr in ops.PARAMETER_ATTRIBUTES
            and isinstance(owner, (syntax.Attribute, syntax.Name))
            and not base & {FROZEN, TENSOR}
        ):
            found = evidence(base) | {record(self.scope, "parameter", node)}
            # a known module's ``weight``: a parameter, a tensor
            return found | {TENSOR} if MODULE in base else found
        if is_data_name(attr):
            return without_api_grad(evidence(base))  # ``data.edge_index``: data
        if ops.DATA_ELEMENT_FIELD.match(attr) and _imports_mm(self.scope):
            return evidence(base) | {ELEMENT}  # ``data_sample.pred_instances``
        return evidence(base)

    def _output_entry(self, node: syntax.BaseExpression, env: Mapping[str, Facts]) -> bool:
        """``out[i]``, ``out["logits"]`` of a module's output (a tuple or a
        dict of tensors, or a tensor)."""
        return isinstance(node, syntax.Subscript) and OUTPUT in self.expr(node.value, env)

    def call(self, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        facts = self._call(node, env)
        callees = self.scope.module().callees
        callee = callees.of(node, self.scope) if callees else None
        if callee is None:
            return facts
        return self._summarised(node, env, facts, callee, None)

    def call_elements(
        self, node: syntax.Call, env: Mapping[str, Facts], count: int
    ) -> Optional[list[Facts]]:
        """What each of ``count`` values unpacked from the call is (``a, b =
        f(x)``), where the function returns tuples of that length; else None."""
        callees = self.scope.module().callees
        callee = callees.of(node, self.scope) if callees else None
        shape = callee.summary.unpacked(count) if callee is not None else ()
        if callee is None or not shape:
            return None
        facts = self._call(node, env)
        return [self._summarised(node, env, facts, callee, e) for e in shape]

    def _returned_part(self, node: syntax.Subscript, env: Mapping[str, Facts]) -> Optional[Facts]:
        """``f(x)[k]`` of a function whose summary says what position ``k`` of
        the tuples it returns is; else None."""
        call = node.value
        if not isinstance(call, syntax.Call) or len(node.slice) != 1:
            return None
        index = node.slice[0].slice
        if not (isinstance(index, syntax.Index) and isinstance(index.value, syntax.Integer)):
            return None
        callees = self.scope.module().callees
        callee = callees.of(call, self.scope) if callees else None
        position = int(index.value.value, 0)
        if callee is None or position >= len(callee.summary.elements):
            return None
        facts = self._call(call, env)
        return self._summarised(call, env, facts, callee, callee.summary.elements[position])

    def _summarised(
        self,
        node: syntax.Call,
        env: Mapping[str, Facts],
        facts: Facts,
        callee: Callee,
        element: Optional[Element],
    ) -> Facts:
        """``facts`` of the call, with what the callee's summary says of what
        it returns (of one position of the tuples it returns: ``element``)."""
        summary = callee.summary
        returns, grad_output, device_output = (
            (summary.returns, summary.grad_output, summary.device_output)
            if element is None
            else element
        )
        if OTHER_MADE in returns:
            return frozenset({OTHER})  # ``return tf.convert_to_tensor(a)``
        uses_arguments = (
            summary.carries or summary.carries_unseen or summary.keeps_device or summary.moves_to
        )
        passed = bind_arguments(node, summary.params, summary.names) if uses_arguments else {}
        given: dict[str, Facts] = {}  # the facts of each argument, evaluated once

        def argument(name: str) -> Optional[Facts]:
            value = passed.get(name)
            if value is None:
                return None
            if name not in given:
                given[name] = self.expr(value, env)
            return given[name]

        if summary.carries or summary.carries_unseen:
            # the function returns what it computes from these parameters:
            # their grad evidence, a public function's parameters included
            # (not their device: a function may compute on tensors it makes);
            # through a call it cannot see, what the code shows, not the guess
            for name in (*summary.carries, *summary.carries_unseen):
                found = argument(name)
                if found is not None:
                    grad = {t for t in found if t.startswith(GRAD)}
                    if name not in summary.carries:
                        grad = _through_helper(grad, self.scope)
                    facts = facts | grad
        if returns:
            # what every ``return`` of the function proves (``t.detach().cpu()``)
            facts = facts | {_PROOFS[r] for r in returns if r in _PROOFS}
        if (summary.forward_output and element is None) or FORWARD_MADE in returns:
            # a forward pass's own value (a tensor, or a dict of them)
            facts = facts | {OUTPUT, TORCH_DATA}
        if any(OTHER in (argument(name) or EMPTY) for name in summary.keeps_device):
            # it returns a forward pass, a view or arithmetic of a TensorFlow
            # tensor the caller passes (``run_tf(model, tf_inputs)``): that
            # framework's value
            return frozenset({OTHER})
        if summary.keeps_device and CPU not in facts:
            # it returns a forward pass, a view or arithmetic of these
            # parameters: where they are (what the code shows, not the guess)
            for name in summary.keeps_device:
                found = argument(name)
                if found is not None:
                    facts = facts | _through_helper(
                        {t for t in found if t.startswith(DEV)}, self.scope
                    )
        if summary.moves_to and CPU not in facts:
            # it moves what it returns to the device the caller names
            for name in summary.moves_to:
                device = passed.get(name)
                if (
                    device is not None
                    and len(summary.moves_to) == 1
                    and self._cpu_device(device, env)
                ):
                    # ``to_device(x, "cpu")``: what it returns is moved to the CPU
                    facts = frozenset(t for t in facts if not t.startswith(DEV)) | {CPU}
                    break
                if device is None or self._cpu_device(device, env) or _is_none(device):
                    continue
                facts = facts | {record(self.scope, "callee-device", node, callee.describe())}
                break
        if device_output and CPU not in facts:
            # it returns a value it moved to a device (``return x.to(self.device)``)
            target, flag = _callee_target(node, callee)
            facts = facts | {
                record(
                    self.scope, "callee-device", node, callee.describe(), target=target, guard=flag
                )
            }
        if summary.grad_made:
            # it returns a tensor it set to require grad: no grad mode undoes that
            facts = (facts - {NOGRAD}) | {
                TENSOR,
                record(self.scope, "callee-requires-grad", node, callee.describe()),
            }
        if grad_output and NOGRAD not in facts:
            # it returns a module's output computed with grad enabled (here,
            # grad mode is the caller's: a no-grad context settles it as usual)
            facts = facts | {record(self.scope, "callee-output", node, callee.describe())}
        return settle(facts)

    def _call(self, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        func = node.func
        if isinstance(func, syntax.Name) and func.value == "getattr" and func.value not in env:
            return self._getattr(node, env)
        if is_empty_list(node, self.scope):
            return frozenset({LIST0})  # ``list()``, as ``[]``
        chosen = self._min_max(node, env)
        if chosen is not None:
            return chosen
        if (
            isinstance(func, syntax.Name)
            and func.value in ops.NUMBER_RESULT_BUILTINS
            and func.value not in env
            and self.scope.lookup(func.value) is None
        ):
            # ``float(loss)``, ``len(xs)``: a Python number, wherever the
            # tensor it was read from is (``losses.append(float(loss))``)
            return NUMBER
        qual = qualified_name(func, self.scope)
        if qual is not None:
            return self._function_call(qual, node, env)
        if self._maybe_other_framework(func):
            return frozenset({OTHER})
        if isinstance(func, syntax.Attribute):
            receiver = self.expr(func.value, env)
            if OTHER in receiver:
                return frozenset({OTHER})
            if INFERENCE in receiver and func.attr.value in ops.INFERENCE_METHODS:
                found = evidence(receiver) | self._arguments(node, env, False)
                return self._predicted(found, node, env)
            known = self._method_call(func.attr.value, receiver, node, env)
            if known is not None:
                return known
        if isinstance(func, syntax.Attribute) and func.attr.value == "forward":
            func = func.value  # ``model.forward(x)`` is a forward pass, as ``model(x)``
        callee = self.expr(func, env)
        if OTHER in callee:
            return frozenset({OTHER})
        module = self._is_module(func, callee, node)
        found = evidence(callee)
        if not module and _objects_own_method(node.func, callee):
            found = without_api(found)  # ``learn.get_preds()``: not the caller's tensor
        elif not module and isinstance(node.func, syntax.Name):
            # ``transform(batch)`` of a parameter that is called: a function the
            # caller gives, used as one; what it returns is no tensor the caller passed
            found = without_api(found)
        inputs = [self.expr(arg.value, env) for arg in node.args] if module else None
        given = _given(node, inputs) if inputs is not None else None
        if given == OTHER:
            return frozenset({OTHER})  # ``model(x)`` given a TensorFlow tensor
        if given == NDARRAY and not callee & {MODULE, FROZEN}:
            # ``rotation.forward(actions)`` given a NumPy array: no torch module's
            # forward pass (a torch layer given an array raises first)
            module = False
        if module and _on_the_cpu(node, inputs):
            # ``model.net(grid)`` of a grid made on the CPU: a module on an
            # accelerator raises on such inputs first, so the guess that the
            # callers' module may be on one does not reach the output
            found = without_api_device(found)
        found = found | self._arguments(node, env, follow_api=module, known=inputs)
        if not module:
            if self._is_loss(func, node, env):
                found = found | {TORCH_DATA}  # ``self.criterion(out, y)``: a tensor
            return found | self._device_keyword(node, env)  # ``Grid(device=dev)``
        if INFERENCE in callee:
            found = self._predicted(found, node, env)
        elif callee & {FROZEN, PARAMFREE}:
            # no trainable parameters: the output requires grad only
            # when an input does
            if self._inputs_without_grad(node, env):
                found = found | {NOGRAD}
        else:
            # a ``torch.nn`` module built in the code (not frozen): trainable
            built = BUILT if MODULE in callee else ""
            found = found | {record(self.scope, FORWARD_PASS, node, note=built)}
        found = found | {OUTPUT, TORCH_DATA}
        if CPU in callee and INFERENCE not in callee:
            # a module moved to the CPU computes there (inputs elsewhere
            # make the call raise first)
            found = frozenset(t for t in found if not t.startswith(DEV)) | {CPU}
        return found

    def _getattr(self, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        """``getattr(x, "grad")`` reads as ``x.grad``. With a name computed
        at run time (``getattr(p, key)`` for ``key`` in ``("data", "grad")``)
        the attribute is unknown: where ``x`` is says where it is, but not
        whether it requires grad (``.data`` and ``.grad`` do not)."""
        owner, name = positional(node, 0), positional(node, 1)
        if owner is None or name is None:
            return self._arguments(node, env, False)
        default = positional(node, 2)  # (``None``: nothing to convert on that path)
        if isinstance(name, syntax.SimpleString) and isinstance(name.evaluated_value, str):
            read = self._member(owner, name.evaluated_value, node, env)
        else:
            read = _device_facts(evidence(self.expr(owner, env)))
        if default is None or _is_none(default):
            return read
        return _combine(read, self.expr(default, env))

    def _is_loss(
        self, func: syntax.BaseExpression, node: syntax.Call, env: Mapping[str, Facts]
    ) -> bool:
        """A call named like a loss (``self.criterion(out, y)``, not a function
        defined here) given torch data: its result is torch data too."""
        if isinstance(func, syntax.Attribute):
            last = func.attr.value
        elif isinstance(func, syntax.Name) and func.value not in self.scope.module().functions:
            last = func.value
        else:
            return False
        return ops.names_a_loss(last) and any(
            not arg.star and torch_valued(self.expr(arg.value, env), self.scope)
            for arg in node.args
        )

    def _min_max(self, node: syntax.Call, env: Mapping[str, Facts]) -> Optional[Facts]:
        """The builtin ``min(best, loss)`` / ``max(a, b)``: one of its arguments,
        so what they all may be (a number against a tensor: the tensor's
        facts, as a running total's); ``max(losses)`` of a list: an element."""
        func = node.func
        if not (
            isinstance(func, syntax.Name)
            and func.value in ("min", "max")
            and func.value not in env
            and self.scope.lookup(func.value) is None
            and node.args
            and all(a.keyword is None and not a.star for a in node.args)
        ):
            return None
        if len(node.args) == 1:
            listed = self.expr(node.args[0].value, env)
            return element_facts(listed) if ELEMS in listed else None
        given = [self.expr(arg.value, env) for arg in node.args]
        others = [facts for facts in given if facts != NUMBER]
        if not others:
            return NUMBER
        found = others[0]
        for facts in others[1:]:
            found = meet(found, facts)
        if len(others) < len(given):
            # a number against a tensor (``best = min(best, loss)`` from
            # ``float("inf")``): the tensor, when it is the smaller
            if not torch_valued(found, self.scope):
                return meet(NUMBER, found)
            found = found | {TENSOR, MAY_NUMBER}
        return found

    def _inputs_without_grad(self, node: syntax.Call, env: Mapping[str, Facts]) -> bool:
        """Is every argument of the call a constant or a value without grad?"""
        for arg in node.args:
            if arg.star:
                return False
            value = arg.value
            if _is_constant(value):
                continue
            if NOGRAD not in self.expr(value, env):
                return False
        return True

    def _arguments(
        self,
        node: syntax.Call,
        env: Mapping[str, Facts],
        follow_api: bool = True,
        known: Optional[list[Facts]] = None,
    ) -> Facts:
        """Evidence of the arguments: what a call computes from them may inherit it.

        Without ``follow_api`` a public function's parameter passed to the call
        gives nothing: what an unknown function returns need not be where its
        arguments are, and the parameter need not be a tensor at all.
        ``known``: the facts of the positional arguments, evaluated already.
        """
        found = EMPTY
        for facts in known if known is not None else (self.expr(a.value, env) for a in node.args):
            found = found | evidence(facts)
        found = found - {TORCH_DATA}  # (what a call returns need not be torch data)
        if not follow_api:
            found = without_api(found)
        return found

    def _is_module(self, func: syntax.BaseExpression, callee: Facts, call: syntax.Call) -> bool:
        if (
            isinstance(func, syntax.Name)
            and func.value == self_name(self.scope)
            and _defines_call(self.scope)
        ):
            return False  # ``self(x)`` in a class with its own ``__call__``: that runs
        if callee & {MODULE, FROZEN}:
            return True
        if TENSOR in callee or NDARRAY in callee:
            return False
        if call.args and all(a.keyword is None and _is_literal(a.value) for a in call.args):
            return False  # ``df.head(1)``: a forward pass is given tensors, not literals
        if isinstance(func, syntax.Name) and func.value == self.self_name:
            return True  # ``self(x)`` inside a module
        if isinstance(func, syntax.Name) and func.value in self.scope.module().functions:
            return False  # a function defined here, whatever its name
        last = (
            func.attr.value
            if isinstance(func, syntax.Attribute)
            else (func.value if isinstance(func, syntax.Name) else "")
        )
        return ops.names_a_forward_pass(last)

    def _other_framework_class(self, qual: str) -> bool:
        """Is ``qual`` a class of the checked tree that derives from another
        framework's (``layers.Highway()``, a Keras layer of a project that
        has both: ``classes.other_framework_class``)?"""
        callees = self.scope.module().callees
        if not callees or callees.tree is None:
            return False
        return other_framework_class(callees.tree, qual)

    def _maybe_other_framework(self, func: syntax.BaseExpression) -> bool:
        """``backend.abs(x)`` where ``backend`` may be TensorFlow or torch."""
        dotted = dotted_name(func)
        if dotted is None:
            return False
        head = dotted.split(".")[0]
        return any(ops.is_other_framework(q) for q in self.scope.possible(head))

    def _function_call(self, qual: str, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        if ops.is_other_framework(qual) or self._other_framework_class(qual):
            return frozenset({OTHER})
        if qual == ops.FROM_NUMPY:
            return frozenset({TENSOR, CPU, NOGRAD})
        if ops.DATA_ELEMENT_CLASS.match(qual):
            # ``InstanceData(bboxes=b, scores=s)``: a data element, whose own
            # ``.numpy()`` detaches and moves each field; the fields keep the
            # evidence of what they were made of
            return evidence(self._arguments(node, env, False)) | {ELEMENT}
        if qual == "torch.device":
            return frozenset({CPU}) if is_cpu_device(node, self.scope) else EMPTY
        if qual in ops.TORCH_FACTORIES or qual in ops.AS_TENSOR_FUNCS:
            return self._factory(qual, node, env)
        if qual in ops.LEGACY_TENSOR_TYPES:
            data = positional(node, 0)
            data_facts = self.expr(data, env) if data is not None else EMPTY
            if TENSOR in data_facts:
                return carry(data_facts)
            where = self._default_device(node, legacy=True) if qual == "torch.Tensor" else CPU
            return frozenset({TENSOR, where, NOGRAD})
        if qual in ops.CUDA_TENSOR_TYPES:
            return frozenset({TENSOR, NOGRAD, record(self.scope, "device", node)})
        if qual in ops.PARAMETER_CLASSES:
            data = positional(node, 0)
            facts = carry(self.expr(data, env)) if data is not None else EMPTY
            requires_grad = keyword(node, "requires_grad") or positional(node, 1)
            if is_false(requires_grad):
                return facts | {TENSOR, NOGRAD}
            return facts - {NOGRAD} | {TENSOR, record(self.scope, "parameter", node)}
        if qual in ops.VARIABLE_CLASSES:
            data = positional(node, 0)
            facts = (carry(self.expr(data, env)) if data is not None else EMPTY) | {TENSOR}
            if is_true(keyword(node, "requires_grad")):
                return facts - {NOGRAD} | {record(self.scope, "requires-grad", node)}
            return facts
        if qual == "copy.deepcopy" or qual == "copy.copy":
            data = positional(node, 0)
            return self.expr(data, env) if data is not None else EMPTY
        if qual.startswith("numpy."):
            return frozenset({NDARRAY})
        if qual in ops.INFERENCE_MODELS:
            return frozenset({MODULE, INFERENCE}) | self._device_keyword(node, env)
        if qual in ops.INFERENCE_FUNCTIONS:
            return _inferred(self._arguments(node, env, follow_api=False))
        if qual in ops.PRETRAINED_EMBEDDINGS:
            # frozen unless ``freeze=False``
            facts = frozenset({MODULE})
            return facts if is_false(keyword(node, "freeze")) else frozen(facts)
        if qual.startswith("torch.nn.") and qual.rsplit(".", 1)[1][:1].isupper():
            facts = frozenset({MODULE}) | self._device_keyword(node, env)
            if self._parameter_free(qual.rsplit(".", 1)[1], node, env):
                facts = facts | {PARAMFREE}
            return facts
        if qual in ops.GRAD_NORM_FUNCTIONS:
            # the gradients' total norm: a tensor without grad, where they are
            params = positional(node, 0) or keyword(node, "parameters")
            found = self.expr(params, env) if params is not None else EMPTY
            return frozenset({TENSOR, NOGRAD} | {t for t in found if t.startswith(DEV)})
        if qual == ops.TORCH_LOAD:
            # a tensor (or what holds them); what it reads from says nothing of them
            return frozenset({TENSOR}) | self._loaded(node, env)
        if ops.is_torch_function(qual):
            return self._torch_function(qual, node, env)
        if qual.startswith("torch."):
            return EMPTY
        # a call told where to run (``init_detector(cfg, device=dev)``): what
        # it makes lives there
        return self._arguments(node, env, follow_api=False) | self._device_keyword(node, env)

    def _parameter_free(self, name: str, node: syntax.Call, env: Mapping[str, Facts]) -> bool:
        if name in ops.PARAMETER_FREE_MODULES or name.endswith("Loss"):
            return True
        if name not in ops.MODULE_CONTAINERS or not node.args:
            return False
        held: list[syntax.BaseExpression] = []
        for arg in node.args:
            if arg.star or arg.keyword is not None:
                return False
            value = arg.value
            if isinstance(value, (syntax.List, syntax.Tuple)):
                held.extend(e.value for e in value.elements)
            else:
                held.append(value)
        return all(PARAMFREE in self.expr(v, env) for v in held)

    def _predicted(self, found: Facts, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        """What a predictor's call returns: on the device its ``device=``
        names (``yolo(source, device=d)``), else where its inputs are."""
        device = keyword(node, "device")
        if device is not None and self._cpu_device(device, env):
            return _inferred(EMPTY)
        return _inferred(found | self._device_keyword(node, env))

    def _loaded(self, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        """``torch.load(f)``: without ``map_location`` its tensors come back on
        the device they were saved from (a checkpoint saved during training
        on a GPU: CUDA, evidence where the file names an accelerator or maps
        another load's location, as a fallback for machines without one
        does); with ``map_location`` on the CPU, the CPU."""
        location = keyword(node, "map_location")
        if location is None:
            location = positional(node, 1)
        if location is None or _is_none(location):
            module = self.scope.module()
            if not (module.names_accelerator or module.maps_locations):
                return EMPTY  # a file that never names one saves and loads on the CPU
            return frozenset({record(self.scope, "load", node)})
        if self._cpu_device(location, env) or _maps_to_storage(location):
            return frozenset({CPU})
        return frozenset({record(self.scope, "device", node)})

    def _cpu_device(self, device: syntax.BaseExpression, env: Mapping[str, Facts]) -> bool:
        """Does ``device`` name the CPU: ``"cpu"``, ``torch.device("cpu")``, or
        a name every path binds to one (``device = torch.device("cpu")``), or
        an attribute every method that assigns it sets to one
        (``self._cpu_device = torch.device("cpu")`` in ``__init__``)?"""
        if is_cpu_device(device, self.scope):
            return True
        if isinstance(device, syntax.Attribute) and device.attr.value == "device":
            # ``device=x.device`` of a tensor known to be on the CPU
            return CPU in self.expr(device.value, env)
        if isinstance(device, syntax.Attribute):
            return CPU in self.expr(device, env)
        return isinstance(device, syntax.Name) and CPU in env.get(device.value, EMPTY)

    def _device_keyword(self, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        device = keyword(node, "device")
        if device is None or self._cpu_device(device, env) or _is_none(device):
            return EMPTY
        guard = device_flag(device, self.scope)
        return frozenset({record(self.scope, "device", device, guard=guard)})

    def _torch_function(self, qual: str, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        """``torch.cat([a, b])``, ``F.relu(x)``: a tensor on the inputs' device and grad."""
        inputs: list[Facts] = []
        name = qual.rsplit(".", 1)[1]
        # ``torch.split(t, sizes)``, ``torch.permute(t, dims)``: a view of the
        # first argument; the others are sizes and dimensions
        viewed = qual in ops.TORCH_VIEW_FUNCS or name in ops.TORCH_VIEW_TUPLE_METHODS
        for position, arg in enumerate(node.args):
            if arg.keyword is not None and arg.keyword.value not in _TENSOR_KEYWORDS:
                continue
            if viewed and (position > 0 or arg.star):
                continue
            value = arg.value
            elements = value.elements if isinstance(value, (syntax.List, syntax.Tuple)) else ()
            if elements:
                inputs.extend(self.expr(e.value, env) for e in elements)
            else:
                facts = self.expr(value, env)
                # ``torch.cat(preds)`` of a list of tensors: its elements
                listed = ELEMS in facts and TENSOR not in facts
                inputs.append(element_facts(facts) if listed else facts)
        tensors = [f for f in inputs if _NUMBER not in f]
        proofs: set[str] = set()
        if tensors and all(TENSOR in f or NDARRAY in f for f in tensors):
            agreed = tensors[0]
            for facts in tensors[1:]:
                agreed = agreed & facts
            proofs = set(agreed & {CPU, NOGRAD})
        found = {TENSOR, *proofs}
        for facts in inputs:
            found |= evidence(facts)
        if name in ops.INTEGER_RESULT_METHODS or (
            name in ops.INDICES_WITH_ONE_ARGUMENT and len(node.args) == 1
        ):
            found.add(NOGRAD)
        return frozenset(found) | self._device_keyword(node, env)

    def _default_device(self, node: syntax.Call, legacy: bool = False) -> str:
        """Where ``node`` makes a tensor with no ``device=``: the CPU, unless the
        file or a module it imports makes CUDA the default device (for the
        legacy ``torch.Tensor(...)``: ``legacy``, only the default tensor type
        does): evidence, then (``ops.DEFAULT_DEVICE_SETTERS``)."""
        found = default_cuda_of(self.scope)
        if found is None or (legacy and not found[1]):
            return CPU
        return record(self.scope, "default-device", node, found[0])

    def _factory(self, qual: str, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        facts = {TENSOR}
        data = positional(node, 0)
        data_facts = self.expr(data, env) if data is not None else EMPTY
        data_is_plain = data is not None and (_is_literal_data(data) or NDARRAY in data_facts)
        device = keyword(node, "device")
        if device is not None:
            if self._cpu_device(device, env):
                facts.add(CPU)
            elif not _is_none(device):
                facts.add(record(self.scope, "device", device))
        elif qual in ops.TORCH_LIKE_FACTORIES:
            if CPU in data_facts:
                facts.add(CPU)
            facts |= {t for t in data_facts if t.startswith(DEV)}
        elif qual in ops.TORCH_DATA_FACTORIES:
            if data_is_plain or CPU in data_facts:
                facts.add(self._default_device(node))
            facts |= {t for t in data_facts if t.startswith(DEV)}
        else:
            facts.add(self._default_device(node))
        requires_grad = keyword(node, "requires_grad")
        if requires_grad is None or is_false(requires_grad):
            if qual in ops.AS_TENSOR_FUNCS:
                if data_is_plain or NOGRAD in data_facts:
                    facts.add(NOGRAD)
                facts |= {t for t in data_facts if t.startswith(GRAD)}
            else:
                facts.add(NOGRAD)
        else:
            facts.add(record(self.scope, "requires-grad", node))
        dtype = keyword(node, "dtype")
        if dtype is not None and qualified_name(dtype, self.scope) in ops.INTEGER_DTYPES:
            facts.add(NOGRAD)
        return frozenset(facts)

    def _method_call(
        self, method: str, receiver: Facts, node: syntax.Call, env: Mapping[str, Facts]
    ) -> Optional[Facts]:
        """The facts of a method's result, or None when the method is not one we know."""
        if method == "numpy":
            return frozenset({NDARRAY})
        if method == "astype" and TENSOR not in receiver:
            # NumPy's (and pandas'), not torch's: a tensor has no ``astype``
            return frozenset({NDARRAY})
        base = carry(receiver)
        if method == "cpu":
            return base | {CPU}
        if method == "detach":
            return base | {TENSOR, NOGRAD}
        if method in ("to", "type"):
            return _moved_result(node, self._to_call(base, node, env))
        if method in ops.DEVICE_CHANGING_METHODS:
            return _moved_result(node, (base - {CPU}) | {MOVED, record(self.scope, "move", node)})
        if method == "requires_grad_":
            if is_false(positional(node, 0) or keyword(node, "requires_grad")):
                return frozen(base)
            return base - {NOGRAD, FROZEN} | {record(self.scope, "requires-grad", node)}
        if method in ops.MODULE_PARAMETER_METHODS:
            # its parameters: tensors (``named_parameters``: paired with names)
            elements = {ELEMS} if method == "parameters" else {PAIRS}
            if FROZEN in base:
                return evidence(base) | {NOGRAD} | elements
            return evidence(base) | {record(self.scope, "parameter", node)} | elements
        if method in ops.MODULE_BUFFER_METHODS or (
            method == "state_dict" and not is_true(keyword(node, "keep_vars"))
        ):
            # buffers, and a state dict's detached tensors: where the module is
            return _device_facts(base) | {NOGRAD}
        if (
            method in ops.TENSOR_NEW_METHODS
            and not base & {MODULE, NDARRAY}
            and (method != "new" or torch_valued(base, self.scope))  # (``x.new()``: any class)
        ):
            return self._new_tensor(base, node, env)
        if method in ops.MODULE_SELF_METHODS and MODULE in base:
            return base
        if MODULE in base:
            return None
        if method in ops.PLAIN_RESULT_METHODS or ops.SHAPE_METHOD.search(method):
            return NUMBER
        # a forward pass's output that a method only tensors have is called
        # on was a tensor, if the module is torch's (no proof for the fixes)
        shown = (
            {MAY_TENSOR}
            if TORCH_DATA in base and TENSOR not in base and method in ops.TORCH_ONLY_RESULT_METHODS
            else EMPTY
        )
        if method in ops.INTEGER_RESULT_METHODS:
            return base | {NOGRAD} | shown
        if shown:
            return base | shown | self._arguments(node, env)
        if base & {TENSOR, NDARRAY, CPU, NOGRAD}:  # a tensor method: same device and grad
            return base | self._arguments(node, env)
        return None

    def _new_tensor(self, base: Facts, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        """``x.new_zeros(n)``: a tensor on ``x``'s device (unless ``device=``
        says otherwise), without grad unless ``requires_grad=True``."""
        device = keyword(node, "device")
        facts = _device_facts(base) if device is None else self._device_keyword(node, env)
        if device is not None and self._cpu_device(device, env):
            facts = facts | {CPU}
        if is_true(keyword(node, "requires_grad")):
            return facts | {TENSOR, record(self.scope, "requires-grad", node)}
        return facts | {TENSOR, NOGRAD}

    def _to_call(self, base: Facts, node: syntax.Call, env: Mapping[str, Facts]) -> Facts:
        facts = set(base)
        for arg in node.args:
            name = arg.keyword.value if arg.keyword is not None else None
            if name in ("copy", "non_blocking", "memory_format"):
                continue
            value = arg.value
            if self._cpu_device(value, env):
                facts.add(CPU)
                continue
            qual = qualified_name(value, self.scope)
            if isinstance(value, syntax.SimpleString) and isinstance(value.evaluated_value, str):
                qual = value.evaluated_value  # ``.type("torch.LongTensor")``
            if qual is not None and qual.startswith("torch.") and name != "device":
                if qual in ops.INTEGER_DTYPES or (
                    qual.rsplit(".", 1)[1] in ops.INTEGER_TENSOR_ANNOTATIONS
                ):
                    facts.add(NOGRAD)  # ``.to(torch.long)``, ``.type(torch.LongTensor)``
                if qual in ops.CUDA_TENSOR_TYPES:  # ``.type(torch.cuda.FloatTensor)``
                    facts.discard(CPU)
                    facts.update((MOVED, record(self.scope, "move", node)))
                    continue
                if qual != "torch.device":
                    continue
            if name == "dtype" or _names_a_dtype(value):
                continue
            if isinstance(value, syntax.SimpleString) and value.evaluated_value in ops.DTYPE_NAMES:
                # ``.to("float32")``: no device torch knows (it raises there);
                # another framework's cast (as ``classes.cpu_or_dtype`` reads it)
                continue
            owner = _where_a_value_is(value, self.scope)
            if owner is not None:
                # ``x.to(y.device)``: to where ``y`` already is, no device the
                # code chose; ``y``'s evidence (or its proof) is the result's
                there = self.expr(owner, env)
                facts = {t for t in facts if not t.startswith(DEV)} - {CPU}
                moved = {t for t in there if t.startswith(DEV)}
                facts |= moved | ({MOVED} if moved else set()) | (there & {CPU})
                continue
            facts.discard(CPU)
            guard = device_flag(value, self.scope)
            if guard:  # (a device a flag chooses, CUDA or the CPU: the input's is gone)
                facts = {t for t in facts if not t.startswith(DEV)}
            facts.update((MOVED, record(self.scope, "move", node, guard=guard)))
        return frozenset(facts)


def _on_the_cpu(node: syntax.Call, inputs: Optional[Sequence[Facts]]) -> bool:
    """Are the call's arguments all torch tensors shown to be on the CPU
    (``torch.arange(n)``, ``torch.from_numpy(a)``), with at least one?"""
    if not inputs or node.args[0].star or any(arg.star or arg.keyword for arg in node.args):
        return False
    return all(
        TENSOR in facts and CPU in facts and not any(t.startswith(DEV) for t in facts)
        for facts in inputs
    )


def _given(node: syntax.Call, inputs: Sequence[Facts]) -> Optional[str]:
    """``OTHER`` where a positional argument of the call is another
    framework's value (``tf.constant(a)``), ``NDARRAY`` where one is a NumPy
    array, and no argument is a torch tensor; else None. ``inputs``: the
    facts of the positional arguments."""
    found = None
    for arg, facts in zip(node.args, inputs):
        if arg.star:
            continue
        if TENSOR in facts or any(t.startswith((DEV, GRAD)) for t in facts):
            return None
        if OTHER in facts:
            found = OTHER
        elif NDARRAY in facts and found is None:
            found = NDARRAY
    return found


def _where_a_value_is(
    device: syntax.BaseExpression, scope: Scope
) -> Optional[syntax.BaseExpression]:
    """``y`` for a device read from a value, ``y.device`` (``next(m.parameters()).device``):
    where ``y`` already is. None for any other device, for a program's
    settings or its own state (``self.device``, ``args.device``) and for a
    module's (``utils.device``, ``textattack.shared.utils.device``): a choice."""
    if not (isinstance(device, syntax.Attribute) and device.attr.value == "device"):
        return None
    root: syntax.BaseExpression = device.value
    while isinstance(root, (syntax.Attribute, syntax.Subscript)):
        root = root.value
    if isinstance(root, syntax.Name) and (
        root.value in ops.SETTINGS_NAMES or scope.resolve(root.value) is not None
    ):
        return None
    return device.value


def registered_buffer(
    node: syntax.BaseExpression,
) -> Optional[tuple[str, Optional[syntax.BaseExpression]]]:
    """``m.register_buffer("name", t)``: the key of the buffer (``m.name``)
    and the tensor registered (None: not given, or ``None``)."""
    if not (
        isinstance(node, syntax.Call)
        and isinstance(node.func, syntax.Attribute)
        and node.func.attr.value == "register_buffer"
    ):
        return None
    module = dotted_name(node.func.value)
    name = positional(node, 0) or keyword(node, "name")
    if module is None or not isinstance(name, syntax.SimpleString):
        return None
    text = name.evaluated_value
    if not isinstance(text, str) or not text.isidentifier():
        return None
    tensor = positional(node, 1) or keyword(node, "tensor")
    return f"{module}.{text}", None if tensor is None or _is_none(tensor) else tensor


def _imports_mm(scope: Scope) -> bool:
    """Does the module import one of OpenMMLab's packages (``ops.MM_PACKAGE``)?"""
    return any(
        ops.MM_PACKAGE.match(qual.split(".", 1)[0])
        for quals in scope.module().bindings.values()
        for qual in quals
    )


def is_data_name(name: str) -> bool:
    """Is a parameter so named data rather than something a model computed
    (``labels``, ``targets``, ``train_labels``, ``token_ids``), or what holds
    loaded samples (``dataset``, ``val_loader``)?"""
    last = name.rsplit("_", 1)[-1]
    return (
        name in ops.DATA_PARAMETER_NAMES
        or last in ops.DATA_NAME_SUFFIXES
        or last.lower() in ops.DATA_SOURCE_NAMES
    )


def frozen(facts: Facts) -> Facts:
    """After ``x.requires_grad_(False)``: a tensor without grad, or a module
    whose parameters do not require grad."""
    return facts | ({NOGRAD} if TENSOR in facts else {FROZEN, NOGRAD})


def parameter_loop_sets_grad(
    loop: syntax.For,
) -> Optional[tuple[str, syntax.BaseExpression, bool]]:
    """``for p in m.parameters(): p.requires_grad = False`` (or
    ``p.requires_grad_(False)``, or over ``m.named_parameters()``): the key
    of ``m``, ``m`` itself and the flag every parameter is set to, when the
    loop's body sets it unconditionally (a statement of the body itself, no
    ``continue`` or ``break`` anywhere in it)."""
    call = loop.iter
    if not (
        isinstance(call, syntax.Call)
        and isinstance(call.func, syntax.Attribute)
        and call.func.attr.value in ops.MODULE_PARAMETER_METHODS
    ):
        return None
    module = dotted_name(call.func.value)
    target: syntax.BaseExpression = loop.target
    if call.func.attr.value.startswith("named_"):
        if not isinstance(target, (syntax.Tuple, syntax.List)) or len(target.elements) != 2:
            return None
        target = target.elements[1].value
    if module is None or not isinstance(target, syntax.Name):
        return None
    if _jumps(loop.body):
        return None
    smalls: list[syntax.BaseSmallStatement] = []
    if isinstance(loop.body, syntax.SimpleStatementSuite):
        smalls.extend(loop.body.body)
    elif isinstance(loop.body, syntax.IndentedBlock):
        for statement in loop.body.body:
            if isinstance(statement, syntax.SimpleStatementLine):
                smalls.extend(statement.body)
    flag: Optional[bool] = None
    for small in smalls:
        found = _sets_grad_flag(small, target.value)
        if found is not None:
            flag = found
    return None if flag is None else (module, call.func.value, flag)


def _sets_grad_flag(statement: syntax.BaseSmallStatement, name: str) -> Optional[bool]:
    """``name.requires_grad = False`` / ``name.requires_grad_(False)``: the
    flag set (True for ``requires_grad_()``), else None."""
    if isinstance(statement, syntax.Assign) and len(statement.targets) == 1:
        target = statement.targets[0].target
        if (
            isinstance(target, syntax.Attribute)
            and target.attr.value == "requires_grad"
            and isinstance(target.value, syntax.Name)
            and target.value.value == name
        ):
            if is_false(statement.value):
                return False
            return True if is_true(statement.value) else None
        return None
    if isinstance(statement, syntax.Expr) and isinstance(statement.value, syntax.Call):
        call = statement.value
        func = call.func
        if (
            isinstance(func, syntax.Attribute)
            and func.attr.value == "requires_grad_"
            and isinstance(func.value, syntax.Name)
            and func.value.value == name
        ):
            return not is_false(positional(call, 0) or keyword(call, "requires_grad"))
    return None


def _jumps(node: syntax.CSTNode) -> bool:
    """Does ``node`` hold a ``continue`` or ``break`` (not in a nested function)?"""
    if isinstance(node, (syntax.Continue, syntax.Break)):
        return True
    if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
        return False
    return any(_jumps(child) for child in children(node))


def _is_constant(node: syntax.BaseExpression) -> bool:
    """A literal number, string, ``True``, ``False`` or ``None``: never a tensor."""
    if isinstance(node, (syntax.Integer, syntax.Float, syntax.Imaginary, syntax.SimpleString,
                         syntax.ConcatenatedString)):  # fmt: skip
        return True
    return isinstance(node, syntax.Name) and node.value in ("True", "False", "None")


def _device_facts(facts: Facts) -> Facts:
    """What ``facts`` say about the device only (``cpu``, device evidence)."""
    return frozenset(t for t in facts if t == CPU or t.startswith(DEV))


def _maps_to_storage(node: syntax.BaseExpression) -> bool:
    """``map_location=lambda storage, loc: storage`` (the CPU copy as read)."""
    if not isinstance(node, syntax.Lambda):
        return False
    params = node.params.params
    return bool(params) and dotted_name(node.body) == params[0].name.value


def _objects_own_method(func: syntax.BaseExpression, receiver: Facts) -> bool:
    """Is ``obj.m(...)`` a method of ``obj``'s own class, not a tensor's: ``m``
    is no name a ``torch.Tensor`` or a torch distribution has, nor a list's or
    dict's method, nothing shows ``obj`` is a tensor, and neither ``obj`` nor
    an object it is an attribute of is named like a module? What it returns
    is then not a value a caller passed in (``learn.get_preds()``,
    ``env.step(a)``), whatever ``obj`` is."""
    if not isinstance(func, syntax.Attribute) or receiver & {TENSOR, MAY_TENSOR, NDARRAY}:
        return False
    owner = func.value
    while isinstance(owner, syntax.Attribute):
        if ops.names_a_forward_pass(owner.attr.value):
            return False
        owner = owner.value
    if isinstance(owner, syntax.Name) and ops.names_a_forward_pass(owner.value):
        return False  # ``model.encode(x)``, ``m.model.head.weights()``: where the module is
    name = func.attr.value
    return not (
        name in tensor_methods.TENSOR_NAMES
        or name in tensor_methods.DISTRIBUTION_NAMES
        or name in ops.MODULE_SELF_METHODS  # (``m.eval()``: ``m`` itself)
        or name in ops.CONTAINER_ONLY_METHODS
        or name in ops.CONTAINER_READ_METHODS
    )


def _is_none(node: syntax.BaseExpression) -> bool:
    return isinstance(node, syntax.Name) and node.value == "None"


def _names_a_dtype(node: syntax.BaseExpression) -> bool:
    """``dtype``, ``x.dtype``, ``self.dtype``: a dtype held in a variable."""
    dotted = dotted_name(node)
    return dotted is not None and "dtype" in dotted.rsplit(".", 1)[-1].lower()


def _moved_result(node: syntax.Call, facts: Facts) -> Facts:
    """The facts of a ``.to(...)`` / ``.cuda()`` call: a tensor too where it
    moves the result of a method an ndarray or a tensor has and a module
    does not (``y.flatten().to(dev)``): an ndarray has no ``.to``."""
    func = node.func
    receiver = func.value if isinstance(func, syntax.Attribute) else None
    if (
        MOVED in facts
        and isinstance(receiver, syntax.Call)
        and isinstance(receiver.func, syntax.Attribute)
        and receiver.func.attr.value in ops.NOT_MODULE_ARRAY_METHODS
    ):
        return facts | {TENSOR}
    return facts


def _legacy_item(node: syntax.Subscript) -> bool:
    """``loss.data[0]``: before torch 0.4, the idiom for a loss's number (now
    an ``IndexError`` on a 0-d tensor); not known to be a tensor."""
    value = node.value
    if not (isinstance(value, syntax.Attribute) and value.attr.value == "data"):
        return False
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, syntax.Index):
        return False
    index = node.slice[0].slice.value
    return isinstance(index, syntax.Integer) and index.value == "0"


def _single_index(node: syntax.Subscript) -> bool:
    """``xs[i]``, ``xs[-1]``: one element (not ``xs[1:]``, nor ``xs[i, j]``)."""
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, syntax.Index)


def _one_slice(node: syntax.Subscript) -> bool:
    """``xs[1:]``, ``xs[-k:]``: a part of a sequence (not ``x[:, 0]``)."""
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, syntax.Slice)


def _index_of_pair(node: syntax.Subscript, scope: Scope) -> bool:
    """``torch.max(x, 1)[1]``, ``x.sort()[1]``: the indices of a (values, indices) pair."""
    value = node.value
    if not isinstance(value, syntax.Call) or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    if not (isinstance(index, syntax.Index) and isinstance(index.value, syntax.Integer)):
        return False
    return index.value.value == "1" and returns_indices(value, scope)


def returns_indices(call: syntax.Call, scope: Scope) -> bool:
    """Does this call return a (values, indices) pair?"""
    func = call.func
    name = (
        func.attr.value
        if isinstance(func, syntax.Attribute)
        else (func.value if isinstance(func, syntax.Name) else "")
    )
    if name in ops.ALWAYS_INDEX_PAIR:
        return True
    if name in ops.INDEX_PAIR_WITH_DIM:
        # ``torch.max(x, 1)``: the dim is the second argument; ``x.max(1)``: the first
        function = qualified_name(func, scope) is not None or isinstance(func, syntax.Name)
        return keyword(call, "dim") is not None or positional(call, int(function)) is not None
    return False


def _owns_parameters(scope: Scope) -> bool:
    """Is ``scope`` a method of a ``torch.nn.Module`` subclass (directly, or
    through a class of the same file) in library code, other than one that
    runs while the module is built?"""
    if not scope.module().owned_devices or not isinstance(scope.node, syntax.FunctionDef):
        return False
    if scope.node.name.value in ops.MODULE_BUILD_METHODS or self_name(scope) is None:
        return False
    owner = scope.parent
    if owner is None or not isinstance(owner.node, syntax.ClassDef):
        return False
    module = scope.module()
    classes = {
        statement.name.value: statement
        for statement in (module.node.body if isinstance(module.node, syntax.Module) else ())
        if isinstance(statement, syntax.ClassDef)
    }
    node: Optional[syntax.ClassDef] = owner.node
    seen: set[str] = set()
    while node is not None:
        local: Optional[syntax.ClassDef] = None
        for base in node.bases:
            if base.keyword is not None:
                continue
            if qualified_name(base.value, owner) in ops.TORCH_MODULE_CLASSES:
                return True
            name = base.value.value if isinstance(base.value, syntax.Name) else None
            if name is not None and name not in seen and name in classes:
                local = classes[name]
                seen.add(name)
        node = local
    # a base in another module of the checked tree (``class ECD(LudwigModule)``)
    callees = module.callees
    if not callees or callees.tree is None or not isinstance(owner.node, syntax.ClassDef):
        return False
    return is_module_class(
        callees.own.classes, callees.tree, owner.node.name.value, ops.TORCH_MODULE_CLASSES
    )


def _owned_by(node: syntax.Attribute | syntax.Call, me: str, facts: Facts, scope: Scope) -> bool:
    """Is ``node`` a parameter or buffer of the module ``me`` names: ``me.w``
    made a parameter, ``me.layer.weight`` / ``.bias`` / ``.running_mean``,
    ``me.parameters()``, ``me.layer.buffers()``, ``me.state_dict()``?"""
    if isinstance(node, syntax.Call):
        func = node.func
        if not (
            isinstance(func, syntax.Attribute) and func.attr.value in ops.MODULE_TENSOR_METHODS
        ):
            return _returns_owned(node, me, scope)
        return _rooted_at(func.value, me)
    if not _rooted_at(node.value, me):
        return False
    attr = node.attr.value
    if attr in ops.MODULE_TENSOR_ATTRIBUTES:
        return True
    table = scope.module().evidence
    return isinstance(node.value, syntax.Name) and any(
        getattr(table.get(t), "kind", None) == "parameter" for t in facts
    )


def _returns_owned(node: syntax.Call, me: str, scope: Scope) -> bool:
    """Is ``node`` ``me.f(...)``, a method whose every ``return`` gives the
    module's own parameters or buffers (its summary says ``owned``)?"""
    func = node.func
    if not (
        isinstance(func, syntax.Attribute)
        and isinstance(func.value, syntax.Name)
        and func.value.value == me
    ):
        return False
    callees = scope.module().callees
    callee = callees.of(node, scope) if callees else None
    return callee is not None and OWNED in callee.summary.returns


def _rooted_at(node: syntax.BaseExpression, me: str) -> bool:
    """``me`` or ``me.a.b`` (attributes only)."""
    while isinstance(node, syntax.Attribute):
        node = node.value
    return isinstance(node, syntax.Name) and node.value == me


def _defines_call(method: Scope) -> bool:
    """Does the class of the method ``method`` define ``__call__`` itself?"""
    owner = method.parent
    if owner is None or not isinstance(owner.node, syntax.ClassDef):
        return False
    body = owner.node.body
    for statement in body.body if isinstance(body, syntax.IndentedBlock) else ():
        if isinstance(statement, syntax.FunctionDef) and statement.name.value == "__call__":
            return True
        if isinstance(statement, syntax.SimpleStatementLine):
            # a member left out of the analysis tree is a stub ``__call__ = None``
            for small in statement.body:
                if (
                    isinstance(small, syntax.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, syntax.Name)
                    and small.targets[0].target.value == "__call__"
                    and isinstance(small.value, syntax.Name)
                    and small.value.value == "None"
                ):
                    return True
    return False


def self_name(scope: Scope) -> Optional[str]:
    """The first parameter of a method (``self``), if ``scope`` is one."""
    node = scope.node
    if not isinstance(node, syntax.FunctionDef) or scope.parent is None:
        return None
    if scope.parent.kind != "class" or any(
        decorated_with(node, name) for name in ("staticmethod", "classmethod")
    ):
        return None
    return first_parameter(node)


def decorated_with(function: syntax.FunctionDef, name: str) -> bool:
    """Is ``function`` decorated with the builtin ``name`` (``@classmethod``)?"""
    return any(
        isinstance(d.decorator, syntax.Name) and d.decorator.value == name
        for d in function.decorators
    )


def first_parameter(function: syntax.FunctionDef) -> Optional[str]:
    """The name of ``function``'s first positional parameter (``self``, ``cls``)."""
    params = [*function.params.posonly_params, *function.params.params]
    return params[0].name.value if params else None


def grad_mode(expr: syntax.BaseExpression, scope: Scope) -> Optional[bool]:
    """True for a no-grad context manager or decorator, False for a grad one."""
    call = expr if isinstance(expr, syntax.Call) else None
    qual = qualified_name(call.func if call is not None else expr, scope)
    if qual in ops.NO_GRAD_CONTEXTS:
        if call is not None and qual is not None and qual.endswith("inference_mode"):
            mode = positional(call, 0) or keyword(call, "mode")
            return mode is None or not is_false(mode)
        return True
    if qual in ops.GRAD_CONTEXTS:
        return False
    if qual in ops.SET_GRAD_ENABLED and call is not None:
        mode = positional(call, 0) or keyword(call, "mode")
        if is_false(mode):
            return True
        if is_true(mode):
            return False
    if qual is not None and qual.startswith("torch."):
        return None
    # a function of the project that gives a no-grad context or decorator
    # (``@smart_inference_mode()``), or is a no-grad decorator itself; where
    # its definition is not read, its name (``ops.NO_GRAD_HELPER``)
    func = call.func if call is not None else expr
    callees = scope.module().callees
    callee = callees.named(func, scope) if callees else None
    if callee is not None:
        wanted = GRAD_OFF if call is not None else GRAD_OFF_WRAP
        return True if wanted in callee.summary.returns else None
    name = (dotted_name(func) or "").rsplit(".", 1)[-1]
    return True if name and ops.NO_GRAD_HELPER.match(name) else None


def computed_without_grad(node: syntax.BaseExpression, scope: Scope) -> bool:
    """Is this value computed (not just named) so that under no-grad it has no grad?

    Every op run while grad mode is off returns a tensor that does not require
    grad, except a view and a method that may return its receiver
    (``keeps_grad_flag``); a ``requires_grad=True`` factory or
    ``requires_grad_()`` sets the flag again (measured on torch 2.13).
    """
    if keeps_grad_flag(node, scope):
        return False
    if isinstance(node, syntax.Call):
        func = node.func
        if is_true(keyword(node, "requires_grad")):
            return False
        if isinstance(func, (syntax.Name, syntax.Attribute)) and (dotted_name(func) or "").endswith(
            "Parameter"
        ):
            return False
    return True


#: Tensor methods whose result keeps the receiver's ``requires_grad`` even
#: when made with grad disabled: views, and casts and moves that return the
#: receiver itself when nothing changes (``.cpu()`` on the CPU, ``.float()``
#: on float32). ``detach`` is a view without grad.
_SAME_FLAG_METHODS = ops.SAME_GRAD_FLAG_METHODS


def keeps_grad_flag(node: syntax.BaseExpression, scope: Scope) -> bool:
    """May ``node`` be a named tensor (``w``, ``model.weight``) or a view of
    one, which requires grad when that tensor does, whatever the grad mode?

    Measured on torch 2.13 (``tools/measure_grad.py``): under ``no_grad``,
    ``w.T``, ``w[0]``, ``w.view(-1)``, ``w.chunk(2)[0]`` and ``w.cpu()`` of a
    ``w`` that requires grad still require grad; ``w * 2``, ``w.clone()``,
    ``w[[0, 1]]`` and a module's output do not.
    """
    while True:
        if isinstance(node, syntax.Name):
            return True
        if isinstance(node, syntax.Attribute):
            # ``w.T``: a view; ``model.weight``: a stored tensor, the same object
            # (``model(x).logits``: a part of what ``model(x)`` computed)
            node = node.value
        elif isinstance(node, syntax.Subscript):
            if not is_basic_index(node):
                return False  # advanced indexing copies
            node = node.value
            if (
                isinstance(node, syntax.Call)
                and isinstance(node.func, syntax.Attribute)
                and node.func.attr.value in ops.TORCH_VIEW_TUPLE_METHODS
                and qualified_name(node.func, scope) is None
            ):
                node = node.func.value  # ``w.chunk(2)[0]``: a view of ``w``
        elif isinstance(node, syntax.Call):
            func = node.func
            qual = qualified_name(func, scope)
            first = positional(node, 0)
            if qual is not None:
                if first is None or not (
                    qual in ops.AS_TENSOR_FUNCS
                    or (qual.startswith("torch.") and qual.rsplit(".", 1)[1] in _SAME_FLAG_METHODS)
                ):
                    return False
                node = first  # ``torch.as_tensor(w)`` is ``w``; ``torch.t(w)`` a view
            elif isinstance(func, syntax.Attribute) and (
                func.attr.value in _SAME_FLAG_METHODS
                or (func.attr.value.endswith("_") and not func.attr.value.startswith("_"))
            ):
                node = func.value
            else:
                return False
        elif isinstance(node, syntax.IfExp):
            return keeps_grad_flag(node.body, scope) or keeps_grad_flag(node.orelse, scope)
        elif isinstance(node, syntax.BooleanOperation):
            return keeps_grad_flag(node.left, scope) or keeps_grad_flag(node.right, scope)
        elif isinstance(node, syntax.NamedExpr):
            node = node.value
        else:
            return False


def is_basic_index(node: syntax.Subscript) -> bool:
    """``a[0]``, ``a[1:]``, ``a[..., None]``: views, not copies."""
    for element in node.slice:
        index = element.slice
        if not isinstance(index, syntax.Index):
            continue
        value = index.value
        if isinstance(value, (syntax.SimpleString, syntax.ConcatenatedString)):
            continue  # ``sample["image"]``: the stored object itself
        if isinstance(value, (syntax.Integer, syntax.Ellipsis, syntax.Name, syntax.UnaryOperation)):
            if isinstance(value, syntax.Name) and value.value in ("True", "False"):
                return False
            continue
        return False
    return True


def requires_grad_test(test: syntax.BaseExpression) -> Optional[str]:
    """``x`` when the test is ``x.requires_grad`` (or ``is True``/``== True``)."""
    if isinstance(test, syntax.Comparison) and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        if isinstance(comparison.operator, (syntax.Is, syntax.Equal)) and is_true(
            comparison.comparator
        ):
            test = test.left
    if isinstance(test, syntax.Attribute) and test.attr.value == "requires_grad":
        return dotted_name(test.value)
    return None


def on_cpu_test(test: syntax.BaseExpression) -> Optional[tuple[str, bool]]:
    """``(x, where)`` when the test asks whether ``x`` is on the CPU:
    ``x.is_cpu`` (on the CPU where it holds, ``where`` True), ``x.is_cuda``
    (where it fails), and either negated (``if not x.is_cpu: x = x.cpu()``)."""
    negated = False
    if isinstance(test, syntax.UnaryOperation) and isinstance(test.operator, syntax.Not):
        test, negated = test.expression, True
    if isinstance(test, syntax.Attribute) and test.attr.value in ("is_cuda", "is_cpu"):
        key = _without_data(dotted_name(test.value))
        if key is not None:
            return key, (test.attr.value == "is_cpu") != negated
    return None


def bound_method_test(test: syntax.BaseExpression) -> Optional[str]:
    """``x`` when the test is a tensor method named but not called, ``if
    x.cuda:`` (meant as ``x.is_cuda``): a bound method, so the test always
    holds, where ``x`` is a tensor (the caller asks). A settings object's
    ``args.cuda`` is a flag, not a method: None for those."""
    if not (isinstance(test, syntax.Attribute) and test.attr.value in ops.BOUND_METHOD_TESTS):
        return None
    key = dotted_name(test.value)
    if key is None or key.split(".")[0] in ops.SETTINGS_NAMES:
        return None
    return key


#: What a type test says a value is in a branch it guards.
IS_TORCH, IS_ARRAY, IS_OTHER, NOT_TORCH = "torch", "ndarray", "other", "not-torch"
#: ``x is None``: nothing to convert, and nothing said of other values
IS_NONE = "none"
_NO_GUARDS: Mapping[str, str] = {}


class TypeGuards(NamedTuple):
    """The values a test names the type of: what each is where the test
    holds (``body``) and where it fails (``orelse``)."""

    body: Mapping[str, str] = _NO_GUARDS
    orelse: Mapping[str, str] = _NO_GUARDS


def type_guards(test: syntax.BaseExpression, scope: Scope) -> TypeGuards:
    """``isinstance(x, torch.Tensor)``, ``torch.is_tensor(x)``, ``type(x) is
    np.ndarray``, ``isinstance(x, tf.Tensor)``, a helper named for the
    framework (``_is_torch_tensor(x)``), ``not``, ``and`` and ``or`` of them."""
    if isinstance(test, syntax.Name):  # ``is_numpy = isinstance(box, np.ndarray)``
        return _type_flag(test.value, scope)
    if isinstance(test, syntax.UnaryOperation) and isinstance(test.operator, syntax.Not):
        inner = type_guards(test.expression, scope)
        return TypeGuards(inner.orelse, inner.body)
    if isinstance(test, syntax.BooleanOperation):
        left, right = type_guards(test.left, scope), type_guards(test.right, scope)
        if isinstance(test.operator, syntax.And):  # both hold in the body
            return TypeGuards(body=_agreed(left.body, right.body))
        return TypeGuards(orelse=_agreed(left.orelse, right.orelse))  # both fail in the else
    if isinstance(test, syntax.Comparison) and len(test.comparisons) == 1:
        return _type_comparison(test, scope)
    if not isinstance(test, syntax.Call) or not test.args or test.args[0].keyword is not None:
        return TypeGuards()
    if (
        isinstance(test.func, syntax.Attribute)
        and test.func.attr.value == "startswith"
        and len(test.args) == 1
    ):
        # ``type(x).__module__.startswith("torch")``
        return _type_name_test(test.args[0].value, test.func.value)
    key = dotted_name(test.args[0].value)
    if key is None:
        return TypeGuards()
    func = dotted_name(test.func) or ""
    if func == "isinstance" and not scope.binds_locally("isinstance") and len(test.args) == 2:
        kinds = _type_kinds(test.args[1].value, scope)
        return _guards_for(key, kinds)
    qual = qualified_name(test.func, scope) or ""
    name = func.rsplit(".", 1)[-1]
    if qual == "torch.is_tensor" or (not qual and ops.TORCH_TEST_HELPER.match(name)):
        return TypeGuards({key: IS_TORCH}, {key: NOT_TORCH})
    if (ops.is_other_framework(qual) and name == "is_tensor") or (
        not qual and ops.OTHER_TEST_HELPER.match(name)
    ):
        return TypeGuards({key: IS_OTHER})
    if qual == "numpy.isscalar":  # a Python or NumPy scalar (never a tensor)
        return TypeGuards({key: IS_OTHER})
    return TypeGuards()


def _type_flag(name: str, scope: Scope) -> TypeGuards:
    """What the type test ``name`` holds says, when the function (or module)
    that binds it binds it once, by ``=``, to a test (``is_numpy =
    isinstance(box, np.ndarray)``) of values it never binds (its parameters):
    ``if is_numpy:`` asks what the test asked."""
    found = scope.binding_scope(name)
    owner = found.node if found is not None and found.kind in ("function", "module") else None
    if not isinstance(owner, (syntax.FunctionDef, syntax.Module)):
        return TypeGuards()
    module = scope.module()
    flags = module.type_flags.get(id(owner))
    if flags is None:
        flags = module.type_flags[id(owner)] = _type_flags(owner)
    tests, bound = flags
    test = tests.get(name)
    if test is None:
        return TypeGuards()
    guards = type_guards(test, scope)  # (a call or a comparison: no flag again)
    tested = {key.split(".", 1)[0] for key in (*guards.body, *guards.orelse)}
    return guards if not tested & bound else TypeGuards()


def _type_flags(
    owner: Union[syntax.FunctionDef, syntax.Module],
) -> tuple[Mapping[str, syntax.BaseExpression], frozenset[str]]:
    """The names ``owner`` binds once, by ``=``, to a call or a comparison
    (a type test, perhaps), and every name it binds."""
    tests: dict[str, list[syntax.BaseExpression]] = {}
    bound: set[str] = set()
    for node in own_statements(owner):
        if isinstance(node, syntax.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0].target, syntax.Name):
                tests.setdefault(node.targets[0].target.value, []).append(node.value)
                continue
            for target in node.targets:
                bound.update(target_names(target.target))
        elif isinstance(node, (syntax.AnnAssign, syntax.AugAssign, syntax.For)):
            bound.update(target_names(node.target))
        elif isinstance(node, syntax.With):
            for item in node.items:
                if item.asname is not None:
                    bound.update(target_names(item.asname.name))
    bound.update(tests)
    found = {
        name: values[0]
        for name, values in tests.items()
        if len(values) == 1 and isinstance(values[0], (syntax.Call, syntax.Comparison))
    }
    return found, frozenset(bound)


def _type_comparison(test: syntax.Comparison, scope: Scope) -> TypeGuards:
    """``type(x) is torch.Tensor`` (``==``; ``is not`` and ``!=`` swap the
    branches); ``"torch" in str(type(x))`` and the like (``not in`` swaps)."""
    comparison = test.comparisons[0]
    left = test.left
    if _is_none(comparison.comparator) and isinstance(
        comparison.operator, (syntax.Is, syntax.IsNot)
    ):
        # ``if t is not None: t = t.cpu()``: where it fails, ``t`` is None
        key = dotted_name(left)
        if key is None:
            return TypeGuards()
        if isinstance(comparison.operator, syntax.Is):
            return TypeGuards({key: IS_NONE})
        return TypeGuards(orelse={key: IS_NONE})
    if isinstance(comparison.operator, (syntax.In, syntax.NotIn)):
        guards = _type_name_test(left, comparison.comparator)
        if isinstance(comparison.operator, syntax.NotIn):
            return TypeGuards(guards.orelse, guards.body)
        return guards
    if not (
        isinstance(left, syntax.Call)
        and dotted_name(left.func) == "type"
        and len(left.args) == 1
        and left.args[0].keyword is None
    ):
        return TypeGuards()
    key = dotted_name(left.args[0].value)
    if key is None:
        return TypeGuards()
    guards = _guards_for(key, _type_kinds(comparison.comparator, scope))
    if isinstance(comparison.operator, (syntax.Is, syntax.Equal)):
        return guards
    if isinstance(comparison.operator, (syntax.IsNot, syntax.NotEqual)):
        return TypeGuards(guards.orelse, guards.body)
    return TypeGuards()


def _type_name_test(word: syntax.BaseExpression, text: syntax.BaseExpression) -> TypeGuards:
    """``"torch" in str(type(x))`` (also ``type(x).__module__``, ``.__name__``,
    ``.__qualname__``, and ``type(x).__module__.startswith("torch")``): a
    framework's name in the text of ``x``'s type."""
    if not isinstance(word, syntax.SimpleString):
        return TypeGuards()
    framework = word.evaluated_value
    if isinstance(text, syntax.Call) and dotted_name(text.func) == "str" and len(text.args) == 1:
        text = text.args[0].value  # ``str(type(x))``
    elif isinstance(text, syntax.Attribute) and text.attr.value in _TYPE_TEXTS:
        text = text.value  # ``type(x).__module__``
    if not (
        isinstance(text, syntax.Call)
        and dotted_name(text.func) == "type"
        and len(text.args) == 1
        and text.args[0].keyword is None
    ):
        return TypeGuards()
    key = dotted_name(text.args[0].value)
    if key is None or not isinstance(framework, str):
        return TypeGuards()
    if framework == "torch":
        return TypeGuards({key: IS_TORCH}, {key: NOT_TORCH})
    if framework.lower() in ops.OTHER_TYPE_WORDS:
        return TypeGuards({key: IS_OTHER})
    return TypeGuards()


#: The texts of a type that name it or its module.
_TYPE_TEXTS = frozenset({"__module__", "__name__", "__qualname__"})


def _guards_for(key: str, kinds: set[Optional[str]]) -> TypeGuards:
    known = [kind for kind in kinds if kind is not None]
    body = {key: known[0]} if len(kinds) == 1 and known else {}
    orelse = {key: NOT_TORCH} if IS_TORCH in kinds else {}
    return TypeGuards(body, orelse)


def _type_kinds(node: syntax.BaseExpression, scope: Scope) -> set[Optional[str]]:
    """What each type of an ``isinstance`` test's second argument says (None: nothing)."""
    if isinstance(node, syntax.Tuple):
        found: set[Optional[str]] = set()
        for element in node.elements:
            found |= _type_kinds(element.value, scope)
        return found
    qual = qualified_name(node, scope)
    if qual is None:
        name = node.value if isinstance(node, syntax.Name) else None
        if name in ops.NOT_TENSOR_TYPES and not scope.binds_locally(name):
            return {IS_OTHER}  # a builtin: ``int``, ``str``
        if name in ops.CONTAINER_TYPES and not scope.binds_locally(name):
            return {NOT_TORCH}  # ``list``: not a tensor (its elements may be)
        return {None}
    if qual in ops.TORCH_TENSOR_TYPES or (
        qual.startswith("torch.") and qual.count(".") == 1 and qual.endswith("Tensor")
    ):
        return {IS_TORCH}
    if qual in ops.NUMPY_ARRAY_TYPES:
        return {IS_ARRAY}
    if qual in ops.NOT_TENSOR_TYPES or ops.is_other_framework(qual):
        return {IS_OTHER}
    if qual in ops.CONTAINER_TYPES:
        return {NOT_TORCH}
    return {None}


def _agreed(one: Mapping[str, str], other: Mapping[str, str]) -> Mapping[str, str]:
    found = dict(one)
    for key, kind in other.items():
        if found.setdefault(key, kind) != kind:
            del found[key]
    return found


def guarded_facts(facts: Facts, kind: str) -> Facts:
    """What a value known as ``facts`` is where a type test says ``kind``."""
    if kind == IS_TORCH:
        return (facts - {OTHER, NDARRAY, NOTTENSOR}) | {TENSOR}
    if kind == IS_ARRAY:
        return frozenset({NDARRAY})
    if kind == NOT_TORCH:
        if facts & LISTS:
            return facts  # a list of tensors is not a tensor either
        return evidence(facts) | {NOTTENSOR}  # (what its fields may be keeps)
    if kind == IS_NONE:
        return frozenset({NOTTENSOR})
    return frozenset({OTHER})


def refine(env: dict[str, Facts], kinds: Mapping[str, str], known: Callable[[str], Facts]) -> None:
    """Give each value a type test names (``type_guards``) what the test says
    of it in ``env``; ``known(key)`` is what it is when ``env`` lacks it."""
    refuted: set[str] = set()
    for key, kind in kinds.items():
        facts = env.get(key)
        before = known(key) if facts is None else facts
        env[key] = guarded_facts(before, kind)
        if kind in (IS_ARRAY, IS_OTHER):
            # the value is no tensor here: what said it may be on CUDA or
            # require grad is refuted for the values computed from it too
            # (``parts = [boxes[:, i] ...]``, then ``isinstance(boxes, np.ndarray)``)
            refuted |= evidence(before)
    if refuted:
        for name, facts in list(env.items()):
            if name not in kinds and facts & refuted:
                env[name] = facts - refuted


def cpu_device_test(test: syntax.BaseExpression) -> Optional[tuple[str, bool]]:
    """``(d, True)`` when the test says the device ``d`` is the CPU where it
    holds: ``d == "cpu"``, ``d.type == "cpu"``, ``str(d) == "cpu"``,
    ``d == torch.device("cpu")``, ``d is CPU_DEVICE`` (a name that says
    ``cpu``), ``"cpu" in d`` (a device string); ``(d, False)`` when the
    CPU is where it fails: ``!=`` / ``is not`` / ``not in``, and a test
    that ``d`` is CUDA (``d.type == "cuda"``: code that moves its results
    back to the host only on CUDA takes the other branch for the CPU;
    another accelerator there is an unusual setup)."""
    if not isinstance(test, syntax.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if isinstance(target.operator, (syntax.In, syntax.NotIn)):
        # ``"cpu" in device``, ``"cuda" not in str(d)``: a device named by a string
        named = _names_a_device(test.left)
        key = device_key(target.comparator)
        if named is None or key is None:
            return None
        return key, isinstance(target.operator, syntax.In) == (named == "cpu")
    if isinstance(target.operator, (syntax.Equal, syntax.Is)):
        body = True
    elif isinstance(target.operator, (syntax.NotEqual, syntax.IsNot)):
        body = False
    else:
        return None
    for device, other in ((test.left, target.comparator), (target.comparator, test.left)):
        named = _names_a_device(other)
        if named is not None:
            key = device_key(device)
            if key is not None:
                return key, body == (named == "cpu")
    return None


def cuda_and_tensor_test(
    test: syntax.BaseExpression, scope: Scope
) -> Optional[tuple[str, frozenset[str]]]:
    """``(d, {"x"})`` for ``d.type == "cuda" and isinstance(x, torch.Tensor)``:
    where it fails, ``x`` is not on the CUDA device ``d`` names (either ``d``
    is not CUDA or ``x`` is no torch tensor), whatever the other values are."""
    if not (isinstance(test, syntax.BooleanOperation) and isinstance(test.operator, syntax.And)):
        return None
    device: Optional[str] = None
    keys: set[str] = set()
    for part in (test.left, test.right):
        tested = cpu_device_test(part)
        if tested is not None and not tested[1] and device is None:
            device = tested[0]
            continue
        torch_keys = {k for k, kind in type_guards(part, scope).body.items() if kind == IS_TORCH}
        if not torch_keys:
            return None
        keys |= torch_keys
    if device is None or not keys:
        return None
    return device, frozenset(keys)


def _names_a_device(node: syntax.BaseExpression) -> Optional[str]:
    """``"cpu"`` or ``"cuda"`` where ``node`` names that device, else None."""
    if isinstance(node, syntax.SimpleString):
        value = node.evaluated_value
        if (
            value == "cpu"
            or value == "cuda"
            or (isinstance(value, str) and value.startswith("cuda:"))
        ):
            return "cpu" if value == "cpu" else "cuda"
        return None
    if isinstance(node, syntax.Call) and len(node.args) == 1 and not node.args[0].keyword:
        if (dotted_name(node.func) or "").endswith("device"):
            return _names_a_device(node.args[0].value)
        return None
    dotted = dotted_name(node)
    if dotted is not None and "cpu" in dotted.rsplit(".", 1)[-1].lower():
        return "cpu"
    return None


def device_key(node: syntax.BaseExpression) -> Optional[str]:
    """``d`` for ``d``, ``d.type`` and ``str(d)``."""
    if (
        isinstance(node, syntax.Call)
        and len(node.args) == 1
        and not node.args[0].keyword
        and isinstance(node.func, syntax.Name)
        and node.func.value == "str"
    ):
        node = node.args[0].value
    if isinstance(node, syntax.Attribute) and node.attr.value == "type":
        node = node.value
    key = dotted_name(node)
    if key is not None and key.endswith(".device"):
        return f"{_without_data(key[: -len('.device')])}.device"
    return key


def _without_data(key: Optional[str]) -> Optional[str]:
    """``x`` for ``x.data`` (``x.data`` is where ``x`` is)."""
    while key is not None and key.endswith(".data"):
        key = key[: -len(".data")]
    return key


def sole_move_target(facts: Facts, scope: Scope) -> Optional[str]:
    """``d`` when every piece of device evidence in ``facts`` is a move to
    (or a factory on) the one device ``d`` names (``moved_only_to``)."""
    targets = _move_targets(facts, scope)
    return next(iter(targets)) if targets is not None and len(targets) == 1 else None


def moved_only_to(facts: Facts, device: str, scope: Scope) -> bool:
    """Is every piece of device evidence in ``facts`` a move to (or a factory
    on) the device ``device`` names (``x.to(device=d)``, ``x.cuda(d)``,
    ``torch.zeros(n, device=d)``, a helper given ``device=d``)? Then where
    ``d`` is the CPU, so is the value.
    The API boundary's guess about where a value came from does not count
    against a move that follows it (``x.to(d)`` is on ``d``, wherever ``x`` was)."""
    return _move_targets(facts, scope) == {device}


def _move_targets(facts: Facts, scope: Scope) -> Optional[set[str]]:
    """The devices (dotted names) the device evidence in ``facts`` moves to,
    the API boundary's guess aside; None when a piece of it is no move or
    names its device otherwise than by a name (``x.to(get_device())``)."""
    table = scope.module().evidence
    targets: set[str] = set()
    for token in facts:
        if not token.startswith(DEV):
            continue
        found = table.get(token)
        if found is None or found.kind == "api":
            continue
        node = found.node
        if found.kind == "callee-device" and found.target:
            targets.add(found.target)  # ``self._stats(x)`` moves to ``self.device``
            continue
        if found.kind == "device" and not isinstance(node, syntax.Call):
            target: Optional[syntax.BaseExpression] = node  # ``device=d`` names ``d`` itself
        elif isinstance(node, syntax.Call) and found.kind in ("move", "device"):
            target = keyword(node, "device") or positional(node, 0)
        else:
            return None
        name = dotted_name(target) if target is not None else None
        if name is None:
            return None
        targets.add(name)
    return targets


def flag_test(test: syntax.BaseExpression) -> Optional[tuple[str, bool]]:
    """``("use_cuda", True)`` for ``if use_cuda:`` (a name or an attribute,
    ``self.cuda``, or ``torch.cuda.is_available()``), ``(..., False)`` for
    ``if not use_cuda:``: a flag that code tests again to undo what it did."""
    if isinstance(test, syntax.UnaryOperation) and isinstance(test.operator, syntax.Not):
        inner = flag_test(test.expression)
        return None if inner is None else (inner[0], not inner[1])
    if isinstance(test, syntax.Call) and not test.args:
        name = dotted_name(test.func)
        if name is not None and name.endswith("cuda.is_available"):
            return f"{name}()", True
        return None
    if isinstance(test, (syntax.Name, syntax.Attribute)):
        name = dotted_name(test)
        return None if name is None else (name, True)
    return None


def calls_in(node: syntax.CSTNode) -> Iterator[syntax.Call]:
    """Every call written inside ``node`` (not in functions, classes or
    lambdas it defines)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, syntax.Call):
            yield current
        if isinstance(current, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
            continue
        stack.extend(children(current))


def guard_moves(scope: Scope, calls: Iterable[syntax.CSTNode], flag: str) -> None:
    """The ``move`` / ``device`` evidence that ``calls`` gave was made where
    ``flag`` holds (innermost flag first)."""
    table = scope.module().evidence
    for call in calls:
        token = f"{DEV}{id(call)}"
        found = table.get(token)
        if found is not None and found.kind in ("move", "device") and not found.guard:
            table[token] = found._replace(guard=flag)
            scope.module().guards.add(flag)


#: The device evidence of the code's own moves and placements (not a guess
#: about what callers or users pass): void where CUDA is not available.
_OWN_MOVES = frozenset({"move", "device", "load", "callee-device", "default-device"})


def cuda_available_flag(flag: str, scope: Scope) -> bool:
    """Does ``flag`` (as ``flag_test`` names it) say whether CUDA is available:
    ``torch.cuda.is_available()`` itself, or a name or ``self`` attribute the
    code binds to it and to nothing else (``use_gpu = torch.cuda.is_available()``;
    ``self.use_gpu = ...`` in any method of the class)?"""
    if flag.endswith("cuda.is_available()"):
        return True
    owner = _binder(flag, scope)
    if owner is None:
        return False
    module = scope.module()
    flags = module.cuda_flags.get(id(owner))
    if flags is None:
        flags = module.cuda_flags[id(owner)] = _cuda_available_names(owner)
    return flag in flags


def device_flag(device: syntax.BaseExpression, scope: Scope) -> str:
    """The flag that chooses ``device``, a name or ``self`` attribute the code
    binds only to CUDA where the flag holds and to the CPU where it fails
    (``device = torch.device("cuda" if run_on_gpu else "cpu")``): a move to
    it leaves the host only where the flag holds, as one made under ``if
    run_on_gpu:`` does (``never_moved_under``). Empty where none does."""
    name = dotted_name(device)
    owner = _binder(name, scope) if name is not None else None
    if name is None or owner is None:
        return ""
    module = scope.module()
    flags = module.device_flags.get(id(owner))
    if flags is None:
        flags = module.device_flags[id(owner)] = _flag_chosen_devices(owner)
    return flags.get(name, "")


def _chosen_by(value: Optional[syntax.BaseExpression]) -> Optional[str]:
    """``run_on_gpu`` for ``"cuda" if run_on_gpu else "cpu"`` (in
    ``torch.device(...)`` too; ``not f`` with the branches the other way round)."""
    if (
        isinstance(value, syntax.Call)
        and len(value.args) == 1
        and not value.args[0].keyword
        and (dotted_name(value.func) or "").endswith("device")
    ):
        value = value.args[0].value
    if not isinstance(value, syntax.IfExp):
        return None
    flag = flag_test(value.test)
    if flag is None:
        return None
    body, orelse = _names_a_device(value.body), _names_a_device(value.orelse)
    if (body, orelse) == ("cuda", "cpu") and flag[1]:
        return flag[0]
    if (body, orelse) == ("cpu", "cuda") and not flag[1]:
        return flag[0]
    return None


def _flag_chosen_devices(owner: syntax.CSTNode) -> dict[str, str]:
    """The names (``device``) a function or module, or the ``self`` attributes
    (``self.device``) the methods of a class, bind by ``=`` to a device one
    flag chooses (``_chosen_by``), and nothing else: name -> the flag."""
    found: dict[str, str] = {}
    for name, values in _bound_values(owner).items():
        flags = {_chosen_by(value) for value in values}
        flag = flags.pop() if len(flags) == 1 else None
        if flag is not None:
            found[name] = flag
    return found


def _cuda_available_names(owner: syntax.CSTNode) -> frozenset[str]:
    """The names (``use_gpu``) a function or module, or the ``self`` attributes
    (``self.use_gpu``) the methods of a class, bind by ``=`` to
    ``torch.cuda.is_available()`` only (bound any other way: not one)."""
    return frozenset(
        name
        for name, values in _bound_values(owner).items()
        if all(
            isinstance(value, syntax.Call)
            and not value.args
            and (dotted_name(value.func) or "").endswith("cuda.is_available")
            for value in values
        )
    )


def _binder(name: str, scope: Scope) -> Optional[syntax.CSTNode]:
    """Where ``name`` is bound, for ``_bound_values``: the function or module
    that binds a plain name, the class of the method for ``self.<attr>``."""
    if "." not in name:
        found = scope.binding_scope(name)
        return found.node if found is not None and found.kind != "class" else None
    if name.startswith("self.") and name.count(".") == 1:
        method = method_of(scope)
        return method[1].node if method is not None else None
    return None


def _bound_values(owner: syntax.CSTNode) -> dict[str, list[Optional[syntax.BaseExpression]]]:
    """What a function or module binds to each name, or the methods of a
    class to each ``self`` attribute, by assignment (None: bound some other
    way, by ``+=`` or as part of a tuple)."""
    bodies: list[Union[syntax.FunctionDef, syntax.Module]]
    if isinstance(owner, syntax.ClassDef):
        bodies = [s for s in children(owner.body) if isinstance(s, syntax.FunctionDef)]
        prefix = "self."
    elif isinstance(owner, (syntax.FunctionDef, syntax.Module)):
        bodies, prefix = [owner], ""
    else:
        return {}
    values: dict[str, list[Optional[syntax.BaseExpression]]] = {}
    for node in (n for body in bodies for n in own_statements(body)):
        if not isinstance(node, (syntax.Assign, syntax.AnnAssign, syntax.AugAssign)):
            continue
        targets = (
            [t.target for t in node.targets] if isinstance(node, syntax.Assign) else [node.target]
        )
        value = None if isinstance(node, syntax.AugAssign) else node.value
        for target in targets:
            name = dotted_name(target)
            if name is not None and (name.startswith(prefix) if prefix else "." not in name):
                values.setdefault(name, []).append(value)
            elif not prefix:
                for bound in target_names(target):
                    values.setdefault(bound, []).append(None)
    return values


def guards_something(flag: str, scope: Scope, also: str = "") -> bool:
    """Can ``never_moved_under`` change anything for ``flag``: is a move of
    the file recorded under it (or ``also``), or does it say whether CUDA is
    available? (Asked before walking a whole environment.)"""
    guards = scope.module().guards
    return flag in guards or bool(also and also in guards) or cuda_available_flag(flag, scope)


def never_moved_under(facts: Facts, flag: str, scope: Scope, also: str = "") -> Facts:
    """What ``facts`` are where ``flag`` fails: without the device evidence
    of moves made only where it holds (the value never left the host through
    them), or where ``also`` does (the flag every caller in the file passes
    for the parameter ``flag``: ``tts(model, USE_CUDA)`` of ``def tts(model,
    use_cuda)``). A value whose only device evidence was such moves is on
    the CPU.
    Where ``flag`` is whether CUDA is available (``cuda_available_flag``),
    the code's own moves and placements found no CUDA device either: none
    of their evidence holds there (another accelerator, MPS say, chosen
    where CUDA is missing, is taken to be unusual for code written so)."""
    if not any(token.startswith(DEV) for token in facts):
        return facts
    table = scope.module().evidence
    no_cuda = cuda_available_flag(flag, scope)
    dropped = {
        token
        for token in facts
        if token.startswith(DEV)
        and (found := table.get(token)) is not None
        and (
            found.guard == flag
            or (also and found.guard == also)
            or (no_cuda and found.kind in _OWN_MOVES)
        )
    }
    if not dropped:
        return facts
    kept = facts - dropped
    if not any(token.startswith(DEV) for token in kept):
        kept = kept | {CPU}
    return settle(kept)


def default_cuda_of(scope: Scope) -> Optional[tuple[str, bool]]:
    """Does the file of ``scope``, or a module of the tree it imports, make
    CUDA the default device of new tensors: (where, whether ``torch.Tensor``
    follows), or None (asked once per file: ``sites.default_cuda``)."""
    module = scope.module()
    found = module.default_cuda
    if callable(found):
        found = module.default_cuda = found()
    return found


def never_moved_attributes(evaluator: FactEvaluator, flag: str, env: Env) -> None:
    """``never_moved_under`` for the ``self`` attributes of the evaluator's
    method that ``env`` does not hold yet: the changed ones go into ``env``."""
    me = evaluator.self_name
    if me is None:
        return
    for attribute, facts in evaluator.attributes.items():
        key = f"{me}.{attribute}"
        if key not in env:
            changed = never_moved_under(facts, flag, evaluator.scope, evaluator.flags.get(flag, ""))
            if changed is not facts:
                env[key] = changed


def merge(a: Mapping[str, Facts], b: Mapping[str, Facts]) -> Env:
    """Two paths meet: proofs both agree on; evidence of either, even when one
    path never bound the name (``if cuda: model = model.cuda()``)."""
    merged = {key: meet(facts, b[key]) for key, facts in a.items() if key in b}
    for one, other in ((a, b), (b, a)):
        for key, facts in one.items():
            if key not in other and any(":" in t for t in facts):
                merged[key] = evidence(facts)
    return merged


_Exit = (syntax.Return, syntax.Raise, syntax.Continue, syntax.Break)


def _always_exits(body: Union[syntax.BaseSuite, Sequence[syntax.BaseStatement]]) -> bool:
    statements: Sequence[syntax.BaseStatement | syntax.BaseSmallStatement]
    if isinstance(body, (syntax.IndentedBlock, syntax.SimpleStatementSuite)):
        statements = body.body
    else:
        statements = body  # type: ignore[assignment]
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, syntax.SimpleStatementLine):
        return bool(last.body) and (
            isinstance(last.body[-1], _Exit) or raises_always(last.body[-1])
        )
    if isinstance(last, syntax.If):
        # ``if ...: return a`` / ``else: return b`` (``elif`` chains too)
        orelse = last.orelse
        return _always_exits(last.body) and (
            _always_exits(orelse.body)
            if isinstance(orelse, syntax.Else)
            else orelse is not None and _always_exits([orelse])
        )
    if isinstance(last, syntax.With):
        return _always_exits(last.body)
    return isinstance(last, _Exit)
