"""LibCST, imported on first use.

``tensorlint check`` on files that cannot match (the prefilter says so from
the raw bytes) must not pay for importing LibCST (0.1-0.2 s, more than the
rest of the run). Modules that only need LibCST inside functions that run
after a parse use this proxy; type checkers see the real module.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)


libcst = LazyModule("libcst")
