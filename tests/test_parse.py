"""The selective parse keeps findings and positions exactly as a whole parse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def test_only_blocks_with_a_trigger_are_parsed_and_names_stay_bound() -> None:
    module, pieces = parse_relevant(SOURCE, TRIGGER)
    code = module.code
    assert "def convert(t)" in code and "def convert_again(t)" in code
    assert "def unrelated" not in code and "unrelated = None" in code
    assert "Model = None" in code
    assert "x = 1; y = 2" in code
    assert len(pieces) >= 2


def _whole_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    import tensorlint.analysis.parse as parse

    monkeypatch.setattr(parse, "parse_relevant", lambda source, trigger, **_: parse._whole(source))


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_findings_and_positions_match_a_whole_parse(
    newline: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = SOURCE.replace("\n", newline)
    selective = lint_source(text, SETTINGS)
    assert {(d.code, d.start.line) for d in selective} >= {("TL101", 18), ("TL102", 23)}
    _whole_parse(monkeypatch)
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
        self.calls += 1
        return x + self.scale

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
    module, _ = parse_relevant(CLASS_SOURCE, TRIGGER)
    code = module.code
    for kept in ("def predict", "def convert", "def run", "def __init__", "def reset"):
        assert kept in code, kept  # triggers, a caller, assigners of a used attribute
    assert "def unrelated" not in code and "    unrelated = None" in code
    assert "def name" not in code and "    name = None" in code
    assert "class Inner" not in code and "    Inner = None" in code
    assert "scale = 2" in code
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


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_every_fixture_gives_the_same_findings_as_a_whole_parse(
    monkeypatch: pytest.MonkeyPatch, strict: bool
) -> None:
    settings = Settings(enabled=select(strict=strict))
    sources = _sources()
    selective = [lint_source(text, settings) for text in sources]
    _whole_parse(monkeypatch)
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
    module, _ = parse_relevant(source, TRIGGER)
    code = module.code
    assert "def caller(x)" in code  # it passes `convert` its argument: evidence
    assert "def other" not in code and "other = None" in code


def test_the_bench_cases_as_a_tree_give_the_same_findings_as_a_whole_parse(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
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
    _whole_parse(monkeypatch)
    assert findings() == selective
    assert sum(len(found) for _, found in selective) > 20
