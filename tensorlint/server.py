"""``tensorlint server``: a Language Server for editors (stdio).

It publishes the findings of ``tensorlint check`` for Python files when they
are opened, changed and saved; offers each finding's fix as a code action
(safe fixes preferred, unsafe ones marked); and shows the rule's
documentation on hover. Each file gets the same settings as in
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
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from tensorlint import __version__
from tensorlint.analysis.from_ast import line_starts
from tensorlint.config import ConfigError
from tensorlint.diagnostics import Applicability, Diagnostic, Position
from tensorlint.engine.discovery import is_excluded
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.engine.runner import BUDGET_VARIABLE, file_time_budget
from tensorlint.engine.tree import Tree
from tensorlint.extras import install_hint
from tensorlint.file_settings import Resolver
from tensorlint.registry import BY_CODE, SelectionError
from tensorlint.reporters._common import level
from tensorlint.rule import Settings

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

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

    findings: tuple[Diagnostic, ...] = ()
    error: Optional[str] = None  #: the configuration cannot be used
    not_checked: Optional[str] = None  #: too large, too slow, ...


def _serve(connection: Connection, server: int) -> None:
    """The worker process: checks what the server sends, until the server is gone."""
    # the server's stdout is the client's channel: nothing else may write there
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.close(quiet)
    threading.Thread(target=_exit_without, args=(server,), daemon=True).start()
    tree, resolver = Tree(), Resolver({})
    # what a first check imports and builds, before the time limit starts
    lint_source("import torch\nx.numpy()\n", Settings(enabled=frozenset(BY_CODE)))
    connection.send(None)  # ready
    while True:
        try:
            path, text, refresh = connection.recv()
        except (EOFError, OSError):
            return
        if refresh:  # a file was saved: another module or a pyproject.toml may have changed
            tree.refresh()
            resolver = Resolver({})
        connection.send(_check(Path(path), text, tree, resolver))


def _check(path: Path, text: str, tree: Tree, resolver: Resolver) -> _Result:
    try:
        config = resolver.config(path)
        settings = resolver.settings(path)
    except (ConfigError, SelectionError) as error:
        return _Result(error=f"tensorlint configuration: {error}")
    try:
        if is_excluded(path.absolute(), config.exclude, config.root):
            return _Result()
        return _Result(tuple(lint_source(text, settings, tree=tree.view(path))))
    except LintError:
        return _Result()  # mid-edit syntax: the editor's Python server reports it
    except Exception as error:  # a bug in tensorlint must not stop the server
        return _Result(not_checked=f"internal error: {type(error).__name__}: {error}")


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

    def check(self, path: str, text: str, refresh: bool) -> _Result:
        """Check a text (called in one thread at a time); never raises."""
        budget = file_time_budget()
        try:
            connection = self._connection or self._start()
            if connection is None:
                return _Result(not_checked="not checked: the server is shutting down")
            connection.send((path, text, refresh))
            if budget and not connection.poll(budget):
                self._discard()
                return _Result(
                    not_checked=f"not checked: it took longer than {budget:g} s, the time "
                    f"limit per file (set by {BUDGET_VARIABLE}; 0: none)"
                )
            result: _Result = connection.recv()
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
    """An open document: its latest version, and that version's check."""

    def __init__(self, uri: str, version: Optional[int], text: _Text) -> None:
        self.uri = uri
        self.path = _path_of(uri)
        self.version = version
        self.text = text  #: a new ``_Text`` for each change
        self.result: Optional[_Result] = None  #: the check of ``text``, once done
        self.checked = asyncio.Event()  #: set with ``result``, and once closed


class _Checks:
    """The open documents, checked off the message loop, one at a time: the
    latest version of each, in the order they changed."""

    def __init__(self, publish: Callable[[_Document], None], worker: _Worker) -> None:
        self.documents: dict[str, _Document] = {}
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
        if document.path is None or document.path.suffix != ".py":
            self._done(document, _Result())
        elif len(document.text.text) > MAX_BUFFER_CHARS:
            size = len(document.text.text) / (1024 * 1024)
            limit = MAX_BUFFER_CHARS // (1024 * 1024)
            self._done(
                document,
                _Result(
                    not_checked=f"not checked: this buffer is too large ({size:.1f} MB; "
                    f"the limit is {limit} MB)"
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

    async def checked(self, uri: str) -> Optional[_Document]:
        """The open document, checked; None for one not open (never read from disk)."""
        from pygls.exceptions import JsonRpcContentModified

        document = self.documents.get(uri)
        if document is None:
            return None
        text = document.text
        while document.result is None:
            await document.checked.wait()
            if self.documents.get(uri) is not document:
                return None
            if document.text is not text:  # changed since the request
                raise JsonRpcContentModified()
        return document

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
            text, refresh, self._refresh = document.text, self._refresh, False
            result = await loop.run_in_executor(
                self._thread, self._worker.check, str(document.path), text.text, refresh
            )
            if self.documents.get(uri) is document and document.text is text:
                self._done(document, result)  # (a superseded version's: never)


# -- the server --------------------------------------------------------------


def build_server(worker: Optional[_Worker] = None) -> LanguageServer:
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("tensorlint", __version__, protocol_cls=_protocol_class())
    worker = worker or _Worker()
    shut_down = False
    watching: list[asyncio.Future[None]] = []

    def publish(document: _Document) -> None:
        result = document.result
        assert result is not None
        shown = [_to_lsp(document.text, d) for d in result.findings]
        if result.error is not None:
            shown.append(_problem(result.error, lsp.DiagnosticSeverity.Error))
        if result.not_checked is not None:
            shown.append(_problem(result.not_checked, lsp.DiagnosticSeverity.Warning))
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=document.uri, diagnostics=shown, version=document.version
            )
        )

    checks = _Checks(publish, worker)

    def encoding() -> str:
        capabilities = getattr(server.protocol, "server_capabilities", None)
        chosen = getattr(capabilities, "position_encoding", None)
        return str(getattr(chosen, "value", chosen) or "utf-16")

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        # (a process not running now is not watched: a client in another
        # container or on another machine would stop the server at once)
        if params.process_id is not None and _alive(params.process_id):
            watching.append(asyncio.ensure_future(watch(params.process_id)))

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
        if document is None:
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
        checks.closed(params.text_document.uri)
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
    )
    async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        document = await checks.checked(params.text_document.uri)
        if document is None or document.result is None:
            return []
        text = document.text
        actions = []
        for diagnostic in document.result.findings:
            shown = _to_lsp(text, diagnostic)
            if diagnostic.fix is None or not _overlaps(shown.range, params.range):
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
                    edit=lsp.WorkspaceEdit(changes={document.uri: edits}),
                )
            )
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(params: lsp.HoverParams) -> Optional[lsp.Hover]:
        from tensorlint.docs import rule_doc

        document = await checks.checked(params.text_document.uri)
        if document is None or document.result is None:
            return None
        at = lsp.Range(start=params.position, end=params.position)
        found = document.result.findings
        codes = sorted({d.code for d in found if _overlaps(_to_lsp(document.text, d).range, at)})
        if not codes:
            return None
        text = "\n\n---\n\n".join(rule_doc(BY_CODE[code]) for code in codes)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    return server


def _protocol_class() -> Any:
    from lsprotocol import types as lsp
    from pygls.exceptions import JsonRpcInvalidRequest
    from pygls.protocol import LanguageServerProtocol, lsp_method
    from pygls.protocol.json_rpc import RPCRequest

    class Protocol(LanguageServerProtocol):
        """pygls's protocol, but for two things.

        A request after ``shutdown`` is answered with InvalidRequest, as the
        specification asks (pygls drops it: the client would wait for good).

        The documents' text is the server's own (:class:`_Text`), not pygls's
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
