"""Measure which torch results require grad, and where grad mode is off.

This is how the grad facts of ``tensorlint/analysis/ops.py`` and
``docs/evidence.md`` were obtained, and ``tests/test_grad_semantics.py``
runs it again against the installed torch: the facts are measured, never
assumed.

- ``NO_GRAD_RESULTS``: for each name in ``ops.INTEGER_RESULT_METHODS`` and
  ``ops.TENSOR_NEW_METHODS``, an example call on ``x``, a float tensor that
  requires grad; its result must not require grad.
- ``SAME_FLAG_UNDER_NO_GRAD``: expressions evaluated inside
  ``torch.no_grad()`` on ``x`` whose result still requires grad (a view, or
  the same object), and ``COMPUTED_UNDER_NO_GRAD``: those whose result does
  not.
- ``decorator_grad_mode``: the grad mode inside the body of a function
  decorated with ``torch.no_grad()``, plain, generator and ``async``.

Run ``python tools/measure_grad.py`` to print every row.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

#: name -> an example call; ``x`` requires grad, ``y`` is another float
#: tensor, ``i`` an integer tensor
NO_GRAD_RESULTS = {
    "argmax": "x.argmax(1)",
    "argmin": "x.argmin(1)",
    "argsort": "x.argsort(1)",
    "argwhere": "x.argwhere()",
    "nonzero": "x.nonzero()",
    "long": "x.long()",
    "int": "x.int()",
    "short": "x.short()",
    "byte": "x.byte()",
    "char": "x.char()",
    "bool": "x.bool()",
    "eq": "x.eq(y)",
    "ne": "x.ne(y)",
    "lt": "x.lt(y)",
    "le": "x.le(y)",
    "gt": "x.gt(y)",
    "ge": "x.ge(y)",
    "greater": "x.greater(y)",
    "greater_equal": "x.greater_equal(y)",
    "less": "x.less(y)",
    "less_equal": "x.less_equal(y)",
    "not_equal": "x.not_equal(y)",
    "isnan": "x.isnan()",
    "isinf": "x.isinf()",
    "isfinite": "x.isfinite()",
    "isneginf": "x.isneginf()",
    "isposinf": "x.isposinf()",
    "isreal": "x.isreal()",
    "isclose": "x.isclose(y)",
    "isin": "torch.isin(x, y)",
    "all": "x.all()",
    "any": "x.any()",
    "logical_and": "x.logical_and(y)",
    "logical_or": "x.logical_or(y)",
    "logical_not": "x.logical_not()",
    "logical_xor": "x.logical_xor(y)",
    "count_nonzero": "x.count_nonzero()",
    "searchsorted": "torch.searchsorted(y[0].sort().values, x)",
    "bucketize": "torch.bucketize(x, y[0].sort().values)",
    "signbit": "x.signbit()",
    "equal": "torch.tensor(x.equal(y))",  # a Python bool
    "histc": "x.histc()",
    "hash_tensor": "x.hash_tensor()",
    "where": "torch.where(x > 0)[0]",
    "new_zeros": "x.new_zeros(3)",
    "new_ones": "x.new_ones(3)",
    "new_empty": "x.new_empty(3)",
    "new_full": "x.new_full((3,), 1.0)",
    "new_tensor": "x.new_tensor([1.0, 2.0])",
    "new": "x.new(3)",
}

#: inside ``torch.no_grad()``: results that keep ``x``'s flag (views, self)
SAME_FLAG_UNDER_NO_GRAD = [
    "x.view(-1)", "x.reshape(-1)", "x.flatten()", "x.T", "x.t()", "x[0]", "x[:, 1:]",
    "x.unsqueeze(0)", "x.squeeze()", "x.permute(1, 0)", "x.transpose(0, 1)",
    "x.expand(4, 5)", "x.narrow(0, 0, 1)", "x.chunk(2)[0]", "x.split(2)[0]",
    "x.unbind()[0]", "x.diagonal()", "x.cpu()", "x.to('cpu')", "x.float()",
    "x.contiguous()", "x.type(torch.float32)", "torch.as_tensor(x)",
    "torch.transpose(x, 0, 1)",
]  # fmt: skip
#: inside ``torch.no_grad()``: results that do not require grad (a cast or a
#: move, ``x.double()``, is one only when it copies: the analysis, which does
#: not know the dtype or the device, counts it as the tensor itself)
COMPUTED_UNDER_NO_GRAD = [
    "x * 2", "x + y", "x.clone()", "x.softmax(-1)", "x.sum()", "torch.cat([x, y])",
    "x[[0, 1]]", "x[x > 0]", "x.detach()",
]  # fmt: skip


def _values() -> dict[str, Any]:
    import torch

    x = torch.randn(4, 5, requires_grad=True)
    return {
        "torch": torch,
        "x": x,
        "y": torch.randn(4, 5),
        "i": torch.tensor([0, 1, 1, 3]),
    }


def requires_grad(expression: str, *, no_grad: bool = False) -> bool:
    """Does ``expression`` (on ``x``, which requires grad) require grad?"""
    import torch

    values = _values()
    if no_grad:
        with torch.no_grad():
            result = eval(expression, values)
    else:
        result = eval(expression, values)
    assert isinstance(result, torch.Tensor), expression
    return bool(result.requires_grad)


def decorator_grad_mode(kind: str, decorator: str = "torch.no_grad()") -> bool:
    """Is grad mode on inside the body of a ``kind`` function ("def",
    "generator", "async def", "async generator") decorated with
    ``decorator``, called (and awaited or iterated) with grad mode on?"""
    import torch

    namespace: dict[str, Any] = {"torch": torch}
    if kind == "def":
        body = "def f():\n    return torch.is_grad_enabled()\n"
    elif kind == "generator":
        body = "def f():\n    yield torch.is_grad_enabled()\n"
    elif kind == "async def":
        body = "async def f():\n    return torch.is_grad_enabled()\n"
    else:
        body = "async def f():\n    yield torch.is_grad_enabled()\n"
    exec(f"@{decorator}\n{body}", namespace)
    function = namespace["f"]
    if kind == "def":
        return bool(function())
    if kind == "generator":
        return bool(next(function()))
    if kind == "async def":
        return bool(asyncio.run(function()))

    async def first() -> bool:
        async for value in function():
            return bool(value)
        raise AssertionError("no value")

    return asyncio.run(first())


def main() -> int:
    import torch

    print(f"torch {torch.__version__}")
    for name, example in NO_GRAD_RESULTS.items():
        print(f"{name:16} {example:45} requires grad: {requires_grad(example)}")
    for example in SAME_FLAG_UNDER_NO_GRAD + COMPUTED_UNDER_NO_GRAD:
        found = requires_grad(example, no_grad=True)
        print(f"under no_grad    {example:45} requires grad: {found}")
    for kind in ("def", "generator", "async def", "async generator"):
        for decorator in ("torch.no_grad()", "torch.inference_mode()"):
            found = decorator_grad_mode(kind, decorator)
            print(f"@{decorator} {kind:16} grad enabled inside: {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
