"""The checked tree around a file: summaries of the modules it imports.

A file's findings may depend on functions it imports from other modules of
the tree (a helper that returns ``torch.from_numpy`` of its argument, a
function that steps an optimizer over the module it is given). ``Tree``
finds those modules the way Python would from the file's location (relative
imports from the file's package; absolute ones from the folder above the
top package, or the file's own folder), reads them, and keeps their
summaries (``analysis/summaries.py``), computed from CPython's ``ast``,
keyed by size and modification time. Nothing is imported or executed.

Every module a file's analysis consulted is recorded (``FileView.deps``),
with its size and modification time, so a cached result is reused only
while none of them changed.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Optional

from tensorlint.analysis.summaries import (
    CONVERSION_TEXT,
    EMPTY_SUMMARY,
    FunctionSummary,
    ModuleSummary,
    summarize,
)
from tensorlint.fix.io import SourceReadError, read_source

#: (path, size, mtime_ns) of a module a result depends on
Dependency = tuple[str, int, int]

#: ``from x import a, b as c`` (parenthesised lists may span lines)
_FROM_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)", re.MULTILINE
)
_IMPORT_AS = re.compile(r"^[ \t]*import[ \t]+([\w.]+)[ \t]+as[ \t]+(\w+)", re.MULTILINE)
#: Modules whose summaries (and trees) a process keeps, the oldest dropped first.
_KEPT = 64
#: Summaries bigger than this are not computed (generated code).
_MAX_BYTES = 2 * 1024 * 1024


class Tree:
    """Module summaries of one checked tree, cached for the process."""

    def __init__(self) -> None:
        self._summaries: dict[str, tuple[int, int, Optional[ModuleSummary]]] = {}
        self._roots: dict[str, Path] = {}
        self._tops: dict[tuple[str, str], bool] = {}
        #: (folder of the importing file, qualified name) -> module files
        self.modules: dict[tuple[str, str], list[tuple[Path, str]]] = {}

    def view(self, path: Path) -> FileView:
        return FileView(self, Path(os.path.abspath(path)))

    def summary(
        self, path: Path, *, aliases_only: bool = False
    ) -> tuple[ModuleSummary, Optional[Dependency]]:
        """The module's summary (empty when it cannot be read or parsed).

        With ``aliases_only`` a module whose text holds no conversion is not
        parsed: none of its functions can return a conversion.
        """
        key = str(path)
        try:
            stat = path.stat()
        except OSError:
            return EMPTY_SUMMARY, None
        dependency = (key, stat.st_size, stat.st_mtime_ns)
        known = self._summaries.get(key)
        if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
            if known[2] is not None:
                return known[2], dependency
            if aliases_only:
                return EMPTY_SUMMARY, dependency
        summary: Optional[ModuleSummary] = EMPTY_SUMMARY
        if stat.st_size <= _MAX_BYTES:
            try:
                text = read_source(path).text
                if aliases_only and not CONVERSION_TEXT.search(text):
                    summary = None  # not computed yet
                else:
                    summary = summarize(ast.parse(text), text)
            except (SourceReadError, SyntaxError, ValueError, RecursionError, MemoryError):
                summary = EMPTY_SUMMARY
        self._summaries[key] = (stat.st_size, stat.st_mtime_ns, summary)
        if len(self._summaries) > _KEPT:  # summaries hold their module's tree
            del self._summaries[next(iter(self._summaries))]
        return summary or EMPTY_SUMMARY, dependency

    def has_top(self, root: Path, name: str) -> bool:
        """Is there a package or module ``name`` directly in ``root``?"""
        key = (str(root), name)
        found = self._tops.get(key)
        if found is None:
            found = (root / name).is_dir() or (root / f"{name}.py").is_file()
            self._tops[key] = found
        return found

    def import_root(self, folder: Path) -> Path:
        """The folder above the top package that holds ``folder``."""
        key = str(folder)
        root = self._roots.get(key)
        if root is None:
            root = folder
            while (root / "__init__.py").is_file() and root.parent != root:
                root = root.parent
            self._roots[key] = root
        return root


class FileView:
    """The tree as one file sees it; records what it consulted."""

    def __init__(self, tree: Tree, path: Path) -> None:
        self.tree = tree
        self.path = path
        self.deps: dict[str, Dependency] = {}

    def dependencies(self) -> tuple[Dependency, ...]:
        return tuple(sorted(self.deps.values()))

    # -- for the analysis ------------------------------------------------------

    def lookup(
        self, qual: str, *, aliases_only: bool = False
    ) -> Optional[tuple[FunctionSummary, str]]:
        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module, aliases_only=aliases_only)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            found = summary.functions.get(name)
            if found is None:
                return None
            return found, f"{self._display(module)}:{found.line}"
        return None

    def type_alias(self, qual: str) -> list[str]:
        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            return summary.alias_chain(name)
        return []

    def helpers(self, source: str) -> frozenset[str]:
        """Names ``source`` calls that are imported functions of the tree
        returning a conversion of their argument."""
        if "import" not in source:
            return frozenset()
        imported: list[tuple[str, str]] = []  # (local name, qualified name)
        for match in _FROM_IMPORT.finditer(source):
            module = match.group(1)
            for local, name in _names(match.group(2)):
                sep = "" if module.endswith(".") else "."
                imported.append((local, f"{module}{sep}{name}"))
        imported.extend((m.group(2), m.group(1)) for m in _IMPORT_AS.finditer(source))
        found: set[str] = set()
        for local, qual in imported:
            if self._returns_alias(qual):  # ``from .io import to_tensor``
                if re.search(rf"(?<![\w.]){re.escape(local)}\s*\(", source):
                    found.add(local)
                continue
            names = self._alias_functions(qual)  # ``from . import io``: ``io.to_tensor(x)``
            if names:
                pattern = rf"(?<![\w.]){re.escape(local)}\s*\.\s*(\w+)\s*\("
                found.update(f"{local}.{a}" for a in re.findall(pattern, source) if a in names)
        return frozenset(found)

    def _alias_functions(self, qual: str) -> frozenset[str]:
        """The functions of module ``qual`` that return a conversion."""
        level = len(qual) - len(qual.lstrip("."))
        parts = qual[level:].split(".")
        for module, _ in self._candidates(f"{qual}.x") if all(parts) else []:
            summary, dependency = self.tree.summary(module, aliases_only=True)
            if dependency is not None:
                self.deps[dependency[0]] = dependency
                return summary.alias_names()
        return frozenset()

    def _returns_alias(self, qual: str) -> bool:
        found = self.lookup(qual, aliases_only=True)
        return found is not None and found[0].alias is not None

    # -- finding modules -------------------------------------------------------

    def _candidates(self, qual: str) -> list[tuple[Path, str]]:
        key = (str(self.path.parent), qual)
        found = self.tree.modules.get(key)
        if found is None:
            found = self.tree.modules[key] = self._find(qual)
        return found

    def _find(self, qual: str) -> list[tuple[Path, str]]:
        """(module file, name in it) pairs ``qual`` may mean, most likely first."""
        level = len(qual) - len(qual.lstrip("."))
        parts = qual[level:].split(".")
        if not parts or not all(parts):
            return []
        found: list[tuple[Path, str]] = []
        if level:
            base = self.path.parent
            for _ in range(level - 1):
                base = base.parent
            found.extend(_module_files(base, parts[:-1], parts[-1]))
            if len(parts) >= 3:  # ``Class.method`` imported as ``mod.Class``
                found.extend(_module_files(base, parts[:-2], ".".join(parts[-2:])))
            return found
        roots = [self.tree.import_root(self.path.parent), self.path.parent]
        for root in dict.fromkeys(roots):
            if not self.tree.has_top(root, parts[0]):
                continue  # ``typing``, ``torch``: not a module of this tree
            for split in range(len(parts) - 1, 0, -1):
                found.extend(_module_files(root, parts[:split], ".".join(parts[split:])))
        return found

    def _display(self, module: Path) -> str:
        try:
            return os.path.relpath(module, self.path.parent).replace(os.sep, "/")
        except ValueError:  # another drive
            return str(module)


def _module_files(base: Path, parts: list[str], name: str) -> list[tuple[Path, str]]:
    folder = base.joinpath(*parts) if parts else base
    found: list[tuple[Path, str]] = []
    if parts and folder.with_suffix(".py").is_file():
        found.append((folder.with_suffix(".py"), name))
    init = folder / "__init__.py"
    if init.is_file():
        found.append((init, name))
    return found


def _names(text: str) -> list[tuple[str, str]]:
    """``a, b as c`` -> [(local, imported)]."""
    names = []
    for item in text.strip().strip("()").replace("\\\n", " ").split(","):
        words = item.split()
        if len(words) == 1:
            names.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as":
            names.append((words[2], words[0]))
    return names
