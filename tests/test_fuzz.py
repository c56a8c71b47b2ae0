"""Fuzzing: mutated fixture files and generated programs never crash check
or fix, and fixes settle.

Two sources of examples: a fixture case mutated at the token level (delete,
duplicate or swap tokens, splice in conversion-shaped snippets), and a
program hypothesmith generates from Python's grammar with torch imports and
conversion calls injected (method calls on its names, conversion statements
between its top-level statements). Each is checked and fixed: only a clean
``LintError`` (bad syntax) may come out, a fixed text must parse, and fixing
it again must change nothing. ``TENSORLINT_FUZZ_EXAMPLES`` sets the budget
per test and profile (CI keeps it small; the long run in the closing notes
used 10,000).
"""

from __future__ import annotations

import ast
import contextlib
import io
import keyword
import os
import tokenize

import hypothesmith
import libcst
import pytest
from fixture_cases import all_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensorlint.analysis.pytree import python_tree
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.fix.apply import fix_source
from tensorlint.registry import select
from tensorlint.rule import Settings

EXAMPLES = int(os.environ.get("TENSORLINT_FUZZ_EXAMPLES", "300"))
#: generated programs cost ~0.1 s each (grammar-driven generation): fewer in CI
GENERATED = int(os.environ.get("TENSORLINT_FUZZ_EXAMPLES", "60"))
SOURCES = sorted({case.source for case in all_cases()})
SNIPPETS = [
    ".numpy()", ".cuda()", ".cpu()", ".detach()", "torch.from_numpy(a)", "np.asarray(t)",
    "(", ")", "[", "]", ",", "\n", "    ", "=", "+=", "t", "a", "*", "**", ":",
    "with torch.no_grad():\n", "global t\n", "f'{t.numpy()=}'", 'f"{t.numpy()}"',
    "lambda t: t.numpy()", "async def g(t):\n    return t.numpy()\n", "yield", "\\\n",
    "# noqa: TL101", "'''", "del t\n", "nonlocal t\n", "t[...] = 0\n", "@torch.no_grad()\n",
]  # fmt: skip
SETTINGS = [
    Settings(enabled=select(strict=True)),
    Settings(enabled=select(strict=True), numpy_idiom="exact-copy", library=False),
    Settings(enabled=select(), numpy_idiom="force", assume_torch=True),
]


Token = tuple[int, str]


def _tokens(source: str) -> list[Token]:
    try:
        found = tokenize.generate_tokens(io.StringIO(source).readline)
        return [(t.type, t.string) for t in found]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [(tokenize.NAME, part) for part in source.split(" ")]


def _snippet(text: str) -> Token:
    return (tokenize.NEWLINE if text == "\n" else tokenize.OP, text)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    source = draw(st.sampled_from(SOURCES))
    tokens = _tokens(source)
    for _ in range(draw(st.integers(1, 3))):
        if not tokens:
            break
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "rename", "call"]))
        at_names = [
            j for j, (kind, text) in enumerate(tokens)
            if kind == tokenize.NAME and not keyword.iskeyword(text)
        ]  # fmt: skip
        names = [tokens[j][1] for j in at_names]
        if op in ("rename", "call") and at_names:
            i = draw(st.sampled_from(at_names))  # mutations that keep the syntax
        else:
            i = draw(st.integers(0, len(tokens) - 1))
            op = "insert" if op in ("rename", "call") else op
        if op == "rename":  # keeps the syntax: another name of the same file
            tokens[i] = (tokenize.NAME, draw(st.sampled_from(names)))
        elif op == "call":  # keeps the syntax: a method call on a name
            method = draw(st.sampled_from(["numpy", "cuda", "cpu", "detach", "clone", "data"]))
            tokens[i + 1 : i + 1] = [(tokenize.OP, "."), (tokenize.NAME, method)] + (
                [] if method == "data" else [(tokenize.OP, "("), (tokenize.OP, ")")]
            )
        elif op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        elif op == "swap" and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        else:
            tokens.insert(i, _snippet(draw(st.sampled_from(SNIPPETS))))
    try:
        return str(tokenize.untokenize(tokens))
    except (ValueError, TypeError, IndexError):  # e.g. a dedent with nothing to close
        return " ".join(text for _, text in tokens)


def _check_and_fix(source: str, config: Settings) -> None:
    try:
        lint_source(source, config)
    except LintError:
        return
    fixed = fix_source(source, config, unsafe=True)
    if fixed.source != source:
        # a fix never leaves code that cannot parse: Python's parser, or
        # LibCST's for syntax newer than the running Python (as the check's)
        if python_tree(source) is not None:
            ast.parse(fixed.source)
        else:
            libcst.parse_module(fixed.source)
        again = fix_source(fixed.source, config, unsafe=True)
        assert again.source == fixed.source


#: statements injected between a generated program's top-level statements
INJECTED = [
    "t = torch.from_numpy(a)\n", "t.add_(1)\n", "a = t.numpy()\n", "a = t.cuda().numpy()\n",
    "a[0] = 1\n", "t = torch.as_tensor(a)\n", "b = np.asarray(t)\n", "t = t.to('cuda')\n",
    "t.requires_grad_()\n", "with torch.no_grad():\n    a = t.numpy()\n",
    "def h(t):\n    return t.numpy()\n", "def g(a):\n    return torch.from_numpy(a)\n",
    "a = g(a)\n", "a += 1\n", "global t\n",
]  # fmt: skip
HEADER = "import numpy as np\nimport torch\n"
PROGRAMS = hypothesmith.from_grammar()  # built once: it compiles Python's grammar


@st.composite
def generated(draw: st.DrawFn) -> str:
    """A hypothesmith program with torch imports and conversions injected."""
    program = draw(PROGRAMS)
    tokens = _tokens(program)
    names = [
        j for j, (kind, text) in enumerate(tokens)
        if kind == tokenize.NAME and not keyword.iskeyword(text)
    ]  # fmt: skip
    for _ in range(draw(st.integers(0, 3)) if names else 0):
        i = draw(st.sampled_from(names))  # a method call on a name keeps the syntax
        method = draw(st.sampled_from(["numpy", "cuda", "cpu", "detach", "clone"]))
        tokens[i] = (tokenize.NAME, f"{tokens[i][1]}.{method}()")
    if names:
        with contextlib.suppress(ValueError, TypeError, IndexError):
            program = str(tokenize.untokenize(tokens))
    lines = program.splitlines(keepends=True)
    tops = [n for n, line in enumerate(lines) if line[:1].strip() and line[:1] != "#"]
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.sampled_from([*tops, len(lines)]))
        lines.insert(at, draw(st.sampled_from(INJECTED)))
        tops = [n + (n >= at) for n in tops]
    return HEADER + "".join(lines)


def _budget(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.mark.parametrize("profile", range(len(SETTINGS)))
@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # generated code is odd on purpose
@_budget(GENERATED)
@given(source=generated())
def test_generated_programs_never_crash_and_fixes_settle(profile: int, source: str) -> None:
    _check_and_fix(source, SETTINGS[profile])


@pytest.mark.parametrize("profile", range(len(SETTINGS)))
@_budget(EXAMPLES)
@given(source=mutated())
def test_mutated_sources_never_crash_and_fixes_settle(profile: int, source: str) -> None:
    _check_and_fix(source, SETTINGS[profile])
