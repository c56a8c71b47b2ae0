"""Find the Python files (and Jupyter notebooks) to check.

Directories are walked with :func:`os.scandir` (symlinked directories are not
followed). A walk skips the names in :data:`DEFAULT_EXCLUDES`, paths matching
the user's ``exclude`` patterns, and whatever ``.gitignore`` files (and
``.git/info/exclude``) ignore. A path named explicitly is always returned, even
when it is excluded, ignored, not a ``.py`` file, or does not exist (the
engine reports the missing ones); so is an ignore file that cannot be read (a
FIFO, a link to a device), whose check then reports it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from tensorlint import glob
from tensorlint.config import bracket_class, path_matches
from tensorlint.fix.io import MAX_SETTINGS_BYTES, read_regular
from tensorlint.glob import Glob, Token

__all__ = ["DEFAULT_EXCLUDES", "GitIgnoreRule", "discover", "parse_gitignore"]

#: Directory and file names never walked into.
#: File endings a directory walk collects: Python sources and notebooks.
SOURCE_SUFFIXES = (".py", ".ipynb")

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "build",
    "dist",
    "__pycache__",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".tensorlint_cache",
    "site-packages",
    "__pypackages__",
    "_build",
    "buck-out",
)

_DEFAULT_EXCLUDES = frozenset(DEFAULT_EXCLUDES)


# --------------------------------------------------------------------------- gitignore


class GitIgnoreRule(NamedTuple):
    """One pattern of a ``.gitignore`` file.

    ``base`` is the posix path of the file's directory relative to the top of
    the walk ("" for the top itself); ``matcher`` matches paths relative to it.
    """

    base: str
    matcher: Glob
    negated: bool
    dir_only: bool

    def matches(self, relpath: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not relpath.startswith(self.base + "/"):
                return False
            relpath = relpath[len(self.base) + 1 :]
        return self.matcher.fullmatch(relpath)


def _translate_gitignore(pattern: str) -> Glob:
    """The matcher for a gitignore pattern (no '!', no trailing '/', not blank);
    ValueError when git would not use it either (a reversed range)."""
    anchored = "/" in pattern
    pattern = pattern.lstrip("/") if pattern.startswith("/") else pattern
    out: list[Token] = [] if anchored else [glob.DIRS]
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            out.append(pattern[i + 1])
            i += 2
        elif char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            at_start = i == 0 or pattern[i - 1] == "/"
            at_end = j == n or pattern[j] == "/"
            if j - i >= 2 and at_start and at_end:
                if j == n:
                    out.append(glob.ANY)  # 'a/**': everything inside a; '**': everything
                else:
                    out.append(glob.DIRS)  # '**/' and '/**/': zero or more dirs
                    j += 1
            else:
                out.append(glob.SEGMENT)
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
            out.append(glob.CharClass.of(body, negated, slash=False))  # never matches '/'
        else:
            out.append(char)
            i += 1
    return Glob(out)


def parse_gitignore(text: str, base: str = "") -> list[GitIgnoreRule]:
    """Parse the lines of a ``.gitignore`` file whose directory is ``base``."""
    rules: list[GitIgnoreRule] = []
    for raw in text.splitlines():
        line = raw
        # Trailing spaces are ignored unless escaped with a backslash.
        stripped = line.rstrip(" ")
        if stripped != line and stripped.endswith("\\"):
            stripped += " "
        line = stripped
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        try:
            matcher = _translate_gitignore(line)
        except ValueError:  # e.g. a reversed range; git ignores such patterns too
            continue
        rules.append(GitIgnoreRule(base, matcher, negated, dir_only))
    return rules


class _Unreadable(Exception):
    """A ``.gitignore`` (or git's ``info/exclude``) that is there but cannot be
    read: a FIFO, a link to a device, too large, locked."""


def _read_gitignore(path: str, base: str) -> tuple[GitIgnoreRule, ...]:
    """The rules of the file at ``path`` (none when there is none); raises
    :class:`_Unreadable` when it cannot be read."""
    try:
        data = read_regular(path, MAX_SETTINGS_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return ()
    except OSError as error:
        raise _Unreadable(path) from error
    return tuple(parse_gitignore(data.decode("utf-8", errors="replace"), base))


def _is_ignored(rules: Sequence[GitIgnoreRule], relpath: str, is_dir: bool) -> bool:
    for rule in reversed(rules):  # the last matching pattern wins
        if rule.dir_only and not is_dir:
            continue
        suffix = rule.matcher.suffix  # most patterns end with text: a cheap "no"
        if suffix and not relpath.endswith(suffix):
            continue
        if rule.matches(relpath, is_dir):
            return not rule.negated
    return False


# --------------------------------------------------------------------------- walk


def _find_git_dir(directory: Path) -> tuple[Path, Path] | None:
    """``(work tree top, git directory)`` for ``directory``, if it is inside one."""
    for candidate in (directory, *directory.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return candidate, dot_git
        if dot_git.is_file():  # worktrees and submodules: "gitdir: <path>"
            try:
                first = read_regular(dot_git, MAX_SETTINGS_BYTES).decode().splitlines()[0]
            except (OSError, IndexError, UnicodeDecodeError):
                return candidate, dot_git
            if first.startswith("gitdir:"):
                git_dir = Path(first[len("gitdir:") :].strip())
                return candidate, git_dir if git_dir.is_absolute() else candidate / git_dir
            return candidate, dot_git
    return None


def _relative_parts(path: Path, base: Path) -> tuple[str, ...] | None:
    try:
        return path.relative_to(base).parts
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def _inherited_rules(
    directory: Path, root: Path | None
) -> tuple[str, tuple[GitIgnoreRule, ...], tuple[str, ...]]:
    """The gitignore rules from above ``directory`` and its path from their top.

    The top is the higher of the git work tree's top and ``root`` (when
    ``directory`` is inside it); without either it is ``directory`` itself.
    Returns ``(relative posix path of directory from the top, rules, the
    files of rules that could not be read)``.
    """
    tops: list[Path] = []
    rules: list[GitIgnoreRule] = []
    unreadable: list[str] = []

    def read(path: Path, base: str) -> None:
        try:
            rules.extend(_read_gitignore(str(path), base))
        except _Unreadable:
            unreadable.append(str(path))

    git = _find_git_dir(directory)
    if git is not None:
        tops.append(git[0])
    if root is not None and _relative_parts(directory, root) is not None:
        tops.append(root)
    if not tops:
        return "", (), ()
    top = min(tops, key=lambda path: len(path.parts))
    if git is not None:
        git_top, git_dir = git
        git_base = _relative_parts(git_top, top)
        if git_base is not None:
            read(git_dir / "info" / "exclude", "/".join(git_base))
    parts = _relative_parts(directory, top) or ()
    for depth in range(len(parts)):  # every directory above `directory`, from the top
        read(top.joinpath(*parts[:depth], ".gitignore"), "/".join(parts[:depth]))
    return "/".join(parts), tuple(rules), tuple(unreadable)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}/{name}" if prefix else name


def _walk(
    directory: Path,
    exclude: Sequence[str],
    root: Path | None,
    gitignore: bool = True,
) -> tuple[list[str], tuple[str, ...]]:
    """The files under ``directory``, joined from ``str(directory)``, and the
    ignore files above it that could not be read. ``gitignore``: honour the
    ``.gitignore`` files and ``.git/info/exclude`` (``respect-gitignore``)."""
    resolved = directory.resolve()
    git_rel, inherited, unreadable = _inherited_rules(resolved, root) if gitignore else ("", (), ())
    exclude_base = root.resolve() if root is not None else resolved
    exclude_parts = _relative_parts(resolved, exclude_base)
    if exclude_parts is None:  # the walked directory is outside root
        exclude_parts = ()
    exclude_rel = "/".join(exclude_parts)

    found: list[str] = []
    # Each entry: (path as given-joined string, gitignore-relative path,
    # exclude-relative path, rules in effect).
    stack: list[tuple[str, str, str, tuple[GitIgnoreRule, ...]]] = [
        (str(directory), git_rel, exclude_rel, inherited)
    ]
    while stack:
        current, git_prefix, exclude_prefix, rules = stack.pop()
        try:
            with os.scandir(current) as iterator:
                entries = list(iterator)
        except (FileNotFoundError, NotADirectoryError):
            continue  # removed while walking
        except OSError:
            # unreadable (permissions): returned, so that its check reports
            # it and the run's exit code says that files were missed
            found.append(current)
            continue
        if gitignore and any(entry.name == ".gitignore" for entry in entries):
            ignore = os.path.join(current, ".gitignore")
            try:
                own = _read_gitignore(ignore, git_prefix)
            except _Unreadable:
                # returned, as an unreadable directory is: its check reports it
                found.append(ignore)
                own = ()
            if own:
                rules = rules + own
        for entry in entries:
            name = entry.name
            if name in _DEFAULT_EXCLUDES:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir and not name.endswith(SOURCE_SUFFIXES):
                continue
            git_path = _join(git_prefix, name)
            if rules and _is_ignored(rules, git_path, is_dir):
                continue
            exclude_path = _join(exclude_prefix, name)
            if any(path_matches(pattern, exclude_path) for pattern in exclude):
                continue
            if is_dir:
                stack.append((entry.path, git_path, exclude_path, rules))
            else:
                try:
                    if not entry.is_file():  # e.g. a broken symlink or a fifo
                        continue
                except OSError:
                    continue
                found.append(entry.path)
    return found, unreadable


def is_excluded(path: Path, exclude: Sequence[str], root: Path | None) -> bool:
    """Would a walk from ``root`` (or the current directory) skip the file
    ``path`` (absolute), for a default exclude or an ``exclude`` pattern?"""
    base = root if root is not None else Path.cwd()
    parts = _relative_parts(path, base)
    if parts is None:
        parts = path.parts[1:]  # outside the base: match what can be matched
    if any(part in _DEFAULT_EXCLUDES for part in parts[:-1]):
        return True
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    return any(path_matches(p, prefix) for p in exclude for prefix in prefixes)


def discover(
    paths: Sequence[Path],
    exclude: Sequence[str] = (),
    root: Path | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
) -> list[Path]:
    """The files to check for ``paths``: sorted, without duplicates.

    Directories are walked; files and paths that do not exist are returned as
    given, unless ``force_exclude`` and the default excludes or ``exclude``
    name them or a folder above them (relative to ``root``, or to the current
    directory without one). ``exclude`` patterns match paths relative to
    ``root`` (or to the walked directory when there is no root or it is
    outside root). Returned paths are joined from the given ones, not resolved.
    Without ``respect_gitignore``, what ``.gitignore`` files ignore is walked too.
    """
    _inherited_rules.cache_clear()
    resolved_root = root.resolve() if root is not None else None
    seen: set[str] = set()
    result: list[Path] = []

    def add(path: Path, key: str) -> None:
        if key not in seen:
            seen.add(key)
            result.append(path)

    for path in paths:
        if path.is_dir():
            # a walk does not follow links, so its files are real paths under
            # the resolved directory: no per-file resolve() (a lstat per part);
            # the key is the resolved directory joined with the rest, as text
            base = str(path.resolve()).rstrip(os.sep)
            given = len(str(path))
            found, unreadable = _walk(path, exclude, resolved_root, respect_gitignore)
            for name in found:
                add(Path(name), os.path.normpath(base + os.sep + name[given:]))
            for name in unreadable:  # ignore files above the walk: reported, too
                add(Path(name), name)
        else:
            # named files (pre-commit passes hundreds): a cheap absolute key
            key = os.path.abspath(path)
            if force_exclude and is_excluded(Path(key), exclude, resolved_root):
                continue
            add(path, key)
    return sorted(result, key=lambda path: (path.as_posix(), str(path)))
