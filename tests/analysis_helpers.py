"""Small helpers to ask the analysis layer questions about a snippet."""

from __future__ import annotations

import textwrap
from typing import Any, Optional

from tensorlint.analysis.parse import parse_whole
from tensorlint.analysis.sites import ModuleAnalysis, Site


def analyze(
    code: str,
    *,
    assume_torch: bool = False,
    library: bool = True,
    target_version: Optional[tuple[int, int]] = None,
) -> ModuleAnalysis:
    source = textwrap.dedent(code)
    return ModuleAnalysis(
        parse_whole(source),
        source,
        assume_torch=assume_torch,
        library=library,
        target_version=target_version,
    )


def site(code: str, text: str, kind: str = "", **kwargs: Any) -> Site:
    """The one site whose source text is ``text`` (and of ``kind``, if given)."""
    analysis = analyze(code, **kwargs)
    found = [
        s
        for s in analysis.sites()
        if analysis.code(s.node).strip() == text and (not kind or s.kind == kind)
    ]
    assert len(found) == 1, [analysis.code(s.node) for s in analysis.sites()]
    return found[0]
