"""``tensorlint harness``: run cases, print the matrix, write the report."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from tensorlint.extras import install_hint
from tensorlint.harness.runner import CaseError, CellResult, find_cases, harness_settings

#: tensorlint's own cases, next to the package in a source checkout. Never
#: ``./fixtures`` of the current directory: the harness runs what it is given,
#: so it runs only what the user names or what tensorlint ships.
SHIPPED_CASES = Path(__file__).resolve().parent.parent.parent / "fixtures"


#: the copy of the runtime cases a wheel carries (made by setup.py at build time)
PACKAGED_CASES = Path(__file__).resolve().parent / "cases"


def _shipped_cases() -> Optional[Path]:
    if PACKAGED_CASES.is_dir():
        return PACKAGED_CASES
    marker = SHIPPED_CASES.parent / "tensorlint" / "harness" / "cli.py"
    if SHIPPED_CASES.is_dir() and marker.resolve() == Path(__file__).resolve():
        return SHIPPED_CASES
    return None


def run_harness(paths: Sequence[Path], report: Optional[Path], numpy_idiom: str) -> int:
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        print(
            f"error: the harness needs torch and numpy ({error}); install them with "
            f"{install_hint('harness')}",
            file=sys.stderr,
        )
        return 2
    from tensorlint.harness.report import environment, render_matrix, to_json
    from tensorlint.harness.runner import load_case, run_case

    if not paths:
        shipped = _shipped_cases()
        if shipped is None:
            print(
                "error: name the case files or folders to run (the harness executes them); "
                "this installation has no cases of its own (a wheel built without fixtures/)",
                file=sys.stderr,
            )
            return 2
        paths = [shipped]
    settings = harness_settings(numpy_idiom)
    results: list[CellResult] = []
    errors = 0
    for path in find_cases(paths):
        try:
            results.extend(run_case(load_case(path, settings)))
        except CaseError as error:
            print(f"error: {error}", file=sys.stderr)
            errors += 1
        except Exception as error:  # a broken case file must not stop the run
            print(f"error: {path}: {type(error).__name__}: {error}", file=sys.stderr)
            errors += 1
    sys.stdout.write(render_matrix(results))
    if report is not None:
        report.write_text(to_json(results, environment()), encoding="utf-8")
    if errors:
        return 2
    return 1 if any(r.outcome == "failed" for r in results) else 0
