"""The analysis tree keeps LibCST's node names and field order, and CPython's
tree converts to the same shape LibCST's does."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import libcst as cst

from tensorlint.analysis import from_ast, from_cst, syntax

ROOT = Path(__file__).resolve().parent.parent


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_syntax", ROOT / "tools" / "gen_syntax.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_node_classes_are_in_step_with_libcst() -> None:
    gen = _generator()
    for name in gen.CONCRETE:
        fields = [n for n, _ in gen._children(getattr(cst, name))]
        made = getattr(syntax, name)
        assert list(made.__slots__)[: len(fields)] == fields, name


def _shape(node: object, out: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _shape(item, out)
    elif isinstance(node, syntax.CSTNode):
        plain = {k: getattr(node, k) for k in node.__slots__ if k not in node._children}
        if isinstance(node, syntax.FormattedStringText):
            plain.pop("value")  # LibCST keeps the escapes, CPython the evaluated text
        out.append(f"{type(node).__name__} {sorted(plain.items())}")
        for name in node._children:
            _shape(getattr(node, name), out)


def test_cpython_and_libcst_trees_have_the_same_shape() -> None:
    # the parts of f-strings and implicit concatenations are where the two
    # parsers differ in ways the analysis never reads; every other node and
    # field must be the same, in the same order
    paths = [
        *sorted((ROOT / "fixtures").glob("TL*/*.py")),
        ROOT / "tensorlint" / "analysis" / "flow.py",
    ]
    for path in paths:
        source = path.read_text()
        if "f'" in source or 'f"' in source:
            continue
        a: list[str] = []
        b: list[str] = []
        _shape(from_ast.build(source, ast.parse(source)), a)
        _shape(from_cst.build(cst.parse_module(source)), b)
        assert a == b, path
