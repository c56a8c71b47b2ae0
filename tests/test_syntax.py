"""The analysis tree keeps LibCST's node names and field order, and CPython's
tree converts to the same shape LibCST's does."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import re
from pathlib import Path

import libcst as cst
import pytest
from repo_tools import load_tool

from tensorlint.analysis import from_ast, from_cst, syntax
from tensorlint.analysis.pytree import python_tree

ROOT = Path(__file__).resolve().parent.parent


def _generator():  # type: ignore[no-untyped-def]
    return load_tool("gen_syntax")


INSTALLED = importlib.metadata.version("libcst")


@pytest.mark.skipif(
    INSTALLED != syntax.LIBCST_VERSION,
    reason=f"syntax.py was generated from LibCST {syntax.LIBCST_VERSION}, LibCST {INSTALLED} "
    "is installed (CI's oldest-versions leg installs the generator's release)",
)
def test_the_node_classes_are_in_step_with_libcst() -> None:
    gen = _generator()
    for name in gen.CONCRETE:
        fields = [n for n, _ in gen._children(getattr(cst, name))]
        made = getattr(syntax, name)
        assert list(made.__slots__)[: len(fields)] == fields, name


def test_every_field_the_tree_copies_is_on_the_installed_libcst() -> None:
    # any LibCST: it may add fields (ignored), never drop or reorder ours;
    # ``from_cst`` reads a field LibCST no longer has as None, silently
    gen = _generator()
    computed = {field for _, field in gen.KEEP}
    for name in gen.CONCRETE:
        kind = getattr(cst, name)
        theirs = [f.name for f in dataclasses.fields(kind)]
        ours = [f for f in getattr(syntax, name).__slots__ if f not in computed]
        assert [f for f in theirs if f in ours] == ours, name
        for field in computed & set(getattr(syntax, name).__slots__):
            assert hasattr(kind, field), (name, field)


def test_the_tree_is_generated_from_the_oldest_supported_libcst() -> None:
    # the oldest-versions leg of CI installs this release, so the in-step
    # test above runs there; the floor, the constraint and the tree agree
    project = (ROOT / "pyproject.toml").read_text()
    dependencies = project.split("dependencies = [", 1)[1].split("]", 1)[0]
    floors = dict(re.findall(r'"([\w-]+)>=([\d.]+)', dependencies))
    assert set(floors) == {"libcst", "tomli"}
    pins = (ROOT / ".ci" / "constraints" / "oldest.txt").read_text()
    assert dict(re.findall(r"^([\w-]+)==([\d.]+)$", pins, re.M)) == floors
    assert floors["libcst"] == syntax.LIBCST_VERSION


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
    compared = 0
    for path in paths:
        source = path.read_text()
        if "f'" in source or 'f"' in source:
            continue
        tree = python_tree(source)
        if tree is None:  # newer syntax than this interpreter's: LibCST builds it
            continue  # (CI's newest-Python leg compares it)
        a: list[str] = []
        b: list[str] = []
        _shape(from_ast.build(source, tree), a)
        _shape(from_cst.build(cst.parse_module(source)), b)
        assert a == b, path
        compared += 1
    assert compared > 100
