"""What an optional feature needs, said as a command that works today.

tensorlint is not on PyPI yet, so ``pip install 'tensorlint[server]'`` would
fail; the hint names the requirements of the extra itself, as the installed
tensorlint declares them (``pip install 'pygls>=2.0'``): one source, the
``[project.optional-dependencies]`` of ``pyproject.toml``.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["install_hint"]


def install_hint(extra: str) -> str:
    """``pip install 'pygls>=2.0'`` for ``extra="server"`` (in backquotes)."""
    try:
        from importlib.metadata import PackageNotFoundError, requires

        try:
            declared = requires("tensorlint") or []
        except PackageNotFoundError:  # run from a source tree that is not installed
            declared = []
    except ImportError:  # pragma: no cover - importlib.metadata is in every supported Python
        declared = []
    marker = re.compile(rf"""\bextra\s*==\s*["']{re.escape(extra)}["']""")
    wanted = [r.split(";", 1)[0].strip() for r in declared if marker.search(r)]
    if not wanted:
        return f'`pip install -e ".[{extra}]"` in a clone of tensorlint'
    return "`pip install " + " ".join(shlex.quote(w) for w in wanted) + "`"
