"""CPython's own parse of a file: cheap, and no LibCST import."""

from __future__ import annotations

import ast
import warnings
from typing import Optional


class TooDeep(Exception):
    """Nesting deeper than CPython's own parser accepts: not parsed at all
    (LibCST's parser takes minutes on it, or crashes the process)."""


def parse(source: str) -> ast.Module:
    """``ast.parse`` without the warnings CPython emits about the code it
    reads (``SyntaxWarning: invalid escape sequence '\\d'`` from Python 3.12
    on, written to stderr once per file and run): they are the code's own
    linters' business, and a check's output is its findings alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source)


def python_tree(source: str) -> Optional[ast.Module]:
    """CPython's tree of ``source``; None when CPython cannot parse it (newer
    syntax than ours, or an error LibCST will report); TooDeep when nesting
    would crash LibCST's parser."""
    try:
        return parse(source)
    except SyntaxError as error:
        if "too many nested" in str(error.msg):
            raise TooDeep from None  # LibCST's native parser would crash on it
        return None
    except ValueError:
        return None
    except (RecursionError, MemoryError):
        raise TooDeep from None
