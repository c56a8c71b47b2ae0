"""Check (and fix) files: one result per file, never an exception per file."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from tensorlint.config import Config, ConfigError, per_file_ignored_codes
from tensorlint.diagnostics import Diagnostic, FileResult, Position
from tensorlint.engine.cache import Cache
from tensorlint.engine.discovery import discover, is_excluded
from tensorlint.file_settings import Resolver
from tensorlint.fix.io import (
    SourceFile,
    SourceReadError,
    WriteRefused,
    read_source,
    write_atomic,
)
from tensorlint.registry import SelectionError, matches
from tensorlint.roles import path_role
from tensorlint.rule import Settings

if TYPE_CHECKING:  # imported where a file is read: a warm run never needs them
    from tensorlint.engine.lint import TreeView
    from tensorlint.engine.tree import Tree
    from tensorlint.notebook import Notebook


class RunOptions(NamedTuple):
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False  #: compute fixes but write nothing
    #: folders ``--fix`` may write into (the checked tree); empty: anywhere
    within: tuple[str, ...] = ()


def settings_for(path: Path, config: Config, settings: Settings) -> Settings:
    library = path_role(path, config.root)
    if library != settings.library:
        settings = settings._replace(library=library)
    ignored = per_file_ignored_codes(config, path)
    if not ignored:
        return settings
    enabled = frozenset(c for c in settings.enabled if not any(matches(c, i) for i in ignored))
    return settings._replace(enabled=enabled)


#: the summaries of the checked tree's modules, for this process
_TREE: Optional[Tree] = None


def _tree() -> Tree:
    global _TREE
    if _TREE is None:
        from tensorlint.engine.tree import Tree

        _TREE = Tree()
    return _TREE


def unchecked(name: str, error: str) -> FileResult:
    """The result for a file that could not be read, parsed or checked: its
    error line, and no count among the files checked."""
    return FileResult(name, error=error, how="failed")


def check_file(path: Path, settings: Settings, options: RunOptions) -> FileResult:
    try:
        source = read_source(path)
    except SourceReadError as error:
        return unchecked(str(path), str(error))
    result = _check_source(path, source, settings, options)
    if source.unknown_codec is not None:
        result = result._replace(unknown_codec=source.unknown_codec)
    return result


def _check_source(
    path: Path, source: SourceFile, settings: Settings, options: RunOptions
) -> FileResult:
    from tensorlint.notebook import NotebookError, cell_python
    from tensorlint.notebook import load as load_notebook

    name = str(path)
    view = _tree().view(path)
    notebook: Optional[Notebook] = None
    text = source.text
    if path.suffix == ".ipynb":
        try:
            with time_budget(file_time_budget()):  # (finding IPython syntax reads every cell)
                notebook = load_notebook(source.text)
        except NotebookError as error:
            return unchecked(name, f"{name}: {error}")
        except OverBudget as error:
            return unchecked(name, _over_budget(name, error))
        text = notebook.python
    try:
        result = check_text(name, text, settings, options, view)
        skipped: list[str] = []
        if (
            notebook is not None
            and result.how == "failed"
            and "syntax error" in (result.error or "")
        ):
            # cells that do not parse (an exercise left blank): Jupyter runs each
            # cell alone, so each is parsed alone; they are skipped, the others checked
            for cell in notebook.cells:
                problem = _cell_syntax_error(cell_python(cell))
                if problem is not None:
                    skipped.append(f"cell {cell.number}: {problem}")
                    notebook = notebook.skipping(cell.number)
            if skipped:
                text = notebook.python
                result = check_text(name, text, settings, options, view)
        result = result._replace(deps=view.dependencies())
        if notebook is not None:
            try:
                result = _notebook_result(result, notebook, source.text)
            except NotebookError as error:  # fixes that do not map back: write nothing
                return FileResult(name, error=f"{name}: {error}")
        if skipped and result.how != "failed":
            told = "; ".join(skipped)
            more = f"; {result.error}" if result.error else ""
            result = result._replace(
                error=f"{name}: {told} (skipped; the other cells were checked){more}"
            )
        elif skipped:  # the other cells still do not parse together (LibCST's parser)
            told = "; ".join(skipped)
            result = result._replace(error=f"{result.error} (after skipping {told})")
        if result.fixed_source is not None and options.fix and not options.diff:
            if _PARENT is not None and os.getppid() != _PARENT:
                return FileResult(name, error=f"{name}: not written: tensorlint was stopped")
            write_atomic(path, source, result.fixed_source, within=options.within)
        return result
    except OSError as error:
        reason = error.strerror or str(error)
        if not isinstance(error, WriteRefused):
            reason = f"cannot write: {reason}"
        # the file is as it was: it keeps every finding of the text that was read
        found = check_text(name, text, settings, RunOptions(), view)
        if notebook is not None:
            try:
                found = _notebook_result(found, notebook, source.text)
            except NotebookError:
                found = FileResult(name)
        return found._replace(error=f"{name}: {reason}")


#: Larger texts are refused: parsing them would take minutes and gigabytes
#: (generated code; the largest hand-written modules are a few hundred KB).
MAX_TEXT_CHARS = 8 * 1024 * 1024


def check_text(
    name: str,
    text: str,
    settings: Settings,
    options: RunOptions,
    tree: Optional[TreeView] = None,
) -> FileResult:
    """Lint (and with ``fix``/``diff``, fix) one source text; never raises.

    ``tree`` gives the summaries of the functions the text imports from the
    rest of the checked tree."""
    from tensorlint.engine.lint import LintError, lint_source
    from tensorlint.fix.apply import fix_source

    if len(text) > MAX_TEXT_CHARS:
        size = len(text) / (1024 * 1024)
        limit = MAX_TEXT_CHARS // (1024 * 1024)
        return unchecked(
            name, f"{name}: too large to check ({size:.0f} MB; the limit is {limit} MB)"
        )
    try:
        with time_budget(file_time_budget()):
            if not (options.fix or options.diff):
                return FileResult(name, tuple(lint_source(text, settings, tree)))
            outcome = fix_source(text, settings, unsafe=options.unsafe_fixes, tree=tree)
        changed = outcome.source != text
        problem = "; ".join(outcome.dropped) if outcome.dropped else outcome.error
        applied = tuple(code for code, n in sorted(outcome.applied.items()) for _ in range(n))
        return FileResult(
            name,
            tuple(outcome.remaining),
            error=f"{name}: {problem}" if problem else None,
            fixed_source=outcome.source if changed else None,
            original_source=text if changed else None,
            fixes_applied=applied,
        )
    except LintError as error:
        return unchecked(name, f"{name}: {error}")
    except OverBudget as error:
        return unchecked(name, _over_budget(name, error))
    except Exception as error:  # a bug in tensorlint must not stop the run
        return unchecked(name, f"{name}: internal error: {type(error).__name__}: {error}")


#: a file whose check takes longer is one error line (an input that makes the
#: analysis spin must not stop the run); the largest real modules take seconds
DEFAULT_FILE_BUDGET_S = 60.0
BUDGET_VARIABLE = "TENSORLINT_FILE_TIMEOUT"


def file_time_budget() -> float:
    """Seconds one file's check may take (``TENSORLINT_FILE_TIMEOUT``; 0: no limit)."""
    value = os.environ.get(BUDGET_VARIABLE, "")
    try:
        seconds = float(value) if value.strip() else DEFAULT_FILE_BUDGET_S
    except ValueError:
        return DEFAULT_FILE_BUDGET_S
    return seconds if 0 < seconds < float("inf") else 0.0  # (nan compares false)


def _over_budget(name: str, error: OverBudget) -> str:
    return (
        f"{name}: not checked: it took longer than {error.seconds:g} s, the time "
        f"limit per file (set by {BUDGET_VARIABLE}; 0: none)"
    )


class OverBudget(BaseException):
    """Raised into a check that ran past its time budget (a BaseException, so
    that no ``except Exception`` inside the analysis swallows it)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


#: seconds between the timer's firings once a budget has expired
_REFIRE_S = 0.1


@contextlib.contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`OverBudget` in the block once ``seconds`` have passed.

    A real-time timer (``SIGALRM``): only where there is one (not on Windows)
    and in the main thread, which is where the CLI and pool workers check
    files; elsewhere (an editor server's thread) the block runs unlimited.
    Writing a file happens outside the block: a timer never interrupts it.
    Once expired it fires again every :data:`_REFIRE_S` until the block ends:
    an exception raised while a gc callback, a ``__del__`` or a weakref
    finalizer runs is printed and dropped by Python, and a one-shot timer
    would then leave the block running unlimited.
    """
    if (
        not seconds
        or not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise OverBudget(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, _REFIRE_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: "line 12" in a message: a line of the joined cells, told as a line of a cell
_LINE_MENTION = re.compile(r"\bline (\d+)\b")


def _cell_syntax_error(text: str) -> Optional[str]:
    """Why one cell's code does not parse alone, if it does not."""
    from tensorlint.analysis.pytree import parse

    try:
        parse(text)
    except SyntaxError as error:
        return f"syntax error at line {error.lineno or 0}, column {error.offset or 0}: {error.msg}"
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _notebook_result(result: FileResult, notebook: Notebook, original: str) -> FileResult:
    """Findings at (cell, line in cell); fixes written back into the JSON."""

    def move(diagnostic: Diagnostic) -> Diagnostic:
        cell, line = notebook.locate(diagnostic.start.line)
        shift = diagnostic.start.line - line  # joined-text lines -> lines in the cell

        def at(position: Position) -> Position:
            return Position(position.line - shift, position.column)

        fix = diagnostic.fix
        if fix is not None:
            edits = tuple(e._replace(start=at(e.start), end=at(e.end)) for e in fix.edits)
            fix = fix._replace(edits=edits)
        related = []
        for where in diagnostic.related:  # the evidence may sit in an earlier cell
            where_cell, where_line = notebook.locate(where.start.line)
            where_shift = where.start.line - where_line
            related.append(
                where._replace(
                    start=Position(where_line, where.start.column),
                    end=Position(where.end.line - where_shift, where.end.column),
                    cell=where_cell,
                )
            )

        def cell_line(match: re.Match[str]) -> str:
            where_cell, where_line = notebook.locate(int(match.group(1)))
            return (
                f"line {where_line}"
                if where_cell == cell
                else f"cell {where_cell}, line {where_line}"
            )

        return diagnostic._replace(
            message=_LINE_MENTION.sub(cell_line, diagnostic.message),  # lines of the cell
            start=at(diagnostic.start),
            end=at(diagnostic.end),
            fix=fix,
            cell=cell,
            related=tuple(related),
        )

    fixed = None
    if result.fixed_source is not None:
        fixed = notebook.with_python(result.fixed_source)
    return result._replace(
        diagnostics=tuple(move(d) for d in result.diagnostics),
        fixed_source=fixed,
        original_source=original if fixed is not None else None,
    )


def _check_task(task: tuple[Path, Settings, RunOptions]) -> FileResult:
    if _PARENT is not None and os.getppid() != _PARENT:
        return unchecked(str(task[0]), f"{task[0]}: not checked: tensorlint was stopped")
    return check_file(*task)


#: in a pool worker, the process that started it: a worker whose parent was
#: killed stops instead of going on writing files nobody will report
_PARENT: Optional[int] = None


def _remember_parent(parent: int) -> None:
    """Pool initializer: remember the parent, and exit when it is gone (an
    idle worker would otherwise wait on the task queue forever)."""
    global _PARENT
    _PARENT = parent
    import threading

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)  # an atomic write in flight leaves only a temp file

    threading.Thread(target=watch, name="tensorlint-parent-watch", daemon=True).start()


#: Candidates found before a process pool is worth its start-up (each worker
#: imports LibCST, ~0.2 s): fewer are checked in-process.
POOL_THRESHOLD = 8

Callback = Callable[[int, int], None]
Task = tuple[Path, Settings, RunOptions]


class _Dispatcher:
    """Runs tasks in-process, or in a pool that starts once enough have come.

    Tasks are submitted while discovery and the prefilter are still going, so
    workers parse while the parent reads the remaining files. Results come
    back in submission order; a pool that cannot start (a sandbox without
    ``/dev/shm``) falls back to running the tasks serially. A pool that
    breaks (a worker killed by a crash in a native parser, or by the kernel
    for memory) runs the tasks that were in flight each in a worker of its
    own, then the rest in a new pool: the file that kills a worker is one
    error line and the others are still checked.
    """

    def __init__(self, jobs: Optional[int], threshold: int = 0) -> None:
        self.workers = jobs if jobs is not None else (os.cpu_count() or 1)
        self.threshold = threshold or POOL_THRESHOLD
        self.tasks: list[Task] = []
        self.futures: list[Any] = []
        self.pool: Any = None
        #: a worker died while tasks were still being submitted
        self.broken = False

    def submit(self, task: Task) -> None:
        self.tasks.append(task)
        if self.pool is None and self.workers > 1 and len(self.tasks) == self.threshold:
            self._start_pool()
        elif self.pool is not None and not self.broken:
            self._submit(task)

    def _start_pool(self) -> None:
        from concurrent.futures import ProcessPoolExecutor  # only when it pays

        try:
            self.pool = ProcessPoolExecutor(
                max_workers=self.workers, initializer=_remember_parent, initargs=(os.getpid(),)
            )
            for task in self.tasks:
                self._submit(task)
        except OSError:
            self._stop()

    def _submit(self, task: Task) -> None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            self.futures.append(self.pool.submit(_check_task, task))
        except BrokenProcessPool:
            # (a RuntimeError too): the tasks not submitted wait for results(),
            # which finds the one that broke the pool among those in flight
            self.broken = True
        except (OSError, RuntimeError):
            self._stop()

    def _stop(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None
        self.futures = []
        self.workers = 1

    def results(self, progress: Optional[Callback] = None) -> list[FileResult]:
        done: list[FileResult] = []
        if self.pool is not None:
            from concurrent.futures.process import BrokenProcessPool

            broken = self.broken
            try:
                for future in self.futures:
                    done.append(future.result())
                    if progress is not None:
                        progress(len(done), len(self.tasks))
            except BrokenProcessPool:
                broken = True
            except OSError:
                pass  # finish the rest in-process
            finally:
                self.pool.shutdown(wait=True, cancel_futures=True)
            if broken:
                # the pool runs tasks in order: the one that killed a worker is
                # among the first unfinished ones (one per worker, and one queued)
                remaining = self.tasks[len(done) :]
                suspects = remaining[: self.workers + 1]
                for task in suspects:
                    done.append(_isolated(task))
                    if progress is not None:
                        progress(len(done), len(self.tasks))
                again = _Dispatcher(self.workers, threshold=1)
                for task in remaining[len(suspects) :]:
                    again.submit(task)
                done.extend(again.results())
        for task in self.tasks[len(done) :]:
            done.append(_check_task(task))
            if progress is not None:
                progress(len(done), len(self.tasks))
        return done


def _isolated(task: Task) -> FileResult:
    """``task`` in a worker of its own: a crash there is this file's error."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(
            max_workers=1, initializer=_remember_parent, initargs=(os.getpid(),)
        ) as pool:
            result: FileResult = pool.submit(_check_task, task).result()
            return result
    except BrokenProcessPool:
        return unchecked(
            str(task[0]),
            f"{task[0]}: internal error: the worker checking it stopped abruptly "
            "(a crash, or killed for memory); the other files were checked",
        )
    except OSError:
        return _check_task(task)


def run(
    paths: Sequence[Path],
    config: Config,
    settings: Settings,
    options: RunOptions,
    *,
    jobs: Optional[int] = None,
    cache: Optional[Cache] = None,
    progress: Optional[Callback] = None,
    overrides: Optional[Mapping[str, object]] = None,
) -> list[FileResult]:
    """Check every file under ``paths``; results in discovery order.

    With ``overrides`` (the command line's values), each file gets the
    settings of its nearest configuration with the overrides on top, and the
    ``exclude`` of a configuration below ``config``'s applies to the files
    the walk found under it; without, ``config`` and ``settings`` apply to
    every file. Cached findings are reused for unchanged files (a fix run
    only skips the files cached as clean); files that cannot match are
    settled here from their text; the rest go to a process pool once there
    are enough of them.
    """
    resolver = Resolver(overrides) if overrides is not None else None
    files = files_to_check(paths, config, overrides, resolver)
    if _TREE is not None:
        _TREE.refresh()  # what the file system says is kept for this run only
    fixing = options.fix or options.diff
    results: dict[int, FileResult] = {}
    pending: list[int] = []
    dispatcher = _Dispatcher(jobs)
    for index, path in enumerate(files):
        if resolver is None:
            file_settings = settings_for(path, config, settings)
        else:
            try:
                file_settings = resolver.settings(path)
            except (ConfigError, SelectionError) as error:
                results[index] = unchecked(str(path), f"{path}: configuration: {error}")
                continue
        cached = cache.lookup(path, file_settings) if cache is not None else None
        if cached is not None and not (fixing and cached.diagnostics):
            results[index] = FileResult(
                str(path), cached.diagnostics, how="cached", unknown_codec=cached.unknown_codec
            )
            continue
        if not fixing:
            try:
                matches, deps, codec = _may_match(path, file_settings)
            except OverBudget as error:
                results[index] = unchecked(str(path), _over_budget(str(path), error))
                continue
            if not matches:
                results[index] = FileResult(str(path), how="skipped", unknown_codec=codec)
                if cache is not None:
                    cache.put(path, file_settings, (), deps, codec)
                continue
        pending.append(index)
        dispatcher.submit((path, file_settings, options))
    for index, task, result in zip(pending, dispatcher.tasks, dispatcher.results(progress)):
        results[index] = result
        if cache is not None and result.error is None and result.fixed_source is None:
            cache.put(task[0], task[1], result.diagnostics, result.deps, result.unknown_codec)
    if cache is not None:
        cache.save()
    return [results[index] for index in range(len(files))]


def files_to_check(
    paths: Sequence[Path],
    config: Config,
    overrides: Optional[Mapping[str, object]] = None,
    resolver: Optional[Resolver] = None,
) -> list[Path]:
    """The files a run checks: discovery from ``config``, then (with
    ``overrides``: per-file configurations) the nested ``exclude``s."""
    files = discover(
        paths, config.exclude, config.root, config.force_exclude, config.respect_gitignore
    )
    if overrides is None:
        return files
    return _nested_excludes(files, paths, config, resolver or Resolver(overrides))


def _nested_excludes(
    files: list[Path], paths: Sequence[Path], config: Config, resolver: Resolver
) -> list[Path]:
    """``files`` less those a nested configuration's ``exclude`` covers (named
    files only with ``force-exclude``)."""
    named: Optional[set[str]] = None  #: the files named on the command line, absolute
    #: folder -> the configuration below ``config`` that excludes there (None: none)
    nested: dict[str, Optional[Config]] = {}
    kept = []
    for path in files:
        folder = os.path.dirname(path)
        if folder not in nested:
            try:
                nearest: Optional[Config] = resolver.config(path)
            except (ConfigError, SelectionError):
                nearest = None  # reported when the file is checked
            if nearest is not None and (nearest.root == config.root or not nearest.exclude):
                nearest = None
            nested[folder] = nearest
        nearest = nested[folder]
        if nearest is not None:
            if named is None:
                named = {os.path.abspath(p) for p in paths if not p.is_dir()}
            absolute = os.path.abspath(path)
            if (absolute not in named or nearest.force_exclude) and is_excluded(
                Path(absolute), nearest.exclude, nearest.root
            ):
                continue
        kept.append(path)
    return kept


def _may_match(
    path: Path, settings: Settings
) -> tuple[bool, tuple[tuple[str, int, int], ...], Optional[str]]:
    """The prefilter, from the file's bytes (errors go to the full check); the
    modules of the tree the answer depends on; and the codec its cookie names
    that Python does not know (it was read as UTF-8). It runs in this process,
    under the file's time limit (:class:`OverBudget`): it reads the text and
    may parse the modules the file imports."""
    if path.suffix == ".ipynb":
        return True, (), None  # the full check validates the JSON (and still skips the parse)
    try:
        source = read_source(path)
    except SourceReadError:
        return True, (), None
    from tensorlint.engine.lint import may_lint

    # a call of a function of the tree that returns a conversion of its argument
    view = _tree().view(path)
    with time_budget(file_time_budget()):
        matches = may_lint(source.text, settings, view)
    return matches, view.dependencies(), source.unknown_codec
