"""``python -m bench``: the command line."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.corpus import PINNED, Corpus, CorpusError, ensure_cache_dir, load_corpus, prepare_pinned
from bench.report import build_report, machine_info, render_markdown, write_text
from bench.suite import RunResult, RunSpec, Suite, execute, execute_interleaved
from bench.tools import (
    PEERS,
    Tool,
    resolve_peer,
    resolve_tensorlint,
    source_fingerprint,
    tensorlint_package,
)

__all__ = ["main"]

#: this checkout's fixtures: the --quick corpus
_REPO = Path(__file__).resolve().parent.parent
_QUICK_CORPUS = _REPO / "fixtures"

_DESCRIPTION = """\
Benchmark tensorlint against its peers on real PyTorch code.

By default the corpus is pinned releases of monai, timm, torchmetrics and
torchvision (about 1,280 files), downloaded once with pip into --cache-dir.
Peers (Ruff, Semgrep, Fixit, TorchFix) are installed, pinned, each into its own
virtualenv under --cache-dir, never into this environment. Each run is
measured in a fresh wrapper process: median wall time, CPU time of the process
tree and peak RSS. Prints a Markdown report; --json writes every number.
"""

_EPILOG = """\
examples:
  python -m bench                        full benchmark (downloads and installs on first use)
  python -m bench --json bench.json --markdown bench.md
  python -m bench --corpus ~/src/myproject --peers ruff,semgrep
  python -m bench --quick                tensorlint and Ruff (from PATH) on fixtures/
  python -m bench --render bench.json    print the Markdown of an earlier run again
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small local corpus (this repository's fixtures/ unless --corpus), tensorlint and "
        "Ruff from PATH only (unless --peers/--peer-source say otherwise)",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="PATH",
        help="benchmark this local tree instead of the pinned releases",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(".bench_cache"),
        metavar="DIR",
        help="downloads, unpacked corpus, peer virtualenvs and scratch files (default: "
        ".bench_cache; created with a .gitignore of '*')",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="repetitions of each run; the median is reported (default: 3)",
    )
    parser.add_argument(
        "--slow-after",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="a run whose first repetition takes longer is not repeated (default: 120)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="kill a run after this long and report a timeout (default: 900)",
    )
    parser.add_argument(
        "--peers",
        metavar="LIST",
        help=f"comma-separated peers to run, or 'none' (default: {','.join(PEERS)}; --quick: ruff)",
    )
    parser.add_argument(
        "--peer-source",
        choices=("venv", "path"),
        help="venv: install the pinned releases into virtualenvs under --cache-dir "
        "(default); path: use the tools found on PATH (default with --quick)",
    )
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the installed `tensorlint` console script as it is; by default the "
        "tensorlint package is copied when the benchmark starts and that copy is run "
        "(python -m tensorlint), so edits made meanwhile cannot mix versions",
    )
    parser.add_argument(
        "--keep-work",
        action="store_true",
        help="keep this run's scratch directory (logs of every run, the --fix copy) under "
        "<cache-dir>/work/ instead of deleting it at the end",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the report as JSON")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="also write the Markdown report to FILE"
    )
    parser.add_argument(
        "--render",
        type=Path,
        metavar="JSON",
        help="run nothing: print (and --markdown FILE) the Markdown of an earlier --json report",
    )
    return parser


def _log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _peer_keys(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    if args.peers is None:
        return ["ruff"] if args.quick else list(PEERS)
    if args.peers.strip().lower() == "none":
        return []
    keys = [key.strip().lower() for key in args.peers.split(",") if key.strip()]
    unknown = [key for key in keys if key not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s): {', '.join(unknown)} (known: {', '.join(PEERS)})")
    return list(dict.fromkeys(keys))


def _corpus(args: argparse.Namespace, cache_dir: Path) -> Corpus:
    if args.corpus is not None:
        return load_corpus(args.corpus, "local")
    if args.quick:
        if not _QUICK_CORPUS.is_dir():
            raise CorpusError(f"{_QUICK_CORPUS} not found; give --corpus PATH")
        return load_corpus(_QUICK_CORPUS, "local")
    root = prepare_pinned(cache_dir, PINNED, log=_log)
    return load_corpus(root, "pinned", PINNED)


def _environment(cache_dir: Path) -> dict[str, str]:
    """The environment of every run.

    Bytecode is written (to a prefix inside the cache dir, so nothing lands in
    the checkout) and reused, as in a normal installation: the warm-up run
    compiles it, so no measured run pays for compiling tensorlint's modules.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache_dir / "pycache")
    return env


def _describe_tool(tool: Tool) -> dict[str, Any]:
    return {
        "available": tool.available,
        "version": tool.version,
        "source": tool.source,
        "unavailable": tool.unavailable,
        "extras": tool.extras,
        "features": sorted(tool.features),
        "description": tool.describe(),
    }


def _summary(result: RunResult) -> str:
    if not result.ok:
        return f"{result.status}: {result.reason}"
    wall = result.median_wall or 0.0
    cpu = result.median_cpu or 0.0
    return (
        f"median {wall:.3f} s wall, {cpu:.3f} s CPU, {result.peak_rss_mib or 0:.0f} MiB "
        f"({len(result.measurements)} reps)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    if args.render is not None:
        markdown = render_markdown(json.loads(args.render.read_text(encoding="utf-8")))
        print(markdown)
        if args.markdown is not None:
            write_text(args.markdown, markdown + "\n")
        return 0
    peer_keys = _peer_keys(args, parser)
    peer_source = args.peer_source or ("path" if args.quick else "venv")

    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    cache_dir = ensure_cache_dir(args.cache_dir)
    try:
        corpus = _corpus(args, cache_dir)
    except CorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    _log(
        f"corpus: {len(corpus.files)} files ({len(corpus.candidates)} candidates) "
        f"under {corpus.root}"
    )
    total_argv = sum(len(str(path)) + 1 for path in corpus.paths)
    if total_argv > 1_500_000:
        print(
            f"error: the corpus's file list ({total_argv:,} bytes) is too long for one "
            "command line; give a smaller --corpus",
            file=sys.stderr,
        )
        return 2

    # A directory of its own per invocation: two benchmarks sharing a cache dir
    # must not wipe each other's scratch files.
    work_root = cache_dir / "work"
    work_root.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=work_root))
    try:
        return _benchmark(args, corpus, cache_dir, workdir, peer_keys, peer_source, date)
    finally:
        if args.keep_work:
            _log(f"scratch files and logs kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def _benchmark(
    args: argparse.Namespace,
    corpus: Corpus,
    cache_dir: Path,
    workdir: Path,
    peer_keys: list[str],
    peer_source: str,
    date: str,
) -> int:
    load_before = os.getloadavg()
    logs = workdir / "logs"
    package_dir = tensorlint_package()
    live_before = source_fingerprint(package_dir) if package_dir is not None else None
    snapshot = None if args.no_snapshot else workdir / "tensorlint-snapshot"
    tensorlint = resolve_tensorlint(snapshot)
    if not tensorlint.available:
        print(f"error: tensorlint: {tensorlint.unavailable}", file=sys.stderr)
        return 2
    peers = {
        key: resolve_peer(PEERS[key], peer_source, cache_dir / "venvs", _log) for key in peer_keys
    }
    for tool in (tensorlint, *peers.values()):
        _log(tool.describe())

    env = _environment(cache_dir)
    suite = Suite(corpus, workdir, tensorlint, peers, _log)

    def available(spec: RunSpec) -> Tool:
        return tensorlint if spec.tool == "tensorlint" else peers[spec.tool]

    def run(spec: RunSpec, repeat: int) -> RunResult:
        tool = available(spec)
        if not tool.available:
            return RunResult(spec, status="unavailable", reason=tool.unavailable or "")
        _log(f"{spec.id}: {spec.shown}")
        result = execute(
            spec,
            repeat=repeat,
            timeout=args.timeout,
            slow_after=args.slow_after,
            env=env,
            logs=logs,
        )
        _log(f"{spec.id}: {_summary(result)}")
        return result

    for spec in suite.warmup_runs():
        run(spec, 1)

    def run_group(specs: list[RunSpec]) -> list[RunResult]:
        """The group's repetitions taking turns (A B A B): what the machine's
        load does during the run falls on every tool alike."""
        ready = [spec for spec in specs if available(spec).available]
        for spec in ready:
            _log(f"{spec.id}: {spec.shown}")
        measured = execute_interleaved(
            ready,
            repeat=args.repeat,
            timeout=args.timeout,
            slow_after=args.slow_after,
            env=env,
            logs=logs,
        )
        by_id = {result.spec.id: result for result in measured}
        results = []
        for spec in specs:
            result = by_id.get(spec.id)
            if result is None:
                tool = available(spec)
                result = RunResult(spec, status="unavailable", reason=tool.unavailable or "")
            _log(f"{spec.id}: {_summary(result)}")
            results.append(result)
        return results

    results = [
        *run_group([*suite.tensorlint_corpus_runs(), *suite.peer_corpus_runs()]),
        *run_group(suite.single_file_runs()),
        *run_group(suite.scaling_runs()),
    ]

    load_after = os.getloadavg()
    warnings: list[str] = []
    if package_dir is not None and source_fingerprint(package_dir) != live_before:
        consequence = (
            "the runs used the snapshot taken at the start"
            if snapshot is not None
            else "the runs may mix versions (use the default snapshot)"
        )
        warnings.append(
            f"tensorlint's source in {package_dir} changed during the run; {consequence}"
        )
    cores = os.cpu_count() or 1
    if load_before[0] >= 0.5 * cores:
        warnings.append(
            f"the machine was busy when the run started (load average {load_before[0]:.2f} "
            f"on {cores} cores): timings may be inflated and noisy"
        )
    tools = {"tensorlint": _describe_tool(tensorlint)}
    tools.update({key: _describe_tool(tool) for key, tool in peers.items()})
    for key in peers:
        spec = PEERS[key]
        tools[key]["pinned"] = spec.requirement if peer_source == "venv" else None
        if spec.note:
            tools[key]["note"] = spec.note
    report = build_report(
        date=date,
        machine=machine_info(),
        tools=tools,
        corpus=corpus.summary(),
        settings={
            "repeat": args.repeat,
            "slow_after_s": args.slow_after,
            "timeout_s": args.timeout,
            "peer_source": peer_source,
            "peers": peer_keys,
            "quick": args.quick,
            "cache_dir": str(cache_dir),
            "environment": {"PYTHONPYCACHEPREFIX": env["PYTHONPYCACHEPREFIX"]},
            "tensorlint_snapshot": snapshot is not None,
        },
        results=results,
        load={"before": list(load_before), "after": list(load_after)},
        warnings=warnings,
    )
    markdown = render_markdown(report)
    print(markdown)
    if args.json is not None:
        write_text(args.json, json.dumps(report, indent=2) + "\n")
        _log(f"wrote {args.json}")
    if args.markdown is not None:
        write_text(args.markdown, markdown + "\n")
        _log(f"wrote {args.markdown}")
    failed = [r for r in results if r.spec.tool == "tensorlint" and r.status != "ok"]
    return 1 if failed else 0
