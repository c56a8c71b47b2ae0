"""``tensorlint server`` through a real LSP client (pygls's) over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

lsp = pytest.importorskip("lsprotocol.types", reason="pygls is in the test extra")
client_module = pytest.importorskip("pygls.lsp.client", reason="pygls is in the test extra")
uris = pytest.importorskip("pygls.uris", reason="pygls is in the test extra")

GRAD = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"
CLEAN = "import torch\n\n\ndef f(a):\n    return torch.from_numpy(a.copy())\n"
WRITE = "import torch\n\n\ndef f(a):\n    t = torch.from_numpy(a)\n    t += 1\n    return a\n"


class Session:
    """A client with the diagnostics the server published, per URI."""

    def __init__(self) -> None:
        self.client = client_module.LanguageClient("test-client", "1")
        self.published: dict[str, list[Any]] = {}
        self.arrived = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: Any) -> None:
            self.published[params.uri] = list(params.diagnostics)
            self.arrived.set()

    async def start(self, root: Path) -> None:
        await self.client.start_io(sys.executable, "-m", "tensorlint", "server")
        await self.client.initialize_async(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(),
                root_uri=uris.from_fs_path(str(root)),
            )
        )
        self.client.initialized(lsp.InitializedParams())

    async def diagnostics(self, uri: str) -> list[Any]:
        await asyncio.wait_for(self.arrived.wait(), timeout=60)
        self.arrived.clear()
        return self.published[uri]

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def _open(session: Session, uri: str, text: str) -> None:
    session.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )


def _change(session: Session, uri: str, text: str, version: int) -> None:
    session.client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def test_diagnostics_code_actions_and_hover(tmp_path: Path) -> None:
    async def scenario() -> None:
        session = Session()
        await session.start(tmp_path)
        try:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))  # (never saved to disk)
            _open(session, uri, GRAD)
            found = await session.diagnostics(uri)
            assert sorted(d.code for d in found) == ["TL101", "TL102"]
            assert all(d.source == "tensorlint" for d in found)
            assert found[0].range.start == lsp.Position(line=4, character=11)

            actions = await session.client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri),
                    range=found[0].range,
                    context=lsp.CodeActionContext(diagnostics=found),
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
            actions = await session.client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri),
                    range=found.range,
                    context=lsp.CodeActionContext(diagnostics=[found]),
                )
            )
            assert actions and not actions[0].is_preferred  # an unsafe fix, marked
            assert "unsafe" in actions[0].title
        finally:
            await session.stop()

    asyncio.run(scenario())


def test_the_files_configuration_applies(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tensorlint]\nignore = ["TL101"]\nexclude = ["gen"]\n', encoding="utf-8"
    )

    async def scenario() -> None:
        session = Session()
        await session.start(tmp_path)
        try:
            uri = uris.from_fs_path(str(tmp_path / "model.py"))
            _open(session, uri, GRAD)
            assert [d.code for d in await session.diagnostics(uri)] == ["TL102"]
            excluded = uris.from_fs_path(str(tmp_path / "gen" / "model.py"))
            _open(session, excluded, GRAD)
            assert await session.diagnostics(excluded) == []
        finally:
            await session.stop()

    asyncio.run(scenario())
