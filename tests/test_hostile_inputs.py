"""Inputs meant to break or subvert tensorlint: each is a clear result, never a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorlint.cli import main


def _check_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    """``tensorlint check`` in a child process with a time limit: an input that
    hangs or crashes the parser fails the test instead of the test run."""
    return subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_module_level_global_statement_does_not_hang_name_lookup(tmp_path: Path) -> None:
    path = tmp_path / "g.py"
    path.write_text("import torch\nglobal model\nmodel = None\n\ndef f(t):\n    return t.numpy()\n")
    proc = _check_in_child(path)
    assert proc.returncode == 1 and "g.py:6:12: TL101" in proc.stdout


def test_the_harness_never_runs_fixtures_of_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    import tensorlint.harness.cli as harness_cli

    marker = tmp_path / "ran"
    cases = tmp_path / "fixtures" / "TL101"
    cases.mkdir(parents=True)
    (cases / "fire_evil.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
        "HARNESS = {'call': 'case', 'inputs': 'tensor'}\n\ndef case(t):\n    return t.numpy()\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(harness_cli, "_shipped_cases", lambda: None)
    assert main(["harness"]) == 2
    assert "name the case files" in capsys.readouterr().err
    assert not marker.exists()
    assert os.listdir(cases) == ["fire_evil.py"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_every_newline_style_gets_the_same_findings(
    tmp_path: Path, newline: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        '"""A module."""',
        "from torch import nn",
        "",
        "def _f(x):",
        "    return x.cuda().numpy()",
    ]
    path = tmp_path / "m.py"
    path.write_bytes(newline.join([*lines, ""]).encode())
    assert main(["check", "--no-cache", str(path)]) == 1
    assert "m.py:5:12: TL101" in capsys.readouterr().out


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_fix_never_writes_through_a_link_out_of_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n"
    outside = tmp_path / "outside.py"
    outside.write_text(bad)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.py").symlink_to(outside)
    (tree / "own.py").write_text(bad)
    assert main(["check", "--no-cache", "--fix", str(tree)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "link.py" in errors[0] and "outside the checked tree" in errors[0]
    assert outside.read_text() == bad
    assert ".cpu()" in (tree / "own.py").read_text()


def test_fixes_inside_f_strings_parse_on_every_supported_python() -> None:
    from tensorlint.fix.apply import fix_source
    from tensorlint.registry import select
    from tensorlint.rule import Settings

    source = (
        "import torch\n\n\ndef _show(x):\n    t = x.cuda()\n"
        '    print(f"{t.numpy()}")\n'
        "    print(f'{t.numpy()}')\n"
        '    print(f"{t.numpy()=}")\n'
    )
    for idiom in ("cpu-detach", "exact-copy"):
        settings = Settings(enabled=select(select=["TL101"]), numpy_idiom=idiom)
        safe = fix_source(source, settings)
        lines = safe.source.splitlines()
        assert lines[7] == '    print(f"{t.numpy()=}")'  # the printed text would change
        for line, before in zip(lines[5:7], source.splitlines()[5:7]):
            assert line != before  # fixed
            quote = line[len("    print(f")]
            assert quote not in line[len("    print(f") + 1 : -2]  # no reused quote
        unsafe = fix_source(source, settings, unsafe=True)
        assert ".numpy()=}" in unsafe.source.splitlines()[7]
        assert "t.numpy()=" not in unsafe.source


def test_pathological_nesting_is_one_error_line_and_the_run_goes_on(tmp_path: Path) -> None:
    # 1,500 nested parentheses crash LibCST's native parser and a 100,000-term
    # sum takes it minutes: both must be refused up front, in a child process
    # here so that a regression fails instead of killing the test run
    head = "import torch\ny = torch.ones(1).numpy()\n"
    (tmp_path / "parens.py").write_text(head + "x = " + "(" * 1500 + "1" + ")" * 1500 + "\n")
    (tmp_path / "brackets.py").write_text(head + "x = " + "[" * 3000 + "]" * 3000 + "\n")
    terms = " + ".join(["t"] * 100_000)
    (tmp_path / "sum.py").write_text(f"import torch\n\ndef f(t):\n    return ({terms}).numpy()\n")
    (tmp_path / "ok.py").write_text("import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    proc = _check_in_child(tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    errors = sorted(line for line in proc.stdout.splitlines() if line.startswith("error:"))
    assert len(errors) == 3 and all("too deeply nested" in line for line in errors)
    assert "ok.py:4:12: TL101" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_unclosed_import_parentheses_are_scanned_in_linear_time(tmp_path: Path) -> None:
    # every ``(`` without a ``)`` after it made the import scan read the rest
    # of the text: 60,000 such lines (1 MB) took 45 s, before the time limit
    path = tmp_path / "imports.py"
    path.write_text("from a import (b\n" * 120_000, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TENSORLINT_FILE_TIMEOUT": "30"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 without a conversion" in proc.stdout


def test_a_long_but_valid_expression_is_analysed(tmp_path: Path) -> None:
    terms = " + ".join(["t"] * 1000)
    path = tmp_path / "wide.py"
    path.write_text(f"import torch\n\ndef _f(x):\n    t = x.cuda()\n    return ({terms}).numpy()\n")
    proc = _check_in_child(path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "wide.py:5:12: TL101" in proc.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_named_symlink_loop_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    ok = tmp_path / "ok.py"
    ok.write_text("import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    assert main(["check", "--no-cache", str(tmp_path / "a.py"), str(ok)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "a.py" in errors[0] and "symbolic links" in errors[0]
    assert "ok.py:4:12: TL101" in out


def test_file_names_with_control_characters_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evil\n\x1b[2Jname.py"
    path.write_text("import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    assert main(["check", "--no-cache", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    (finding,) = [line for line in out.splitlines() if "TL101" in line]
    assert "evil\\n\\x1b[2Jname.py:4:12: TL101" in finding


def test_a_huge_file_is_refused_with_one_line_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorlint.engine import runner

    big = tmp_path / "generated.py"
    line = "import torch\nx = torch.ones(3).numpy()\n"
    big.write_text(line * (runner.MAX_TEXT_CHARS // len(line) + 1))
    ok = tmp_path / "ok.py"
    ok.write_text("import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n")
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "generated.py: too large to check" in errors[0]
    assert "ok.py:4:12: TL101" in out


def test_checking_and_fixing_never_execute_the_checked_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "executed"
    payload = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
    code = payload + "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n"
    (tmp_path / "module.py").write_text(code)
    (tmp_path / "conftest.py").write_text(code)
    (tmp_path / "setup.py").write_text(code)
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {"cells": [{**cell, "source": code}], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}  # fmt: skip
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "pyproject.toml").write_text("[tool.tensorlint]\nstrict = true\n")
    assert main(["check", "--no-cache", str(tmp_path)]) == 1
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(tmp_path)]) == 0
    capsys.readouterr()
    assert not marker.exists()
