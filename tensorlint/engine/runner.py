"""Check (and fix) files: one result per file, never an exception per file."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tensorlint.config import Config, per_file_ignored_codes
from tensorlint.diagnostics import FileResult
from tensorlint.engine.discovery import discover
from tensorlint.engine.lint import LintError, lint_source
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


def run(
    paths: Sequence[Path], config: Config, settings: Settings, options: RunOptions
) -> list[FileResult]:
    files = discover(paths, config.exclude, config.root)
    return [check_file(path, settings_for(path, config, settings), options) for path in files]
