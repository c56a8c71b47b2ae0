"""The output formats of issue 25: ``json-lines``, ``pylint``, ``rdjson``
(reviewdog) and ``azure`` (Azure Pipelines): golden output for the fixed set
of results of ``test_ci_reporters.py``, each format read back the way its
consumer reads it, and each through the command line.

The golden files live in ``tests/golden/``; rewrite them with
``TENSORLINT_REGEN_GOLDEN=1 python -m pytest tests/test_ci_formats_more.py``
after a deliberate change, and review the diff.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from test_ci_reporters import C1_AND_BIDI, OPTIONS, RESULTS, TL101_MESSAGE, _golden

from tensorlint.cli import main
from tensorlint.diagnostics import Diagnostic, FileResult, Position
from tensorlint.reporters import FORMATS, ReportOptions
from tensorlint.reporters.json import JSON_SCHEMA

WRITE_THROUGH = """import numpy as np
import torch


def f(a):
    t = torch.from_numpy(a)
    t += 1
    return a
"""

# ----------------------------------------------------------------------- json-lines


def test_json_lines_matches_the_golden_report() -> None:
    out = FORMATS["json-lines"](RESULTS, OPTIONS)
    assert out == _golden("report.jsonl", out)


def test_json_lines_has_one_json_finding_per_line() -> None:
    lines = FORMATS["json-lines"](RESULTS, OPTIONS).splitlines()
    objects = [json.loads(line) for line in lines]
    findings = [o for o in objects if "error" not in o]
    errors = [o for o in objects if "error" in o]
    # each finding is what the json format lists under "findings"
    assert findings == json.loads(FORMATS["json"](RESULTS, OPTIONS))["findings"]
    item = JSON_SCHEMA["properties"]["findings"]["items"]
    for finding in findings:
        jsonschema.validate(finding, item)
    assert errors == [
        {"file": "src/broken.py", "error": "src/broken.py: syntax error at line 1, column 5: bad"}
    ]
    assert FORMATS["json-lines"]([FileResult("a.py")], OPTIONS) == ""


def test_json_lines_escapes_what_would_drive_a_terminal() -> None:
    result = FileResult(
        f"a{C1_AND_BIDI}.py",
        (Diagnostic("TL101", "x", f"m {C1_AND_BIDI}\x1b[2J", Position(1, 0), Position(1, 1)),),
    )
    out = FORMATS["json-lines"]([result], OPTIONS)
    assert not any(char in out for char in C1_AND_BIDI + "\x1b")
    assert json.loads(out)["message"] == f"m {C1_AND_BIDI}\x1b[2J"  # the exact text, parsed


# --------------------------------------------------------------------------- pylint

#: how Pylint-reading tools parse a line (Jenkins Warnings NG's PyLint parser, in spirit)
PYLINT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): \[(?P<code>[A-Z]+\d+)\] (?P<message>.*)$")


def test_pylint_matches_the_golden_report() -> None:
    out = FORMATS["pylint"](RESULTS, OPTIONS)
    assert out == _golden("report.pylint.txt", out)


def test_pylint_lines_parse_as_pylint_output() -> None:
    lines = FORMATS["pylint"](RESULTS, OPTIONS).splitlines()
    parsed = [PYLINT_LINE.match(line) for line in lines]
    assert all(parsed), lines
    rows = [(m["path"], int(m["line"]), m["code"]) for m in parsed if m]
    assert rows == [
        ("src/model.py", 5, "TL101"),
        ("src/model.py", 7, "TL201"),
        ("src/model.py", 12, "TL211"),
        ("src/broken.py", 1, "TL000"),
        ("odd dir/a,b:c.py", 3, "TL102"),
        ("nb.ipynb:cell 3", 2, "TL101"),
    ]
    assert lines[0] == f"src/model.py:5: [TL101] {TL101_MESSAGE}"
    assert lines[3] == "src/broken.py:1: [TL000] syntax error at line 1, column 5: bad"
    # a message over two lines stays one line, escaped as in the text output
    assert lines[1].endswith('100% shared, "a, b"\\r\\nsecond <line> & more')


# --------------------------------------------------------------------------- rdjson

#: the Reviewdog Diagnostic Format, from reviewdog's proto/rdf/reviewdog.proto
#: (a DiagnosticResult; Position's column is a UTF-8 byte offset from 1), with
#: the keys tensorlint writes required and no others allowed
_POSITION = {
    "type": "object",
    "required": ["line", "column"],
    "properties": {
        "line": {"type": "integer", "minimum": 1},
        "column": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
}
_RANGE = {
    "type": "object",
    "required": ["start", "end"],
    "properties": {"start": _POSITION, "end": _POSITION},
    "additionalProperties": False,
}
_LOCATION = {
    "type": "object",
    "required": ["path"],
    "properties": {"path": {"type": "string"}, "range": _RANGE},
    "additionalProperties": False,
}
RDJSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["source", "diagnostics"],
    "properties": {
        "source": {
            "type": "object",
            "required": ["name"],
            "properties": {"name": {"const": "tensorlint"}, "url": {"type": "string"}},
            "additionalProperties": False,
        },
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location", "severity"],
                "properties": {
                    "message": {"type": "string"},
                    "location": _LOCATION,
                    "severity": {"enum": ["ERROR", "WARNING", "INFO"]},
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                        "additionalProperties": False,
                    },
                    "suggestions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["range", "text"],
                            "properties": {"range": _RANGE, "text": {"type": "string"}},
                            "additionalProperties": False,
                        },
                    },
                    "related_locations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["location"],
                            "properties": {"message": {"type": "string"}, "location": _LOCATION},
                            "additionalProperties": False,
                        },
                    },
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}

#: the text of src/model.py as the golden report sees it: line 5 holds two
#: characters of more than one UTF-8 byte before the finding's column
MODEL = "\n".join(
    [
        "import torch",
        "",
        "def f(model, x, a, b, c):",
        "    x = x.to('cuda')",
        "    é𐐀 = model(x).numpy()  # the finding: columns 11 to 27",
        "    return é𐐀",
        "    t = torch.from_numpy(a)",
        "    t",
        "",
        "",
        "",
        "    torch.from_numpy(src)",
    ]
)
SOURCES = {"src/model.py": MODEL}


def test_rdjson_matches_the_golden_report() -> None:
    out = FORMATS["rdjson"](RESULTS, ReportOptions(sources=SOURCES))
    assert out == _golden("report.rdjson", out)


def test_rdjson_follows_the_reviewdog_diagnostic_format() -> None:
    document = json.loads(FORMATS["rdjson"](RESULTS, ReportOptions(sources=SOURCES)))
    jsonschema.Draft7Validator.check_schema(RDJSON_SCHEMA)
    jsonschema.validate(document, RDJSON_SCHEMA)
    first, write, strict, broken, odd, notebook = document["diagnostics"]
    # UTF-8 bytes: 4 spaces + é (2) + 𐐀 (4) + " = mo" (5) come before column 11
    assert first["location"] == {
        "path": "src/model.py",
        "range": {"start": {"line": 5, "column": 16}, "end": {"line": 5, "column": 32}},
    }
    assert first["severity"] == "ERROR" and first["code"] == {"value": "TL101"}
    assert first["suggestions"] == [
        {
            "range": {"start": {"line": 5, "column": 24}, "end": {"line": 5, "column": 24}},
            "text": ".cpu().detach()",
        }
    ]
    assert first["related_locations"] == [
        {
            "message": "moved to a device that may be CUDA",
            "location": {
                "path": "src/model.py",
                "range": {"start": {"line": 3, "column": 9}, "end": {"line": 3, "column": 21}},
            },
        }
    ]
    assert write["location"]["range"] == {
        "start": {"line": 7, "column": 9},
        "end": {"line": 8, "column": 6},
    }
    assert strict["severity"] == "WARNING" and "suggestions" not in strict
    assert broken == {
        "message": "syntax error at line 1, column 5: bad",
        "location": {"path": "src/broken.py"},
        "severity": "ERROR",
    }
    # no text given: columns count characters, as they do for ASCII
    assert odd["location"]["range"]["start"] == {"line": 3, "column": 1}
    assert notebook["location"] == {"path": "nb.ipynb"}
    assert notebook["message"] == f"cell 3, line 2, column 12: {TL101_MESSAGE}"


def test_rdjson_columns_are_the_formats_example() -> None:
    """reviewdog.proto's own example: in 'a𐐀b', b is at column 6."""
    b = Diagnostic("TL101", "x", "m", Position(1, 2), Position(1, 3))
    options = ReportOptions(sources={"t.py": "a𐐀b\n"})
    [found] = json.loads(FORMATS["rdjson"]([FileResult("t.py", (b,))], options))["diagnostics"]
    assert found["location"]["range"] == {
        "start": {"line": 1, "column": 6},
        "end": {"line": 1, "column": 7},
    }


# ---------------------------------------------------------------------------- azure


def _unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%AZP25", "%")


def _unescape_property(text: str) -> str:
    return _unescape_data(text.replace("%3B", ";").replace("%5D", "]"))


def parse_logging_command(line: str) -> tuple[str, dict[str, str], str]:
    """A line as the Azure Pipelines agent reads it (Command.cs): the first
    ``##vso[``, the first ``]`` after it, properties split at ``;`` and each
    at its first ``=``, the rest the message; then the task library's
    unescaping."""
    start = line.index("##vso[")
    end = line.index("]", start)
    command, _, props = line[start + len("##vso[") : end].partition(" ")
    properties = {}
    for pair in props.split(";"):
        if pair:
            key, _, value = pair.partition("=")
            properties[key] = _unescape_property(value)
    return command, properties, _unescape_data(line[end + 1 :])


def test_azure_matches_the_golden_report() -> None:
    out = FORMATS["azure"](RESULTS, OPTIONS)
    assert out == _golden("report.azure.txt", out)


def test_azure_commands_read_back_as_the_agent_reads_them() -> None:
    lines = FORMATS["azure"](RESULTS, OPTIONS).splitlines()
    parsed = [parse_logging_command(line) for line in lines]
    assert all(command == "task.logissue" for command, _, _ in parsed)
    assert parsed[0][1] == {
        "type": "error",
        "sourcepath": "src/model.py",
        "linenumber": "5",
        "columnnumber": "12",
        "code": "TL101",
    }
    assert parsed[0][2] == TL101_MESSAGE
    # the message over two lines comes back whole; the strict rule is a warning
    assert parsed[1][2] == '`t` is written in place: 100% shared, "a, b"\r\nsecond <line> & more'
    assert parsed[2][1]["type"] == "warning"
    assert parsed[3][1] == {"type": "error", "sourcepath": "src/broken.py"}
    assert parsed[3][2] == "syntax error at line 1, column 5: bad"
    assert parsed[4][1]["sourcepath"] == "odd dir/a,b:c.py"
    assert parsed[5][1] == {"type": "error", "sourcepath": "nb.ipynb", "code": "TL101"}
    assert parsed[5][2] == f"cell 3, line 2, column 12: {TL101_MESSAGE}"


def test_azure_escaping_keeps_one_command_per_line() -> None:
    """A file name or message cannot end the command early or start another."""
    path = "a;b]c%d.py"
    message = "50% ]; done\n##vso[task.setvariable variable=X]1\r\n::x"
    result = FileResult(path, (Diagnostic("TL101", "x", message, Position(1, 0), Position(1, 1)),))
    [line] = FORMATS["azure"]([result], OPTIONS).splitlines()
    # one line, whose first `]` ends the properties: the agent reads one command
    # per line (the first `##vso[`), so the message's own text stays data
    assert line.startswith("##vso[task.logissue ") and line.index("]") == line.index(";]") + 1
    _, properties, text = parse_logging_command(line)
    assert properties["sourcepath"] == path
    assert text == message
    assert "\x1b" not in FORMATS["azure"]([FileResult("a\x1b[2J.py", error="x")], OPTIONS)


# ------------------------------------------------------------------------------ CLI


@pytest.mark.parametrize("fmt", ["json-lines", "pylint", "rdjson", "azure"])
def test_cli_output_format(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.py"
    path.write_text("# é𐐀\n" + WRITE_THROUGH, encoding="utf-8")
    code = main(["check", "--no-cache", "--output-format", fmt, str(path)])
    out = capsys.readouterr().out
    assert code == 1
    if fmt == "json-lines":
        [finding] = [json.loads(line) for line in out.splitlines()]
        assert (finding["code"], finding["line"], finding["column"]) == ("TL201", 7, 9)
    elif fmt == "pylint":
        assert out == f"{path}:7: [TL201] " + out.split(" [TL201] ", 1)[1]
        assert out.count("\n") == 1
    elif fmt == "rdjson":
        document = json.loads(out)
        jsonschema.validate(document, RDJSON_SCHEMA)
        [found] = document["diagnostics"]
        assert found["location"]["range"]["start"] == {"line": 7, "column": 9}
        assert found["suggestions"][0]["text"] == ".clone()"
    else:
        _, properties, _ = parse_logging_command(out)
        assert properties["linenumber"] == "7" and properties["code"] == "TL201"


def test_cli_rdjson_counts_bytes_in_the_checked_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import torch\n\n\ndef f(model, x):\n    é = 1; return model(x).numpy()\n",
        encoding="utf-8",
    )
    assert main(["check", "--no-cache", "--output-format", "rdjson", str(path)]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"][0]
    # 18 characters before `model(x)` (column 19), é among them: 19 bytes (column 20)
    assert found["location"]["range"]["start"] == {"line": 5, "column": 20}
