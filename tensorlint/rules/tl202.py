from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import Applicability, Edit
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class NumpyWriteThrough(Rule):
    """## What it does
    Checks for `t.numpy()` (after any `.cpu()` or `.detach()`) followed by a
    write that changes the bytes the tensor and the array share, made to
    one side (or a view of it) after the conversion, while the other side
    is still read afterwards or belongs to the caller (a parameter, an
    attribute, a global). A write includes an update the code proves:
    `opt.step()` of an optimizer built over the module,
    `model.load_state_dict(...)`, or a call of a function (in the file or a
    module it imports) that steps an optimizer over the module it is given,
    so a snapshot `w0 = net.fc.weight.data.numpy()` taken before
    `train(net, opt, data)` is reported. A function that returns
    `np.asarray(t.cpu())` of its argument counts as the conversion. The
    conversion handed straight to such a function counts too:
    `to_image(t.detach().numpy())`, where `to_image` scales its argument
    with `array *= 255`, edits the caller's `t`; one that only fills its
    argument whole (`buf[...] = v`, `out=buf`, `np.copyto(buf, v)`) was
    given the alias to fill `t`, and is not reported.

    Not a write into the shared bytes, so never reported: replacing a list
    or dict entry (`out["boxes"] = boxes.numpy()` and then `out["boxes"] =
    ...`), a shape-only method, a write to a name rebound to new memory
    first (`a = a.astype(np.float32)`, a cast between two known types), and
    a later read of the other side's shape or type only (`t.shape`). Nor is
    a write whose other side is only shown afterwards (`print(a)`, or a
    bare `a` ending a notebook cell): a tutorial showing the sharing
    computes nothing from the changed values.

    A parameter's tensor or array, written through the function's
    conversion and used for nothing else, is the caller's only while the
    caller holds it: when every caller is known (calls in the same file,
    none from the project's other files, not a public function of a
    library) and each rebinds the name it passed in the statement that
    makes the call (`noise = eps * _unit(noise)`), or passes a local name
    that nothing reads afterwards (nor the call again, in a loop; nor a
    container, attribute or global holds it), nothing anyone reads
    afterwards changes, and it is not reported.

    Nor is a later read of another constant entry of the name the value was
    converted from (`boxes = out[0].cpu().numpy()`, written, then `out[1]`
    read: another item of a list, or another row of a tensor): it reads
    other bytes.

    A conversion copied into a tensor or array the code made with a factory
    (`table = np.zeros((n, 3))`, then `table[i] = t.numpy()`) leaves no
    alias: an element assignment copies the values, so a later `t.zero_()`
    does not reach `table`.

    ## Why is this bad?
    On a CPU tensor `.numpy()`, `.cpu().numpy()` and
    `.detach().cpu().numpy()` all return a view of the tensor's memory
    (`.cpu()` returns the tensor itself when it is already there). `a += 1`
    on that array silently edits the caller's tensor, even a model
    parameter, and autograd cannot see the write: gradients come out wrong
    with no error. On CUDA the same code copies, so the bug only shows on
    CPU.

    ## Example
    ```python
    import torch

    def shifted(t):
        a = t.detach().cpu().numpy()
        a += 1
        return a
    ```

    ## Use instead
    ```python
    import torch

    def shifted(t):
        a = t.detach().cpu().numpy().copy()
        a += 1
        return a
    ```

    ## Fix safety
    Unsafe: appending `.copy()` changes what the program observes (that is
    the bug fix, unless the sharing was meant). When TL101/TL102 fire on the
    same call their insertions are part of the same fix; with
    `numpy-idiom = "exact-copy"` the chain becomes one
    `.detach().to("cpu", copy=True)` instead, which copies once on any
    device. Sharing on purpose is never reported: a write through the
    conversion itself (`t.numpy()[:] = v`, `np.copyto(t.numpy(), v)`), and an
    array filled whole right after it is made (`a = t.numpy()`, then `a[:] =
    v`, `np.copyto(a, v)`, `out=a`, or in two parts around one bound, `a[:k]
    = u` and `a[k:] = v` on any one axis, the same bound written the same
    way, as pruning code copies the kept filters into a smaller layer: the
    alias exists to fill `t`).
    """

    CODE = "TL202"
    NAME = "numpy-write-through"
    KINDS = frozenset({"numpy", "helper_numpy"})
    TRIGGERS = (r"\.numpy\s*\(",)
    FIX = "unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if site.kind == "helper_numpy":  # a function that returns ``t.numpy()`` of its argument
            message = _alias.write_through(site, ctx, "Tensor.numpy")
            if message is not None:
                ctx.report(
                    self,
                    site.node,
                    message,
                    [ctx.insert_after(site.node, ".copy()")],
                    Applicability.UNSAFE,
                    "Copy the array to break the alias",
                )
            return
        if not site.is_torch_numpy():
            return
        message = _alias.write_through(site, ctx, "Tensor.numpy")
        if message is None:
            return
        ctx.report(
            self,
            site.node,
            message,
            copy_edits(site, ctx),
            Applicability.UNSAFE,
            "Copy the array to break the alias",
        )


def copy_edits(site: Site, ctx: RuleContext) -> list[Edit]:
    """``.copy()`` after ``.numpy()``, with TL101/TL102's insertions if due."""
    cpu, detach = _numpy.missing(site, ctx)
    q = _numpy.quote_for(ctx, site)
    if ctx.settings.numpy_idiom == "exact-copy" and site.is_torch_numpy() and q is not None:
        base = _numpy.strip_device_chain(site.receiver, ctx)
        chain = f".detach().to({q}cpu{q}, copy=True)"
        return [Edit(ctx.end(base), ctx.end(site.receiver), chain)]
    return [*_numpy.prep_edits(site, ctx, cpu, detach), ctx.insert_after(site.node, ".copy()")]
