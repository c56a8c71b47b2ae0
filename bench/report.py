"""The machine, the ratios, the scaling tables, and the Markdown and JSON reports."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from bench.suite import RunResult

__all__ = ["build_report", "machine_info", "render_markdown"]

SCHEMA = 1
#: the tensorlint runs every whole-corpus peer run is compared with
_TL_CORPUS = ("tensorlint.cold", "tensorlint.warm")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Processor", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine_info() -> dict[str, Any]:
    usable: int | None = None
    if hasattr(os, "sched_getaffinity"):
        usable = len(os.sched_getaffinity(0))
    return {
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu_model": _cpu_model(),
        "memory_gib": _memory_gib(),
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "python_executable": sys.executable,
    }


# --------------------------------------------------------------------------- derived numbers


def _by_id(results: Sequence[RunResult]) -> dict[str, RunResult]:
    return {result.spec.id: result for result in results}


def _ratio(top: float | None, bottom: float | None) -> float | None:
    if top is None or bottom is None or bottom <= 0:
        return None
    return top / bottom


def _why_not(*results: RunResult) -> str:
    for result in results:
        if not result.ok:
            return f"{result.spec.id}: {result.status}" + (
                f" ({result.reason})" if result.reason else ""
            )
    return ""


def ratios(results: Sequence[RunResult]) -> list[dict[str, Any]]:
    """tensorlint / peer for the whole corpus and for each single-file case."""
    by_id = _by_id(results)
    pairs: list[tuple[RunResult, RunResult]] = []
    peers = [r for r in results if r.spec.group == "corpus" and r.spec.tool != "tensorlint"]
    for tl_id in _TL_CORPUS:
        if tl_id in by_id:
            pairs.extend((by_id[tl_id], peer) for peer in peers)
    for case in ("clean", "conversions"):
        tl = by_id.get(f"tensorlint.single.{case}")
        if tl is None:
            continue
        pairs.extend(
            (tl, peer)
            for peer in results
            if peer.spec.group == "single"
            and peer.spec.tool != "tensorlint"
            and peer.spec.meta.get("single_case") == case
        )
    rows = []
    for tl, peer in pairs:
        rows.append(
            {
                "tensorlint": tl.spec.id,
                "peer": peer.spec.id,
                "wall_ratio": _ratio(tl.median_wall, peer.median_wall),
                "cpu_ratio": _ratio(tl.median_cpu, peer.median_cpu),
                "rss_ratio": _ratio(tl.peak_rss_mib, peer.peak_rss_mib),
                "why_missing": _why_not(tl, peer),
            }
        )
    return rows


def scaling(results: Sequence[RunResult]) -> dict[str, list[dict[str, Any]]]:
    """How tensorlint's cold time grows with files and with candidate files."""
    by_id = _by_id(results)
    # the 100% point measured with the other shares, else the first cold run
    full_id = "tensorlint.files.100" if "tensorlint.files.100" in by_id else "tensorlint.cold"
    full = by_id.get(full_id)
    full_wall = full.median_wall if full is not None else None
    files_rows: list[dict[str, Any]] = []
    for run_id, fraction in (
        ("tensorlint.files.25", 0.25),
        ("tensorlint.files.50", 0.5),
        (full_id, 1.0),
    ):
        result = by_id.get(run_id)
        if result is None:
            continue
        wall = result.median_wall
        files = len(result.spec.files)
        files_rows.append(
            {
                "run": run_id,
                "fraction": fraction,
                "files": files,
                "candidate_files": result.spec.candidate_files,
                "median_wall_s": wall,
                "ms_per_file": None if wall is None else wall / files * 1000,
                "wall_vs_full": _ratio(wall, full_wall),
                "status": result.status,
            }
        )
    candidate_rows: list[dict[str, Any]] = []
    base: Optional[RunResult] = by_id.get("tensorlint.candidates.0")
    for run_id, fraction in (
        ("tensorlint.candidates.0", 0.0),
        ("tensorlint.candidates.50", 0.5),
        (full_id, 1.0),
    ):
        result = by_id.get(run_id)
        if result is None:
            continue
        wall = result.median_wall
        marginal = None
        if base is not None and result is not base and base.median_wall is not None:
            added = result.spec.candidate_files - base.spec.candidate_files
            if wall is not None and added > 0:
                marginal = (wall - base.median_wall) / added * 1000
        candidate_rows.append(
            {
                "run": run_id,
                "candidate_fraction": fraction,
                "candidate_files": result.spec.candidate_files,
                "files": len(result.spec.files),
                "median_wall_s": wall,
                "ms_per_added_candidate": marginal,
                "status": result.status,
            }
        )
    return {"files": files_rows, "candidates": candidate_rows}


def build_report(
    *,
    date: str,
    machine: dict[str, Any],
    tools: dict[str, dict[str, Any]],
    corpus: dict[str, Any],
    settings: dict[str, Any],
    results: Sequence[RunResult],
    load: dict[str, Any],
    warnings: Sequence[str] = (),
) -> dict[str, Any]:
    measured = [result for result in results if result.spec.group != "warmup"]
    return {
        "schema": SCHEMA,
        "date": date,
        "machine": {**machine, "load_average": load},
        "tools": tools,
        "corpus": corpus,
        "settings": settings,
        "runs": [result.as_dict() for result in measured],
        "ratios": ratios(measured),
        "scaling": scaling(measured),
        "unavailable": not_measured(measured),
        "warnings": list(warnings),
    }


def not_measured(results: Sequence[RunResult]) -> list[str]:
    """One line per unavailable tool, and one per run that failed or timed out."""
    lines: list[str] = []
    for result in results:
        if result.status == "ok":
            continue
        if result.status == "unavailable":
            line = f"{result.spec.tool}: unavailable: {result.reason}"
        else:
            line = f"{result.spec.id}: {result.status}: {result.reason}"
        if line not in lines:
            lines.append(line)
    return lines


# --------------------------------------------------------------------------- Markdown


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ratio_text(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 10:
        return f"{value:.0f}×"
    if value >= 0.1:
        return f"{value:.2f}×"
    return f"{value:.2g}×"  # 0.0011×: two significant digits, not 0.00×


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.0f} kB"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows)
    return lines


def _notes(run: dict[str, Any]) -> str:
    parts = list(run["notes"])
    info = run["info"]
    if "checked" in info:
        parts.append(f"checked {_plural(info['checked'], 'file')}")
    if "files_changed_by_fix" in info:
        parts.append(f"{info['files_changed_by_fix']} files changed; findings left after fixing")
    if run["status"] != "ok":
        parts.insert(0, f"**{run['status']}**: {run['reason']}")
    return "; ".join(parts)


def _runs_table(runs: Sequence[dict[str, Any]]) -> list[str]:
    rows = []
    for run in runs:
        ok = run["status"] == "ok"
        rows.append(
            [
                f"`{run['id']}`",
                f"`{run['command']}`" if run["command"] else run["title"],
                run["files"],
                run["reps"] if ok else 0,
                _seconds(run["median_wall_s"]) if ok else run["status"],
                _seconds(run.get("min_wall_s")),
                _seconds(run["median_cpu_s"]),
                _number(run["peak_rss_mib"], 0),
                _number(run.get("tree_rss_mib"), 0),
                "–" if run["findings"] is None else run["findings"],
                _notes(run),
            ]
        )
    header = [
        "run",
        "command",
        "files",
        "reps",
        "median wall (s)",
        "min wall (s)",
        "CPU (s)",
        "peak RSS (MiB)",
        "tree RSS (MiB)",
        "findings",
        "notes",
    ]
    return _table(header, rows)


def _startup_lines(runs: Sequence[dict[str, Any]]) -> list[str]:
    """How much of a one-file run is start-up: the interpreter's, then ours."""
    walls = {run["id"]: run["median_wall_s"] for run in runs if run["status"] == "ok"}
    python = walls.get("python.startup")
    own = walls.get("tensorlint.startup")
    if python is None or own is None:
        return []
    parts = [
        f"Start-up: the interpreter alone takes {_seconds(python)} s here "
        f"(`python -c pass`, `site` included), tensorlint's start-up "
        f"{_seconds(own)} s (`--version`: {_seconds(own - python)} s of imports)."
    ]
    for case in ("clean", "conversions"):
        wall = walls.get(f"tensorlint.single.{case}")
        if wall is not None:
            parts.append(
                f"One file ({case}): {_seconds(wall)} s, {_seconds(wall - python)} s "
                "over the interpreter."
            )
    return [" ".join(parts), ""]


def render_markdown(report: dict[str, Any]) -> str:
    machine = report["machine"]
    corpus = report["corpus"]
    settings = report["settings"]
    lines = ["# tensorlint benchmark", ""]
    memory = machine.get("memory_gib")
    load = machine["load_average"]
    lines += [
        f"- **Date**: {report['date']}",
        f"- **Machine**: {machine['cores']} cores ({machine['usable_cores']} usable), "
        f"{machine['cpu_model']}, "
        + (f"{memory:.1f} GiB RAM, " if memory else "")
        + f"{machine['platform']}",
        f"- **Python**: {machine['python']} ({machine['python_executable']})",
        "- **Load average** (1 min) before / after: "
        f"{load['before'][0]:.2f} / {load['after'][0]:.2f}",
        "- **Tools**: " + "; ".join(tool["description"] for tool in report["tools"].values()),
    ]
    if corpus["kind"] == "pinned":
        packages = ", ".join(
            f"{p['name']} {p['version']} ({p['files']} files)" for p in corpus["packages"]
        )
        source = f"pinned wheels from PyPI: {packages}"
    else:
        source = f"local tree {corpus['root']}"
    lines += [
        f"- **Corpus**: {source}; {corpus['files']} files, {corpus['candidate_files']} "
        f"candidate files (mention torch and `.numpy`/`from_numpy`), "
        f"{corpus['lines']:,} lines, {_size(corpus['bytes'])}",
        f"- **Settings**: {_plural(settings['repeat'], 'repetition')} per run (median "
        f"reported; a run whose first takes over {settings['slow_after_s']:.0f} s is not "
        f"repeated), timeout {settings['timeout_s']:.0f} s "
        f"per run; peers from {settings['peer_source']}; every tool gets the same explicit "
        "file list (Semgrep on the whole corpus: the corpus root)",
        "",
        "Wall: process start to exit. CPU: user+system of the whole process tree. "
        "Peak RSS: the largest single process of the tree (max over repetitions). "
        "Tree RSS: the peak of the summed resident sets of every process of the run "
        "(sampled every 20 ms; max over repetitions).",
        "",
    ]
    for warning in report.get("warnings", []):
        lines += [f"> **Warning**: {warning}", ""]
    runs = report["runs"]
    for group, title in (
        ("corpus", "Whole corpus"),
        ("single", "Single file (the pre-commit case)"),
    ):
        chosen = [run for run in runs if run["group"] == group]
        if chosen:
            lines += [f"## {title}", "", *_runs_table(chosen), ""]
        if group == "single":
            lines += _startup_lines(runs)
    ratio_rows = [
        [
            f"`{row['tensorlint']}`",
            f"`{row['peer']}`",
            _ratio_text(row["wall_ratio"]),
            _ratio_text(row["cpu_ratio"]),
            _ratio_text(row["rss_ratio"]),
            row["why_missing"],
        ]
        for row in report["ratios"]
    ]
    if ratio_rows:
        lines += [
            "## tensorlint / peer",
            "",
            "Median wall, CPU and peak RSS of the tensorlint run divided by the peer's "
            "(above 1: tensorlint takes more).",
            "",
            *_table(
                ["tensorlint run", "peer run", "wall", "CPU", "peak RSS", "missing because"],
                ratio_rows,
            ),
            "",
        ]
    files_rows = report["scaling"]["files"]
    if files_rows:
        lines += [
            "## Scaling with the number of files (tensorlint, cold)",
            "",
            *_table(
                ["share", "files", "candidate files", "median wall (s)", "ms/file", "wall vs 100%"],
                [
                    [
                        f"{row['fraction']:.0%}",
                        row["files"],
                        row["candidate_files"],
                        _seconds(row["median_wall_s"]) if row["status"] == "ok" else row["status"],
                        _number(row["ms_per_file"]),
                        _ratio_text(row["wall_vs_full"]),
                    ]
                    for row in files_rows
                ],
            ),
            "",
        ]
    candidate_rows = report["scaling"]["candidates"]
    if candidate_rows:
        lines += [
            "## Scaling with the number of candidate files (tensorlint, cold)",
            "",
            "Every non-candidate file, plus a share of the candidate files.",
            "",
            *_table(
                [
                    "candidates kept",
                    "candidate files",
                    "files",
                    "median wall (s)",
                    "ms per candidate added (vs 0%)",
                ],
                [
                    [
                        f"{row['candidate_fraction']:.0%}",
                        row["candidate_files"],
                        row["files"],
                        _seconds(row["median_wall_s"]) if row["status"] == "ok" else row["status"],
                        _number(row["ms_per_added_candidate"]),
                    ]
                    for row in candidate_rows
                ],
            ),
            "",
        ]
    if report["unavailable"]:
        lines += ["## Not measured", ""]
        lines += [f"- {line}" for line in report["unavailable"]]
        lines.append("")
    return "\n".join(lines)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
