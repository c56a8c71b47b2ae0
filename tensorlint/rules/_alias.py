"""Shared by the alias rules: the write-through finding and its wording."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tensorlint.analysis import syntax
from tensorlint.rule import RuleContext

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


def write_through(site: Site, ctx: RuleContext, through: str) -> Optional[str]:
    """The message for a write-through at a conversion site, or None."""
    conversion = site.conversion
    function = site.function
    if conversion is None or function.source_is_zero_copy(conversion):
        return None
    owner = site.owner
    discarded = (
        (lambda name: site.analysis.discards_argument(owner, name))
        if isinstance(owner, syntax.FunctionDef)
        else None
    )
    found = function.write_through(conversion, discarded)
    if found is None:
        return None
    write, written, other = found
    line = ctx.analysis.line(write.node)
    other_text = other if other.startswith("the ") else f"`{other}`"
    written = written if written.startswith("the ") else f"`{written}`"
    callee = site.callee
    if callee is not None:  # a helper's return: the conversion is in the helper
        through = f"{callee.describe()}, which returns its argument converted without a copy"
    else:
        through = f"`{through}`"
    if write.by:
        return (
            f"{written} is updated in place at line {line}: {write.by}; this also changes "
            f"{other_text} (they share memory through {through})"
        )
    return (
        f"{written} is written in place at line {line}, which also changes {other_text} "
        f"(they share memory through {through})"
    )


def latent_alias(site: Site) -> bool:
    """TL211-TL213: the result is kept while its persistent root lives on."""
    conversion = site.conversion
    if conversion is None or not site.retained():
        return False
    function = site.function
    if function.source_is_zero_copy(conversion):
        return False
    if function.write_through(conversion) is not None:
        return False  # TL201/TL202 say it more precisely
    if function.filled_through(conversion):
        return False  # the sharing is the point: a copy would lose the fill
    if site.stays_in_function():
        return False  # nothing outside the function can see the alias
    return function.source_persists(conversion)
