"""The labelled cross-function cases of ``python -m bench precision``.

``bench/cross/`` holds small projects in the shape of real bugs that cross a
function or file boundary, labelled in ``bench/labels/cross-function.csv``.
The default rules must report no site labelled FP, report only labelled
sites, and find every REAL label but the known misses below (a new miss is a
regression; a fixed one must be removed from the list).
"""

from __future__ import annotations

import csv
import os
import shutil
from pathlib import Path

from tensorlint.config import Config
from tensorlint.engine.runner import RunOptions, run
from tensorlint.registry import select
from tensorlint.rule import Settings

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "cross"
LABELS = ROOT / "bench" / "labels" / "cross-function.csv"
#: HAZARD_OF in bench/precision.py: a strict code counts for the hazard it stands for
HAZARD_OF = {"TL111": "TL101", "TL112": "TL102", "TL113": "TL103"}

#: REAL labels the analysis does not reach yet (none today)
KNOWN_MISSES: set[tuple[str, str, str]] = set()


def labels() -> dict[tuple[str, str, str], str]:
    with LABELS.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    found = {}
    for row in rows:
        assert row["package"] == "cross" and row["verdict"] in ("REAL", "WEAK", "FP"), row
        key = (row["path"], row["line"], row["code"])
        assert key not in found, f"labelled twice: {key}"
        found[key] = row["verdict"]
    return found


def reported(tmp_path: Path) -> set[tuple[str, str, str]]:
    tree = tmp_path / "cross"
    shutil.copytree(CASES, tree)  # (no cache file is written into the checkout)
    results = run([tree], Config(), Settings(enabled=select()), RunOptions(), jobs=1)
    found = set()
    for result in results:
        assert result.error is None, result.error
        rel = os.path.relpath(result.path, tree).replace(os.sep, "/")
        for d in result.diagnostics:
            found.add((rel, str(d.start.line), HAZARD_OF.get(d.code, d.code)))
    return found


def test_labels_name_lines_of_the_cases() -> None:
    for path, line, _code in labels():
        lines = (CASES / path).read_text(encoding="utf-8").splitlines()
        assert 1 <= int(line) <= len(lines), (path, line)
        assert lines[int(line) - 1].strip(), (path, line)


def test_cross_function_precision_and_recall(tmp_path: Path) -> None:
    verdicts = labels()
    found = reported(tmp_path)
    assert not {k for k in found if k not in verdicts}, "unlabelled findings"
    assert not {k for k in found if verdicts[k] == "FP"}, "findings labelled FP"
    real = {k for k, v in verdicts.items() if v == "REAL"}
    assert real - found == KNOWN_MISSES
    assert len(real & found) >= 7
