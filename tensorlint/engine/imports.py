"""What a source text imports, read from its text (no parse).

The prefilter and the import graph (``engine/tree.py``) ask these questions
of every file that could produce a finding, so they are answered with a few
regular expressions. The package lists are ``analysis/ops.py``'s.
"""

from __future__ import annotations

import re

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
#: ``from x import ...`` (the module; ``*`` or the names after it)
_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\(?)[ \t]*([^\n#;]*)", re.M)
#: ``import a.b, c as d``
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+)", re.M)
_WORD = re.compile(r"\w+")
#: how far a parenthesised list of imported names is read for its ``)``
_PAREN_SPAN = 4096


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
    text = _lines(source)
    for match in _FROM.finditer(text):
        module, names = match.group(1), match.group(3)
        if match.group(2):  # ``(`` may run over lines: to its ``)``, within reason
            start = match.end(2)
            end = text.find(")", start, start + _PAREN_SPAN)
            names = text[start : end if end >= 0 else match.end()]
        if names.startswith("*"):
            found.append(module)
            continue
        sep = "" if module.endswith(".") else "."
        for item in names.split(","):
            words = _WORD.findall(item)
            if words:
                found.append(f"{module}{sep}{words[0]}")
    for match in _IMPORT.finditer(text):
        for item in match.group(1).split(","):
            words = item.split()
            if words and all(_WORD.fullmatch(part) for part in words[0].split(".")):
                found.append(words[0])
    return list(dict.fromkeys(found))
