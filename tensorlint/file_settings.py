"""Settings for one file: the nearest configuration, then the overrides.

Every front end uses this one code path (Ruff's hierarchical model):
``tensorlint check`` for each file it checks (unless ``--config`` names one
file for all), the flake8 plugin and the LibCST codemod for the file they are
given. The ``pyproject.toml`` with a ``[tool.tensorlint]`` table nearest to
the file applies, with its ``per-file-ignores``; command-line options
override it. Configurations are cached per directory, so a run reads each
``pyproject.toml`` once.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from tensorlint.config import (
    CONFIG_FILENAME,
    Config,
    _has_tensorlint_table,
    check_compatible,
    load_config,
    per_file_ignored_codes,
)
from tensorlint.registry import codes_matching, matches, select
from tensorlint.roles import path_role
from tensorlint.rule import Settings

__all__ = ["Resolver", "apply_overrides", "config_for", "folder_key", "settings_for_file"]


def config_for(path: Optional[Path]) -> Config:
    """The configuration that applies to ``path`` (``None``: the current
    directory), for the front ends handed one file at a time (flake8, the
    codemod): one resolver for the process, as a run of ``check`` has one.

    Raises :class:`tensorlint.config.ConfigError` for a configuration that
    cannot be used.
    """
    return _PROCESS.config(path if path is not None else Path.cwd() / "-")


def apply_overrides(config: Config, overrides: Mapping[str, object]) -> Config:
    """``config`` with command-line values: ``ignore``, ``extend_select`` and
    ``extend_exclude`` add to the file's, the others replace them (None: not
    given; an ``exclude`` keeps the file's ``extend-exclude``)."""
    changes: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
    for name in ("ignore", "extend_select", "extend_exclude"):
        if name in changes:
            changes[name] = (*getattr(config, name), *changes[name])
    if "exclude" in changes or "extend_exclude" in changes:
        own = config.exclude[: len(config.exclude) - len(config.extend_exclude)]
        extra = changes.get("extend_exclude", config.extend_exclude)
        changes["exclude"] = (*changes.get("exclude", own), *extra)
    return config._replace(**changes)


@functools.lru_cache(maxsize=256)
def _enabled(config: Config) -> frozenset[str]:
    return select(config.select, config.ignore, config.extend_select, config.strict)


def settings_in(config: Config, path: Optional[Path]) -> Settings:
    """The settings ``config`` gives ``path``: its rules less the file's
    ``per-file-ignores``, and whether the file is library code."""
    check_compatible(config)
    enabled = _enabled(config)
    if path is not None:
        ignored = per_file_ignored_codes(config, path)
        if ignored:
            enabled = frozenset(c for c in enabled if not any(matches(c, i) for i in ignored))
    library = path_role(path, config.root)
    return Settings(
        enabled,
        config.numpy_idiom,
        config.assume_torch,
        library,
        converting_calls=config.converting_calls,
        target_version=config.target_version,
        unfixable=_unfixable(config.unfixable),
        ignore_noqa=config.ignore_noqa,
        min_confidence=config.min_confidence,
    )


@functools.lru_cache(maxsize=64)
def _unfixable(selectors: tuple[str, ...]) -> frozenset[str]:
    return codes_matching(selectors) if selectors else frozenset()


def settings_for_file(
    path: Optional[Path],
    overrides: Optional[Mapping[str, object]] = None,
    *,
    numpy_idiom: Optional[str] = None,
    strict: Optional[bool] = None,
) -> Settings:
    """The effective settings for ``path``: its nearest configuration, then
    the overrides (``overrides`` maps Config field names to values).

    Raises :class:`tensorlint.config.ConfigError` for a bad configuration and
    :class:`tensorlint.registry.SelectionError` for an unknown rule code.
    """
    given = dict(overrides or {})
    given.setdefault("numpy_idiom", numpy_idiom)
    given.setdefault("strict", strict)
    return settings_in(apply_overrides(config_for(path), given), path)


class Resolver:
    """Per-file settings for one run of ``tensorlint check``: the nearest
    configuration with the command line's ``overrides`` on top. Each folder
    is looked at once and each configuration read once; a new run gets a new
    resolver, so an edited ``pyproject.toml`` is read again."""

    def __init__(self, overrides: Mapping[str, object]) -> None:
        self.overrides = dict(overrides)
        self._nearest: dict[str, Optional[Path]] = {}  #: folder -> its config file
        self._configs: dict[Optional[Path], Config] = {}
        #: folder (as the path names it; with the working directory when
        #: relative) -> its configuration
        self._folders: dict[tuple[str, str], Config] = {}
        #: (folder, library) -> the settings of a file there, for a
        #: configuration without ``per-file-ignores``
        self._settings: dict[tuple[tuple[str, str], Optional[bool]], Settings] = {}

    def config(self, path: Path) -> Config:
        """Raises ConfigError (and SelectionError) like ``load_config``."""
        return self._config_in(folder_key(path))

    def _config_in(self, folder: tuple[str, str]) -> Config:
        found = self._folders.get(folder)
        if found is None:
            found = self._folders[folder] = self._config(folder[1])
        return found

    def _config(self, folder: str) -> Config:
        source = self._nearest_file(os.path.abspath(folder))
        found = self._configs.get(source)
        if found is None:
            found = apply_overrides(load_config(source), self.overrides)
            _enabled(found)  # an unknown code is an error here, once
            _unfixable(found.unfixable)
            check_compatible(found)
            self._configs[source] = found
        return found

    def settings(self, path: Path) -> Settings:
        folder = folder_key(path)
        config = self._config_in(folder)
        if config.per_file_ignores:
            return settings_in(config, path)
        # (the settings then depend on the folder and the file's role only:
        # one value per folder and role, not one per file)
        key = (folder, path_role(path, config.root))
        found = self._settings.get(key)
        if found is None:
            found = self._settings[key] = settings_in(config, path)
        return found

    def _nearest_file(self, folder: str) -> Optional[Path]:
        walked: list[str] = []
        found: Optional[Path] = None
        while True:
            if folder in self._nearest:
                found = self._nearest[folder]
                break
            walked.append(folder)
            candidate = Path(folder, CONFIG_FILENAME)
            if candidate.is_file() and _has_tensorlint_table(candidate):
                found = candidate
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        for name in walked:
            self._nearest[name] = found
        return found


def folder_key(path: Path) -> tuple[str, str]:
    """(the working directory when the folder is relative, else "", the
    folder of ``path``): a key for what is worked out once per folder (a
    relative folder names another place after a ``chdir``)."""
    folder = os.path.dirname(path)
    return ("" if os.path.isabs(folder) else os.getcwd()), folder


#: the configurations of a process that is handed files one at a time
_PROCESS = Resolver({})
