"""A progress bar for long fix runs on a terminal; silent anywhere else."""

from __future__ import annotations

import os
import sys
from typing import TextIO

WIDTH = 30


def wanted(stream: TextIO) -> bool:
    """Only for a person watching: a terminal, and not a CI log."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI")


class Progress:
    def __init__(self, stream: TextIO = sys.stderr, label: str = "files") -> None:
        self.stream = stream
        self.label = label
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        filled = WIDTH * done // total
        bar = "#" * filled + "." * (WIDTH - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} {self.label}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (WIDTH + 30) + "\r")
            self.stream.flush()
