"""Small helpers to ask the analysis layer questions about a snippet."""

from __future__ import annotations

import textwrap

from tensorlint.analysis.parse import parse_whole
from tensorlint.analysis.sites import ModuleAnalysis, Site


def analyze(code: str, *, assume_torch: bool = False, library: bool = True) -> ModuleAnalysis:
    source = textwrap.dedent(code)
    return ModuleAnalysis(parse_whole(source), source, assume_torch=assume_torch, library=library)


def site(code: str, text: str, kind: str = "", **kwargs: bool) -> Site:
    """The one site whose source text is ``text`` (and of ``kind``, if given)."""
    analysis = analyze(code, **kwargs)
    found = [
        s
        for s in analysis.sites()
        if analysis.code(s.node).strip() == text and (not kind or s.kind == kind)
    ]
    assert len(found) == 1, [analysis.code(s.node) for s in analysis.sites()]
    return found[0]
