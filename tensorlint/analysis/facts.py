"""Provenance facts: what is known about a value where it is converted.

Facts are small sets of strings, propagated through assignments in statement
order and intersected where branches meet (a fact holds after an ``if`` only
when it holds on every path). Loops are walked twice so that facts flowing
around the back edge are seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional, Union

import libcst as cst

from tensorlint.analysis import ops
from tensorlint.analysis.names import Scope, dotted_name, qualified_name

Facts = frozenset[str]

CPU = "cpu"  #: known to live on the CPU
NOGRAD = "nograd"  #: cannot require grad
TENSOR = "tensor"  #: known to be a torch tensor
NDARRAY = "ndarray"  #: known to be a NumPy array
OTHER = "other"  #: comes from another framework (TensorFlow, JAX, ...)
_NUMBER = "number"  #: a numeric literal: neutral in arithmetic

EMPTY: Facts = frozenset()
NUMBER: Facts = frozenset({_NUMBER})
CARRY: Facts = frozenset({CPU, NOGRAD, TENSOR, NDARRAY, OTHER})

Env = dict[str, Facts]

_TORCH_SUBMODULES_OF_FUNCTIONS = ("torch.nn.functional.", "torch.linalg.", "torch.fft.",
                                  "torch.special.")  # fmt: skip


def is_cpu_device(node: cst.BaseExpression, scope: Scope) -> bool:
    """``"cpu"``, ``'cpu:0'`` or ``torch.device("cpu")``."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return isinstance(value, str) and value.split(":")[0] == "cpu"
    if isinstance(node, cst.Call) and qualified_name(node.func, scope) == "torch.device":
        return bool(node.args) and is_cpu_device(node.args[0].value, scope)
    return False


def keyword(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def positional(call: cst.Call, index: int) -> Optional[cst.BaseExpression]:
    count = 0
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            if count == index:
                return arg.value
            count += 1
    return None


def is_false(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def is_true(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _is_literal_data(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple, cst.Integer, cst.Float, cst.ListComp))


def _combine(a: Facts, b: Facts) -> Facts:
    if _NUMBER in a:
        return b
    if _NUMBER in b:
        return a
    return a & b


def _is_torch_function(qual: str) -> bool:
    """``torch.cat``, ``torch.nn.functional.relu``: functions returning tensors."""
    if qual.startswith(_TORCH_SUBMODULES_OF_FUNCTIONS):
        return True
    parts = qual.split(".")
    return len(parts) == 2 and parts[0] == "torch" and parts[1][:1].islower()


def annotation_facts(annotation: Optional[cst.BaseExpression], scope: Scope) -> Facts:
    if annotation is None:
        return EMPTY
    if isinstance(annotation, cst.SimpleString):
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
    if qual in ("numpy.ndarray", "numpy.typing.NDArray"):
        return frozenset({NDARRAY})
    if isinstance(annotation, cst.Subscript):
        return annotation_facts(annotation.value, scope) & frozenset({NDARRAY})
    return EMPTY


#: Facts of ``self.<name>`` attributes, by name, for the class of a method.
AttributeFacts = Mapping[str, Facts]


class FactEvaluator:
    """Computes the facts of expressions against an environment.

    ``attributes`` holds what every assignment in the class says about
    ``self.<name>`` (see ``class_attribute_facts``); the method's first
    parameter is ``self``.
    """

    def __init__(self, scope: Scope, attributes: Optional[AttributeFacts] = None) -> None:
        self.scope = scope
        self.attributes = attributes or {}
        self.self_name = self_name(scope) if attributes else None

    def expr(self, node: cst.BaseExpression, env: Mapping[str, Facts]) -> Facts:
        if isinstance(node, cst.Name):
            known = env.get(node.value)
            if known is not None:
                return known
            if node.value in self.scope.params:
                return annotation_facts(self.scope.params[node.value], self.scope)
            return EMPTY
        if isinstance(node, cst.Attribute):
            key = dotted_name(node)
            if key is not None and key in env:
                return env[key]
            if (
                self.self_name is not None
                and isinstance(node.value, cst.Name)
                and node.value.value == self.self_name
                and node.attr.value in self.attributes
            ):
                return self.attributes[node.attr.value]
            attr = node.attr.value
            if attr in ("data", "grad"):
                return (self.expr(node.value, env) & CARRY) | {NOGRAD}
            if attr in ops.TORCH_VIEW_ATTRS or attr in ops.NUMPY_VIEW_ATTRS:
                return self.expr(node.value, env) & CARRY
            return EMPTY
        if isinstance(node, cst.Subscript):
            return self.expr(node.value, env) & CARRY
        if isinstance(node, cst.Call):
            return self.call(node, env)
        if isinstance(node, cst.BinaryOperation):
            return _combine(self.expr(node.left, env), self.expr(node.right, env)) - {_NUMBER}
        if isinstance(node, cst.UnaryOperation):
            return self.expr(node.expression, env)
        if isinstance(node, cst.Comparison):
            facts = self.expr(node.left, env)
            for target in node.comparisons:
                facts = _combine(facts, self.expr(target.comparator, env))
            return (facts - {_NUMBER, NDARRAY}) | {NOGRAD}
        if isinstance(node, cst.IfExp):
            body = self.expr(node.body, env)
            orelse = self.expr(node.orelse, env)
            guarded = requires_grad_test(node.test)
            if guarded is not None and dotted_name(node.orelse) == guarded:
                orelse = orelse | {NOGRAD}
            return _combine(body, orelse)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return NUMBER
        return EMPTY

    def call(self, node: cst.Call, env: Mapping[str, Facts]) -> Facts:
        func = node.func
        qual = qualified_name(func, self.scope)
        if qual is not None:
            return self._function_call(qual, node, env)
        if self._maybe_other_framework(func):
            return frozenset({OTHER})
        if isinstance(func, cst.Attribute):
            return self._method_call(func.attr.value, self.expr(func.value, env), node, env)
        if OTHER in self.expr(func, env):
            return frozenset({OTHER})
        return EMPTY

    def _maybe_other_framework(self, func: cst.BaseExpression) -> bool:
        """``backend.abs(x)`` where ``backend`` may be TensorFlow or torch."""
        dotted = dotted_name(func)
        if dotted is None:
            return False
        head = dotted.split(".")[0]
        return any(q.split(".")[0] in ops.OTHER_FRAMEWORKS for q in self.scope.possible(head))

    def _function_call(self, qual: str, node: cst.Call, env: Mapping[str, Facts]) -> Facts:
        if qual.split(".")[0] in ops.OTHER_FRAMEWORKS:
            return frozenset({OTHER})
        if qual == ops.FROM_NUMPY:
            return frozenset({TENSOR, CPU, NOGRAD})
        if qual in ops.TORCH_FACTORIES or qual in ops.AS_TENSOR_FUNCS:
            return self._factory(qual, node, env)
        if qual.startswith("numpy."):
            return frozenset({NDARRAY})
        if _is_torch_function(qual):
            facts = {TENSOR}
            if qual.rsplit(".", 1)[1] in ops.INTEGER_RESULT_METHODS:
                facts.add(NOGRAD)
            return frozenset(facts)
        return EMPTY

    def _factory(self, qual: str, node: cst.Call, env: Mapping[str, Facts]) -> Facts:
        facts = {TENSOR}
        data = positional(node, 0)
        data_facts = self.expr(data, env) if data is not None else EMPTY
        data_is_plain = data is not None and (_is_literal_data(data) or NDARRAY in data_facts)
        device = keyword(node, "device")
        if device is not None:
            if is_cpu_device(device, self.scope):
                facts.add(CPU)
        elif qual in ops.TORCH_LIKE_FACTORIES:
            if CPU in data_facts:
                facts.add(CPU)
        elif qual in ops.TORCH_DATA_FACTORIES:
            if data_is_plain or CPU in data_facts:
                facts.add(CPU)
        else:
            facts.add(CPU)
        requires_grad = keyword(node, "requires_grad")
        if requires_grad is None or is_false(requires_grad):
            if qual in ops.AS_TENSOR_FUNCS:
                if data_is_plain or NOGRAD in data_facts:
                    facts.add(NOGRAD)
            else:
                facts.add(NOGRAD)
        dtype = keyword(node, "dtype")
        if dtype is not None and qualified_name(dtype, self.scope) in ops.INTEGER_DTYPES:
            facts.add(NOGRAD)
        return frozenset(facts)

    def _method_call(
        self, method: str, receiver: Facts, node: cst.Call, env: Mapping[str, Facts]
    ) -> Facts:
        if OTHER in receiver:
            return frozenset({OTHER})
        if method == "numpy":
            return frozenset({NDARRAY})
        base = receiver & CARRY
        if method == "cpu":
            return base | {CPU}
        if method == "detach":
            return base | {NOGRAD}
        if method in ("to", "type"):
            return self._to_call(base, node)
        if method in ops.DEVICE_CHANGING_METHODS:
            return base - {CPU}
        if method == "requires_grad_":
            return base if is_false(positional(node, 0)) else base - {NOGRAD}
        if method in ops.INTEGER_RESULT_METHODS:
            return base | {NOGRAD}
        if base & {TENSOR, NDARRAY}:
            return base
        return EMPTY

    def _to_call(self, base: Facts, node: cst.Call) -> Facts:
        facts = set(base)
        for arg in node.args:
            name = arg.keyword.value if arg.keyword is not None else None
            if name in ("copy", "non_blocking", "memory_format"):
                continue
            value = arg.value
            if is_cpu_device(value, self.scope):
                facts.add(CPU)
                continue
            qual = qualified_name(value, self.scope)
            if qual is not None and qual.startswith("torch.") and name != "device":
                if qual in ops.INTEGER_DTYPES:
                    facts.add(NOGRAD)
                if qual != "torch.device":
                    continue
            facts.discard(CPU)
        return frozenset(facts)


def self_name(scope: Scope) -> Optional[str]:
    """The first parameter of a method (``self``), if ``scope`` is one."""
    node = scope.node
    if not isinstance(node, cst.FunctionDef) or scope.parent is None:
        return None
    if scope.parent.kind != "class" or any(
        isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod")
        for d in node.decorators
    ):
        return None
    params = [*node.params.posonly_params, *node.params.params]
    return params[0].name.value if params else None


def grad_mode(expr: cst.BaseExpression, scope: Scope) -> Optional[bool]:
    """True for a no-grad context manager or decorator, False for a grad one."""
    call = expr if isinstance(expr, cst.Call) else None
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
    return None


def computed_without_grad(node: cst.BaseExpression) -> bool:
    """Is this value computed (not just named) so that under no-grad it has no grad?

    Every op run while grad mode is off returns a tensor that does not require
    grad (SEMANTICS.md 2.1, ``made_in_no_grad``); a plain name or attribute
    (``w = model.weight``) is the same object and keeps its flag, and a
    ``requires_grad=True`` factory or ``requires_grad_()`` sets it again.
    """
    if isinstance(node, (cst.Name, cst.Attribute)):
        return False
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            return False
        if is_true(keyword(node, "requires_grad")):
            return False
        if isinstance(func, (cst.Name, cst.Attribute)) and (dotted_name(func) or "").endswith(
            "Parameter"
        ):
            return False
    return True


def requires_grad_test(test: cst.BaseExpression) -> Optional[str]:
    """``x`` when the test is ``x.requires_grad`` (or ``is True``/``== True``)."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        if isinstance(comparison.operator, (cst.Is, cst.Equal)) and is_true(comparison.comparator):
            test = test.left
    if isinstance(test, cst.Attribute) and test.attr.value == "requires_grad":
        return dotted_name(test.value)
    return None


def merge(a: Mapping[str, Facts], b: Mapping[str, Facts]) -> Env:
    return {key: facts & b[key] for key, facts in a.items() if key in b}


_Exit = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def _always_exits(body: Union[cst.BaseSuite, Sequence[cst.BaseStatement]]) -> bool:
    statements: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
    if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        statements = body.body
    else:
        statements = body  # type: ignore[assignment]
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return bool(last.body) and isinstance(last.body[-1], _Exit)
    return isinstance(last, _Exit)
