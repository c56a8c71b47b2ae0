from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import LOW
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import tl103

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class ImplicitUnknownTensorToArray(Rule):
    """## What it does
    Checks for `np.asarray(t)`, `np.array(t)` and the other NumPy calls that
    convert a torch tensor (`np.mean`, `np.stack`, ufuncs, `np.save`: the
    measured table in `docs/numpy-functions.md`) and the library calls that
    do the same (`plt.plot(t)`, `ax.imshow(t)`, scikit-learn's metrics,
    `pd.DataFrame(t)`: `docs/library-functions.md`), and stores into a
    sub-array of a NumPy array (`table[i] = t` into `np.zeros((n, k))`),
    given a value known
    to be a torch tensor, or a list of them, whose device and grad state
    the code does not show, and that is not known to be on the CPU and free
    of grad: the conversions TL103 leaves out for lack of evidence.

    ## Why is this bad?
    These calls run `Tensor.__array__`, which raises on CUDA tensors
    and on tensors that require grad, like `Tensor.numpy()`. When the
    tensor's origin is not visible the call works only while every caller
    passes CPU tensors without grad. Off by default; the strict profile turns
    it on to spell every conversion out.

    ## Example
    ```python
    import numpy as np
    import torch

    def _to_array(t: torch.Tensor):
        return np.asarray(t)

    def first_batch(loader):
        return _to_array(next(iter(loader)))
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def _to_array(t: torch.Tensor):
        return t.cpu().detach().numpy()

    def first_batch(loader):
        return _to_array(next(iter(loader)))
    ```

    ## Fix safety
    As TL103: safe when the value is certainly a tensor and the call means
    the same on the converted array; unsafe when only a parameter's
    annotation says it is a tensor, or when the call returned a tensor on a
    CPU tensor (`np.argmax`, ufuncs). No fix for a list filled elsewhere.
    """

    CODE = "TL113"
    NAME = "implicit-unknown-tensor-to-array"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = tl103.ImplicitTensorToArray.KINDS
    TRIGGERS = tl103.ImplicitTensorToArray.TRIGGERS
    LIBRARY_TRIGGERS = tl103.ImplicitTensorToArray.LIBRARY_TRIGGERS
    FIX = "safe or unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        from tensorlint.analysis.facts import CPU, NOGRAD

        every = tl103.converted(site)
        for found in every:
            for value in found.values:
                if site.device_evidence(value) or site.grad_evidence(value):
                    return  # TL103's finding
        for found in every:
            for value in found.values:
                facts = site.facts(value)
                if CPU in facts and (NOGRAD in facts or site.in_no_grad()):
                    continue
                tl103.convert(
                    self, site, ctx, found, "whose device and grad state are not known here (it "
                    "may be on CUDA or require grad)"
                )  # fmt: skip
                return
