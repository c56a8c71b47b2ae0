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
from collections.abc import Iterator, Sequence
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
    with the number of lines before it. A piece is generated only when a
    position in it is asked for: most pieces of a file never are. ``hint``
    names the top-level statement the next questions are about.
    """

    def __init__(self, pieces: Sequence[tuple[cst.Module, str, int]]) -> None:
        self._pieces = list(pieces)
        self._done: set[int] = set()
        self._spans: dict[cst.CSTNode, tuple[int, int]] = {}
        self._where: dict[cst.CSTNode, tuple[list[int], int]] = {}
        self._piece_of = {
            id(statement): index
            for index, (module, _, _) in enumerate(self._pieces)
            for statement in module.body
        }
        self.hint: Optional[cst.CSTNode] = None

    def _generate(self, index: int) -> None:
        module, text, line_offset = self._pieces[index]
        self._done.add(index)
        state = _OffsetState(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        module._codegen(state)
        starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        self._spans.update(state.spans)
        frame = (starts, line_offset)
        for node in state.spans:
            self._where[node] = frame

    def _span(self, node: cst.CSTNode) -> tuple[int, int]:
        span = self._spans.get(node)
        if span is not None:
            return span
        hinted = self._piece_of.get(id(self.hint)) if self.hint is not None else None
        order = [hinted] if hinted is not None else []
        order += [i for i in range(len(self._pieces)) if i != hinted]
        for index in order:
            if index not in self._done:
                self._generate(index)
                span = self._spans.get(node)
                if span is not None:
                    return span
        raise KeyError(node)

    def _position(self, node: cst.CSTNode, offset: int) -> tuple[int, int]:
        starts, line_offset = self._where[node]
        line = bisect.bisect_right(starts, offset)
        return line + line_offset, offset - starts[line - 1]

    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._position(node, self._span(node)[0])

    def end(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._position(node, self._span(node)[1])
