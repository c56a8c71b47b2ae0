"""Every bad input through the CLI: one line naming the file and the reason,
exit 2, no traceback, and the other files still checked."""

from __future__ import annotations

import codecs
import errno
import json
import os
import warnings
from pathlib import Path
from typing import Any

import pytest

from tensorlint.cli import main

FINDING = "import torch\n\ndef _f(x):\n    return x.cuda().numpy()\n"

#: name -> (bytes, the words its error line must hold)
BROKEN: dict[str, tuple[bytes, str]] = {
    # (a file with no conversion in it is never parsed: only these can fail)
    "syntax.py": (b"import torch\ndef f(:\n    t.numpy()\n", "syntax error at line 2"),
    "utf8.py": (b"import torch\nx = '\xff\xfe'\n", "cannot decode"),
    "nul.py": (b"import torch\nx = t.numpy()\x00\n", "null bytes"),
    "binary.py": (bytes(range(256)) * 4, "cannot decode"),
    "coding.py": (
        b"# -*- coding: no-such-codec -*-\nimport torch\nx = '\xe9'\n",
        "unknown encoding 'no-such-codec' (a codec Python does not have), and not UTF-8 either",
    ),
    "bad.ipynb": (b'{"cells": [', "not valid JSON"),
    "nocells.ipynb": (b'{"metadata": {}}', "no 'cells' list"),
    "badsource.ipynb": (
        json.dumps({"cells": [{"cell_type": "code", "source": {"a": 1}}]}).encode(),
        "'source' is not text",
    ),
}

#: name -> bytes of inputs that are odd but valid: they get their findings
VALID: dict[str, bytes] = {
    "latin1.py": b"# -*- coding: latin-1 -*-\n" + FINDING.encode() + b"# caf\xe9\n",
    "bom.py": codecs.BOM_UTF8 + FINDING.encode(),
    "crlf.py": FINDING.replace("\n", "\r\n").encode(),
    "cr.py": FINDING.replace("\n", "\r").encode(),
    "empty.py": b"",
    # a codec Python does not have (a source transformer's): read as UTF-8
    "shim.py": b"# -*- coding: future_fstrings -*-\n" + FINDING.encode() + b"# caf\xc3\xa9\n",
}


def test_each_bad_input_is_one_error_line_and_the_rest_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, (data, _) in BROKEN.items():
        (tmp_path / name).write_bytes(data)
    for name, data in VALID.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.py").mkdir()  # a directory with a .py name: walked, not read
    (tmp_path / "folder.py" / "inner.py").write_text(FINDING)
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    out = captured.out
    assert "Traceback" not in out + captured.err
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    for name, (_, words) in BROKEN.items():
        (line,) = [e for e in errors if f"{name}:" in e]
        assert words in line, line
    assert len(errors) == len(BROKEN)
    for name in [*VALID, "inner.py"]:
        if name != "empty.py":
            assert f"{name}:" in out and "TL101" in out, name
    # the summary counts what was checked: not the files that could not be
    checked = len(VALID) + 1  # (inner.py; empty.py has no conversion)
    assert f"{len(BROKEN)} files could not be checked." in out
    assert f"Checked {checked} files: {checked - 1} parsed, 1 without a conversion" in out


@pytest.mark.parametrize("flags", [[], ["--fix"], ["--diff"]], ids=["check", "fix", "diff"])
def test_a_missing_file_is_not_counted_as_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    (tmp_path / "m.py").write_text(FINDING)
    missing, present = tmp_path / "nope.py", tmp_path / "m.py"
    assert main(["check", "--no-cache", *flags, str(missing)]) == 2
    captured = capsys.readouterr()
    report = captured.err if "--diff" in flags else captured.out
    assert f"error: {missing}: No such file or directory" in report
    if flags:
        assert "Scanned 0 files; " in report and "All checks passed!" not in report
        assert "1 file could not be checked or fixed" in report
    else:
        assert report.splitlines()[1:] == ["1 file could not be checked.", "Checked 0 files."]
    assert main(["check", "--no-cache", *flags, str(missing), str(present)]) == 2
    captured = capsys.readouterr()
    report = captured.err if "--diff" in flags else captured.out
    assert ("Scanned 1 file; " if flags else "Checked 1 file: 1 parsed.") in report


@pytest.mark.parametrize(
    "text",
    [
        "[tool.tensorlint\n",
        "[tool.tensorlint]\nselect = 3\n",
        "[tool.tensorlint]\nnumpy-idiom = 'nope'\n",
        "[tool.tensorlint]\nexclude = 'not-a-list'\n",
        "[tool.tensorlint]\nstrict = 'yes'\n",
    ],
    ids=["toml", "select", "idiom", "exclude", "strict"],
)
def test_a_bad_configuration_is_one_error_line(
    tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "m.py").write_text(FINDING)
    assert main(["check", "--no-cache", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "pyproject.toml" in lines[0]


def _make_unreadable(paths: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000; as root (which reads through any mode), the same refusal
    is had by making listing and opening those paths raise EACCES."""
    for path in paths:
        path.chmod(0)
    if os.geteuid() != 0:
        return
    denied = {os.fspath(p) for p in paths}
    real_scandir, real_open = os.scandir, os.open

    def scandir(path: Any = ".") -> Any:
        if os.fspath(path) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "open", open_)


def test_unreadable_files_and_directories_are_one_error_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.py").write_text(FINDING)
    (tmp_path / "secret.py").write_text(FINDING)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.py").write_text(FINDING)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")  # walked: not a file
    try:
        _make_unreadable([tmp_path / "secret.py", tmp_path / "locked"], monkeypatch)
        code = main(["check", "--no-cache", str(tmp_path)])
    finally:
        (tmp_path / "locked").chmod(0o755)
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.out + captured.err
    errors = [line for line in captured.out.splitlines() if line.startswith("error:")]
    assert sorted(errors) == [
        f"error: {tmp_path / 'locked'}: cannot list the directory: Permission denied",
        f"error: {tmp_path / 'secret.py'}: Permission denied",
    ]
    assert f"{tmp_path / 'good.py'}:4:12: TL101" in captured.out
    assert "dangling" not in captured.out


def test_python_warnings_about_the_checked_code_are_not_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``"\d"`` is a SyntaxWarning on stderr from Python 3.12 on (a
    # DeprecationWarning before): the code's own linters report that; a check,
    # a fix and a baseline print their own output only
    source = 'import re\nimport torch\n\nPATTERN = re.compile("\\d+")\n\n\ndef f(x):\n'
    source += "    return x.cuda().numpy()\n"
    path = tmp_path / "escapes.py"
    path.write_text(source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["check", "--no-cache", str(path)]) == 1
        assert main(["check", "--no-cache", "--fix", str(path)]) == 0
        assert main(["check", "--no-cache", "--add-noqa", str(path)]) == 0
    assert [str(w.message) for w in caught] == []
    assert "Warning" not in capsys.readouterr().err
    assert ".cpu()" in path.read_text()


#: a file whose coding cookie names a codec Python does not have (a source
#: transformer of the Python 2 to 3 years registers it when installed)
SHIM = (
    b"# -*- coding: future_fstrings -*-\r\nimport torch\r\n\r\n# caf\xc3\xa9\r\n"
    b"def _f(x):\r\n    return x.cuda().numpy()  # \xc3\xa9t\xc3\xa9\r\n"
)


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_a_cookie_naming_a_codec_python_lacks_is_read_as_utf_8_and_said_once_per_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    shim, quiet = tree / "shim.py", tree / "quiet.py"
    shim.write_bytes(SHIM)
    quiet.write_bytes(b"#!/usr/bin/env python\n# coding: pyxl\nname = '\xc3\xa9t\xc3\xa9'\n")
    (tree / "plain.py").write_text(FINDING)
    expected = [
        f"warning: {path}: unknown encoding {codec!r} (a codec Python does not have): read as UTF-8"
        for path, codec in [(quiet, "pyxl"), (shim, "future_fstrings")]
    ]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for run in ("cold", "cached"):
        assert main(["check", *cache, str(tree)]) == 1
        out, err = capsys.readouterr()
        assert f"{shim}:6:12: TL101" in out, run
        assert sorted(_warnings(err)) == expected, run
        assert "error:" not in out + err, run
    assert "3 unchanged since the last run (cached)" in out
    assert main(["check", *cache, "-q", str(tree)]) == 1  # --quiet: the findings only
    out, err = capsys.readouterr()
    assert f"{shim}:6:12: TL101" in out and err == ""
    assert main(["check", "--no-cache", "--output-format", "json", str(tree)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["findings"] and sorted(_warnings(err)) == expected


def test_fix_keeps_the_cookie_and_every_other_byte_of_a_file_in_a_codec_python_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shim.py"
    path.write_bytes(SHIM)
    path.chmod(0o640)
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0
    fixed = SHIM.replace(b"x.cuda().numpy()", b"x.cuda().cpu().detach().numpy()")
    assert fixed != SHIM and path.read_bytes() == fixed
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert "Fixed 1 finding (TL101 1)" in capsys.readouterr().out
    assert main(["check", "--no-cache", "--fix", str(path)]) == 0  # nothing left: unchanged
    assert path.read_bytes() == fixed


def test_a_file_in_a_codec_python_lacks_that_is_not_utf_8_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_bytes(SHIM.replace(b"caf\xc3\xa9", b"caf\xe9"))  # Latin-1 on line 4
    (tmp_path / "good.py").write_text(FINDING)
    for extra in ([], ["--fix"]):
        assert main(["check", "--no-cache", *extra, str(tmp_path)]) == 2
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        assert [line for line in (out + err).splitlines() if line.startswith("error:")] == [
            f"error: {broken}: unknown encoding 'future_fstrings' (a codec Python does not "
            "have), and not UTF-8 either (line 4)"
        ]
        assert _warnings(err) == []
    assert f"{tmp_path / 'good.py'}:4:12: TL101" not in out  # (fixed by the --fix run)
    assert ".cpu()" in (tmp_path / "good.py").read_text()
    assert broken.read_bytes() == SHIM.replace(b"caf\xc3\xa9", b"caf\xe9")


def _special(path: Path, kind: str) -> None:
    """``path`` made a FIFO (a read blocks forever) or a link to ``/dev/zero``
    (a read never ends): git commits and clones such links."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def _cache_file(directory: Path) -> Path:
    from tensorlint.engine.cache import Cache

    return Cache(directory).path


#: where -> (make the special file there, given the tree; the command line's
#: extra arguments; the exit code; the words of the one error line, or None)
PLACES: dict[str, tuple[Any, list[str], int, Any]] = {
    "source": (lambda t: t / "x.py", ["{tree}/x.py"], 2, "x.py: not a regular file"),
    "gitignore": (lambda t: t / "sub" / ".gitignore", [], 2, ".gitignore: not a regular file"),
    "git-exclude": (lambda t: t / ".git" / "info" / "exclude", [], 2, "exclude: not a regular"),
    "pyproject": (lambda t: t / "pyproject.toml", [], 1, None),  # not one: the defaults apply
    "config": (
        lambda t: t.parent / "config.toml",
        ["--config", "{tree}/../config.toml"],
        2,
        "config.toml: cannot read file: not a regular file",
    ),
    "cache": (
        lambda t: _cache_file(t.parent / "cache"),
        ["--cache-dir", "{tree}/../cache"],
        1,
        None,
    ),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("where", list(PLACES))
def test_a_special_file_is_never_read(tmp_path: Path, where: str, kind: str) -> None:
    """A FIFO or a link to ``/dev/zero`` wherever tensorlint reads: one error
    line (or, for a file that is only looked for, nothing), never a hang or
    an out-of-memory kill; in a child process with a time limit, so that a
    regression fails instead of hanging the test run."""
    import subprocess
    import sys

    make, extra, code, words = PLACES[where]
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "ok.py").write_text(FINDING)
    (tree / "sub" / "inner.py").write_text(FINDING)
    _special(make(tree), kind)
    args = [arg.format(tree=tree) for arg in extra]
    if where != "cache":
        args.insert(0, "--no-cache")
    proc = subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", *args, str(tree)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == code, output
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    if words is None:
        assert errors == []
    else:
        assert len(errors) == 1 and words in errors[0], output
    if where != "config":
        assert "ok.py:4:12: TL101" in proc.stdout and "inner.py:4:12: TL101" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_file_in_a_renamed_checkout_is_never_read(tmp_path: Path, kind: str) -> None:
    """A checkout whose folder holds the package under another name
    (``speech-master`` imported as ``speech``) is looked through for files
    importing it so: a special file there is skipped, and the caller in
    another file is still found (in a child process with a time limit)."""
    import subprocess
    import sys

    checkout = tmp_path / "speech-master"
    (checkout / "utils").mkdir(parents=True)
    (checkout / "__init__.py").write_text("")
    (checkout / "utils" / "__init__.py").write_text("")
    (checkout / "utils" / "checks.py").write_text(
        "import numpy as np\nimport torch\n\n\ndef finite(net):\n"
        "    norm = torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)\n"
        "    return not np.isinf(norm)\n"
    )
    (checkout / "train.py").write_text(
        "import torch\n\nfrom speech.utils.checks import finite\n\n\ndef main():\n"
        "    net = torch.nn.Linear(2, 2).cuda()\n    return finite(net)\n"
    )
    _special(checkout / "aaa.py", kind)  # (read first, in sorted order)
    proc = subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", "utils/checks.py"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=checkout,
    )
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output
    assert "checks.py:7:16: TL103" in proc.stdout, output
