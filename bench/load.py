"""``python -m bench load``: many files, big files: no crash, and what it costs.

Generates a tree of small modules (``--small``, default 20,000) and of large
ones (``--big`` files of about ``--big-mib`` MiB each, default 200 x 1), every
one importing torch and holding conversions, then runs ``tensorlint check``
on it cold (writing the cache), warm (reading it) and, with ``--serial``,
cold with ``--jobs 1``.
Reports wall and CPU time, the peak resident set of the largest process of
the run's tree, the findings and errors counted from the JSON output, and the
size of the cache directory. Exits 1 when a run crashed or reported errors.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.measure import Measurement, measure

_SMALL = """import torch


def to_host_{n}(x):
    t = x.cuda()
    return t.numpy()
"""

_BLOCK = """

def convert_{n}(a, model):
    t = torch.from_numpy(a)
    t += {n}
    out = model(t.cuda())
    return out.numpy(), a
"""

_PLAIN = """

def helper_{n}(values, scale={n}):
    total = 0
    for value in values:
        total += value * scale
    return total / max(len(values), 1)
"""


def generate(root: Path, small: int, big: int, big_mib: float, dense: bool = False) -> None:
    """The tree; big files hold one conversion block in 50 (every block with
    ``dense``: the worst case, where nothing can be skipped unparsed)."""
    (root / "small").mkdir(parents=True)
    (root / "big").mkdir()
    for n in range(small):
        (root / "small" / f"m{n}.py").write_text(_SMALL.format(n=n))
    target = int(big_mib * 1024 * 1024)
    for n in range(big):
        parts = ["import torch\n"]
        size, block = len(parts[0]), 0
        while size < target:
            converts = dense or block % 50 == 0
            text = (_BLOCK if converts else _PLAIN).format(n=block)
            parts.append(text)
            size += len(text)
            block += 1
        (root / "big" / f"big{n}.py").write_text("".join(parts))


def _run(
    root: Path, out: Path, name: str, args: Sequence[str]
) -> tuple[Measurement, dict[str, int]]:
    argv = [sys.executable, "-m", "tensorlint", "check", "--output-format", "json", *args, "."]
    stdout, stderr = out / f"{name}.json", out / f"{name}.err"
    result = measure(argv, cwd=root, stdout=stdout, stderr=stderr, timeout=3600)
    counts = {"findings": -1, "errors": -1}
    try:
        data = json.loads(stdout.read_text(encoding="utf-8"))
        counts = {"findings": len(data["findings"]), "errors": len(data.get("errors", []))}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return result, counts


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__)
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--big", type=int, default=200)
    parser.add_argument("--big-mib", type=float, default=1.0)
    parser.add_argument("--dense", action="store_true", help="a conversion in every block")
    parser.add_argument("--serial", action="store_true", help="also a cold run with --jobs 1")
    parser.add_argument("--keep", action="store_true", help="keep the generated tree")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tensorlint-load-"))
    root, out = work / "tree", work / "out"
    out.mkdir()
    try:
        generate(root, args.small, args.big, args.big_mib, args.dense)
        files = args.small + args.big
        mib = _size(root) / (1024 * 1024)
        rows = []
        failed = False
        runs: list[tuple[str, list[str]]] = [("cold (writes the cache)", []), ("warm", [])]
        if args.serial:
            runs.append(("cold, --jobs 1, no cache", ["--no-cache", "--jobs", "1"]))
        for number, (name, extra) in enumerate(runs):
            result, counts = _run(root, out, f"run{number}", extra)
            failed |= result.timed_out or result.returncode not in (0, 1) or counts["errors"] != 0
            rows.append((name, result, counts))
        cache = _size(root / ".tensorlint_cache") / 1024
        kind = "dense" if args.dense else "one conversion block in 50"
        print(f"{files:,} files ({args.small:,} small, {args.big} of ~{args.big_mib:g} MiB, "
              f"{kind}), {mib:.0f} MiB\n")  # fmt: skip
        print(
            "| run | wall (s) | CPU (s) | peak RSS, largest process (MiB) "
            "| peak RSS, whole tree (MiB) | exit | findings | errors |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, result, counts in rows:
            print(
                f"| {name} | {result.wall_s:.1f} | {result.cpu_s:.1f} | "
                f"{result.maxrss_kib / 1024:.0f} | {result.tree_rss_kib / 1024:.0f} | "
                f"{result.returncode} | "
                f"{counts['findings']:,} | {counts['errors']} |"
            )
        print(f"\ncache directory: {cache:,.0f} KiB")
        return 1 if failed else 0
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
