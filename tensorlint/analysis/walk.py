"""A fast read-only walk over the analysis tree (``syntax``)."""

from __future__ import annotations

from collections.abc import Iterator

from tensorlint.analysis import syntax


def children(node: syntax.CSTNode) -> Iterator[syntax.CSTNode]:
    """The code-bearing children of ``node``, in LibCST's field order."""
    for name in node._children:
        value = getattr(node, name)
        if value is None:
            continue
        if type(value) is list:
            yield from value
        else:
            yield value
