from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.diagnostics import LOW
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class FromNumpySharedMemory(Rule):
    """## What it does
    Checks for `torch.from_numpy(src)` whose result is kept (bound to a name,
    an attribute or a subscript, returned, yielded, or stored in a container)
    while `src` persists: a parameter, an attribute, a global, or a local
    used again later (a later iteration of an enclosing loop counts). Off by
    default; on with `strict = true`.

    ## Why is this bad?
    The tensor and the array are one buffer. Nothing writes to either yet,
    so nothing is wrong today, but the first in-place write on either side,
    anywhere the value travels, changes the other. This is the profile for
    migrating legacy code to the safe idiom `torch.from_numpy(x).clone()`.
    A fresh source (`np.stack(...)`, `a.copy()`) or a local that is never
    used again is never reported.

    Nor is a tensor that cannot leave its function, where a copy costs and
    buys nothing: a local that is only read (operands, comparisons, `t.shape`,
    reductions such as `t.sum()`, and NumPy, torch and builtin functions that
    neither write their argument nor return a view of it, as in an inference
    `forward` that adds a table to its output), what a Dataset's
    `__getitem__` returns (a DataLoader's collate stacks each batch into new
    memory), a value cast to another element type
    (`torch.from_numpy(float64_array).float()` copies), and a value assigned
    into an element of a tensor made in the function (`m[:, i] = ...`
    copies). A local that is returned, stored, passed to any other callable,
    bound to another name or captured by a closure is still reported.

    ## Example
    ```python
    import torch

    class Buffer:
        def as_tensor(self):
            return torch.from_numpy(self.data)
    ```

    ## Use instead
    ```python
    import torch

    class Buffer:
        def as_tensor(self):
            return torch.from_numpy(self.data).clone()
    ```

    Where the tensor is moved at once, `torch.from_numpy(x).to(device)`, the
    fix is `torch.from_numpy(x).to(device, copy=True)`: on the CPU `.to`
    returns the same tensor, and `.clone().to(device)` would copy twice on an
    accelerator; `copy=True` copies once on every device.

    ## Fix safety
    Safe: no code in view relies on the sharing (TL201 reports the cases
    where some does; a tensor filled whole, `t.copy_(src)`, relies on it on
    purpose and is reported by neither). Zero-copy sources (`np.memmap`, `np.load(...,
    mmap_mode=...)`, `np.frombuffer`) are never reported.
    """

    CODE = "TL211"
    NAME = "from-numpy-shared-memory"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = frozenset({"from_numpy"})
    TRIGGERS = (r"from_numpy",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        if not _alias.latent_alias(site):
            return
        message = (
            f"`{ctx.short(site.node)}` shares memory with an array that is still in use; "
            "the tensor is kept without `.clone()`"
        )
        moved = site.moved_by()
        if moved is not None:  # one copy on every device, not a clone and a move
            last = moved.args[-1]
            ctx.report(
                self,
                site.node,
                message,
                [ctx.insert_after(last.value, ", copy=True")],
                description="Add `copy=True` to `.to(...)`",
            )
            return
        ctx.report(
            self, site.node, message, [ctx.insert_after(site.node, ".clone()")],
            description="Insert `.clone()`",
        )  # fmt: skip
