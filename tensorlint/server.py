"""``tensorlint server``: a Language Server for editors (stdio).

It publishes the findings of ``tensorlint check`` for Python files (and the
Python cells of Jupyter notebooks, LSP 3.17 notebook document sync) when they
are opened, changed and saved; offers each finding's fix as a code action
(safe fixes preferred, unsafe ones marked), a "Disable TLxxx for this line"
quick fix (``check --add-noqa``'s comment) and a ``source.fixAll.tensorlint``
action (``check --fix``'s engine); and shows the rule's documentation on
hover. The client's settings (``initializationOptions``,
``workspace/didChangeConfiguration``, or asked for with
``workspace/configuration`` when the client keeps them there: ``select``,
``extendSelect``, ``ignore``, ``strict``, ``unsafeFixes``) override the
files' configuration.
Each file gets the same settings as in
``tensorlint check``: its nearest ``pyproject.toml``, its
``per-file-ignores``, and its ``exclude`` (an excluded file gets no
findings). The buffer's text is linted, never the file on disk (a document
the client has not opened gets no findings, hover or fixes), and nothing is
written: editors apply the edits.

The checks run in a worker process, off the message loop: one at a time, only
the latest version of each document, each within the time limit per file of
``tensorlint check`` (the worker is killed past it), and none for a buffer
over :data:`MAX_BUFFER_CHARS`. The server exits on ``exit`` and when the
client's process (initialize's ``processId``) is gone.

pygls (the ``server`` extra) is imported only here.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import re
import sys
import threading
import time
from bisect import bisect_right
from collections.abc import Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from tensorlint import __version__
from tensorlint.analysis.from_ast import line_starts
from tensorlint.config import ConfigError
from tensorlint.diagnostics import Applicability, Diagnostic, FileResult, Position
from tensorlint.engine.discovery import is_excluded
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.engine.runner import BUDGET_VARIABLE, file_time_budget
from tensorlint.engine.tree import Tree
from tensorlint.extras import install_hint
from tensorlint.file_settings import Resolver
from tensorlint.fix.apply import applicable, fix_source
from tensorlint.registry import BY_CODE, SelectionError
from tensorlint.reporters._common import level
from tensorlint.rule import Settings

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    from tensorlint.notebook import Notebook

SOURCE = "tensorlint"

#: Larger buffers are not checked. The editor checks again at every change,
#: and a megabyte of code takes a minute and hundreds of MB to check (a 3 MB
#: buffer: minutes and 1.5 GB); the largest hand-written modules are a few
#: hundred KB.
MAX_BUFFER_CHARS = 1024 * 1024

#: how often the server looks whether the client's process is still there
_CLIENT_POLL_S = 2.0
#: how long the worker process may take to start (import its modules)
_START_S = 60.0


def run_server() -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as error:
        print(
            f"error: the editor server needs pygls ({error}); install it with "
            f"{install_hint('server')}",
            file=sys.stderr,
        )
        return 2
    worker = _Worker()
    build_server(worker).start_io()
    worker.stop()  # the client closed the stream without ``exit`` (which ends the process)
    return 1


# -- positions: lines as LSP counts them, columns in the client's code units --


def _units(text: str, encoding: str) -> int:
    """The length of ``text`` in the code units of a position encoding."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _chars(line: str, units: int, encoding: str) -> int:
    """How many characters of ``line`` its first ``units`` code units hold
    (past its end: all of them; inside a character: those before it)."""
    if encoding == "utf-32" or line.isascii():
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        count += _units(char, encoding)
        if count > units:
            return index
    return len(line)


def changed_middle(old: str, new: str) -> tuple[int, int, int]:
    """(start, end in ``old``, end in ``new``) of the one span that differs
    between ``old`` and ``new``, widened so that it never splits a CR LF."""
    start = 0
    most = min(len(old), len(new))
    while start < most and old[start] == new[start]:
        start += 1
    end = 0
    while end < most - start and old[-1 - end] == new[-1 - end]:
        end += 1
    old_end, new_end = len(old) - end, len(new) - end
    if start > 0 and old[start - 1 : start + 1] == "\r\n":
        start -= 1
    if old[old_end - 1 : old_end + 1] == "\r\n":
        old_end, new_end = old_end + 1, new_end + 1
    return start, old_end, new_end


class _Text:
    """A document's text, and positions in it as the client counts them.

    LSP ends a line at "\n", "\r\n" or "\r" only, as Python does: the lines
    are those of the findings' positions (``line_starts``).
    ``str.splitlines()`` (and pygls's ``TextDocument``, which uses it) also
    ends one at "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", U+2028 and
    U+2029: a position after one of those would be misplaced.
    """

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding  #: "utf-16" unless the client chose another
        self._starts: Optional[list[int]] = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def _line(self, line: int) -> tuple[int, str]:
        """Where a line starts, and its text without its line break."""
        starts = self.starts
        end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
        return starts[line], self.text[starts[line] : end].rstrip("\r\n")

    def offset(self, position: lsp.Position) -> int:
        """Where a client's position is (past a line's end: at its end)."""
        if position.line >= len(self.starts):
            return len(self.text)
        start, line = self._line(position.line)
        return start + _chars(line, position.character, self.encoding)

    def position(self, where: Position) -> lsp.Position:
        """The client's position for a tensorlint one (line from 1, column in characters)."""
        from lsprotocol import types as lsp

        line = min(max(where.line - 1, 0), len(self.starts) - 1)
        _, text = self._line(line)
        return lsp.Position(line=line, character=_units(text[: where.column], self.encoding))

    def at(self, offset: int) -> lsp.Position:
        """The client's position of an offset in the text."""
        line = bisect_right(self.starts, offset) - 1
        return self.position(Position(line + 1, offset - self.starts[line]))

    def replacement(self, new: str) -> lsp.TextEdit:
        """One edit that makes ``new`` of this text: its changed middle (never
        splitting a CR LF)."""
        from lsprotocol import types as lsp

        start, old_end, new_end = changed_middle(self.text, new)
        return lsp.TextEdit(
            range=lsp.Range(start=self.at(start), end=self.at(old_end)),
            new_text=new[start:new_end],
        )

    def edited(self, change: Any) -> _Text:
        """The text after a ``didChange`` content change (a range's or the whole text)."""
        where = getattr(change, "range", None)
        if where is None:
            return _Text(change.text, self.encoding)
        start, end = self.offset(where.start), self.offset(where.end)
        start, end = min(start, end), max(start, end)
        return _Text(self.text[:start] + change.text + self.text[end:], self.encoding)


# -- the checks: in a worker process, each within the time limit --------------


class _Result(NamedTuple):
    """A document version's check: its findings, or why there are none."""

    findings: tuple[Diagnostic, ...] = ()  #: in a notebook: each with its ``cell``
    error: Optional[str] = None  #: the configuration cannot be used
    not_checked: Optional[str] = None  #: too large, too slow, ...


class _Fixed(NamedTuple):
    """A fix-all: the fixed texts (one per cell of a notebook), or None: nothing changed."""

    texts: Optional[tuple[str, ...]] = None


class _Request(NamedTuple):
    """What the server asks of the worker: ``check`` a text (or a notebook's
    cells), or ``fix`` every fix of it, with the client's settings on top of
    the file's configuration."""

    op: str  #: "check" or "fix"
    path: str
    texts: tuple[str, ...]  #: the text, or a notebook's Python code cells
    notebook: bool
    refresh: bool = False  #: a file was saved: read the other modules and configurations again
    overrides: tuple[tuple[str, Any], ...] = ()  #: ``Config`` fields the client set
    unsafe: bool = False  #: a fix-all applies unsafe fixes too


def _serve(connection: Connection, server: int) -> None:
    """The worker process: checks what the server sends, until the server is gone."""
    # the server's stdout is the client's channel: nothing else may write there
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.close(quiet)
    threading.Thread(target=_exit_without, args=(server,), daemon=True).start()
    tree, resolver = Tree(), Resolver({})
    overrides: tuple[tuple[str, Any], ...] = ()
    # what a first check imports and builds, before the time limit starts
    lint_source("import torch\nx.numpy()\n", Settings(enabled=frozenset(BY_CODE)))
    connection.send(None)  # ready
    while True:
        try:
            request: _Request = connection.recv()
        except (EOFError, OSError):
            return
        if request.refresh:  # a file was saved: another module or a pyproject.toml may have changed
            tree.refresh()
        if request.refresh or request.overrides != overrides:
            overrides = request.overrides
            resolver = Resolver(dict(overrides))
        connection.send(_handle(request, tree, resolver))


def _handle(request: _Request, tree: Tree, resolver: Resolver) -> _Result | _Fixed:
    from tensorlint.engine.runner import _notebook_result
    from tensorlint.notebook import NotebookError

    path = Path(request.path)
    try:
        config = resolver.config(path)
        settings = resolver.settings(path)
    except (ConfigError, SelectionError) as error:
        return _Result(error=f"tensorlint configuration: {error}")
    fixing = request.op == "fix"
    try:
        if is_excluded(path.absolute(), config.exclude, config.root):
            return _Fixed() if fixing else _Result()
        notebook: Optional[Notebook] = None
        source = request.texts[0] if request.texts else ""
        if request.notebook:
            notebook = _notebook(request.texts)
            source = notebook.python
        if fixing:
            outcome = fix_source(source, settings, unsafe=request.unsafe, tree=tree.view(path))
            if outcome.error is not None or outcome.source == source:
                return _Fixed()
            if notebook is None:
                return _Fixed((outcome.source,))
            return _Fixed(_cell_sources(notebook.with_python(outcome.source)))
        found = tuple(lint_source(source, settings, tree=tree.view(path)))
        if notebook is not None:  # at (cell, line in the cell), as ``check`` reports them
            found = _notebook_result(FileResult(str(path), found), notebook, "").diagnostics
        return _Result(found)
    except (LintError, NotebookError):
        # mid-edit syntax: the editor's Python server reports it (a fix-all: nothing)
        return _Fixed() if fixing else _Result()
    except Exception as error:  # a bug in tensorlint must not stop the server
        if fixing:
            return _Fixed()
        return _Result(not_checked=f"internal error: {type(error).__name__}: {error}")


def _notebook(cells: Sequence[str]) -> Notebook:
    """A notebook of these code cells, as ``tensorlint check`` reads an ``.ipynb``."""
    from tensorlint.notebook import load

    data = {
        "cells": [{"cell_type": "code", "source": text} for text in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return load(json.dumps(data))


def _cell_sources(text: str) -> tuple[str, ...]:
    """The code cells' sources of a notebook's JSON text (as :func:`_notebook` writes them)."""
    return tuple(str(cell["source"]) for cell in json.loads(text)["cells"])


def _exit_without(server: int) -> None:
    """In the worker: exit once the server is gone (even in the middle of a check)."""
    while os.getppid() == server and _alive(server):
        time.sleep(1.0)
    os._exit(1)


def _alive(pid: int) -> bool:
    """Is process ``pid`` running? (When that cannot be told: yes.)"""
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return ctypes.get_last_error() == 5  # ERROR_ACCESS_DENIED: it exists
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)  # signal 0: only asks whether it exists
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError: it exists (another user's)
        return True
    return True


class _Worker:
    """The worker process (:func:`_serve`): started for the first check,
    killed when a check runs out of time, and started again for the next."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  #: ``stop`` comes from the message loop
        self._stopped = False
        self._process: Optional[BaseProcess] = None
        self._connection: Optional[Connection] = None

    def check(self, request: _Request) -> _Result | _Fixed:
        """Do what ``request`` asks (called in one thread at a time); never
        raises. When it cannot be done: a ``_Result`` that says why."""
        budget = file_time_budget()
        try:
            connection = self._connection or self._start()
            if connection is None:
                return _Result(not_checked="not checked: the server is shutting down")
            connection.send(request)
            if budget and not connection.poll(budget):
                self._discard()
                return _Result(
                    not_checked=f"not checked: it took longer than {budget:g} s, the time "
                    f"limit per file (set by {BUDGET_VARIABLE}; 0: none)"
                )
            result: _Result | _Fixed = connection.recv()
            return result
        except Exception as error:  # it was killed (for memory?), or did not start
            self._discard()
            reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            return _Result(not_checked=f"not checked: the checking process stopped ({reason})")

    def _start(self) -> Optional[Connection]:
        context = multiprocessing.get_context("spawn")  # (forking a threaded process is unsafe)
        with self._lock:
            if self._stopped:
                return None
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_serve, args=(theirs, os.getpid()), name="tensorlint-check", daemon=True
            )
            try:
                process.start()
            finally:
                theirs.close()
            self._process, self._connection = process, ours
        if not ours.poll(_START_S):
            raise TimeoutError(f"it did not start in {_START_S:g} s")
        ours.recv()  # ready
        return ours

    def _discard(self) -> None:
        with self._lock:
            process, connection = self._process, self._connection
            self._process = self._connection = None
        if process is not None:
            process.kill()
            process.join()
        if connection is not None:
            connection.close()

    def stop(self) -> None:
        """Kill the worker, and start no other (from any thread)."""
        with self._lock:
            self._stopped = True
            if self._process is not None:
                self._process.kill()  # a check waiting for it ends at once


class _Document:
    """An open document: its latest version, and that version's check.

    A notebook is one document (its URI is the notebook's): ``cells`` are its
    Python code cells, in order, each with its own URI, text and version;
    ``snapshot`` is a new object at each change of the text (or the cells)."""

    def __init__(
        self,
        uri: str,
        version: Optional[int],
        text: _Text,
        cells: Optional[tuple[_Cell, ...]] = None,
    ) -> None:
        self.uri = uri
        self.path = _path_of(uri)
        self.version = version
        self.text = text  #: a new ``_Text`` for each change (a notebook: its first cell's)
        self.cells = cells  #: a notebook's Python code cells; None for a text document
        self.result: Optional[_Result] = None  #: the check of ``snapshot``, once done
        self.checked = asyncio.Event()  #: set with ``result``, and once closed
        self.shown: tuple[str, ...] = ()  #: a notebook's cells that were given diagnostics

    @property
    def snapshot(self) -> object:
        return self.text if self.cells is None else self.cells

    def texts(self) -> tuple[str, ...]:
        if self.cells is None:
            return (self.text.text,)
        return tuple(cell.text.text for cell in self.cells)

    def checkable(self) -> bool:
        if self.cells is not None:
            return self.path is not None
        return self.path is not None and self.path.suffix == ".py"

    def part(self, uri: str) -> Optional[tuple[_Text, list[Diagnostic]]]:
        """The text ``uri`` (this document, or one of its cells) names, and its findings."""
        found = self.result.findings if self.result is not None else ()
        if self.cells is None:
            return (self.text, list(found)) if uri == self.uri else None
        for number, cell in enumerate(self.cells, 1):
            if cell.uri == uri:
                return cell.text, [d for d in found if d.cell == number]
        return None


class _Cell(NamedTuple):
    """A notebook cell's text document."""

    uri: str
    version: Optional[int]
    text: _Text


class _Checks:
    """The open documents, checked off the message loop, one at a time: the
    latest version of each, in the order they changed."""

    def __init__(self, publish: Callable[[_Document], None], worker: _Worker) -> None:
        self.documents: dict[str, _Document] = {}
        self.owners: dict[str, str] = {}  #: a notebook cell's URI -> the notebook's
        #: the client's settings: ``Config`` fields, and whether a fix-all is unsafe too
        self.overrides: tuple[tuple[str, Any], ...] = ()
        self.unsafe = False
        self._publish = publish
        self._waiting: dict[str, None] = {}  #: URIs to check, oldest change first
        self._refresh = False
        self._worker = worker
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tensorlint-check")
        self._wake: Optional[asyncio.Event] = None
        self._task: Optional[asyncio.Future[None]] = None

    def changed(self, document: _Document, refresh: bool = False) -> None:
        """Opened, changed or (``refresh``) saved: check it, unless it cannot be."""
        self.documents[document.uri] = document
        self._refresh = self._refresh or refresh
        document.result = None
        document.checked.clear()
        self._waiting.pop(document.uri, None)
        size = sum(len(text) for text in document.texts())
        if not document.checkable():
            self._done(document, _Result())
        elif size > MAX_BUFFER_CHARS:
            limit = MAX_BUFFER_CHARS // (1024 * 1024)
            self._done(
                document,
                _Result(
                    not_checked=f"not checked: this buffer is too large "
                    f"({size / (1024 * 1024):.1f} MB; the limit is {limit} MB)"
                ),
            )
        else:
            self._waiting[document.uri] = None
            if self._wake is None:
                self._wake = asyncio.Event()
                self._task = asyncio.ensure_future(self._run())
            self._wake.set()

    def closed(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        self._waiting.pop(uri, None)
        if document is not None:
            document.checked.set()  # (requests waiting for it get nothing)

    def document(self, uri: str) -> Optional[_Document]:
        """The open document ``uri`` names (a notebook cell: its notebook)."""
        return self.documents.get(self.owners.get(uri, uri))

    async def checked(self, uri: str) -> Optional[_Document]:
        """The open document (a cell's notebook), checked; None for one not
        open (never read from disk)."""
        from pygls.exceptions import JsonRpcContentModified

        document = self.document(uri)
        if document is None:
            return None
        snapshot = document.snapshot
        while document.result is None:
            await document.checked.wait()
            if self.documents.get(document.uri) is not document:
                return None
            if document.snapshot is not snapshot:  # changed since the request
                raise JsonRpcContentModified()
        return document

    def request(self, document: _Document, op: str) -> _Request:
        assert document.path is not None
        return _Request(
            op,
            str(document.path),
            document.texts(),
            document.cells is not None,
            overrides=self.overrides,
            unsafe=self.unsafe,
        )

    async def fixed(self, document: _Document) -> _Fixed:
        """Every fix of the document's current text, applied (in the worker, between checks)."""
        if not document.checkable() or sum(map(len, document.texts())) > MAX_BUFFER_CHARS:
            return _Fixed()
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(
            self._thread, self._worker.check, self.request(document, "fix")
        )
        return result if isinstance(result, _Fixed) else _Fixed()

    def _done(self, document: _Document, result: _Result) -> None:
        document.result = result
        document.checked.set()
        self._publish(document)

    async def _run(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            if not self._waiting:
                self._wake.clear()
                await self._wake.wait()
                continue
            uri = next(iter(self._waiting))
            del self._waiting[uri]
            document = self.documents[uri]
            snapshot, refresh, self._refresh = document.snapshot, self._refresh, False
            request = self.request(document, "check")._replace(refresh=refresh)
            result = await loop.run_in_executor(self._thread, self._worker.check, request)
            if not isinstance(result, _Result):
                result = _Result()
            if self.documents.get(uri) is document and document.snapshot is snapshot:
                self._done(document, result)  # (a superseded version's: never)


# -- the server --------------------------------------------------------------

#: the fix-all code action's kind (as Ruff's is ``source.fixAll.ruff``)
FIX_ALL = "source.fixAll.tensorlint"

#: the client's settings (camelCase, as Ruff's server names them) -> ``Config`` fields
_LIST_SETTINGS = {"select": "select", "extendSelect": "extend_select", "ignore": "ignore"}


def _client_settings(value: Any) -> tuple[tuple[tuple[str, Any], ...], bool, list[str]]:
    """(``Config`` overrides, unsafe fixes, problems) of the client's settings:
    ``{"tensorlint": {"select": [...], "extendSelect": [...], "ignore": [...],
    "strict": bool, "unsafeFixes": bool}}`` (or the inner object alone)."""
    if isinstance(value, dict) and isinstance(value.get("tensorlint"), dict):
        value = value["tensorlint"]
    if not isinstance(value, dict):
        return (), False, []
    overrides: dict[str, Any] = {}
    problems: list[str] = []
    for key, field in _LIST_SETTINGS.items():
        given = value.get(key)
        if given is None:
            continue
        if isinstance(given, list) and all(isinstance(code, str) for code in given):
            overrides[field] = tuple(code.strip() for code in given)
        else:
            problems.append(f"`{key}` must be a list of rule codes (not {given!r}); ignored")
    unsafe = False
    for key in ("strict", "unsafeFixes"):
        given = value.get(key)
        if given is None:
            continue
        if not isinstance(given, bool):
            problems.append(f"`{key}` must be true or false (not {given!r}); ignored")
        elif key == "strict":
            overrides["strict"] = given
        else:
            unsafe = given
    return tuple(sorted(overrides.items())), unsafe, problems


def build_server(worker: Optional[_Worker] = None) -> LanguageServer:
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    server = LanguageServer(
        "tensorlint",
        __version__,
        protocol_cls=_protocol_class(),
        notebook_document_sync=lsp.NotebookDocumentSyncOptions(
            notebook_selector=[
                lsp.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[lsp.NotebookCellLanguage(language="python")]
                )
            ],
            save=True,
        ),
    )
    worker = worker or _Worker()
    shut_down = False
    watching: list[asyncio.Future[None]] = []
    resolves = False  #: the client resolves code actions (``codeAction/resolve``) for their edit
    pulls = False  #: the client answers ``workspace/configuration`` (``initialize`` says)

    def send(uri: str, diagnostics: list[lsp.Diagnostic], version: Optional[int]) -> None:
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def publish(document: _Document) -> None:
        result = document.result
        assert result is not None
        problems = []
        if result.error is not None:
            problems.append(_problem(result.error, lsp.DiagnosticSeverity.Error))
        if result.not_checked is not None:
            problems.append(_problem(result.not_checked, lsp.DiagnosticSeverity.Warning))
        if document.cells is None:
            shown = [_to_lsp(document.text, d) for d in result.findings]
            send(document.uri, shown + problems, document.version)
            return
        # a notebook: each cell its findings (the problems: on the first cell)
        for number, cell in enumerate(document.cells, 1):
            found = [_to_lsp(cell.text, d) for d in result.findings if d.cell == number]
            send(cell.uri, found + (problems if number == 1 else []), cell.version)
        uris = tuple(cell.uri for cell in document.cells)
        for gone in set(document.shown) - set(uris):  # no longer a Python code cell
            send(gone, [], None)
        document.shown = uris

    checks = _Checks(publish, worker)

    def encoding() -> str:
        capabilities = getattr(server.protocol, "server_capabilities", None)
        chosen = getattr(capabilities, "position_encoding", None)
        return str(getattr(chosen, "value", chosen) or "utf-16")

    def configure(value: Any) -> None:
        overrides, unsafe, problems = _client_settings(value)
        for problem in problems:
            server.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Warning, message=f"tensorlint settings: {problem}"
                )
            )
        if (overrides, unsafe) == (checks.overrides, checks.unsafe):
            return
        checks.overrides, checks.unsafe = overrides, unsafe
        for document in list(checks.documents.values()):
            checks.changed(document)  # published again with the new settings

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        nonlocal resolves, pulls
        # (a process not running now is not watched: a client in another
        # container or on another machine would stop the server at once)
        if params.process_id is not None and _alive(params.process_id):
            watching.append(asyncio.ensure_future(watch(params.process_id)))
        text = params.capabilities.text_document
        support = text.code_action.resolve_support if text and text.code_action else None
        resolves = support is not None and "edit" in support.properties
        workspace = params.capabilities.workspace
        pulls = bool(workspace is not None and workspace.configuration)
        configure(params.initialization_options)

    async def pull() -> None:
        """Ask the client for the ``tensorlint`` section of its settings
        (``workspace/configuration``: clients such as VS Code and neovim keep
        settings there and send no ``initializationOptions``)."""
        try:
            answer = await server.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="tensorlint")])
            )
        except Exception as error:  # (a client that fails the request: its settings stay)
            server.window_log_message(
                lsp.LogMessageParams(
                    type=lsp.MessageType.Warning,
                    message=f"tensorlint: workspace/configuration failed: {error}",
                )
            )
            return
        if answer and isinstance(answer[0], dict):
            configure(answer[0])

    @server.feature(lsp.INITIALIZED)
    async def initialized(params: lsp.InitializedParams) -> None:
        if pulls:
            await pull()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        if isinstance(params.settings, dict) and "tensorlint" in params.settings:
            configure(params.settings)
        elif pulls:
            await pull()  # (the pull model: the notification only says "ask again")

    async def watch(pid: int) -> None:
        while _alive(pid):
            await asyncio.sleep(_CLIENT_POLL_S)
        worker.stop()
        os._exit(1)  # the client is gone: nobody to answer

    @server.feature(lsp.SHUTDOWN)
    def shutdown(params: None) -> None:
        nonlocal shut_down
        shut_down = True
        worker.stop()

    @server.feature(lsp.EXIT)
    def on_exit(params: None) -> None:
        worker.stop()
        os._exit(0 if shut_down else 1)  # (what was sent is flushed)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        checks.changed(_Document(item.uri, item.version, _Text(item.text, encoding())))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        document = checks.documents.get(params.text_document.uri)
        if document is None or document.cells is not None:
            return
        for change in params.content_changes:
            document.text = document.text.edited(change)
        document.version = params.text_document.version
        checks.changed(document)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        document = checks.documents.get(params.text_document.uri)
        if document is not None:
            checks.changed(document, refresh=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        if params.text_document.uri in checks.owners:
            return  # a notebook's cell: it closes with its notebook
        checks.closed(params.text_document.uri)
        send(params.text_document.uri, [], None)

    # -- notebooks (LSP 3.17 notebook document sync): each Python code cell a text document

    notebooks: dict[str, _Notebook] = {}

    def notebook_changed(notebook: _Notebook, version: int, refresh: bool = False) -> None:
        cells = notebook.python_cells()
        first = cells[0].text if cells else _Text("", encoding())
        document = checks.documents.get(notebook.uri)
        if document is None:
            document = _Document(notebook.uri, version, first, cells)
        document.version, document.text, document.cells = version, first, cells
        checks.owners.update((cell, notebook.uri) for cell in notebook.order)
        checks.changed(document, refresh)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(params: lsp.DidOpenNotebookDocumentParams) -> None:
        given = params.notebook_document
        notebook = _Notebook(given.uri)
        notebook.opened(params.cell_text_documents, encoding())
        notebook.placed(0, 0, given.cells)
        notebooks[given.uri] = notebook
        notebook_changed(notebook, given.version)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(params: lsp.DidChangeNotebookDocumentParams) -> None:
        notebook = notebooks.get(params.notebook_document.uri)
        if notebook is None:
            return
        cells = params.change.cells
        if cells is not None:
            if cells.structure is not None:
                structure = cells.structure
                notebook.opened(structure.did_open or (), encoding())
                for closed in structure.did_close or ():
                    notebook.texts.pop(closed.uri, None)
                    checks.owners.pop(closed.uri, None)
                array = structure.array
                notebook.placed(array.start, array.delete_count, array.cells or ())
            for cell in cells.data or ():
                notebook.kinds[cell.document] = cell.kind
            for content in cells.text_content or ():
                uri = content.document.uri
                if uri in notebook.texts:
                    _, text = notebook.texts[uri]
                    for change in content.changes:
                        text = text.edited(change)
                    notebook.texts[uri] = (content.document.version, text)
        notebook_changed(notebook, params.notebook_document.version)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(params: lsp.DidSaveNotebookDocumentParams) -> None:
        document = checks.documents.get(params.notebook_document.uri)
        if document is not None:
            checks.changed(document, refresh=True)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(params: lsp.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        notebook = notebooks.pop(uri, None)
        document = checks.documents.get(uri)
        checks.closed(uri)
        if notebook is not None:
            for cell in notebook.order:
                checks.owners.pop(cell, None)
        for cell_uri in document.shown if document is not None else ():
            send(cell_uri, [], None)

    # -- code actions: each finding's fix, "disable for this line", fix-all

    def wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
        return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True
        ),
    )
    async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        document = await checks.checked(uri)
        part = document.part(uri) if document is not None else None
        if document is None or part is None:
            return []
        text, findings = part
        only = params.context.only
        actions = []
        if wanted(lsp.CodeActionKind.QuickFix, only):
            actions += fix_actions(uri, text, findings, params.range)
            actions += await noqa_actions(document, uri, text, findings, params.range)
        fixable = any(applicable(d, checks.unsafe) for d in document.result.findings)  # type: ignore[union-attr]
        if fixable and wanted(FIX_ALL, only):
            action = lsp.CodeAction(
                title="tensorlint: fix all auto-fixable problems",
                kind=FIX_ALL,
                data={"uri": uri},
            )
            lazy = only is None and resolves  # (asked for by kind, on save: the edit now)
            if not lazy:
                action = await resolve(action)
            if lazy or action.edit is not None:
                actions.append(action)
        return actions

    def fix_actions(
        uri: str, text: _Text, findings: list[Diagnostic], where: lsp.Range
    ) -> list[lsp.CodeAction]:
        actions = []
        for diagnostic in findings:
            shown = _to_lsp(text, diagnostic)
            if diagnostic.fix is None or not _overlaps(shown.range, where):
                continue
            safe = diagnostic.fix.applicability is Applicability.SAFE
            edits = [
                lsp.TextEdit(
                    range=lsp.Range(start=text.position(e.start), end=text.position(e.end)),
                    new_text=e.content,
                )
                for e in diagnostic.fix.edits
            ]
            title = f"{diagnostic.fix.description} ({diagnostic.code})"
            actions.append(
                lsp.CodeAction(
                    title=title if safe else f"{title}: unsafe, changes what the code does",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    is_preferred=safe,
                    edit=lsp.WorkspaceEdit(changes={uri: edits}),
                )
            )
        return actions

    async def noqa_actions(
        document: _Document, uri: str, text: _Text, findings: list[Diagnostic], where: lsp.Range
    ) -> list[lsp.CodeAction]:
        """ "Disable TLxxx for this line": ``# noqa: TLxxx`` written as
        ``tensorlint check --add-noqa`` writes it (merged into a noqa list)."""
        from tensorlint.baseline import NEVER_WRITTEN

        loop = asyncio.get_running_loop()
        actions = []
        done: set[tuple[str, int]] = set()
        for diagnostic in findings:
            shown = _to_lsp(text, diagnostic)
            key = (diagnostic.code, diagnostic.start.line)
            if key in done or diagnostic.code in NEVER_WRITTEN:
                continue
            if not _overlaps(shown.range, where):
                continue
            done.add(key)
            new = await loop.run_in_executor(None, _with_noqa, document, text, diagnostic)
            if new is None:  # a bare noqa already, or no comment can go there
                continue
            actions.append(
                lsp.CodeAction(
                    title=f"Disable {diagnostic.code} for this line",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=lsp.WorkspaceEdit(changes={uri: [text.replacement(new)]}),
                )
            )
        return actions

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def resolve(action: lsp.CodeAction) -> lsp.CodeAction:
        """A fix-all's edit: every fix (unsafe ones too where the client's
        ``unsafeFixes`` says so), applied by ``tensorlint check --fix``'s engine."""
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        document = await checks.checked(uri) if isinstance(uri, str) else None
        if document is None:
            return action
        snapshot = document.snapshot
        fixed = await checks.fixed(document)
        if document.snapshot is not snapshot:
            from pygls.exceptions import JsonRpcContentModified

            raise JsonRpcContentModified()
        if fixed.texts is None:
            return action
        if document.cells is None:
            parts = [(document.uri, document.text)]
        else:
            parts = [(cell.uri, cell.text) for cell in document.cells]
        changes = {
            where: [text.replacement(new)]
            for (where, text), new in zip(parts, fixed.texts)
            if new != text.text
        }
        if changes:
            action.edit = lsp.WorkspaceEdit(changes=changes)
        return action

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(params: lsp.HoverParams) -> Optional[lsp.Hover]:
        from tensorlint.docs import rule_doc

        uri = params.text_document.uri
        document = await checks.checked(uri)
        part = document.part(uri) if document is not None else None
        if part is None:
            return None
        text, found = part
        at = lsp.Range(start=params.position, end=params.position)
        codes = sorted({d.code for d in found if _overlaps(_to_lsp(text, d).range, at)})
        if not codes:
            return None
        text_shown = "\n\n---\n\n".join(rule_doc(BY_CODE[code]) for code in codes)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text_shown))

    return server


class _Notebook:
    """A notebook's cells as the client sent them: their order, kinds and texts."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.order: list[str] = []  #: every cell's URI, in order
        self.kinds: dict[str, Any] = {}  #: URI -> ``NotebookCellKind``
        self.languages: dict[str, str] = {}
        self.texts: dict[str, tuple[Optional[int], _Text]] = {}  #: URI -> (version, text)

    def opened(self, items: Sequence[Any], encoding: str) -> None:
        for item in items:
            self.texts[item.uri] = (item.version, _Text(item.text, encoding))
            self.languages[item.uri] = item.language_id

    def placed(self, start: int, deleted: int, cells: Sequence[Any]) -> None:
        self.order[start : start + deleted] = [cell.document for cell in cells]
        self.kinds.update((cell.document, cell.kind) for cell in cells)

    def python_cells(self) -> tuple[_Cell, ...]:
        from lsprotocol import types as lsp

        cells = []
        for uri in self.order:
            code = self.kinds.get(uri) == lsp.NotebookCellKind.Code
            if code and uri in self.texts and self.languages.get(uri) == "python":
                version, text = self.texts[uri]
                cells.append(_Cell(uri, version, text))
        return tuple(cells)


def _with_noqa(document: _Document, text: _Text, diagnostic: Diagnostic) -> Optional[str]:
    """``text`` (the document's, or one of its cells') with ``# noqa:
    CODE`` for ``diagnostic`` written as ``check --add-noqa`` writes it; None
    where it writes nothing. A notebook cell's line is written in the joined
    cells, as ``check --add-noqa`` reads an ``.ipynb`` (IPython syntax masked)."""
    from tensorlint.baseline import add_noqa
    from tensorlint.noqa import LINE_ENDS

    if document.cells is None:
        baseline = add_noqa(text.text, [diagnostic])
        return baseline.text if baseline.added else None
    if diagnostic.cell is None:
        return None
    notebook = _notebook(document.texts())
    shift = notebook.cells[diagnostic.cell - 1].first_line - 1
    joined = diagnostic._replace(
        start=diagnostic.start._replace(line=diagnostic.start.line + shift),
        end=diagnostic.end._replace(line=diagnostic.end.line + shift),
    )
    baseline = add_noqa(notebook.python, [joined])
    if not baseline.added:
        return None
    split = re.compile(f"({LINE_ENDS.pattern})")
    pieces = split.split(text.text)  # line, ending, line, ending, ..., last line
    slot = 2 * (diagnostic.start.line - 1)
    if slot >= len(pieces):
        return None
    pieces[slot] = split.split(baseline.text)[2 * (joined.start.line - 1)]
    return "".join(pieces)


def _protocol_class() -> Any:
    from lsprotocol import types as lsp
    from pygls.exceptions import JsonRpcInvalidRequest
    from pygls.protocol import LanguageServerProtocol, lsp_method
    from pygls.protocol.json_rpc import RPCRequest

    class Protocol(LanguageServerProtocol):
        """pygls's protocol, but for two things.

        A request after ``shutdown`` is answered with InvalidRequest, as the
        specification asks (pygls drops it: the client would wait for good).

        The documents' text (and a notebook's cells') is the server's own
        (:class:`_Text`), not pygls's
        ``TextDocument``: that one splits lines where LSP does not, and reads a
        document the client did not send from the disk.
        """

        def handle_message(self, message: Any) -> None:
            if self._shutdown and isinstance(message, RPCRequest):
                error = JsonRpcInvalidRequest("the server is shut down")
                self._send_response(message.id, error=error.to_response_error())
                return
            super().handle_message(message)

        def _handled(self, method: str, params: Any) -> Generator[Any, Any, None]:
            handler = self.fm.features.get(method)
            if handler is not None:
                yield handler, (params,), None

        @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
        def lsp_text_document__did_open(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.TEXT_DOCUMENT_DID_OPEN, params)

        @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
        def lsp_text_document__did_change(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.TEXT_DOCUMENT_DID_CHANGE, params)

        @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
        def lsp_text_document__did_close(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.TEXT_DOCUMENT_DID_CLOSE, params)

        @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
        def lsp_notebook_document__did_open(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.NOTEBOOK_DOCUMENT_DID_OPEN, params)

        @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
        def lsp_notebook_document__did_change(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE, params)

        @lsp_method(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
        def lsp_notebook_document__did_close(self, params: Any) -> Generator[Any, Any, None]:
            yield from self._handled(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE, params)

    return Protocol


def _path_of(uri: str) -> Optional[Path]:
    from pygls.uris import to_fs_path

    path = to_fs_path(uri)
    return Path(path) if path else None


def _to_lsp(text: _Text, diagnostic: Diagnostic) -> lsp.Diagnostic:
    from lsprotocol import types as lsp

    strict = level(diagnostic.code) == "warning"
    return lsp.Diagnostic(
        range=lsp.Range(start=text.position(diagnostic.start), end=text.position(diagnostic.end)),
        message=diagnostic.message,
        severity=lsp.DiagnosticSeverity.Warning if strict else lsp.DiagnosticSeverity.Error,
        code=diagnostic.code,
        source=SOURCE,
    )


def _problem(message: str, severity: lsp.DiagnosticSeverity) -> lsp.Diagnostic:
    from lsprotocol import types as lsp

    start = lsp.Position(line=0, character=0)
    return lsp.Diagnostic(
        range=lsp.Range(start=start, end=start),
        message=message,
        severity=severity,
        source=SOURCE,
    )


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


__all__: Sequence[str] = ["MAX_BUFFER_CHARS", "build_server", "run_server"]
