"""``python -m bench unread``: precision and recall on conversion sites labelled blind.

``bench/unread/repos.tsv`` pins public repositories (none is in the recall
cases, the held-out list, the precision corpus or set2), each with the
commit that was read and its half: ``A`` may be read to find what the
analysis gets wrong (three of its repositories were tuned on in earlier
readings), ``B`` holds none any rule was adjusted on and is only measured.
``bench/unread/sites.tsv`` holds conversion sites of those commits, labelled
by people who read the code and never saw tensorlint's output. Each site
has a label per hazard:

    device  the converted value may be on a CUDA device when the line runs
    grad    it may require grad with grad mode on
    write   a write through shared memory changes data that is still read

each ``REAL`` (the project's own use hits it), ``WEAK`` (a caller could, with
unusual input) or ``NO``. Sites drawn at random (``origin`` ``sample``: a
seeded sample of the lines that hold a conversion call) measure recall; the
lines of the default's and strict profile's findings were added to the
sample (``finding``, ``strict``) so that every default finding is labelled,
without telling the readers which lines they were.

A finding is scored against the labelled sites its span covers, by the
hazards its rule stands for (as in ``bench recall``): real or weak when one
of them is ``REAL`` or ``WEAK``, false when all are ``NO``, unlabelled when
it covers no labelled site (a new finding: read it, and label it in a new
batch rather than changing the old labels). A sampled site with a ``REAL``
label is found when a finding of a matching rule covers its line.

Nothing of the repositories is committed, and nothing in them is run.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from bench import readme
from bench.corpus import ensure_cache_dir
from bench.recall import HIGH, Spans, _default_mirrors, _git_dir, _log, extract, findings

__all__ = ["Site", "load_repos", "load_sites", "main", "run", "score"]

HERE = Path(__file__).resolve().parent / "unread"
REPOS = HERE / "repos.tsv"
SITES = HERE / "sites.tsv"

HAZARDS = ("device", "grad", "write")
LABELS = ("REAL", "WEAK", "NO")
ORIGINS = ("sample", "finding", "strict")
HALVES = ("A", "B", "C")
#: the hazards each rule stands for (TL301 and TL900 stand for none)
HAZARDS_OF: dict[str, frozenset[str]] = {
    "TL101": frozenset({"device"}),
    "TL111": frozenset({"device"}),
    "TL102": frozenset({"grad"}),
    "TL112": frozenset({"grad"}),
    "TL103": frozenset({"device", "grad"}),
    "TL113": frozenset({"device", "grad"}),
    **{
        code: frozenset({"write"})
        for code in ("TL201", "TL202", "TL204", "TL211", "TL212", "TL213")
    },
}
_LOC = re.compile(r"^(?P<path>.+?):(?:cell(?P<cell>[1-9][0-9]*):)?(?P<line>[1-9][0-9]*)$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True, eq=False)
class Site:
    repo: str
    path: str
    cell: Optional[int]
    line: int
    origin: str
    labels: dict[str, str]
    reason: str

    @property
    def loc(self) -> str:
        cell = f"cell{self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}"

    def verdict(self, hazards: Iterable[str]) -> str:
        """The best label among ``hazards``: REAL over WEAK over NO."""
        got = {self.labels[h] for h in hazards}
        return next(label for label in LABELS if label in got or label == "NO")


def load_repos(path: Path = REPOS) -> dict[str, tuple[str, str]]:
    """repository -> (commit, half)."""
    repos: dict[str, tuple[str, str]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), 2):
            where = f"{path.name}:{number}"
            if not _SHA.match(row["commit"]) or row["half"] not in HALVES:
                raise ValueError(f"{where}: a commit is 40 hex digits and a half A, B or C")
            if row["repo"] in repos:
                raise ValueError(f"{where}: {row['repo']} is listed twice")
            repos[row["repo"]] = (row["commit"], row["half"])
    return repos


def load_sites(
    path: Path = SITES, repos: Optional[dict[str, tuple[str, str]]] = None
) -> list[Site]:
    sites: list[Site] = []
    seen: set[tuple[str, str]] = set()
    with path.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), 2):
            where = f"{path.name}:{number}"
            match = _LOC.match(row["loc"])
            if match is None:
                raise ValueError(f"{where}: loc {row['loc']!r} is not path:line or path:cellN:line")
            if repos is not None and row["repo"] not in repos:
                raise ValueError(f"{where}: {row['repo']} is not in {REPOS.name}")
            if row["origin"] not in ORIGINS:
                raise ValueError(f"{where}: origin is one of {', '.join(ORIGINS)}")
            labels = {hazard: row[hazard] for hazard in HAZARDS}
            if any(label not in LABELS for label in labels.values()):
                raise ValueError(f"{where}: every label is one of {', '.join(LABELS)}")
            if (row["repo"], row["loc"]) in seen:
                raise ValueError(f"{where}: {row['repo']} {row['loc']} is labelled twice")
            seen.add((row["repo"], row["loc"]))
            cell = match.group("cell")
            sites.append(
                Site(row["repo"], match.group("path"), int(cell) if cell else None,
                     int(match.group("line")), row["origin"], labels, row["reason"])
            )  # fmt: skip
    return sites


@dataclass
class Finding:
    repo: str
    path: str
    cell: Optional[int]
    first: int
    last: int
    code: str
    verdict: str  # REAL, WEAK, NO or "unlabelled"


def score(
    sites: Sequence[Site], reports: dict[str, Spans], profile: str
) -> tuple[list[Finding], list[tuple[Site, str, bool]]]:
    """The findings of ``profile`` with their verdicts, and each sampled site that is
    REAL or WEAK for some hazard, with that label and whether a finding of a rule that
    stands for such a hazard of it covers it."""
    by_file: dict[tuple[str, str, Optional[int]], list[Site]] = {}
    for site in sites:
        by_file.setdefault((site.repo, site.path, site.cell), []).append(site)
    scored: list[Finding] = []
    covered: dict[Site, set[str]] = {}
    for repo, spans in reports.items():
        for (path, cell), items in spans.items():
            for first, last, code, confidence in items:
                hazards = HAZARDS_OF.get(code)
                if hazards is None or (profile == HIGH and confidence != "high"):
                    continue
                here = [s for s in by_file.get((repo, path, cell), []) if first <= s.line <= last]
                for site in here:
                    covered.setdefault(site, set()).update(hazards)
                verdicts = {site.verdict(hazards) for site in here}
                verdict = next((v for v in LABELS if v in verdicts), "unlabelled")
                scored.append(Finding(repo, path, cell, first, last, code, verdict))
    real = [
        (site, site.verdict(HAZARDS), site.verdict(covered.get(site, ())) != "NO")
        for site in sites
        if site.origin == "sample" and site.verdict(HAZARDS) != "NO"
    ]
    return scored, real


def _percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def _in_halves(
    sites: Sequence[Site], spans: dict[str, Spans], halves: dict[str, str], keep: set[str]
) -> tuple[list[Site], dict[str, Spans]]:
    """The sites and one profile's findings of the repositories in ``keep``'s halves."""
    chosen = [s for s in sites if halves[s.repo] in keep]
    return chosen, {repo: found for repo, found in spans.items() if halves[repo] in keep}


def render(
    sites: Sequence[Site], reports: dict[str, dict[str, Spans]], halves: dict[str, str],
    profiles: Sequence[str],
) -> str:  # fmt: skip
    rows: list[tuple[str, list[str]]] = []
    for name, keep in (
        ("A (read)", {"A"}),
        ("B (measured only)", {"B"}),
        ("C (measured only, 2026-11-29, stop 64)", {"C"}),
        ("all", set(HALVES)),
    ):
        cells: list[str] = []
        for profile in profiles:
            found, real = score(*_in_halves(sites, reports[profile], halves, keep), profile)
            count = Counter(f.verdict for f in found)
            labelled = count["REAL"] + count["WEAK"] + count["NO"]
            hits = sum(hit for _site, label, hit in real if label == "REAL")
            reals = sum(1 for _site, label, _hit in real if label == "REAL")
            cells.append(
                f"{len(found)}: {count['REAL']} R, {count['WEAK']} W, {count['NO']} F"
                + (f", {count['unlabelled']} unlabelled" if count["unlabelled"] else "")
                + f"; precision {_percent(count['REAL'] + count['WEAK'], labelled)}"
                + f"; recall {_percent(hits, reals)}"
                + f" (real or weak {_percent(sum(hit for _s, _l, hit in real), len(real))})"
            )
        rows.append((name, cells))
    sampled = [s for s in sites if s.origin == "sample"]
    real = Counter(s.verdict(HAZARDS) for s in sampled)
    head = (
        f"{len(halves)} repositories and {len(sites)} labelled sites "
        f"({len(sampled)} sampled: {real['REAL']} REAL, {real['WEAK']} WEAK)\n\n"
        "| half | " + " | ".join(profiles) + " |\n|---|" + "---|" * len(profiles)
    )
    return head + "\n" + "\n".join(f"| {name} | " + " | ".join(c) + " |" for name, c in rows)


def details(sites: Sequence[Site], reports: dict[str, dict[str, Spans]], half: str,
            halves: dict[str, str], profile: str) -> str:  # fmt: skip
    """Findings not real or weak, and real sampled sites missed, of half ``half``."""
    found, real = score(*_in_halves(sites, reports[profile], halves, {half}), profile)
    lines = [f"### {profile}, half {half}"]
    for f in sorted(found, key=lambda f: (f.repo, f.path, f.cell or 0, f.first)):
        if f.verdict in ("NO", "unlabelled"):
            cell = f"cell{f.cell}:" if f.cell is not None else ""
            tag = "FALSE" if f.verdict == "NO" else "UNLABELLED"
            lines.append(f"{tag:<11} {f.repo} {f.path}:{cell}{f.first} {f.code}")
    for site, label, hit in real:
        if not hit:
            lines.append(f"MISSED      {site.repo} {site.loc} ({label}): {site.reason}")
    return "\n".join(lines)


PROFILES = (HIGH, "default", "strict")


def run(
    repos: dict[str, tuple[str, str]], mirrors: Sequence[Path], cache: Path, clone: bool = True
) -> tuple[dict[str, dict[str, Spans]], list[str]]:
    """Each profile's findings per repository at its pinned commit, and the errors of the
    repositories that could not be checked (left out of the reports)."""
    reports: dict[str, dict[str, Spans]] = {p: {} for p in PROFILES}
    errors: list[str] = []
    for index, (repo, (commit, _half)) in enumerate(sorted(repos.items()), 1):
        _log(f"[{index}/{len(repos)}] {repo}@{commit[:10]}")
        try:
            git_dir = _git_dir(repo, [commit], mirrors, cache, clone)
            tree = extract(git_dir, commit, cache / "trees" / f"{repo.replace('/', '+')}@{commit}")
            default = findings(tree, strict=False)
            strict = findings(tree, strict=True)
        except RuntimeError as error:
            errors.append(str(error))
            continue
        reports[HIGH][repo] = reports["default"][repo] = default
        reports["strict"][repo] = strict
    return reports, errors


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench unread",
        description="Precision and recall of tensorlint on conversion sites of repositories no "
        "rule was adjusted on (half B), labelled by people who never saw its output "
        "(bench/unread/).",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench_cache"), metavar="DIR")
    parser.add_argument("--mirrors", type=Path, action="append", metavar="DIR",
                        help="folders of local mirrors (as in bench recall)")  # fmt: skip
    parser.add_argument("--no-clone", action="store_true", help="use the mirrors only")
    parser.add_argument("--validate", action="store_true", help="check the label files and stop")
    parser.add_argument("--details", choices=HALVES, action="append", default=[],
                        help="list the false findings and missed sites of this half (B and C are "
                        "for measuring only: read them once the work is done)")  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every finding's verdict")
    parser.add_argument("--readme", type=Path, metavar="FILE",
                        help="also write the table into FILE between its markers")  # fmt: skip
    args = parser.parse_args(argv)
    repos = load_repos()
    sites = load_sites(repos=repos)
    if args.validate:
        print(f"{len(repos)} repositories, {len(sites)} labelled sites: valid")
        return 0
    mirrors = args.mirrors or _default_mirrors()
    cache = ensure_cache_dir(args.cache_dir) / "recall"
    reports, errors = run(repos, mirrors, cache, clone=not args.no_clone)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    failed = bool(errors)
    profiles = list(PROFILES)
    halves = {repo: half for repo, (_commit, half) in repos.items() if repo in reports["strict"]}
    sites = [s for s in sites if s.repo in halves]
    table = render(sites, reports, halves, profiles)
    print(table)
    for half in args.details:
        for profile in ("default", "strict"):
            print()
            print(details(sites, reports, half, halves, profile))
    if args.readme is not None and not failed:
        stamp = readme.stamp("python -m bench unread")
        readme.write(args.readme, "unread", f"{stamp}\n\n{table}")
    if args.json is not None:
        payload = {
            profile: [
                {"repo": f.repo, "path": f.path, "cell": f.cell, "line": f.first,
                 "code": f.code, "verdict": f.verdict}
                for f in score(sites, reports[profile], profile)[0]
            ]
            for profile in profiles
        }  # fmt: skip
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0
