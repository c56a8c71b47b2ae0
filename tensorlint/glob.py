"""Glob patterns matched in time linear in the path.

A pattern like ``*a*a*a*a*a*a*a*b`` translated to a regular expression makes
Python's backtracking engine take seconds on one short path. Here a pattern is
a list of tokens and a path is matched by keeping the set of tokens reached
so far (a Thompson simulation): at most (path length x pattern length) steps,
whatever the pattern. Used by the ``exclude`` / ``per-file-ignores`` globs of
the configuration and by ``.gitignore`` patterns in discovery.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, Union

#: ``*`` in an fnmatch-style glob: any run of characters, ``/`` included
ANY = "any"
#: ``*`` in a ``.gitignore`` pattern: any run of characters but ``/``
SEGMENT = "segment"
#: ``**/``: nothing, or any run of characters that ends with ``/``
DIRS = "dirs"
#: ``?``: one character but ``/``
ONE = "one"

_REPEATING = frozenset({ANY, SEGMENT, DIRS})

#: a literal character, one of the kinds above, or a one-character class
Token = Union[str, "CharClass"]


class CharClass(NamedTuple):
    """``[a-z]``, ``[!0-9]``: one character the compiled class accepts."""

    regex: re.Pattern[str]

    @classmethod
    def of(cls, body: str, negated: bool, slash: bool = True) -> CharClass:
        """The class of ``body`` (already escaped); ValueError if it is invalid
        (a reversed range). ``slash=False`` makes it never match ``/``."""
        source = f"[^{'' if slash else '/'}{body}]" if negated else f"[{body}]"
        try:
            regex = re.compile(source, re.DOTALL)
        except re.error as error:
            raise ValueError(str(error)) from error
        if not slash and not negated:
            return cls(re.compile(f"(?!/){source}", re.DOTALL))
        return cls(regex)

    def accepts(self, char: str) -> bool:
        return self.regex.fullmatch(char) is not None


class Glob:
    """A compiled pattern: ``fullmatch(path)`` in linear time."""

    __slots__ = ("_needles", "_prefix", "_tokens", "suffix")

    def __init__(self, tokens: Sequence[Token]) -> None:
        self._tokens = tuple(tokens)
        # the literal runs every match contains: most paths lack one, and a
        # substring test says so at C speed before the token walk starts
        runs: list[str] = [""]
        for token in self._tokens:
            if _is_literal(token):
                runs[-1] += str(token)
            elif runs[-1]:
                runs.append("")
        self._needles = tuple(sorted((r for r in runs if r), key=len, reverse=True))
        starts = bool(self._tokens) and _is_literal(self._tokens[0])
        ends = bool(self._tokens) and _is_literal(self._tokens[-1])
        self._prefix = runs[0] if starts else ""
        #: the literal text every match ends with ("" when it ends with a wildcard)
        self.suffix = runs[-1] if ends else ""

    def _closure(self, states: set[int]) -> set[int]:
        """Add what a repeating token reached without consuming anything."""
        tokens = self._tokens
        stack = [i for i in states if i >= 0]
        while stack:
            i = stack.pop()
            if i < len(tokens) and tokens[i] in _REPEATING and i + 1 not in states:
                states.add(i + 1)
                stack.append(i + 1)
        return states

    def fullmatch(self, text: str) -> bool:
        """Does the whole of ``text`` match? States are token indexes; ``~i``
        is "inside the run of the ``**/`` at ``i``" (only a ``/`` ends it)."""
        if not (text.startswith(self._prefix) and text.endswith(self.suffix)):
            return False
        if not all(needle in text for needle in self._needles):
            return False
        tokens = self._tokens
        end = len(tokens)
        states = self._closure({0})
        for char in text:
            reached: set[int] = set()
            for i in states:
                if i < 0:
                    reached.add(i)
                    if char == "/":
                        reached.add(~i + 1)
                    continue
                if i == end:
                    continue
                token = tokens[i]
                if isinstance(token, CharClass):
                    if token.accepts(char):
                        reached.add(i + 1)
                elif token == ANY:
                    reached.add(i)
                elif token == SEGMENT:
                    if char != "/":
                        reached.add(i)
                elif token == DIRS:
                    reached.add(~i)
                    if char == "/":
                        reached.add(i + 1)
                elif token == ONE:
                    if char != "/":
                        reached.add(i + 1)
                elif token == char:
                    reached.add(i + 1)
            if not reached:
                return False
            states = self._closure(reached)
        return end in states


def _is_literal(token: Token) -> bool:
    """A one-character token is a literal (kind names are longer)."""
    return isinstance(token, str) and len(token) == 1


def literal(text: str) -> list[Token]:
    """Tokens matching ``text`` exactly (kind names are longer than one
    character, so a one-character token is always a literal)."""
    return list(text)
