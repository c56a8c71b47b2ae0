"""Source texts and helpers the command-line tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorlint.cli import main

WRITE_THROUGH = """import numpy as np
import torch


def f(a):
    t = torch.from_numpy(a)
    t += 1
    return a
"""
#: TL101 and TL102 on line 5, both fixed by one safe fix: nothing is left after --fix
GRAD = "import torch\n\n\ndef f(model, x):\n    return model(x).numpy()\n"
CLEAN = "import torch\n\n\ndef f(a):\n    return torch.from_numpy(a.copy())\n"


def write(path: Path, text: str) -> Path:
    """``text`` into ``path`` as UTF-8, byte for byte (its folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``tensorlint ARGS`` in this process: (exit code, stdout, stderr)."""
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
