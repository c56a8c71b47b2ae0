"""tensorlint as a flake8 plugin: ``flake8 --select TL``.

Registered under the ``flake8.extension`` entry point ``TL``. Findings are
reported at the line and column ``tensorlint check`` prints (flake8 is given
the 0-based column and prints it 1-based, as tensorlint does). The settings
come from the ``pyproject.toml`` found from each file, like ``tensorlint
check``, with its ``per-file-ignores``, and the rest of the checked tree
is read as ``tensorlint check`` reads it (the summaries of the modules a
file imports, the base classes of its classes); flake8's own ``--select``,
``--extend-ignore`` and ``# noqa`` filter the findings as for any plugin.

A configuration tensorlint cannot use, or a file it cannot parse, is
reported as ``TL000`` on line 1 (flake8 reports syntax errors itself as
``E999`` and does not run plugins then).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Optional

from tensorlint import __version__
from tensorlint.config import ConfigError
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.engine.tree import tree_view
from tensorlint.file_settings import settings_for_file
from tensorlint.registry import SelectionError

__all__ = ["Plugin"]

#: flake8 gives these names to text that does not come from a file.
_NOT_A_FILE = frozenset({"stdin", "-", ""})


class Plugin:
    """The flake8 plugin: one instance per file, ``run()`` yields its findings."""

    name = "tensorlint"
    version = __version__

    def __init__(
        self,
        tree: Optional[ast.AST] = None,
        filename: str = "",
        lines: Optional[Sequence[str]] = None,
    ) -> None:
        # flake8 classifies plugins by their parameters: ``tree`` makes this an
        # AST plugin (run once per file); the source itself comes from ``lines``
        self.filename = filename
        self.lines = list(lines) if lines is not None else None

    def _source(self) -> str:
        if self.lines is not None:
            return "".join(self.lines)
        with open(self.filename, encoding="utf-8") as file:  # pragma: no cover
            return file.read()

    def run(self) -> Iterator[tuple[int, int, str, type[Plugin]]]:
        path = None if self.filename in _NOT_A_FILE else Path(self.filename)
        try:
            settings = settings_for_file(path)
        except (ConfigError, SelectionError) as error:
            yield 1, 0, f"TL000 tensorlint configuration error: {error}", type(self)
            return
        try:
            diagnostics = lint_source(self._source(), settings, tree_view(path))
        except LintError as error:
            yield 1, 0, f"TL000 tensorlint could not check this file: {error}", type(self)
            return
        for d in diagnostics:
            yield d.start.line, d.start.column, f"{d.code} {d.message}", type(self)
