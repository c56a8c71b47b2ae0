"""The analysis tree: the selective build keeps findings and positions exactly
as a whole build, and CPython's tree gives the findings LibCST's tree gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tensorlint.analysis import syntax
from tensorlint.analysis.parse import parse_relevant
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.registry import select
from tensorlint.rule import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TRIGGER = re.compile(r"\.numpy\s*\(|from_numpy")
SETTINGS = Settings(enabled=select(strict=True))

SOURCE = """import numpy as np
import torch

x = 1; y = 2


def unrelated(a):
    return a + 1


class Model:
    def forward(self, t):
        return t * 2


@torch.no_grad()
def convert(t):
    return t.numpy()


def convert_again(t):
    # a comment before the call
    return (t
            .numpy())
"""


def _outline(body: object) -> list[str]:
    """``def f``, ``class C`` (with its members, indented) and ``name = None``
    stubs: what the analysis tree holds of a module or class body."""
    out: list[str] = []
    statements = body.body if isinstance(body, (syntax.Module, syntax.IndentedBlock)) else []
    for statement in statements:
        if isinstance(statement, syntax.FunctionDef):
            out.append(f"def {statement.name.value}")
        elif isinstance(statement, syntax.ClassDef):
            out.append(f"class {statement.name.value}")
            out.extend(f"    {line}" for line in _outline(statement.body))
        elif isinstance(statement, syntax.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, syntax.Assign) and isinstance(small.value, syntax.Name):
                    target = small.targets[0].target
                    if small.value.value == "None" and isinstance(target, syntax.Name):
                        out.append(f"{target.value} = None")
                        continue
                out.append(type(small).__name__)
    return out


def test_only_blocks_with_a_trigger_are_parsed_and_names_stay_bound() -> None:
    outline = _outline(parse_relevant(SOURCE, TRIGGER))
    assert "def convert" in outline and "def convert_again" in outline
    assert "def unrelated" not in outline and "unrelated = None" in outline
    assert "Model = None" in outline
    assert outline.count("Assign") == 2  # ``x = 1; y = 2``


#: how the reference tree is built: CPython's, whole; LibCST's, whole
WHOLE = ["ast", "libcst"]


def _whole_parse(monkeypatch: pytest.MonkeyPatch, builder: str = "ast") -> None:
    import tensorlint.analysis.parse as parse

    whole = parse.parse_whole if builder == "ast" else parse._whole
    monkeypatch.setattr(parse, "parse_relevant", lambda source, trigger, **_: whole(source))


@pytest.mark.parametrize("builder", WHOLE)
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_findings_and_positions_match_a_whole_parse(
    newline: str, builder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = SOURCE.replace("\n", newline)
    selective = lint_source(text, SETTINGS)
    assert {(d.code, d.start.line) for d in selective} >= {("TL101", 18), ("TL112", 23)}
    _whole_parse(monkeypatch, builder)
    assert lint_source(text, SETTINGS) == selective


CLASS_SOURCE = """import torch


class Predictor:
    scale = 2

    def __init__(self, model, device):
        self.model = model.to(device)
        self.calls = 0

    @property
    def name(self):
        return "predictor"

    def unrelated(self, x):
        return x + self.scale * self.calls

    def count(self):
        self.calls += 1

    def predict(self, x):
        return self.model(x).numpy()

    def convert(self, t):
        return t.numpy()

    def run(self, x):
        return self.convert(x.cuda())

    def reset(self):
        self.model = None

    class Inner:
        def other(self):
            return 1
"""


def test_a_kept_class_keeps_only_the_methods_that_can_matter() -> None:
    outline = _outline(parse_relevant(CLASS_SOURCE, TRIGGER))
    for kept in ("def predict", "def convert", "def run", "def __init__", "def reset", "def count"):
        assert f"    {kept}" in outline, kept  # triggers, a caller, assigners of a used attribute
    assert "    def unrelated" not in outline and "    unrelated = None" in outline
    assert "    def name" not in outline and "    name = None" in outline
    assert "    class Inner" not in outline and "    Inner = None" in outline
    assert "    Assign" in outline  # ``scale = 2``
    lines = CLASS_SOURCE.splitlines()
    found = lint_source(CLASS_SOURCE, SETTINGS)
    assert {(d.code, lines[d.start.line - 1].strip()) for d in found} >= {
        ("TL101", "return self.model(x).numpy()"),
        ("TL101", "return t.numpy()"),
    }


def _sources() -> list[str]:
    """Every fixture, the bench's own cross-function cases, and the cases here."""
    bench = FIXTURES.parent / "bench" / "cross"
    paths = [*sorted(FIXTURES.glob("TL*/*.py")), *sorted(bench.rglob("*.py"))]
    return [p.read_text() for p in paths] + [SOURCE, CLASS_SOURCE]


@pytest.mark.parametrize("builder", WHOLE)
@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_every_fixture_gives_the_same_findings_as_a_whole_parse(
    monkeypatch: pytest.MonkeyPatch, strict: bool, builder: str
) -> None:
    settings = Settings(enabled=select(strict=strict))
    sources = _sources()
    selective = [lint_source(text, settings) for text in sources]
    _whole_parse(monkeypatch, builder)
    assert [lint_source(text, settings) for text in sources] == selective
    assert sum(len(found) for found in selective) > (150 if strict else 100)


def test_a_def_named_like_an_import_still_makes_the_name_ambiguous() -> None:
    text = (
        "import torch\n\n\ndef torch():\n    pass\n\n\ndef f(a):\n    return torch.from_numpy(a)\n"
    )
    assert lint_source(text, Settings(enabled=frozenset({"TL211"}))) == []
    unambiguous = text.replace("def torch():", "def other():")
    assert [d.code for d in lint_source(unambiguous, Settings(enabled=frozenset({"TL211"})))] == [
        "TL211"
    ]


def test_syntax_errors_are_still_reported_with_their_line() -> None:
    with pytest.raises(LintError, match="line 3"):
        lint_source("import torch\n\ndef f(:\n    t.numpy()\n", SETTINGS)


def test_a_block_that_calls_a_kept_function_is_parsed_too() -> None:
    source = SOURCE + (
        "\n\ndef caller(x):\n    return convert(x.cuda())\n\n\ndef other(x):\n    return x\n"
    )
    outline = _outline(parse_relevant(source, TRIGGER))
    assert "def caller" in outline  # it passes `convert` its argument: evidence
    assert "def other" not in outline and "other = None" in outline


@pytest.mark.parametrize("builder", WHOLE)
def test_the_bench_cases_as_a_tree_give_the_same_findings_as_a_whole_parse(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, builder: str
) -> None:
    # with the tree, helpers of other files decide what is kept (``arrays.to_host(x)``)
    import shutil

    from tensorlint.config import Config
    from tensorlint.engine.runner import RunOptions, run

    tree = tmp_path / "cross"
    shutil.copytree(FIXTURES.parent / "bench" / "cross", tree)
    settings = Settings(enabled=select(strict=True))

    def findings() -> list[tuple[str, tuple[object, ...]]]:
        results = run([tree], Config(), settings, RunOptions(), jobs=1)
        return [(r.path, r.diagnostics) for r in results]

    selective = findings()
    _whole_parse(monkeypatch, builder)
    assert findings() == selective
    assert sum(len(found) for _, found in selective) > 20
