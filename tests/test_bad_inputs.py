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
    "coding.py": (b"# -*- coding: no-such-codec -*-\nimport torch\n", "unknown encoding"),
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
    is had by making listing and reading those paths raise EACCES."""
    for path in paths:
        path.chmod(0)
    if os.geteuid() != 0:
        return
    denied = {os.fspath(p) for p in paths}
    real_scandir, real_read = os.scandir, Path.read_bytes

    def scandir(path: Any = ".") -> Any:
        if os.fspath(path) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def read_bytes(self: Path) -> bytes:
        if os.fspath(self) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(self))
        return real_read(self)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)


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
