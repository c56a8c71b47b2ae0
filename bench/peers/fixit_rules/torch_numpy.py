"""``torch.from_numpy(x)`` without ``.clone()``; ``t.numpy()`` without ``.cpu()``/``.detach()``.

The same two patterns as ``bench/peers/semgrep.yml``. Purely syntactic (no
metadata providers), which is the cheapest a Fixit rule can be.
"""

from __future__ import annotations

import libcst as cst
from fixit import Invalid, LintRule, Valid

_SAFE_RECEIVERS = frozenset({"cpu", "detach"})


def _method_name(node: cst.BaseExpression) -> str | None:
    """``name`` for a call ``<anything>.name(...)``, else ``None``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value
    return None


def _is_from_numpy(node: cst.Call) -> bool:
    func = node.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "from_numpy"
        and isinstance(func.value, cst.Name)
        and func.value.value == "torch"
    )


class FromNumpyWithoutClone(LintRule):
    """``torch.from_numpy(a)`` shares memory with ``a``; clone it."""

    MESSAGE = "torch.from_numpy() shares memory with the array; add .clone()"
    VALID = [
        Valid("t = torch.from_numpy(a).clone()"),
        Valid("t = np.from_numpy(a)"),
    ]
    INVALID = [
        Invalid("t = torch.from_numpy(a)"),
        Invalid("f(torch.from_numpy(a).float())"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._cloned: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        # Calls are visited outside-in: `torch.from_numpy(a).clone()` marks its
        # receiver before the inner call is reached.
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "clone":
            if isinstance(func.value, cst.Call):
                self._cloned.add(func.value)
            return
        if _is_from_numpy(node) and node not in self._cloned:
            self.report(node)


class NumpyWithoutCpuDetach(LintRule):
    """``t.numpy()`` fails on CUDA and on grad tensors; ``.cpu()``/``.detach()`` first."""

    MESSAGE = ".numpy() without .cpu()/.detach() before it"
    VALID = [
        Valid("a = t.cpu().numpy()"),
        Valid("a = t.detach().numpy()"),
        Valid("a = t.cpu().detach().numpy()"),
        Valid("a = t.numpy(force=True)"),
    ]
    INVALID = [
        Invalid("a = t.numpy()"),
        Invalid("a = model(x).numpy()"),
        Invalid("a = t.float().numpy()"),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "numpy" or node.args:
            return
        if _method_name(func.value) in _SAFE_RECEIVERS:
            return
        self.report(node)
