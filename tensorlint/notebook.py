"""Jupyter notebooks: lint the code cells as one module, write fixes back.

Code cells are joined into one Python text, one cell after another, so the
analysis sees imports made in earlier cells. IPython syntax is masked line by
line with a comment of the same length class (``%timeit f()``, ``!pip
install``, ``x?``), and cell magics (``%%bash``) mask the whole cell, so line
numbers stay the same and the parser never sees them. Between two cells the
joined text has a boundary comment line, so a fix that adds or removes lines
(a call collapsed onto one line) still splits back into the right cells: the
fixed text is cut at those lines, never by counting lines. Only the
``source`` of changed cells is replaced, and the JSON keeps its key order,
indentation and trailing newline.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_MAGIC = re.compile(r"^\s*(%|!|\?)|\?\s*$")
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


@dataclass(frozen=True)
class Notebook:
    data: dict[str, Any]
    cells: tuple[Cell, ...]
    indent: int
    trailing_newline: bool

    @property
    def python(self) -> str:
        parts: list[str] = []
        for number, cell in enumerate(self.cells):
            if number:
                parts.append(_BOUNDARY)
            previous = False
            for line, masked in zip(cell.lines, cell.masked):
                # the first line of a run of IPython lines becomes ``pass``, so a
                # block whose only statement is ``!pip install x`` stays a block
                parts.append(_mask(line, statement=not previous) if masked else line)
                previous = masked
        return "".join(parts)

    def locate(self, line: int) -> tuple[int, int]:
        """(code cell number, line within that cell) of a line of the joined text."""
        for cell in reversed(self.cells):
            if line >= cell.first_line:
                return cell.number, line - cell.first_line + 1
        return 1, line

    def with_python(self, text: str) -> str:
        """The notebook's JSON text with the cells' sources taken from ``text``.

        NotebookError when ``text`` no longer has one boundary line between
        each two cells (nothing is written then).
        """
        chunks: list[list[str]] = [[]]
        for line in text.splitlines(keepends=True):
            if line.rstrip("\r\n") == _BOUNDARY.rstrip("\n"):
                chunks.append([])
            else:
                chunks[-1].append(line)
        if len(chunks) != len(self.cells):
            raise NotebookError("the fixes could not be mapped back to the cells")
        cells = self.data["cells"]
        for cell, new in zip(self.cells, chunks):
            restored = _restore(cell, new)
            if restored is None:
                raise NotebookError(
                    f"cell {cell.number}: the fixes could not be mapped back to the cell"
                )
            original = cells[cell.index]["source"]
            joined = "".join(restored)
            if isinstance(original, list):
                if original and not original[-1].endswith("\n") and joined.endswith("\n"):
                    joined = joined[:-1]
                cells[cell.index]["source"] = joined.splitlines(keepends=True)
            else:
                cells[cell.index]["source"] = joined[:-1] if not original.endswith("\n") else joined
        out = json.dumps(self.data, indent=self.indent, ensure_ascii=False)
        return out + ("\n" if self.trailing_newline else "")


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


def _indent_of(text: str) -> int:
    match = re.search(r"\n( +)\"", text)
    return len(match.group(1)) if match else 1


def load(text: str) -> Notebook:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid JSON (line {error.lineno}: {error.msg})") from None
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
        lines = text_source.splitlines(keepends=True)
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += "\n"
        if not lines:
            lines = ["\n"]
        whole = bool(lines) and lines[0].lstrip().startswith("%%")
        masked = _masked_lines(lines, whole)
        if cells:
            line += 1  # the boundary line
        cells.append(Cell(index, number, line, tuple(lines), masked))
        line += len(lines)
    return Notebook(data, tuple(cells), _indent_of(text), text.endswith("\n"))


def _masked_lines(lines: list[str], whole: bool) -> tuple[bool, ...]:
    """Which lines are IPython syntax: magics, shell escapes and help queries,
    with the lines a trailing backslash continues them onto."""
    masked: list[bool] = []
    continued = False
    for item in lines:
        text = item.rstrip("\r\n")
        magic = whole or continued or bool(_MAGIC.search(text))
        masked.append(magic)
        continued = magic and text.endswith("\\")
    return tuple(masked)
