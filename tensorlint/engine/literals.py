"""Words a regular expression's every match contains, for a fast prefilter.

``re`` scans slowly for an alternation whose branches do not start with a
literal (``\\b(?:as)?array\\s*\\(|\\.numpy\\s*\\(``): it tries every branch at
every position. A substring test (``"array" in text``) runs at memory speed.
``required_words`` reads the words out of the pattern with the parser of the
``re`` module itself; when it cannot be sure (flags, a branch without a
literal run, a parser it does not know), it answers None and the caller
runs the pattern alone.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable
from typing import Any, Optional

#: shorter runs screen out too little to be worth a test
_MIN_WORD = 3


def required_words(patterns: Iterable[str]) -> Optional[frozenset[str]]:
    """Words such that every match of any of ``patterns`` contains one of
    them; None when that cannot be established."""
    try:
        parser: Any = importlib.import_module("re._parser")
    except ImportError:  # Python < 3.11
        parser = importlib.import_module("sre_parse")
    words: set[str] = set()
    for pattern in patterns:
        try:
            parsed = parser.parse(pattern)
        except Exception:  # a private API: any surprise means "unknown"
            return None
        if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
            return None
        found = _words(list(parsed))
        if found is None:
            return None
        words |= found
    return frozenset(words)


def _words(items: list[tuple[Any, Any]]) -> Optional[set[str]]:
    """Words one of which a match of the sequence ``items`` contains: its
    longest literal run, or the words of an alternation or group in it
    (each is matched exactly once)."""
    best: Optional[set[str]] = None
    run: list[str] = []
    for op, value in [*items, (None, None)]:
        kind = str(op)
        if kind == "LITERAL":
            run.append(chr(value))
            continue
        candidates = [{"".join(run)}] if len(run) >= _MIN_WORD else []
        run = []
        if kind == "BRANCH":
            branches = [_words(list(branch)) for branch in value[1]]
            if all(words is not None for words in branches):
                candidates.append(set().union(*branches))  # type: ignore[arg-type]
        elif kind == "SUBPATTERN" and not value[1] & re.IGNORECASE:
            inner = _words(list(value[-1]))
            if inner is not None:
                candidates.append(inner)
        for words in candidates:
            if best is None or min(map(len, words)) > min(map(len, best)):
                best = words
    return best
