from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpySharedMemory(Rule):
    """## What it does
    Checks for a `.numpy()` result (after any `.cpu()` or `.detach()`) that is
    kept (bound, returned, yielded, stored) while the tensor persists: a
    parameter, an attribute such as a model weight, a global, or a local used
    again later. Off by default; on with `strict = true`.

    ## Why is this bad?
    On a CPU tensor the array is a view of the tensor's memory. A "snapshot"
    such as `w = model.weight.detach().cpu().numpy()` taken before
    `optimizer.step()` keeps changing with the weights on a CPU model, and
    stays fixed on a GPU model: the stale-snapshot bug, which depends on the
    device.

    ## Example
    ```python
    import torch

    def snapshot(model):
        return model.weight.detach().cpu().numpy()
    ```

    ## Use instead
    ```python
    import torch

    def snapshot(model):
        return model.weight.detach().cpu().numpy().copy()
    ```

    ## Fix safety
    Safe: appending `.copy()` gives the array its own memory and no code in
    view relies on the sharing (TL202 reports the cases where some does; an
    array filled whole, `a[:] = v`, relies on it on purpose and is reported
    by neither).
    """

    CODE = "TL212"
    NAME = "numpy-shared-memory"
    DEFAULT = False
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy():
            return
        if not _alias.latent_alias(site):
            return
        ctx.report(
            self,
            site.node,
            f"`{ctx.short(site.node)}` shares memory with a tensor that is still in use; "
            "the array is kept without `.copy()`",
            [ctx.insert_after(site.node, ".copy()")],
            description="Append `.copy()`",
        )
