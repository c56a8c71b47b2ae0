"""The grad facts are measured, not assumed: each one again, here.

``tools/measure_grad.py`` holds an example for every name the analysis
trusts to return a tensor without grad (``ops.INTEGER_RESULT_METHODS``,
``ops.INDICES_WITH_ONE_ARGUMENT``, ``ops.TENSOR_NEW_METHODS``), the values
made under ``no_grad`` that keep or lose the flag of what they are made
from, and how a ``no_grad`` decorator reaches a function's body. These tests
run them against the installed torch and check that the analysis says the
same.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import site
from repo_tools import load_tool

from tensorlint.analysis import ops
from tensorlint.analysis.facts import NOGRAD

torch = pytest.importorskip("torch", reason="the facts are measured with torch (test extra)")

ROOT = Path(__file__).resolve().parent.parent


measure_grad = load_tool("measure_grad")

TRUSTED = ops.INTEGER_RESULT_METHODS | ops.INDICES_WITH_ONE_ARGUMENT | ops.TENSOR_NEW_METHODS


def test_every_name_trusted_to_give_no_grad_has_a_measured_example() -> None:
    assert set(measure_grad.NO_GRAD_RESULTS) == TRUSTED


@pytest.mark.parametrize("name", sorted(TRUSTED))
def test_each_result_trusted_to_have_no_grad_has_none(name: str) -> None:
    example = measure_grad.NO_GRAD_RESULTS[name]
    assert not measure_grad.requires_grad(example)
    # and the analysis says so, on a module's output (which requires grad)
    code = f"import torch\ndef f(model, data, y, i):\n    x = model(data)\n    t = {example}\n"
    code += "    return t.numpy()\n"
    found = site(code, "t.numpy()")
    assert NOGRAD in found.facts(found.receiver)


def _made_in_no_grad(expression: str) -> set[str]:
    code = "import torch\ndef f(model, data, y):\n    x = model.weight\n"
    code += f"    with torch.no_grad():\n        t = {expression}\n    return t.numpy()\n"
    found = site(code, "t.numpy()")
    return set(found.facts(found.receiver))


@pytest.mark.parametrize("expression", measure_grad.SAME_FLAG_UNDER_NO_GRAD)
def test_a_view_made_under_no_grad_still_requires_grad(expression: str) -> None:
    assert measure_grad.requires_grad(expression, no_grad=True)
    assert NOGRAD not in _made_in_no_grad(expression)


@pytest.mark.parametrize("expression", measure_grad.COMPUTED_UNDER_NO_GRAD)
def test_a_value_computed_under_no_grad_does_not(expression: str) -> None:
    assert not measure_grad.requires_grad(expression, no_grad=True)
    assert NOGRAD in _made_in_no_grad(expression)


@pytest.mark.parametrize(
    ("kind", "reached"),
    [("def", True), ("generator", True), ("async def", False), ("async generator", False)],
)
@pytest.mark.parametrize("decorator", ["torch.no_grad()", "torch.inference_mode()"])
def test_a_no_grad_decorator_reaches_the_body_unless_it_is_async(
    kind: str, reached: bool, decorator: str
) -> None:
    assert measure_grad.decorator_grad_mode(kind, decorator) is not reached
    prefix = "async def" if kind.startswith("async") else "def"
    body = "yield t.numpy()" if kind.endswith("generator") else "return t.numpy()"
    code = f"import torch\n@{decorator}\n{prefix} f(t):\n    {body}\n"
    assert site(code, "t.numpy()").in_no_grad() is reached
