"""What a source text imports, read from its text (no parse).

The prefilter and the import graph (``engine/tree.py``) ask these questions
of every file that could produce a finding, so they are answered with a few
regular expressions. The package lists are ``analysis/ops.py``'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tensorlint.analysis.ops import OTHER_FRAMEWORKS, TORCH_FRONT_ENDS


def _import_line(packages: frozenset[str]) -> re.Pattern[str]:
    """An import statement naming one of ``packages``, on a line of its own:
    ``import torch``, ``import torch.nn as nn``, ``from torch import ...``,
    ``import numpy as np, torch`` (a docstring saying "does not import torch"
    does not count)."""
    names = "|".join(sorted(packages))
    return re.compile(
        rf"^[ \t]*(?:import[ \t]+[^\n#]*\b(?:{names})\b|from[ \t]+(?:{names})\b)", re.MULTILINE
    )


_TORCH = _import_line(frozenset({"torch"}) | TORCH_FRONT_ENDS)
_OTHER = _import_line(OTHER_FRAMEWORKS)
#: ``from x import a, b as c`` (a parenthesised list, which may span lines,
#: runs to the next ``)``: ``from_imports``) and ``import x as y``. Each
#: pattern starts with the newline before the line (the text is searched with
#: a newline put in front): ``re`` scans for a leading literal far faster than
#: it tries ``^`` at every position.
FROM_IMPORT = re.compile(r"\n[ \t]*from[ \t]+([\w.]*)[ \t]+import[ \t]+(?:(\()|([^\n#;]+))")
#: an unclosed ``(``: the rest of its line
_LINE_REST = re.compile(r"[^\n#;]+")
IMPORT_AS = re.compile(r"\n[ \t]*import[ \t]+([\w.]+)[ \t]+as[ \t]+(\w+)")
#: ``import a.b, c as d`` (a plain ``import``)
_IMPORT = re.compile(r"\n[ \t]*import[ \t]+([\w. \t,]+)")


def _lines(source: str) -> str:
    return source.replace("\r", "\n") if "\r" in source else source


def imports_torch(source: str) -> bool:
    """Does a line of ``source`` import torch, or a package built on torch only
    (``ops.TORCH_FRONT_ENDS``)? (Lines may end with a bare CR.)"""
    return _TORCH.search(_lines(source)) is not None


def imports_other_framework(source: str) -> bool:
    """Does a line of ``source`` import TensorFlow, JAX, Paddle or another
    framework whose tensors have a ``.numpy()`` of their own?"""
    return _OTHER.search(_lines(source)) is not None


def imported_modules(source: str) -> list[str]:
    """The dotted names ``source`` imports that may be modules of the checked
    tree, in order: ``from .models import Net`` gives ``.models.Net`` (a
    submodule, or a name of ``.models``), ``from utils import *`` gives
    ``utils``, ``import pkg.io as io`` gives ``pkg.io``."""
    found: list[str] = []
    lines = "\n" + _lines(source)
    for module, listed in from_imports(lines):
        sep = "" if module.endswith(".") else "."
        for _, name in imported_names(listed):
            found.append(module if name == "*" else f"{module}{sep}{name}")
    for match in _IMPORT.finditer(lines):
        for item in match.group(1).split(","):
            words = item.split()
            if words and all(part.isidentifier() for part in words[0].split(".")):
                found.append(words[0])
    return list(dict.fromkeys(found))


def from_imports(lines: str) -> Iterator[tuple[str, str]]:
    """(module, names text) of each ``from`` import of ``lines``, in one pass.

    A ``(`` runs to the next ``)``, wherever it is; with none after it, the
    names are the rest of the line. (As one pattern, ``\\([^)]*\\)`` would
    scan to the end of the text from every unclosed ``(``: 60,000 lines of
    ``from a import (b`` took 45 s.)
    """
    last_close = lines.rfind(")")
    position = 0
    while True:
        match = FROM_IMPORT.search(lines, position)
        if match is None:
            return
        position = match.end()
        if match.group(2) is None:
            yield match.group(1), match.group(3)
            continue
        start = match.start(2)
        if start < last_close:
            position = lines.index(")", start) + 1
        else:
            rest = _LINE_REST.match(lines, start)
            assert rest is not None  # (``(`` itself is one of its characters)
            position = rest.end()
        yield match.group(1), lines[start:position]


def imported_names(text: str) -> list[tuple[str, str]]:
    """``a, b as c`` -> [(local, imported)]."""
    names = []
    for item in text.strip().strip("()").replace("\\\n", " ").split(","):
        words = item.split()
        if len(words) == 1:
            names.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as":
            names.append((words[2], words[0]))
    return names
