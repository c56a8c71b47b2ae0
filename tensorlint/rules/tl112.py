from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import LOW
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _evidence, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnUnknownGradTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor that is not known to be free of
    grad, with no `.detach()`, `.data` or `numpy(force=True)` before it,
    outside a no-grad context: the conversions TL102 leaves out because
    nothing in the code says the tensor may require grad, or only a guess
    about callers nobody shows does: a parameter of a public function that
    no code in the checked tree calls (the message names the parameter), or
    a forward pass with grad enabled whose output was moved to the host, in
    a file that trains nothing, of a module the code did not build
    (`net(x).cpu().numpy()`; the message names the pass). The body of an
    `async def` is outside its `@torch.no_grad()` decorator (the body runs
    when awaited); with a `target-version` below 1.6, a tensor that itself
    requires grad (a name, an attribute, or a view of one) is not excused by
    a no-grad context either.

    ## Why is this bad?
    `Tensor.numpy()` raises `RuntimeError` on a tensor that requires grad.
    When the origin of the tensor is not visible, the call is correct only as
    long as no caller hands it a model output or a parameter. This rule is off
    by default; the strict profile turns it on to migrate a code base to the
    explicit idiom `t.cpu().detach().numpy()`.

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
    As TL102: `.detach()` is inserted before `.numpy()`, and `.cpu()` too
    unless the value is known to be on the CPU (with TL101 or TL111 enabled).
    Safe when the receiver is a torch tensor; unsafe in a module that also
    imports another framework, or inside a self-documenting f-string
    (`f"{t.numpy()=}"`).
    """

    CODE = "TL112"
    NAME = "numpy-on-unknown-grad-tensor"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe or unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy() or not site.needs_detach():
            return
        if site.grad_hazard() is not None:
            return  # TL102's finding
        note = _evidence.grad_mode_note(site, ctx)
        guess = site.grad_guess(site.receiver)
        if guess is not None:
            reason, related = _evidence.explain(guess, ctx)
            why = f"which may require grad (RuntimeError there): {reason}{note}"
            _numpy.report(self, site, ctx, why, related, moves=False)
            return
        forward = site.forward_pass(site.receiver)
        if forward is None:
            why = (
                "which is not known to be free of grad (RuntimeError if it "
                f"requires grad); detach it first{note}"
            )
            _numpy.report(self, site, ctx, why, moves=False)
            return
        reason, related = _evidence.explain(forward, ctx)
        why = (
            f"which requires grad (RuntimeError there) unless the module is frozen or grad is "
            f"off where it runs: {reason}{note}"
        )
        _numpy.report(self, site, ctx, why, related, moves=False)
