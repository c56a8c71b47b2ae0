from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.rule import BY_EVIDENCE, Rule, RuleContext
from tensorlint.rules import _evidence, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyOnAcceleratorTensor(Rule):
    """## What it does
    Checks for `.numpy()` on a torch tensor that the code shows may live on
    a CUDA (or any non-CPU) device, with no `.cpu()`, `.to("cpu")` or
    `numpy(force=True)` before it. The message names the evidence and its
    line.

    ## Why is this bad?
    `Tensor.numpy()` only works on CPU tensors. On a CUDA tensor it raises
    `TypeError: can't convert cuda:0 device type tensor to numpy`. Code that
    passes its tests on a laptop then crashes on the GPU box.

    The rule reports on evidence, not on the absence of proof. Evidence is a
    value that is, or is computed from, something moved or created on a
    device that is not known to be the CPU (`.cuda()`, `.to(device)`,
    `device=dev`, a module moved that way, an object any call made with
    `device=dev` such as `init_detector(cfg, device=dev)`, a checkpoint read
    with `torch.load(f)` and no `map_location` in a file that names an
    accelerator (Lightning's `accelerator="cpu"` names the CPU) or gives
    another load a `map_location`, whose tensors come
    back on the device they were saved from, a tensor made with no `device=`
    where the file or a module it imports makes CUDA the default device
    (`torch.set_default_tensor_type("torch.cuda.FloatTensor")`,
    `torch.set_default_device("cuda")`)), the result of a
    function that
    moves it to a device of its own choosing (`return x.to(self.device)`),
    a batch PyTorch Lightning gives a step method or a batch hook
    (`training_step`, `validation_step`, `test_step`, `predict_step`,
    `on_*_batch_start` / `on_*_batch_end` of a class whose base's name ends
    in `LightningModule`, and of a Lightning `Callback`: Lightning moves each
    batch to the module's device first), what a step returned, as its
    `*_epoch_end(self, outputs)` or `on_*_batch_end(self, outputs, ...)`
    hook gets it, a parameter or buffer of an `nn.Module` subclass read in
    one of its methods in library code (`self.weight`, `self.embed.weight`,
    `self.parameters()`: its users may move the module to a GPU; not in
    `__init__`, where it is still where it was made; medium confidence),
    or a parameter of a public library function
    that no code in the file calls (its callers may pass a CUDA tensor). A
    function called in its own file takes what those calls pass: a caller's `.cuda()` is evidence in
    the helper, and the message names the call; so is the parameter of a
    public caller that no code calls, two calls up at most
    (`assert_close(a, b)` calling `as_array(a)`). When the project's other
    files call it, they decide the same way (their own callers in their
    file too: `main()` moves the model, `train(model)` passes it on), and
    one that no file calls keeps the guess; so does the wrapper a public
    decorator returns (`return wraps(fn)(wrapper)`), whose callers are the
    decorated function's. Calls count wherever they are made: in a
    comprehension or a lambda's body (each element of what it iterates),
    through `map(helper, xs)`, of a function defined in a function, and,
    for a method, on an instance a parameter or an assignment is annotated
    with (`encoder: Encoder`) or on an instance of a subclass that
    inherits the method. A module called on inputs made on the CPU
    (`model.net(torch.arange(n))`) computes there: a module on a GPU
    raises on them first. The gradients `backward()` gets from an autograd
    function computed in NumPy (its `forward` returns `torch.from_numpy`
    results) are on the CPU. The guess follows the caller's values, not what
    an object's own method returns: `learn.get_preds()` or `env.step(a)`
    (no method of a tensor, a torch distribution or a container, on an
    object not named like a module) gives no evidence. A parameter named
    `device`, `dtype` or `batch_size` is never a tensor, and one the
    function moves to a device itself (`x_gpu = x.to(self.device)`) is
    given on the host. A method of a Dataset class (`plot(self, sample)`)
    is given the dataset's own samples, read on the host: there the guess
    counts only where a caller in the project shows the cause. A `.cpu()`
    earlier in the chain, `torch.from_numpy`, a factory without `device=`
    (where CUDA is not the default device) or `torch.load(f,
    map_location="cpu")` prove the CPU and silence it, as does a name a
    module of the checked tree binds once to the CPU device (a test
    suite's `DEVICE = torch.device("cpu")` in `conftest.py`), and so does bringing
    the value back under the flag that chose its device (`device = "cuda"
    if use_gpu else "cpu"`, then `if use_gpu: y = y.cpu()`; the flag every
    caller in the file passes for a parameter counts as that parameter). A
    later test that repeats a decision made before it (`if is_np: x =
    torch.from_numpy(x)`, then `if is_np: out.numpy()`; a branch setting
    `kind = "numpy"`, then `if kind == "numpy":`) sees only the paths it
    allows. A test of the
    value's type counts too: under `isinstance(x, tf.Tensor)` (or any other
    framework's type) `x.numpy()` is not torch's. In tests,
    examples, scripts and notebooks that never name an accelerator nor call
    a helper that picks the device at run time (`get_device()`,
    `select_device()`), nothing is evidence of a device. Conversions of
    unknown origin are reported by the strict rule TL111 instead.

    ## Example
    ```python
    import torch

    def predict(model, x):
        x = x.to("cuda")
        return model(x).argmax(1).numpy()
    ```

    ## Use instead
    ```python
    import torch

    def predict(model, x):
        x = x.to("cuda")
        return model(x).argmax(1).cpu().numpy()
    ```

    ## Fix safety
    The fix inserts the missing calls right before `.numpy()` in the order
    set by `numpy-idiom` (`cpu-detach` by default): `.cpu()`, and `.detach()`
    too unless the value is known not to require grad. It is safe when the
    receiver is a torch tensor; in a module that also imports another
    framework (TensorFlow, JAX, Paddle, ...) it is unsafe, since `.cpu()`
    would not exist on that framework's tensors, and when the result is
    written through on purpose (`t.numpy()[:] = v`), since on CUDA the write
    would then go to a copy, and inside a self-documenting f-string
    (`f"{t.numpy()=}"`), whose printed text would change.
    """

    CODE = "TL101"
    NAME = "numpy-on-accelerator-tensor"
    KINDS = frozenset({"numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "safe or unsafe"
    CONFIDENCE = BY_EVIDENCE

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not site.is_torch_numpy():
            return
        evidence = site.device_hazard()
        if evidence is None:
            return
        reason, related = _evidence.explain(evidence, ctx)
        why = f"which may be on a CUDA device (TypeError there): {reason}"
        _numpy.report(self, site, ctx, why, related, moves=True, confidence=evidence.confidence)
