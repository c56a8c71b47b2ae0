from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.rule import BY_EVIDENCE, Rule, RuleContext
from tensorlint.rules import _evidence, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnGradTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor that the code shows may require
    grad, with no `.detach()`, `.data` or `numpy(force=True)` before it. The
    message names the evidence and its line.

    ## Why is this bad?
    `Tensor.numpy()` raises `RuntimeError: Can't call numpy() on Tensor that
    requires grad` on any tensor that requires grad. Evidence that it may: a
    trainable parameter (`nn.Parameter`, `.parameters()`, a module's
    `.weight`), `requires_grad=True` or `requires_grad_()`, a module's output
    or anything computed from one with grad enabled (parameter-free modules
    such as `nn.ReLU()` or a loss add none), what the project's other files
    pass to a public function, what a caller in the file passes (`cls.f(x)`
    in a class method passes to its class's `f`; a wrapper a public
    decorator returns takes its callers' values; what an object's own
    method returns, `learn.get_preds()`, is no caller's value; the data
    fastai's pipelines give a `Transform`'s `encodes` never requires grad),
    or the
    result of a function or of a method of an instance made in the file
    (in the file or imported from the checked tree) that returns a value
    computed with grad enabled from a module's output or parameters. A
    method a
    base class calls on `self` runs in the grad mode of those calls, and a
    function every caller in the project's other files runs under
    `no_grad` runs so, calls up (a tracker's `reid()`, called by a `step()`
    its driver runs under `no_grad`). A function annotated to return a
    module (`-> nn.Module`) returns the module, not its output.
    In a suite pytest or unittest runs (a top-level `def test_...`, or a
    pytest or unittest import and a test; not a trainer's `test_epoch`
    method, nor a script's `def test(model, loader)`), in library code too, nothing is
    evidence, since a conversion that raises for grad raises on every
    machine and a suite that passes has run it; except in a test
    skipped where no GPU is (`@pytest.mark.skipif(not
    torch.cuda.is_available(), ...)`, a `gpu` or `cuda` marker, a module's
    `pytestmark`), which may never have run. Examples, scripts and
    notebooks that never name an accelerator run as written on the CPU:
    there an example, a script or a notebook counts only a tensor
    it makes require grad (`requires_grad=True`, `.requires_grad_()`) or
    calls `.backward()` on, not a parameter or a module's output. Inside
    `with torch.no_grad():`, `torch.inference_mode()`, a function decorated
    with either or with the project's own no-grad decorator (a function
    that returns `torch.no_grad()(fn)`, or a factory of one such as YOLOv5's
    `@smart_inference_mode()`), after a `torch.set_grad_enabled(False)`
    statement, or in a
    Lightning `validation_step` / `test_step` / `predict_step` or a hook
    of those loops (`on_validation_epoch_start`, `on_test_end`, ...; or an
    mmengine `BaseMetric.process` or a `Hook`'s `after_val_iter`, run by
    the validation and test loops), or in the
    `forward` of a `torch.autograd.Function` subclass (autograd runs it with
    grad disabled; its `backward` gets gradients that require grad under
    `create_graph=True`), `.numpy()`
    never raises this error (it checks grad mode first), and a value
    computed there does not require grad later; a parameter, a view of one
    (`w.T`, `w[0]`, even made in the block), or a model output computed
    before the block, still does once grad is back on; what a helper
    computes while grad is off does not (`net(x).mean(1).cpu()` returned
    by an `@torch.inference_mode()` helper, or a forward pass of another
    helper it calls). A call given another framework's tensor
    (`encoder(tf.constant(ids))`, a helper returning one) or a NumPy array,
    and no torch tensor, is no torch module's forward pass. A no-grad decorator
    on an `async def` does not reach its body, which runs when awaited; with
    a `target-version` below 1.6, `.numpy()` of a tensor that itself
    requires grad raises under `no_grad` too. Integer and bool results
    (`argmax`, indices from `torch.max(x, 1)`, comparisons, `.any()`,
    `.long()`, and what is computed from them alone), `x.new_zeros(...)`,
    buffers (`register_buffer`, `running_mean`, `state_dict()` values),
    `.detach()`, `torch.from_numpy`, factories without `requires_grad=True`,
    modules frozen with `requires_grad_(False)` or a loop setting every
    parameter's `requires_grad = False` (their output requires grad only
    when an input does), and an `if t.requires_grad: t = t.detach()` guard
    prove there is no grad. A later test that repeats a decision sees only
    the paths it allows (`if force:` twice: where the second fails, the
    first never set `r` to require grad). A forward pass's output that the code already
    moved to the host (`net(x).cpu().numpy()`), in a file that runs no
    backward pass (`.backward()`, `autograd.grad`, a Lightning
    `training_step`), is not evidence unless the module is a `torch.nn` one
    built in the code (`nn.Sequential(nn.Linear(4, 2))`): read by hand on
    code no one here had tuned on, such findings were false 27 times of 28
    (frozen or loaded-for-inference models, callers or framework loops that
    disable grad, out of the file's sight). Nor is a parameter of a public
    library function that no checked code calls (or whose callers in the
    project only pass on their own parameters): that its callers may pass
    a tensor that requires grad is a guess about code nobody shows, and
    read by hand on code no one here had tuned on it was real or weak in 4
    findings of 65 (data, detached or integer values, frozen models, and
    framework loops that disable grad). The strict rule TL112 reports both,
    naming the forward pass or the parameter, as it reports conversions of
    unknown origin.

    ## Example
    ```python
    import torch

    def embed(model, x):
        return model(x).numpy()
    ```

    ## Use instead
    ```python
    import torch

    def embed(model, x):
        return model(x).cpu().detach().numpy()
    ```

    ## Fix safety
    The fix inserts `.detach()` right before `.numpy()`, and `.cpu()` too
    unless the value is known to be on the CPU (whenever TL101 or TL111 is
    enabled, as TL101 is by default), in the order set by `numpy-idiom`:
    `model(x).numpy()` becomes `model(x).cpu().detach().numpy()`. It is safe
    when the receiver is a torch tensor: `.cpu()` of a CPU tensor is the
    tensor itself, and the call that raised now returns the values. It is
    unsafe in a module that also imports another framework (TensorFlow, JAX,
    Paddle, ...), whose tensors have no `.detach()` or `.cpu()`, and inside a
    self-documenting f-string (`f"{t.numpy()=}"`), whose printed text would
    change.
    """

    CODE = "TL102"
    NAME = "numpy-on-grad-tensor"
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe or unsafe"
    CONFIDENCE = BY_EVIDENCE

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy():
            return
        evidence = site.grad_hazard()
        if evidence is None:
            return
        reason, related = _evidence.explain(evidence, ctx)
        note = _evidence.grad_mode_note(site, ctx)
        why = f"which may require grad (RuntimeError there): {reason}{note}"
        _numpy.report(self, site, ctx, why, related, moves=False, confidence=evidence.confidence)
