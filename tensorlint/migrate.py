"""``tensorlint migrate --verify CMD``: apply the fixes only where the
project's own tests keep their results.

1. The fixes are the fixable findings of one lint pass over the Python files
   under the given paths (notebooks are left out), one unit per finding.
2. ``CMD`` runs twice on the untouched tree; the two outcomes must agree (a
   flaky suite cannot verify anything). An outcome is the exit status and,
   for a pytest command, each test's result (``--junitxml`` is added) and a
   digest of the values each test compares (``assert_close``,
   ``np.testing.assert_allclose``, ``np.allclose``, ...: the
   ``tensorlint.sanitize`` plugin's ``--tensorlint-values``). A test whose
   values differ between the two untouched runs (unseeded randomness) has
   its values left out of the comparison.
3. The fixes are applied in batches on top of those already kept; ``CMD``
   runs after each batch. A batch whose outcome is no worse than the last
   kept state's is kept (a failing test that passes is a repair, reported;
   it must stay repaired). One that is worse is bisected (halves applied and
   run in turn) down to the fixes that make it so: those are left out and
   named.
4. The files end holding the kept fixes, written atomically with their
   encoding, newlines and mode kept; on an interruption or an error they are
   written back as they were.

The command is the user's own: it runs as given (split like a shell line,
never through a shell), in the current directory.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, TextIO

from tensorlint.diagnostics import Diagnostic
from tensorlint.engine.discovery import discover
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.engine.tree import tree_view
from tensorlint.file_settings import settings_for_file
from tensorlint.fix.apply import applicable, apply_edits
from tensorlint.fix.io import SourceFile, SourceReadError, read_source, write_atomic


@dataclass(frozen=True)
class Unit:
    """One fix: the findings of one file whose fixes make the same edits
    (TL101 and TL102 on one ``.numpy()`` are one fix)."""

    path: Path
    diagnostics: tuple[Diagnostic, ...]

    @property
    def diagnostic(self) -> Diagnostic:
        return self.diagnostics[0]

    def describe(self) -> str:
        d = self.diagnostic
        codes = ", ".join(x.code for x in self.diagnostics)
        return f"{self.path}:{d.start.line}:{d.start.column + 1}: {codes} {d.message}"


@dataclass(frozen=True)
class Outcome:
    """What the command gave: its exit status and, for pytest, each test's
    result and a digest of the values it compared (``tensorlint.sanitize``'s
    ``--tensorlint-values``)."""

    status: int
    tests: tuple[tuple[str, str], ...] = ()
    values: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def differences(self, other: Outcome, unsteady: frozenset[str] = frozenset()) -> list[str]:
        """What got worse from this outcome to ``other``; the values of the
        ``unsteady`` tests (which differ between two runs of one tree) are
        not compared. A test that failed and now passes, and an exit status
        that becomes 0, are not differences but repairs (``repaired``)."""
        found = []
        if self.status != other.status and other.status != 0:
            found.append(f"exit status {self.status} -> {other.status}")
        mine, theirs = dict(self.tests), dict(other.tests)
        repaired = self.repaired(other)
        for test in sorted(mine.keys() | theirs.keys()):
            before, after = mine.get(test, "absent"), theirs.get(test, "absent")
            if before != after and test not in repaired:
                found.append(f"{test}: {before} -> {after}")
        compared, now = dict(self.values), dict(other.values)
        for test in sorted(compared.keys() | now.keys()):
            if test in unsteady or test in repaired:
                continue
            if compared.get(test) != now.get(test):
                found.append(f"{test}: the values it compares changed")
        return found

    def repaired(self, other: Outcome) -> frozenset[str]:
        """The tests that failed (or errored) here and pass in ``other``."""
        mine, theirs = dict(self.tests), dict(other.tests)
        return frozenset(
            t for t, result in mine.items()
            if result in ("failed", "error") and theirs.get(t) == "passed"
        )  # fmt: skip

    def unsteady(self, other: Outcome) -> frozenset[str]:
        """The tests whose compared values differ between this run and ``other``."""
        mine, theirs = dict(self.values), dict(other.values)
        return frozenset(t for t in mine.keys() | theirs.keys() if mine.get(t) != theirs.get(t))


@dataclass
class Result:
    units: list[Unit] = field(default_factory=list)
    kept: list[Unit] = field(default_factory=list)
    left_out: list[tuple[Unit, list[str]]] = field(default_factory=list)
    runs: int = 0
    #: tests that failed before and pass with the kept fixes
    repaired: list[str] = field(default_factory=list)


class Unstable(Exception):
    """The command gives different outcomes on the same tree."""


def collect(paths: Sequence[Path], *, strict: bool, unsafe: bool, errors: list[str]) -> list[Unit]:
    units: list[Unit] = []
    for path in discover(paths):
        if path.suffix != ".py":
            continue  # notebooks are left out
        try:
            source = read_source(path)
            settings = settings_for_file(path, strict=strict)
            diagnostics = lint_source(source.text, settings, tree_view(path))
        except (SourceReadError, OSError, LintError) as error:
            errors.append(f"{path}: {error}")
            continue
        fixes: dict[tuple[object, ...], list[Diagnostic]] = {}
        for diagnostic in diagnostics:
            if applicable(diagnostic, unsafe) and diagnostic.fix is not None:
                fixes.setdefault(tuple(diagnostic.fix.edits), []).append(diagnostic)
        units += [Unit(path, tuple(found)) for found in fixes.values()]
    return units


def pytest_command(argv: Sequence[str]) -> bool:
    """Does ``argv`` run pytest (``pytest ...``, ``python -m pytest ...``)?"""
    if not argv:
        return False
    if os.path.basename(argv[0]) in ("pytest", "py.test"):
        return True
    return len(argv) >= 3 and argv[1] == "-m" and argv[2] == "pytest"


def run_command(command: str) -> Outcome:
    argv = shlex.split(command)
    with tempfile.TemporaryDirectory(prefix="tensorlint-migrate-") as folder:
        report = Path(folder) / "junit.xml"
        values = Path(folder) / "values.json"
        if pytest_command(argv):
            watched = "tensorlint.sanitize" in argv
            argv = [
                *argv,
                f"--junitxml={report}",
                *([] if watched else ["-p", "tensorlint.sanitize", "--tensorlint-no-static"]),
                f"--tensorlint-values={values}",
            ]
        done = subprocess.run(argv, capture_output=True, check=False)
        tests = _junit(report) if report.exists() else ()
        compared = _values(values) if values.exists() else ()
    return Outcome(done.returncode, tests, compared)


def _values(path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return ()
    if not isinstance(found, dict):
        return ()
    return tuple(sorted((str(k), tuple(map(str, v))) for k, v in found.items()))


_JUNIT_RESULTS = {"failure": "failed", "error": "error", "skipped": "skipped"}


def _junit(path: Path) -> tuple[tuple[str, str], ...]:
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError:
        return ()
    found: dict[str, str] = {}
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        result = "passed"
        for child in case:
            if child.tag in _JUNIT_RESULTS:
                result = _JUNIT_RESULTS[child.tag]
                break
        found[name] = result
    return tuple(sorted(found.items()))


class Tree:
    """The files the fixes touch: their text as read, and writing a set of
    fixes onto them."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self.original: dict[Path, SourceFile] = {}
        for unit in units:
            if unit.path not in self.original:
                self.original[unit.path] = read_source(unit.path)

    def write(self, units: Sequence[Unit]) -> list[Unit]:
        """The files hold the original text with ``units`` applied; returns
        the units that applied (conflicting ones do not)."""
        by_path: dict[Path, list[Diagnostic]] = {p: [] for p in self.original}
        for unit in units:
            by_path[unit.path].append(unit.diagnostic)
        applied: set[tuple[Path, Diagnostic]] = set()
        for path, diagnostics in by_path.items():
            text, done = apply_edits(self.original[path].text, diagnostics)
            applied.update((path, d) for d in done)
            current = read_source(path)
            write_atomic(path, current, text)
        return [u for u in units if (u.path, u.diagnostic) in applied]

    def restore(self) -> None:
        for path, source in self.original.items():
            current = read_source(path)
            write_atomic(path, current, source.text)


def verify(
    units: Sequence[Unit],
    command: str,
    *,
    batch_size: int = 8,
    run: Callable[[str], Outcome] = run_command,
    log: Optional[TextIO] = None,
) -> Result:
    """Keep the fixes under which ``command``'s outcome gets no worse."""
    result = Result(units=list(units))
    out = log or sys.stderr

    def outcome() -> Outcome:
        result.runs += 1
        return run(command)

    baseline = outcome()
    again = outcome()
    unsteady = baseline.unsteady(again)  # (unseeded randomness: not compared)
    if baseline.differences(again, unsteady):
        raise Unstable("; ".join(baseline.differences(again, unsteady)[:5]))
    if not units:
        return result
    settle = _Settle(Tree(units), result, baseline, unsteady, outcome)
    done = False
    try:
        for start in range(0, len(units), batch_size):
            batch = list(units[start : start + batch_size])
            print(f"tensorlint migrate: fixes {start + 1}-{start + len(batch)} of {len(units)}",
                  file=out)  # fmt: skip
            settle(batch)
        settle.tree.write(result.kept)
        done = True
    finally:
        if not done:
            settle.tree.restore()
    result.repaired = sorted(baseline.repaired(settle.reference))
    return result


class _Settle:
    """Keeps what of a batch leaves the outcome no worse than the last kept
    state's (``reference``: a repaired test must stay repaired), bisecting."""

    def __init__(
        self,
        tree: Tree,
        result: Result,
        reference: Outcome,
        unsteady: frozenset[str],
        outcome: Callable[[], Outcome],
    ) -> None:
        self.tree = tree
        self.result = result
        self.reference = reference
        self.unsteady = unsteady
        self.outcome = outcome

    def __call__(self, batch: list[Unit]) -> None:
        result = self.result
        applied = self.tree.write([*result.kept, *batch])
        batch = [u for u in batch if u in applied]
        if not batch:
            return
        now = self.outcome()
        changes = self.reference.differences(now, self.unsteady)
        if not changes:
            result.kept += batch
            self.reference = now
            return
        if len(batch) == 1:
            result.left_out.append((batch[0], changes))
            return
        half = len(batch) // 2
        self(batch[:half])
        self(batch[half:])


def report(result: Result) -> Iterator[str]:
    for unit, changes in result.left_out:
        yield f"left out: {unit.describe()}"
        for change in changes[:5]:
            yield f"  {change}"
    for test in result.repaired:
        yield f"repaired: {test}: failed -> passed"
    files = len({u.path for u in result.kept})
    yield (
        f"Applied {len(result.kept)} of {len(result.units)} fixes in {files} file(s); "
        f"{len(result.left_out)} left out; {result.runs} runs of the command."
    )
