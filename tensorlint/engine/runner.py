"""Check (and fix) files: one result per file, never an exception per file."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from pickle import PicklingError
from typing import Optional

from tensorlint.config import Config, per_file_ignored_codes
from tensorlint.diagnostics import FileResult
from tensorlint.engine.cache import Cache
from tensorlint.engine.discovery import discover
from tensorlint.engine.lint import LintError, lint_source, plan_for
from tensorlint.fix.apply import fix_source
from tensorlint.fix.io import SourceReadError, read_source, write_atomic
from tensorlint.registry import matches
from tensorlint.rule import Settings


@dataclass(frozen=True)
class RunOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False  #: compute fixes but write nothing


def settings_for(path: Path, config: Config, settings: Settings) -> Settings:
    ignored = per_file_ignored_codes(config, path)
    if not ignored:
        return settings
    enabled = frozenset(c for c in settings.enabled if not any(matches(c, i) for i in ignored))
    return dataclasses.replace(settings, enabled=enabled)


def check_file(path: Path, settings: Settings, options: RunOptions) -> FileResult:
    name = str(path)
    try:
        source = read_source(path)
    except SourceReadError as error:
        return FileResult(name, error=str(error))
    try:
        if not (options.fix or options.diff):
            return FileResult(name, tuple(lint_source(source.text, settings)))
        outcome = fix_source(source.text, settings, unsafe=options.unsafe_fixes)
        changed = outcome.source != source.text
        problem = "; ".join(outcome.dropped) if outcome.dropped else outcome.error
        if changed and options.fix and not options.diff:
            write_atomic(path, source, outcome.source)
        applied = tuple(code for code, n in sorted(outcome.applied.items()) for _ in range(n))
        return FileResult(
            name,
            tuple(outcome.remaining),
            error=f"{name}: {problem}" if problem else None,
            fixed_source=outcome.source if changed else None,
            original_source=source.text if changed else None,
            fixes_applied=applied,
        )
    except LintError as error:
        return FileResult(name, error=f"{name}: {error}")
    except OSError as error:
        return FileResult(name, error=f"{name}: cannot write: {error.strerror or error}")
    except Exception as error:  # a bug in tensorlint must not stop the run
        return FileResult(name, error=f"{name}: internal error: {type(error).__name__}: {error}")


def _check_task(task: tuple[Path, Settings, RunOptions]) -> FileResult:
    return check_file(*task)


def _pool_size(jobs: Optional[int], tasks: int) -> int:
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    # a worker pays for importing LibCST; small batches are faster in-process
    return max(1, min(workers, tasks // 4))


def _map(tasks: list[tuple[Path, Settings, RunOptions]], jobs: Optional[int]) -> list[FileResult]:
    workers = _pool_size(jobs, len(tasks))
    if workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                return list(pool.map(_check_task, tasks, chunksize=4))
        except (OSError, BrokenProcessPool, PicklingError):
            pass  # no process pool here (sandbox, no /dev/shm): run serially
    return [_check_task(task) for task in tasks]


def run(
    paths: Sequence[Path],
    config: Config,
    settings: Settings,
    options: RunOptions,
    *,
    jobs: Optional[int] = None,
    cache: Optional[Cache] = None,
) -> list[FileResult]:
    """Check every file under ``paths``; results in discovery order.

    Cached findings are reused for unchanged files (a fix run only skips the
    files cached as clean); files that cannot match are settled here from
    their bytes; the rest go to a process pool when there are enough of them.
    """
    files = discover(paths, config.exclude, config.root)
    fixing = options.fix or options.diff
    results: dict[int, FileResult] = {}
    pending: list[tuple[int, tuple[Path, Settings, RunOptions]]] = []
    for index, path in enumerate(files):
        file_settings = settings_for(path, config, settings)
        cached = cache.get(path, file_settings) if cache is not None else None
        if cached is not None and not (fixing and cached):
            results[index] = FileResult(str(path), cached)
            continue
        if not fixing and not _may_match(path, file_settings):
            results[index] = FileResult(str(path))
            if cache is not None:
                cache.put(path, file_settings, ())
            continue
        pending.append((index, (path, file_settings, options)))
    for (index, task), result in zip(pending, _map([t for _, t in pending], jobs)):
        results[index] = result
        if cache is not None and result.error is None and result.fixed_source is None:
            cache.put(task[0], task[1], result.diagnostics)
    if cache is not None:
        cache.save()
    return [results[index] for index in range(len(files))]


def _may_match(path: Path, settings: Settings) -> bool:
    """The prefilter, from the file's bytes (errors go to the full check)."""
    try:
        text = read_source(path).text
    except SourceReadError:
        return True
    return plan_for(settings).may_match(text, settings)
