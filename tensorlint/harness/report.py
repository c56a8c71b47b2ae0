"""The harness's outputs: a compact matrix for people, JSON for machines."""

from __future__ import annotations

import datetime
import json
import platform
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from tensorlint.harness.runner import CellResult


def environment() -> dict[str, Any]:
    import numpy as np
    import torch

    info: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "cuda": torch.version.cuda,
        "cuda_available": torch.cuda.is_available(),
    }
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def counts(results: Sequence[CellResult]) -> dict[str, int]:
    found = Counter(r.outcome for r in results)
    return {outcome: found.get(outcome, 0) for outcome in ("passed", "failed", "skipped")}


def to_json(results: Sequence[CellResult], env: dict[str, Any]) -> str:
    payload = {
        "environment": env,
        "summary": counts(results),
        "cells": [asdict(r) for r in results],
    }
    return json.dumps(payload, indent=2) + "\n"


def render_matrix(results: Sequence[CellResult]) -> str:
    """One row per case, one column per device: passed / failed / skipped."""
    devices = list(dict.fromkeys(r.device for r in results))
    rows: dict[str, dict[str, list[CellResult]]] = {}
    for result in results:
        rows.setdefault(result.case, {}).setdefault(result.device, []).append(result)
    header = ["case", *devices]
    table = [header]
    for case, by_device in rows.items():
        row = [case]
        for device in devices:
            cells = by_device.get(device, [])
            tally = counts(cells)
            if cells and tally["skipped"] == len(cells):
                row.append(f"skipped: {cells[0].detail} ({len(cells)})")
            elif tally["failed"]:
                row.append(f"FAILED {tally['failed']}/{len(cells)}")
            else:
                row.append(f"passed {tally['passed']}" if cells else "-")
        table.append(row)
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    failures = [r for r in results if r.outcome == "failed"]
    for failure in failures:
        lines.append(f"FAILED {failure.case} [{failure.input}] {failure.check}: {failure.detail}")
    tally = counts(results)
    lines.append(f"{tally['passed']} passed, {tally['failed']} failed, {tally['skipped']} skipped")
    return "\n".join(lines) + "\n"
