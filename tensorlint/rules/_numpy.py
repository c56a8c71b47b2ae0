"""Shared by the rules on ``.numpy()`` calls: who fires, and the one edit.

TL101, TL102 and TL202 can all fire on one call. Each builds its fix from
the same pieces so that fixes on one call agree: the insertion before
``.numpy()`` is identical in all of them and is applied once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from tensorlint.analysis import syntax
from tensorlint.diagnostics import Applicability, Edit
from tensorlint.rule import Rule, RuleContext

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site

#: the rules whose fix moves to the CPU / detaches (evidence-based and strict)
DEVICE_CODES = ("TL101", "TL111")
GRAD_CODES = ("TL102", "TL112")

_NUMPY_CALL = re.compile(r"numpy\s*\(\s*(?:force\s*=\s*False\s*)?\)")


def missing(site: Site, ctx: RuleContext) -> tuple[bool, bool]:
    """(needs ``.cpu()``, needs ``.detach()``) as far as the enabled rules say."""
    if not site.is_torch_numpy():
        return False, False
    cpu = any(ctx.enabled(c) for c in DEVICE_CODES) and site.needs_device_move()
    detach = any(ctx.enabled(c) for c in GRAD_CODES) and site.needs_detach()
    return cpu, detach


def report(
    rule: Rule,
    site: Site,
    ctx: RuleContext,
    why: str,
    related: Sequence[tuple[syntax.CSTNode, str]] = (),
    *,
    moves: bool,
    confidence: Optional[str] = None,
) -> None:
    """Report a ``.numpy()`` call missing ``.cpu()`` (``moves``) or ``.detach()``.

    TL101, TL102, TL111 and TL112 share this: the fix and its safety are the
    same whether evidence or the strict profile made the finding (whose
    ``confidence`` is the evidence's, or the rule's without one).
    """
    cpu, detach = missing(site, ctx)
    # moving to the CPU: a write through the result (``t.numpy()[:] = v``)
    # would go to a copy on CUDA after the fix and be lost
    unsafe = (
        site.analysis.other_frameworks
        or (moves and site.written_through_directly())
        or in_self_documenting_fstring(site)
    )
    ctx.report(
        rule,
        site.node,
        f"`.numpy()` on `{ctx.short(site.receiver)}`, {why}",
        prep_edits(site, ctx, cpu, detach),
        Applicability.UNSAFE if unsafe else Applicability.SAFE,
        f"Insert `{chain_text(ctx, cpu, detach, site)}` before `.numpy()`",
        related,
        confidence,
    )


def in_self_documenting_fstring(site: Site) -> bool:
    """``f"{t.numpy()=}"`` prints the expression's text: any edit changes output."""
    return any(
        isinstance(node, syntax.FormattedStringExpression) and node.equal
        for node in site.candidate.ancestors
    )


def quote_for(ctx: RuleContext, site: Optional[Site]) -> Optional[str]:
    """The quote for a string a fix inserts at ``site``: the file's usual one,
    but never one an enclosing f-string uses (Python < 3.12 cannot parse
    that); None when the f-strings around use both."""
    used = {
        node.start[-1]
        for node in (site.candidate.ancestors if site is not None else ())
        if isinstance(node, syntax.FormattedString)
    }
    preferred = ctx.quote()
    for q in (preferred, "'" if preferred == '"' else '"'):
        if q not in used:
            return q
    return None


def chain_text(ctx: RuleContext, cpu: bool, detach: bool, site: Optional[Site] = None) -> str:
    """The calls to insert before ``.numpy()`` in the configured order."""
    idiom = ctx.settings.numpy_idiom
    q = quote_for(ctx, site)
    if idiom == "exact-copy" and q is None:
        idiom = "detach-cpu"  # the same calls without a string to spell
    if idiom == "exact-copy":
        return (".detach()" if detach else "") + (f".to({q}cpu{q}, copy=True)" if cpu else "")
    if idiom == "detach-cpu":
        return (".detach()" if detach else "") + (".cpu()" if cpu else "")
    return (".cpu()" if cpu else "") + (".detach()" if detach else "")


def prep_edits(site: Site, ctx: RuleContext, cpu: bool, detach: bool) -> list[Edit]:
    """The edit that makes ``.numpy()`` safe on any device and grad state."""
    if not (cpu or detach):
        return []
    if ctx.settings.numpy_idiom == "force":
        edit = force_edit(site, ctx)
        if edit is not None:
            return [edit]
    return [ctx.insert_after(site.receiver, chain_text(ctx, cpu, detach, site))]


def force_edit(site: Site, ctx: RuleContext) -> Optional[Edit]:
    node = site.node
    assert isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute)
    start = ctx.start(node.func.attr)
    end = ctx.end(node)
    text = ctx.text(start, end)
    match = _NUMPY_CALL.match(text)
    if match is None:
        return None
    return Edit(start, ctx.offset_position(start, match.end()), "numpy(force=True)")


def strip_device_chain(node: syntax.BaseExpression, ctx: RuleContext) -> syntax.BaseExpression:
    """``t.detach().cpu()`` -> ``t``: the calls exact-copy replaces."""
    while isinstance(node, syntax.Call) and isinstance(node.func, syntax.Attribute):
        func, method = node.func, node.func.attr.value
        if method in ("cpu", "detach") and not node.args:
            node = func.value
            continue
        if method == "to" and len(node.args) == 1:
            device = node.args[0].value
            if isinstance(device, syntax.SimpleString) and device.evaluated_value == "cpu":
                node = func.value
                continue
        break
    return node
