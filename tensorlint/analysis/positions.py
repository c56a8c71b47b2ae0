"""Node positions from one light code generation pass.

LibCST's ``PositionProvider`` splits every token with a regex and builds a
``CodeRange`` for every node; it costs more than the analysis itself. This
state counts characters only and keeps plain ``(start, end)`` offsets; the few
positions a report needs are turned into line and column afterwards. The
syntactic ranges are the same as ``PositionProvider``'s (a node's own
parentheses and surrounding whitespace excluded).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n|\r|\n")


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


class Positions:
    """(line, column) of node starts and ends; line 1-based, column 0-based.

    Built from one or more parsed pieces of a file (see ``parse.py``), each
    with the number of lines before it.
    """

    def __init__(self, pieces: Iterable[tuple[cst.Module, str, int]]) -> None:
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._where: dict[cst.CSTNode, tuple[list[int], int]] = {}
        for module, text, line_offset in pieces:
            state = _OffsetState(
                default_indent=module.default_indent, default_newline=module.default_newline
            )
            module._codegen(state)
            starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
            self._spans.update(state.spans)
            frame = (starts, line_offset)
            for node in state.spans:
                self._where[node] = frame

    def _position(self, node: cst.CSTNode, offset: int) -> tuple[int, int]:
        starts, line_offset = self._where[node]
        line = bisect.bisect_right(starts, offset)
        return line + line_offset, offset - starts[line - 1]

    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._position(node, self._spans[node][0])

    def end(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._position(node, self._spans[node][1])
