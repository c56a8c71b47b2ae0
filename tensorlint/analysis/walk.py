"""A fast read-only walk over the analysis tree (``syntax``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Optional, Union, overload

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


def own_statements(function: syntax.FunctionDef | syntax.Module) -> Iterator[syntax.CSTNode]:
    """The statements of ``function``'s body (or a module's), those of nested
    blocks included, not those of the functions and classes it defines (nor
    their ``def``)."""
    stack: list[syntax.CSTNode] = [
        function.body if isinstance(function, syntax.FunctionDef) else function
    ]
    while stack:
        node = stack.pop()
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.BaseExpression)):
            continue
        if not isinstance(node, (syntax.BaseSuite, syntax.Module)):
            yield node
        stack.extend(children(node))


class Ancestors(Sequence[syntax.CSTNode]):
    """The nodes above a node, outermost first: a tuple that shares its
    outer part with the ancestors of every other node below the same parent.

    One per node of a path, made when a node below it is recorded: the sites
    of a 20,000-term ``a and b and ...`` chain hold 20,000 of them, where a
    tuple per site held 200 million references (1.6 GB). Reading from the
    innermost end (``reversed``, ``[-1]``, stepping down an index) costs the
    steps taken; reading from the outermost end costs the length.
    """

    __slots__ = ("_cursor", "_length", "_node", "_up")

    def __init__(
        self, node: Optional[syntax.CSTNode] = None, up: Optional[Ancestors] = None
    ) -> None:
        self._node = node
        self._up = up
        self._length: int = 0 if node is None else (len(up) if up is not None else 0) + 1
        #: the last link read by index (not this one), and its index: stepping
        #: down from it is cheap
        self._cursor: Optional[tuple[int, Ancestors]] = None

    def __len__(self) -> int:
        return self._length

    def __reversed__(self) -> Iterator[syntax.CSTNode]:
        link: Optional[Ancestors] = self
        while link is not None and link._node is not None:
            yield link._node
            link = link._up

    def __iter__(self) -> Iterator[syntax.CSTNode]:
        nodes = list(reversed(self))
        nodes.reverse()
        return iter(nodes)

    def __contains__(self, value: object) -> bool:
        return any(node is value or node == value for node in reversed(self))

    @overload
    def __getitem__(self, index: int) -> syntax.CSTNode: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[syntax.CSTNode]: ...

    def __getitem__(
        self, index: Union[int, slice]
    ) -> Union[syntax.CSTNode, Sequence[syntax.CSTNode]]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("ancestor index out of range")
        at, link = self._length - 1, self
        if self._cursor is not None and index <= self._cursor[0]:
            at, link = self._cursor
        while at > index:
            assert link._up is not None
            at, link = at - 1, link._up
        if link is not self:
            self._cursor = (at, link)
        assert link._node is not None
        return link._node

    def below(self, node: syntax.CSTNode) -> Ancestors:
        """These ancestors and ``node``: the ancestors of a child of ``node``."""
        return Ancestors(node, self if self._node is not None else None)


#: the ancestors of the root
NO_ANCESTORS = Ancestors()
