from __future__ import annotations

import codecs
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tensorlint.fix.io import (
    SourceFile,
    SourceReadError,
    WriteRefused,
    read_source,
    write_atomic,
)


def leftovers(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name.endswith(".tmp"))


@pytest.mark.parametrize(
    ("data", "newline"),
    [
        (b"import torch\r\nx = 1\r\n", "\r\n"),
        (b"import torch\rx = 1\r", "\r"),
        (b"import torch\nx = 1\n", "\n"),
        (b"x = 1", "\n"),
        (b"a = 1\r\nb = 2\nc = 3\r", "\r\n"),
    ],
    ids=["crlf", "cr", "lf", "no-newline", "mixed"],
)
def test_read_source_keeps_newlines_and_write_round_trips_them(
    tmp_path: Path, data: bytes, newline: str
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)

    source = read_source(path)

    assert source.text == data.decode("utf-8")
    assert source.newline == newline
    assert write_atomic(path, source, source.text + "# fixed" + newline) is True
    assert path.read_bytes() == data + b"# fixed" + newline.encode()


def test_bom_is_reported_stripped_from_the_text_and_written_back(tmp_path: Path) -> None:
    path = tmp_path / "bom.py"
    path.write_bytes(codecs.BOM_UTF8 + "x = 'é'\r\n".encode())

    source = read_source(path)

    assert source == SourceFile(text="x = 'é'\r\n", encoding="utf-8", bom=True, newline="\r\n")
    assert write_atomic(path, source, "x = 'è'\r\n")
    assert path.read_bytes() == codecs.BOM_UTF8 + "x = 'è'\r\n".encode()


def test_file_without_bom_is_written_without_one(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)

    write_atomic(path, source, "x = 2\n")

    assert source.bom is False
    assert path.read_bytes() == b"x = 2\n"


def test_latin_1_cookie_is_used_to_read_and_write(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n")

    source = read_source(path)

    assert source.encoding == "iso-8859-1"
    assert source.bom is False
    assert "name = 'été'" in source.text
    assert write_atomic(path, source, source.text.replace("été", "hivér"))
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\nname = 'hiv\xe9r'\n"


@pytest.mark.parametrize(
    ("data", "codec"),
    [
        (b"# -*- coding: future_fstrings -*-\nname = f'{\xc3\xa9t\xc3\xa9}'\n", "future_fstrings"),
        (b"#!/usr/bin/env python\r\n# coding: pyxl\r\nname = '\xc3\xa9t\xc3\xa9'\r\n", "pyxl"),
        (
            codecs.BOM_UTF8 + b"# coding=future_annotations\nname = '\xc3\xa9t\xc3\xa9'\n",
            "future_annotations",
        ),
    ],
    ids=["first-line", "after-shebang-crlf", "bom"],
)
def test_a_cookie_naming_a_codec_python_lacks_is_read_and_written_as_utf_8(
    tmp_path: Path, data: bytes, codec: str
) -> None:
    path = tmp_path / "shim.py"
    path.write_bytes(data)

    source = read_source(path)

    assert source.unknown_codec == codec
    assert (source.encoding, source.bom) == ("utf-8", data.startswith(codecs.BOM_UTF8))
    assert codec in source.text and "été" in source.text
    assert write_atomic(path, source, source.text.replace("été", "hivér"))
    assert path.read_bytes() == data.replace(b"\xc3\xa9t\xc3\xa9", "hivér".encode())


@pytest.mark.parametrize(
    "data",
    [
        b"# coding: latin-1\nx = 1\n",
        b"# coding: utf-8-validate\nx = 1\n",  # (Python reads utf-8-* as UTF-8)
        b"x = 1\n# coding: future_fstrings\n",  # (not a cookie on line 2 after code)
        b"# no cookie\nx = 1\n",
    ],
    ids=["known-codec", "utf-8-alias", "after-code", "none"],
)
def test_only_a_cookie_python_refuses_is_reported_as_an_unknown_codec(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)

    assert read_source(path).unknown_codec is None


def test_a_cookie_naming_a_codec_python_lacks_over_bytes_that_are_not_utf_8_is_an_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shim.py"
    path.write_bytes(b"# -*- coding: future_fstrings -*-\nx = 1\nname = '\xe9t\xe9'\n")

    with pytest.raises(SourceReadError) as info:
        read_source(path)

    assert str(info.value) == (
        f"{path}: unknown encoding 'future_fstrings' (a codec Python does not have), "
        "and not UTF-8 either (line 3)"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640], ids=["755", "600", "640"])
def test_write_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "tool.py"
    path.write_bytes(b"#!/usr/bin/env python\nx = 1\n")
    path.chmod(mode)
    source = read_source(path)

    write_atomic(path, source, "#!/usr/bin/env python\nx = 2\n")

    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_text(encoding="utf-8").endswith("x = 2\n")


def test_unchanged_text_is_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "same.py"
    path.write_bytes(b"x = 1\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    inode = path.stat().st_ino
    source = read_source(path)

    assert write_atomic(path, source, "x = 1\n") is False
    assert path.stat().st_mtime_ns == 1_000_000_000
    assert path.stat().st_ino == inode
    assert leftovers(tmp_path) == []


def test_changed_text_replaces_the_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)

    assert write_atomic(path, source, "x = 2\n") is True
    assert path.read_bytes() == b"x = 2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_failed_replace_removes_the_temp_file_and_keeps_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    seen: list[str] = []

    def failing_replace(src: str, dst: str) -> None:
        seen.append(os.path.basename(src))
        assert os.path.exists(src)
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", failing_replace)

    with pytest.raises(OSError, match="disk on fire"):
        write_atomic(path, source, "x = 2\n")

    assert len(seen) == 1
    assert seen[0].startswith(".m.py.")
    assert seen[0].endswith(".tmp")
    assert path.read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]


def test_text_the_encoding_cannot_hold_fails_before_touching_anything(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# coding: latin-1\nx = 1\n")
    source = read_source(path)

    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, source, "# coding: latin-1\nx = '\u2603'\n")

    assert path.read_bytes() == b"# coding: latin-1\nx = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latin.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_writing_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    source = read_source(link)

    write_atomic(link, source, "x = 2\n")

    assert link.is_symlink()
    assert real.read_bytes() == b"x = 2\n"


def test_undecodable_file_error_names_the_file_encoding_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(b"a = 1\nb = 2\nc = '\xff'\n")

    with pytest.raises(SourceReadError) as info:
        read_source(path)

    assert str(info.value) == f"{path}: cannot decode as utf-8 (line 3)"


def test_undecodable_line_number_counts_crlf_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_bytes(b"a = 1\r\nb = 2\r\n'\xff'\r\n")

    with pytest.raises(SourceReadError, match=r"\(line 3\)$"):
        read_source(path)


def test_missing_file_error_says_no_such_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.py"

    with pytest.raises(SourceReadError) as info:
        read_source(path)

    assert str(info.value) == f"{path}: No such file or directory"


def test_directory_is_a_read_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SourceReadError) as info:
        read_source(tmp_path)

    assert str(info.value).startswith(f"{tmp_path}: ")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"# coding: no-such-codec\nx = '\xff'\n", "unknown encoding 'no-such-codec'"),
        (codecs.BOM_UTF8 + b"# coding: latin-1\nx = 1\n", "encoding problem"),
    ],
    ids=["unknown-cookie", "bom-and-other-cookie"],
)
def test_bad_encoding_declarations_are_read_errors(
    tmp_path: Path, data: bytes, expected: str
) -> None:
    path = tmp_path / "cookie.py"
    path.write_bytes(data)

    with pytest.raises(SourceReadError) as info:
        read_source(path)

    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_a_symlink_out_of_the_tree_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_bytes(b"x = 1\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    link = tree / "link.py"
    link.symlink_to(outside)
    with pytest.raises(WriteRefused, match="outside the checked tree"):
        write_atomic(link, read_source(link), "x = 2\n", within=(str(tree),))
    assert outside.read_bytes() == b"x = 1\n"
    inside = tree / "real.py"
    inside.write_bytes(b"x = 1\n")
    (tree / "alias.py").symlink_to(inside)
    assert write_atomic(tree / "alias.py", read_source(inside), "x = 2\n", within=(str(tree),))
    assert inside.read_bytes() == b"x = 2\n"


def test_a_read_only_file_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "ro.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o444)
    with pytest.raises(WriteRefused, match="read-only"):
        write_atomic(path, read_source(path), "x = 2\n")
    assert path.read_bytes() == b"x = 1\n" and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["ro.py"]


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "raced.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    path.write_bytes(b"x = 3\n")  # another run or an editor got there first
    with pytest.raises(WriteRefused, match="changed"):
        write_atomic(path, source, "x = 2\n")
    assert path.read_bytes() == b"x = 3\n"
    assert [p.name for p in tmp_path.iterdir()] == ["raced.py"]


def test_temporary_files_a_killed_run_left_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    stale = tmp_path / ".m.py.abc123.tmp"
    stale.write_bytes(b"half")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    fresh = tmp_path / ".m.py.def456.tmp"  # maybe another run's, mid-write: kept
    fresh.write_bytes(b"half")
    live = tmp_path / f".m.py.{os.getppid()}.abc.tmp"  # a live process's: kept
    live.write_bytes(b"half")
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead = tmp_path / f".m.py.{child.stdout.strip()}.xyz.tmp"  # its process is gone
    dead.write_bytes(b"half")
    write_atomic(path, read_source(path), "x = 2\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".m.py.def456.tmp", live.name, "m.py"]
    )
