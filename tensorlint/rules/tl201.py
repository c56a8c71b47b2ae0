from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import Applicability
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class FromNumpyWriteThrough(Rule):
    """## What it does
    Checks for `torch.from_numpy(src)` followed by an in-place write to one
    side (the array or the tensor, or a view of either) while the other side
    is still used afterwards, or belongs to the caller (a parameter, an
    attribute, a global). Loops count: a write at the top of the next
    iteration follows the conversion. Functions count too, in the file and
    in the modules it imports: a call of a function that returns
    `torch.from_numpy` of its argument is a conversion, and a call of a
    function that writes its argument in place is a write.

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
    Writes made on purpose through the conversion itself, such as
    `torch.from_numpy(buf).zero_()`, are never reported, and neither are
    zero-copy sources such as `np.memmap` or `np.load(..., mmap_mode=...)`.
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
