"""Globs match like the regular expressions they stand for, in linear time."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlint.config import _compile_glob, path_matches
from tensorlint.engine.discovery import parse_gitignore

PATTERN = st.text(alphabet="ab/*?[]!-.", max_size=12)
PATH = st.text(alphabet="ab/.-", max_size=16)


def _fnmatch_regex(pattern: str) -> str:
    """The backtracking translation the matcher replaces (for comparison)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            j = i
            while j < len(pattern) and pattern[j] == "*":
                j += 1
            at_start = i == 0 or pattern[i - 1] == "/"
            if j - i >= 2 and at_start and j < len(pattern) and pattern[j] == "/":
                out.append("(?:.*/)?")
                j += 1
            else:
                out.append(".*")
            i = j
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if pattern[i + 1 : i + 2] == "]" or close < 0:
                out.append(re.escape(char))  # keep the comparison to simple classes
                i += 1
                continue
            body = pattern[i + 1 : close]
            negated = body[:1] in ("!", "^")
            body = re.sub(r"([\\\[\]&~|^])", r"\\\1", body[1:] if negated else body)
            out.append(f"[^{body}]" if negated else f"[{body}]")
            i = close + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


@settings(max_examples=400, deadline=None)
@given(PATTERN, PATH)
def test_a_glob_matches_what_its_regular_expression_matches(pattern: str, path: str) -> None:
    try:
        expected = re.fullmatch(_fnmatch_regex(pattern), path, re.DOTALL) is not None
    except re.error:
        return  # reversed ranges: the matcher takes the pattern literally
    if "[]" in pattern or "[!]" in pattern or "[^]" in pattern:
        return  # a leading ']' in a class is literal: the simple reference differs
    assert _compile_glob(pattern).fullmatch(path) == expected


def test_double_star_slash_spans_whole_directories_only() -> None:
    assert path_matches("**/legacy/*.py", "legacy/old.py")
    assert path_matches("**/legacy/*.py", "a/b/legacy/old.py")
    assert not path_matches("**/legacy/*.py", "a/notlegacy/old.py")
    (rule,) = parse_gitignore("docs/**/build\n")
    assert rule.matches("docs/a/b/build", True) and rule.matches("docs/build", True)
    assert not rule.matches("docs/abuild", True)
    (unanchored,) = parse_gitignore("*.tmp\n")
    assert unanchored.matches("a/b/c.tmp", False) and not unanchored.matches("a/c.tmpx", False)


def test_a_pattern_that_backtracks_exponentially_in_a_regex_finishes() -> None:
    # ``.*a.*a.*a...b`` against a long run of 'a': a backtracking regex needs
    # hours here; the matcher needs (path x pattern) steps. Run it in a child
    # with a hard limit so a regression fails instead of hanging the suite.
    code = (
        "from tensorlint.config import path_matches\n"
        "from tensorlint.engine.discovery import parse_gitignore\n"
        "p = 'x/' + 'a' * 2000 + '.py'\n"
        "assert not path_matches('*a*a*a*a*a*a*a*a*a*a*b', p)\n"
        "(r,) = parse_gitignore('*a*a*a*a*a*a*a*a*a*a*b\\n')\n"
        "assert not r.matches(p, False)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
