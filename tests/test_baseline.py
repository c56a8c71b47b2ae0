"""``--add-noqa``: a baseline for legacy code, through the real CLI."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

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
