"""The pre-commit hooks, through the real ``pre-commit`` in a scratch repository.

pre-commit builds a virtualenv and pip-installs this repository into it (so
libcst comes from the package index), which takes a while. ``pre-commit
try-repo`` does that on every call, in a temporary store of its own (it
ignores ``PRE_COMMIT_HOME``), so one test uses it; the others run ``pre-commit
run`` with a ``.pre-commit-config.yaml`` naming the same repository and
revision, as a user's project would, and share one ``PRE_COMMIT_HOME``: the
hooks are installed once per session.

The revision is the repository's ``HEAD`` when the work tree is clean (as in
CI), or else a snapshot commit of the work tree (tracked and untracked files
that git does not ignore), made once per session, so what is tested is what
is on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import CLEAN, GRAD

#: packaging metadata: an installable project, whose public functions' users
#: are outside it (``bad.py``'s guess about them is TL101)
INSTALLABLE = "[metadata]\nname = demo\n"

ROOT = Path(__file__).resolve().parent.parent

#: a notebook that names no accelerator runs as written on the CPU: no evidence
NOTEBOOK_GRAD = GRAD.replace("\n\n\ndef", "\nuse_gpu = torch.cuda.is_available()\n\ndef")

_IDENTITY = {
    "GIT_AUTHOR_NAME": "tensorlint tests",
    "GIT_AUTHOR_EMAIL": "tests@tensorlint.invalid",
    "GIT_COMMITTER_NAME": "tensorlint tests",
    "GIT_COMMITTER_EMAIL": "tests@tensorlint.invalid",
}


@dataclass(frozen=True)
class HookRepo:
    path: Path
    ref: str
    env: dict[str, str]


def _git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def _is_git_root(path: Path) -> bool:
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=path, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except OSError:
        return False
    top = proc.stdout.strip()
    return proc.returncode == 0 and bool(top) and Path(top).resolve() == path.resolve()


def _snapshot(env: dict[str, str], target: Path) -> str:
    """Commit the work tree of ROOT (untracked files too, not ignored ones) into ``target``."""
    listing = _git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, env)
    target.mkdir(parents=True)
    for name in sorted(set(filter(None, listing.split("\0")))):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    _git(["init", "-q"], target, env)
    _git(["add", "-A"], target, env)
    _git(["commit", "-q", "--no-verify", "-m", "work tree snapshot"], target, env)
    return _git(["rev-parse", "HEAD"], target, env).strip()


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> HookRepo:
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extra")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not _is_git_root(ROOT):
        pytest.skip(f"{ROOT} is not the root of a git repository: pre-commit try-repo needs one")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(_IDENTITY)
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    env["PRE_COMMIT_COLOR"] = "never"
    if _git(["status", "--porcelain", "--untracked-files=normal"], ROOT, env).strip():
        path = tmp_path_factory.mktemp("hook-repo") / "tensorlint"
        return HookRepo(path, _snapshot(env, path), env)
    return HookRepo(ROOT, _git(["rev-parse", "HEAD"], ROOT, env).strip(), env)


@pytest.fixture
def project(tmp_path: Path, hook_repo: HookRepo) -> Path:
    """An empty git repository to commit into."""
    _git(["init", "-q"], tmp_path, hook_repo.env)
    return tmp_path


def _stage(project: Path, env: dict[str, str], files: dict[str, str]) -> None:
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    _git(["add", "--", *files], project, env)


def _try_repo(
    hook_repo: HookRepo, project: Path, *hook_and_args: str
) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo REPO [HOOK] [ARGS] --ref REF`` (the hook right after the repo)."""
    return subprocess.run(
        [
            sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo.path),
            *hook_and_args, "--ref", hook_repo.ref,
        ],
        cwd=project, env=hook_repo.env, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip


def _run(hook_repo: HookRepo, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit run ARGS`` with a staged config that uses both hooks of the repository."""
    config = (
        f"repos:\n  - repo: {json.dumps(str(hook_repo.path))}\n    rev: {hook_repo.ref}\n"
        "    hooks:\n      - id: tensorlint\n      - id: tensorlint-fix\n"
    )
    _stage(project, hook_repo.env, {".pre-commit-config.yaml": config})
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=project, env=hook_repo.env, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip


def test_try_repo_check_hook_fails_on_a_finding_and_prints_it(
    hook_repo: HookRepo, project: Path
) -> None:
    _stage(project, hook_repo.env, {"bad.py": GRAD, "ok.py": CLEAN, "setup.cfg": INSTALLABLE})
    proc = _try_repo(hook_repo, project, "tensorlint", "--files", "bad.py", "ok.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert "bad.py:5:12: TL101 " in proc.stdout
    assert "bad.py:5:12: TL102 " in proc.stdout
    assert "ok.py:" not in proc.stdout
    assert (project / "bad.py").read_text(encoding="utf-8") == GRAD  # checking writes nothing


def test_the_check_hook_passes_a_clean_file(hook_repo: HookRepo, project: Path) -> None:
    _stage(project, hook_repo.env, {"ok.py": CLEAN})
    proc = _run(hook_repo, project, "tensorlint", "--files", "ok.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tensorlint" in proc.stdout and "Passed" in proc.stdout


def test_the_check_hook_fails_on_a_finding_in_a_commit(hook_repo: HookRepo, project: Path) -> None:
    _stage(project, hook_repo.env, {"bad.py": GRAD, "ok.py": CLEAN, "setup.cfg": INSTALLABLE})
    proc = _run(hook_repo, project, "tensorlint")  # the staged files, as `git commit` does
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "bad.py:5:12: TL101 " in proc.stdout
    assert "Found 2 findings." in proc.stdout


def test_the_check_hook_checks_notebooks(hook_repo: HookRepo, project: Path) -> None:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
    notebook = {
        "cells": [{**cell, "source": NOTEBOOK_GRAD.splitlines(keepends=True)}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    _stage(project, hook_repo.env, {"nb.ipynb": json.dumps(notebook, indent=1) + "\n"})
    proc = _run(hook_repo, project, "tensorlint", "--files", "nb.ipynb")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "nb.ipynb:cell 1:5:12: TL102 " in proc.stdout  # the model is not moved: no TL101
    assert "TL101" not in proc.stdout


def test_the_fix_hook_rewrites_then_passes(hook_repo: HookRepo, project: Path) -> None:
    _stage(project, hook_repo.env, {"bad.py": GRAD})
    first = _run(hook_repo, project, "tensorlint-fix", "--files", "bad.py")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    fixed = (project / "bad.py").read_text(encoding="utf-8")
    assert fixed == GRAD.replace(".numpy()", ".cpu().detach().numpy()")
    second = _run(hook_repo, project, "tensorlint-fix", "--files", "bad.py")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Passed" in second.stdout
    assert (project / "bad.py").read_text(encoding="utf-8") == fixed


def test_a_commit_without_python_files_passes_quietly(hook_repo: HookRepo, project: Path) -> None:
    _stage(project, hook_repo.env, {"README.md": "# notes\n\n`t.numpy()` in prose\n"})
    proc = _run(hook_repo, project)  # every hook, on the staged files
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("(no files to check)Skipped") == 2
    assert "TL1" not in proc.stdout and "Failed" not in proc.stdout


def test_the_hooks_honour_exclude_for_the_files_pre_commit_names(
    hook_repo: HookRepo, project: Path
) -> None:
    pyproject = '[project]\nname = "demo"\n\n[tool.tensorlint]\nexclude = ["legacy"]\n'
    _stage(project, hook_repo.env, {"pyproject.toml": pyproject, "legacy/old.py": GRAD,
                                     "new.py": GRAD})  # fmt: skip
    proc = _run(hook_repo, project, "tensorlint", "--all-files")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "new.py:5:12: TL101 " in proc.stdout
    assert "legacy/old.py" not in proc.stdout


def test_the_readme_local_hooks_run_with_the_real_pre_commit(tmp_path: Path) -> None:
    """The README's ``repo: local`` configuration, as written: pre-commit runs
    the tensorlint of the environment (no clone, tag or registry needed)."""
    import sysconfig

    pytest.importorskip("pre_commit", reason="pre-commit is in the test extra")
    yaml = pytest.importorskip("yaml")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    sys.path.insert(0, str(ROOT / "tests"))
    from test_readme import pre_commit_snippet

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(_IDENTITY, PRE_COMMIT_HOME=str(tmp_path / "home"), PRE_COMMIT_COLOR="never")
    env["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), env.get("PATH", "")])
    project = tmp_path / "project"
    project.mkdir()
    _git(["init", "-q"], project, env)
    config = yaml.safe_dump(pre_commit_snippet(), sort_keys=False)
    _stage(
        project,
        env,
        {
            ".pre-commit-config.yaml": config,
            "bad.py": GRAD,
            "ok.py": CLEAN,
            "setup.cfg": INSTALLABLE,
        },
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", *args],
            cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    check = run("tensorlint", "--files", "bad.py", "ok.py")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "bad.py:5:12: TL101 " in check.stdout and "ok.py:" not in check.stdout
    fix = run("tensorlint-fix", "--files", "bad.py")
    assert fix.returncode == 1 and "files were modified by this hook" in fix.stdout, fix.stdout
    assert (project / "bad.py").read_text() == GRAD.replace(".numpy()", ".cpu().detach().numpy()")
    _git(["add", "bad.py"], project, env)
    assert run().returncode == 0  # both hooks pass on the fixed, staged files
