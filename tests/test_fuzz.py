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

A third source, fixture cases with noqa-shaped comments appended to their
lines and statements with noqa text in strings or a conversion inside an
f-string's braces, exercises ``--add-noqa`` and TL900's fix: neither changes
the syntax tree, both settle at once, and what they write still parses on
the oldest Python the package declares (compiled there, never run).
"""

from __future__ import annotations

import ast
import contextlib
import io
import keyword
import os
import tokenize
from collections.abc import Iterator
from typing import Optional

import hypothesmith
import libcst
import pytest
from declared_pythons import NAME, OldestPython, find_oldest
from fixture_cases import all_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tensorlint.analysis.pytree import parse, python_tree
from tensorlint.baseline import add_noqa
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.fix.apply import apply_edits, fix_source
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


#: appended to lines: noqa directives in any case, with words or another
#: comment after them, other tools' codes, a bare noqa, a plain comment
COMMENTS = [
    "  # noqa: TL101", "  # noqa: TL101 - reviewed", "  # NOQA:TL102,E501",
    "  # noqa: e501 ,  TL1", "  # type: ignore  # noqa: TL211", "  # noqa", "  # note",
    "  # noqa: TL101, TL102, TL211  # why", "  # noqa: TL999", "  # NoQA: tl102",
]  # fmt: skip
#: statements inserted: noqa text in strings, a conversion inside an
#: f-string's braces (no comment there before 3.12), a continuation
NOQA_STATEMENTS = [
    "s = '# noqa: TL101'; a = t.numpy()\n", 's = """\n# noqa: TL101\n"""; a = t.numpy()\n',
    's = f"""{\n    t.numpy()\n} and {t.cuda().numpy()}"""\n', "a = t.numpy() + \\\n    1\n",
    "a = (t.numpy(),  # noqa: TL102\n     t.numpy())\n",
    "a = t.numpy()  # noqa: TL101 - reviewed\n",
    's = f"{d["# noqa"]}"; a = t.numpy()\n',  # (Python 3.12 on: an f-string lexed in parts)
]  # fmt: skip


@st.composite
def commented(draw: st.DrawFn) -> str:
    """A fixture case with noqa-shaped comments and statements added."""
    lines = draw(st.sampled_from(SOURCES)).splitlines(keepends=True)
    tops = [n for n, line in enumerate(lines) if line[:1].strip() and line[:1] != "#"]
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.sampled_from([*tops, len(lines)]))
        lines.insert(at, draw(st.sampled_from(NOQA_STATEMENTS)))
        tops = [n + (n >= at) for n in tops]
    for _ in range(draw(st.integers(1, 4)) if lines else 0):
        at = draw(st.integers(0, len(lines) - 1))
        body = lines[at].rstrip("\r\n")
        lines[at] = body + draw(st.sampled_from(COMMENTS)) + lines[at][len(body) :]
    return "".join(lines)


@pytest.fixture(scope="module")
def oldest() -> Iterator[Optional[OldestPython]]:
    """The oldest declared Python, or None (its checks are skipped, see below)."""
    executable = find_oldest()
    python = OldestPython(executable) if executable is not None else None
    yield python
    if python is not None:
        python.close()


def _same_tree(old: str, new: str) -> None:
    assert ast.dump(parse(new)) == ast.dump(parse(old))


def _parses_where_it_did(old: str, new: str, oldest: Optional[OldestPython]) -> None:
    if oldest is not None and new != old and oldest.error(old) is None:
        assert oldest.error(new) is None, new


def _baseline_and_burn_down(source: str, config: Settings, oldest: Optional[OldestPython]) -> None:
    try:
        found = lint_source(source, config)
    except LintError:
        return
    if python_tree(source) is None:
        return  # newer syntax than ours: --add-noqa leaves it (nothing to compare)
    baseline = add_noqa(source, found)
    _same_tree(source, baseline.text)
    _parses_where_it_did(source, baseline.text, oldest)
    # settles at once: the findings now left get nothing more
    assert add_noqa(baseline.text, lint_source(baseline.text, config)).text == baseline.text
    # TL900's fix alone (where the profile enables it): comments only, settled at once
    burned, _ = apply_edits(source, [d for d in found if d.code == "TL900"])
    _same_tree(source, burned)
    _parses_where_it_did(source, burned, oldest)
    again = [d for d in lint_source(burned, config) if d.code == "TL900"]
    assert apply_edits(burned, again)[0] == burned


#: each example lints four times and compiles up to four texts on the oldest Python
BASELINES = int(os.environ.get("TENSORLINT_FUZZ_EXAMPLES", "100"))


@pytest.mark.parametrize("profile", range(len(SETTINGS)))
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@_budget(BASELINES)
@given(source=commented())
def test_add_noqa_and_tl900_fix_keep_the_code_and_settle(
    profile: int, source: str, oldest: Optional[OldestPython]
) -> None:
    _baseline_and_burn_down(source, SETTINGS[profile], oldest)


def test_the_oldest_declared_python_compiles_the_written_text(
    oldest: Optional[OldestPython],
) -> None:
    """Where this is skipped, the test above checks the tree only."""
    if oldest is None:
        pytest.skip(f"no {NAME} interpreter found: written text not compiled there")
    assert oldest.error('s = f"""{\n    t.numpy()\n}"""\n') is None
    assert oldest.error('s = f"""{\n    t.numpy()  # noqa: TL101\n}"""\n') is not None
