"""Write ``tensorlint/analysis/syntax.py`` from LibCST's node classes.

The analysis reads a light syntax tree with LibCST's node and field names
(built from CPython's ``ast``, see ``tensorlint/analysis/from_ast.py``). This
script keeps its classes in step with LibCST's: the same names, the same base
classes, the code-bearing fields in the same order. Run it after a LibCST
upgrade of the oldest supported LibCST (the floor in ``pyproject.toml``),
with that release installed; ``tests/test_syntax.py`` fails when the file is
out of date. A newer LibCST may add fields: the tree ignores them (see
``docs/compatibility.md``).

    pip install -c .ci/constraints/oldest.txt -e .
    python tools/gen_syntax.py > tensorlint/analysis/syntax.py
    ruff format tensorlint/analysis/syntax.py
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import typing

import libcst as cst

#: fields that never hold code (layout, punctuation, comments)
LAYOUT = frozenset(
    {
        "lpar", "rpar", "comma", "dot", "semicolon", "equal", "colon", "star",
        "leading_lines", "lines_after_decorators", "trailing_whitespace", "header",
        "footer", "lbracket", "rbracket", "lbrace", "rbrace", "asynchronous",
        "first_line", "empty_lines", "whitespace", "operator_whitespace",
        "default_indent", "default_newline", "has_trailing_newline", "encoding",
        "posonly_ind", "indent", "whitespace_before_colon", "leading_whitespace",
        "first_colon", "second_colon", "prefix",
    }
)  # fmt: skip
#: code-bearing fields the tree leaves out: PEP 695 type parameter lists (and
#: their PEP 696 defaults) hold type expressions, evaluated lazily, never a
#: value the rules follow. ``from_ast`` and ``from_cst`` both drop them.
NOT_MODELLED = frozenset({"type_parameters"})
#: layout fields the analysis reads, kept as plain attributes (not children)
KEEP = {
    ("Arg", "star"): "str",
    # ``async def``: a grad-mode decorator does not reach its body
    ("FunctionDef", "asynchronous"): "bool",
    ("FormattedStringExpression", "equal"): "bool",
    # LibCST computes these (properties); here they are set once, from ``ast``
    ("SimpleString", "evaluated_value"): "Union[str, bytes]",
    ("ConcatenatedString", "evaluated_value"): "Union[str, bytes, None]",
}

#: the concrete classes CPython's ``ast`` maps to
CONCRETE = """
Module SimpleStatementLine SimpleStatementSuite IndentedBlock Expr Assign AssignTarget
AugAssign AnnAssign Annotation Return Raise Assert Del Pass Break Continue Global Nonlocal
NameItem Import ImportFrom ImportAlias ImportStar AsName FunctionDef Decorator Parameters
Param ClassDef If Else For While Try TryStar ExceptHandler ExceptStarHandler Finally With
WithItem Match MatchCase Name Attribute Call Arg Subscript SubscriptElement Index Slice
BinaryOperation BooleanOperation UnaryOperation Comparison ComparisonTarget IfExp Lambda
NamedExpr Await Yield From Tuple List Set Dict Element StarredElement DictElement
StarredDictElement ListComp SetComp DictComp GeneratorExp CompFor CompIf SimpleString
ConcatenatedString FormattedString FormattedStringText FormattedStringExpression Integer
Float Imaginary Ellipsis ParamStar Dot
Add Subtract Multiply Divide FloorDivide Modulo Power MatrixMultiply LeftShift RightShift
BitOr BitAnd BitXor And Or Not Minus Plus BitInvert Equal NotEqual LessThan LessThanEqual
GreaterThan GreaterThanEqual Is IsNot In NotIn AddAssign SubtractAssign MultiplyAssign
DivideAssign FloorDivideAssign ModuloAssign PowerAssign MatrixMultiplyAssign
LeftShiftAssign RightShiftAssign BitOrAssign BitAndAssign BitXorAssign
""".split()  # noqa: SIM905 (one name per word reads better here)


#: fields every subclass of a base has (declared on the base for the type checker)
SHARED = {"BaseElement": ("value: BaseExpression",)}


def _type(annotation: object) -> str:
    text = str(annotation) if not isinstance(annotation, type) else annotation.__name__
    text = re.sub(r"<class '([\w.]+)'>", lambda m: m.group(1).rsplit(".", 1)[1], text)
    text = re.sub(r"ForwardRef\('(\w+)'\)", r"\1", text)
    text = re.sub(r"libcst\.[\w.]*\.(\w+)", r"\1", text)
    text = text.replace("typing.", "").replace("NoneType", "None")
    text = re.sub(r"\bMaybeSentinel\b", "None", text)
    text = re.sub(r"\bMatchPattern\b", "Optional[CSTNode]", text)
    return text


def _parents(kind: type) -> list[str]:
    """The public base classes of ``kind`` (LibCST's private ones skipped)."""
    public = [
        b
        for b in kind.__mro__[1:]
        if b.__name__ == "CSTNode" or (b.__name__.startswith("Base") and hasattr(cst, b.__name__))
    ]
    direct = [b for b in public if not any(o is not b and issubclass(o, b) for o in public)]
    return [b.__name__ for b in direct] or ["CSTNode"]


def _children(kind: type) -> list[tuple[str, str]]:
    hints = typing.get_type_hints(kind)
    out = []
    for field in dataclasses.fields(kind):
        if field.name in LAYOUT or field.name in NOT_MODELLED:
            continue
        if field.name.startswith("whitespace"):
            continue
        out.append((field.name, _type(hints[field.name])))
    return out


_PLAIN = frozenset({"Optional", "Union", "Literal", "Sequence", "None", "str", "bytes", "bool"})


def _holds_nodes(annotation: str) -> bool:
    words = re.findall(r"[A-Za-z_]\w*", re.sub(r"Literal\[[^\]]*\]", "", annotation))
    return any(word not in _PLAIN for word in words)


def main() -> None:
    print(
        '"""A light read-only syntax tree with LibCST\'s node and field names.\n\n'
        "Generated by ``tools/gen_syntax.py`` from LibCST's classes; do not edit.\n"
        "Nodes are built from CPython's ``ast`` (``from_ast.py``); each holds its\n"
        "span in the source (``src_start``, ``src_end``: character offsets, the node's own\n"
        "parentheses excluded, as LibCST's positions) and ``src_parens`` (how many\n"
        'pairs of its own parentheses surround it)."""\n'
    )
    print("# ruff: noqa: RUF023")
    print("from __future__ import annotations\n")
    print("from collections.abc import Sequence")
    print("from typing import ClassVar, Literal, Optional, Union\n")
    print("#: the LibCST release these classes were generated from (the oldest supported)")
    print(f"LIBCST_VERSION = {importlib.metadata.version('libcst')!r}\n\n")
    print("class CSTNode:")
    print('    __slots__ = ("src_start", "src_end", "src_parens")')
    print("    _children: ClassVar[tuple[str, ...]] = ()")
    print("    src_start: int")
    print("    src_end: int")
    print("    src_parens: int\n\n")
    seen = {"CSTNode"}
    concrete = [getattr(cst, name) for name in CONCRETE]
    bases: list[type] = []
    for kind in concrete:
        for base in reversed(kind.__mro__):
            public = base.__name__.startswith("Base") and hasattr(cst, base.__name__)
            if public and base not in bases:
                bases.append(base)
    for base in bases:
        print(f"class {base.__name__}({', '.join(_parents(base))}):")
        print("    __slots__ = ()")
        for field in SHARED.get(base.__name__, ()):
            print(f"    {field}")
        print("\n")
        seen.add(base.__name__)
    for kind in concrete:
        parents = _parents(kind)
        fields = _children(kind)
        kept = [(name, t) for (k, name), t in KEEP.items() if k == kind.__name__]
        children = [n for n, t in fields if _holds_nodes(t)]
        every = fields + [k for k in kept if k[0] not in dict(fields)]
        print(f"class {kind.__name__}({', '.join(parents)}):")
        print(f"    __slots__ = {tuple(n for n, _ in every)!r}")
        print(f"    _children = {tuple(children)!r}")
        for name, t in every:
            print(f"    {name}: {t}")
        if every:
            args = ", ".join(f"{n}: {t}" for n, t in every)
            print(f"\n    def __init__(self, {args}) -> None:")
            for name, _ in every:
                print(f"        self.{name} = {name}")
        print("\n")
        seen.add(kind.__name__)


if __name__ == "__main__":
    main()
