"""Every fixture case, checked against its expected findings and fix."""

from __future__ import annotations

import pytest
from fixture_cases import Case, all_cases

from tensorlint.engine.lint import lint_source
from tensorlint.fix.apply import fix_source

CASES = all_cases()
IDS = [case.id for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_findings_match_the_expected_file(case: Case) -> None:
    assert case.expected_path.exists(), "missing; run python tests/regen_fixtures.py"
    assert case.findings_text() == case.expected_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_name_says_whether_it_fires(case: Case) -> None:
    findings = lint_source(case.source, case.settings())
    if case.path.stem.startswith("fire_"):
        assert findings, "a fire_ case must produce a finding"
        assert all(d.code in case.settings().enabled for d in findings)
    else:
        assert case.path.stem.startswith("ok_"), "case names start with fire_ or ok_"
        assert findings == []


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fix_matches_the_fixed_file(case: Case) -> None:
    fixed = case.fixed_text()
    if case.fixed_path.exists():
        assert fixed == case.fixed_path.read_text(encoding="utf-8")
    else:
        assert fixed == case.source


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fix_is_idempotent_and_leaves_nothing_fixable(case: Case) -> None:
    settings = case.settings()
    once = fix_source(case.source, settings, unsafe=True)
    assert once.error is None and not once.dropped
    twice = fix_source(once.source, settings, unsafe=True)
    assert twice.source == once.source
    assert not [d for d in twice.remaining if d.fix is not None]
