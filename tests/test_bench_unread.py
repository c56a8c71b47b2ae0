"""``python -m bench unread``: the committed labels are valid and come from repositories
used nowhere else, and the scorer counts findings and sampled sites as documented."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench import recall, unread

HEADER = "repo\tloc\torigin\tdevice\tgrad\twrite\treason\n"

BUGGY = """\
import torch


def predict(model, batch):
    model = model.cuda()
    out = model(batch.cuda())
    return out.numpy()
"""

SAFE = """\
import numpy as np
import torch


def load(path):
    t = torch.from_numpy(np.load(path))
    return t.numpy()
"""

#: a crash no rule sees: the tensor comes from a library the analysis cannot read
UNSEEN = """\
import numpy as np
from somelib import embed


def features(x):
    return np.mean(embed(x), axis=0)
"""


def test_committed_labels_are_valid() -> None:
    repos = unread.load_repos()
    sites = unread.load_sites(repos=repos)
    assert len(repos) >= 20 and {half for _c, half in repos.values()} == set(unread.HALVES)
    assert {s.repo for s in sites} <= set(repos)
    # every default finding's line was labelled: at least some lines came from them
    assert {s.origin for s in sites} == set(unread.ORIGINS)
    assert sum(1 for s in sites if s.origin == "sample") >= 150


def test_committed_repositories_are_used_nowhere_else() -> None:
    repos = set(unread.load_repos())
    mined = {c.repo for c in recall.load_cases()}
    mined |= {c.repo for c in recall.load_cases(recall.HELD_OUT_CASES, held=True)}
    assert not repos & (mined | recall.held_out())


def _write(tmp_path: Path, rows: str, repos: str | None = None) -> tuple[Path, Path]:
    sites = tmp_path / "sites.tsv"
    sites.write_text(HEADER + rows, encoding="utf-8")
    pins = tmp_path / "repos.tsv"
    pins.write_text(repos or f"repo\tcommit\thalf\nme/proj\t{'a' * 40}\tA\n", encoding="utf-8")
    return sites, pins


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ("me/proj\tpkg/a.py\tsample\tREAL\tNO\tNO\tx\n", "loc"),
        ("me/proj\tpkg/a.py:0\tsample\tREAL\tNO\tNO\tx\n", "loc"),
        ("me/proj\tpkg/a.py:3\tsample\tMAYBE\tNO\tNO\tx\n", "every label"),
        ("me/proj\tpkg/a.py:3\tguess\tREAL\tNO\tNO\tx\n", "origin"),
        ("other/proj\tpkg/a.py:3\tsample\tREAL\tNO\tNO\tx\n", "not in"),
        ("me/proj\tpkg/a.py:3\tsample\tREAL\tNO\tNO\tx\n" * 2, "twice"),
    ],
)
def test_malformed_labels_are_refused_with_the_reason(
    tmp_path: Path, row: str, reason: str
) -> None:
    sites, pins = _write(tmp_path, row)
    with pytest.raises(ValueError, match=reason):
        unread.load_sites(sites, unread.load_repos(pins))


def test_a_malformed_pin_is_refused(tmp_path: Path) -> None:
    _sites, pins = _write(tmp_path, "", "repo\tcommit\thalf\nme/proj\tabc\tA\n")
    with pytest.raises(ValueError, match="40 hex"):
        unread.load_repos(pins)


def test_findings_are_scored_by_the_hazards_their_rule_stands_for(tmp_path: Path) -> None:
    rows = (
        "me/proj\tpkg/a.py:7\tsample\tREAL\tNO\tNO\tmoved to cuda\n"
        "me/proj\tpkg/a.py:9\tfinding\tNO\tWEAK\tNO\ta public helper\n"
        "me/proj\tpkg/a.py:12\tsample\tNO\tREAL\tNO\ta module output\n"
        "me/proj\tnb.ipynb:cell2:3\tsample\tNO\tNO\tNO\ta numpy array\n"
    )
    sites_file, pins = _write(tmp_path, rows)
    sites = unread.load_sites(sites_file, unread.load_repos(pins))
    spans: recall.Spans = {
        ("pkg/a.py", None): [
            (7, 7, "TL101", "high"),  # REAL device site: real, and the site is found
            (9, 10, "TL101", "medium"),  # the site is NO for device: false
            (9, 9, "TL102", "medium"),  # WEAK for grad: real or weak
            (12, 12, "TL101", "high"),  # the site is REAL for grad only: false, not found
            (20, 20, "TL102", "high"),  # no labelled site: unlabelled
            (7, 7, "TL301", "high"),  # stands for no hazard: not scored
        ],
        ("nb.ipynb", 2): [(3, 3, "TL103", "high")],
    }
    scored, real = unread.score(sites, {"me/proj": spans}, "default")
    verdicts = [(f.first, f.code, f.verdict) for f in scored]
    assert verdicts == [
        (7, "TL101", "REAL"),
        (9, "TL101", "NO"),
        (9, "TL102", "WEAK"),
        (12, "TL101", "NO"),
        (20, "TL102", "unlabelled"),
        (3, "TL103", "NO"),
    ]
    assert [(site.line, label, hit) for site, label, hit in real] == [
        (7, "REAL", True),
        (12, "REAL", False),
    ]
    # the high-confidence column keeps the default's high findings only
    high, _ = unread.score(sites, {"me/proj": spans}, recall.HIGH)
    assert [(f.first, f.code) for f in high] == [
        (7, "TL101"),
        (12, "TL101"),
        (20, "TL102"),
        (3, "TL103"),
    ]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                               "PATH": "/usr/bin:/bin", "HOME": str(cwd)})  # fmt: skip
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to make the repository")
def test_runner_checks_the_pinned_commit_and_reports_both_halves(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    _git(work, "init", "-q")
    (work / "pkg" / "infer.py").write_text(BUGGY, encoding="utf-8")
    (work / "pkg" / "io.py").write_text(SAFE, encoding="utf-8")
    (work / "pkg" / "feats.py").write_text(UNSEEN, encoding="utf-8")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "pinned")
    pinned = _git(work, "rev-parse", "HEAD")
    (work / "pkg" / "infer.py").write_text(BUGGY.replace(".numpy()", ".cpu().numpy()"), "utf-8")
    _git(work, "commit", "-q", "-am", "later")
    mirrors = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "me+proj" / "repo")],
                   check=True, capture_output=True)  # fmt: skip
    rows = (
        "me/proj\tpkg/infer.py:7\tsample\tREAL\tREAL\tNO\tmodel and batch on cuda\n"
        "me/proj\tpkg/io.py:7\tsample\tNO\tNO\tNO\tloaded from disk\n"
        "me/proj\tpkg/feats.py:6\tsample\tREAL\tNO\tNO\tthe library embeds on the GPU\n"
    )
    sites_file, pins = _write(tmp_path, rows, f"repo\tcommit\thalf\nme/proj\t{pinned}\tA\n")
    repos = unread.load_repos(pins)
    sites = unread.load_sites(sites_file, repos)
    reports, errors = unread.run(repos, [mirrors], tmp_path / "cache", clone=False)
    assert errors == []
    scored, real = unread.score(sites, reports["default"], "default")
    # the pinned commit, not the later fix, is what was checked
    assert {(f.path, f.first, f.verdict) for f in scored} >= {("pkg/infer.py", 7, "REAL")}
    assert all(f.verdict != "NO" for f in scored)
    assert [(site.path, hit) for site, _label, hit in real] == [
        ("pkg/infer.py", True),
        ("pkg/feats.py", False),
    ]
    table = unread.render(sites, reports, {"me/proj": "A"}, list(unread.PROFILES))
    assert "| A (read) |" in table and "recall 1/2 (50%)" in table
    # a repository no mirror holds is an error, not a silent zero
    missing = {"me/gone": ("b" * 40, "B")}
    _reports, errors = unread.run(missing, [mirrors], tmp_path / "cache", clone=False)
    assert len(errors) == 1 and "me/gone" in errors[0]
