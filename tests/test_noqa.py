"""``# noqa`` comments as ``check``, TL900's fix and ``--add-noqa`` read
them: comments only (never text inside a string), in any case, and the
burn-down of a strict baseline. Through the real CLI."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from tensorlint.cli import main

#: TL101 and TL102 on line 5
GRAD = "import torch\n\n\ndef f(model, x):\n    y = model(x).numpy(){}\n    return y\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def fix(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> int:
    code = main(["check", "--no-cache", "--fix", *options, str(path)])
    capsys.readouterr()
    return code


def codes(path: Path, capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    main(["check", "--no-cache", "--output-format", "json", *options, str(path)])
    return sorted(f["code"] for f in json.loads(capsys.readouterr().out)["findings"])


def test_tl900_fix_leaves_the_rest_of_a_comment_a_comment_and_strings_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        "import torch\n\n\n"
        "def f(t):\n"
        "    y = t.detach().cpu().numpy()  # noqa: TL101 - reviewed\n"
        "    z = t.detach().cpu().numpy()  # NOQA:TL101  # type: ignore\n"
        "    w = t.detach().cpu().numpy()  # noqa: E501, TL101,W291 (long)\n"
        '    s = "x  # noqa: TL101"\n'
        "    return y, z, w, s  # noqa: TL101\n"
    )
    path = write(tmp_path / "m.py", source)
    # four comments list a TL101 that silences nothing; the string is no comment
    assert codes(path, capsys, "--extend-select", "TL900") == ["TL900"] * 4
    assert fix(path, capsys, "--extend-select", "TL900") == 0
    fixed = path.read_text("utf-8")
    assert fixed == (
        "import torch\n\n\n"
        "def f(t):\n"
        "    y = t.detach().cpu().numpy()  # - reviewed\n"
        "    z = t.detach().cpu().numpy()  # type: ignore\n"
        "    w = t.detach().cpu().numpy()  # noqa: E501,W291 (long)\n"
        '    s = "x  # noqa: TL101"\n'
        "    return y, z, w, s\n"
    )
    assert ast.dump(ast.parse(fixed)) == ast.dump(ast.parse(source))


@pytest.mark.parametrize(
    "comment",
    ["# noqa: TL101  # noqa", "# noqa: TL101 noqa", "# noqa: TL101 tensorlint: noqa",
     "# noqa: TL101  # flake8: noqa"],
)  # fmt: skip
def test_tl900_offers_no_fix_that_would_wake_a_directive(
    comment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # what is left after the unused directive would read as a directive (a
    # bare one silencing the line, or the whole file): reported, not fixed
    source = f"{comment}\nimport torch\n\n\ndef f(t):\n    return t.detach().cpu().numpy()\n"
    path = write(tmp_path / "m.py", source)
    main(["check", "--no-cache", "--extend-select", "TL900", str(path)])
    out = capsys.readouterr().out
    assert "m.py:1:1: TL900 unused `noqa` code: TL101" in out and "[*]" not in out
    assert fix(path, capsys, "--extend-select", "TL900") == 1
    assert path.read_text("utf-8") == source


def test_a_noqa_inside_a_string_suppresses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "m.py", GRAD.format('; s = "# noqa"'))
    assert codes(path, capsys) == ["TL101", "TL102"]
    # nor does a file-level comment's text inside a docstring
    path = write(tmp_path / "m.py", '"""\n# tensorlint: noqa\n"""\n' + GRAD.format(""))
    assert codes(path, capsys) == ["TL101", "TL102"]
    path = write(tmp_path / "m.py", "# tensorlint: noqa: TL102\n" + GRAD.format(""))
    assert codes(path, capsys) == ["TL101"]


@pytest.mark.parametrize(
    ("head", "left"),
    [("# flake8: noqa\n", []), ("    # Flake8=NoQA  (generated)\n", []),
     ("# flake8: noqa: E501\n", []), ("import os  # flake8: noqa\n", ["TL101", "TL102"]),
     ('"""\n# flake8: noqa\n"""\n', ["TL101", "TL102"])],
    ids=["bare", "any-case", "codes", "after-code", "in-a-string"],
)  # fmt: skip
def test_flake8s_file_level_noqa_silences_the_file_in_check(
    head: str, left: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``# flake8: noqa`` on a line of its own: flake8 skips the file (the
    plugin reports nothing there), and so does ``check``; a comment only,
    as every directive (text in a string is no directive)."""
    path = write(tmp_path / "m.py", head + GRAD.format(""))
    assert codes(path, capsys) == left
    if not left:  # the strict rules too
        assert codes(path, capsys, "--strict") == []


@pytest.mark.parametrize(
    ("comment", "left"),
    [("  # NOQA", []), ("  # NOQA: TL101, TL102", []), ("  # NoQA:tl102", ["TL101"]),
     ("  # noqa: TL102", ["TL101"])],
)  # fmt: skip
def test_noqa_in_any_case_is_read_by_check(
    comment: str, left: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "m.py", GRAD.format(comment))  # no other "noqa" in the file
    assert codes(path, capsys) == left


def test_an_upper_case_noqa_is_judged_by_tl900(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "import torch\n\n\ndef f(t):\n    return t.detach().cpu().numpy()  # NOQA: TL101\n"
    path = write(tmp_path / "m.py", source)
    assert codes(path, capsys, "--extend-select", "TL900") == ["TL900"]


STRICT = """import numpy as np
import torch


def f(model, x, a):
    y = model(x).numpy()
    t = torch.from_numpy(a)
    return y, t  # noqa: TL101
"""


def test_a_strict_baseline_survives_the_burn_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "m.py", STRICT)
    assert codes(path, capsys, "--strict") == ["TL101", "TL102", "TL211", "TL900"]
    assert main(["check", "--no-cache", "--strict", "--add-noqa", str(path)]) == 0
    err = capsys.readouterr().err
    assert "Added 3 noqa directives to 1 file." in err
    assert "1 TL900 finding (unused noqa codes) not baselined" in err
    text = path.read_text("utf-8")
    assert "TL900" not in text  # never written: it would silence the burn-down
    assert "y = model(x).numpy()  # noqa: TL101, TL102\n" in text
    assert "t = torch.from_numpy(a)  # noqa: TL211\n" in text
    assert codes(path, capsys, "--strict") == ["TL900"]  # the old unused code only
    # the burn-down with the default profile does not judge TL211: it is not enabled
    assert codes(path, capsys, "--extend-select", "TL900") == ["TL900"]
    assert fix(path, capsys, "--extend-select", "TL900") == 0
    text = path.read_text("utf-8")
    assert "t = torch.from_numpy(a)  # noqa: TL211\n" in text
    assert "return y, t\n" in text
    # the code under a default code is fixed: its codes go, the strict one stays
    path.write_text(text.replace("model(x).numpy()", "model(x).detach().cpu().numpy()"))
    assert fix(path, capsys, "--extend-select", "TL900") == 0
    text = path.read_text("utf-8")
    assert "y = model(x).detach().cpu().numpy()\n" in text
    assert "t = torch.from_numpy(a)  # noqa: TL211\n" in text
    assert codes(path, capsys, "--strict") == []


ROOT = Path(__file__).resolve().parent.parent
TRICKY = [
    "s = '# not'  # yes\nt = \"'\"  # x\n",
    's = \'\'\'\n# not\n\'\'\'  # yes\nu = """a\\"""\n# b\n"""\n',
    "s = ('a'  # between\n     'b')\nx = 1 + \\\n    2  # after\n",
    "s = 'a\\\nb'  # c\nr = r'\\'#'  # d\nb = rb\"\\\"#\"\n",
    'f = f"{x!r:>{w}} #"  # e\ng = f"""{\n    x  \n}"""  # f\nh = f"{\'#\'}"\n',
    "def f():\n    x = 1  # a\n# b\n    return x\n",
]


@pytest.mark.parametrize("text", TRICKY)
def test_the_fast_lexer_reads_what_pythons_tokenizer_reads(text: str) -> None:
    from tensorlint import noqa

    lexed = noqa.read_comments(text)
    assert lexed == noqa._tokenized(text, text)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="f-strings are lexed in parts from 3.12")
def test_fstrings_lexed_in_parts_are_read_by_pythons_tokenizer() -> None:
    from tensorlint import noqa

    text = 's = f"{d["# noqa"]}"; a = 1  # real\ng = f"""{\n    x  # inside\n}"""\n'
    comments = noqa.read_comments(text)
    assert comments == noqa._tokenized(text, text)
    assert comments.by_line == {1: noqa.Comment(29, "# real"), 3: noqa.Comment(7, "# inside")}
    assert comments.open_ends == {1, 4}


def test_the_fast_lexer_agrees_on_this_repository() -> None:
    from tensorlint import noqa

    paths = sorted(ROOT.glob("tensorlint/**/*.py")) + sorted(ROOT.glob("tests/*.py"))
    for path in [*paths, *sorted(ROOT.glob("fixtures/**/*.py"))]:
        text = noqa.LINE_ENDS.sub("\n", path.read_text("utf-8"))
        try:
            ast.parse(text)
        except SyntaxError:
            continue  # (fixtures of newer syntax)
        lexed, tokenized = noqa._lexed(text), noqa._tokenized(text, text)
        if lexed is None:
            continue  # f-strings lexed in parts (Python 3.12+): the tokenizer's answer
        lines = text.split("\n")
        code = {n for n in range(1, len(lines) + 1) if lines[n - 1].strip()}
        assert lexed.by_line == tokenized.by_line, path
        assert lexed.open_ends & code == tokenized.open_ends & code, path
