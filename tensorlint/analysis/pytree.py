"""CPython's own parse of a file: cheap, and no LibCST import."""

from __future__ import annotations

import ast
from typing import Optional


class TooDeep(Exception):
    """Nesting deeper than CPython's own parser accepts: not parsed at all
    (LibCST's parser takes minutes on it, or crashes the process)."""


def python_tree(source: str) -> Optional[ast.Module]:
    """CPython's tree of ``source``; None when CPython cannot parse it (newer
    syntax than ours, or an error LibCST will report); TooDeep when nesting
    would crash LibCST's parser."""
    try:
        return ast.parse(source)
    except SyntaxError as error:
        if "too many nested" in str(error.msg):
            raise TooDeep from None  # LibCST's native parser would crash on it
        return None
    except ValueError:
        return None
    except (RecursionError, MemoryError):
        raise TooDeep from None
