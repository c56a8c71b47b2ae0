"""Build the analysis tree (``syntax``) from a LibCST module.

Used where CPython cannot parse a file that LibCST can (syntax newer than
the running interpreter), and by the tests, which check that both builders
give the same tree. The node classes share LibCST's names and fields, so
the conversion copies the code-bearing fields; spans come from one light
code generation pass (a node's own parentheses excluded, as LibCST's
positions).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState

from tensorlint.analysis import syntax as S


@dataclass(frozen=False)
class _OffsetState(CodegenState):
    offset: int = 0
    spans: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
    starts: list[int] = field(default_factory=list)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        if node not in self.spans:
            self.spans[node] = (start, self.offset)

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> Iterator[None]:
        start = self.offset
        try:
            yield
        finally:
            end = self.offset
            if start_node is not None:
                start = self.spans[start_node][0]
            if end_node is not None:
                end = self.spans[end_node][1]
            self.spans[node] = (start, end)


def spans(module: cst.Module) -> dict[cst.CSTNode, tuple[int, int]]:
    """Every node's (start, end) character offsets in ``module.code``."""
    state = _OffsetState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    module._codegen(state)
    return state.spans


def build(module: cst.Module) -> S.Module:
    """The analysis tree of a LibCST module (offsets in ``module.code``)."""
    where = spans(module)

    def _at(made: Any, node: cst.CSTNode) -> Any:
        made.src_start, made.src_end = where.get(node, (0, 0))
        lpar = getattr(node, "lpar", ())  # (a ``class`` statement's is one node)
        made.src_parens = len(lpar) if isinstance(lpar, (list, tuple)) else 0
        return made

    def convert(node: Any) -> Any:
        kind = getattr(S, type(node).__name__, None)
        if kind is None and isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            # a statement kind the tree does not model (``type X = ...``): a
            # ``pass`` in its place, as ``from_ast`` makes
            made = _at(S.Pass(), node)
            if isinstance(node, cst.BaseCompoundStatement):
                made = _at(S.SimpleStatementLine([made]), node)
            return made
        if kind is None or not isinstance(node, cst.CSTNode):
            return None
        values = []
        for name in kind.__slots__:
            if name in ("equal", "asynchronous"):  # (a LibCST node, or None)
                value: Any = getattr(node, name, None) is not None
            elif name == "evaluated_value":
                value = node.evaluated_value  # type: ignore[attr-defined]
            else:
                value = getattr(node, name, None)
                if isinstance(value, (list, tuple)):
                    value = [v for v in map(convert, value) if v is not None]
                elif isinstance(value, cst.CSTNode):
                    value = convert(value)
                elif not isinstance(value, (str, type(None))):
                    value = None
            values.append(value)
        return _at(kind(*values) if kind.__slots__ else kind(), node)

    result = convert(module)
    assert isinstance(result, S.Module)
    return result
