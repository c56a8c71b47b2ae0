"""``--add-noqa``: a baseline for legacy code, through the real CLI."""

from __future__ import annotations

import ast
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from declared_pythons import NAME, OldestPython, find_oldest

from tensorlint.baseline import add_noqa
from tensorlint.cli import main
from tensorlint.diagnostics import Diagnostic, Position

LEGACY = (
    "import torch\n\n\n"
    "def f(model, x):\n"
    "    y = model(x.cuda()).numpy()  # noqa: TL101\n"
    "    z = model(x).numpy()\n"
    "    w = model(x).numpy()  # noqa\n"
    "    return y, z, w\n"
)


def test_add_noqa_baselines_every_finding_and_keeps_existing_comments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "legacy.py"
    path.write_bytes(LEGACY.replace("\n", "\r\n").encode("utf-8"))
    os.chmod(path, 0o640)
    assert main(["check", "--no-cache", "--add-noqa", str(tmp_path)]) == 0
    assert "Added 3 noqa directives to 1 file." in capsys.readouterr().err
    text = path.read_bytes().decode("utf-8")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")  # line ends kept
    assert "y = model(x.cuda()).numpy()  # noqa: TL101, TL102\r\n" in text
    assert "z = model(x).numpy()  # noqa: TL101, TL102\r\n" in text
    assert "w = model(x).numpy()  # noqa\r\n" in text  # a bare noqa covers it
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    # the baseline is clean, and a new finding is still reported
    assert main(["check", "--no-cache", str(tmp_path)]) == 0
    with path.open("a", encoding="utf-8", newline="") as handle:
        handle.write("\r\n\r\ndef g(model, x):\r\n    return model(x).numpy()\r\n")
    assert main(["check", "--no-cache", str(tmp_path)]) == 1
    # a second run adds only the new line's codes; unchanged files are not written
    capsys.readouterr()
    assert main(["check", "--no-cache", "--add-noqa", str(tmp_path)]) == 0
    assert "Added 2 noqa directives to 1 file." in capsys.readouterr().err


def test_add_noqa_refuses_fix_and_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--add-noqa", "--fix", str(tmp_path)]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def _finding(line: int, code: str) -> Diagnostic:
    return Diagnostic(code, "name", "message", Position(line, 0), Position(line, 1))


def test_a_line_ending_in_a_backslash_is_left() -> None:
    text = "x = a.numpy() + \\\n    b\n"
    done = add_noqa(text, [_finding(1, "TL101")])
    assert done.text == text and done.added == 0 and done.left == 1


def test_an_edit_that_would_break_the_code_is_not_made() -> None:
    text = 's = """\nt.numpy()\n"""\n'  # (a finding reported inside a string)
    done = add_noqa(text, [_finding(2, "TL101")])
    assert done.text == text and done.added == 0 and done.left == 1


def test_a_prefix_already_listed_covers_the_code() -> None:
    text = "y = t.numpy()  # noqa: TL1\n"
    done = add_noqa(text, [_finding(1, "TL101"), _finding(1, "TL102")])
    assert done.text == text and done.added == 0


def test_burning_the_baseline_down_with_tl900(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "legacy.py"
    path.write_text("import torch\n\n\ndef f(model, x):\n    return model(x).numpy()\n", "utf-8")
    assert main(["check", "--no-cache", "--add-noqa", str(path)]) == 0
    assert main(["check", "--no-cache", "--extend-select", "TL900", str(path)]) == 0
    # the code is fixed by hand; the comment would now hide the next finding there
    text = path.read_text("utf-8").replace("model(x).numpy()", "model(x).detach().cpu().numpy()")
    path.write_text(text, "utf-8")
    capsys.readouterr()
    assert main(["check", "--no-cache", "--extend-select", "TL900", str(path)]) == 1
    assert "TL900 unused `noqa` codes: TL101, TL102" in capsys.readouterr().out
    assert main(["check", "--no-cache", "--extend-select", "TL900", "--fix", str(path)]) == 0
    assert path.read_text("utf-8").endswith("return model(x).detach().cpu().numpy()\n")


def _grad(line: str) -> str:
    """A module whose line 5 is ``line`` (TL101 and TL102 on ``model(x).numpy()``)."""
    return f"import torch\n\n\ndef f(model, x):\n{line}\n    return y\n"


def test_a_noqa_in_a_string_is_no_comment_and_other_codes_are_kept_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    in_string = tmp_path / "in_string.py"
    in_string.write_text(_grad("    s = '# noqa: E501'; y = model(x).numpy()"), "utf-8")
    others = tmp_path / "others.py"
    others.write_text(_grad("    y = model(x).numpy()  # noqa: e501 ,  w291 - long"), "utf-8")
    assert main(["check", "--no-cache", "--add-noqa", str(tmp_path)]) == 0
    assert "Added 4 noqa directives to 2 files." in capsys.readouterr().err
    assert in_string.read_text("utf-8") == _grad(
        "    s = '# noqa: E501'; y = model(x).numpy()  # noqa: TL101, TL102"
    )
    assert others.read_text("utf-8") == _grad(
        "    y = model(x).numpy()  # noqa: e501 ,  w291, TL101, TL102 - long"
    )


def test_a_file_that_cannot_be_written_is_named_with_one_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(_grad("    y = model(x).numpy()"), "utf-8")
    os.chmod(path, 0o444)
    assert main(["check", "--no-cache", "--add-noqa", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: not rewritten: the file is read-only\n" in err
    assert "not written" not in err


@pytest.fixture(scope="module")
def oldest() -> Iterator[OldestPython]:
    executable = find_oldest()
    if executable is None:
        pytest.skip(f"no {NAME} interpreter found to compile the written text with")
    python = OldestPython(executable)
    yield python
    python.close()


#: a finding inside the braces of a triple-quoted f-string, on a line that is
#: not the statement's last: a comment there is allowed from Python 3.12 only
FSTRING = """import torch


def f(model, x):
    s = f\"\"\"value: {
        model(x).numpy()
    } done\"\"\"
    y = model(x).numpy()
    return s, y
"""


def test_no_comment_goes_where_an_older_python_rejects_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(FSTRING, "utf-8")
    assert main(["check", "--no-cache", "--add-noqa", str(path)]) == 0
    err = capsys.readouterr().err
    assert "Added 2 noqa directives to 1 file." in err
    assert "2 findings left without one" in err
    text = path.read_text("utf-8")
    assert text == FSTRING.replace(
        "y = model(x).numpy()", "y = model(x).numpy()  # noqa: TL101, TL102"
    )
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(FSTRING))


def test_the_fstring_baseline_parses_on_the_oldest_declared_python(
    tmp_path: Path, oldest: OldestPython, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(FSTRING, "utf-8")
    assert oldest.error(FSTRING) is None
    assert main(["check", "--no-cache", "--add-noqa", str(path)]) == 0
    assert oldest.error(path.read_text("utf-8")) is None
