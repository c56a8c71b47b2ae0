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

from tensorlint import __version__
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
    # the array is copied; `.cpu().detach()` is not inserted, since the
    # script's one call passes `torch.arange(3.0)`: on the CPU, without grad
    assert "weights.numpy().copy()" in fixed
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


def _shipped_hooks() -> dict[str, dict[str, Any]]:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in hooks}


def pre_commit_snippet() -> dict[str, Any]:
    """The README's ``.pre-commit-config.yaml``."""
    (config,) = [
        d for d in _yaml_blocks(_section("Integrations")) if isinstance(d, dict) and "repos" in d
    ]
    return config


def test_the_pre_commit_snippet_is_a_local_hook_for_each_hook_this_repository_ships(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``repo: local`` hook works without tags or a registry: the same hooks
    as ``.pre-commit-hooks.yaml`` (one source), and their entries run."""
    (repo,) = pre_commit_snippet()["repos"]
    assert repo["repo"] == "local" and set(repo) == {"repo", "hooks"}
    shipped = _shipped_hooks()
    assert [hook["id"] for hook in repo["hooks"]] == list(shipped)
    monkeypatch.chdir(tmp_path)
    for hook in repo["hooks"]:
        same = ("name", "entry", "types_or")
        assert {k: hook[k] for k in same} == {k: shipped[hook["id"]][k] for k in same}
        assert hook["language"] == "system"  # the installed tensorlint, no registry
        bad = tmp_path / f"{hook['id']}.py"
        bad.write_text("import torch\n\n\ndef f(model, x):\n    return model(x).numpy()\n")
        argv = shlex.split(hook["entry"])
        assert argv[0] == "tensorlint"
        code = main([*argv[1:], "--no-cache", bad.name])  # pre-commit appends the files
        out = capsys.readouterr().out
        if "--fix" in argv:
            assert code == 0 and ".cpu().detach().numpy()" in bad.read_text()
        else:
            assert code == 1 and f"{bad.name}:5:12: TL102" in out


#: the README's placeholders, made real on a scratch tree
_PLACEHOLDERS = {"[PATH ...]": "", "/tmp/tl": "{tmp}/tl"}


def _readme_command_lines() -> list[str]:
    """Every shell command of the README: console blocks, and the ``run:`` and
    ``script:`` lines of its CI recipes; ``a && b`` is two."""
    lines = _commands(README)
    for document in _yaml_blocks(README):
        if not isinstance(document, (dict, list)):
            continue
        stack: list[Any] = [document]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack += [v for k, v in item.items() if k not in ("run", "script")]
                for key in ("run", "script"):
                    value = item.get(key)
                    lines += [value] if isinstance(value, str) else list(value or [])
            elif isinstance(item, list):
                stack += item
    return [part.strip() for line in lines for part in line.split("&&")]


def test_every_tensorlint_command_in_the_readme_parses_and_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``tensorlint ...`` line, as written, on a scratch tree holding the
    paths the README names (``src/``, ``examples/``, ``my_cases/`` with the
    README's own harness case): the real parser accepts it and the command
    runs (exit 0, or 1 for findings; never 2, a usage or configuration error)."""
    from tensorlint.cli import _split_add_noqa_reason, build_parser

    commands = sorted({c for c in _readme_command_lines() if c.startswith("tensorlint ")})
    assert len(commands) >= 30
    (case,) = re.findall(
        r"```python\n(.*?)```",
        _section("The runtime harness: proving the fixes on real tensors"),
        re.S,
    )
    torch = True
    try:
        import torch as _  # noqa: F401
    except ImportError:
        torch = False
    ran = 0
    for index, command in enumerate(commands):
        tree = tmp_path / str(index)
        shutil.copytree(ROOT / "examples", tree / "examples")
        shutil.copytree(ROOT / "examples", tree / "src")
        (tree / "src" / "model.py").write_text((ROOT / "examples" / "motivating.py").read_text())
        (tree / "my_cases").mkdir()
        (tree / "my_cases" / "case_alias.py").write_text(case)
        monkeypatch.chdir(tree)
        for placeholder, real in _PLACEHOLDERS.items():
            command = command.replace(placeholder, real.format(tmp=tmp_path))
        # (what a shell gives tensorlint: the words before a redirection or a pipe)
        argv = shlex.split(re.split(r" (?:>|\|) ", command, maxsplit=1)[0])[1:]
        # (as ``main`` reads it: ``--add-noqa=REASON`` first, then the parser;
        # a usage error raises SystemExit)
        args = build_parser().parse_args(_split_add_noqa_reason(argv)[0])
        if args.command == "server" or (args.command == "harness" and not torch):
            continue  # (the server talks LSP on stdin: test_server.py runs it)
        if getattr(args, "watch", False):
            continue  # (runs until stopped: test_conventions.py runs it in a subprocess)
        if args.command == "migrate":
            continue  # (runs the project's tests: test_migrate.py runs it on a fixture project)
        if args.command == "check":
            argv.append("--no-cache")
        code = main(argv)
        captured = capsys.readouterr()
        assert code in (0, 1), f"{command}: {captured.out[-500:]}{captured.err[-500:]}"
        assert "error:" not in captured.err, command
        ran += 1
    assert ran >= 30  # (all but the server, --watch and, without torch, the harness)


_REQUIREMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def test_no_readme_command_installs_tensorlint_from_the_registry() -> None:
    """tensorlint is not on PyPI and has no tags: every ``pip install`` the
    README runs installs a clone or a wheel built from one; the registry form
    is marked as the future wherever it is mentioned."""
    installs = []
    for raw in _readme_command_lines():
        line = raw.split("#", 1)[0]
        argv = shlex.split(line)
        while argv and argv[0] in ("python", "-m"):
            argv = argv[1:]
        if argv[:2] == ["pip", "install"]:
            installs.append((raw, [a for a in argv[2:] if not a.startswith("-")]))
    assert len(installs) >= 5
    for raw, targets in installs:
        for target in targets:
            local = target.startswith(".") or "/" in target or target.endswith(".whl")
            name = _REQUIREMENT_NAME.match(target)
            assert local or (name is not None and name.group() != "tensorlint"), raw
            if target.endswith(".whl"):
                assert Path(target).name == f"tensorlint-{__version__}-py3-none-any.whl", raw
    for match in re.finditer(r"pip install '?tensorlint\b(?!-)", README):
        around = README[max(0, match.start() - 200) : match.end() + 200]
        assert "future" in around, around


def test_the_editor_snippets_start_the_server_command(capsys: pytest.CaptureFixture[str]) -> None:
    """Neovim 0.11, 0.8 to 0.10 (``vim.lsp.start``) and nvim-lspconfig (0.7, as
    Debian 12 ships): each starts ``tensorlint server``, a real command."""
    from tensorlint.cli import build_parser

    editors = _section("Editors: `tensorlint server`", "###")
    blocks = re.findall(r"```lua\n(.*?)```", editors, re.S)
    assert len(blocks) == 3
    assert "vim.lsp.enable" in blocks[0]
    assert "vim.lsp.start(" in blocks[1] and "nvim_create_autocmd" in blocks[1]
    assert 'require("lspconfig.configs")' in blocks[2]
    for block in blocks:
        (cmd,) = re.findall(r"cmd = \{ (.*?) \}", block)
        argv = [json.loads(word) for word in cmd.split(", ")]
        assert argv == ["tensorlint", "server"]
        assert build_parser().parse_args(argv[1:]).command == "server"
        assert block.count("(") == block.count(")") and block.count("{") == block.count("}")


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
