"""The flake8 plugin, through the real ``flake8`` command: what ``tensorlint check`` finds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flake8", reason="flake8 is in the test extra")

from cli_helpers import CLEAN, GRAD, WRITE_THROUGH

# non-ASCII before the finding: columns count characters in both tools
WIDE = 'import torch\n\n\ndef f(model, x):\n    label = "é→ü"; return model(x).numpy()\n'
STRICT_ONLY = "import torch\n\n\ndef f(src):\n    t = torch.from_numpy(src)\n    return t\n"
Finding = tuple[str, int, int, str]
#: packaging metadata: the project is installable, so ``f(model, x)`` in
#: ``GRAD``, which no file calls, is API whose users may pass CUDA tensors (in
#: an application nothing calls it: no TL101 guess)
INSTALLABLE = "[metadata]\nname = demo\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _flake8(root: Path, *args: str) -> tuple[int, list[Finding], str]:
    proc = subprocess.run(
        [
            sys.executable, "-m", "flake8", "--isolated", "--select", "TL",
            "--format", "%(path)s|%(row)d|%(col)d|%(code)s|%(text)s", *args, ".",
        ],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    findings = []
    for line in proc.stdout.splitlines():
        path, row, col, code, _ = line.split("|", 4)
        findings.append((Path(path).as_posix().removeprefix("./"), int(row), int(col), code))
    return proc.returncode, sorted(findings), proc.stdout + proc.stderr


def _tensorlint(root: Path) -> list[Finding]:
    proc = subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    document = json.loads(proc.stdout)
    return sorted(
        (Path(f["file"]).as_posix().removeprefix("./"), f["line"], f["column"], f["code"])
        for f in document["findings"]
    )


def test_flake8_reports_what_tensorlint_check_reports(tmp_path: Path) -> None:
    files = {"grad.py": GRAD, "pkg/wt.py": WRITE_THROUGH, "wide.py": WIDE, "clean.py": CLEAN}
    _write(tmp_path, {**files, "setup.cfg": INSTALLABLE})
    code, findings, output = _flake8(tmp_path)
    assert code == 1, output
    expected = _tensorlint(tmp_path)
    assert findings == expected
    assert ("grad.py", 5, 12, "TL101") in findings
    assert ("pkg/wt.py", 6, 9, "TL201") in findings
    assert ("wide.py", 5, 27, "TL102") in findings
    assert not any(f[0] == "clean.py" for f in findings)


def test_noqa_with_a_code_silences_that_code_only(tmp_path: Path) -> None:
    _write(tmp_path, {"a.py": GRAD.replace(".numpy()", ".numpy()  # noqa: TL101")})
    _, findings, output = _flake8(tmp_path)
    assert findings == [("a.py", 5, 12, "TL102")], output
    _write(tmp_path, {"a.py": GRAD.replace(".numpy()", ".numpy()  # noqa")})
    code, findings, output = _flake8(tmp_path)
    assert (code, findings) == (0, []), output


#: file-level comments, as flake8 reads them: each silences the whole file
#: (flake8 skips it) or nothing, in flake8 and in ``tensorlint check`` alike
FILE_LEVEL = {
    "bare.py": "# flake8: noqa\n" + GRAD,
    "upper.py": GRAD + "\n  # FLAKE8=NOQA\n",
    "codes.py": "# flake8: noqa: TL102\n" + GRAD,  # (flake8 skips the file whatever follows)
    "after_code.py": "import os  # flake8: noqa\n" + GRAD,  # not on a line of its own
    "two_spaces.py": "#  flake8: noqa\n" + GRAD,  # not what flake8 reads
}


def test_flake8_file_level_noqa_means_the_same_in_check(tmp_path: Path) -> None:
    _write(tmp_path, FILE_LEVEL)
    _, findings, output = _flake8(tmp_path)
    assert {f[0] for f in findings} == {"after_code.py", "two_spaces.py"}, output
    assert findings == _tensorlint(tmp_path)


def test_the_pyproject_configuration_is_used(tmp_path: Path) -> None:
    files = {"grad.py": GRAD, "strict.py": STRICT_ONLY, "legacy/old.py": GRAD}
    _write(tmp_path, {**files, "setup.cfg": INSTALLABLE})
    _, findings, _ = _flake8(tmp_path)
    assert {f[3] for f in findings} == {"TL101", "TL102"}  # TL211 is off by default
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorlint]\nstrict = true\nignore = ["TL102"]\n'
        '[tool.tensorlint.per-file-ignores]\n"legacy/*" = ["TL1"]\n',
        encoding="utf-8",
    )
    _, findings, output = _flake8(tmp_path)
    assert findings == [("grad.py", 5, 12, "TL101"), ("strict.py", 5, 9, "TL211")], output
    assert findings == _tensorlint(tmp_path)


def test_a_bad_configuration_is_reported_not_ignored(tmp_path: Path) -> None:
    _write(tmp_path, {"grad.py": GRAD, "pyproject.toml": "[tool.tensorlint]\nbogus = 1\n"})
    code, _, output = _flake8(tmp_path)
    assert code == 1
    assert "|TL000|tensorlint configuration error" in output
    assert "unknown key 'bogus'" in output


def test_flake8_lists_the_plugin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "tensorlint" in proc.stdout


def test_flake8_reads_the_checked_tree_as_tensorlint_check_does(tmp_path: Path) -> None:
    # every cross-file case (a helper's summary in another module, a base
    # class's hook, a callee's module output) gives the same findings
    cross = Path(__file__).resolve().parent.parent / "fixtures" / "cross"
    for case in cross.iterdir():
        if case.is_dir():
            shutil.copytree(case, tmp_path / case.name)
    _, findings, output = _flake8(tmp_path)
    expected = _tensorlint(tmp_path)
    assert findings == expected, output
    assert ("fire_callee_returns_module_output/scoring/report.py", 6, 12, "TL102") in findings
    assert ("fire_helper_returns_from_numpy/vision/show.py", 5, 9, "TL201") in findings


def test_flake8_reads_the_callers_in_other_files_as_check_does(tmp_path: Path) -> None:
    callee = "import torch\n\n\ndef to_host(t):\n    return t.numpy()\n"
    caller = "from pkg.io import to_host\n\n\ndef _run(x):\n    return to_host(x.cuda())\n"
    _write(
        tmp_path,
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/io.py": callee, "run.py": caller},
    )
    code, findings, output = _flake8(tmp_path)
    assert code == 1, output
    assert findings == _tensorlint(tmp_path) == [("pkg/io.py", 5, 12, "TL101")]
    assert "from `_run()` at ../run.py:5" in output
