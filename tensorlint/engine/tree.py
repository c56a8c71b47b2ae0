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

import bisect
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional, TypeVar

from tensorlint.fix.io import SourceReadError, read_source
from tensorlint.roles import folders_up

if TYPE_CHECKING:
    from tensorlint.analysis.classes import ClassSummary
    from tensorlint.analysis.project_calls import Call, CallingModule
    from tensorlint.analysis.summaries import FunctionSummary, ModuleSummary

#: (path, size, mtime_ns) of a module a result depends on
Dependency = tuple[str, int, int]

#: Modules whose summaries (and trees) a process keeps, the oldest dropped first.
_KEPT = 64
#: How far the import graph is followed to find torch: a file, the modules it
#: imports, theirs, and theirs (``from utils import *`` whose package
#: ``__init__`` star-imports a module that imports torch is two steps).
_GRAPH_DEPTH = 3
#: How many folders up a script's own imports are looked for (``sys.path``
#: set by hand to the project above it).
_CLIMB = 2
#: The most modules one file's walk of the graph reads.
_GRAPH_MODULES = 64
#: A module-level public ``def`` (the functions other files may call).
_PUBLIC_DEF = re.compile(r"^def ([A-Za-z]\w*)\s*\(", re.MULTILINE)
#: A top-level public class (whose constructor other files may call).
_PUBLIC_CLASS = re.compile(r"^class ([A-Za-z]\w*)\b", re.MULTILINE)
#: Its constructor, in the class's text.
_INIT = re.compile(r"^[ \t]+def __init__\s*\(", re.MULTILINE)
#: The most functions of one file whose callers ``torch_callers`` looks for.
_CALLED_FUNCTIONS = 20
#: How many modules a class imported through re-exports is followed.
_REEXPORT_HOPS = 3
#: Summaries bigger than this are not computed (generated code).
_MAX_BYTES = 2 * 1024 * 1024
#: A project with more Python files than this is not searched for callers.
_PROJECT_FILES = 5000
#: A function named in more of the project's files than this (``main``,
#: ``train``) is not looked for: its callers stay unknown.
_CALLER_FILES = 100
#: how many levels of subclasses a method's callers are looked for on
_SUBCLASS_DEPTH = 2
#: How many calls up a value passed on from file to file is followed
#: (``main()`` in run.py moves the model, ``train()`` in train.py passes it to
#: ``log()`` in logger.py, which passes it to ``plot_grads()``: 2; a call in
#: the calling function's own file counts as one: ``train_epoch()`` calling
#: ``train_batch()``, which calls ``log()``, makes 3).
_UPSTREAM_DEPTH = 3
#: Files that make a project installable: without any, it is an application
#: whose callers are all in it.
PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg")
#: Packaging metadata, by file: a ``pyproject.toml`` or ``setup.cfg`` that
#: holds only tools' settings (black, isort, flake8, pytest; a ``[metadata]``
#: with a licence file and no name) makes no project installable; a
#: ``setup.py`` does, whatever it holds.
_PACKAGING_SECTION = {
    "pyproject.toml": re.compile(
        r"^[ \t]*\[(?:project|build-system|tool\.poetry|tool\.flit\.metadata)\][ \t]*$",
        re.MULTILINE,
    ),
    "setup.cfg": re.compile(
        r"^[ \t]*\[options\][ \t]*$"
        r"|^[ \t]*\[metadata\][ \t]*\n(?:[^\[\n][^\n]*\n|\n)*?[ \t]*name[ \t]*[=:]",
        re.MULTILINE,
    ),
}
#: How much of a ``pyproject.toml`` or ``setup.cfg`` is read for it.
_PACKAGING_BYTES = 1 << 18
#: How many files directly in a top package are read for an import of the
#: package by another name than its folder's.
_SELF_IMPORT_FILES = 50
#: Calling modules a process keeps, read.
_KEPT_CALLERS = 64
#: Notebooks bigger than this are not read as callers (their outputs: images).
_MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024
#: The prefix of the dependency that stands for a whole project's files
#: (``project_fingerprint``): a result that read callers in other files is
#: reused only while no file of the project was added, removed or changed.
PROJECT_DEPENDENCY = "<project>"


class Tree:
    """Module summaries of one checked tree, cached for the process."""

    def __init__(self) -> None:
        self._summaries: dict[str, tuple[int, int, ModuleSummary]] = {}
        #: per module, the functions that return a conversion of an argument:
        #: what the prefilter asks of every import, kept for every module (no tree)
        self._aliases: dict[str, tuple[int, int, frozenset[str]]] = {}
        #: path -> (size, mtime, does its text call a default-device setter)
        self._setters: dict[str, tuple[int, int, bool]] = {}
        # What the file system says, kept for one run (``refresh``):
        self._stats: dict[str, Optional[Dependency]] = {}
        self._roots: dict[str, str] = {}
        self._tops: dict[tuple[str, str], bool] = {}
        #: (top package folder, name): does the package import itself by that name
        self._self_names: dict[tuple[str, str], bool] = {}
        #: (base folder or import roots, qualified name) -> module files
        self._modules: dict[tuple[object, ...], list[tuple[Path, str]]] = {}
        #: per module: (size, mtime, its torch verdict, the modules it imports):
        #: the import graph ``FileView.torch_via`` walks
        self._imports: dict[str, tuple[int, int, Optional[bool], tuple[str, ...]]] = {}
        #: (importing folder, qualified name) -> what ``FileView.helpers`` needs
        self.imported: dict[tuple[str, str], tuple[bool, frozenset[str], tuple[Dependency, ...]]]
        self.imported = {}
        #: per project root, this run: its files and the words each holds
        self._projects: dict[str, Optional[_Project]] = {}
        #: per file: (size, mtime, the words of its text), across runs
        self._words: dict[str, tuple[int, int, frozenset[str]]] = {}
        #: per calling module: (size, mtime, what it calls, or None: it does not parse)
        self._callers: dict[str, tuple[int, int, Optional[CallingModule]]] = {}
        self._project_roots: dict[tuple[str, str], str] = {}  #: (folder, cwd) -> root
        self._packaged: dict[str, bool] = {}  #: project folder -> it holds ``PACKAGING``
        #: (folder, cwd) -> its project was found by a marker or the current directory
        self._found_projects: dict[tuple[str, str], bool] = {}
        #: (module, class, method) -> its subclasses that inherit the method, this run
        self.subclasses: dict[tuple[str, str, str], list[tuple[Path, str]]] = {}

    def refresh(self) -> None:
        """Forget what the file system said (a new run); summaries stay,
        keyed by size and modification time."""
        self._stats.clear()
        self._roots.clear()
        self._tops.clear()
        self._self_names.clear()
        self._modules.clear()
        self.imported.clear()
        self._projects.clear()
        self._project_roots.clear()
        self._packaged.clear()
        self._found_projects.clear()
        self.subclasses.clear()
        for _size, _mtime, module in self._callers.values():
            if module is not None:
                module.forget()  # (what it read of other modules' summaries may be stale)

    def stat(self, path: Path) -> Optional[Dependency]:
        key = str(path)
        if key in self._stats:
            return self._stats[key]
        found = self._stats[key] = _stat(key)
        return found

    def view(self, path: Path) -> FileView:
        return FileView(self, Path(os.path.abspath(path)))

    def summary(self, path: Path) -> tuple[ModuleSummary, Optional[Dependency]]:
        """The module's summary (empty when it cannot be read or parsed)."""
        from tensorlint.analysis.summaries import EMPTY_SUMMARY

        dependency = self.stat(path)
        if dependency is None:
            return EMPTY_SUMMARY, None
        return self._summary(path, dependency, None), dependency

    def _summary(self, path: Path, dependency: Dependency, text: Optional[str]) -> ModuleSummary:
        from tensorlint.analysis.pytree import parse
        from tensorlint.analysis.summaries import EMPTY_SUMMARY, summarize

        def read() -> ModuleSummary:
            try:
                source = read_source(path).text if text is None else text
                return summarize(parse(source), source)
            except (SourceReadError, SyntaxError, ValueError, RecursionError, MemoryError):
                return EMPTY_SUMMARY

        # (summaries hold their module's tree: a few are kept)
        return _kept(self._summaries, dependency, _KEPT, read, EMPTY_SUMMARY)

    def sets_default(self, path: Path, dependency: Dependency) -> bool:
        """Does the module's text call a setter of the default device
        (``ops.DEFAULT_DEVICE_SETTERS``)? Read once per version of the file."""
        from tensorlint.analysis.ops import DEFAULT_DEVICE_SETTERS

        key, size, mtime = dependency
        known = self._setters.get(key)
        if known is None or known[:2] != (size, mtime):
            try:
                text = read_source(path).text
            except (SourceReadError, MemoryError):
                text = ""
            found = any(f"{name}(" in text for name in DEFAULT_DEVICE_SETTERS)
            known = self._setters[key] = (size, mtime, found)
        return known[2]

    def alias_functions(
        self, path: Path, text: Optional[str] = None
    ) -> tuple[frozenset[str], Optional[Dependency]]:
        """The module's functions (``f``, ``Class.m``) that return a conversion
        of an argument. A module whose text holds no conversion is not parsed.

        ``text``: the module's text, already read (the checked file itself);
        then a text CPython cannot parse raises what ``ast.parse`` raises.
        """
        # (the analysis is imported when a module is looked into: a file that
        # imports nothing of the tree never needs it)
        from tensorlint.analysis.summaries import alias_functions_of

        dependency = self.stat(path)
        if dependency is None:
            return (frozenset() if text is None else alias_functions_of(text)), None
        key, size, mtime = dependency
        known = self._aliases.get(key)
        if known is not None and known[:2] == (size, mtime):
            return known[2], dependency
        names: frozenset[str] = frozenset()
        if text is not None:
            names = alias_functions_of(text)
        elif size <= _MAX_BYTES:
            known_summary = self._summaries.get(key)
            try:
                if known_summary is not None and known_summary[:2] == (size, mtime):
                    names = known_summary[2].alias_functions()
                else:
                    names = alias_functions_of(read_source(path).text)
            except (SourceReadError, SyntaxError, ValueError, RecursionError, MemoryError):
                pass
        self._aliases[key] = (size, mtime, names)
        return names, dependency

    def import_facts(
        self, path: Path
    ) -> tuple[Optional[bool], tuple[str, ...], Optional[Dependency]]:
        """What the module imports, from its text: True when it imports torch
        (or a package built on it) and no other framework, False when it
        imports another framework, else None; and the dotted names it imports
        (``imports.imported_modules``)."""
        from tensorlint.engine.imports import (
            imported_modules,
            imports_other_framework,
            imports_torch,
        )

        dependency = self.stat(path)
        if dependency is None:
            return None, (), None
        key, size, mtime = dependency
        known = self._imports.get(key)
        if known is None or known[:2] != (size, mtime):
            verdict: Optional[bool] = None
            names: tuple[str, ...] = ()
            if size <= _MAX_BYTES:
                try:
                    text = read_source(path).text
                except SourceReadError:
                    text = ""
                if imports_other_framework(text):
                    verdict = False
                elif imports_torch(text):
                    verdict = True
                else:
                    names = tuple(imported_modules(text))
            known = self._imports[key] = (size, mtime, verdict, names)
        return known[2], known[3], dependency

    def has_top(self, root: str, name: str) -> bool:
        """Is there a package or module ``name`` directly in ``root``?"""
        key = (root, name)
        found = self._tops.get(key)
        if found is None:
            base = os.path.join(root, name)
            found = os.path.isdir(base) or os.path.isfile(base + ".py")
            self._tops[key] = found
        return found

    def import_root(self, folder: str) -> str:
        """The folder above the top package that holds ``folder``."""
        root = self._roots.get(folder)
        if root is None:
            root = folder
            for root in folders_up(folder):
                if not os.path.isfile(os.path.join(root, "__init__.py")):
                    break
            self._roots[folder] = root
        return root

    def modules(self, folder: str, qual: str) -> list[tuple[Path, str]]:
        """(module file, name in it) pairs ``qual``, imported by a module in
        ``folder``, may mean, most likely first."""
        level = len(qual) - len(qual.lstrip("."))
        parts = qual[level:].split(".")
        if not all(parts):
            return []
        if level:
            base = folder
            for _ in range(level - 1):
                base = os.path.dirname(base)
            key: tuple[object, ...] = (base, qual[level:])
            found = self._modules.get(key)
            if found is None:
                found = _module_files(base, parts[:-1], parts[-1])
                if len(parts) >= 3:  # ``Class.method`` imported as ``mod.Class``
                    found += _module_files(base, parts[:-2], ".".join(parts[-2:]))
                self._modules[key] = found
            return found
        above = dict.fromkeys((self.import_root(folder), folder))
        roots = tuple(
            root
            # (a ``src/`` layout: the package sits in ``src/`` of the folder
            # scripts and tests run from)
            for root in dict.fromkeys([*above, *(os.path.join(r, "src") for r in above)])
            if self.has_top(root, parts[0])  # ``typing``, ``torch``: not of this tree
        )
        if not roots:
            if len(parts) < 3:  # (``pkg.mod.name`` at least: a bare ``pkg.name`` says too little)
                return []
            key = ("renamed", folder, qual)
            found = self._modules.get(key)
            if found is None:
                found = self._modules[key] = self._renamed_top(folder, parts)
            return found
        key = (roots, qual)
        found = self._modules.get(key)
        if found is None:
            found = []
            for root in roots:
                for split in range(len(parts) - 1, 0, -1):
                    found += _module_files(root, parts[:split], ".".join(parts[split:]))
            self._modules[key] = found
        return found

    def _renamed_top(self, folder: str, parts: list[str]) -> list[tuple[Path, str]]:
        """``TTS.utils.io`` imported where the tree's top package is a folder
        of another name that holds it (a checkout of the package itself,
        ``TTS-master``, installed under its own name): the modules of the top
        package that the rest of the name finds, if its files import it so
        (never ``torch`` or ``numpy``: a package's own ``nn`` is not theirs)."""
        top = self._top_package(folder)
        name = parts[0]
        if (
            top is None
            or _outside(name)
            or name.lower() not in os.path.basename(top).lower()  # (``TTS-master``)
            or not self._imports_itself(top, name)
        ):
            return []
        found: list[tuple[Path, str]] = []
        for split in range(len(parts) - 1, 1, -1):
            found += _module_files(top, parts[1:split], ".".join(parts[split:]))
        return found

    def _top_package(self, folder: str) -> Optional[str]:
        """The top package (a folder with ``__init__.py``) that holds ``folder``."""
        root = self.import_root(folder)
        if root == folder:
            return None
        relative = os.path.relpath(folder, root).split(os.sep)
        return os.path.join(root, relative[0])

    def _imports_itself(self, top: str, name: str) -> bool:
        """Does the top package's ``__init__.py`` or one module directly in it
        import ``name.`` (its own name, which is not its folder's)?"""
        key = (top, name)
        found = self._self_names.get(key)
        if found is None:
            pattern = re.compile(rf"^\s*(?:from|import)\s+{re.escape(name)}\.", re.MULTILINE)
            found = False
            try:
                entries = sorted(os.listdir(top))
            except OSError:
                entries = []
            for entry in [e for e in entries if e.endswith(".py")][:_SELF_IMPORT_FILES]:
                path = Path(top, entry)
                dependency = self.stat(path)
                if dependency is None or dependency[1] > _MAX_BYTES:
                    continue
                try:  # (``read_source``: a regular file only, never a FIFO)
                    text = read_source(path).text
                except (SourceReadError, MemoryError):
                    continue
                if pattern.search(text):
                    found = True
                    break
            self._self_names[key] = found
        return found

    # -- the project: callers in other files -----------------------------------

    def project_root(self, folder: str) -> str:
        """The folder of the project a file in ``folder`` belongs to: the
        nearest one above that holds a project marker (``pyproject.toml``,
        ``.git``, ...), else the current directory when the file is below it
        (a tree checked where it was unpacked, with no marker: what is
        checked is the project, as for a file's role), else the folder above
        its top package."""
        cwd = _cwd()
        found = self._project_roots.get((folder, cwd))
        if found is None:
            from tensorlint.roles import project_top

            known = project_top(folder) or _below(folder, cwd)
            found = known or self.import_root(folder)
            self._project_roots[(folder, cwd)] = found  # (a ``chdir`` is another key)
            self._found_projects[(folder, cwd)] = known is not None
        return found

    def project_known(self, folder: str) -> bool:
        """Is the project of a file in ``folder`` one that is known: marked
        (``pyproject.toml``, ``.git``, ...) or the current directory's, not
        only the folder above its top package?"""
        self.project_root(folder)
        return self._found_projects[(folder, _cwd())]

    def packaged(self, root: str) -> bool:
        """Does the project folder ``root`` hold packaging metadata (what
        makes it installable: ``PACKAGING``, ``_PACKAGING_SECTION``)?"""
        found = self._packaged.get(root)
        if found is None:
            found = self._packaged[root] = any(
                _holds_packaging(os.path.join(root, name)) for name in PACKAGING
            )
        return found

    def project(self, root: str) -> Optional[_Project]:
        """The project's Python files and the words in each (None: too many)."""
        if root in self._projects:
            return self._projects[root]
        files = project_files(root)
        found = None
        if files is not None:
            words: dict[str, list[int]] = {}
            for index, (path, size, mtime) in enumerate(files):
                known = self._words.get(path)
                if known is None or known[:2] != (size, mtime):
                    text = _caller_text(path, size)
                    known = self._words[path] = (size, mtime, _called_or_imported(text))
                for word in known[2]:
                    words.setdefault(word, []).append(index)
            found = _Project(files, words, _project_hashes(root, files))
        self._projects[root] = found
        return found

    def calling_module(
        self, dependency: Dependency, library: bool, application: bool = False
    ) -> Optional[CallingModule]:
        """The module read as a caller (None: it cannot be read or parsed);
        ``application``: its project is one nobody installs."""
        from tensorlint.analysis.project_calls import CallingModule
        from tensorlint.analysis.pytree import parse

        path = Path(dependency[0])

        def returns(name: str, own: bool) -> Optional[FunctionSummary]:
            """What the project's function ``name`` (imported by the calling
            module, or its own with ``own``) returns: its summary."""
            if own:
                return self.summary(path)[0].functions.get(name)
            found = FileView(self, path).lookup(name)
            return found[0] if found is not None else None

        def read() -> Optional[CallingModule]:
            text = _caller_text(dependency[0], dependency[1])
            try:
                return CallingModule(parse(text), library, returns, application) if text else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None

        return _kept(self._callers, dependency, _KEPT_CALLERS, read, None)


class FileView:
    """The tree as one file sees it; records what it consulted."""

    def __init__(self, tree: Tree, path: Path, origin: Optional[FileView] = None) -> None:
        self.tree = tree
        self.path = path
        self.folder = os.path.dirname(path)
        #: the checked file's view, when this one sees the tree from a module
        #: that file's analysis reached (its places are shown from the file)
        self.origin = origin
        #: (shared with the origin: what it consulted through this view counts)
        self.deps: dict[str, Dependency] = origin.deps if origin is not None else {}
        #: ``torch_via``'s answer, and the text it was for (the prefilter and
        #: the check ask of the same text)
        self._torch_via: Optional[tuple[str, Optional[str]]] = None
        #: ``torch_callers``'s answer, and the text it was for
        self._torch_callers: Optional[tuple[str, Optional[str]]] = None

    def dependencies(self) -> tuple[Dependency, ...]:
        return tuple(sorted(self.deps.values()))

    # -- for the analysis ------------------------------------------------------

    def lookup(
        self, qual: str, hops: int = _REEXPORT_HOPS
    ) -> Optional[tuple[FunctionSummary, str]]:
        """The function ``qual`` names and where it is defined, following
        re-exports (``from .ops import f`` in ``__init__.py``) and star-imports
        (``from .ops import *``) through ``hops`` modules at most."""
        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            found = summary.functions.get(name)
            if found is not None:
                return found, f"{self._display(module)}:{found.line}"
            if hops <= 0:
                return None
            there = FileView(self.tree, module, self.origin or self)
            head, dot, rest = name.partition(".")  # (``VAE.generate``: a method)
            target = summary.imports.get(head)
            if target is not None:
                return None if _outside(target) else there.lookup(target + dot + rest, hops - 1)
            for inner in _through_stars(summary.stars, name):
                hit = there.lookup(inner, hops - 1)
                if hit is not None:
                    return hit
            return None
        return None

    def lookup_class(
        self, qual: str, hops: int = _REEXPORT_HOPS
    ) -> Optional[tuple[ClassSummary, Mapping[str, ClassSummary], str, FileView]]:
        """The class ``qual`` names (following re-exports through modules such
        as ``__init__.py``, ``hops`` at most), the classes of its module, where
        that module is, and the tree as that module sees it."""
        from tensorlint.analysis.classes import LazyClasses

        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            there = FileView(self.tree, module, self.origin or self)
            found = summary.classes.get(name)
            if found is not None:
                return found, summary.classes, there._display(module), there
            if hops <= 0:
                return None
            classes = summary.classes
            reexport = classes.reexport(name) if isinstance(classes, LazyClasses) else None
            if reexport is not None:
                return there.lookup_class(reexport, hops - 1)
            for inner in _through_stars(summary.stars, name):
                # ``from .explain import *`` in ``__init__.py``
                hit = there.lookup_class(inner, hops - 1)
                if hit is not None:
                    return hit
            return None
        return None

    def type_alias(self, qual: str) -> list[str]:
        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            return summary.alias_chain(name)
        return []

    def cpu_constant(self, qual: str) -> bool:
        """Does ``qual`` name a constant of one of the tree's modules that is
        the CPU device (``tests.conftest.DEVICE``; ``ModuleSummary.cpu_names``)?"""
        for module, name in self._candidates(qual):
            summary, dependency = self.tree.summary(module)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            return name in summary.cpu_names
        return False

    def star_names(self, module: str) -> Mapping[str, str]:
        """What ``from <module> import *`` binds to other packages' modules,
        where ``module`` is the tree's (``np`` -> ``numpy``, ``F`` ->
        ``torch.nn.functional``): its absolute top-level imports."""
        for path, _ in self._candidates(f"{module}x" if module.endswith(".") else f"{module}.x"):
            summary, dependency = self.tree.summary(path)
            if dependency is None:
                continue
            self.deps[dependency[0]] = dependency
            return {
                name: full
                for name, full in summary.imports.items()
                if not full.startswith(".") and not name.startswith("_")
            }
        return {}

    def default_cuda(self, modules: Sequence[str]) -> Optional[tuple[str, bool]]:
        """Where one of ``modules`` (what this file imports, by qualified name:
        modules, or names defined in one) makes CUDA the default device of
        new tensors when imported (``box_utils.py:6``), and whether
        ``torch.Tensor`` follows; None when none does."""
        for module in modules:
            for path in self._module_files(self.folder, module, climb=True):
                dependency = self.tree.stat(path)
                if dependency is None:
                    continue
                self.deps[dependency[0]] = dependency
                if self.tree.sets_default(path, dependency):  # (else not parsed)
                    summary = self.tree.summary(path)[0]
                    if summary.default_cuda:
                        where = f"{self._display(path)}:{summary.default_cuda}"
                        return where, summary.default_cuda_legacy
                break
        return None

    def aliases(self, source: str) -> frozenset[str]:
        """The functions of this file (its text is ``source``) that return a
        conversion of an argument: shared with the files that import it."""
        return self.tree.alias_functions(self.path, source)[0]

    def helpers(self, source: str) -> frozenset[str]:
        """Names ``source`` calls that are imported functions of the tree
        returning a conversion of their argument."""
        if "import" not in source:
            return frozenset()
        from tensorlint.engine.imports import IMPORT_AS, from_imports, imported_names

        imported: list[tuple[str, str]] = []  # (local name, qualified name)
        lines = "\n" + source
        for module, listed in from_imports(lines):
            for local, name in imported_names(listed):
                sep = "" if module.endswith(".") else "."
                imported.append((local, f"{module}{sep}{name}"))
        imported.extend((m.group(2), m.group(1)) for m in IMPORT_AS.finditer(lines))
        found: set[str] = set()
        # names followed by ``(`` or ``.``: a scan per name, or, for many
        # names, one scan of the reversed text (whose pattern starts with a
        # literal); either way a name that is not followed so is not read
        words = _followed_words(source) if len(imported) > _MANY_NAMES else None
        for local, qual in imported:
            if words is None:
                followed = f"{local}(" in source or f"{local}." in source
            else:
                followed = local in words
            if not followed:
                continue  # not called here (an annotation, a re-export)
            function, names = self._imported_aliases(qual)
            if function:  # ``from .io import to_tensor``
                if re.search(rf"{re.escape(local)}(?<![\w.]{re.escape(local)})\s*\(", source):
                    found.add(local)
            elif names:  # ``from . import io``: ``io.to_tensor(x)``
                escaped = re.escape(local)  # (the lookbehind after it: a leading literal)
                pattern = rf"{escaped}(?<![\w.]{escaped})\s*\.\s*(\w+)\s*\("
                found.update(f"{local}.{a}" for a in re.findall(pattern, source) if a in names)
        return frozenset(found)

    def _imported_aliases(self, qual: str) -> tuple[bool, frozenset[str]]:
        """Is ``qual`` a function of the tree returning a conversion of its
        argument; else, if ``qual`` is a module of the tree, how it calls its
        functions that do. Answered once per folder and name in a run."""
        key = (self.folder, qual)
        known = self.tree.imported.get(key)
        if known is None:
            deps: list[Dependency] = []
            function, names = False, frozenset[str]()
            for module, name in self._candidates(qual):
                found, dependency = self.tree.alias_functions(module)
                if dependency is not None:
                    deps.append(dependency)
                    function = name in found
                    break
            level = len(qual) - len(qual.lstrip("."))
            if not function and all(qual[level:].split(".")):
                for module, _ in self._candidates(f"{qual}.x"):
                    found, dependency = self.tree.alias_functions(module)
                    if dependency is not None:
                        deps.append(dependency)
                        names = frozenset(name.rsplit(".", 1)[-1] for name in found)
                        break
            known = self.tree.imported[key] = (function, names, tuple(deps))
        for dependency in known[2]:
            self.deps[dependency[0]] = dependency
        return known[0], known[1]

    def torch_via(self, source: str) -> Optional[str]:
        """The module of the checked tree through which torch reaches this file
        (its text is ``source``), which does not import torch itself: a module
        it imports that imports torch, or a package built on torch only, and no
        other framework, directly or through the modules of the tree that module
        imports (``_GRAPH_DEPTH`` deep). None when there is none, and when the
        file imports another framework itself."""
        known = self._torch_via
        if known is not None and known[0] is source:
            return known[1]
        found = self._walk_to_torch(source)
        self._torch_via = (source, found)
        return found

    def torch_callers(
        self, source: str, triggers: Optional[re.Pattern[str]] = None
    ) -> Optional[str]:
        """Where the project's other files pass one of this file's public
        functions a value they moved to a device or a module's output (this
        file, which does not import torch, receives tensors from there:
        ``model.py:354``), or None. Asked only when ``torch_via`` finds nothing;
        with ``triggers``, only of the functions whose text holds one (a
        conversion, a NumPy or library call)."""
        known = self._torch_callers
        if known is not None and known[0] is source:
            return known[1]
        found = None
        from tensorlint.engine.imports import imports_other_framework

        if not imports_other_framework(source):
            for name, method in _called_functions(source, triggers)[:_CALLED_FUNCTIONS]:
                calls = self.external_callers(name, method, torch_only=True)
                found = next((w for c, w in calls or () if c.moved or c.grad_output), None)
                if found is not None:
                    break
        self._torch_callers = (source, found)
        return found

    def _walk_to_torch(self, source: str) -> Optional[str]:
        from tensorlint.engine.imports import imported_modules, imports_other_framework

        if "import" not in source or imports_other_framework(source):
            return None
        frontier = [(self.folder, qual) for qual in imported_modules(source)]
        seen: set[Path] = set()
        for depth in range(_GRAPH_DEPTH):
            following: list[tuple[str, str]] = []
            for folder, qual in frontier:
                for module in self._module_files(folder, qual, climb=depth == 0):
                    if module in seen or module == self.path:
                        continue
                    seen.add(module)
                    if len(seen) > _GRAPH_MODULES:
                        return None  # a budget: the answer without the graph
                    verdict, names, dependency = self.tree.import_facts(module)
                    if dependency is None:
                        continue
                    self.deps[dependency[0]] = dependency
                    if verdict:
                        return self._display(module)
                    if verdict is None:
                        following += [(os.path.dirname(module), name) for name in names]
            frontier = following
        return None

    def _module_files(self, folder: str, qual: str, climb: bool = False) -> list[Path]:
        """The files ``qual`` imported from ``folder`` may read: the module
        that defines the name, and the module the name itself is. ``climb``:
        an absolute name found nowhere Python would look may be the project's
        from a folder above (``_CLIMB`` at most): scripts in ``tools/`` or
        ``examples/`` put the project on ``sys.path`` themselves."""
        as_module = f"{qual}x" if qual.endswith(".") else f"{qual}.x"
        top = self.tree.project_root(self.folder) if climb else None
        for base in _search_folders(folder, qual, climb, top):
            found = []
            for name in (qual, as_module):
                candidates = self.tree.modules(base, name)
                if candidates:
                    found.append(candidates[0][0])
            if found:
                return found
        return []

    def in_application(self) -> bool:
        """Is the file's project an application: a known project
        (``Tree.project_known``) with no ``pyproject.toml``, ``setup.py`` or
        ``setup.cfg`` in its folder? (A file with no project around it, not
        below the current directory, may be anyone's: not known.)"""
        tree = self.tree
        root = tree.project_root(self.folder)
        return tree.project_known(self.folder) and not tree.packaged(root)

    def external_callers(
        self,
        name: str,
        method: Optional[str] = None,
        torch_only: bool = False,
        depth: int = _UPSTREAM_DEPTH,
        subclasses: int = _SUBCLASS_DEPTH,
        *,
        by_class: bool = False,
    ) -> Optional[list[tuple[Call, str]]]:
        """The calls of the module function ``name`` (defined in this file) in
        the project's other files, each with its place (``train.py:40``),
        and the mentions that are not calls; None when they cannot be known
        (too large a project, too common a name). An empty list: no other
        file names it. With ``method``: the calls of that method of the class
        ``name`` on the instances other files make. A call that passes on its
        calling function's parameters takes what that function's own callers
        in other files pass them, ``depth`` calls up at most."""
        from tensorlint.roles import is_test_suite

        root = self.tree.project_root(self.folder)
        project = self.tree.project(root)
        if project is None:
            return None
        key = project_dependency(root, str(self.path))
        self.deps[key] = (key, *_fingerprint(project.hashes, str(self.path)))
        holders = project.words.get(name, [])
        if torch_only:  # (only files that name torch can move a tensor)
            naming = set(project.words.get("torch", ()))
            holders = [i for i in holders if i in naming]
        if method is not None and method not in ("forward", "__call__", "__init__"):
            having = set(project.words.get(method, ()))
            holders = [i for i in holders if i in having]
        needles = [
            set(project.words.get(word, ()))
            for word in _module_words(self.path, self.tree.import_root(self.folder))
        ]
        me = str(self.path)
        candidates = [
            project.files[i]
            for i in holders
            # (a method's calls on instances the file itself makes count too)
            if (project.files[i][0] != me or method is not None)
            and (project.files[i][0] == me or any(i in needle for needle in needles))
        ]
        # tests are read only when other files call it too: alone they settle
        # nothing (see ``analysis/sites.py``), and a library's tests are many
        base = Path(root)
        others: list[Dependency] = []
        tests: list[Dependency] = []
        for dependency in candidates:
            (tests if is_test_suite(dependency[0], base) else others).append(dependency)
        if len(others) > _CALLER_FILES:
            return None
        found = self._calls_in(
            others, name, method, root, test=False, depth=depth, by_class=by_class
        )
        if method is not None and method not in ("__init__", "forward", "__call__") and subclasses:
            # the calls on instances of its subclasses that do not override it
            for path, subclass in self._subclasses(name, method, project.words, project.files):
                there = FileView(self.tree, path, self.origin or self)
                inherited = there.external_callers(
                    subclass, method, torch_only, depth, subclasses - 1, by_class=by_class
                )
                if inherited is None:
                    return None
                found += [(call, place) for call, place in inherited if not call.test]
        if found:
            found += self._calls_in(
                tests[:_CALLER_FILES], name, method, root, test=True, by_class=by_class
            )
        return found

    def _subclasses(
        self,
        name: str,
        method: str,
        words: Mapping[str, list[int]],
        files: Sequence[Dependency],
    ) -> list[tuple[Path, str]]:
        """The top-level classes of the project derived from the class
        ``name`` of this file (its bases resolved as their modules import
        them) that do not define ``method`` themselves, with their files
        (worked out once a run)."""
        key = (str(self.path), name, method)
        known = self.tree.subclasses.get(key)
        if known is not None:
            return known
        found: list[tuple[Path, str]] = self.tree.subclasses.setdefault(key, [])
        pattern = re.compile(rf"^class\s+(\w+)\s*\([^)]*\b{re.escape(name)}\b", re.MULTILINE)
        defines = re.compile(rf"^[ \t]+def\s+{re.escape(method)}\s*\(", re.MULTILINE)
        own = self.tree.stat(self.path)
        candidates = [files[i] for i in words.get(name, [])[:_CALLER_FILES]]
        if own is not None and own[0] not in {c[0] for c in candidates}:
            candidates.append(own)  # (a subclass in the same module)
        for dependency in candidates:
            path = Path(dependency[0])
            if path.suffix != ".py":
                continue
            text = _caller_text(str(path), dependency[1])
            if not pattern.search(text):
                continue
            summary, read = self.tree.summary(path)
            if read is None:
                continue
            self.deps[read[0]] = read
            there = FileView(self.tree, path, self.origin or self)
            for cls in summary.classes.values():
                for base in cls.bases:
                    if base.rsplit(".", 1)[-1] != name or (cls.name == name and path == self.path):
                        continue
                    qual = base if "." in base or path != self.path else name
                    hit = there.lookup_class(qual) if path != self.path else None
                    same = path == self.path or (
                        hit is not None and hit[3].path == self.path and hit[0].name == name
                    )
                    if same and not _defines_in(text, cls.line, defines):
                        found.append((path, cls.name))
        return found

    def _calls_in(
        self,
        candidates: list[Dependency],
        name: str,
        method: Optional[str],
        root: str,
        test: bool,
        depth: int = 0,
        by_class: bool = False,
    ) -> list[tuple[Call, str]]:
        from tensorlint.roles import is_library

        found: list[tuple[Call, str]] = []
        application = self.in_application()
        for dependency in candidates:
            path = Path(dependency[0])
            module = self.tree.calling_module(dependency, is_library(path, Path(root)), application)
            if module is None:
                continue
            there = FileView(self.tree, path, self.origin or self)

            def refers(qual: str, there: FileView = there) -> bool:
                return there._names(qual, self.path, name)

            calls = module.calls_of(
                name, refers, method, local=path == self.path, by_class=by_class
            )
            # a notebook's calls are named by cell (its cells' first lines, read once)
            starts = _notebook_starts(dependency) if calls and path.suffix == ".ipynb" else None
            for call in calls:
                place = f"{self._display(path)}:{_place(call.line, starts)}"
                if depth > 0 and call.param_reads and not (call.moved and call.grad_output):
                    call = there._upstream(call, depth - 1)
                found.append((call._replace(test=test), place))
        return found

    def _own_calls(self, name: str, depth: int) -> list[tuple[Call, str]]:
        """The calls of this file's module function ``name`` in this file,
        by other functions (their own callers followed ``depth`` calls up)."""
        own = self.tree.stat(self.path)
        if own is None:
            return []
        root = self.tree.project_root(self.folder)
        found = self._calls_in([own], name, None, root, test=False, depth=depth)
        return [(c, p) for c, p in found if not c.value and c.caller_name != name]

    def _upstream(self, call: Call, depth: int) -> Call:
        """``call`` (made in this file, by a function that passes on its own
        parameters), with what that function's callers in other files pass
        it: a value they moved, or a module's output with grad enabled,
        given to a parameter the call passes on, is passed by the call too."""
        # (a method's calls on ``self`` by its class's other methods are not
        # read here: its callers are known in full only for a module function)
        complete = False
        if call.caller_owner:
            calls = self.external_callers(call.caller_owner, call.caller_name, depth=depth)
        else:
            calls = self.external_callers(call.caller_name, depth=depth)
            if calls is not None and depth > 0:
                # and its calls in its own file, by functions that pass on
                # their own callers' values (``train_epoch`` -> ``train_batch``)
                calls = calls + self._own_calls(call.caller_name, depth - 1)
                complete = True
        if not calls or all(outer.test for outer, _ in calls):
            return call
        if (
            complete
            and call.passes_parameters
            and all(
                not (outer.passes_parameters or outer.value) for outer, _ in calls if not outer.test
            )
        ):
            # every caller of the calling function is seen and none passes on
            # values of callers further out: they settle the guess
            call = call._replace(passes_parameters=False, passes_parameters_with_grad=False)
        moved: set[str] = set()
        grad: set[str] = set()
        moved_from = grad_from = ""
        for outer, place in calls:
            if outer.test or outer.value:
                continue
            if outer.moved:
                moved |= _bound_keys(outer.moved_keys, call)
                moved_from = moved_from or f"`{outer.caller}` at {place}"
            if outer.grad_output and not outer.no_grad:
                grad |= _bound_keys(outer.grad_keys, call)
                grad_from = grad_from or f"`{outer.caller}` at {place}"
        moved_keys = {k for k, device, _ in call.param_reads if device & moved}
        grad_keys = {k for k, _, kept in call.param_reads if not call.no_grad and kept & grad}
        if moved_keys and not call.moved:
            call = call._replace(
                moved=True,
                moved_keys=frozenset(moved_keys),
                moved_from=moved_from,
            )
        if grad_keys and not call.grad_output:
            call = call._replace(
                grad_output=True,
                grad_keys=frozenset(grad_keys),
                grad_from=grad_from,
            )
        return call

    def _names(self, qual: str, target: Path, name: str, hops: int = _REEXPORT_HOPS) -> bool:
        """Does ``qual``, imported in this module, name the function ``name``
        of the module ``target`` (directly, or re-exported through modules
        such as ``__init__.py``, ``hops`` at most)?"""
        from tensorlint.analysis.classes import LazyClasses

        candidates = self._candidates(qual)
        for module, inner in candidates:
            if self.tree.stat(module) is None:
                continue
            if module == target:
                return inner == name
            if hops <= 0:
                return False
            summary, _ = self.tree.summary(module)
            classes = summary.classes
            reexport = classes.reexport(inner) if isinstance(classes, LazyClasses) else None
            there = FileView(self.tree, module, self.origin or self)
            if reexport is not None:
                return there._names(reexport, target, name, hops - 1)
            # ``from .explain import *`` in ``__init__.py``
            return any(
                there._names(star, target, name, hops - 1)
                for star in _through_stars(summary.stars, inner)
            )
        return False

    # -- finding modules -------------------------------------------------------

    def _candidates(self, qual: str) -> list[tuple[Path, str]]:
        """Where ``qual`` may be defined: as Python would look from this
        file's folder, else (an absolute name) from a folder above, ``_CLIMB``
        at most: scripts in ``core/`` or ``examples/`` put the project on
        ``sys.path`` themselves (``from utils import *``); else from the
        project's top, however deep the file is (``examples/a/b/run.py``
        importing the project's package, installed where it runs)."""
        top = self.tree.project_root(self.folder)
        for base in _search_folders(self.folder, qual, True, top):
            found = self.tree.modules(base, qual)
            if found:
                return found
        return []

    def _display(self, module: Path) -> str:
        seen_from = (self.origin or self).path.parent
        try:
            return os.path.relpath(module, seen_from).replace(os.sep, "/")
        except ValueError:  # another drive
            return str(module)


class _Project(NamedTuple):
    files: list[Dependency]
    #: word -> the indices of the files whose text holds it
    words: dict[str, list[int]]
    hashes: dict[str, int]  #: per file, the digest ``_fingerprint`` combines


#: a name followed by ``(`` (a call, a ``def``, a class made), read in the
#: reversed text: the scan looks for the literal ``(`` (see docs/performance.md)
_CALLED_REVERSED = re.compile(r"\(\s*(\w+)")
#: the names an import statement brings, and the modules it reads from
_IMPORTED = re.compile(r"import[ \t]+([^\n#;]+)")
_IMPORTED_FROM = re.compile(r"from[ \t]+([\w.]+)[ \t]+import")
_NAME = re.compile(r"\w+")


def _defines_in(text: str, line: int, defines: re.Pattern[str]) -> bool:
    """Does the class that starts at ``line`` of ``text`` define the method
    ``defines`` matches (in its indented body)?"""
    lines = text.splitlines()
    body: list[str] = []
    for row in lines[line:]:
        if row.strip() and not row[:1].isspace() and not row.lstrip().startswith("#"):
            break  # (the next top-level statement)
        body.append(row)
    return defines.search("\n".join(body)) is not None


def _called_or_imported(text: str) -> frozenset[str]:
    """The names a module calls or imports (and the parts of the modules it
    imports from): what can make it a caller of a function of the project.
    (A module that only passes a function on as a value is not found.)"""
    words = {word[::-1] for word in _CALLED_REVERSED.findall(text[::-1])}
    if "import" in text:
        for names in _IMPORTED.findall(text):
            words.update(_NAME.findall(names))
        for source in _IMPORTED_FROM.findall(text):
            words.update(source.split("."))
    return frozenset(sys.intern(word) for word in words)


def _caller_text(path: str, size: int) -> str:
    """The code of a project file read as a caller: a module's text, or a
    notebook's code cells joined (``_notebook_code``); "" when it cannot be read."""
    notebook = path.endswith(".ipynb")
    if size > (_MAX_NOTEBOOK_BYTES if notebook else _MAX_BYTES):
        return ""
    try:
        text = read_source(Path(path)).text
    except (SourceReadError, MemoryError):
        return ""
    return _notebook_code(text)[0] if notebook else text


def _notebook_code(text: str) -> tuple[str, list[int]]:
    """A notebook's code cells joined, IPython's own lines (``!ls``,
    ``%matplotlib``, ``x?``) made ``pass``, and the first line of each code
    cell; ("", []) for what is not a notebook, or code past ``_MAX_BYTES``.
    (Cheaper than ``notebook.load``, which keeps what a fix needs.)"""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "", []
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return "", []
    lines: list[str] = []
    starts: list[int] = []
    size = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        starts.append(len(lines) + 1)
        for line in source.splitlines():
            stripped = line.lstrip()
            if stripped.startswith(("!", "%", "?")) or stripped.endswith("?"):
                line = line[: len(line) - len(stripped)] + "pass"
            lines.append(line)
            size += len(line) + 1
        if size > _MAX_BYTES:
            return "", []
    return "\n".join(lines) + "\n", starts


def _notebook_starts(dependency: Dependency) -> list[int]:
    """The first line of each code cell in a notebook's joined code."""
    try:
        return _notebook_code(read_source(Path(dependency[0])).text)[1]
    except (SourceReadError, MemoryError):
        return []


def _place(line: int, starts: Optional[list[int]]) -> str:
    """``12``, or ``cell 3:2`` for a line of a notebook's joined code."""
    cell = bisect.bisect_right(starts, line) if starts else 0
    return f"cell {cell}:{line - starts[cell - 1] + 1}" if starts and cell else str(line)


def project_files(root: str) -> Optional[list[Dependency]]:
    """The Python files and notebooks under ``root`` (the default excludes and
    hidden folders skipped), sorted; None when there are more than ``_PROJECT_FILES``."""
    from tensorlint.engine.discovery import DEFAULT_EXCLUDES

    skipped = frozenset(DEFAULT_EXCLUDES)
    found: list[Dependency] = []
    for folder, folders, names in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in skipped and not f.startswith("."))
        for file in sorted(names):
            if file.endswith((".py", ".ipynb")):
                dependency = _stat(os.path.join(folder, file))
                if dependency is not None:
                    found.append(dependency)
                    if len(found) > _PROJECT_FILES:
                        return None
    return found


def _holds_packaging(path: str) -> bool:
    """Is the file at ``path`` a ``setup.py``, or a ``pyproject.toml`` or
    ``setup.cfg`` with a section of packaging metadata?"""
    if not os.path.isfile(path):
        return False
    section = _PACKAGING_SECTION.get(os.path.basename(path))
    if section is None:
        return True  # ``setup.py``
    try:
        with open(path, "rb") as stream:
            head = stream.read(_PACKAGING_BYTES)
    except OSError:
        return True  # (unreadable: taken as installable, the cautious answer)
    return section.search(head.decode("utf-8", "replace")) is not None


def _project_hashes(root: str, files: list[Dependency]) -> dict[str, int]:
    """``_file_hashes`` of the project's files and its packaging files (a
    ``pyproject.toml`` edited into packaging metadata changes what an
    application's functions are told)."""
    packaging = [_stat(os.path.join(root, name)) for name in PACKAGING]
    return _file_hashes([*files, *(p for p in packaging if p is not None)])


def _file_hashes(files: list[Dependency]) -> dict[str, int]:
    """Per file, a 56-bit digest of its path, size and modification time."""
    import hashlib

    found = {}
    for path, size, mtime in files:
        text = f"{path}\0{size}\0{mtime}".encode("utf-8", "surrogateescape")
        found[path] = int.from_bytes(hashlib.blake2b(text, digest_size=7).digest(), "big")
    return found


def _fingerprint(hashes: Mapping[str, int], but: str) -> tuple[int, int]:
    """(how many files, the XOR of their digests), the file ``but`` left out:
    a file's own changes are its result's business, not its callers'."""
    digest = 0
    for path, value in hashes.items():
        if path != but:
            digest ^= value
    return len(hashes) - (but in hashes), digest


def project_dependency(root: str, path: str) -> str:
    """The dependency that stands for the files of the project at ``root``
    as the file at ``path`` sees them (all but itself)."""
    return f"{PROJECT_DEPENDENCY}{root}\0{path}"


def project_fingerprint(
    dependency: str, memo: dict[str, Optional[dict[str, int]]]
) -> Optional[tuple[int, int]]:
    """What a ``project_dependency`` stands for now (None: the project is too
    large to say); ``memo`` keeps each project's files for one run."""
    root, _, path = dependency[len(PROJECT_DEPENDENCY) :].partition("\0")
    if root not in memo:
        files = project_files(root)
        memo[root] = None if files is None else _project_hashes(root, files)
    hashes = memo[root]
    return None if hashes is None else _fingerprint(hashes, path)


def _module_words(path: Path, root: str) -> list[str]:
    """Words an import of the module at ``path`` must use: its name, or one of
    its packages' (an ``__init__.py`` re-exports)."""
    words = [] if path.name == "__init__.py" else [path.stem]
    try:
        packages = path.parent.relative_to(root).parts
    except ValueError:  # (not below ``root``)
        packages = ()
    return words + list(packages) or [path.stem]


_SHARED: Optional[Tree] = None


def tree_view(path: Optional[Path]) -> Optional[FileView]:
    """The checked tree as the file at ``path`` sees it, from one ``Tree`` kept
    for the process (front ends that check one file at a time: the flake8
    plugin, the LibCST codemod); None for text that is not a file."""
    global _SHARED
    if path is None or not path.is_file():
        return None
    if _SHARED is None:
        _SHARED = Tree()
    return _SHARED.view(path)


_T = TypeVar("_T")


def _kept(
    cache: dict[str, tuple[int, int, _T]],
    dependency: Dependency,
    limit: int,
    read: Callable[[], _T],
    too_big: _T,
) -> _T:
    """What ``read`` makes of a module, kept in ``cache`` by size and
    modification time (``limit`` entries, the oldest dropped first);
    ``too_big`` for a module over ``_MAX_BYTES``, which is not read."""
    key, size, mtime = dependency
    known = cache.get(key)
    if known is not None and known[:2] == (size, mtime):
        return known[2]
    found = read() if size <= _MAX_BYTES else too_big
    cache[key] = (size, mtime, found)
    if len(cache) > limit:
        del cache[next(iter(cache))]
    return found


def _search_folders(
    folder: str, qual: str, climb: bool, top: Optional[str] = None
) -> Iterator[str]:
    """The folders an import of ``qual`` in ``folder`` is looked for from:
    ``folder``, then (``climb``, an absolute name) up to ``_CLIMB`` above it,
    then ``top`` (the project's folder) when it is further up."""
    yield folder
    if not climb or qual.startswith("."):
        return
    for _ in range(_CLIMB):
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent
        yield folder
    if top is not None and top != folder and _is_below(folder, top):
        yield top  # (the climb stopped inside the project, below its folder)


def _is_below(folder: str, top: str) -> bool:
    """Is ``folder`` ``top`` or inside it?"""
    top = os.path.abspath(top)
    try:
        return os.path.commonpath((os.path.abspath(folder), top)) == top
    except ValueError:  # (another drive)
        return False


#: Where a top-level block starts (the end of the ``def`` before it).
_TOP_LEVEL = re.compile(r"^(?:def|async[ \t]+def|class)\b|^@", re.MULTILINE)


def _called_functions(
    source: str, triggers: Optional[re.Pattern[str]]
) -> list[tuple[str, Optional[str]]]:
    """The module-level public functions of ``source``, and the constructors
    (``(Cls, "__init__")``) of its public classes that define one (whose text
    holds one of ``triggers``, when given), in order."""
    starts = [m.start() for m in _TOP_LEVEL.finditer(source)] + [len(source)]
    found: list[tuple[int, str, Optional[str]]] = []
    for match in _PUBLIC_DEF.finditer(source):
        end = starts[bisect.bisect_right(starts, match.start())]
        if triggers is None or triggers.search(source, match.end(), end):
            found.append((match.start(), match.group(1), None))
    for match in _PUBLIC_CLASS.finditer(source):
        end = starts[bisect.bisect_right(starts, match.start())]
        init = _INIT.search(source, match.end(), end)
        if init is not None and (triggers is None or triggers.search(source, init.end(), end)):
            found.append((match.start(), match.group(1), "__init__"))
    return [(name, method) for _, name, method in sorted(found)]


def _bound_keys(keys: Optional[frozenset[str]], call: Call) -> set[str]:
    """The parameters of ``call``'s calling function that arguments named by
    ``keys`` bind to (``"0"``: its first positional; None: any of them)."""
    params = {p for _, device, grad in call.param_reads for p in (*device, *grad)}
    if keys is None:
        return params
    found = set()
    for key in keys:
        if key.isdigit():
            index = int(key)
            if index < len(call.caller_params):
                found.add(call.caller_params[index])
        else:
            found.add(key)
    return found & params


def _through_stars(stars: Sequence[str], name: str) -> list[str]:
    """What ``name`` of a module may be, bound by its star-imports of the
    project's modules (the last one binding wins: tried first)."""
    return [
        star + name if star.endswith(".") else f"{star}.{name}"
        for star in reversed(stars)
        if not _outside(star)
    ]


def _outside(qual: str) -> bool:
    """Is ``qual`` torch's or NumPy's, never a module of the checked tree?"""
    return qual.split(".", 1)[0] in ("torch", "numpy")


def _stat(path: str) -> Optional[Dependency]:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return path, stat.st_size, stat.st_mtime_ns


def _module_files(base: str, parts: list[str], name: str) -> list[tuple[Path, str]]:
    folder = os.path.join(base, *parts)
    found: list[tuple[Path, str]] = []
    if parts and os.path.isfile(folder + ".py"):
        found.append((Path(folder + ".py"), name))
    init = os.path.join(folder, "__init__.py")
    if os.path.isfile(init):
        found.append((Path(init), name))
    return found


#: a word followed by ``(`` or ``.``, read in the reversed text
_FOLLOWED_REVERSED = re.compile(r"[(.]\s*(\w+)")
#: more imported names than this: one scan of the text beats a scan per name
_MANY_NAMES = 60


def _followed_words(source: str) -> set[str]:
    """The words of ``source`` followed by ``(`` or ``.`` (spaces between)."""
    return {word[::-1] for word in _FOLLOWED_REVERSED.findall(source[::-1])}


def _cwd() -> str:
    """The current directory ("" when it was removed since)."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def _below(folder: str, cwd: str) -> Optional[str]:
    """``cwd``, when the absolute ``folder`` is in it."""
    if not cwd:
        return None
    absolute = os.path.abspath(folder)
    return cwd if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep) else None
