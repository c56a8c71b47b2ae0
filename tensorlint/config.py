"""Configuration from the ``[tool.tensorlint]`` table of ``pyproject.toml``.

The file is found like Ruff finds its own: walk up from the checked paths and
take the first ``pyproject.toml`` that has a ``[tool.tensorlint]`` table. Every
problem with the table (unknown key, wrong type, bad rule code, invalid TOML)
is a :class:`ConfigError` whose message is one line naming the file.

Path patterns (``exclude``, ``extend-exclude`` and ``per-file-ignores``) are
matched against the path relative to the directory of the configuration that
gives them, in posix form, with fnmatch semantics: ``*`` matches any run of
characters (``/`` included), ``?`` one character other than ``/``, ``[...]`` a
character class, and ``**/`` zero or more whole directories. A pattern without
a slash also matches the basename.

``extend = "../pyproject.toml"`` (Ruff's ``extend``) reads that file's table
first and applies this one on top: a key set here replaces the base's, except
that ``extend-select``, ``ignore``, ``extend-exclude`` and
``extend-converting-calls`` add to the base's (a ``select`` here starts the
rule selection anew: the base's ``ignore`` and ``extend-select`` are dropped).
The base's path patterns keep matching from the base's directory.
"""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tensorlint import glob
from tensorlint.diagnostics import CONFIDENCES, LOW
from tensorlint.fix.io import MAX_SETTINGS_BYTES, read_regular
from tensorlint.glob import Glob, Token

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "CONFIG_FILENAME",
    "KNOWN_KEYS",
    "NUMPY_IDIOMS",
    "Config",
    "ConfigError",
    "bracket_class",
    "find_config_file",
    "load_config",
    "path_matches",
    "per_file_ignored_codes",
]

CONFIG_FILENAME = "pyproject.toml"

#: The ways ``.numpy()`` fixes may spell the conversion; the one source of truth.
NUMPY_IDIOMS: tuple[str, ...] = ("cpu-detach", "detach-cpu", "force", "exact-copy")

#: The keys allowed in ``[tool.tensorlint]``, in documentation order.
KNOWN_KEYS: tuple[str, ...] = (
    "extend",
    "select",
    "ignore",
    "extend-select",
    "strict",
    "numpy-idiom",
    "assume-torch",
    "exclude",
    "extend-exclude",
    "force-exclude",
    "target-version",
    "extend-converting-calls",
    "per-file-ignores",
    "unfixable",
    "respect-gitignore",
    "min-confidence",
)

#: the oldest torch each ``numpy-idiom`` runs on (``Tensor.numpy(force=True)``: 1.13)
IDIOM_NEEDS: dict[str, tuple[int, int]] = {"force": (1, 13)}

_CODE_RE = re.compile(r"^(TL\d{0,3}|ALL)$")
_TABLE = "[tool.tensorlint]"


class Config(NamedTuple):
    """The settings one run uses; ``Config()`` is the default configuration."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    strict: bool = False
    numpy_idiom: str = "cpu-detach"
    assume_torch: bool = False
    exclude: tuple[str, ...] = ()
    #: apply ``exclude`` (and the default excludes) to files named on the
    #: command line too, as pre-commit names them (Ruff's ``force-exclude``)
    force_exclude: bool = False
    #: the oldest torch the code must run on (``None``: any), as (major, minor)
    target_version: tuple[int, int] | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: functions of the project's own that convert tensor arguments like the
    #: library calls of ``library_table`` (``"pkg.plots.show:0,image"``)
    converting_calls: tuple[str, ...] = ()
    #: codes or prefixes whose fixes are never offered or applied (Ruff's ``unfixable``)
    unfixable: tuple[str, ...] = ()
    #: skip what ``.gitignore`` files and ``.git/info/exclude`` ignore (Ruff's
    #: ``respect-gitignore``)
    respect_gitignore: bool = True
    #: report only findings of this level of ``CONFIDENCES`` or surer
    min_confidence: str = LOW
    #: ``--ignore-noqa``: report findings that noqa comments would
    #: suppress (a command-line option only, as in Ruff: not a table key)
    ignore_noqa: bool = False
    root: Path | None = None
    source: Path | None = None
    #: the part of ``exclude`` that ``extend-exclude`` keys gave (a nested
    #: configuration's ``exclude`` replaces the rest, not this)
    extend_exclude: tuple[str, ...] = ()
    #: the files ``extend`` read, nearest first
    extends: tuple[Path, ...] = ()


class ConfigError(Exception):
    """A configuration file that cannot be used; ``str()`` is one line."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = " ".join(reason.split())
        super().__init__(path, reason)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


# --------------------------------------------------------------------------- discovery


def _has_tensorlint_table(pyproject: Path) -> bool:
    # A file that cannot be read or is not TOML may hold our table: it is
    # ours, and load_config() reports it (exit 2); a silent fallback to the
    # defaults, or to a parent's settings, would hide the user's settings.
    try:
        text = read_regular(pyproject, MAX_SETTINGS_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return True
    tool = data.get("tool")
    return isinstance(tool, dict) and "tensorlint" in tool


def _start_directory(paths: Sequence[Path]) -> Path:
    if not paths:
        return Path.cwd().resolve()
    dirs: dict[str, None] = {}
    #: a folder as given -> resolved: pre-commit names hundreds of files in a
    #: few folders, and resolving a path costs a ``lstat`` per component
    folders: dict[str, str] = {}
    for path in paths:
        text = os.fspath(path)
        folder, name = os.path.split(text)
        try:
            mode = os.lstat(text).st_mode if name not in ("", ".", "..") else None
        except OSError:
            mode = None
        if mode is None or stat.S_ISLNK(mode):
            dirs[_resolved_directory(path)] = None
            continue
        where = folders.get(folder)
        if where is None:
            where = folders[folder] = _resolved_directory(Path(folder or "."))
        # (not a link: resolved, it is its resolved folder joined with its name)
        dirs[os.path.join(where, name) if stat.S_ISDIR(mode) else where] = None
    try:
        return Path(os.path.commonpath(list(dirs)))
    except ValueError:  # different drives on Windows
        return Path(next(iter(dirs)))


def _resolved_directory(path: Path) -> str:
    """``path`` resolved if it is a directory, else its resolved folder."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: start from where it sits
        resolved = Path(os.path.abspath(path))
    return str(resolved if resolved.is_dir() else resolved.parent)


def find_config_file(paths: Sequence[Path]) -> Path | None:
    """Return the nearest ``pyproject.toml`` with a ``[tool.tensorlint]`` table.

    The walk starts at the common ancestor directory of ``paths`` (a file
    counts as its parent directory; no paths means the current directory) and
    goes up to the filesystem root. ``pyproject.toml`` files without the table
    are skipped.
    """
    directory = _start_directory(paths)
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / CONFIG_FILENAME
        if candidate.is_file() and _has_tensorlint_table(candidate):
            return candidate
    return None


# --------------------------------------------------------------------------- loading


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _bool(path: Path, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(
            path, f"{_TABLE} '{key}' must be true or false, got {_type_name(value)} {value!r}"
        )
    return value


def _strings(path: Path, key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(
            path,
            f"{_TABLE} '{key}' must be an array of strings, got {_type_name(value)} {value!r}",
        )
    for item in value:
        if not isinstance(item, str):
            raise ConfigError(
                path,
                f"{_TABLE} '{key}' must be an array of strings, "
                f"but contains {_type_name(item)} {item!r}",
            )
    return tuple(value)


def _codes(path: Path, key: str, value: object) -> tuple[str, ...]:
    codes = _strings(path, key, value)
    for code in codes:
        if not _CODE_RE.match(code):
            raise ConfigError(
                path,
                f"{_TABLE} '{key}' has invalid rule code {code!r} "
                "(expected 'TL' followed by up to 3 digits, or 'ALL')",
            )
    return codes


def _per_file_ignores(
    path: Path, key: str, value: object
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(
            path,
            f"{_TABLE} '{key}' must be a table of glob pattern = [codes], "
            f"got {_type_name(value)} {value!r}",
        )
    entries: list[tuple[str, tuple[str, ...]]] = []
    for pattern, codes in value.items():
        entries.append((pattern, _codes(path, f"{key}.{pattern}", codes)))
    return tuple(entries)


def table_changes(path: Path, table: dict[str, Any]) -> dict[str, Any]:
    """The Config fields a ``[tool.tensorlint]`` table sets, validated;
    ``path`` names where the table came from in errors."""
    unknown = [key for key in table if key not in KNOWN_KEYS]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        names = ", ".join(repr(key) for key in unknown)
        raise ConfigError(
            path, f"{_TABLE} unknown key{plural} {names} (known: {', '.join(KNOWN_KEYS)})"
        )

    changes: dict[str, Any] = {}
    if "select" in table:
        changes["select"] = _codes(path, "select", table["select"])
    if "ignore" in table:
        changes["ignore"] = _codes(path, "ignore", table["ignore"])
    if "extend-select" in table:
        changes["extend_select"] = _codes(path, "extend-select", table["extend-select"])
    if "strict" in table:
        changes["strict"] = _bool(path, "strict", table["strict"])
    if "assume-torch" in table:
        changes["assume_torch"] = _bool(path, "assume-torch", table["assume-torch"])
    if "numpy-idiom" in table:
        idiom = table["numpy-idiom"]
        if not isinstance(idiom, str) or idiom not in NUMPY_IDIOMS:
            raise ConfigError(
                path,
                f"{_TABLE} 'numpy-idiom' must be one of {', '.join(NUMPY_IDIOMS)}, got {idiom!r}",
            )
        changes["numpy_idiom"] = idiom
    if "exclude" in table:
        changes["exclude"] = _strings(path, "exclude", table["exclude"])
    if "extend-exclude" in table:
        changes["extend_exclude"] = _strings(path, "extend-exclude", table["extend-exclude"])
    if "target-version" in table:
        changes["target_version"] = parse_version(path, table["target-version"])
    if "force-exclude" in table:
        changes["force_exclude"] = _bool(path, "force-exclude", table["force-exclude"])
    if "extend-converting-calls" in table:
        changes["converting_calls"] = _converting_calls(
            path, "extend-converting-calls", table["extend-converting-calls"]
        )
    if "unfixable" in table:
        changes["unfixable"] = _codes(path, "unfixable", table["unfixable"])
    if "min-confidence" in table:
        changes["min_confidence"] = parse_confidence(path, table["min-confidence"])
    if "respect-gitignore" in table:
        changes["respect_gitignore"] = _bool(path, "respect-gitignore", table["respect-gitignore"])
    if "per-file-ignores" in table:
        changes["per_file_ignores"] = _per_file_ignores(
            path, "per-file-ignores", table["per-file-ignores"]
        )
    return changes


def _converting_calls(path: Path, key: str, value: object) -> tuple[str, ...]:
    """Each entry: a dotted name, then ``:`` and the positions or keywords it
    converts (``"pkg.viz.show:0,image"``; without them, the first argument)."""
    from tensorlint.analysis.library_table import parse_entry

    entries = _strings(path, key, value)
    for entry in entries:
        if parse_entry(entry) is None:
            raise ConfigError(
                path,
                f"{_TABLE} '{key}' entries are a dotted function name, optionally with "
                f"':' and argument positions or keywords (\"pkg.viz.show:0,image\"), "
                f"got {entry!r}",
            )
    return entries


def parse_confidence(path: Path, value: object) -> str:
    """A ``min-confidence`` value: a level of ``CONFIDENCES``."""
    if not isinstance(value, str) or value not in CONFIDENCES:
        raise ConfigError(
            path,
            f"{_TABLE} 'min-confidence' must be one of {', '.join(CONFIDENCES)}, got {value!r}",
        )
    return value


def parse_version(path: Path, value: object) -> tuple[int, int]:
    """``"1.12"`` -> (1, 12); a ConfigError for anything else."""
    match = re.fullmatch(r"(\d+)\.(\d+)", value) if isinstance(value, str) else None
    if match is None:
        raise ConfigError(
            path, f"{_TABLE} 'target-version' must be a torch version such as \"1.13\", "
            f"got {_type_name(value)} {value!r}",
        )  # fmt: skip
    return int(match.group(1)), int(match.group(2))


def check_compatible(config: Config) -> None:
    """The fixes a configuration asks for must run on its ``target-version``."""
    needs = IDIOM_NEEDS.get(config.numpy_idiom)
    target = config.target_version
    if needs is not None and target is not None and target < needs:
        raise ConfigError(
            config.source or Path("--numpy-idiom"),
            f"numpy-idiom {config.numpy_idiom!r} needs torch >= {needs[0]}.{needs[1]}, "
            f"but target-version is {target[0]}.{target[1]}",
        )


def inline_setting(text: str) -> dict[str, Any]:
    """``--config 'numpy-idiom = "force"'``: the Config fields one TOML
    ``KEY = VALUE`` sets, validated as in a file. Raises ConfigError."""
    where = Path("--config")
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(where, f"{text!r} is not a TOML `key = value`: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(where, "a value nested too deeply to read") from exc
    if "extend" in table:
        raise ConfigError(
            where, "'extend' is read from a file only (or give the file: --config FILE)"
        )
    return table_changes(where, table)


def load_config(path: Path | None) -> Config:
    """Read the ``[tool.tensorlint]`` table of ``path``; ``None`` gives ``Config()``.

    A file without the table gives the default settings with ``root`` and
    ``source`` set. ``extend`` reads the file it names first (and so on, up
    the chain). Raises :class:`ConfigError` for anything that is not valid.
    """
    if path is None:
        return Config()
    return _load(path, ())


def _read_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.tensorlint]`` table of ``path`` (None: the file has none)."""
    try:
        text = read_regular(path, MAX_SETTINGS_BYTES).decode("utf-8")
    except OSError as exc:
        raise ConfigError(path, f"cannot read file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"invalid TOML: not UTF-8 ({exc.reason})") from exc
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"invalid TOML: {exc}") from exc
    except RecursionError as exc:  # tomllib recurses once per nested array or table
        raise ConfigError(path, "invalid TOML: values nested too deeply to read") from exc
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(path, f"'tool' must be a table, got {_type_name(tool)}")
    table = tool.get("tensorlint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(
            path, f"'tool.tensorlint' must be a table, got {_type_name(table)} {table!r}"
        )
    return table


def _load(path: Path, chain: tuple[Path, ...]) -> Config:
    """``load_config`` of ``path``, which the files of ``chain`` extend."""
    resolved = path.resolve()
    if resolved in chain:
        names = " -> ".join(str(p) for p in (*chain, resolved))
        raise ConfigError(chain[-1], f"[tool.tensorlint] 'extend' goes round in a circle: {names}")
    table = _read_table(path)
    if table is None:
        return Config(root=resolved.parent, source=resolved)
    changes = table_changes(path, table)
    if "extend" not in table:
        own = changes.get("exclude", ())
        changes["exclude"] = (*own, *changes.get("extend_exclude", ()))
        return Config(**changes, root=resolved.parent, source=resolved)
    extend = table["extend"]
    if not isinstance(extend, str) or not extend:
        raise ConfigError(
            path,
            f"{_TABLE} 'extend' must be the path of a configuration file, "
            f"got {_type_name(extend)} {extend!r}",
        )
    target = Path(os.path.expandvars(os.path.expanduser(extend)))
    if not target.is_absolute():
        target = resolved.parent / target
    with contextlib.suppress(OSError, RuntimeError):  # a symlink loop: not a file, below
        target = target.resolve()
    if not target.is_file():
        raise ConfigError(path, f"{_TABLE} 'extend': {extend!r} is not a file ({target})")
    base = _load(target, (*chain, resolved))
    return _extended(base, changes, resolved)


def _extended(base: Config, changes: dict[str, Any], source: Path) -> Config:
    """The configuration of ``source`` (a table's ``changes``) on top of ``base``."""
    root = source.parent
    rebase = functools.partial(_rebased, base.root, root)
    merged: dict[str, Any] = {
        name: changes.get(name, getattr(base, name))
        for name in (
            "strict",
            "numpy_idiom",
            "assume_torch",
            "force_exclude",
            "target_version",
            "min_confidence",
            "unfixable",
            "respect_gitignore",
        )
    }
    if "select" in changes:  # a new rule selection: the base's is dropped
        merged["select"] = changes["select"]
        merged["ignore"] = changes.get("ignore", ())
        merged["extend_select"] = changes.get("extend_select", ())
    else:
        merged["select"] = base.select
        for name in ("ignore", "extend_select"):
            merged[name] = _union(getattr(base, name), changes.get(name, ()))
    merged["converting_calls"] = _union(base.converting_calls, changes.get("converting_calls", ()))
    extend_exclude = (*map(rebase, base.extend_exclude), *changes.get("extend_exclude", ()))
    if "exclude" in changes:
        merged["exclude"] = (*changes["exclude"], *extend_exclude)
    else:
        inherited = base.exclude[: len(base.exclude) - len(base.extend_exclude)]
        merged["exclude"] = (*map(rebase, inherited), *extend_exclude)
    merged["extend_exclude"] = extend_exclude
    if "per_file_ignores" in changes:
        merged["per_file_ignores"] = changes["per_file_ignores"]
    else:
        merged["per_file_ignores"] = tuple(
            (rebase(pattern), codes) for pattern, codes in base.per_file_ignores
        )
    extends = (base.source, *base.extends) if base.source is not None else base.extends
    return Config(**merged, root=root, source=source, extends=extends)


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))


# A pattern of a configuration in another folder (one that ``extend`` read) is
# kept as ``\0<folder>\0<pattern>``, ``<folder>`` being the path from that
# configuration's folder to this one's: it matches a path relative to this
# folder as the pattern matches ``<folder>/<path>`` (see ``path_matches``).
_ANCHOR = "\0"


def _rebased(base_root: Path | None, root: Path, pattern: str) -> str:
    """``pattern``, relative to ``base_root``, as a pattern of ``root``."""
    if base_root is None or base_root == root:
        return pattern
    folder = Path(os.path.relpath(root, base_root)).as_posix()
    if pattern.startswith(_ANCHOR):  # from further up the chain
        _, above, pattern = pattern.split(_ANCHOR, 2)
        folder = f"{above}/{folder}"
    return f"{_ANCHOR}{folder}{_ANCHOR}{pattern}"


def shown_pattern(pattern: str) -> str:
    """A pattern as ``--show-settings`` prints it: one an extended
    configuration gave is written from this configuration's folder
    (``../legacy/**``)."""
    if not pattern.startswith(_ANCHOR):
        return pattern
    _, folder, pattern = pattern.split(_ANCHOR, 2)
    parts = folder.split("/")
    if ".." in parts:  # (a folder beside the base's)
        return f"{pattern} (from the folder of an extended configuration)"
    return "../" * len(parts) + _normalize_pattern(pattern)


# --------------------------------------------------------------------------- patterns


@functools.lru_cache(maxsize=512)
def bracket_class(pattern: str, start: int) -> tuple[str, bool, int] | None:
    """The ``[...]`` class at ``pattern[start]``: (escaped body, negated, index after it).

    ``[!a-z]`` and ``[^a-z]`` negate; a ``]`` right after the opening (or the
    negation) is literal. None when the class is never closed. Shared by the
    fnmatch-style patterns here and the ``.gitignore`` patterns of discovery.
    """
    n = len(pattern)
    j = start + 1
    if j < n and pattern[j] in "!^":
        j += 1
    if j < n and pattern[j] == "]":
        j += 1
    while j < n and pattern[j] != "]":
        j += 1
    if j >= n:
        return None
    body = pattern[start + 1 : j]
    negated = body[:1] in ("!", "^")
    if negated:
        body = body[1:]
    return re.sub(r"([\\\[\]&~|^])", r"\\\1", body), negated, j + 1


def _compile_glob(pattern: str) -> Glob:
    """Translate an fnmatch-style pattern where ``**/`` spans zero or more dirs."""
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            stars = j - i
            at_segment_start = i == 0 or pattern[i - 1] == "/"
            if stars >= 2 and at_segment_start and j < n and pattern[j] == "/":
                out.append(glob.DIRS)  # '**/': zero or more directories
                j += 1
            else:
                out.append(glob.ANY)  # fnmatch: '*' (and '**') also match '/'
            i = j
        elif char == "?":
            out.append(glob.ONE)
            i += 1
        elif char == "[":
            found = bracket_class(pattern, i)
            if found is None:
                out.append(char)
                i += 1
                continue
            body, negated, i = found
            try:
                out.append(glob.CharClass.of(body, negated))
            except ValueError:  # e.g. a reversed range '[z-a]': match the text literally
                return Glob(glob.literal(pattern))
        else:
            out.append(char)
            i += 1
    return Glob(out)


def _normalize_pattern(pattern: str) -> str:
    pattern = pattern.replace("\\", "/") if os.sep == "\\" else pattern
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return pattern.lstrip("/").rstrip("/")


def path_matches(pattern: str, relpath: str) -> bool:
    """Whether posix ``relpath`` matches ``pattern`` (a slash-less one also on the basename)."""
    if pattern.startswith(_ANCHOR):  # an extended configuration's: from its folder
        _, folder, pattern = pattern.split(_ANCHOR, 2)
        if not relpath.startswith("/"):
            relpath = posixpath.normpath(f"{folder}/{relpath}")
    pattern = _normalize_pattern(pattern)
    if not pattern:
        return False
    compiled = _compile_glob(pattern)
    if compiled.fullmatch(relpath):
        return True
    if "/" not in pattern:
        return compiled.fullmatch(relpath.rsplit("/", 1)[-1])
    return False


def _relative_posix(path: Path, root: Path | None) -> str:
    base = (root if root is not None else Path.cwd()).resolve()
    resolved = path.resolve()
    try:
        return resolved.relative_to(base).as_posix()
    except ValueError:
        return resolved.as_posix()


def per_file_ignored_codes(config: Config, path: Path) -> tuple[str, ...]:
    """The codes and prefixes ``per-file-ignores`` turns off for ``path``.

    ``path`` is made relative to ``config.root`` (the current directory when
    there is none). A pattern applies when it matches the path or one of its
    parent directories (so ``legacy`` covers everything under ``legacy/``).
    """
    if not config.per_file_ignores:
        return ()
    relpath = _relative_posix(path, config.root)
    parts = relpath.split("/")
    candidates = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
    candidates = [candidate for candidate in candidates if candidate.strip("/")]
    codes: list[str] = []
    for pattern, pattern_codes in config.per_file_ignores:
        if any(path_matches(pattern, candidate) for candidate in candidates):
            codes.extend(code for code in pattern_codes if code not in codes)
    return tuple(codes)
