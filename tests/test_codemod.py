"""The LibCST codemod commands, through the real ``python -m libcst.tool codemod``.

Each test fixes one copy of a tree with ``tensorlint check --fix`` and another
with the codemod, and compares the files byte for byte.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import CLEAN, WRITE_THROUGH

GRAD = "import torch\n\n\ndef f(model, x):\n    return model(x).numpy()  # keep me\n"
CRLF = "import torch\r\n\r\n\r\ndef g(t):\r\n    # a comment\r\n    return t.numpy()\r\n"
NOT_TORCH = "def f(x):\n    return x.numpy()\n"
LATIN1 = "# -*- coding: latin-1 -*-\nimport torch\n\n\ndef h(t):\n    return t.numpy()  # café\n"

TREE: dict[str, bytes] = {
    "grad.py": GRAD.encode(),
    "pkg/wt.py": WRITE_THROUGH.encode(),
    "pkg/crlf.py": CRLF.encode(),
    "clean.py": CLEAN.encode(),
    "not_torch.py": NOT_TORCH.encode(),
    "latin1.py": LATIN1.encode("latin-1"),
}


def _make(root: Path) -> Path:
    for name, data in TREE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def _check_fix(root: Path, *flags: str) -> dict[str, bytes]:
    proc = _run(["-m", "tensorlint", "check", "--no-cache", "--fix", *flags, "."], root)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return _snapshot(root)


def _codemod(root: Path, command: str, *flags: str, external: bool = True) -> dict[str, bytes]:
    args = ["-m", "libcst.tool", "codemod"]
    args += ["-x"] if external else []
    args += [command, "--no-format", "--hide-progress", "-j", "1", *flags, "."]
    proc = _run(args, root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Failed to codemod 0 files" in proc.stderr
    return _snapshot(root)


@pytest.mark.parametrize(
    ("command", "flags", "check_flags"),
    [
        ("tensorlint.codemod.Fix", [], []),
        ("tensorlint.codemod.Fix", ["--unsafe-fixes"], ["--unsafe-fixes"]),
        ("tensorlint.codemod.FixUnsafe", [], ["--unsafe-fixes"]),
        ("tensorlint.codemod.Fix", ["--numpy-idiom", "force"], ["--numpy-idiom", "force"]),
    ],
    ids=["safe", "unsafe-flag", "unsafe-command", "numpy-idiom"],
)
def test_codemod_applies_what_check_fix_applies(
    tmp_path: Path, command: str, flags: list[str], check_flags: list[str]
) -> None:
    original = _snapshot(_make(tmp_path / "orig"))
    expected = _check_fix(_make(tmp_path / "check"), *check_flags)
    actual = _codemod(_make(tmp_path / "codemod"), command, *flags)
    assert actual == expected
    assert actual["grad.py"] != original["grad.py"]
    assert actual["clean.py"] == original["clean.py"]
    assert actual["not_torch.py"] == original["not_torch.py"]
    assert b"\r\n" in actual["pkg/crlf.py"] and b"\n\n" not in actual["pkg/crlf.py"]
    assert actual["latin1.py"].decode("latin-1").endswith("# café\n")
    unsafe = "--unsafe-fixes" in check_flags
    assert (b".clone()" in actual["pkg/wt.py"]) is unsafe
    if "force" in flags:
        assert b"numpy(force=True)" in actual["grad.py"]
    else:
        assert actual["grad.py"].endswith(b"model(x).cpu().detach().numpy()  # keep me\n")


def test_codemod_reads_the_pyproject_of_the_files(tmp_path: Path) -> None:
    for name in ("check", "codemod"):
        _make(tmp_path / name)
        (tmp_path / name / "pyproject.toml").write_text(
            '[tool.tensorlint]\nnumpy-idiom = "detach-cpu"\n'
            '[tool.tensorlint.per-file-ignores]\n"pkg/*" = ["TL1"]\n',
            encoding="utf-8",
        )
    expected = _check_fix(tmp_path / "check")
    actual = _codemod(tmp_path / "codemod", "tensorlint.codemod.Fix")
    assert actual == expected
    assert actual["grad.py"].endswith(b"model(x).detach().cpu().numpy()  # keep me\n")
    assert actual["pkg/crlf.py"] == TREE["pkg/crlf.py"]  # per-file-ignores


def test_codemod_is_found_through_libcst_codemod_yaml(tmp_path: Path) -> None:
    root = _make(tmp_path / "repo")
    (root / ".libcst.codemod.yaml").write_text("modules:\n  - tensorlint\n", encoding="utf-8")
    expected = _check_fix(_make(tmp_path / "check"))
    actual = _codemod(root, "codemod.Fix", external=False)
    assert actual == expected


def test_codemod_command_lists_its_options(tmp_path: Path) -> None:
    proc = _run(
        ["-m", "libcst.tool", "codemod", "-x", "tensorlint.codemod.Fix", "--help"], tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert "--unsafe-fixes" in proc.stdout and "--numpy-idiom" in proc.stdout


def test_codemod_leaves_the_original_tree_when_nothing_changes(tmp_path: Path) -> None:
    import libcst as cst
    from libcst.codemod import CodemodContext

    from tensorlint.codemod import Fix

    module = cst.parse_module(CLEAN)
    command = Fix(CodemodContext(filename=str(tmp_path / "clean.py")))
    assert command.transform_module(module) is module
    fixed = Fix(CodemodContext()).transform_module(cst.parse_module(GRAD))
    assert fixed.code == GRAD.replace(".numpy()", ".cpu().detach().numpy()")


def test_codemod_reads_the_checked_tree_as_check_fix_does(tmp_path: Path) -> None:
    # the fix needs another module's summary: ``to_chw`` returns its argument
    # converted without a copy, so the write through it gets a ``.clone()``
    case = Path(__file__).resolve().parent.parent / "fixtures" / "cross"
    case = case / "fire_helper_returns_from_numpy"
    expected = _check_fix(Path(shutil.copytree(case, tmp_path / "check")), "--unsafe-fixes")
    actual = _codemod(
        Path(shutil.copytree(case, tmp_path / "codemod")), "tensorlint.codemod.FixUnsafe"
    )
    assert actual == expected
    assert b".clone()" in actual["vision/show.py"]
