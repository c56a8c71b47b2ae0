"""What part of a project a file is: library code, or tests, examples, scripts, notebooks.

Scripts (a file outside any package, with a ``__main__`` guard) are not
library code either. Library code has callers tensorlint cannot see: a tensor that enters one of
its public functions may come from anywhere, a GPU included. Tests, examples,
scripts and notebooks are run as they are written: what they convert is made
in the file itself, so only what the file shows counts as evidence.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Optional, Union

#: Folders whose files are not library code.
NON_LIBRARY_DIRS = frozenset(
    {
        "test", "tests", "testing", "example", "examples", "tutorial", "tutorials", "demo",
        "demos", "script", "scripts", "notebook", "notebooks", "doc", "docs", "benchmark",
        "benchmarks", "bench", "tools", "recipes", "egs",
    }
)  # fmt: skip
_TEST_FILE = re.compile(r"^(?:test_.*|.*_test|conftest|setup|noxfile)\.py$")

#: Words that name an accelerator, or a device chosen at run time.
ACCELERATOR = re.compile(
    # (``accelerator="cpu"``, Lightning's ``Trainer`` keyword, names the CPU)
    r"\bcuda\b|\.cuda\(|\bmps\b|\bxpu\b|\bhpu\b|\bnpu\b|\btpu\b"
    r"|\baccelerator\b(?!\s*=\s*[\"']cpu[\"'])|\bgpus?\b"
    # a switch named for one: ``use_cuda``, ``cuda_id``, ``n_gpu``, ``UseGPU``
    r"|(?<=_)(?:cuda|gpus?)(?![a-z0-9])|\b(?:cuda|gpus?)(?=_)|(?<=[a-z])(?-i:GPUs?|Gpus?|Cuda)(?![a-z])",
    re.IGNORECASE,
)


def is_library(path: Union[str, PurePath, None], root: Optional[Path] = None) -> bool:
    """Is the file at ``path`` library code? (Unknown paths count as library.)

    Only the folders below the project (``root``, else the current
    directory) count: a checkout under ``~/tools/`` is not a tools folder.
    """
    role = path_role(path, root)
    if role is not None:
        return role
    assert path is not None
    from tensorlint.fix.io import read_regular

    try:
        text = read_regular(path).decode("utf-8", errors="replace")
    except OSError:
        return True
    return not is_script_text(text)


#: Folders whose files are tests.
TEST_DIRS = frozenset({"test", "tests", "testing"})


def is_test(path: Union[str, PurePath], root: Optional[Path] = None) -> bool:
    """Is the file at ``path`` a test (``test_*.py``, ``conftest.py``, or in
    a ``tests`` folder of the project)? A test calls a library's functions
    with the values it needs; the library's users may pass others."""
    name = os.path.basename(os.fspath(path))
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return True
    parts = _project_parts(Path(os.fspath(path)), root)
    return any(part.lower() in TEST_DIRS for part in parts)


def is_test_suite(path: Union[str, PurePath], root: Optional[Path] = None) -> bool:
    """``is_test``, with the text read where only the file's name says so: a
    ``test_*.py`` outside a tests folder that imports neither pytest nor
    unittest and defines no test (``experiments/scripts/test_tracker.py``, a
    script that runs a tracker on a test split) is a script, not a test."""
    if not is_test(path, root):
        return False
    name = os.path.basename(os.fspath(path))
    parts = _project_parts(Path(os.fspath(path)), root)
    if name == "conftest.py" or any(part.lower() in TEST_DIRS for part in parts):
        return True
    from tensorlint.fix.io import read_regular

    try:
        text = read_regular(path).decode("utf-8", errors="replace")
    except OSError:
        return True
    return is_test_text(text)


def path_role(path: Union[str, PurePath, None], root: Optional[Path] = None) -> Optional[bool]:
    """``is_library`` from the path alone: None for a ``.py`` file outside any
    package, where the text decides (see ``is_script_text``). The engine asks
    this before it reads a file, so a cache hit costs no read."""
    if path is None:
        return True
    text = os.fspath(path)
    name = os.path.basename(text)
    suffix = os.path.splitext(name)[1]
    if suffix == ".ipynb" or _TEST_FILE.match(name):
        return False
    folder = _folder_role(os.path.dirname(text) or ".", root, os.getcwd())
    if folder is not None:
        return folder
    return True if suffix != ".py" else None


@functools.lru_cache(maxsize=4096)
def _folder_role(folder: str, root: Optional[Path], cwd: str) -> Optional[bool]:
    """The role the folder gives its files: False in a test/example/script
    folder of the project, True in a package, None where the text decides.
    (``cwd`` is part of the key: relative folders mean another place after a
    ``chdir``.)"""
    if any(part.lower() in NON_LIBRARY_DIRS for part in _project_parts(Path(folder, "_"), root)):
        return False
    return True if _in_package(Path(folder).absolute()) else None


#: ``if __name__ == "__main__":`` at the start of a line.
_MAIN_GUARD = re.compile(r"\nif\s+__name__\s*==\s*['\"]__main__['\"]\s*:")


def is_script_text(text: str) -> bool:
    """A file outside any package with a ``__main__`` guard is a program
    (``train.py`` next to a README): its functions have no outside callers."""
    # (the pattern starts with the newline before the line: a leading literal
    # is scanned far faster than ``^`` is tried at every position)
    return _MAIN_GUARD.search("\n" + text.replace("\r", "\n")) is not None


#: A line that makes a file a test suite: a test framework imported, a
#: ``test_`` function or a ``Test`` class defined (at the start of a line).
_TEST_TEXT = re.compile(
    r"^[ \t]*(?:import[ \t]+(?:pytest|unittest)\b|from[ \t]+(?:pytest|unittest)\b"
    r"|(?:async[ \t]+)?def[ \t]+test_|class[ \t]+Test)",
    re.MULTILINE,
)


#: a pytest or unittest import
_TEST_FRAMEWORK = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:pytest|unittest)\b", re.MULTILINE)
#: a test it defines (a method of any class of a unittest suite)
_TEST_DEFINED = re.compile(
    r"^[ \t]*(?:(?:async[ \t]+)?def[ \t]+test_|class[ \t]+Test)", re.MULTILINE
)
#: a test pytest collects without an import: a top-level ``def test_...``
#: (not a script's ``def test(model, loader)``, nor its ``class TestDataset``)
_TEST_COLLECTED = re.compile(r"^(?:async[ \t]+)?def[ \t]+test_", re.MULTILINE)


def is_framework_suite(text: str) -> bool:
    """Is the text a suite pytest or unittest runs: a top-level ``def
    test_...``, or a pytest or unittest import and a test? Stricter than
    ``is_test_text``: a trainer's method ``def test_epoch(self, ...)`` makes
    no suite, nor a script's ``def test(model, loader)``."""
    if _TEST_COLLECTED.search(text) is not None:
        return True
    return _TEST_FRAMEWORK.search(text) is not None and _TEST_DEFINED.search(text) is not None


def is_test_text(text: str) -> bool:
    """Does the file's text make it a test suite (``import pytest``,
    ``def test_...``, ``class Test...``)? A suite that passes has run what
    it converts: a deterministic crash there has not been committed."""
    return _TEST_TEXT.search(text) is not None


def _in_package(directory: Path) -> bool:  # (asked once per folder: _folder_role)
    return (directory / "__init__.py").is_file()


#: Files that mark a project's top folder (a checkout, an unpacked sdist).
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _project_parts(path: Path, root: Optional[Path]) -> tuple[str, ...]:
    """The folders between the file's project and the file: below ``root``
    (the configuration's folder), else below the checkout's top (the folder
    that holds ``.git``, else the outermost that holds a project marker:
    ``_checkout_top``), whatever the current directory (a checkout has the
    same roles checked from inside it, from above it or from elsewhere), else
    below the current directory (an extracted tree with no marker, checked
    from its top), else below the folder that holds the file's top package."""
    absolute = path.absolute()
    if root is not None:
        try:
            return absolute.parent.relative_to(root.absolute()).parts
        except ValueError:
            pass
    top = _checkout_top(str(absolute.parent))
    if top is not None:
        return absolute.parent.relative_to(top).parts
    try:
        return absolute.parent.relative_to(Path.cwd().absolute()).parts
    except ValueError:
        pass
    top_package: Optional[Path] = None
    for folder in absolute.parents:
        if (folder / "__init__.py").is_file():
            top_package = folder
    if top_package is not None:  # no marker (an unpacked source tree): below
        # the folder that holds the file's top package, as Python imports it
        return absolute.parent.relative_to(top_package.parent).parts
    return ()


@functools.lru_cache(maxsize=4096)
def _checkout_top(folder: str) -> Optional[str]:
    """The top of the checkout the absolute ``folder`` is in, for a file's
    role: the folder that holds ``.git``, else the outermost one above that
    holds a project marker (a subfolder's own ``setup.py``, which builds an
    extension in ``egs/.../monotonic_align/``, does not make a new project
    of it); None without any."""
    found: Optional[str] = None
    for current in folders_up(folder):
        if os.path.exists(os.path.join(current, ".git")):
            return current
        if _has_marker(current):
            found = current
    return found


def project_top(folder: str) -> Optional[str]:
    """The nearest folder at or above ``folder`` that holds a project marker
    (``PROJECT_MARKERS``), if any, as an absolute path: the project whose
    files are read as callers (``engine/tree.py``; a file's role is read
    below the checkout's top instead, ``_checkout_top``)."""
    return _project_top(os.path.abspath(folder))


@functools.lru_cache(maxsize=4096)
def _project_top(folder: str) -> Optional[str]:
    return next((current for current in folders_up(folder) if _has_marker(current)), None)


def _has_marker(folder: str) -> bool:
    return any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS)


def folders_up(folder: str) -> Iterator[str]:
    """``folder`` and every folder above it, up to the file system's root."""
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


#: Where an ``ACCELERATOR`` match can start: a pattern that starts with a
#: character set is scanned far faster by ``re`` than the case-insensitive
#: alternation of ``\b`` branches (``ſ`` folds to ``s`` there).
_ACCELERATOR_START = re.compile(
    r"[cmxhntagCMXHNTAG](?:[uU][dD][aA]|[pP][sSuUſ]|[cC][cC][eE][lL][eE][rR][aA][tT][oO][rR])"
)


def mentions_accelerator(source: str) -> bool:
    """Does ``source`` name an accelerator (``ACCELERATOR.search``, faster)?"""
    return any(ACCELERATOR.match(source, m.start()) for m in _ACCELERATOR_START.finditer(source))


#: A helper that picks the device at run time, by its name (``get_device()``,
#: ``select_device(opt.device)``, ``devices.get_optimal_device_name()``,
#: ``default_device()``): an accelerator where there is one.
RUNTIME_DEVICE = re.compile(
    r"\b(?:get|select|choose|pick|find|auto|default|optimal|best)_\w*?device\w*\s*\(",
    re.IGNORECASE,
)


def runs_on_an_accelerator(source: str) -> bool:
    """Does ``source`` name an accelerator, or call a helper that picks the
    device at run time (``RUNTIME_DEVICE``)? Code outside library code that
    does neither runs as written, on the CPU."""
    if mentions_accelerator(source):
        return True
    return ("device" in source or "DEVICE" in source) and RUNTIME_DEVICE.search(source) is not None


#: A backward pass: ``loss.backward()``, Lightning's ``self.manual_backward(loss)``,
#: ``torch.autograd.grad(...)``, or a Lightning ``training_step``, whose loss
#: Lightning backpropagates (``trains``).
_BACKWARD = re.compile(
    r"\.(?:manual_)?backward\s*\(|\bautograd\.grad\s*\(|\bdef\s+training_step\s*\("
)


def trains(source: str) -> bool:
    """Does ``source`` run a backward pass somewhere? Then its models are
    trained here, and their outputs require grad outside ``no_grad``."""
    if "backward" not in source and "grad" not in source and "training_step" not in source:
        return False
    return _BACKWARD.search(source) is not None
