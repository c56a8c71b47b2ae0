from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import Applicability
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class FromNumpyWriteThrough(Rule):
    """## What it does
    Checks for `torch.from_numpy(src)` followed by a write that changes the
    bytes the array and the tensor share, made to one side (or a view of
    it) after the conversion, while the other side is still read afterwards
    or belongs to the caller (a parameter, an attribute of `self` or of a
    parameter, a global). An attribute of an object the function made
    itself (`frame.values` of `frame = dataset.prepare(...)`) is that
    object's: it counts where the object is read afterwards. Loops
    count: a read earlier in the body follows the write in the next
    iteration. Functions count too, in the file and in the modules it
    imports: a call of a function that returns `torch.from_numpy` of its
    argument is a conversion, and a call of a function that writes its
    argument in place is a write.

    Not a write into the shared bytes, so never reported: replacing a list
    or dict entry (`d[k] = torch.from_numpy(d[k])`: the slot is rebound), a
    shape-only method (`unsqueeze_`, `squeeze_`, `t_`, `transpose_`,
    `resize_`), a write to a name rebound to new memory first (`t =
    t.clone()`, or a cast between two types the code states: `t =
    torch.from_numpy(cv2.imread(p)).float()`), and a later read of the other
    side's shape or type only (`a.shape`, `len(a)`). Nor is a write whose
    other side is only shown afterwards (`print(b)`, or a bare `b` ending a
    notebook cell): a tutorial showing that the two share memory computes
    nothing from the changed values.

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
    converted from (`t = torch.from_numpy(arrays[0])`, written, then
    `arrays[1]` read): it reads other bytes.

    A conversion copied into a tensor or array the code made with a factory
    (`out = torch.zeros(n, d)`, then `out[k] = torch.from_numpy(rows[k])`)
    leaves no alias: an element assignment copies the values, so later
    writes to `rows` do not reach `out`.

    ## Why is this bad?
    `torch.from_numpy` does not copy: the tensor and the array are one
    buffer. `t += 1` silently edits the caller's array, `buf[:] = batch`
    silently rewrites every tensor made from `buf` so far, and autograd does
    not see writes made through NumPy, so gradients come out wrong without
    an error.

    ## Example
    ```python
    import torch

    def normalize(a):
        t = torch.from_numpy(a)
        t -= t.mean()
        return t
    ```

    ## Use instead
    ```python
    import torch

    def normalize(a):
        t = torch.from_numpy(a).clone()
        t -= t.mean()
        return t
    ```

    ## Fix safety
    Unsafe: inserting `.clone()` after `from_numpy(...)` changes what the
    program observes (that is the bug fix, unless the sharing was meant).
    Sharing on purpose is never reported: a write through the conversion
    itself (`torch.from_numpy(buf).zero_()`), a tensor filled whole right
    after it is made (`t = torch.from_numpy(buf)`, then `t.copy_(src)`,
    `t[:] = v`, `torch.add(x, y, out=t)`, or `t[:k] = u` and `t[k:] = v`:
    the alias exists to fill `buf`),
    and zero-copy sources such as `np.memmap` or `np.load(...,
    mmap_mode=...)`. A fill of the array side (`buf[:] = batch`) is still
    reported: the tensors made from `buf` before it change under their
    readers.
    """

    CODE = "TL201"
    NAME = "from-numpy-write-through"
    KINDS = frozenset({"from_numpy", "helper_from_numpy"})
    TRIGGERS = (r"from_numpy",)
    FIX = "unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        message = _alias.write_through(site, ctx, "torch.from_numpy")
        if message is None:
            return
        ctx.report(
            self,
            site.node,
            message,
            [ctx.insert_after(site.node, ".clone()")],
            Applicability.UNSAFE,
            "Insert `.clone()` to break the alias",
        )
