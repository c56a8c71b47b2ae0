from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import LOW
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnUnknownDeviceTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor whose device the code does not
    show, with no `.cpu()`, `.to("cpu")` or `numpy(force=True)` before it:
    the conversions TL101 leaves out because nothing in the code says the
    tensor may be on an accelerator. A receiver is torch's in torch code: a
    file that imports torch or a package built on it (torchvision,
    ultralytics, transformers, ...), or a module of the checked tree that
    does; TensorFlow's and JAX's `.numpy()` are not reported.

    ## Why is this bad?
    `Tensor.numpy()` raises `TypeError` on a CUDA tensor. When the origin of
    the tensor is not visible (a parameter of a helper that the file calls,
    an attribute set elsewhere, the result of another function) the call is
    correct only as long as every caller keeps its tensors on the CPU. This
    rule is off by default (most such conversions are safe in practice); the
    strict profile turns it on to migrate a code base to the explicit idiom
    `t.cpu().detach().numpy()` in one go.

    ## Example
    ```python
    import torch

    def _to_array(t):
        return t.numpy()

    def first_batch(loader):
        return _to_array(next(iter(loader)))
    ```

    ## Use instead
    ```python
    import torch

    def _to_array(t):
        return t.cpu().detach().numpy()

    def first_batch(loader):
        return _to_array(next(iter(loader)))
    ```

    ## Fix safety
    As TL101: the missing calls are inserted before `.numpy()`. Safe when the
    receiver is a torch tensor; unsafe in a module that also imports another
    framework, when the result is written through on purpose, or inside a
    self-documenting f-string (`f"{t.numpy()=}"`).
    """

    CODE = "TL111"
    NAME = "numpy-on-unknown-device-tensor"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe or unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy() or not site.needs_device_move():
            return
        if site.device_hazard() is not None:
            return  # TL101's finding
        why = "whose device is not known here (TypeError on CUDA); move it to the CPU first"
        _numpy.report(self, site, ctx, why, moves=True)
