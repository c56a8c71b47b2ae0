"""What part of a project a file is: library code, or tests, examples, scripts, notebooks.

Scripts (a file outside any package, with a ``__main__`` guard) are not
library code either. Library code has callers tensorlint cannot see: a tensor that enters one of
its public functions may come from anywhere, a GPU included. Tests, examples,
scripts and notebooks are run as they are written: what they convert is made
in the file itself, so only what the file shows counts as evidence.
"""

from __future__ import annotations

import functools
import re
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
    r"\bcuda\b|\.cuda\(|\bmps\b|\bxpu\b|\bhpu\b|\bnpu\b|\btpu\b|\baccelerator\b|\bgpus?\b",
    re.IGNORECASE,
)


def is_library(path: Union[str, PurePath, None], root: Optional[Path] = None) -> bool:
    """Is the file at ``path`` library code? (Unknown paths count as library.)

    Only the folders below the project (``root``, else the current
    directory) count: a checkout under ``~/tools/`` is not a tools folder.
    """
    if path is None:
        return True
    pure = PurePath(path)
    if pure.suffix == ".ipynb" or _TEST_FILE.match(pure.name):
        return False
    if any(part.lower() in NON_LIBRARY_DIRS for part in _project_parts(Path(path), root)):
        return False
    return not _is_script(Path(path))


#: ``if __name__ == "__main__":`` at the start of a line.
_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)


def _is_script(path: Path) -> bool:
    """A file run as a program: outside any package, with a ``__main__`` guard
    (``train.py`` next to a README). Its functions have no outside callers."""
    if path.suffix != ".py" or _in_package(path.absolute().parent):
        return False
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return _MAIN_GUARD.search(text.replace("\r", "\n")) is not None


@functools.lru_cache(maxsize=1024)
def _in_package(directory: Path) -> bool:
    return (directory / "__init__.py").is_file()


def _project_parts(path: Path, root: Optional[Path]) -> tuple[str, ...]:
    absolute = path.absolute()
    for base in (root, Path.cwd()):
        if base is None:
            continue
        try:
            return absolute.parent.relative_to(base.absolute()).parts
        except ValueError:
            continue
    return path.parent.parts if not path.is_absolute() else ()


#: Lower-case words one of which ``ACCELERATOR`` needs (a cheap first look).
_ACCELERATOR_WORDS = ("cuda", "mps", "xpu", "hpu", "npu", "tpu", "accelerator", "gpu")


def mentions_accelerator(source: str) -> bool:
    lowered = source.lower()
    if not any(word in lowered for word in _ACCELERATOR_WORDS):
        return False
    return ACCELERATOR.search(source) is not None
