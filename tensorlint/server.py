"""``tensorlint server``: a Language Server for editors (stdio).

It publishes the findings of ``tensorlint check`` for Python files when they
are opened, changed and saved; offers each finding's fix as a code action
(safe fixes preferred, unsafe ones marked); and shows the rule's
documentation on hover. Each file gets the same settings as in
``tensorlint check``: its nearest ``pyproject.toml``, its
``per-file-ignores``, and its ``exclude`` (an excluded file gets no
findings). The buffer's text is linted, never the file on disk, and nothing
is written: editors apply the edits.

pygls (the ``server`` extra) is imported only here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tensorlint import __version__
from tensorlint.config import ConfigError
from tensorlint.diagnostics import Applicability, Diagnostic
from tensorlint.engine.discovery import is_excluded
from tensorlint.engine.lint import LintError, lint_source
from tensorlint.engine.tree import Tree
from tensorlint.file_settings import Resolver
from tensorlint.registry import BY_CODE, SelectionError
from tensorlint.reporters._common import level

if TYPE_CHECKING:
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer
    from pygls.workspace import TextDocument

SOURCE = "tensorlint"


def run_server() -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as error:
        print(
            f"error: the editor server needs pygls ({error}); install it with "
            "`pip install 'tensorlint[server]'`",
            file=sys.stderr,
        )
        return 2
    build_server().start_io()
    return 0


class _State:
    """The last findings per document version, for code actions and hover."""

    def __init__(self) -> None:
        self.tree = Tree()
        self.resolver = Resolver({})  #: configurations, read once until a save
        self.findings: dict[str, tuple[Optional[int], list[Diagnostic]]] = {}

    def refresh(self) -> None:
        """A file was saved: another module or a pyproject.toml may have changed."""
        self.tree.refresh()
        self.resolver = Resolver({})
        self.findings.clear()


def build_server() -> LanguageServer:
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("tensorlint", __version__)
    state = _State()

    def findings(document: TextDocument) -> list[Diagnostic]:
        known = state.findings.get(document.uri)
        if known is not None and known[0] == document.version:
            return known[1]
        found = _lint(document, state)
        state.findings[document.uri] = (document.version, found)
        return found

    def publish(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        try:
            found = [_to_lsp(document, d) for d in findings(document)]
        except _Unusable as error:
            found = [_problem(str(error))]
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=document.version)
        )

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        state.refresh()
        publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        state.findings.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
    )
    def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        document = server.workspace.get_text_document(params.text_document.uri)
        try:
            found = findings(document)
        except _Unusable:
            return []
        actions = []
        for diagnostic in found:
            shown = _to_lsp(document, diagnostic)
            if diagnostic.fix is None or not _overlaps(shown.range, params.range):
                continue
            safe = diagnostic.fix.applicability is Applicability.SAFE
            edits = [
                lsp.TextEdit(
                    range=document.range_to_client_units(_server_range(e.start, e.end)),
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
    def hover(params: lsp.HoverParams) -> Optional[lsp.Hover]:
        from tensorlint.cli import rule_doc

        document = server.workspace.get_text_document(params.text_document.uri)
        try:
            found = findings(document)
        except _Unusable:
            return None
        at = lsp.Range(start=params.position, end=params.position)
        codes = sorted({d.code for d in found if _overlaps(_to_lsp(document, d).range, at)})
        if not codes:
            return None
        text = "\n\n---\n\n".join(rule_doc(BY_CODE[code]) for code in codes)
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    return server


class _Unusable(Exception):
    """The file's configuration cannot be used: one diagnostic says why."""


def _lint(document: TextDocument, state: _State) -> list[Diagnostic]:
    path = _path_of(document)
    if path is None or path.suffix != ".py":
        return []
    try:
        config = state.resolver.config(path)
        settings = state.resolver.settings(path)
    except (ConfigError, SelectionError) as error:
        raise _Unusable(f"tensorlint configuration: {error}") from None
    if is_excluded(path.absolute(), config.exclude, config.root):
        return []
    try:
        return lint_source(document.source, settings, tree=state.tree.view(path))
    except LintError:
        return []  # mid-edit syntax: the editor's Python server reports it


def _path_of(document: TextDocument) -> Optional[Path]:
    from pygls.uris import to_fs_path

    path = to_fs_path(document.uri)
    return Path(path) if path else None


def _server_range(start: Any, end: Any) -> Any:
    from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

    return ServerTextRange(
        ServerTextPosition(start.line - 1, start.column),
        ServerTextPosition(end.line - 1, end.column),
    )


def _to_lsp(document: TextDocument, diagnostic: Diagnostic) -> lsp.Diagnostic:
    from lsprotocol import types as lsp

    strict = level(diagnostic.code) == "warning"
    return lsp.Diagnostic(
        range=document.range_to_client_units(_server_range(diagnostic.start, diagnostic.end)),
        message=diagnostic.message,
        severity=lsp.DiagnosticSeverity.Warning if strict else lsp.DiagnosticSeverity.Error,
        code=diagnostic.code,
        source=SOURCE,
    )


def _problem(message: str) -> lsp.Diagnostic:
    from lsprotocol import types as lsp

    start = lsp.Position(line=0, character=0)
    return lsp.Diagnostic(
        range=lsp.Range(start=start, end=start),
        message=message,
        severity=lsp.DiagnosticSeverity.Error,
        source=SOURCE,
    )


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


__all__: Sequence[str] = ["build_server", "run_server"]
