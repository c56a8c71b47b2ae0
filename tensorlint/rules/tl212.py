from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import LOW
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

    Not reported where the array cannot leave its function, where a copy
    costs and buys nothing: a local that is only read (operands,
    comparisons, `a.shape`, ndarray methods that make new arrays such as
    `a.flatten()` or `a.mean()`, and NumPy, torch and builtin functions that
    neither write their argument nor return a view of it: `np.outer(a, b)`,
    `print(a)`), what a Dataset's `__getitem__` returns (a DataLoader's
    collate copies each batch into new memory), and an array assigned into
    the elements of an array made in the function (`buf[i] = t.numpy()`
    copies). An array that is returned, stored, passed to any other callable
    (a metric, a plotting call), bound to another name or captured by a
    closure is still reported.

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
    CONFIDENCE = LOW
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
