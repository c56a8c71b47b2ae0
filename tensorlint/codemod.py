"""tensorlint's fixes as LibCST codemod commands, for ``python -m libcst.tool codemod``.

``Fix`` applies what ``tensorlint check --fix`` applies (the safe fixes;
``--unsafe-fixes`` adds the unsafe ones) and ``FixUnsafe`` what ``tensorlint
check --fix --unsafe-fixes`` applies. Both take ``--numpy-idiom`` and read
the ``pyproject.toml`` found from each file, with its ``per-file-ignores``.
They run tensorlint's own fix engine (:func:`tensorlint.fix.apply.fix_source`)
on the module's code, so the result is the same text, byte for byte.

Without a configuration file, name the class with ``-x``::

    python -m libcst.tool codemod -x tensorlint.codemod.Fix --no-format src/

or put ``modules: [tensorlint]`` in a ``.libcst.codemod.yaml`` and run
``python -m libcst.tool codemod codemod.Fix --no-format src/``. Give
``--no-format``: otherwise libcst.tool runs its formatter (``black`` by
default) on every file the codemod changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Optional

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from tensorlint.config import NUMPY_IDIOMS, ConfigError
from tensorlint.engine.lint import LintError
from tensorlint.engine.tree import tree_view
from tensorlint.file_settings import settings_for_file
from tensorlint.fix.apply import fix_source
from tensorlint.registry import SelectionError

__all__ = ["Fix", "FixUnsafe"]


class Fix(CodemodCommand):
    """Apply tensorlint's safe fixes (``tensorlint check --fix``)."""

    DESCRIPTION: str = "Apply tensorlint's fixes for PyTorch <-> NumPy conversion bugs."
    #: the default of ``--unsafe-fixes``
    UNSAFE_DEFAULT = False

    def __init__(
        self,
        context: CodemodContext,
        unsafe_fixes: Optional[bool] = None,
        numpy_idiom: Optional[str] = None,
    ) -> None:
        super().__init__(context)
        self.unsafe_fixes = self.UNSAFE_DEFAULT if unsafe_fixes is None else unsafe_fixes
        self.numpy_idiom = numpy_idiom

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--unsafe-fixes",
            action="store_true",
            default=None,
            help="also apply the fixes that change behaviour (as `--fix --unsafe-fixes`)",
        )
        arg_parser.add_argument(
            "--numpy-idiom",
            choices=NUMPY_IDIOMS,
            default=None,
            help="spelling of .numpy() fixes (default: from pyproject.toml, else cpu-detach)",
        )

    def fixed_code(self, code: str) -> str:
        """The code with the fixes applied; warns about fixes that were dropped."""
        filename = self.context.filename
        path = Path(filename) if filename else None
        try:
            settings = settings_for_file(path, numpy_idiom=self.numpy_idiom)
        except (ConfigError, SelectionError) as error:
            raise SkipFile(f"tensorlint configuration error: {error}") from None
        try:
            outcome = fix_source(code, settings, unsafe=self.unsafe_fixes, tree=tree_view(path))
        except LintError as error:
            raise SkipFile(f"tensorlint cannot check this file: {error}") from None
        for problem in outcome.dropped:
            self.warn(problem)
        if outcome.error:
            self.warn(outcome.error)
        return outcome.source

    def transform_module(self, tree: cst.Module) -> cst.Module:
        # No metadata and no follow-up transforms: skip the copy of the tree
        # that resolving metadata would make
        return self.transform_module_impl(tree)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        code = tree.code
        fixed = self.fixed_code(code)
        if fixed == code:
            return tree
        return cst.parse_module(fixed, config=tree.config_for_parsing)


class FixUnsafe(Fix):
    """Apply tensorlint's safe and unsafe fixes (``tensorlint check --fix --unsafe-fixes``)."""

    DESCRIPTION: str = (
        "Apply tensorlint's safe and unsafe fixes for PyTorch <-> NumPy conversion bugs."
    )
    UNSAFE_DEFAULT = True
