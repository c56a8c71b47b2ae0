"""The conventions Ruff users expect (issue 25), through the command line:
``-o/--output-file``, ``--exit-non-zero-on-fix``, ``--ignore-noqa``,
``--add-noqa=REASON``, ``--watch``, ``rule --all`` and JSON, ``clean``, the
``unfixable`` and ``respect-gitignore`` keys. The output formats of the same
issue (json-lines, pylint, rdjson, azure) are in ``test_ci_formats_more.py``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Callable, Optional

import pytest
from cli_helpers import CLEAN, GRAD, WRITE_THROUGH, run, write

from tensorlint.cli import main
from tensorlint.config import KNOWN_KEYS
from tensorlint.registry import ALL_RULES

# --------------------------------------------------------------------------- -o


def test_output_file_gets_the_report_and_stderr_the_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an unknown codec cookie: a warning about the run, which stays on stderr
    source = write(tmp_path / "bad.py", "# -*- coding: future_fstrings -*-\n" + WRITE_THROUGH)
    report = tmp_path / "reports" / "nested" / "tensorlint.json"  # folders made as needed
    code, out, err = run(
        ["check", "--no-cache", "--output-format", "json", "-o", str(report), str(source)],
        capsys,
    )
    assert code == 1  # the exit code does not change with where the report goes
    assert out == ""
    assert "unknown encoding 'future_fstrings'" in err
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [f["code"] for f in document["findings"]] == ["TL201"]
    assert "future_fstrings" not in report.read_text(encoding="utf-8")
    assert [p.name for p in report.parent.iterdir()] == ["tensorlint.json"]  # no temp file left


def test_output_file_is_never_coloured_and_replaces_the_last_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "bad.py", GRAD)
    report = write(tmp_path / "report.txt", "the last run's report\n")
    os.chmod(report, 0o640)
    code, out, _ = run(
        ["check", "--no-cache", "--color", "always", "--output-file", str(report), str(source)],
        capsys,
    )
    assert code == 1 and out == ""
    text = report.read_text(encoding="utf-8")
    assert "last run" not in text
    assert f"{source}:5:12: TL101 " in text and "Found 2 findings." in text
    assert "\x1b[" not in text
    assert stat.S_IMODE(report.stat().st_mode) == 0o640  # its mode kept


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_output_file_replaces_a_link_and_never_writes_through_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "bad.py", GRAD)
    elsewhere = write(tmp_path / "outside" / "precious.txt", "keep me\n")
    link = tmp_path / "report.txt"
    link.symlink_to(elsewhere)
    assert main(["check", "--no-cache", "-o", str(link), str(source)]) == 1
    capsys.readouterr()
    assert elsewhere.read_text(encoding="utf-8") == "keep me\n"
    assert not link.is_symlink() and "TL101" in link.read_text(encoding="utf-8")


def test_output_file_that_cannot_be_written_is_an_error_and_keeps_the_old_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write(tmp_path / "bad.py", GRAD)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, out, err = run(["check", "--no-cache", "-o", str(folder), str(source)], capsys)
    assert code == 2 and out == ""
    assert f"error: the report was not written: {folder}: is a folder" in err

    report = write(tmp_path / "report.txt", "the last run's report\n")

    def fail(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    code, _, err = run(["check", "--no-cache", "-o", str(report), str(source)], capsys)
    assert code == 2 and "No space left on device" in err
    assert report.read_text(encoding="utf-8") == "the last run's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder", "bad.py", "report.txt"]


def test_output_file_with_stdin_fix_keeps_the_fixed_code_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    report = tmp_path / "report.txt"
    monkeypatch.setattr(sys, "stdin", io.StringIO(GRAD))
    code, out, _ = run(
        ["check", "--no-cache", "--fix", "--stdin-filename", "m.py", "-o", str(report)], capsys
    )
    assert code == 0
    assert out == GRAD.replace(".numpy()", ".cpu().detach().numpy()")
    assert "Fixed 2 findings (TL101 1, TL102 1)" in report.read_text(encoding="utf-8")


# ------------------------------------------------------------- --exit-non-zero-on-fix


def test_exit_non_zero_on_fix_fails_a_run_that_fixed_something(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write(tmp_path / "a" / "m.py", GRAD)
    assert main(["check", "--no-cache", "--fix", str(first)]) == 0  # nothing left: 0
    second = write(tmp_path / "b" / "m.py", GRAD)
    assert main(["check", "--no-cache", "--fix", "--exit-non-zero-on-fix", str(second)]) == 1
    assert ".cpu().detach().numpy()" in second.read_text(encoding="utf-8")
    # fixed already: nothing to fix, and nothing left
    assert main(["check", "--no-cache", "--fix", "--exit-non-zero-on-fix", str(second)]) == 0
    third = write(tmp_path / "c" / "m.py", GRAD)
    argv = ["check", "--no-cache", "--fix-only", "--exit-non-zero-on-fix", str(third)]
    assert main(argv) == 1  # --fix-only exits 0 otherwise
    capsys.readouterr()


def test_exit_non_zero_on_fix_conflicts_with_exit_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    code, _, err = run(
        ["check", "--fix", "--exit-zero", "--exit-non-zero-on-fix", str(source)], capsys
    )
    assert code == 2
    assert "--exit-non-zero-on-fix cannot be combined with --exit-zero" in err
    assert source.read_text(encoding="utf-8") == GRAD  # nothing was run


# --------------------------------------------------------------------- --ignore-noqa

SUPPRESSED = GRAD.replace(".numpy()\n", ".numpy()  # noqa: TL101, TL102\n")


def test_ignore_noqa_reports_what_comments_suppress_and_the_cache_keeps_them_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "src" / "m.py", SUPPRESSED)
    whole = write(tmp_path / "src" / "w.py", "# tensorlint: noqa\n" + GRAD)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    code, out, _ = run(["check", *cache, str(tmp_path / "src")], capsys)
    assert code == 0 and "All checks passed!" in out
    code, out, _ = run(["check", *cache, "--ignore-noqa", str(tmp_path / "src")], capsys)
    assert code == 1
    assert f"{source}:5:12: TL101 " in out and f"{source}:5:12: TL102 " in out
    assert f"{whole}:6:12: TL101 " in out
    # the cached results of each run are its own
    code, out, _ = run(["check", *cache, str(tmp_path / "src")], capsys)
    assert code == 0 and "TL101" not in out


def test_ignore_noqa_with_fix_fixes_the_suppressed_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", SUPPRESSED)
    assert main(["check", "--no-cache", "--fix", str(source)]) == 0
    assert source.read_text(encoding="utf-8") == SUPPRESSED  # suppressed: not fixed
    assert main(["check", "--no-cache", "--fix", "--ignore-noqa", str(source)]) == 0
    assert "model(x).cpu().detach().numpy()  # noqa: TL101, TL102" in source.read_text(
        encoding="utf-8"
    )
    code, _, err = run(["check", "--ignore-noqa", "--add-noqa", str(source)], capsys)
    assert code == 2 and "--ignore-noqa cannot be combined with --add-noqa" in err


# ------------------------------------------------------------------- --add-noqa=REASON


def test_add_noqa_writes_the_reason_after_the_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "src" / "m.py", GRAD)
    code, _, err = run(["check", "--no-cache", "--add-noqa=fix by 2.0", str(source)], capsys)
    assert code == 0 and "Added 2 noqa directives to 1 file." in err
    text = source.read_text(encoding="utf-8")
    assert "    return model(x).numpy()  # noqa: TL101, TL102 fix by 2.0\n" in text
    # the comment still silences both codes, for tensorlint and for flake8
    assert main(["check", "--no-cache", str(source)]) == 0
    from flake8.defaults import NOQA_INLINE_REGEXP

    match = NOQA_INLINE_REGEXP.search(text)
    assert match is not None
    assert re.split(r"[,\s]+", match.group("codes").strip()) == ["TL101", "TL102"]
    capsys.readouterr()


def test_add_noqa_without_equals_takes_no_reason_and_the_path_stays_a_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "src" / "m.py", GRAD)
    assert main(["check", "--no-cache", "--add-noqa", str(tmp_path / "src")]) == 0
    assert source.read_text(encoding="utf-8").endswith(".numpy()  # noqa: TL101, TL102\n")
    capsys.readouterr()


@pytest.mark.parametrize(
    ("reason", "why"),
    [
        ("E501 later", "its first word reads as a code"),
        (", x1 later", "its first word reads as a code"),
        ("line one\nline two", "line break"),
        ("sneaky \u202e", "bidirectional"),
    ],
)
def test_add_noqa_refuses_a_reason_that_would_change_the_comment(
    reason: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    code, _, err = run(["check", "--no-cache", f"--add-noqa={reason}", str(source)], capsys)
    assert code == 2 and why in err and "\n" not in err.rstrip("\n")
    assert source.read_text(encoding="utf-8") == GRAD


def test_tl900_keeps_the_reason_as_a_comment_when_the_codes_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    assert main(["check", "--no-cache", "--add-noqa=baseline", str(source)]) == 0
    assert main(["check", "--no-cache", "--fix", "--ignore-noqa", str(source)]) == 0
    argv = ["check", "--no-cache", "--extend-select", "TL900", "--fix", str(source)]
    assert main(argv) == 0
    assert source.read_text(encoding="utf-8").endswith(
        "    return model(x).cpu().detach().numpy()  # baseline\n"
    )
    capsys.readouterr()


# ---------------------------------------------------------------------- unfixable


def test_unfixable_codes_are_reported_without_a_fix_and_never_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    code, out, _ = run(["check", *cache, str(source)], capsys)
    assert code == 1 and out.count("[*]") == 3  # two fixable findings and the summary
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nunfixable = ["TL10"]\n')
    code, out, _ = run(["check", *cache, str(source)], capsys)  # (the cache must not answer)
    assert code == 1 and "[*]" not in out and "Found 2 findings." in out
    code, out, _ = run(["check", *cache, "--output-format", "json", str(source)], capsys)
    assert [f["fix"] for f in json.loads(out)["findings"]] == [None, None]
    code, out, _ = run(["check", *cache, "--fix", str(source)], capsys)
    assert code == 1 and source.read_text(encoding="utf-8") == GRAD
    # the command line replaces the file's list
    code, _, _ = run(["check", *cache, "--fix", "--unfixable", "TL2", str(source)], capsys)
    assert code == 0 and ".cpu().detach().numpy()" in source.read_text(encoding="utf-8")


def test_unfixable_leaves_the_other_codes_fixable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", WRITE_THROUGH + "\n\n" + GRAD.split("\n\n\n", 1)[1])
    argv = ["check", "--no-cache", "--fix", "--unsafe-fixes", "--unfixable", "TL101,TL102"]
    code, out, _ = run([*argv, str(source)], capsys)
    text = source.read_text(encoding="utf-8")
    assert "torch.from_numpy(a).clone()" in text  # TL201's (unsafe) fix: applied
    assert "model(x).numpy()" in text  # TL101/TL102's: not
    assert code == 1 and "TL102" in out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('["TL999"]', "unknown rule code or prefix 'TL999'"),
        ('["E501"]', "invalid rule code 'E501'"),
        ('"TL101"', "'unfixable' must be an array of strings"),
    ],
)
def test_unfixable_values_are_checked(
    value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "pyproject.toml", f"[tool.tensorlint]\nunfixable = {value}\n")
    source = write(tmp_path / "m.py", GRAD)
    code, out, err = run(["check", "--no-cache", str(source)], capsys)
    assert code == 2 and message in err and out == ""


def test_an_unknown_key_is_still_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nunfixible = ["TL101"]\n')
    source = write(tmp_path / "m.py", GRAD)
    code, out, err = run(["check", "--no-cache", str(source)], capsys)
    assert code == 2 and out == ""
    assert "unknown key 'unfixible'" in err and "unfixable, respect-gitignore" in err
    code, _, err = run(
        ["check", "--no-cache", "--config", "ignore-noqa = true", str(source)], capsys
    )
    assert code == 2 and "unknown key 'ignore-noqa'" in err  # a command-line option only


# -------------------------------------------------------------- respect-gitignore


@pytest.fixture
def ignored_project(tmp_path: Path) -> Path:
    """A project whose ``.gitignore`` and ``.git/info/exclude`` each hide a bad file."""
    write(tmp_path / ".gitignore", "generated/\n")
    write(tmp_path / ".git" / "info" / "exclude", "scratch.py\n")
    write(tmp_path / "generated" / "bad.py", GRAD)
    write(tmp_path / "scratch.py", WRITE_THROUGH)
    write(tmp_path / "ok.py", CLEAN)
    return tmp_path


def _checked(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, set[str]]:
    code, out, _ = run(["check", "--no-cache", "--output-format", "json", *args], capsys)
    return code, {Path(f["file"]).name for f in json.loads(out)["findings"]}


def test_respect_gitignore_defaults_to_true_and_reads_the_files_without_git(
    ignored_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(ignored_project / "no-programs-here"))  # no git to run
    assert _checked([str(ignored_project)], capsys) == (0, set())
    write(ignored_project / "pyproject.toml", "[tool.tensorlint]\nrespect-gitignore = false\n")
    assert _checked([str(ignored_project)], capsys) == (1, {"bad.py", "scratch.py"})
    # the command line overrides the file, both ways
    assert _checked(["--respect-gitignore", str(ignored_project)], capsys) == (0, set())
    write(ignored_project / "pyproject.toml", "[tool.tensorlint]\n")
    code, found = _checked(["--no-respect-gitignore", str(ignored_project)], capsys)
    assert (code, found) == (1, {"bad.py", "scratch.py"})
    code, found = _checked(["--config", "respect-gitignore = false", str(ignored_project)], capsys)
    assert (code, found) == (1, {"bad.py", "scratch.py"})


def test_respect_gitignore_must_be_a_boolean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tensorlint]\nrespect-gitignore = "no"\n')
    code, _, err = run(["check", "--no-cache", str(write(tmp_path / "m.py", GRAD))], capsys)
    assert code == 2 and "'respect-gitignore' must be true or false" in err


# ---------------------------------------------------------------- rule --all, JSON


def test_rule_all_prints_every_rule_as_rule_code_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    singles = []
    for rule in ALL_RULES:
        code, out, _ = run(["rule", rule.CODE], capsys)
        assert code == 0
        singles.append(out)
    code, out, _ = run(["rule", "--all"], capsys)
    assert code == 0 and out == "\n".join(singles)


def test_rule_and_rules_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rule", "tl201", "--output-format", "json"], capsys)
    entry = json.loads(out)
    assert code == 0
    assert set(entry) == {"code", "name", "summary", "default", "level", "fix", "explanation"}
    assert (entry["code"], entry["name"], entry["default"], entry["fix"], entry["level"]) == (
        "TL201",
        "from-numpy-write-through",
        True,
        "unsafe",
        "error",
    )
    _, text, _ = run(["rule", "TL201"], capsys)
    assert entry["explanation"] in text and entry["explanation"].startswith("## What it does")
    _, every, _ = run(["rule", "--all", "--output-format", "json"], capsys)
    _, listed, _ = run(["rules", "--output-format", "json"], capsys)
    assert every == listed
    entries = json.loads(every)
    assert [e["code"] for e in entries] == [rule.CODE for rule in ALL_RULES]
    assert {e["code"]: e["default"] for e in entries}["TL111"] is False
    assert {e["code"]: e["level"] for e in entries}["TL111"] == "warning"


@pytest.mark.parametrize(
    "argv",
    [["rule"], ["rule", "TL101", "--all"], ["rule", "TL999", "--output-format", "json"]],
)
def test_rule_needs_one_code_or_all(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "" and err.startswith("error: ")


# --------------------------------------------------------------------------- clean


def test_clean_removes_the_project_cache_and_nested_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\n")
    write(tmp_path / "src" / "m.py", GRAD)
    write(tmp_path / "sub" / "pyproject.toml", "[tool.tensorlint]\nstrict = true\n")
    write(tmp_path / "sub" / "n.py", GRAD)
    assert main(["check", str(tmp_path / "src")]) == 1
    assert main(["check", str(tmp_path / "sub")]) == 1
    caches = [tmp_path / ".tensorlint_cache", tmp_path / "sub" / ".tensorlint_cache"]
    assert all(any(folder.glob("*.cache")) for folder in caches)
    capsys.readouterr()
    code, out, err = run(["clean", str(tmp_path)], capsys)
    assert code == 0 and out == ""
    assert not any(folder.exists() for folder in caches)
    assert all(f"Removed {folder}" in err for folder in caches)
    assert (tmp_path / "src" / "m.py").exists() and (tmp_path / "sub" / "n.py").exists()
    code, _, err = run(["clean", str(tmp_path)], capsys)
    assert code == 0 and "No cache to remove" in err


def test_clean_finds_the_cache_where_check_puts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    elsewhere = tmp_path / "caches" / "tl"
    monkeypatch.setenv("TENSORLINT_CACHE_DIR", str(elsewhere))
    assert main(["check", str(source)]) == 1
    assert any(elsewhere.glob("*.cache"))
    assert main(["clean", str(source)]) == 0
    assert not elsewhere.exists()
    monkeypatch.delenv("TENSORLINT_CACHE_DIR")
    explicit = tmp_path / "explicit"
    assert main(["check", "--cache-dir", str(explicit), str(source)]) == 1
    assert main(["clean", "--cache-dir", str(explicit)]) == 0
    assert not explicit.exists()
    capsys.readouterr()


def test_clean_leaves_a_folder_that_is_not_only_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "m.py", GRAD)
    folder = tmp_path / "home"
    assert main(["check", "--cache-dir", str(folder), str(source)]) == 1
    mine = write(folder / "notes.txt", "mine\n")
    theirs = write(folder / ".gitignore", "*.log\n")  # not the one tensorlint writes
    before = sorted(p.name for p in folder.iterdir())
    code, _, err = run(["clean", "--cache-dir", str(folder)], capsys)
    assert code == 2
    assert f"error: {folder}: not removed: it holds what tensorlint does not write" in err
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing removed at all
    assert mine.read_text(encoding="utf-8") == "mine\n" and theirs.exists()


@pytest.mark.skipif(os.name == "nt", reason="symbolic links")
def test_clean_does_not_follow_a_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "target"
    write(target / "v0.1.0-x.cache", "{}")
    project = tmp_path / "project"
    write(project / "m.py", CLEAN)
    (project / ".tensorlint_cache").symlink_to(target, target_is_directory=True)
    code, _, err = run(["clean", str(project)], capsys)
    assert code == 2 and "it is a symbolic link" in err
    assert (target / "v0.1.0-x.cache").exists()


# --------------------------------------------------------------------------- --watch


def _lines(stream: object) -> queue.Queue[Optional[str]]:
    found: queue.Queue[Optional[str]] = queue.Queue()

    def pump() -> None:
        for line in stream:  # type: ignore[attr-defined]
            found.put(line)
        found.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return found


def _wait_for(lines: queue.Queue[Optional[str]], wanted: Callable[[str], bool]) -> list[str]:
    """The lines read until one is ``wanted`` (a minute at most)."""
    seen: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=deadline - time.monotonic())
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if wanted(line):
            return seen
    raise AssertionError(f"not seen; the output was: {''.join(seen)!r}")


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def watching(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    source = write(tmp_path / "proj" / "m.py", CLEAN)
    process = subprocess.Popen(
        [sys.executable, "-m", "tensorlint", "check", "--watch", "--no-cache", "proj"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C must reach it even when the suite runs as a background job,
        # whose children start with SIGINT ignored (Python then installs no handler)
        preexec_fn=_interruptible if os.name != "nt" else None,
    )
    try:
        yield process, source
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def test_watch_checks_again_when_a_file_changes(
    watching: tuple[subprocess.Popen[str], Path],
) -> None:
    process, source = watching
    out = _lines(process.stdout)
    first = _wait_for(out, lambda line: line.startswith("Checked "))
    assert "All checks passed!\n" in first
    source.write_text(WRITE_THROUGH, encoding="utf-8")
    second = _wait_for(out, lambda line: line.startswith("Checked "))
    assert any(line.startswith("proj/m.py:6:9: TL201 ") for line in second), second
    new = write(source.parent / "pkg" / "n.py", GRAD)  # a new file is a change too
    third = _wait_for(out, lambda line: line.startswith("Checked "))
    assert any(line.startswith("proj/pkg/n.py:5:12: TL102 ") for line in third), third
    assert new.exists()
    if os.name != "nt":  # Ctrl-C ends it, with exit code 0
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert process.stderr is not None
        err = process.stderr.read()
        assert "Starting tensorlint in watch mode" in err
        assert err.count("File change detected") == 2


@pytest.mark.parametrize("option", ["--add-noqa", "--show-files", "--show-settings"])
def test_watch_refuses_what_it_cannot_repeat(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["check", "--watch", option, str(tmp_path)], capsys)
    assert code == 2 and f"--watch cannot be combined with {option}" in err


def test_watch_snapshot_sees_what_a_check_reads(tmp_path: Path) -> None:
    from tensorlint.watch import snapshot

    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\n")
    write(tmp_path / "src" / "m.py", CLEAN)
    write(tmp_path / ".venv" / "lib" / "x.py", CLEAN)
    before = snapshot([tmp_path / "src"])
    assert str(tmp_path / "src" / "m.py") in before
    assert str(tmp_path / "pyproject.toml") in before  # a configuration above applies
    assert not any(".venv" in name for name in before)  # never walked
    write(tmp_path / ".venv" / "lib" / "x.py", GRAD)
    assert snapshot([tmp_path / "src"]) == before
    write(tmp_path / "pyproject.toml", "[tool.tensorlint]\nstrict = true\n")
    assert snapshot([tmp_path / "src"]) != before


# ------------------------------------------------------------ the README documents it


README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_the_readme_documents_every_option() -> None:
    """Each option of ``check``, ``rule``, ``rules`` and ``clean`` is in the
    README (under one of its spellings)."""
    import argparse

    from tensorlint.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [
        f"{name} {action.option_strings[-1]}"
        for name in ("check", "rule", "rules", "clean")
        for action in commands.choices[name]._actions
        if action.option_strings
        and "--help" not in action.option_strings
        and not any(re.search(rf"{o}\b", README) for o in action.option_strings)
    ]
    assert missing == []


def test_the_readme_configuration_block_lists_every_key() -> None:
    from tensorlint.config import table_changes, tomllib

    section = README.split("\n## Configuration\n", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    table = tomllib.loads(block)["tool"]["tensorlint"]
    assert sorted(table) == sorted(KNOWN_KEYS)
    table_changes(Path("README.md"), table)  # and is a valid table (ConfigError otherwise)


def test_the_readme_lists_every_output_format() -> None:
    from tensorlint.cli import build_parser
    from tensorlint.reporters import FORMATS

    section = README.split("\n## CI output formats\n", 1)[1]
    table = section.split("\n| format |", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"^\| `([a-z-]+)` \|", table, re.MULTILINE)
    assert listed == list(FORMATS)
    options = build_parser().parse_args(["check"])
    assert options.output_format == "text"
    for name in FORMATS:  # and --output-format offers each of them
        assert build_parser().parse_args(["check", "--output-format", name]).output_format == name
