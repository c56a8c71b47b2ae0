"""The command line as a user meets it: output, exit codes, files on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import CLEAN, GRAD, WRITE_THROUGH, run


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def test_clean_code_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "ok.py", CLEAN)
    code, out, _ = run(["check", str(tmp_path)], capsys)
    assert code == 0
    assert "All checks passed!" in out


def test_findings_are_printed_as_path_line_col_code_and_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.py", GRAD)
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 1
    assert f"{path}:5:12: TL101 " in out
    assert f"{path}:5:12: TL102 " in out
    assert out.count("[*]") == 3  # two fixable findings and the summary
    assert "Found 2 findings." in out


def test_unsafe_fixes_are_announced_but_not_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "wt.py", WRITE_THROUGH)
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 1
    assert "TL201 `t` is written in place at line 7, which also changes the caller's `a`" in out
    assert "[*]" not in out
    assert "1 more fixable with `--fix --unsafe-fixes`." in out


def test_exit_zero_keeps_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "bad.py", GRAD)
    code, out, _ = run(["check", "--exit-zero", str(tmp_path)], capsys)
    assert code == 0 and "TL102" in out


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (["--select", "TL101"], {"TL101"}),
        (["--ignore", "TL1"], set()),
        (["--select", "TL1", "--ignore", "TL102"], {"TL101"}),
        (["--ignore", "TL1", "--extend-select", "TL102"], {"TL102"}),
        (["--select", "TL101", "--ignore", "TL101"], set()),
    ],
    ids=[
        "select-code",
        "ignore-prefix",
        "select-prefix-ignore-code",
        "more-specific-selector-wins",
        "ignore-wins-ties",
    ],
)
def test_selection_by_code_and_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], codes: set[str]
) -> None:
    write(tmp_path, "bad.py", GRAD)
    _code, out, _ = run(["check", *args, str(tmp_path)], capsys)
    found = {word for word in out.split() if word.startswith("TL") and word[2:].isdigit()}
    assert found == codes


def test_strict_enables_the_latent_alias_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "a.py", "import torch\n\n\ndef f(a):\n    return torch.from_numpy(a)\n")
    assert run(["check", str(tmp_path)], capsys)[0] == 0
    code, out, _ = run(["check", "--strict", str(tmp_path)], capsys)
    assert code == 1 and "TL211" in out


def test_fix_rewrites_safe_findings_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grad = write(tmp_path, "grad.py", GRAD)
    wt = write(tmp_path, "wt.py", WRITE_THROUGH)
    code, out, _ = run(["check", "--fix", str(tmp_path)], capsys)
    assert grad.read_text() == GRAD.replace("model(x).numpy()", "model(x).cpu().detach().numpy()")
    assert wt.read_text() == WRITE_THROUGH
    assert code == 1  # the unsafe one is left
    assert "Scanned 2 files; changed 1 file." in out
    assert "Fixed 2 findings (TL101 1, TL102 1); 1 remaining." in out
    assert "1 unsafe fix held back" in out and "--fix --unsafe-fixes" in out


def test_unsafe_fixes_rewrite_the_rest_and_a_second_run_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wt = write(tmp_path, "wt.py", WRITE_THROUGH)
    code, _, _ = run(["check", "--fix", "--unsafe-fixes", str(tmp_path)], capsys)
    assert code == 0
    assert "torch.from_numpy(a).clone()" in wt.read_text()
    assert run(["check", str(tmp_path)], capsys)[0] == 0


def test_diff_prints_a_patch_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "grad.py", GRAD)
    code, out, _ = run(["check", "--diff", str(path)], capsys)
    assert code == 1
    assert path.read_text() == GRAD
    assert f"--- a/{path}" in out
    assert "-    return model(x).numpy()" in out
    assert "+    return model(x).cpu().detach().numpy()" in out


def test_diff_applies_cleanly_with_git_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "pkg/grad.py", GRAD)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        _, patch, _ = run(["check", "--diff", "pkg"], capsys)
    finally:
        os.chdir(cwd)
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert "model(x).cpu().detach().numpy()" in (tmp_path / "pkg/grad.py").read_text()


def test_fix_keeps_crlf_bom_and_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "win.py"
    path.write_bytes(b"\xef\xbb\xbf" + GRAD.replace("\n", "\r\n").encode())
    path.chmod(0o754)
    run(["check", "--fix", str(path)], capsys)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"model(x).cpu().detach().numpy()\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert path.stat().st_mode & 0o777 == 0o754


def test_unchanged_files_are_not_rewritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "ok.py", CLEAN)
    os.utime(path, (1_000_000, 1_000_000))
    run(["check", "--fix", str(path)], capsys)
    assert path.stat().st_mtime == 1_000_000


def test_a_broken_file_is_one_line_and_the_others_are_still_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write(tmp_path, "broken.py", "import torch\ndef f(:\n    t.numpy()\n")
    write(tmp_path, "bad.py", GRAD)
    (tmp_path / "latin.py").write_bytes(b"import torch\nx = '\xff'.numpy()\n")
    code, out, _ = run(["check", str(tmp_path)], capsys)
    assert code == 2
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 2
    assert any(str(broken) in e and "syntax error at line 2" in e for e in errors)
    assert any("latin.py" in e and "decode" in e for e in errors)
    assert "Traceback" not in out
    assert "TL102" in out


def test_missing_path_is_an_error_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["check", str(tmp_path / "nope.py")], capsys)
    assert code == 2
    assert "nope.py" in out and "No such file" in out


def test_noqa_suppresses_listed_codes_and_bare_noqa_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = GRAD.replace("numpy()\n", "numpy()  # noqa: TL102\n")
    write(tmp_path, "a.py", text)
    write(tmp_path, "b.py", GRAD.replace("numpy()\n", "numpy()  # noqa\n"))
    _code, out, _ = run(["check", str(tmp_path)], capsys)
    assert "a.py:5:12: TL101" in out
    assert "TL102" not in out
    assert "b.py" not in out


def test_configuration_is_found_and_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        '[tool.tensorlint]\nignore = ["TL101"]\nnumpy-idiom = "detach-cpu"\n'
        '[tool.tensorlint.per-file-ignores]\n"legacy/*" = ["TL1"]\n',
    )
    src = write(tmp_path, "src/m.py", GRAD)
    write(tmp_path, "legacy/old.py", GRAD)
    _code, out, _ = run(["check", str(tmp_path)], capsys)
    assert "TL101" not in out and "legacy" not in out
    assert "m.py:5:12: TL102" in out
    run(["check", "--fix", str(src)], capsys)
    assert "model(x).detach().numpy()" in src.read_text()  # TL101 is ignored


def test_numpy_idiom_sets_the_order_of_inserted_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "pyproject.toml", '[tool.tensorlint]\nnumpy-idiom = "detach-cpu"\n')
    src = write(tmp_path, "m.py", GRAD)
    run(["check", "--fix", str(tmp_path)], capsys)
    assert "model(x).detach().cpu().numpy()" in src.read_text()
    run(["check", "--fix", "--numpy-idiom", "force", str(write(tmp_path, "n.py", GRAD))], capsys)
    assert "model(x).numpy(force=True)" in (tmp_path / "n.py").read_text()


NO_GRAD_PARAMETER = """\
import torch


@torch.no_grad()
def weights(model):
    return model.weight.cpu().numpy()
"""


def test_target_version_before_1_6_reports_a_parameter_converted_under_no_grad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path, "m.py", NO_GRAD_PARAMETER)
    _code, out, _ = run(["check", "--no-cache", "--select", "TL102", str(src)], capsys)
    assert "TL102" not in out  # torch >= 1.6 converts it under no_grad
    _code, out, _ = run(
        ["check", "--no-cache", "--select", "TL102", "--target-version", "1.5", str(src)], capsys
    )
    assert "m.py:6:12: TL102" in out and "below 1.6" in out
    write(tmp_path, "pyproject.toml", '[tool.tensorlint]\ntarget-version = "1.4"\n')
    _code, out, _ = run(["check", "--no-cache", "--select", "TL102", str(tmp_path)], capsys)
    assert "m.py:6:12: TL102" in out


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("selct = []", "unknown key 'selct'"),
        ('numpy-idiom = "clone"', "numpy-idiom"),
        ('select = "TL1"', "select"),
        ('select = ["XX1"]', "XX1"),
        ("strict = 1", "strict"),
    ],
    ids=["unknown-key", "bad-idiom", "not-a-list", "bad-code", "not-a-bool"],
)
def test_bad_configuration_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, message: str
) -> None:
    write(tmp_path, "pyproject.toml", f"[tool.tensorlint]\n{table}\n")
    write(tmp_path, "m.py", GRAD)
    code, _out, err = run(["check", str(tmp_path)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "pyproject.toml" in err and message in err


def test_unknown_prefix_on_the_command_line_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["check", "--select", "TL8", str(tmp_path)], capsys)
    assert code == 2 and "TL8" in err


def test_gitignored_and_default_excluded_files_are_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, "generated/g.py", GRAD)
    write(tmp_path, ".venv/lib/v.py", GRAD)
    named = write(tmp_path, "build/explicit.py", GRAD)
    code, out, _ = run(["check", str(tmp_path)], capsys)
    assert code == 0, out
    code, out, _ = run(["check", str(named)], capsys)
    assert code == 1 and "explicit.py" in out


def test_the_console_script_runs_as_a_module(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", GRAD)
    done = subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "TL101" in done.stdout


def test_check_does_not_import_torch_or_numpy(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", GRAD)
    code = (
        "import sys\nfrom tensorlint.cli import main\n"
        f"main(['check', '--exit-zero', {str(tmp_path)!r}])\n"
        "assert 'torch' not in sys.modules and 'numpy' not in sys.modules, 'imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_files_that_cannot_match_are_checked_without_importing_libcst(tmp_path: Path) -> None:
    write(tmp_path, "plain.py", "import os\n\nprint(os.sep)\n")
    write(tmp_path, "torchy.py", "import torch\n\nx = torch.ones(2)\n")
    write(tmp_path, "data.py", "NAMES = ['blowtorch', 'array(of) things', 'x.numpy()']\n")
    code = (
        "import sys\nfrom tensorlint.cli import main\n"
        f"assert main(['check', {str(tmp_path)!r}]) == 0\n"
        "assert 'libcst' not in sys.modules, 'libcst was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_stdin_filename_checks_a_buffer_and_fix_prints_the_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(GRAD))
    code, out, _ = run(["check", "--stdin-filename", str(tmp_path / "buf.py")], capsys)
    assert code == 1 and f"{tmp_path / 'buf.py'}:5:12: TL101" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(GRAD))
    code, out, err = run(["check", "--fix", "--stdin-filename", str(tmp_path / "buf.py")], capsys)
    assert out == GRAD.replace("model(x).numpy()", "model(x).cpu().detach().numpy()")
    assert "Fixed 2 findings" in err
    assert not (tmp_path / "buf.py").exists()


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from tensorlint.engine.progress import Progress, wanted

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    assert wanted(Tty()) and not wanted(io.StringIO())
    monkeypatch.setenv("CI", "true")
    assert not wanted(Tty())
    stream = Tty()
    bar = Progress(stream)
    bar(5, 10)
    assert "5/10 files" in stream.getvalue()


#: what a terminal acts on: ESC (here a CSI sequence that clears the screen),
#: BEL, BS, the one-byte CSI, and the bidirectional controls (U+202E reverses
#: what follows; U+2066 isolates)
CODE_CONTROLS = "\x1b[2J\x07\x08\x9b\u202e\u2066"


@pytest.mark.skipif(sys.platform == "win32", reason="such file names are POSIX")
@pytest.mark.parametrize("output_format", ["text", "concise", "full", "github", "json", "sarif"])
def test_terminal_controls_from_the_code_and_file_names_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    import json

    name = "model\u202eyp.py"  # would show as "modelpy.py", reversed, printed raw
    code = f'import torch\n\ndef _f(x):\n    return x["{CODE_CONTROLS}"].cuda().numpy()\n'
    write(tmp_path, name, code)
    args = ["check", "--no-cache", "--output-format", output_format, str(tmp_path)]
    status, out, _ = run(args, capsys)
    assert status == 1
    assert not any(char in out for char in "\x1b\x07\x08\x9b\u202e\u2066"), out
    if output_format in ("json", "sarif"):  # the exact strings, in JSON's escapes
        document = json.loads(out)
        if output_format == "json":
            messages = [finding["message"] for finding in document["findings"]]
            assert document["findings"][0]["file"] == str(tmp_path / name)
        else:
            messages = [result["message"]["text"] for result in document["runs"][0]["results"]]
        assert messages and all(CODE_CONTROLS in message for message in messages)
    else:
        assert "\\x1b[2J\\x07\\x08\\x9b\\u202e\\u2066" in out
        assert "model\\u202eyp.py" in out
