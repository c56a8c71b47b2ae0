"""Line and column of nodes, from the character offsets each node holds."""

from __future__ import annotations

import bisect

from tensorlint.analysis import syntax
from tensorlint.analysis.from_ast import Builder


class Positions:
    """(line, column) of node starts and ends; line 1-based, column 0-based,
    in characters. A node's own parentheses are left out, as in LibCST's
    positions; ``outer_*`` take them in."""

    def __init__(self, source: str) -> None:
        self._scan = Builder(source)
        self.source = source

    def _position(self, offset: int) -> tuple[int, int]:
        starts = self._scan.line_starts
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1]

    def start(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self._position(node.src_start)

    def end(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self._position(node.src_end)

    def outer_start(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self._position(self._scan.outer(node)[0])

    def outer_end(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self._position(self._scan.outer(node)[1])

    def code(self, node: syntax.CSTNode) -> str:
        """The node's text, its own parentheses included (as LibCST's code generation)."""
        start, end = self._scan.outer(node)
        return self.source[start:end]
