"""``python -m bench recall``: recall on real hazards mined from public histories.

Every case in ``bench/recall/cases/*.toml`` is a line of a public repository
at the commit *before* a maintainer's fix: a conversion that crashed (kind
``D``: ``.numpy()`` or an implicit conversion on a CUDA tensor or on one that
requires grad), wrote through shared memory (``W``), or kept a snapshot that
went stale (``S``). A case with ``real = false`` is a negative: a fix-looking
commit that changed a conversion which could not fail (a defensive
``.cpu()``). The cases were chosen from the histories alone, never from what
tensorlint reports (``bench/recall/README.md``).

For each repository the runner takes the commit's ``.py`` and ``.ipynb``
files (from a local mirror of the repository, ``--mirrors``, or from a bare
clone it makes in ``--cache-dir``), runs ``tensorlint check`` on the whole
tree (other files' facts count), and scores a case as found when a finding
of a rule that stands for the case's hazard covers the case's line:

    D/device  TL101, TL111, TL103, TL113     D/grad  TL102, TL112, TL103, TL113
    W         TL201, TL202, TL204, TL211-213 S       TL211, TL212, TL213, TL201, TL202

Nothing of the repositories is committed, and nothing in them is run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Optional

from bench import readme
from bench.corpus import ensure_cache_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on the oldest CI leg
    import tomli as tomllib

__all__ = ["Case", "load_cases", "main", "score"]

HERE = Path(__file__).resolve().parent / "recall"
CASES = HERE / "cases"
HELD_OUT = HERE / "held_out.txt"
#: cases from the held-out repositories: for measuring only (README.md)
HELD_OUT_CASES = HERE / "held_out_cases"

KINDS = ("D", "W", "S")
CRASHES = ("device", "grad", "both")
SHAPES = ("explicit", "numpy-function", "library-call")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")

#: the rules whose finding on a case's line counts as finding that hazard
RULES_FOR: dict[str, frozenset[str]] = {
    "D/device": frozenset({"TL101", "TL111", "TL103", "TL113"}),
    "D/grad": frozenset({"TL102", "TL112", "TL103", "TL113"}),
    "D/both": frozenset({"TL101", "TL111", "TL102", "TL112", "TL103", "TL113"}),
    "W": frozenset({"TL201", "TL202", "TL204", "TL211", "TL212", "TL213"}),
    "S": frozenset({"TL211", "TL212", "TL213", "TL201", "TL202"}),
}
#: Where the fact that made a D case fail lives: in the converting file, in
#: another file of the repository (the model moved in ``train.py``, a caller,
#: a base class), or outside it (a public function's users, a library's output).
FACTS = ("file", "other-file", "outside")
FACT_ROWS = {
    "file": "in the file",
    "other-file": "in another file",
    "outside": "outside the repository",
}
REQUIRED = ("id", "real", "kind", "shape", "commit", "fix", "path", "line", "imports_torch",
            "evidence", "source")  # fmt: skip


@dataclass(frozen=True)
class Case:
    repo: str
    id: str
    real: bool
    kind: str
    crash: str
    shape: str
    commit: str
    fix: str
    path: str
    line: int
    cell: int | None  # notebooks: 0-based index among all cells, as the case file gives it
    imports_torch: bool
    evidence: str
    source: str
    #: D cases: where the fact that made it fail lives (``FACTS``), or ""
    facts: str = ""

    @property
    def hazard(self) -> str:
        return f"D/{self.crash}" if self.kind == "D" else self.kind


@dataclass
class Result:
    case: Case
    found: dict[str, list[str]] = field(default_factory=dict)  # profile -> codes on the line
    error: str = ""


# ----------------------------------------------------------------------- cases


def held_out() -> frozenset[str]:
    """Repositories kept for checking the work: no case may come from one."""
    names = []
    for raw in HELD_OUT.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            names.append(line.lower())
    return frozenset(names)


def load_cases(directory: Path = CASES, *, held: bool = False) -> list[Case]:
    """Every case, validated: a malformed file stops the bench with its name and reason.
    ``held``: the held-out cases, each from a repository of ``held_out.txt``
    (the development cases never are)."""
    cases: list[Case] = []
    seen: set[str] = set()
    forbidden = held_out()
    for path in sorted(directory.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise SystemExit(f"{path}: {error}") from None
        repo = data.get("repo")
        if not isinstance(repo, str) or not _REPO.match(repo):
            raise SystemExit(f"{path}: `repo` must be 'owner/name'")
        if not held and repo.lower() in forbidden:
            raise SystemExit(f"{path}: {repo} is held out (bench/recall/held_out.txt)")
        if held and repo.lower() not in forbidden:
            raise SystemExit(f"{path}: {repo} is not held out (bench/recall/held_out.txt)")
        expected_name = repo.replace("/", "__") + ".toml"
        if path.name != expected_name:
            raise SystemExit(f"{path}: a case file is named after its repository: {expected_name}")
        for number, raw in enumerate(data.get("case", []), 1):
            where = f"{path}: case {number}"
            missing = [key for key in REQUIRED if key not in raw]
            if missing:
                raise SystemExit(f"{where}: missing {', '.join(missing)}")
            case = _case(repo, raw, where)
            if case.id in seen:
                raise SystemExit(f"{where}: id {case.id!r} used twice")
            seen.add(case.id)
            cases.append(case)
    return cases


def _case(repo: str, raw: dict[str, object], where: str) -> Case:
    kind = raw["kind"]
    if kind not in KINDS:
        raise SystemExit(f"{where}: kind {kind!r} not in {KINDS}")
    crash = raw.get("crash", "")
    if kind == "D" and crash not in CRASHES:
        raise SystemExit(f"{where}: a D case names its crash, one of {CRASHES}")
    if raw["shape"] not in SHAPES:
        raise SystemExit(f"{where}: shape {raw['shape']!r} not in {SHAPES}")
    for key in ("commit", "fix"):
        if not isinstance(raw[key], str) or not _SHA.match(str(raw[key])):
            raise SystemExit(f"{where}: {key} must be a full 40-hex commit")
    line, cell = raw["line"], raw.get("cell")
    if not isinstance(line, int) or line < 1:
        raise SystemExit(f"{where}: line must be a positive integer")
    path = str(raw["path"])
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or pure.suffix not in (".py", ".ipynb"):
        raise SystemExit(f"{where}: path must be a relative .py or .ipynb path in the repository")
    if (pure.suffix == ".ipynb") != isinstance(cell, int):
        raise SystemExit(f"{where}: a notebook case (and only one) gives `cell`")
    if not isinstance(raw["real"], bool) or not isinstance(raw["imports_torch"], bool):
        raise SystemExit(f"{where}: real and imports_torch are true or false")
    facts = raw.get("facts", "")
    if facts not in ("", *FACTS):
        raise SystemExit(f"{where}: facts {facts!r} not in {FACTS}")
    return Case(
        repo=repo, id=str(raw["id"]), real=raw["real"], kind=str(kind), crash=str(crash or ""),
        shape=str(raw["shape"]), commit=str(raw["commit"]), fix=str(raw["fix"]), path=path,
        line=line, cell=cell if isinstance(cell, int) else None,
        imports_torch=raw["imports_torch"], evidence=str(raw["evidence"]),
        source=str(raw["source"]), facts=str(facts),
    )  # fmt: skip


# ----------------------------------------------------------------------- sources


def _git(git_dir: Path, *args: str, binary: bool = False) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True,
                          check=False, env=env)  # fmt: skip


def _mirror(repo: str, mirrors: Sequence[Path]) -> Path | None:
    """A git directory for ``repo`` under one of ``mirrors`` (``owner+name/...``), if any."""
    for root in mirrors:
        base = root / repo.replace("/", "+")
        if not base.is_dir():
            continue
        children = sorted(p for p in base.iterdir() if p.is_dir())
        for candidate in (base, *children, *(c / ".git" for c in children)):
            if (candidate / "objects").is_dir() and (candidate / "HEAD").is_file():
                return candidate
    return None


def _git_dir(
    repo: str, commits: Iterable[str], mirrors: Sequence[Path], cache: Path, clone: bool = True
) -> Path:
    """A git directory holding every commit in ``commits``: a mirror, or a bare clone made
    in the cache (objects fetched from GitHub; hooks of a bare clone never run)."""
    found = _mirror(repo, mirrors)
    wanted = sorted(set(commits))
    if found is not None and all(_has(found, c) for c in wanted):
        return found
    if not clone:
        raise RuntimeError(f"{repo}: no mirror holds {', '.join(c[:10] for c in wanted)}")
    clone_dir = cache / "repos" / (repo.replace("/", "+") + ".git")
    if not clone_dir.is_dir():
        clone_dir.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none",
                               f"https://github.com/{repo}.git", str(clone_dir)],
                              capture_output=True, text=True, check=False)  # fmt: skip
        if done.returncode:
            raise RuntimeError(f"cannot clone {repo}: {done.stderr.strip()[-300:]}")
    for commit in wanted:
        if not _has(clone_dir, commit):
            _git(clone_dir, "fetch", "--quiet", "origin", commit)
        if not _has(clone_dir, commit):
            raise RuntimeError(f"{repo}: commit {commit} not found")
    return clone_dir


def _has(git_dir: Path, commit: str) -> bool:
    return _git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


#: What a tree's ``.complete`` marker holds after the commit: the version of
#: what ``extract`` takes (a tree extracted before packaging files were taken
#: is extracted again).
_EXTRACT_VERSION = "sources+packaging"
#: Files taken besides ``.py`` and ``.ipynb``: what tells tensorlint that the
#: project is installable (``engine.tree.PACKAGING``; ``setup.py`` is a ``.py``).
_PACKAGING_FILES = frozenset({"pyproject.toml", "setup.cfg"})


def extract(git_dir: Path, commit: str, target: Path) -> Path:
    """The ``.py`` and ``.ipynb`` files of ``commit`` under ``target`` (kept as a cache),
    and its packaging files (``pyproject.toml``, ``setup.cfg``): regular files only
    (no links, no submodules), read blob by blob, so a mirror that lacks some large
    blobs (media, data) still gives its sources."""
    done = target / ".complete"
    if done.is_file() and done.read_text(encoding="utf-8").split() == [commit, _EXTRACT_VERSION]:
        return target
    listing = _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit)
    if listing.returncode:
        raise RuntimeError(f"git ls-tree {commit}: {listing.stderr.decode()[-300:]}")
    wanted: list[tuple[str, PurePosixPath]] = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        name = PurePosixPath(raw_path.decode("utf-8", "surrogateescape"))
        if kind != "blob" or mode not in ("100644", "100755"):
            continue
        if (name.suffix in (".py", ".ipynb") or name.name in _PACKAGING_FILES) and (
            ".." not in name.parts
        ):
            wanted.append((sha, name))
    batch = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                           input=b"".join(f"{sha}\n".encode() for sha, _ in wanted),
                           capture_output=True, check=False)  # fmt: skip
    stream = io.BytesIO(batch.stdout)
    target.mkdir(parents=True, exist_ok=True)
    for _sha, name in wanted:
        header = stream.readline().split()
        if len(header) != 3:  # "<sha> missing": a blob this mirror does not hold
            continue
        data = stream.read(int(header[2]))
        stream.read(1)  # the newline after each object
        destination = target.joinpath(*name.parts)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
    done.write_text(f"{commit} {_EXTRACT_VERSION}", encoding="utf-8")
    return target


def _code_cell(notebook: Path, index: int) -> int | None:
    """The 1-based code-cell number (as tensorlint reports it) of cell ``index`` (0-based
    among all cells), or None when that cell is not code."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not 0 <= index < len(cells) or cells[index].get("cell_type") != "code":
        return None
    return sum(1 for c in cells[: index + 1] if c.get("cell_type") == "code")


# ----------------------------------------------------------------------- findings


#: the default profile's findings of high confidence only (``--min-confidence
#: high``): a column of the tables, read from the default run
HIGH = "high confidence"

Spans = dict[tuple[str, Optional[int]], list[tuple[int, int, str, str]]]


def findings(tree: Path, strict: bool) -> Spans:
    """``tensorlint check`` on every file of ``tree``: (path, cell) -> [(first,
    last, code, confidence)]."""
    files = sorted(
        str(p.resolve()) for p in tree.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file()
    )
    found: Spans = defaultdict(list)
    if not files:
        return found
    command = [sys.executable, "-m", "tensorlint", "check", "--no-cache", "--exit-zero",
               "--output-format", "json", *(["--strict"] if strict else []), *files]  # fmt: skip
    # run from the tree's top, as its users do: a folder's role (``scripts/``,
    # ``tests/``) is decided below the current directory, and an extracted
    # tree has no ``.git`` marking its top
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=tree)
    try:
        report = json.loads(result.stdout)
    except ValueError:
        raise RuntimeError(f"tensorlint failed on {tree}: {result.stderr.strip()[-300:]}") from None
    for item in report["findings"]:
        rel = Path(item["file"]).resolve().relative_to(tree.resolve()).as_posix()
        found[(rel, item.get("cell"))].append(
            (item["line"], item["end_line"], item["code"], item["confidence"])
        )
    return found


def run(
    cases: Sequence[Case], mirrors: Sequence[Path], cache: Path, strict: bool, clone: bool = True
) -> list[Result]:
    profiles = ["default"] + (["strict"] if strict else [])
    results: list[Result] = []
    by_tree: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for case in cases:
        by_tree[(case.repo, case.commit)].append(case)
    for index, ((repo, commit), group) in enumerate(sorted(by_tree.items()), 1):
        _log(f"[{index}/{len(by_tree)}] {repo}@{commit[:10]} ({len(group)} cases)")
        try:
            git_dir = _git_dir(repo, [commit], mirrors, cache, clone)
            tree = extract(git_dir, commit, cache / "trees" / f"{repo.replace('/', '+')}@{commit}")
        except RuntimeError as error:
            results += [Result(case, error=str(error)) for case in group]
            continue
        try:
            reports = {profile: findings(tree, profile == "strict") for profile in profiles}
        except RuntimeError as error:
            results += [Result(case, error=str(error)) for case in group]
            continue
        for case in group:
            result = Result(case)
            cell = None
            if case.cell is not None:
                cell = _code_cell(tree / case.path, case.cell)
                if cell is None:
                    result.error = f"cell {case.cell} of {case.path} is not a code cell"
            if not (tree / case.path).is_file():
                result.error = f"{case.path} not in {commit[:10]}"
            for profile in profiles:
                spans = reports[profile].get((case.path, cell), [])
                here = [
                    (code, level)
                    for first, last, code, level in spans
                    if first <= case.line <= last
                ]
                result.found[profile] = sorted({code for code, _ in here})
                if profile == "default":
                    result.found[HIGH] = sorted({code for code, level in here if level == "high"})
            results.append(result)
    return results


def hit(result: Result, profile: str) -> bool:
    rules = RULES_FOR[result.case.hazard]
    return any(code in rules for code in result.found.get(profile, []))


# ----------------------------------------------------------------------- report


def score(results: Sequence[Result], profile: str) -> dict[str, dict[str, int]]:
    """Rows -> {"cases", "found"}: every real case by kind (D/device, D/grad, W, S), by
    shape, by whether the file imports torch, all together; negatives: how many flagged."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"cases": 0, "found": 0})
    for result in results:
        if result.error:
            continue
        case = result.case
        found = int(hit(result, profile))
        rows = (
            [f"kind {case.hazard}", f"shape {case.shape}",
             "file imports torch" if case.imports_torch else "file never imports torch", "all real"]
            if case.real else ["negatives (flagged)"]
        )  # fmt: skip
        if case.real and case.facts:
            rows.append(f"facts {FACT_ROWS[case.facts]}")
        for row in rows:
            table[row]["cases"] += 1
            table[row]["found"] += found
    return dict(table)


def render(results: Sequence[Result], profiles: Sequence[str]) -> str:
    real = [r for r in results if r.case.real and not r.error]
    repos = {r.case.repo for r in real}
    failed = sum(1 for r in results if r.error)
    lines = [
        f"{len(real)} real cases from {len(repos)} repositories, "
        f"{sum(1 for r in results if not r.case.real and not r.error)} negatives"
        + (f", {failed} not scored (below)" if failed else ""),
        "",
        "| | " + " | ".join(profiles) + " |",
        "|---|" + "---|" * len(profiles),
    ]  # fmt: skip
    tables = {profile: score(results, profile) for profile in profiles}
    order = sorted({row for t in tables.values() for row in t}, key=_row_order)
    for row in order:
        cells = []
        for profile in profiles:
            tally = tables[profile].get(row, {"cases": 0, "found": 0})
            percent = f" ({100 * tally['found'] / tally['cases']:.0f}%)" if tally["cases"] else ""
            cells.append(f"{tally['found']}/{tally['cases']}{percent}")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _row_order(row: str) -> tuple[int, str]:
    prefixes = ("all real", "kind", "shape", "file", "facts", "negatives")
    return (next(i for i, p in enumerate(prefixes) if row.startswith(p)), row)


def details(results: Sequence[Result], profiles: Sequence[str]) -> str:
    lines = []
    for result in results:
        case = result.case
        if result.error:
            lines.append(f"- NOT SCORED {case.id}: {result.error}")
            continue
        marks = ", ".join(
            f"{p}: {'found' if hit(result, p) else 'missed'}"
            + (f" ({' '.join(result.found[p])})" if result.found.get(p) else "")
            for p in profiles
        )
        label = f"{case.hazard} {case.shape}" if case.real else "NEGATIVE"
        lines.append(f"- {case.id} [{label}] {marks}")
    return "\n".join(lines)


def _log(message: str) -> None:
    print(f"[bench recall] {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench recall",
        description="Recall of tensorlint on real hazards mined from maintainers' fix commits "
        "(bench/recall/cases/*.toml), at the commit before each fix.",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench_cache"), metavar="DIR")
    parser.add_argument(
        "--mirrors",
        type=Path,
        action="append",
        metavar="DIR",
        help="a folder of local mirrors (owner+name/<git dir>) to read before cloning from "
        "GitHub; repeatable (default: $TENSORLINT_BENCH_MIRRORS, else /work/.mirror if present)",
    )
    parser.add_argument("--no-clone", action="store_true", help="use the mirrors only")
    parser.add_argument("--strict", action="store_true", help="score the strict profile too")
    parser.add_argument("--repo", action="append", metavar="OWNER/NAME", help="only these")
    parser.add_argument("--validate", action="store_true", help="check the case files and stop")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no per-case list")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="score the cases from the held-out repositories (bench/recall/held_out_cases/) "
        "instead: for measuring only, never for adjusting a rule",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        metavar="DIR",
        help="score the case files of DIR instead (a new batch, measured before it joins "
        "bench/recall/cases/; its repositories may not be held out)",
    )
    parser.add_argument(
        "--readme",
        type=Path,
        metavar="FILE",
        help="also write the table into FILE (the README), between its markers (not with "
        "--repo: the README's table is of every case)",
    )
    args = parser.parse_args(argv)
    if args.readme is not None and (args.repo or args.cases):
        parser.error("--readme writes the table of every case: leave out --repo and --cases")
    if args.held_out and args.cases:
        parser.error("--cases and --held-out name two sets of cases: give one")
    if args.held_out:
        cases = load_cases(HELD_OUT_CASES, held=True)
    else:
        cases = load_cases(args.cases if args.cases is not None else CASES)
    if args.repo:
        cases = [c for c in cases if c.repo in args.repo]
    if args.validate:
        real = [c for c in cases if c.real]
        print(f"{len(real)} real cases from {len({c.repo for c in real})} repositories, "
              f"{len(cases) - len(real)} negatives: valid")  # fmt: skip
        return 0
    mirrors = args.mirrors or _default_mirrors()
    cache = ensure_cache_dir(args.cache_dir) / "recall"
    profiles = [HIGH, "default"] + (["strict"] if args.strict else [])
    results = run(cases, mirrors, cache, args.strict, clone=not args.no_clone)
    print(render(results, profiles))
    if args.readme is not None:  # (its first line counts the cases not scored, if any)
        command = "python -m bench recall" + (" --held-out" if args.held_out else "")
        command += " --strict" if args.strict else ""
        table = render(results, profiles)
        name = "held-out recall" if args.held_out else "recall"
        readme.write(args.readme, name, f"{readme.stamp(command)}\n\n{table}")
        _log(f"the recall table of {args.readme} is rewritten")
    if not args.quiet:
        print()
        print(details(results, profiles))
    if args.json is not None:
        payload = [
            {"id": r.case.id, "repo": r.case.repo, "real": r.case.real, "hazard": r.case.hazard,
             "shape": r.case.shape, "found": r.found, "error": r.error}
            for r in results
        ]  # fmt: skip
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 1 if any(r.error for r in results) else 0


def _default_mirrors() -> list[Path]:
    configured = os.environ.get("TENSORLINT_BENCH_MIRRORS")
    if configured:
        return [Path(p) for p in configured.split(os.pathsep) if p]
    return [p for p in (Path("/work/.mirror"),) if p.is_dir()]
