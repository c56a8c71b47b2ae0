"""Inputs meant to break or subvert tensorlint: each is a clear result, never a hang."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

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


FIXABLE = "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n"


def _refuse_by_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "tree" / "m.py"
    path.write_text(FIXABLE)
    path.chmod(0o444)  # refused for its mode, so as root too
    return path


def _refuse_by_link_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "outside.py"
    target.write_text(FIXABLE)
    path = tmp_path / "tree" / "m.py"
    path.symlink_to(target)
    return path


def _refuse_by_change_mid_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from tensorlint.fix import apply

    path = tmp_path / "tree" / "m.py"
    path.write_text(FIXABLE)
    real = apply.fix_source

    def fix_and_edit(*args: Any, **kwargs: Any) -> Any:
        outcome = real(*args, **kwargs)
        path.write_text(FIXABLE + "# edited by another tool\n")
        return outcome

    monkeypatch.setattr(apply, "fix_source", fix_and_edit)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
@pytest.mark.parametrize(
    ("refuse", "reason"),
    [
        (_refuse_by_read_only, "read-only"),
        (_refuse_by_link_out, "outside the checked tree"),
        (_refuse_by_change_mid_fix, "changed while it was being fixed"),
    ],
    ids=["read-only", "link-out", "changed"],
)
@pytest.mark.parametrize("output_format", ["text", "concise", "full", "json", "sarif", "github"])
def test_a_file_whose_fix_was_refused_keeps_its_findings(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    refuse: Callable[[Path, pytest.MonkeyPatch], Path],
    reason: str,
    output_format: str,
) -> None:
    (tmp_path / "tree").mkdir()
    path = refuse(tmp_path, monkeypatch)
    code = main(
        ["check", "--no-cache", "--fix", "--output-format", output_format, str(tmp_path / "tree")]
    )
    out = capsys.readouterr().out
    assert code == 2, out
    assert ".cpu()" not in path.read_text()  # not fixed
    assert "All checks passed" not in out
    if output_format == "json":
        report = json.loads(out)
        assert report["summary"]["findings"] == 1 and report["summary"]["errors"] == 1
        assert [f["line"] for f in report["findings"]] == [4]
        assert reason in report["errors"][0]["message"]
        assert report["fixed"] == []
    elif output_format == "sarif":
        (run,) = json.loads(out)["runs"]
        assert [r["ruleId"] for r in run["results"]] == ["TL101"]
        assert reason in json.dumps(run)
    elif output_format == "github":
        assert "::error file=" in out and "title=TL101" in out and reason in out
    else:
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and reason in errors[0]
        assert "m.py:4:12: TL101" in out


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
@pytest.mark.parametrize("mode", ["--fix", "--add-noqa"])
def test_without_a_configuration_the_tree_is_the_named_paths_not_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    work = tmp_path / "w"
    (work / "repo").mkdir(parents=True)
    (work / "mine").mkdir()
    mine = work / "mine" / "model.py"
    mine.write_text(FIXABLE)
    (work / "repo" / "x.py").symlink_to(Path("..", "mine", "model.py"))
    (work / "repo" / "own.py").write_text(FIXABLE)
    monkeypatch.chdir(work)  # no pyproject.toml: the current directory is not the tree
    assert main(["check", "--no-cache", mode, "repo"]) == 2
    captured = capsys.readouterr()
    errors = [line for line in (captured.out + captured.err).splitlines() if "error:" in line]
    assert len(errors) == 1 and "x.py" in errors[0] and "outside the checked tree" in errors[0]
    assert mine.read_text() == FIXABLE
    assert (work / "repo" / "own.py").read_text() != FIXABLE  # the tree's own file is written


def _plant_a_clean_cache(tree: Path, cache: Path) -> Path:
    """A real run's cache of ``tree`` in ``cache``, every row then emptied of
    its findings: the rows a hostile writer would plant, signed with the
    current user's key (as if they had got hold of it: what is left to stop
    them is the checks of the folder and the file)."""
    assert main(["check", "--cache-dir", str(cache), str(tree)]) == 1
    (file,) = cache.glob("*.cache")
    _empty_rows(file)
    return file


def _rows(file: Path) -> list[Any]:
    """The rows of a cache file signed with the current user's key."""
    from tensorlint.engine.cache import signing_key, unseal

    rows: list[Any] = json.loads(unseal(signing_key(), file.read_bytes()))["entries"]
    return rows


def _empty_rows(file: Path) -> bytes:
    """Empty every row of the cache file ``file`` of its findings, and sign
    it with the current user's key; returns the unsigned body."""
    from tensorlint.engine.cache import seal, signing_key, unseal

    data = json.loads(unseal(signing_key(), file.read_bytes()))
    for row in data["entries"]:
        row[5] = []
    body = json.dumps(data).encode()
    file.write_bytes(seal(signing_key(), body))
    return body


def _four_findings(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(4):
        (tree / f"m{n}.py").write_text(FIXABLE)
    return tree


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_link_planted_in_the_cache_folder_is_never_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _four_findings(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    planted = tmp_path / "anywhere" / "created"
    planted.parent.mkdir()
    (cache / ".gitignore").symlink_to(planted)  # dangling: writing it would create the target
    assert main(["check", "--cache-dir", str(cache), str(tree)]) == 1
    captured = capsys.readouterr()
    assert not planted.exists()
    assert captured.out.count(": TL101") == 4
    (warning,) = captured.err.splitlines()
    assert warning.startswith("warning: the cache is not used:") and "symbolic link" in warning
    assert sorted(os.listdir(cache)) == [".gitignore"]  # nothing written there either


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_cache_folder_that_is_a_link_is_neither_read_nor_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _four_findings(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    planted = _plant_a_clean_cache(tree, elsewhere)
    capsys.readouterr()
    link = tmp_path / "cache"
    link.symlink_to(elsewhere, target_is_directory=True)
    assert main(["check", "--cache-dir", str(link), str(tree)]) == 1
    captured = capsys.readouterr()
    assert captured.out.count(": TL101") == 4
    assert "the cache is not used" in captured.err and "symbolic link" in captured.err
    assert sorted(os.listdir(elsewhere)) == [".gitignore", planted.name]


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
@pytest.mark.parametrize("writable", ["folder", "file"])
def test_a_cache_others_can_write_is_not_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    writable: str,
) -> None:
    """The modes are real (and mean the same as root): a planted row in a
    shared, world-writable cache must not turn findings into a clean run."""
    tree = _four_findings(tmp_path)
    shared = tmp_path / "shared"
    planted = _plant_a_clean_cache(tree, shared)
    monkeypatch.setenv("TENSORLINT_CACHE_DIR", str(shared))
    assert main(["check", str(tree)]) == 0  # its owner's own cache is trusted, as it is
    assert "All checks passed!" in capsys.readouterr().out
    (shared if writable == "folder" else planted).chmod(0o777 if writable == "folder" else 0o666)
    assert main(["check", str(tree)]) == 1
    captured = capsys.readouterr()
    assert captured.out.count(": TL101") == 4
    (warning,) = captured.err.splitlines()
    assert "the cache is not used" in warning and "writable by other users" in warning
    assert _rows(planted)[0][5] == []  # nor rewritten


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners")
def test_a_cache_owned_by_another_user_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As root the folder is given to another user for real (``nobody``);
    otherwise a test cannot become another user, so the current user is
    changed through ``cache._current_user``, the seam the check asks."""
    from tensorlint.engine import cache as cache_module

    tree = _four_findings(tmp_path)
    shared = tmp_path / "shared"
    _plant_a_clean_cache(tree, shared)
    capsys.readouterr()
    if os.geteuid() == 0:
        os.chown(shared, 65534, 65534)
    else:
        monkeypatch.setattr(cache_module, "_current_user", lambda: os.geteuid() + 1)
    assert main(["check", "--cache-dir", str(shared), str(tree)]) == 1
    captured = capsys.readouterr()
    assert captured.out.count(": TL101") == 4
    assert "the cache is not used" in captured.err and "owned by another user" in captured.err


def test_a_cache_shipped_in_the_tree_cannot_hide_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository ships ``.tensorlint_cache/`` with rows saying "no
    findings" for its files: every field of a row can be computed from the
    tree (path, size, content hash), but the file's MAC needs the key of
    the user who runs tensorlint, which the tree's author does not have."""
    from tensorlint.engine.cache import seal, signing_key

    tree = _four_findings(tmp_path)
    (tree / "pyproject.toml").write_text("[tool.tensorlint]\n")  # the cache goes next to it
    # the author's machine: their own key, a real run, then the rows emptied
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "author"))
    forged = _plant_a_clean_cache(tree, tree / ".tensorlint_cache")
    body = _empty_rows(forged)
    assert main(["check", str(tree)]) == 0  # for the author, it would hide all four
    capsys.readouterr()
    # the clone, checked by another user (or on another machine): their key
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "victim"))
    for shipped in (forged.read_bytes(), body, seal(b"\0" * 32, body)):  # + unsigned, zero key
        forged.write_bytes(shipped)
        assert main(["check", str(tree)]) == 1
        captured = capsys.readouterr()
        assert captured.out.count(": TL101") == 4
        assert "Checked 4 files: 4 parsed." in captured.out and captured.err == ""
    assert [row[5] != [] for row in _rows(forged)] == [True] * 4  # rewritten, under their key
    assert (tmp_path / "victim" / "tensorlint" / "cache-key").read_bytes() != (
        tmp_path / "author" / "tensorlint" / "cache-key"
    ).read_bytes()
    assert len(signing_key()) == 32


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX modes")
def test_the_cache_key_is_made_once_private_and_outside_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _four_findings(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    key = tmp_path / "user" / "tensorlint" / "cache-key"
    old = os.umask(0)  # the modes are tensorlint's own, not the umask's
    try:
        assert main(["check", "--cache-dir", str(tmp_path / "cache"), str(tree)]) == 1
    finally:
        os.umask(old)
    text = key.read_text()
    assert len(text) == 65 and int(text, 16) and text.endswith("\n")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert os.listdir(key.parent) == ["cache-key"]  # no temporary file left
    assert main(["check", "--cache-dir", str(tmp_path / "cache"), str(tree)]) == 1
    assert "4 unchanged since the last run (cached)" in capsys.readouterr().out
    assert key.read_text() == text  # the same key, used again


def _key_others_can_read(key: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    key.chmod(0o644)
    return "readable or writable by other users (mode 644)"


def _key_made_a_link(key: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    real = key.with_name("elsewhere")
    key.rename(real)
    key.symlink_to(real)
    return "is a symbolic link"


def _key_malformed(key: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    key.write_text("not a key\n")
    return "is malformed (remove it: a new one is made)"


def _key_cannot_be_made(key: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Gone, and its folder read-only (root writes through any mode: the
    file system then says it is read-only)."""
    import errno
    import tempfile

    key.unlink()
    key.parent.chmod(0o500)
    if os.geteuid() == 0:

        def read_only(*args: Any, **kwargs: Any) -> Any:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))

        monkeypatch.setattr(tempfile, "mkstemp", read_only)
    return "cannot make the cache key"


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX modes")
@pytest.mark.parametrize(
    "spoil",
    [_key_others_can_read, _key_made_a_link, _key_malformed, _key_cannot_be_made],
    ids=["others-can-read", "link", "malformed", "cannot-be-made"],
)
def test_without_a_key_of_the_users_own_the_cache_is_not_used(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spoil: Callable[[Path, pytest.MonkeyPatch], str],
) -> None:
    tree = _four_findings(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user"))
    key = tmp_path / "user" / "tensorlint" / "cache-key"
    planted = _plant_a_clean_cache(tree, tmp_path / "cache")
    before = planted.read_bytes()
    capsys.readouterr()
    words = spoil(key, monkeypatch)
    try:
        assert main(["check", "--cache-dir", str(tmp_path / "cache"), str(tree)]) == 1
    finally:
        if key.parent.is_dir():
            key.parent.chmod(0o700)
    captured = capsys.readouterr()
    assert captured.out.count(": TL101") == 4
    (warning,) = captured.err.splitlines()
    assert warning.startswith("warning: the cache is not used: ") and words in warning
    assert str(key) in warning
    assert planted.read_bytes() == before  # nor rewritten


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX modes")
def test_the_cache_folder_and_its_files_are_private(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = _four_findings(tmp_path)
    cache = tmp_path / "new" / "cache"
    old = os.umask(0)  # the modes are tensorlint's own, not the umask's
    try:
        assert main(["check", "--cache-dir", str(cache), str(tree)]) == 1
    finally:
        os.umask(old)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in cache.iterdir()} == {
        name: 0o600 for name in os.listdir(cache)
    }
    assert len(os.listdir(cache)) == 2  # .gitignore and the cache file
    assert main(["check", "--cache-dir", str(cache), str(tree)]) == 1  # and it is used
    assert "4 unchanged since the last run (cached)" in capsys.readouterr().out


def test_many_stores_into_arrays_take_linear_time() -> None:
    """Each store into an array asks what its function binds the array to:
    one walk per function, shared by its stores, never one per store."""
    from tensorlint.analysis import stores

    calls: list[Any] = []
    real = stores.bindings

    def counted(owner: Any) -> Any:
        calls.append(owner)
        return real(owner)

    lines = ["import numpy as np", "import torch", "table = np.zeros((4000, 2))"]
    lines += [f"table[{i}] = torch.stack(rows[{i}])" for i in range(4000)]
    source = "\n".join(lines) + "\n"
    import tensorlint.analysis.sites as sites_module
    from tensorlint.engine.lint import lint_source
    from tensorlint.registry import select
    from tensorlint.rule import Settings

    original = sites_module.bindings
    sites_module.bindings = counted
    try:
        findings = lint_source(source, Settings(enabled=select(select=["TL113"])))
    finally:
        sites_module.bindings = original
    assert len(calls) == 1
    assert [d.code for d in findings] == ["TL113"] * 4000
