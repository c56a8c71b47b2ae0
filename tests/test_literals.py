"""The prefilter's substring screen: words every trigger match contains."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tensorlint.engine.literals import required_words
from tensorlint.registry import ALL_RULES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize(
    ("patterns", "words"),
    [
        ([r"\.numpy\s*\("], {".numpy"}),
        ([r"\b(?:as|asany|ascontiguous|asfortran)?array\s*\("], {"array"}),
        (["from_numpy|as_tensor|asarray"], {"from_numpy", "as_tensor", "asarray"}),
        ([r"\.data\b", "from_numpy"], {".data", "from_numpy"}),
        (["(numpy)x"], {"numpy"}),  # a group matched once
    ],
)
def test_words_of_patterns(patterns: list[str], words: set[str]) -> None:
    assert required_words(patterns) == words


@pytest.mark.parametrize(
    "pattern",
    [
        "(?i)numpy",  # case-insensitive: a substring test would miss NUMPY
        "(?i:numpy)x",
        r"numpy|\d+",  # a branch with no literal run
        "ab",  # too short to screen with
        "(?:numpy)?x",  # an optional group is not required
        "[",  # not a pattern
    ],
)
def test_unknown_is_none(pattern: str) -> None:
    assert required_words([pattern]) is None


def test_every_rule_trigger_has_words() -> None:
    """Every shipped trigger gets the fast screen (a new trigger that does not
    falls back to the slow scan: this test says so)."""
    for rule in ALL_RULES:
        assert required_words(rule.TRIGGERS), rule.CODE


def test_screen_never_drops_a_match_in_the_fixtures() -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in FIXTURES.rglob("*.py")]
    assert texts
    for rule in ALL_RULES:
        words = required_words(rule.TRIGGERS)
        assert words is not None
        for pattern in rule.TRIGGERS:
            compiled = re.compile(pattern)
            for text in texts:
                for match in compiled.finditer(text):
                    assert any(word in match.group() for word in words), (rule.CODE, match)


def test_array_trigger_matches_as_its_readable_form() -> None:
    """TL103's trigger is written to start with a literal (for speed); it
    must match exactly where the readable pattern does."""
    from tensorlint.rules.tl103 import ImplicitTensorToArray

    readable = re.compile(r"\b(?:as|asany|ascontiguous|asfortran)?array\s*\(")
    fast = re.compile(ImplicitTensorToArray.TRIGGERS[0])
    crafted = [
        "array(x)",
        "np.asarray (t)",
        "asanyarray(t) + ascontiguousarray\n(t) + asfortranarray(t)",
        "xarray(t) bytearray(b) _array(a) 1array(a) éarray(a) aarray(a)",
        "asxarray(t) asany array(t) a.array(t) (array)(t) array",
        "s = 'asarray(' ; numpy.array(\t\n t)",
    ]
    texts = crafted + [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.py")]
    matched = 0
    for text in texts:
        spans = [m.span() for m in readable.finditer(text)]
        assert [m.span() for m in fast.finditer(text)] == spans, text[:80]
        matched += len(spans)
    assert matched > 20


def test_accelerator_scan_answers_as_the_pattern() -> None:
    """``mentions_accelerator`` looks only where a match can start; it must
    answer as ``ACCELERATOR.search`` does."""
    from tensorlint.roles import ACCELERATOR, mentions_accelerator

    crafted = [
        "x = t.cuda()",
        "device = 'CUDA:0'",
        "use_gpus = 2",
        "n_gpus = 2; GPUs",
        "MPS backend",
        "dumps(x); steps; https://a; maps",
        "on the TPU",
        "an Accelerator()",
        "accelerators",
        "mpſ",
        "cudagraph xpu_ npu1 hpu",
        "",
    ]
    texts = crafted + [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.py")]
    answers = [mentions_accelerator(text) for text in texts]
    assert answers == [ACCELERATOR.search(text) is not None for text in texts]
    assert True in answers and False in answers


def test_conversion_starts_are_the_pattern_matches() -> None:
    from tensorlint.analysis.summaries import CONVERSION_TEXT, conversion_starts

    crafted = ["x.numpy ()from_numpyasarrayasanyarrayas_tensor.numpy(", "asarrayasarray", ""]
    texts = crafted + [p.read_text(encoding="utf-8") for p in FIXTURES.rglob("*.py")]
    found = 0
    for text in texts:
        starts = [m.start() for m in CONVERSION_TEXT.finditer(text)]
        assert conversion_starts(text) == starts, text[:80]
        found += len(starts)
    assert found > 100


def test_test_suites_are_told_from_examples_by_their_text() -> None:
    """A test framework imported, a ``test_`` function or a ``Test`` class at
    the start of a line make a test suite; the words elsewhere do not."""
    from tensorlint.roles import is_test_text

    suites = [
        "import pytest\n",
        "from unittest import mock\n",
        "import unittest\nclass Shapes(unittest.TestCase): ...\n",
        "x = 1\ndef test_shape():\n    pass\n",
        "class TestModel:\n    pass\n",
        "class C:\n    async def test_load(self): ...\n",
    ]
    others = [
        "import matplotlib.pyplot as plt\nplt.plot(losses)\n",
        "# run pytest to check this\n",  # (a word in a comment)
        "print('def test_x')\n",
        "import pytest_benchmark_like_name_is_not_pytest as p\n",
        "def testing_helper():\n    pass\n",
        "",
    ]
    assert [is_test_text(t) for t in suites] == [True] * len(suites)
    assert [is_test_text(t) for t in others] == [False] * len(others)


def test_suites_a_test_runner_collects_are_told_from_trainers_methods() -> None:
    """A top-level ``test_`` function or ``Test`` class, or a test framework
    imported with a test defined, make a suite pytest or unittest runs; a
    trainer's ``def test_epoch(self, ...)`` method does not."""
    from tensorlint.roles import is_framework_suite

    suites = [
        "def test_shape():\n    pass\n",
        "import pytest\nclass TestModel:\n    def test_it(self): ...\n",
        "import unittest\nclass Shapes(unittest.TestCase):\n    def test_it(self): ...\n",
        "import pytest\n\n@pytest.mark.slow\ndef test_big(): ...\n",
    ]
    others = [
        "class Server:\n    def test_personalized_model(self):\n        pass\n",
        "def test(model, loader):\n    pass\n",  # (a training script's evaluation)
        "class TestDataset:\n    pass\n",
        "import pytest\n",  # (no test)
        "def run_tests():\n    pass\n",
        "",
    ]
    assert [is_framework_suite(t) for t in suites] == [True] * len(suites)
    assert [is_framework_suite(t) for t in others] == [False] * len(others)
