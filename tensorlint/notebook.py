"""Jupyter notebooks: lint the code cells as one module, write fixes back.

Code cells are joined into one Python text, one cell after another, so the
analysis sees imports made in earlier cells. Lines end where Python's do (at
LF, CRLF or CR; a form feed or U+2028 is text within a line, as in Jupyter).
IPython syntax is masked line by line with a comment, where IPython's input
transformers read it (``%timeit f()``, ``!pip install``, ``files = !ls``,
``x = %time f()``, ``x?``: at the start of a logical line, never in brackets or
a string), and cell magics (``%%bash``) mask the whole cell, so line numbers
stay the same and the parser never sees them. Between two cells the joined
text has a boundary comment line, so a fix that adds or removes lines (a call
collapsed onto one line) still splits back into the right cells: the fixed
text is cut at those lines, never by counting lines. The JSON is never
written anew: only the ``source`` values of the changed cells are replaced in
its text (and in a list, only the lines that changed), so every other byte
stays as it was.
"""

from __future__ import annotations

import difflib
import json
import re
import textwrap
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from typing import Any, Callable

_MASK = "# tensorlint: ipython "
_STATEMENT = "pass  "  #: before the first masked line of a run
#: the line between two cells in the joined text
_BOUNDARY = "# tensorlint: cell boundary\n"


class NotebookError(Exception):
    """A notebook that is not valid JSON or not a notebook; one line."""


@dataclass(frozen=True)
class Cell:
    index: int  #: position among all cells, 0-based
    number: int  #: 1-based count among code cells, as shown to users
    first_line: int  #: 1-based line of the cell in the joined text
    lines: tuple[str, ...]  #: the cell's original lines, newline-terminated
    masked: tuple[bool, ...]
    #: a cell that does not parse, masked whole so that the others are checked
    skipped: bool = False


@dataclass(frozen=True)
class Notebook:
    data: dict[str, Any]
    cells: tuple[Cell, ...]
    text: str  #: the notebook's JSON text, as read

    @property
    def python(self) -> str:
        return _BOUNDARY.join(cell_python(cell) for cell in self.cells)

    def skipping(self, number: int) -> Notebook:
        """This notebook with code cell ``number`` masked whole (it does not
        parse); its source is kept as it is when fixes are written back."""
        cells = tuple(
            replace(c, masked=(True,) * len(c.lines), skipped=True) if c.number == number else c
            for c in self.cells
        )
        return replace(self, cells=cells)

    def locate(self, line: int) -> tuple[int, int]:
        """(code cell number, line within that cell) of a line of the joined text."""
        for cell in reversed(self.cells):
            if line >= cell.first_line:
                return cell.number, line - cell.first_line + 1
        return 1, line

    def with_python(self, text: str) -> str:
        """The notebook's JSON text with the cells' sources taken from ``text``.

        Only the ``source`` values of the cells whose text changed are
        replaced, in the JSON text as it was read; every other byte is kept.
        NotebookError when ``text`` no longer has one boundary line between
        each two cells (nothing is written then).
        """
        chunks: list[list[str]] = [[]]
        for line in _lines(text):
            if line.rstrip("\r\n") == _BOUNDARY.rstrip("\n"):
                chunks.append([])
            else:
                chunks[-1].append(line)
        if len(chunks) != len(self.cells):
            raise NotebookError("the fixes could not be mapped back to the cells")
        cells = self.data["cells"]
        edits: list[tuple[Cell, str]] = []  # (a changed cell, its new source)
        for cell, new in zip(self.cells, chunks):
            restored = _restore(cell, new)
            if restored is None:
                raise NotebookError(
                    f"cell {cell.number}: the fixes could not be mapped back to the cell"
                )
            original = _source_text(cells[cell.index].get("source", ""))
            joined = "".join(restored)
            if not original.endswith(("\n", "\r")) and joined.endswith("\n"):
                joined = joined[:-1]  # the line ending ``load`` added
            if joined != original:
                edits.append((cell, joined))
        if not edits:
            return self.text
        spans = _source_spans(self.text)
        ascii_only = _writes_ascii_only(self.text)
        out = self.text
        for cell, joined in reversed(edits):  # from the end: earlier offsets hold
            start, end = spans.get(cell.index, (0, 0))
            old = cells[cell.index].get("source", "")
            if not end or json.loads(self.text[start:end]) != old:
                raise NotebookError(
                    f"cell {cell.number}: its source could not be found in the file"
                )
            if isinstance(old, str):
                value = json.dumps(joined, ensure_ascii=ascii_only)
            else:
                value = _list_value(self.text, start, end, old, joined, ascii_only)
            out = out[:start] + value + out[end:]
        return out


def cell_python(cell: Cell) -> str:
    """The cell's lines as Python, as they stand in the joined text."""
    parts: list[str] = []
    if cell.skipped:  # every line a comment, the first a ``pass``
        for i, line in enumerate(cell.lines):
            body = line.rstrip("\r\n")
            lead = "" if i else _STATEMENT
            parts.append(lead + _MASK + body.lstrip() + line[len(body) :])
        return "".join(parts)
    previous = False
    for line, masked in zip(cell.lines, cell.masked):
        # the first line of a run of IPython lines becomes ``pass``, so a
        # block whose only statement is ``!pip install x`` stays a block
        parts.append(_mask(line, statement=not previous) if masked else line)
        previous = masked
    return "".join(parts)


def _source_text(source: Any) -> str:
    return source if isinstance(source, str) else "".join(source)


#: a line as Python, IPython and Jupyter count them: ended by ``\n``,
#: ``\r\n`` or ``\r`` only (``str.splitlines`` also ends lines at a form feed,
#: ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029, which Python reads as text)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _restore(cell: Cell, new: list[str]) -> list[str] | None:
    """The cell's lines from its fixed lines: masked IPython lines back as they
    were, each line with its original ending (lines a fix added or removed
    take the ending of the cell's first line)."""
    if len(new) == len(cell.lines):
        return [
            old if masked else _same_ending(old, fresh)
            for old, fresh, masked in zip(cell.lines, new, cell.masked)
        ]
    magics = iter(old for old, masked in zip(cell.lines, cell.masked) if masked)
    ending = _same_ending(cell.lines[0], "") if cell.lines else "\n"
    out: list[str] = []
    for line in new:
        if line.lstrip().startswith((_MASK, _STATEMENT + _MASK)):
            magic = next(magics, None)
            if magic is None:
                return None
            out.append(magic)
        else:
            out.append(_same_ending(ending, line))
    if next(magics, None) is not None:
        return None  # a fix removed a masked line: refuse rather than guess
    return out


def _mask(line: str, statement: bool = False) -> str:
    """An IPython line as a comment; with ``statement``, as ``pass`` and the
    comment, at the line's indentation (the lines after it in the same run
    stay comments: their indentation need not be a block's)."""
    body = line.rstrip("\r\n")
    stripped = body.lstrip()
    lead = body[: len(body) - len(stripped)] + _STATEMENT if statement else ""
    return lead + _MASK + stripped + line[len(body) :]


def _same_ending(old: str, new: str) -> str:
    ending = old[len(old.rstrip("\r\n")) :]
    return new.rstrip("\r\n") + ending


# -- the JSON text: where the sources are, and how its strings are written -------

#: a ``\uXXXX`` escape of a character beyond ASCII (not one of an escaped backslash)
_ESCAPED_NON_ASCII = re.compile(r"(?<!\\)(?:\\\\)*\\u(?!00[0-7])[0-9a-fA-F]{4}")
#: ``str.splitlines`` ends lines at these too; nbformat splits sources with it
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")

#: reads one JSON value where it starts, and tells where it ends
_VALUE = json.JSONDecoder()


def _members(text: str, pos: int, visit: Callable[[Any, int], int]) -> int:
    """Walk the JSON object or array at ``pos`` of ``text`` (valid JSON: ``load``
    read it): ``visit(key or index, start of its value)`` returns where the
    value ends. Returns where the object or array ends."""
    is_object = text[pos] == "{"
    pos = _space(text, pos + 1)
    index = 0
    while text[pos] not in "]}":
        if is_object:
            key, pos = _VALUE.raw_decode(text, pos)
            pos = _space(text, _space(text, pos) + 1)  # after the colon
        else:
            key, index = index, index + 1
        pos = _space(text, visit(key, pos))
        if text[pos] == ",":
            pos = _space(text, pos + 1)
    return pos + 1


def _skip(text: str, pos: int) -> int:
    """Where the JSON value at ``pos`` ends."""
    end: int = _VALUE.raw_decode(text, pos)[1]
    return end


def _space(text: str, pos: int) -> int:
    """Where the JSON whitespace at ``pos`` ends."""
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _source_spans(text: str) -> dict[int, tuple[int, int]]:
    """{cell index: (start, end)} of each cell's ``source`` value in the
    notebook's JSON text. Only the way to the sources is walked; every other
    value is skipped by ``json``'s own reader. A key given twice counts the
    last time, as ``json`` reads it."""
    spans: dict[int, tuple[int, int]] = {}

    def top(key: Any, pos: int) -> int:
        if key != "cells" or text[pos] != "[":
            return _skip(text, pos)
        spans.clear()
        return _members(text, pos, cell)

    def cell(index: Any, pos: int) -> int:
        if text[pos] != "{":
            return _skip(text, pos)

        def member(key: Any, start: int) -> int:
            end = _skip(text, start)
            if key == "source":
                spans[index] = (start, end)
            return end

        return _members(text, pos, member)

    _members(text, _space(text, 0), top)
    return spans


def _writes_ascii_only(text: str) -> bool:
    """Whether the notebook's JSON escapes non-ASCII text (``\\u00e9``) rather
    than writing it as it is (as nbformat does)."""
    return text.isascii() and _ESCAPED_NON_ASCII.search(text) is not None


def _list_value(text: str, start: int, end: int, old: list[str], new: str, ascii_only: bool) -> str:
    """A ``source`` list ``text[start:end]`` holding ``new``: the items of the
    lines that did not change kept as they are written, the new ones written
    the same way, with the list's own spacing."""
    raw = text[start:end]
    items: list[tuple[int, int]] = []

    def record(index: Any, pos: int) -> int:
        items.append((pos, _skip(raw, pos)))
        return items[-1][1]

    _members(raw, 0, record)
    if items:
        opening, closing = raw[1 : items[0][0]], raw[items[-1][1] : -1]
    else:  # an empty list: spaced as ``json.dumps`` would with the file's indentation
        line_start = text.rfind("\n", 0, start) + 1
        prefix = text[line_start:start]
        indent = prefix[: len(prefix) - len(prefix.lstrip(" \t"))]
        newline = "\r\n" if text[line_start - 2 : line_start] == "\r\n" else "\n"
        if indent and len(indent) % 3 == 0:  # "source" is a key three levels deep
            opening = newline + indent + indent[: len(indent) // 3]
            closing = newline + indent
        else:
            opening = closing = ""
    #: the text after each item but the last: a comma and spacing (or more)
    after = [raw[left[1] : right[0]] for left, right in zip(items, items[1:])]
    if after:
        separator = after[0]
    elif "\n" in opening:
        separator = "," + opening
    else:
        separator = ", " if text[start - 1 : start].isspace() else ","
    if any(item.endswith(_OTHER_BREAKS) for item in old[:-1]):
        lines = new.splitlines(keepends=True)  # split as nbformat splits
    else:
        lines = _lines(new)
    written: list[tuple[str, str]] = []  # (an item, the text after it)
    matcher = difflib.SequenceMatcher(None, old, lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for at, line in enumerate(lines[j1:j2], start=i1):  # ``at``: the item kept or replaced
            if tag == "equal":
                item = raw[items[at][0] : items[at][1]]
            else:
                item = json.dumps(line, ensure_ascii=ascii_only)
            written.append((item, after[at] if at < min(i2, len(after)) else separator))
    if not written:
        return "[]"
    body = written[0][0]
    for (_, gap), (item, _) in zip(written, written[1:]):
        body += gap + item
    return "[" + opening + body + closing + "]"


# -- reading ----------------------------------------------------------------------


#: Longer integers are refused: Python's default limit (``sys.int_info``), so
#: that no setting or version makes reading one take quadratic time.
MAX_INTEGER_DIGITS = 4300


def _integer(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_INTEGER_DIGITS:
        raise NotebookError(
            f"not readable: its JSON has a number of {count} digits "
            f"(the limit is {MAX_INTEGER_DIGITS})"
        )
    return int(digits)


def load(text: str) -> Notebook:
    try:
        data = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid JSON (line {error.lineno}: {error.msg})") from None
    except RecursionError:
        raise NotebookError("not readable: its JSON is nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a notebook (no 'cells' list)")
    cells: list[Cell] = []
    line = 1
    number = 0
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(item, str) for item in source):
            text_source = "".join(source)
        elif isinstance(source, str):
            text_source = source
        else:
            raise NotebookError(f"code cell {number}: 'source' is not text")
        lines = _lines(text_source)
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n"
        if not lines:
            lines = ["\n"]
        masked = _ipython_lines(lines)
        if cells:
            line += 1  # the boundary line
        cells.append(Cell(index, number, line, tuple(lines), masked))
        line += len(lines)
    return Notebook(data, tuple(cells), text)


# -- IPython syntax, where IPython's input transformers (inputtransformer2) read it

#: a logical line starting with one of these is an escaped command: ``%magic``,
#: ``!shell``, ``?help``, ``,quoted``, ``;quoted``, ``/called`` (not ``!=``,
#: ``%=``, ``//`` or ``/=``: those are operators)
_ESCAPES = frozenset("!?%,;/")
#: what any IPython syntax but a cell magic has: an escape first on a line, ``?``
#: last, an escape after ``=`` (a cell without any is read no further)
_MAYBE_IPYTHON = re.compile(
    r"(?:^|(?<=\r))[ \t\f]*[!?%,;/]|\?$|=[ \t\f]*(?:\\(?:\r\n|\r|\n)[ \t\f]*)*[!%]", re.MULTILINE
)
#: a Python token, roughly: enough to follow brackets, strings and comments
_TOKEN = re.compile(
    r"""(?P<space>[ \t\f]+|\\(?:\r\n|\r|\n))
      | (?P<newline>\r\n|\r|\n)
      | (?P<comment>\#[^\r\n]*)
      | (?P<string>[rRbBuUfFtT]{0,2}(?:'''|\"\"\"|'|\"))
      | (?P<name>[^\W\d]\w*)
      | (?P<number>\.?\d[\w.]*)
      | (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|:=|[-+*/%&|^@<>=!]=|\*\*|//|<<|>>|.)""",
    re.VERBOSE | re.DOTALL,
)
#: the rest of a string after its opening quote, up to its closing quote (if any)
_STRING_BODY = {
    "'": re.compile(r"[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*", re.DOTALL),
    '"': re.compile(r'[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*', re.DOTALL),
    "'''": re.compile(r"[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*", re.DOTALL),
    '"""': re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*', re.DOTALL),
}


def _ipython_lines(lines: list[str]) -> tuple[bool, ...]:
    """Which lines are IPython syntax, as IPython reads a cell: a cell magic
    (``%%bash`` first, after blank lines and the common indentation) is the
    whole cell; otherwise each logical line (a line within brackets or a
    string is never one) that is an escaped command (``%time f()``, ``!ls``),
    an assignment from one (``files = !ls``, ``x = %time f()``) or a help query
    (``np.mean?``), with the lines a trailing backslash continues it onto."""
    text = "".join(lines)
    first = next((line for line in _lines(textwrap.dedent(text)) if line.strip()), "")
    if first.startswith("%%") and not re.match(r"%%\w+\?", first):
        return (True,) * len(lines)
    masked = [False] * len(lines)
    if not _MAYBE_IPYTHON.search(text):
        return tuple(masked)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    row = 0
    while row < len(lines):
        special, end = _logical_line(text, starts[row])
        if special is None:
            row = max(row + 1, bisect_left(starts, end))
            continue
        last = bisect_right(starts, special) - 1  # the line the escape is on
        while last + 1 < len(lines) and lines[last].endswith("\\\n"):
            last += 1  # IPython continues an escaped line at a backslash before ``\n`` only
        for masked_row in range(row, last + 1):
            masked[masked_row] = True
        row = last + 1
    return tuple(masked)


def _logical_line(text: str, pos: int) -> tuple[int | None, int]:
    """(where IPython syntax is in the logical line starting at ``pos``: the
    offset of its escape, or None for Python; where the line ends). Read as
    IPython's token transformers do: an escape as the first token, an escape
    after the first ``=`` outside brackets, ``?`` as the last token."""
    seen: list[tuple[str, str, int]] = []  # (kind, token, start) so far
    depth = 0
    assign = -1  # index in ``seen`` of the first ``=`` outside brackets
    unclosed: dict[str, int] = {}  # quote: where a string it opened ran out
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        assert match is not None  # ``op`` takes any character
        kind, token, start, pos = match.lastgroup or "op", match.group(), match.start(), match.end()
        if kind == "space" or (kind == "newline" and depth):
            continue
        if kind == "newline":
            break
        if kind == "string":
            quote = token.lstrip("rRbBuUfFtT")
            if start < unclosed.get(quote, -1):
                kind = "op"  # inside a string with this quote that did not close
            else:
                body = _STRING_BODY[quote].match(text, pos)
                assert body is not None  # it may match nothing
                if text.startswith(quote, body.end()):
                    pos = body.end() + len(quote)
                elif len(quote) == 3:
                    pos = len(text)  # unterminated: to the end of the cell
                else:  # unterminated: the quote alone, as Python's tokenize reads it; a
                    # quote in the same stretch does not close either (read it once)
                    kind, unclosed[quote] = "op", body.end()
        elif not seen and kind == "op" and token in _ESCAPES:
            return start, pos  # %magic, !shell, ?help, ...
        seen.append((kind, token, start))
        if kind == "op" and token in ("(", "[", "{"):
            depth += 1
        elif kind == "op" and token in (")", "]", "}"):
            depth = max(depth - 1, 0)
        elif kind == "op" and token == "=" and not depth and assign < 0:
            assign = len(seen) - 1
        if assign >= 0 and len(seen) in (assign + 2, assign + 3):
            escape = seen[assign + 1]  # the token after the ``=``
            if escape[:2] == ("op", "!") and not _starts_line(text, seen[assign][2]):
                return escape[2], pos  # files = !ls
            if escape[:2] == ("op", "%") and len(seen) == assign + 3 and kind == "name":
                return escape[2], pos  # x = %time f()
    if len(seen) >= 2 and seen[-1][:2] == ("op", "?") and _asks_for_help(text[seen[0][2] : pos]):
        return seen[-1][2], pos  # np.mean?
    return None, pos


def _asks_for_help(line: str) -> bool:
    """Whether a logical line ends with what ``x?`` and ``x??`` ask about: a
    name, with ``.attribute`` and ``[0]`` after it (IPython's ``_help_end_re``,
    read from the end, so that a long line takes linear time)."""
    line = line[:-1] if line.endswith("\n") else line
    if not line.endswith("?"):
        return False
    end = len(line) - (2 if line.endswith("??") else 1)
    while line.endswith("]", 0, end):  # [0], [-1]
        digits = end - 1
        while digits and line[digits - 1] in "0123456789":
            digits -= 1
        sign = digits - 1 if line.endswith("-", 0, digits) else digits
        if digits == end - 1 or not line.endswith("[", 0, sign):
            return False
        end = sign - 1
    start = end
    while start and (line[start - 1].isalnum() or line[start - 1] in "_*"):
        start -= 1
    # the name may start at any character of the run but a digit
    return any(not char.isdecimal() for char in line[start:end])


def _starts_line(text: str, pos: int) -> bool:
    """Whether only spaces come before ``pos`` on its line."""
    line_start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
    return not text[line_start:pos].strip()
