"""README.md's commands are the ones that work: the docs are tested."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tensorlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    part = README.split(f"## {title}\n", 1)[1]
    return part.split("\n## ", 1)[0]


def _commands(text: str) -> list[str]:
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    lines = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line]


def test_the_readme_test_command_is_what_ci_runs() -> None:
    (command,) = _commands(_section("The two commands"))[1:]
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_check_command_finds_the_shipped_example(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    command = _commands(_section("The two commands"))[0]
    check = command.split("&&")[-1].strip()
    assert check == "tensorlint check examples/"
    monkeypatch.chdir(ROOT)
    assert main([*shlex.split(check)[1:], "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert {"TL101", "TL102", "TL201", "TL202"} <= set(re.findall(r"TL\d+", out))


def test_the_migration_walkthrough_runs_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    commands = _commands(_section("Migrating legacy code"))
    assert len(commands) == 5
    codes = []
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "tensorlint"
        codes.append(main([*argv[1:], "--no-cache"]))
        out = capsys.readouterr().out
        if "--diff" in argv:
            patch = tmp_path / "step.patch"
            patch.write_text(out)
            if out:
                subprocess.run(["git", "apply", "--check", str(patch)], check=True)
    assert codes[0] == 1  # findings
    assert codes[-1] == 0  # nothing left after the unsafe fixes
    fixed = (tmp_path / "examples" / "motivating.py").read_text()
    assert "torch.from_numpy(features).clone()" in fixed
    assert "weights.cpu().detach().numpy().copy()" in fixed
    done = subprocess.run(
        [sys.executable, str(tmp_path / "examples" / "motivating.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    if "No module named" not in done.stderr:
        assert done.returncode == 0, done.stderr
