"""What a test says about the paths it guards (``tensorlint.analysis.paths``)."""

from __future__ import annotations

import ast

import pytest

from tensorlint.analysis import paths
from tensorlint.analysis.from_ast import build, parse_expression
from tensorlint.analysis.syntax import If, Module


def _dnf(text: str, holds: bool = True) -> set[frozenset[tuple[str, str, str, bool]]]:
    return {frozenset(tuple(lit) for lit in c) for c in paths.dnf(parse_expression(text), holds)}


def test_a_flag_and_its_negation() -> None:
    assert _dnf("use_cuda") == {frozenset({("use_cuda", "truth", "", True)})}
    assert _dnf("not self.use_cuda") == {frozenset({("self.use_cuda", "truth", "", False)})}
    assert _dnf("use_cuda", holds=False) == {frozenset({("use_cuda", "truth", "", False)})}


def test_conjunction_fails_as_a_disjunction() -> None:
    assert _dnf("a and not b", holds=False) == {
        frozenset({("a", "truth", "", False)}),
        frozenset({("b", "truth", "", True)}),
    }


def test_comparisons_with_constants() -> None:
    assert _dnf("mode == 'eval'") == {frozenset({("mode", "==", "'eval'", True)})}
    assert _dnf("'eval' != mode") == {frozenset({("mode", "!=", "'eval'", True)})}
    assert _dnf("d is None") == {frozenset({("d", "==", "None", False)})}
    assert _dnf("k in ('a', 'b')") == {
        frozenset({("k", "==", "'a'", True)}),
        frozenset({("k", "==", "'b'", True)}),
    }
    assert _dnf("k in ('a', 'b')", holds=False) == {
        frozenset({("k", "!=", "'a'", True), ("k", "!=", "'b'", True)})
    }


@pytest.mark.parametrize(
    "text", ["isinstance(x, np.ndarray)", "f(x)", "x is 'a'", "a < b < c", "x == y"]
)
def test_other_tests_say_nothing(text: str) -> None:
    assert paths.dnf(parse_expression(text)) == paths.TRUE
    assert paths.dnf(parse_expression(text), holds=False) == paths.TRUE


def test_consistency() -> None:
    eq_a = paths.Literal("m", "==", "'a'", True)
    eq_b = paths.Literal("m", "==", "'b'", True)
    ne_a = eq_a.negated()
    empty = paths.Literal("m", "==", "''", False)
    flag = paths.Literal("m", "truth", "", True)
    assert paths.consistent([eq_a, flag])
    assert not paths.consistent([eq_a, eq_b])
    assert not paths.consistent([eq_a, ne_a])
    assert paths.consistent([eq_b, ne_a])
    assert not paths.consistent([empty, flag])
    assert not paths.consistent([flag, flag.negated()])


def test_both_drops_what_cannot_hold() -> None:
    numpy = paths.dnf(parse_expression("kind == 'numpy'"))
    torch_ = paths.dnf(parse_expression("kind == 'torch'"))
    assert paths.both(numpy, torch_) == []
    assert paths.both(numpy, paths.TRUE) == numpy


def test_too_many_disjuncts_say_nothing() -> None:
    text = " or ".join(f"k == {i}" for i in range(20))
    assert paths.dnf(parse_expression(text)) == paths.TRUE


def _branch(source: str) -> If:
    module: Module = build(source, ast.parse(source))
    statement = module.body[0]
    assert isinstance(statement, If)
    return statement


def test_a_block_leaves_its_constants_and_loses_what_it_binds() -> None:
    node = _branch(
        "if flag and mode == 'a':\n"
        "    kind = 'numpy'\n"
        "    mode = other()\n"
        "    kind2 = 'x'\n"
        "    kind2 = compute()\n"
    )
    body = node.body.body  # type: ignore[attr-defined]
    after = paths.after_block(paths.dnf(node.test), body)
    assert after == [
        frozenset(
            {
                paths.Literal("flag", "truth", "", True),
                paths.Literal("kind", "==", "'numpy'", True),
            }
        )
    ]
    assert paths.sets_constants(body)


def test_bindings_in_nested_blocks_count_but_not_in_nested_functions() -> None:
    module = build(
        "for i in xs:\n    with open(p) as fh:\n        self.mode = 1\ndef g():\n    inner = 2\n",
        ast.parse(
            "for i in xs:\n"
            "    with open(p) as fh:\n"
            "        self.mode = 1\n"
            "def g():\n"
            "    inner = 2\n"
        ),
    )
    found = paths.binds(module.body)
    assert {"i", "fh", "self.mode", "g"} <= found
    assert "inner" not in found
