from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import Applicability
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnAcceleratorTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor that may live on a CUDA (or any
    non-CPU) device, with no `.cpu()`, `.to("cpu")` or `numpy(force=True)`
    before it.

    ## Why is this bad?
    `Tensor.numpy()` only works on CPU tensors. On a CUDA tensor it raises
    `TypeError: can't convert cuda:0 device type tensor to numpy`. Code that
    passes its tests on a laptop then crashes on the GPU box. A tensor counts
    as known to be on the CPU when the function shows where it came from:
    `torch.from_numpy`, a factory such as `torch.zeros` without `device=`, or
    a `.cpu()` earlier in the chain.

    ## Example
    ```python
    import torch

    def to_array(t):
        return t.numpy()
    ```

    ## Use instead
    ```python
    import torch

    def to_array(t):
        return t.cpu().detach().numpy()
    ```

    ## Fix safety
    The fix inserts the missing calls right before `.numpy()` in the order
    set by `numpy-idiom` (`cpu-detach` by default). It is safe when the
    receiver is a torch tensor; in a module that also imports another
    framework (TensorFlow, JAX, Paddle, ...) it is unsafe, since `.cpu()`
    would not exist on that framework's tensors, and when the result is
    written through on purpose (`t.numpy()[:] = v`), since on CUDA the write
    would then go to a copy.
    """

    CODE = "TL101"
    NAME = "numpy-on-accelerator-tensor"
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy() or not site.needs_device_move():
            return
        cpu, detach = _numpy.missing(site, ctx)
        # a write through the result (``t.numpy()[:] = v``) would go to a copy on
        # CUDA after the fix and be lost: that needs a person's judgement
        applicability = (
            Applicability.UNSAFE
            if site.analysis.other_frameworks or site.written_through_directly()
            else Applicability.SAFE
        )
        ctx.report(
            self,
            site.node,
            f"`.numpy()` on `{ctx.short(site.receiver)}`, which may be on a CUDA device "
            "(TypeError there); move it to the CPU first",
            _numpy.prep_edits(site, ctx, cpu, detach),
            applicability,
            "Move to the CPU before `.numpy()`",
        )
