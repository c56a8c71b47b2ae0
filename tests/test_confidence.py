"""Each finding's confidence: what sets it, and ``min-confidence``, which
hides the findings below a level (the report, the fixes, the cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tensorlint.config import ConfigError, inline_setting
from tensorlint.diagnostics import CONFIDENCES, confidence_rank
from tensorlint.engine.cache import settings_key
from tensorlint.engine.lint import lint_source
from tensorlint.registry import ALL_RULES, select
from tensorlint.rule import BY_EVIDENCE, Settings
from tests.cli_helpers import run, write

#: line 6: a move the code shows (high); line 10: a public function's
#: parameter (the API boundary's guess: medium); line 14: a private helper
#: no code calls (nothing known: the strict rules, low)
SOURCE = """import torch


def predict(model, x):
    x = x.cuda()
    return model(x).argmax(1).numpy()


def to_array(t):
    return t.numpy()


def _host(t):
    return t.float().numpy()
"""


def _levels(settings: Settings) -> set[tuple[int, str, str]]:
    return {(d.start.line, d.code, d.confidence) for d in lint_source(SOURCE, settings)}


def test_each_finding_takes_the_confidence_of_what_it_rests_on() -> None:
    found = _levels(Settings(enabled=select(strict=True)))
    assert (6, "TL101", "high") in found  # x.cuda()
    assert (10, "TL101", "medium") in found  # callers no code shows
    # that they may pass a tensor that requires grad: a guess the strict
    # TL112 reports (read by hand, as rarely right as its other findings)
    assert (10, "TL112", "low") in found
    assert not [f for f in found if f[1] == "TL102"]
    assert (14, "TL111", "low") in found  # no evidence at all
    assert (14, "TL112", "low") in found


def test_a_forward_pass_with_grad_enabled_is_medium_and_a_parameter_high() -> None:
    """A module's output may be computed under a caller's ``no_grad`` (or the
    module's own): measured, most such findings were false; a trainable
    parameter requires grad wherever it is read."""
    source = (
        "import torch\nfrom torch import nn\n\n\n"
        "def _score(batch):\n    net = nn.Linear(4, 2)\n"
        "    out = net(batch)\n    return out.numpy(), net.weight.numpy()\n"
    )
    found = {
        (d.code, d.start.column, d.confidence)
        for d in lint_source(source, Settings(enabled=select()))
    }
    assert found == {("TL102", 11, "medium"), ("TL102", 24, "high")}


def test_a_caller_in_the_file_that_moves_the_value_makes_the_guess_a_cause() -> None:
    source = (
        "import torch\n\n\ndef to_array(t):\n    return t.detach().numpy()\n\n\n"
        "def run(model, x):\n    return to_array(model(x.cuda()))\n"
    )
    found = {(d.code, d.confidence) for d in lint_source(source, Settings(enabled=select()))}
    assert found == {("TL101", "high")}


@pytest.mark.parametrize("least", CONFIDENCES)
def test_min_confidence_hides_what_is_less_sure(least: str) -> None:
    every = _levels(Settings(enabled=select(strict=True)))
    shown = _levels(Settings(enabled=select(strict=True), min_confidence=least))
    assert shown == {f for f in every if confidence_rank(f[2]) >= confidence_rank(least)}
    assert shown  # (the high finding stays at every level)


def test_every_strict_rule_is_low_and_every_default_rule_surer() -> None:
    for rule in ALL_RULES:
        if rule.CODE == "TL900":  # an unused noqa is a fact, not a guess
            assert rule.CONFIDENCE == "high"
        elif rule.DEFAULT:  # what the code shows, or a finding's own evidence
            assert rule.CONFIDENCE in ("high", BY_EVIDENCE), rule.CODE
        else:
            assert rule.CONFIDENCE == "low", rule.CODE


def test_a_noqa_that_silences_a_hidden_finding_is_still_used(tmp_path: Path) -> None:
    """``min-confidence`` filters what is reported; TL900 judges the comments
    against every finding, so a baseline stays valid at any level."""
    source = "import torch\n\n\ndef _host(t):\n    return t.float().numpy()  # noqa: TL111, TL112\n"
    settings = Settings(enabled=select(strict=True) | {"TL900"}, min_confidence="high")
    assert lint_source(source, settings) == []


def test_the_cache_keeps_each_finding_s_confidence() -> None:
    from tensorlint.engine.cache import _diagnostic, _diagnostic_row

    found = lint_source(SOURCE, Settings(enabled=select(strict=True)))
    assert {d.confidence for d in found} == set(CONFIDENCES)
    assert [_diagnostic(json.loads(json.dumps(_diagnostic_row(d)))) for d in found] == found


def test_the_cache_refuses_a_row_with_an_unknown_confidence() -> None:
    from tensorlint.engine.cache import _diagnostic, _diagnostic_row

    row = _diagnostic_row(lint_source(SOURCE, Settings(enabled=select()))[0])
    row[-1] = "certain"
    with pytest.raises(ValueError, match="malformed"):
        _diagnostic(row)


def test_the_level_is_part_of_the_cache_key() -> None:
    keys = {settings_key(Settings(enabled=select(), min_confidence=c)) for c in CONFIDENCES}
    assert len(keys) == 3
    # the default level leaves the keys of existing caches as they were
    assert settings_key(Settings(enabled=select())) == settings_key(
        Settings(enabled=select(), min_confidence="low")
    )


@pytest.mark.parametrize("value", ["certain", "HIGH", 2, True])
def test_a_bad_level_is_a_one_line_configuration_error(value: object) -> None:
    text = f"min-confidence = {json.dumps(value)}"
    with pytest.raises(ConfigError) as error:
        inline_setting(text)
    assert "'min-confidence' must be one of low, medium, high" in str(error.value)
    assert "\n" not in str(error.value)


def test_json_and_sarif_name_each_finding_s_confidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "m.py", SOURCE)
    code, out, _ = run(
        ["check", "--strict", "--no-cache", "--output-format", "json", str(path)], capsys
    )
    assert code == 1
    levels = {(f["line"], f["code"]): f["confidence"] for f in json.loads(out)["findings"]}
    assert levels[(6, "TL101")] == "high"
    assert levels[(10, "TL101")] == "medium"
    assert levels[(10, "TL112")] == "low"
    assert levels[(14, "TL111")] == "low"
    code, out, _ = run(
        ["check", "--strict", "--no-cache", "--output-format", "sarif", str(path)], capsys
    )
    run_ = json.loads(out)["runs"][0]
    results = {
        (r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]): r
        for r in run_["results"]
    }
    assert results[(10, "TL101")]["properties"]["confidence"] == "medium"
    assert results[(14, "TL112")]["properties"]["confidence"] == "low"
    precision = {r["id"]: r["properties"]["precision"] for r in run_["tool"]["driver"]["rules"]}
    assert (precision["TL111"], precision["TL101"], precision["TL201"]) == ("low", "medium", "high")


def test_the_command_line_level_hides_findings_and_their_fixes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "m.py", SOURCE)
    code, out, _ = run(["check", "--no-cache", "--min-confidence", "high", str(path)], capsys)
    assert code == 1
    assert ":6:" in out and ":10:" not in out
    code, out, _ = run(
        ["check", "--no-cache", "--min-confidence", "high", "--fix", str(path)], capsys
    )
    assert (code, ":10:" in out) == (0, False)
    fixed = path.read_text(encoding="utf-8")
    assert "argmax(1).cpu().numpy()" in fixed  # the high finding's fix
    assert "    return t.numpy()\n" in fixed  # the medium one's: not applied


def test_a_configured_level_is_shown_and_a_flag_overrides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (installable: its public functions' users are outside, the guess stands)
    settings = '[project]\nname = "demo"\n\n[tool.tensorlint]\nmin-confidence = "high"\n'
    write(tmp_path / "pyproject.toml", settings)
    path = write(tmp_path / "m.py", SOURCE)
    code, out, _ = run(["check", "--no-cache", "--show-settings", str(path)], capsys)
    assert (code, "min-confidence: high" in out) == (0, True)
    code, out, _ = run(["check", "--no-cache", str(path)], capsys)
    assert (code, ":6:" in out, ":10:" in out) == (1, True, False)
    code, out, _ = run(["check", "--no-cache", "--min-confidence", "medium", str(path)], capsys)
    assert (code, ":10:" in out) == (1, True)


def test_a_rule_on_evidence_cannot_report_without_a_confidence() -> None:
    from tensorlint.rule import _confidence
    from tensorlint.rules.tl101 import NumpyOnAcceleratorTensor

    assert _confidence(NumpyOnAcceleratorTensor(), "medium") == "medium"
    with pytest.raises(ValueError, match="TL101 reports on evidence"):
        _confidence(NumpyOnAcceleratorTensor(), None)


def test_tensorlint_rule_says_what_confidence_its_findings_have(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _code, out, _ = run(["rule", "TL101"], capsys)
    assert "Confidence: high where the code shows the cause, medium where" in out
    _code, out, _ = run(["rule", "TL111"], capsys)
    assert "Confidence: low" in out
