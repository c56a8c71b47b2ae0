from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import Applicability
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnGradTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor that may require grad, with no
    `.detach()`, `.data` or `numpy(force=True)` before it, outside a no-grad
    context.

    ## Why is this bad?
    `Tensor.numpy()` raises `RuntimeError: Can't call numpy() on Tensor that
    requires grad` when grad mode is on and the tensor requires grad: a model
    output, a parameter, anything computed from one. It does not fire inside
    `with torch.no_grad():`, `torch.inference_mode()` or a function decorated
    with either, on integer results (`argmax`, comparisons, `.long()`), on
    tensors made by `torch.from_numpy` or a factory without
    `requires_grad=True`, or after an `if t.requires_grad: t = t.detach()`
    guard.

    ## Example
    ```python
    import torch

    def predict(model, x):
        return model(x).numpy()
    ```

    ## Use instead
    ```python
    import torch

    def predict(model, x):
        return model(x).cpu().detach().numpy()
    ```

    ## Fix safety
    The fix inserts `.detach()` (and `.cpu()` when TL101 also fires) right
    before `.numpy()`, in the order set by `numpy-idiom`. Safe when the
    receiver is a torch tensor: the call that raised now returns the values;
    unsafe in a module that also imports another framework.
    """

    CODE = "TL102"
    NAME = "numpy-on-grad-tensor"
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy() or not site.needs_detach():
            return
        cpu, detach = _numpy.missing(site, ctx)
        applicability = (
            Applicability.UNSAFE if site.analysis.other_frameworks else Applicability.SAFE
        )
        ctx.report(
            self,
            site.node,
            f"`.numpy()` on `{ctx.short(site.receiver)}`, which may require grad "
            "(RuntimeError outside no_grad); detach it first",
            _numpy.prep_edits(site, ctx, cpu, detach),
            applicability,
            "Detach before `.numpy()`",
        )
