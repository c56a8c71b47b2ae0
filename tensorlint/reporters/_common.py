"""What the reporters share: levels, 1-based columns, control characters."""

from __future__ import annotations

import re

from tensorlint.diagnostics import Position
from tensorlint.registry import BY_CODE

TOOL_NAME = "tensorlint"
#: Where a reader of a CI report learns about the tool.
INFORMATION_URI = "https://pypi.org/project/tensorlint/"

#: Characters that drive a terminal or reorder what it shows, past the C0
#: controls (which JSON escapes itself): DEL and the C1 controls (CSI
#: ``\x9b``), the line separators and the bidirectional controls (U+202E).
C1_AND_BIDI = r"\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
#: ... and with the C0 controls (newline, ESC, BEL, BS): what the text output escapes
CONTROLS = re.compile(rf"[\x00-\x1f{C1_AND_BIDI}]")
_JSON_RAW_CONTROLS = re.compile(rf"[{C1_AND_BIDI}]")


def escape(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with each match of ``pattern`` written as Python writes it in
    a string literal (``\\x1b``, ``\\x9b``, ``\\u202e``): readable, and inert."""
    return pattern.sub(lambda m: repr(m.group())[1:-1], text)


def json_safe(text: str) -> str:
    """JSON text (``ensure_ascii=False``) with the controls it leaves raw
    written as ``\\u`` escapes: the same document, the same strings once
    parsed, and harmless printed on a terminal."""
    return _JSON_RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def level(code: str) -> str:
    """``"error"`` for a rule on by default, ``"warning"`` for a strict-profile rule."""
    rule = BY_CODE.get(code)
    return "warning" if rule is not None and not rule.DEFAULT else "error"


def one_based(position: Position) -> tuple[int, int]:
    """(line, column) with the column counted from 1, as the text output prints it."""
    return position.line, position.column + 1
