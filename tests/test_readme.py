"""README.md's commands are the ones that work: the docs are tested."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tensorlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str, heading: str = "##", until: str = "") -> str:
    """The text under a heading, up to the next heading of its level or above
    (``until="###"``: or a subsection)."""
    part = README.split(f"{heading} {title}\n", 1)[1]
    return re.split(rf"\n#{{2,{len(until or heading)}}} ", part, maxsplit=1)[0]


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
    commands = _commands(_section("Migrating legacy code", until="###"))  # (not the baseline)
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


def test_the_baseline_walkthrough_silences_todays_findings_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "src")
    monkeypatch.chdir(tmp_path)
    commands = _commands(_section("A baseline: adopt the hook today, burn the list down", "###"))
    baseline = [c for c in commands if c.startswith("tensorlint")]
    assert baseline == ["tensorlint check --add-noqa src/"]
    assert main(["check", "--no-cache", "src/"]) == 1
    assert main([*shlex.split(baseline[0])[1:], "--no-cache"]) == 0
    assert main(["check", "--no-cache", "src/"]) == 0
    capsys.readouterr()
    new = tmp_path / "src" / "new.py"
    new.write_text("import torch\n\n\ndef f(m, x):\n    return m(x.cuda()).numpy()\n")
    assert main(["check", "--no-cache", "src/"]) == 1
    assert "new.py:5:12: TL101" in capsys.readouterr().out


def _yaml_blocks(text: str) -> list[Any]:
    yaml = pytest.importorskip("yaml", reason="pyyaml comes with libcst")
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def test_the_github_actions_steps_run_and_print_their_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    runs = []
    for document in _yaml_blocks(_section("CI output formats")):
        jobs = document.get("jobs", {}) if isinstance(document, dict) else {}
        steps = [s for job in jobs.values() for s in job.get("steps", [])]
        if isinstance(document, list):
            steps += document
        if isinstance(document, dict) and "tensorlint" in document:
            steps += [{"run": line} for line in document["tensorlint"]["script"]]
        runs += [s["run"] for s in steps if "run" in s and "tensorlint check" in s["run"]]
    assert len(runs) >= 2
    for command in runs:
        argv = shlex.split(command.split(">")[0].replace(" .", " examples/"))
        code = main([*argv[1:], "--no-cache"])
        out = capsys.readouterr().out
        assert code in (0, 1), command
        if "sarif" in argv:
            assert json.loads(out)["version"] == "2.1.0"
            assert code == 0  # --exit-zero
        elif "github" in argv:
            assert out.startswith("::error file=examples/motivating.py,line=")
        elif "junit" in argv:
            assert out.startswith("<?xml") and "<failure" in out


def test_the_pre_commit_snippet_names_the_hooks_this_repository_ships() -> None:
    (config,) = [
        d for d in _yaml_blocks(_section("Integrations")) if isinstance(d, dict) and "repos" in d
    ]
    yaml = pytest.importorskip("yaml")
    shipped = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    snippet = _section("Integrations").split("# - id: ")[1].split()[0]
    assert {h["id"] for h in config["repos"][0]["hooks"]} | {snippet} == shipped


def test_the_flake8_and_codemod_commands_work_as_documented(tmp_path: Path) -> None:
    pytest.importorskip("flake8", reason="flake8 is in the test extra")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    commands = _commands(_section("Integrations"))
    flake8 = next(c for c in commands if c.startswith("flake8"))
    done = subprocess.run(
        [sys.executable, "-m", *shlex.split(flake8.replace("src/", "examples/"))],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "TL201" in done.stdout, done.stderr
    codemod = next(c for c in commands if "libcst.tool" in c)
    argv = shlex.split(codemod.replace("src/", "examples/"))
    done = subprocess.run(
        [sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    fixed = (tmp_path / "examples" / "motivating.py").read_text()
    assert "layer(x).cpu().detach().numpy()" in fixed
    assert "torch.from_numpy(features)\n" in fixed  # the unsafe fix is not applied
