from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.analysis import syntax
from tensorlint.diagnostics import LOW
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _alias

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class AsTensorSharedMemory(Rule):
    """## What it does
    Checks for `torch.as_tensor(src)` or `torch.asarray(src)` on a value
    known to be a NumPy array, whose result is kept while `src` persists, the
    same condition as TL211. Off by default; on with `strict = true`.

    ## Why is this bad?
    With a NumPy array of a matching dtype on the CPU, `as_tensor` and
    `asarray` do not copy: the tensor and the array are one buffer, and the
    first in-place write on either side changes the other.

    ## Example
    ```python
    import numpy as np
    import torch

    def as_batch(values: np.ndarray):
        return torch.as_tensor(values)
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def as_batch(values: np.ndarray):
        return torch.as_tensor(values).clone()
    ```

    ## Fix safety
    Safe: inserting `.clone()` after the call gives the tensor its own
    memory. A conversion to another device (`device="cuda"`) already copies
    and is not reported.
    """

    CODE = "TL213"
    NAME = "as-tensor-shared-memory"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = frozenset({"as_tensor"})
    TRIGGERS = (r"as_tensor|asarray",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        from tensorlint.analysis.facts import NDARRAY, is_cpu_device, keyword

        node = site.node
        assert isinstance(node, syntax.Call)
        if not node.args or NDARRAY not in site.facts(node.args[0].value):
            return
        device = keyword(node, "device")
        if device is not None and not is_cpu_device(device, site.scope):
            return
        if not _alias.latent_alias(site):
            return
        ctx.report(
            self,
            node,
            f"`{ctx.short(node)}` shares memory with an array that is still in use; "
            "the tensor is kept without `.clone()`",
            [ctx.insert_after(node, ".clone()")],
            description="Insert `.clone()`",
        )
