"""``tensorlint server`` through a real LSP client (pygls's) over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Optional

import pytest

from tensorlint.server import MAX_BUFFER_CHARS, changed_middle

lsp = pytest.importorskip("lsprotocol.types", reason="pygls is in the test extra")
client_module = pytest.importorskip("pygls.lsp.client", reason="pygls is in the test extra")
uris = pytest.importorskip("pygls.uris", reason="pygls is in the test extra")

GRAD = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"
CLEAN = "import torch\n\n\ndef f(a):\n    return torch.from_numpy(a.copy())\n"
WRITE = "import torch\n\n\ndef f(a):\n    t = torch.from_numpy(a)\n    t += 1\n    return a\n"


class Session:
    """A client with every diagnostics notification the server published."""

    def __init__(self) -> None:
        self.client = client_module.LanguageClient("test-client", "1")
        self.published: list[tuple[str, Any, list[Any]]] = []  #: (uri, version, diagnostics)
        self.initialized: Any = None  #: the server's answer to ``initialize``
        self.sent: dict[str, int] = {}  #: the last version sent, per URI
        self.arrived = asyncio.Event()
        self.pulled: dict[str, Any] = {}  #: the settings ``workspace/configuration`` answers
        self.asked: list[list[Optional[str]]] = []  #: the sections the server asked for

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: Any) -> None:
            self.published.append((params.uri, params.version, list(params.diagnostics)))
            self.arrived.set()

    async def start(
        self,
        root: Path,
        process_id: Optional[int] = None,
        encodings: Optional[list[str]] = None,
        options: Any = None,
        resolve: bool = False,
        pulled: Any = None,
        **environment: str,
    ) -> Any:
        if pulled is not None:  # the client keeps its settings for ``workspace/configuration``
            self.pulled = pulled

            @self.client.feature(lsp.WORKSPACE_CONFIGURATION)
            def configuration(params: lsp.ConfigurationParams) -> list[Any]:
                self.asked.append([item.section for item in params.items])
                return [self.pulled.get(item.section) for item in params.items]

        await self.client.start_io(
            sys.executable, "-m", "tensorlint", "server", env={**os.environ, **environment}
        )
        self.process = self.client._server  # (pygls keeps the server's process there)
        general = lsp.GeneralClientCapabilities(position_encodings=encodings)
        text = None
        if resolve:  # the client asks for a code action's edit with codeAction/resolve
            text = lsp.TextDocumentClientCapabilities(
                code_action=lsp.CodeActionClientCapabilities(
                    resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"])
                )
            )
        result = await asyncio.wait_for(
            self.client.initialize_async(
                lsp.InitializeParams(
                    capabilities=lsp.ClientCapabilities(
                        general=general,
                        text_document=text,
                        workspace=lsp.WorkspaceClientCapabilities(configuration=pulled is not None),
                        notebook_document=lsp.NotebookDocumentClientCapabilities(
                            synchronization=lsp.NotebookDocumentSyncClientCapabilities()
                        ),
                    ),
                    root_uri=uris.from_fs_path(str(root)),
                    process_id=process_id,
                    initialization_options=options,
                )
            ),
            timeout=60,
        )
        self.client.initialized(lsp.InitializedParams())
        return result

    async def diagnostics(self, uri: str, timeout: float = 60) -> list[Any]:
        """The diagnostics published for the last version sent of ``uri``."""

        async def wait() -> list[Any]:
            while True:
                for where, version, found in reversed(self.published):
                    if where == uri and version == self.sent[uri]:
                        return found
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(wait(), timeout=timeout)

    async def republished(self, uri: str, after: int, timeout: float = 60) -> list[Any]:
        """The first diagnostics published for ``uri`` after the first ``after``
        notifications (``len(self.published)`` before the change)."""

        async def wait() -> list[Any]:
            while True:
                for where, _, found in self.published[after:]:
                    if where == uri:
                        return found
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(wait(), timeout=timeout)

    async def request(self, call: Any, timeout: float = 60) -> Any:
        return await asyncio.wait_for(call, timeout=timeout)

    async def stop(self) -> None:
        """Shut the server down; kill it if it does not answer."""
        try:
            if self.process.returncode is None:
                await asyncio.wait_for(self.client.shutdown_async(None), timeout=30)
                self.client.exit(None)
                await asyncio.wait_for(self.process.wait(), timeout=30)
        finally:
            if self.process.returncode is None:
                self.process.kill()
            await self.client.stop()


@contextlib.asynccontextmanager
async def started(
    root: Path,
    process_id: Optional[int] = None,
    encodings: Optional[list[str]] = None,
    options: Any = None,
    resolve: bool = False,
    pulled: Any = None,
    **environment: str,
) -> AsyncIterator[Session]:
    """A session with a server started on ``root`` (``initialized`` holds its
    answer to ``initialize``; ``options`` are its initializationOptions), stopped
    on the way out."""
    session = Session()
    session.initialized = await session.start(
        root, process_id, encodings, options, resolve, pulled, **environment
    )
    try:
        yield session
    finally:
        await session.stop()


def _open(session: Session, uri: str, text: str, version: int = 1) -> None:
    session.sent[uri] = version
    session.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=text
            )
        )
    )


def _change(session: Session, uri: str, text: str, version: int) -> None:
    session.sent[uri] = version
    session.client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _edit(session: Session, uri: str, changes: list[Any], version: int) -> None:
    """Incremental changes (``TextDocumentContentChangePartial``), applied in order."""
    session.sent[uri] = version
    session.client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
    )


def _code_actions(
    session: Session, uri: str, where: Any, timeout: float = 60, only: Optional[list[str]] = None
) -> Any:
    return session.request(
        session.client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=where,
                context=lsp.CodeActionContext(diagnostics=[], only=only),
            )
        ),
        timeout,
    )


def _fixes(actions: Any) -> list[Any]:
    """The findings' own fixes among code actions (not "disable", not fix-all)."""
    return [a for a in actions or () if a.kind == "quickfix" and not a.title.startswith("Disable ")]


async def _fix_actions(session: Session, uri: str, where: Any, timeout: float = 60) -> list[Any]:
    return _fixes(await _code_actions(session, uri, where, timeout))


def _hover(session: Session, uri: str, line: int, character: int, timeout: float = 60) -> Any:
    return session.request(
        session.client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                position=lsp.Position(line=line, character=character),
            )
        ),
        timeout,
    )


# The client's side of positions, written from the LSP specification: a line
# ends at "\n", "\r\n" or "\r" only, and a column counts UTF-16 code units.

_LSP_BREAK = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _LSP_BREAK.finditer(text))]


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _offset(text: str, position: Any) -> int:
    starts = _line_starts(text)
    start = starts[position.line]
    line = _LSP_BREAK.sub(
        "",
        text[start : starts[position.line + 1]]
        if position.line + 1 < len(starts)
        else text[start:],
    )
    column = 0
    while column < len(line) and _units(line[: column + 1]) <= position.character:
        column += 1
    assert _units(line[:column]) == position.character, "a position inside a character"
    return start + column


def _position(text: str, offset: int) -> Any:
    starts = _line_starts(text)
    line = max(i for i, start in enumerate(starts) if start <= offset)
    return lsp.Position(line=line, character=_units(text[starts[line] : offset]))


def _range(text: str, start: int, end: int) -> Any:
    return lsp.Range(start=_position(text, start), end=_position(text, end))


def _in(text: str, where: Any) -> str:
    return text[_offset(text, where.start) : _offset(text, where.end)]


def _applied(text: str, edits: list[Any]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def test_diagnostics_code_actions_and_hover(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))  # (never saved to disk)
            _open(session, uri, GRAD)
            found = await session.diagnostics(uri)
            assert sorted(d.code for d in found) == ["TL101", "TL102"]
            assert all(d.source == "tensorlint" for d in found)
            assert found[0].range.start == lsp.Position(line=4, character=11)

            actions = _fixes(
                await session.client.text_document_code_action_async(
                    lsp.CodeActionParams(
                        text_document=lsp.TextDocumentIdentifier(uri=uri),
                        range=found[0].range,
                        context=lsp.CodeActionContext(diagnostics=found),
                    )
                )
            )
            edits = [e for a in actions for e in a.edit.changes[uri]]
            assert len(actions) == 2  # one per finding, each the whole idiom
            assert {e.new_text for e in edits} == {".cpu().detach()"}
            assert all(a.is_preferred for a in actions)  # both are safe fixes

            hover = await session.client.text_document_hover_async(
                lsp.HoverParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri),
                    position=lsp.Position(line=4, character=30),
                )
            )
            assert "numpy-on-grad-tensor" in hover.contents.value
            assert "numpy-on-accelerator-tensor" in hover.contents.value

            _change(session, uri, CLEAN, 2)
            assert await session.diagnostics(uri) == []

            _change(session, uri, WRITE, 3)
            (found,) = await session.diagnostics(uri)
            assert found.code == "TL201"
            actions = _fixes(
                await session.client.text_document_code_action_async(
                    lsp.CodeActionParams(
                        text_document=lsp.TextDocumentIdentifier(uri=uri),
                        range=found.range,
                        context=lsp.CodeActionContext(diagnostics=[found]),
                    )
                )
            )
            assert actions and not actions[0].is_preferred  # an unsafe fix, marked
            assert "unsafe" in actions[0].title

    asyncio.run(scenario())


def test_the_files_configuration_applies(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorlint]\nignore = ["TL101"]\nexclude = ["gen"]\n', encoding="utf-8"
    )

    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            assert [d.code for d in await session.diagnostics(uri)] == ["TL102"]
            excluded = uris.from_fs_path(str(tmp_path / "gen" / "model.py"))
            _open(session, excluded, GRAD)
            assert await session.diagnostics(excluded) == []

    asyncio.run(scenario())


#: str.splitlines() ends a line at each of these; LSP (and Python) do not
NOT_BREAKS = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"
ASTRAL = "\U0001f600"  # two UTF-16 code units
FINDING = f"    y = ['{ASTRAL}', model(x.cuda()).numpy()]"
FOUND = "model(x.cuda()).numpy()"  #: the text of each of its findings' ranges
FIXED = f"    y = ['{ASTRAL}', model(x.cuda()).cpu().detach().numpy()]"


def _assert_placed(text: str, found: list[Any], actions: list[Any], uri: str) -> None:
    """Each finding spans ``FOUND``; each fix makes its line ``FIXED``."""
    assert all(_in(text, d.range) == FOUND for d in found), [_in(text, d.range) for d in found]
    for action in actions:
        fixed = _applied(text, action.edit.changes[uri])
        (line,) = set(_LSP_BREAK.split(fixed)) - set(_LSP_BREAK.split(text))
        assert line == FIXED


def test_positions_count_lsp_lines_and_utf16_units(tmp_path: Path) -> None:
    text = (
        f"import torch\n# {NOT_BREAKS} {ASTRAL}\n\x0c\n\n"
        f"def f(model, x):  # {NOT_BREAKS}\r    # \u2028\r\n{FINDING}\n    return y\n"
    )

    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, text)
            found = await session.diagnostics(uri)
            assert sorted(d.code for d in found) == ["TL101", "TL102"]
            assert found[0].range.start == lsp.Position(line=6, character=15)  # UTF-16 units
            actions = await _fix_actions(session, uri, _range(text, 0, len(text)))
            assert len(actions) == 2
            _assert_placed(text, found, actions, uri)

            # an incremental change after them lands where the client put it
            at = text.index("    return")
            edited = text[:at] + f"\x0c# {NOT_BREAKS}\n{FINDING}\n" + text[at:]
            change = lsp.TextDocumentContentChangePartial(
                range=_range(text, at, at), text=edited[at : len(edited) - len(text) + at]
            )
            _edit(session, uri, [change], 2)
            found = await session.diagnostics(uri)
            assert len(found) == 4
            actions = await _fix_actions(session, uri, _range(edited, 0, len(edited)))
            assert len(actions) == 4
            _assert_placed(edited, found, actions, uri)

    asyncio.run(scenario())


@pytest.mark.parametrize(("encoding", "column"), [("utf-8", 17), ("utf-32", 14)])
def test_the_position_encoding_the_client_chose(tmp_path: Path, encoding: str, column: int) -> None:
    text = f"import torch\n\n\ndef f(model, x):\n{FINDING}\n    return y\n"

    async def scenario() -> None:
        async with started(tmp_path, encodings=[encoding]) as session:
            result = session.initialized
            assert result.capabilities.position_encoding == encoding
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, text)
            found = await session.diagnostics(uri)
            assert {d.range.start.character for d in found} == {column}  # after the astral one
            # an incremental change counts the same units
            at = lsp.Position(line=4, character=column)
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=at, end=at), text="2 * "
            )
            _edit(session, uri, [change], 2)
            found = await session.diagnostics(uri)
            assert {d.range.start.character for d in found} == {column + 4}

    asyncio.run(scenario())


class _Buffer:
    """A Python buffer as lines, edited at random the way an editor would."""

    JUNK = [*NOT_BREAKS, ASTRAL, "\u00e9", "a", " ", "#"]

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.head = [("import torch", "\n"), ("", "\n"), ("", "\n"), ("def f(model, x):", "\n")]
        junk = "    # " + "".join(self.JUNK)
        self.body = [(FINDING, "\n"), (junk, "\r\n"), (FINDING, "\r"), (junk, "\n")]
        self.tail = [("    return y", "\n")]

    def text(self) -> str:
        return "".join(line + end for line, end in self.head + self.body + self.tail)

    def _line(self) -> str:
        junk = "".join(self.rng.choice(self.JUNK) for _ in range(self.rng.randrange(6)))
        return self.rng.choice([FINDING, FINDING, "    y = x", f"    # {junk}", "\x0c", ""])

    def mutate(self) -> None:
        rng, body = self.rng, self.body
        at = rng.randrange(len(body))
        line, end = body[at]
        kind = rng.choice(["insert", "insert", "delete", "break", "comment", "comment"])
        if kind == "insert":
            body.insert(
                rng.randrange(len(body) + 1), (self._line(), rng.choice(["\n", "\r\n", "\r"]))
            )
        elif kind == "delete" and len(body) > 1:
            del body[at]
        elif kind == "break":
            body[at] = (line, rng.choice(["\n", "\r\n", "\r"]))
        elif "#" in line:  # in a comment: insert or delete characters
            cut = rng.randrange(line.index("#") + 1, len(line) + 1)
            if rng.random() < 0.6:
                body[at] = (
                    line[:cut] + rng.choice(self.JUNK) * rng.randrange(1, 3) + line[cut:],
                    end,
                )
            else:
                body[at] = (line[:cut] + line[cut + rng.randrange(1, 4) :], end)


def _diff(old: str, new: str) -> Any:
    """The one change that makes ``new`` of ``old`` (never splitting a CR LF)."""
    start, old_end, new_end = changed_middle(old, new)
    change = lsp.TextDocumentContentChangePartial(
        range=_range(old, start, old_end), text=new[start:new_end]
    )
    assert _applied(old, [lsp.TextEdit(range=change.range, new_text=change.text)]) == new
    return change


def test_random_incremental_edits_match_a_fresh_analysis(tmp_path: Path) -> None:
    """Random edit sequences (line breaks LSP does and does not count, astral
    characters) leave the server with the findings and fixes of the final text."""

    async def scenario() -> None:
        async with started(tmp_path) as session:
            for seed in range(4):
                rng = random.Random(seed)
                buffer = _Buffer(rng)
                uri = uris.from_fs_path(str(tmp_path / f"edited{seed}.py"))
                text = buffer.text()
                _open(session, uri, text)
                for version in range(2, 32):
                    changes = []
                    for _ in range(rng.choice([1, 1, 2, 3])):  # a few changes in one message
                        buffer.mutate()
                        changes.append(_diff(text, buffer.text()))
                        text = buffer.text()
                    _edit(session, uri, changes, version)
                    if rng.random() < 0.2:  # now and then, the client waits for the findings
                        await session.diagnostics(uri)
                edited = await session.diagnostics(uri)

                fresh = uris.from_fs_path(str(tmp_path / f"fresh{seed}.py"))
                _open(session, fresh, text)
                expected = await session.diagnostics(fresh)

                def shown(found: list[Any]) -> list[Any]:
                    return sorted((d.code, repr(d.range), d.message) for d in found)

                assert shown(edited) == shown(expected)
                assert len(expected) == 2 * text.count(FINDING) > 0
                whole = _range(text, 0, len(text))
                actions = await _fix_actions(session, uri, whole)
                fresh_actions = await _fix_actions(session, fresh, whole)

                def fixes(found: list[Any], uri: str) -> list[Any]:
                    return sorted(
                        (a.title, [(repr(e.range), e.new_text) for e in a.edit.changes[uri]])
                        for a in found
                    )

                assert fixes(actions, uri) == fixes(fresh_actions, fresh)
                assert len(actions) == len(expected)
                _assert_placed(text, edited, actions, uri)

    asyncio.run(scenario())


#: a buffer under the size limit that takes longer than a second to check
SLOW = "import torch\n\n\n" + "".join(
    f"def f{i}(a, b):\n    c = a + b\n    return torch.from_numpy(c.copy())\n\n\n"
    for i in range(12000)
)


def test_a_buffer_over_the_size_limit_is_not_checked(tmp_path: Path) -> None:
    large = GRAD + "# " + "x" * MAX_BUFFER_CHARS + "\n"

    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, large)
            (found,) = await session.diagnostics(uri)
            assert "not checked" in found.message and "1 MB" in found.message, found.message
            assert found.severity == lsp.DiagnosticSeverity.Warning
            assert list(await _code_actions(session, uri, _range(large, 0, len(large)))) == []
            # its changes are kept: once under the limit, it is checked
            at = len(GRAD)
            _edit(
                session,
                uri,
                [
                    lsp.TextDocumentContentChangePartial(
                        range=_range(large, at, len(large)), text=""
                    )
                ],
                2,
            )
            assert sorted(d.code for d in await session.diagnostics(uri)) == ["TL101", "TL102"]

    asyncio.run(scenario())


def test_a_check_stops_at_the_time_limit(tmp_path: Path) -> None:
    assert len(SLOW) < MAX_BUFFER_CHARS

    async def scenario() -> None:
        async with started(tmp_path, TENSORLINT_FILE_TIMEOUT="1") as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, SLOW)
            (found,) = await session.diagnostics(uri)
            assert "took longer than 1 s" in found.message, found.message
            _change(session, uri, GRAD, 2)  # the next check runs
            assert sorted(d.code for d in await session.diagnostics(uri)) == ["TL101", "TL102"]

    asyncio.run(scenario())


def test_the_server_answers_while_it_checks(tmp_path: Path) -> None:
    """A long check runs off the message loop: ``shutdown`` and ``exit`` are
    answered at once, and the server exits with 0."""

    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, SLOW)
            await asyncio.wait_for(session.client.shutdown_async(None), timeout=20)
            session.client.exit(None)
            assert await asyncio.wait_for(session.process.wait(), timeout=20) == 0

    asyncio.run(scenario())


def test_only_the_latest_version_is_published(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            _change(session, uri, CLEAN, 2)
            _change(session, uri, WRITE, 3)
            _change(session, uri, GRAD, 4)
            assert sorted(d.code for d in await session.diagnostics(uri)) == ["TL101", "TL102"]
            assert [version for _, version, _ in session.published] == [4]

    asyncio.run(scenario())


def test_requests_after_shutdown_are_invalid_and_exit_codes(tmp_path: Path) -> None:
    exceptions = pytest.importorskip("pygls.exceptions", reason="pygls is in the test extra")

    async def scenario(shutdown: bool) -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            await session.diagnostics(uri)
            if shutdown:
                await session.request(session.client.shutdown_async(None))
                with pytest.raises(exceptions.JsonRpcInvalidRequest):
                    await _hover(session, uri, 4, 30)
            session.client.exit(None)
            # the LSP specification: 0 after a shutdown request, 1 without one
            assert await asyncio.wait_for(session.process.wait(), timeout=30) == (
                0 if shutdown else 1
            )

    asyncio.run(scenario(shutdown=True))
    asyncio.run(scenario(shutdown=False))


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
def test_an_unopened_document_is_never_read(tmp_path: Path) -> None:
    """Requests about a document the client has not opened get no answer
    from the disk: not from a FIFO (which would block), nor an endless file."""
    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "model.py").write_text(GRAD, encoding="utf-8")

    async def scenario() -> None:
        async with started(tmp_path) as session:
            for name in ["fifo.py", "zero.py", "model.py"]:
                uri = uris.from_fs_path(str(tmp_path / name))
                everything = lsp.Range(
                    start=lsp.Position(line=0, character=0), end=lsp.Position(line=9, character=0)
                )
                assert list(await _code_actions(session, uri, everything, timeout=20)) == []
                assert await _hover(session, uri, 4, 30, timeout=20) is None
            opened = uris.from_fs_path(str(tmp_path / "opened.py"))
            _open(session, opened, GRAD)
            assert len(await session.diagnostics(opened)) == 2

    asyncio.run(scenario())


def test_the_server_exits_when_its_client_is_gone(tmp_path: Path) -> None:
    """initialize's processId: the server exits once that process is gone,
    though its stdin stays open."""
    client = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

    async def scenario() -> None:
        async with started(tmp_path, process_id=client.pid) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            await session.diagnostics(uri)
            await asyncio.sleep(2)
            assert session.process.returncode is None  # the client is alive
            client.kill()
            client.wait()
            await asyncio.wait_for(session.process.wait(), timeout=30)

    try:
        asyncio.run(scenario())
    finally:
        client.kill()
        client.wait()


def _children(pid: int) -> list[int]:
    """The running (not zombie) children of ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        state, parent = stat[stat.rindex(")") + 2 :].split()[:2]
        if int(parent) == pid and state != "Z":
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_the_worker_does_not_outlive_the_server(tmp_path: Path) -> None:
    """A server killed in the middle of a check leaves no process behind."""

    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, SLOW)  # a check of a minute: the worker is busy
            clock = asyncio.get_running_loop().time
            deadline = clock() + 30

            def workers() -> list[int]:
                return [
                    pid
                    for pid in _children(session.process.pid)
                    if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
                ]

            while not workers():
                assert clock() < deadline, "no worker started"
                await asyncio.sleep(0.1)
            await asyncio.sleep(1)
            left = _children(session.process.pid)  # (and multiprocessing's resource tracker)
            session.process.kill()
            await session.process.wait()
            deadline = clock() + 30
            while any(_running(pid) for pid in left):
                assert clock() < deadline, "a process the server started is still there"
                await asyncio.sleep(0.1)

    asyncio.run(scenario())


# -- fix-all, "disable for this line", the client's settings, notebooks ------

FIX_ALL = "source.fixAll.tensorlint"
#: TL101 and TL102 (one safe fix), and TL201 (an unsafe fix)
MIXED = (
    "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n\n\n"
    "def g(a):\n    t = torch.from_numpy(a)\n    t += 1\n    return a\n"
)
#: TL211, a rule of the strict profile only
STRICT = "import torch\n\n\ndef f(a):\n    return torch.from_numpy(a)\n"


def _engine_fixed(path: Path, text: str, unsafe: bool) -> str:
    """What ``tensorlint check --fix`` (its engine) makes of ``text`` at ``path``."""
    from tensorlint.file_settings import settings_for_file
    from tensorlint.fix.apply import fix_source

    return fix_source(text, settings_for_file(path), unsafe=unsafe).source


def test_fix_all_applies_every_safe_fix(tmp_path: Path) -> None:
    path = tmp_path / "model.py"

    async def scenario() -> None:
        async with started(tmp_path) as session:
            provider = session.initialized.capabilities.code_action_provider
            assert FIX_ALL in provider.code_action_kinds
            uri = uris.from_fs_path(str(path))
            _open(session, uri, MIXED)
            assert sorted(d.code for d in await session.diagnostics(uri)) == [
                "TL101",
                "TL102",
                "TL201",
            ]
            # as an editor asks on save: by kind, wherever the cursor is
            nowhere = lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(0, 0))
            (action,) = await _code_actions(session, uri, nowhere, only=["source.fixAll"])
            assert action.kind == FIX_ALL
            fixed = _applied(MIXED, action.edit.changes[uri])
            assert fixed == _engine_fixed(path, MIXED, unsafe=False) != MIXED
            assert ".cpu().detach().numpy()" in fixed and "from_numpy(a)" in fixed  # safe only
            # a quick fix request does not get it; a request without a kind does
            quick = await _code_actions(session, uri, nowhere, only=["quickfix"])
            assert all(a.kind == "quickfix" for a in quick)
            everything = await _code_actions(session, uri, _range(MIXED, 0, len(MIXED)))
            assert [a.kind for a in everything].count(FIX_ALL) == 1

            # the client's unsafeFixes: the unsafe fix too
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"tensorlint": {"unsafeFixes": True}})
            )
            (action,) = await _code_actions(session, uri, nowhere, only=[FIX_ALL])
            unsafe = _applied(MIXED, action.edit.changes[uri])
            assert unsafe == _engine_fixed(path, MIXED, unsafe=True) != fixed

            # nothing to fix: no fix-all
            _change(session, uri, CLEAN, 2)
            assert await session.diagnostics(uri) == []
            assert list(await _code_actions(session, uri, nowhere, only=[FIX_ALL])) == []

    asyncio.run(scenario())


def test_fix_all_is_resolved_when_the_client_can(tmp_path: Path) -> None:
    path = tmp_path / "model.py"

    async def scenario() -> None:
        async with started(tmp_path, resolve=True) as session:
            uri = uris.from_fs_path(str(path))
            _open(session, uri, MIXED)
            await session.diagnostics(uri)
            actions = await _code_actions(session, uri, _range(MIXED, 0, len(MIXED)))
            (lazy,) = [a for a in actions if a.kind == FIX_ALL]
            assert lazy.edit is None  # computed only when chosen
            resolved = await session.request(session.client.code_action_resolve_async(lazy))
            fixed = _applied(MIXED, resolved.edit.changes[uri])
            assert fixed == _engine_fixed(path, MIXED, unsafe=False)

    asyncio.run(scenario())


def test_disable_a_rule_for_a_line(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with started(tmp_path) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            found = await session.diagnostics(uri)
            actions = await _code_actions(session, uri, found[0].range, only=["quickfix"])
            disable = {a.title: a for a in actions if a.title.startswith("Disable ")}
            assert sorted(disable) == ["Disable TL101 for this line", "Disable TL102 for this line"]
            assert all(a.kind == "quickfix" and not a.is_preferred for a in disable.values())
            text = _applied(GRAD, disable["Disable TL101 for this line"].edit.changes[uri])
            assert text == GRAD.replace(".numpy()\n", ".numpy()  # noqa: TL101\n")
            _change(session, uri, text, 2)
            (left,) = await session.diagnostics(uri)
            assert left.code == "TL102"
            # into the noqa list that is there, as ``check --add-noqa`` does
            (action,) = [
                a
                for a in await _code_actions(session, uri, left.range)
                if a.title == "Disable TL102 for this line"
            ]
            text = _applied(text, action.edit.changes[uri])
            assert text == GRAD.replace(".numpy()\n", ".numpy()  # noqa: TL101, TL102\n")
            _change(session, uri, text, 3)
            assert await session.diagnostics(uri) == []

    asyncio.run(scenario())


def test_the_server_asks_a_client_that_keeps_settings_for_workspace_configuration(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        pulled = {"tensorlint": {"select": ["TL101"]}}
        async with started(tmp_path, pulled=pulled) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            # (the answer may come after a first check with the files' settings:
            # that check is published again with the client's)
            await session.diagnostics(uri)

            async def settled() -> None:
                while True:
                    latest = [found for where, _, found in session.published if where == uri]
                    if [d.code for d in latest[-1]] == ["TL101"]:
                        return
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(settled(), timeout=60)
            assert session.asked and session.asked[0] == ["tensorlint"]
            # the pull model: a change notification without settings means "ask again"
            before = len(session.published)
            session.pulled = {"tensorlint": {"select": ["TL102"]}}
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings=None)
            )
            assert [d.code for d in await session.republished(uri, before)] == ["TL102"]
            assert len(session.asked) == 2

    asyncio.run(scenario())


def test_the_clients_settings_override_the_files(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorlint]\nselect = ["TL102"]\n', encoding="utf-8"
    )

    async def scenario() -> None:
        options = {"tensorlint": {"select": ["TL101", "TL211"]}}
        async with started(tmp_path, options=options) as session:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            strict = uris.from_fs_path(str(tmp_path / "alias.py"))
            _open(session, uri, GRAD)
            _open(session, strict, STRICT)
            assert [d.code for d in await session.diagnostics(uri)] == ["TL101"]
            assert [d.code for d in await session.diagnostics(strict)] == ["TL211"]

            # a change re-publishes the open documents with the new settings
            before = len(session.published)
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(
                    settings={
                        "tensorlint": {
                            "select": ["TL1", "TL2"],
                            "ignore": ["TL102"],
                            "strict": True,
                        }
                    }
                )
            )
            assert [d.code for d in await session.republished(uri, before)] == ["TL101"]
            # a prefix selects a rule of the strict profile with ``strict`` only
            assert [d.code for d in await session.republished(strict, before)] == ["TL211"]
            before = len(session.published)
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(
                    settings={"tensorlint": {"select": ["TL1", "TL2"], "strict": False}}
                )
            )
            assert sorted(d.code for d in await session.republished(uri, before)) == [
                "TL101",
                "TL102",
            ]
            assert await session.republished(strict, before) == []

            before = len(session.published)
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"tensorlint": {"select": ["TL9999"]}})
            )
            (problem,) = await session.republished(uri, before)
            assert "TL9999" in problem.message and problem.severity == lsp.DiagnosticSeverity.Error
            assert len(await session.republished(strict, before)) == 1

            # settings of another tool: nothing changes; back to the file's configuration
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"python": {"analysis": {}}})
            )
            before = len(session.published)
            session.client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"tensorlint": {}})
            )
            assert [d.code for d in await session.republished(uri, before)] == ["TL102"]
            assert await session.republished(strict, before) == []

    asyncio.run(scenario())


def _cell(uri: str, kind: Any = None) -> Any:
    return lsp.NotebookCell(kind=kind or lsp.NotebookCellKind.Code, document=uri)


def _cell_item(session: Session, uri: str, text: str, language: str = "python") -> Any:
    session.sent[uri] = 1
    return lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)


def test_notebook_cells_get_their_findings(tmp_path: Path) -> None:
    notebook = uris.from_fs_path(str(tmp_path / "analysis.ipynb"))
    cells = [f"vscode-notebook-cell:{tmp_path}/analysis.ipynb#W{i}sZmlsZQ%3D%3D" for i in range(4)]
    first = "import torch\n"
    notes = "# model(x.cuda()).numpy() in prose\n"
    third = "%matplotlib inline\ny = model(x.cuda()).numpy()"

    async def scenario() -> None:
        async with started(tmp_path) as session:
            capability = session.initialized.capabilities.notebook_document_sync
            assert capability.notebook_selector[0].notebook == "jupyter-notebook"
            session.client.notebook_document_did_open(
                lsp.DidOpenNotebookDocumentParams(
                    notebook_document=lsp.NotebookDocument(
                        uri=notebook,
                        notebook_type="jupyter-notebook",
                        version=1,
                        cells=[
                            _cell(cells[0]),
                            _cell(cells[1], lsp.NotebookCellKind.Markup),
                            _cell(cells[2]),
                        ],
                    ),
                    cell_text_documents=[
                        _cell_item(session, cells[0], first),
                        _cell_item(session, cells[1], notes, "markdown"),
                        _cell_item(session, cells[2], third),
                    ],
                )
            )
            found = await session.diagnostics(cells[2])
            assert sorted(d.code for d in found) == ["TL101", "TL102"]
            start = lsp.Position(line=1, character=4)  # in the cell, past its magic
            assert all(d.range.start == start for d in found)
            assert await session.diagnostics(cells[0]) == []
            assert not [p for p in session.published if p[0] == cells[1]]  # markdown

            # a cell's code actions: its fixes, "disable", and the notebook's fix-all
            actions = await _code_actions(session, cells[2], found[0].range)
            fixed = _applied(third, _fixes(actions)[0].edit.changes[cells[2]])
            assert fixed == third.replace(".numpy()", ".cpu().detach().numpy()")
            (disable,) = [a for a in actions if a.title == "Disable TL101 for this line"]
            # (the cell's IPython line is masked, as ``check --add-noqa`` reads a notebook)
            assert _applied(third, disable.edit.changes[cells[2]]) == third + "  # noqa: TL101"
            (fix_all,) = await _code_actions(session, cells[2], found[0].range, only=[FIX_ALL])
            assert list(fix_all.edit.changes) == [cells[2]]
            assert _applied(third, fix_all.edit.changes[cells[2]]) == fixed

            # a cell's text changes, and a cell is added before the others
            session.sent[cells[2]] = 2
            session.sent[cells[3]] = 1
            session.client.notebook_document_did_change(
                lsp.DidChangeNotebookDocumentParams(
                    notebook_document=lsp.VersionedNotebookDocumentIdentifier(
                        uri=notebook, version=2
                    ),
                    change=lsp.NotebookDocumentChangeEvent(
                        cells=lsp.NotebookDocumentCellChanges(
                            structure=lsp.NotebookDocumentCellChangeStructure(
                                array=lsp.NotebookCellArrayChange(
                                    start=0, delete_count=0, cells=[_cell(cells[3])]
                                ),
                                did_open=[
                                    lsp.TextDocumentItem(
                                        uri=cells[3],
                                        language_id="python",
                                        version=1,
                                        text="import torch\nz = model(x.cuda()).numpy()\n",
                                    )
                                ],
                            ),
                            text_content=[
                                lsp.NotebookDocumentCellContentChanges(
                                    document=lsp.VersionedTextDocumentIdentifier(
                                        uri=cells[2], version=2
                                    ),
                                    changes=[
                                        lsp.TextDocumentContentChangeWholeDocument(text="y = 1\n")
                                    ],
                                )
                            ],
                        )
                    ),
                )
            )
            assert await session.diagnostics(cells[2]) == []
            found = await session.diagnostics(cells[3])
            assert found and all(d.range.start == lsp.Position(line=1, character=4) for d in found)

            # closed: every cell's findings are withdrawn
            before = len(session.published)
            session.client.notebook_document_did_close(
                lsp.DidCloseNotebookDocumentParams(
                    notebook_document=lsp.NotebookDocumentIdentifier(uri=notebook),
                    cell_text_documents=[lsp.TextDocumentIdentifier(uri=u) for u in cells],
                )
            )
            assert await session.republished(cells[3], before) == []

    asyncio.run(scenario())
