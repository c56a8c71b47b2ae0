"""Settings for one file, for tools that hand tensorlint one file at a time.

The flake8 plugin and the LibCST codemod are given a file name, not a run:
they find the ``pyproject.toml`` from the file itself, as ``tensorlint check``
does from its paths, and apply its ``per-file-ignores``. Configurations are
cached per directory, so a tool that calls this once per file reads each
``pyproject.toml`` once.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Optional

from tensorlint.config import Config, find_config_file, load_config, per_file_ignored_codes
from tensorlint.registry import matches, select
from tensorlint.roles import path_role
from tensorlint.rule import Settings

__all__ = ["config_for", "settings_for_file"]


@functools.lru_cache(maxsize=256)
def _config_in(directory: Path) -> Config:
    return load_config(find_config_file([directory]))


def config_for(path: Optional[Path]) -> Config:
    """The configuration that applies to ``path`` (``None``: the current directory).

    Raises :class:`tensorlint.config.ConfigError` for a configuration that
    cannot be used.
    """
    start = Path.cwd() if path is None else path.resolve().parent
    return _config_in(start)


def settings_for_file(
    path: Optional[Path],
    *,
    numpy_idiom: Optional[str] = None,
    strict: Optional[bool] = None,
) -> Settings:
    """The effective settings for ``path``: its configuration, then the overrides.

    Raises :class:`tensorlint.config.ConfigError` for a bad configuration and
    :class:`tensorlint.registry.SelectionError` for an unknown rule code.
    """
    config = config_for(path)
    if numpy_idiom is not None:
        config = dataclasses.replace(config, numpy_idiom=numpy_idiom)
    if strict is not None:
        config = dataclasses.replace(config, strict=strict)
    enabled = select(config.select, config.ignore, config.extend_select, config.strict)
    if path is not None:
        ignored = per_file_ignored_codes(config, path)
        enabled = frozenset(c for c in enabled if not any(matches(c, i) for i in ignored))
    library = path_role(path, config.root)
    return Settings(enabled, config.numpy_idiom, config.assume_torch, library)
