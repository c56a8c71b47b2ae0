"""``python -m bench recall``: the committed cases are valid, and the runner finds a
case at the commit before its fix in a real git repository (made here)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench import recall

BUGGY = """\
import torch


def predict(model, batch):
    model = model.cuda()
    out = model(batch.cuda())
    return out.numpy()
"""

#: a public function's parameter: the API boundary's guess (medium confidence)
GUESSED = """\
import torch


def to_host(t):
    return t.numpy()
"""

DEFENSIVE = """\
import numpy as np
import torch


def load(path):
    t = torch.from_numpy(np.load(path))
    return t.numpy()
"""


def test_committed_cases_are_valid_and_not_held_out() -> None:
    cases = recall.load_cases()
    forbidden = recall.held_out()
    assert all(case.repo.lower() not in forbidden for case in cases)
    assert len({case.id for case in cases}) == len(cases)


def test_every_crash_says_where_its_facts_live() -> None:
    crashes = [case for case in recall.load_cases() if case.kind == "D"]
    assert crashes and all(case.facts in recall.FACTS for case in crashes)
    assert {case.facts for case in crashes if case.real} == set(recall.FACTS)


def test_the_report_gives_a_row_for_where_the_facts_live() -> None:
    base = dict(repo="someone/proj", kind="D", crash="device", shape="explicit",
                commit="a" * 40, fix="a" * 40, path="m.py", line=1, cell=None,
                imports_torch=True, evidence="", source="")  # fmt: skip
    near = recall.Case(id="near", real=True, facts="file", **base)  # type: ignore[arg-type]
    far = recall.Case(id="far", real=True, facts="other-file", **base)  # type: ignore[arg-type]
    results = [
        recall.Result(near, found={"default": ["TL101"]}),
        recall.Result(far, found={"default": []}),
    ]
    table = recall.score(results, "default")
    assert table["facts in the file"] == {"cases": 1, "found": 1}
    assert table["facts in another file"] == {"cases": 1, "found": 0}
    assert "| facts in another file | 0/1 (0%) |" in recall.render(results, ["default"])


def test_held_out_list_names_the_development_set() -> None:
    assert "openai/clip" in recall.held_out()
    assert "karpathy/nanogpt" in recall.held_out()


def _case_file(folder: Path, body: str, name: str = "someone__proj.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body, encoding="utf-8")
    return path


CASE = """\
repo = "someone/proj"

[[case]]
id = "a"
real = {real}
kind = "D"
crash = "device"
shape = "explicit"
commit = "{commit}"
fix = "{commit}"
path = "{path}"
line = {line}
imports_torch = true
evidence = "written for the test"
source = "none"
"""


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (CASE.format(real="true", commit="abc", path="m.py", line=7), "40-hex"),
        (CASE.format(real="true", commit="a" * 40, path="../m.py", line=7), "relative"),
        (CASE.format(real="true", commit="a" * 40, path="m.py", line=0), "positive"),
        (CASE.format(real='"yes"', commit="a" * 40, path="m.py", line=7), "true or false"),
        (CASE.replace('kind = "D"', 'kind = "X"').format(real="true", commit="a" * 40,
                                                          path="m.py", line=7), "kind"),
        (CASE.replace("imports_torch = true", 'imports_torch = true\nfacts = "elsewhere"')
         .format(real="true", commit="a" * 40, path="m.py", line=7), "facts"),
    ],
)  # fmt: skip
def test_malformed_cases_are_refused_with_the_reason(
    tmp_path: Path, body: str, reason: str
) -> None:
    _case_file(tmp_path, body)
    with pytest.raises(SystemExit, match=reason):
        recall.load_cases(tmp_path)


def test_a_held_out_repository_is_refused(tmp_path: Path) -> None:
    body = CASE.format(real="true", commit="a" * 40, path="m.py", line=7)
    _case_file(tmp_path, body.replace("someone/proj", "openai/CLIP"), "openai__CLIP.toml")
    with pytest.raises(SystemExit, match="held out"):
        recall.load_cases(tmp_path)


def test_held_out_cases_come_only_from_held_out_repositories(tmp_path: Path) -> None:
    body = CASE.format(real="true", commit="a" * 40, path="m.py", line=7)
    _case_file(tmp_path / "ok", body.replace("someone/proj", "openai/CLIP"), "openai__CLIP.toml")
    assert [c.repo for c in recall.load_cases(tmp_path / "ok", held=True)] == ["openai/CLIP"]
    _case_file(tmp_path / "bad", body)
    with pytest.raises(SystemExit, match="not held out"):
        recall.load_cases(tmp_path / "bad", held=True)


def test_committed_held_out_cases_are_valid() -> None:
    cases = recall.load_cases(recall.HELD_OUT_CASES, held=True)
    assert len({case.id for case in cases}) == len(cases)


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin:/usr/local/bin"}  # fmt: skip
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          check=True)  # fmt: skip
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to make the repository")
def test_runner_scores_a_case_at_the_commit_before_its_fix(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "pkg").mkdir()
    (work / "pkg" / "infer.py").write_text(BUGGY, encoding="utf-8")
    (work / "pkg" / "io.py").write_text(DEFENSIVE, encoding="utf-8")
    (work / "pkg" / "api.py").write_text(GUESSED, encoding="utf-8")
    # installable: the public function's users are outside (an application's are not)
    (work / "pyproject.toml").write_text('[project]\nname = "proj"\n', encoding="utf-8")
    (work / "README.md").write_text("a file the bench does not take\n", encoding="utf-8")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "buggy")
    parent = _git(work, "rev-parse", "HEAD")
    (work / "pkg" / "infer.py").write_text(BUGGY.replace(".numpy()", ".cpu().numpy()"), "utf-8")
    _git(work, "commit", "-q", "-am", "fix")
    fix = _git(work, "rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    target = mirrors / "someone+proj" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(target)], check=True,
                   capture_output=True)  # fmt: skip

    base = dict(repo="someone/proj", kind="D", crash="device", shape="explicit", commit=parent,
                fix=fix, cell=None, imports_torch=True, evidence="", source="")  # fmt: skip
    real = recall.Case(id="real", real=True, path="pkg/infer.py", line=7, **base)  # type: ignore[arg-type]
    negative = recall.Case(id="neg", real=False, path="pkg/io.py", line=7, **base)  # type: ignore[arg-type]
    wrong_line = recall.Case(id="other", real=True, path="pkg/infer.py", line=6, **base)  # type: ignore[arg-type]
    guessed = recall.Case(id="guess", real=True, path="pkg/api.py", line=5, **base)  # type: ignore[arg-type]
    cases = [real, negative, wrong_line, guessed]
    results = recall.run(cases, [mirrors], tmp_path / "cache", strict=False)

    by_id = {r.case.id: r for r in results}
    assert all(not r.error for r in results)
    assert recall.hit(by_id["real"], "default"), by_id["real"].found
    assert "TL101" in by_id["real"].found["default"]
    assert not recall.hit(by_id["neg"], "default")
    assert not recall.hit(by_id["other"], "default")
    # the high-confidence column: the default's findings the code shows the cause of
    assert recall.hit(by_id["real"], recall.HIGH)
    assert recall.hit(by_id["guess"], "default") and not recall.hit(by_id["guess"], recall.HIGH)
    table = recall.score(results, "default")
    assert table["all real"] == {"cases": 3, "found": 2}
    assert table["negatives (flagged)"] == {"cases": 1, "found": 0}
    assert recall.score(results, recall.HIGH)["all real"] == {"cases": 3, "found": 1}
    # the extracted tree holds the parent's code, not the fix, and its packaging file
    top = tmp_path / "cache" / "trees" / f"someone+proj@{parent}"
    assert (top / "pkg" / "infer.py").read_text(encoding="utf-8") == BUGGY
    assert (top / "pyproject.toml").is_file() and not (top / "README.md").exists()
    # a tree extracted before packaging files were taken is extracted again
    (top / "pyproject.toml").unlink()
    (top / ".complete").write_text(parent, encoding="utf-8")
    recall.run([real], [mirrors], tmp_path / "cache", strict=False)
    assert (top / "pyproject.toml").is_file()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to make the repository")
def test_a_missing_commit_is_reported_not_scored(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "m.py").write_text("x = 1\n", encoding="utf-8")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "one")
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "someone+proj")],
                   check=True, capture_output=True)  # fmt: skip
    missing = recall.Case(repo="someone/proj", id="x", real=True, kind="D", crash="grad",
                          shape="explicit", commit="0" * 40, fix="0" * 40, path="m.py", line=1,
                          cell=None, imports_torch=True, evidence="", source="")  # fmt: skip
    results = recall.run([missing], [mirrors], tmp_path / "cache", strict=False, clone=False)
    assert results[0].error
    assert recall.score(results, "default") == {}


def test_a_new_batch_is_scored_from_its_own_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a batch mined apart is validated (and measured) from its folder, before it
    # joins the development cases; a held-out repository is refused there too
    body = CASE.format(real="true", commit="a" * 40, path="m.py", line=7)
    _case_file(tmp_path / "batch", body)
    negative = body.replace("someone/proj", "other/lib").replace('id = "a"', 'id = "b"')
    _case_file(
        tmp_path / "batch", negative.replace("real = true", "real = false"), "other__lib.toml"
    )
    assert recall.main(["--cases", str(tmp_path / "batch"), "--validate"]) == 0
    assert "1 real cases from 1 repositories, 1 negatives" in capsys.readouterr().out
    _case_file(tmp_path / "held", body.replace("someone/proj", "openai/CLIP"), "openai__CLIP.toml")
    with pytest.raises(SystemExit, match="held out"):
        recall.main(["--cases", str(tmp_path / "held"), "--validate"])
    with pytest.raises(SystemExit):  # one set of cases at a time
        recall.main(["--cases", str(tmp_path / "batch"), "--held-out", "--validate"])
