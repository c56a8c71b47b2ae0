from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.rule import Rule, RuleContext

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class WriteToReadonlyArrayTensor(Rule):
    """## What it does
    Checks for an in-place write to a tensor made by `torch.from_numpy`,
    `torch.as_tensor` or `torch.asarray` over an array known to be
    read-only: `np.load(..., mmap_mode="r")`, `np.memmap(..., mode="r")`,
    `np.frombuffer(bytes)`, `np.broadcast_to(...)`, or an array after
    `a.setflags(write=False)`.

    ## Why is this bad?
    PyTorch has no read-only tensors. It warns once per process ("The given
    NumPy array is not writable") and then lets the write through: the
    "read-only" array changes, and a read-only memory map kills the process
    with SIGSEGV.

    ## Example
    ```python
    import numpy as np
    import torch

    def load_centered(path):
        t = torch.from_numpy(np.load(path, mmap_mode="r"))
        t -= 0.5
        return t
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def load_centered(path):
        t = torch.from_numpy(np.load(path, mmap_mode="r")).clone()
        t -= 0.5
        return t
    ```

    ## Fix safety
    Safe: inserting `.clone()` after the conversion gives the write its own
    memory; the original was undefined behaviour.
    """

    CODE = "TL204"
    NAME = "write-to-readonly-array-tensor"
    KINDS = frozenset({"from_numpy", "as_tensor"})
    TRIGGERS = (r"from_numpy|as_tensor|asarray",)
    REQUIRES = (r"mmap_mode|memmap|frombuffer|broadcast_to|setflags|sliding_window_view",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        conversion = site.conversion
        if conversion is None or not site.function.source_is_readonly(conversion):
            return
        writes = site.function.readonly_writes(conversion)
        if not writes:
            return
        write = writes[0]
        ctx.report(
            self,
            site.node,
            f"the tensor from `{ctx.short(site.node)}` is written in place at line "
            f"{ctx.analysis.line(write.node)}, but its array is read-only "
            "(undefined behaviour; on a read-only memory map, a crash)",
            [ctx.insert_after(site.node, ".clone()")],
            description="Insert `.clone()` so the write has its own memory",
        )
