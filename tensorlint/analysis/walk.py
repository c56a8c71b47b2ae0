"""A fast read-only walk over LibCST trees.

LibCST's visitor rebuilds every node it leaves (``_visit_and_replace_children``),
which costs more than parsing. The analysis only reads the tree, so it walks the
dataclass fields directly, skipping whitespace, comments and punctuation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst

#: Fields that never hold code (layout, punctuation, comments).
_LAYOUT_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "dot", "semicolon", "equal", "colon", "star",
        "leading_lines", "lines_after_decorators", "trailing_whitespace", "header",
        "footer", "lbracket", "rbracket", "lbrace", "rbrace", "asynchronous",
        "first_line", "empty_lines", "whitespace", "operator_whitespace",
    }
)  # fmt: skip

_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(kind)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[kind] = names
    return names


#: Field value types that are not nodes (``isinstance`` on LibCST's ABCs is slow,
#: so the walk tests exact types).
_NOT_NODES = frozenset({type(None), str, bool, int, cst.MaybeSentinel})


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The code-bearing children of ``node``, in field order."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:
                if type(item) not in _NOT_NODES:
                    yield item
        elif kind not in _NOT_NODES:
            yield value
