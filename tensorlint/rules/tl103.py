from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.analysis import ops
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _numpy

if TYPE_CHECKING:
    import libcst as cst

    from tensorlint.analysis.sites import Site
else:
    from tensorlint._lazy import libcst as cst


class ImplicitTensorToArray(Rule):
    """## What it does
    Checks for `np.asarray(t)`, `np.array(t)` and the other NumPy array
    constructors called on a value known to be a torch tensor (made by a torch
    function in the same function, or a parameter annotated `torch.Tensor`)
    that may be on CUDA or require grad.

    ## Why is this bad?
    These constructors call `Tensor.__array__`, which calls `Tensor.numpy()`:
    they raise the same `TypeError` on CUDA tensors and `RuntimeError` on
    tensors that require grad, hidden one level down. Spelling the
    conversion out makes the device move and the detach visible.

    ## Example
    ```python
    import numpy as np
    import torch

    def to_array(t: torch.Tensor):
        return np.asarray(t)
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def to_array(t: torch.Tensor):
        return t.cpu().detach().numpy()
    ```

    ## Fix safety
    Safe. `np.asarray(t)` becomes `t.cpu().detach().numpy()` and
    `np.array(t)` becomes `t.cpu().detach().numpy().copy()` (it copied
    before and still does); with other arguments (`dtype=`, `order=`) the
    call is kept and only its argument is converted:
    `np.asarray(t.cpu().detach().numpy(), dtype=d)`.
    """

    CODE = "TL103"
    NAME = "implicit-tensor-to-array"
    KINDS = frozenset({"array_ctor"})
    TRIGGERS = (r"\b(?:as|asany|ascontiguous|asfortran)?array\s*\(",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        from tensorlint.analysis.facts import CPU, NOGRAD, TENSOR

        node = site.node
        assert isinstance(node, cst.Call)
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        arg = node.args[0].value
        facts = site.facts(arg)
        if TENSOR not in facts:
            return
        cpu = CPU not in facts
        detach = NOGRAD not in facts and not site.in_no_grad()
        if not (cpu or detach):
            return
        text = ctx.analysis.code(arg).strip()
        atoms = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
        if not isinstance(arg, atoms) and not arg.lpar:
            text = f"({text})"
        if ctx.settings.numpy_idiom == "force":
            converted = f"{text}.numpy(force=True)"
        else:
            # the documented idiom in full: the value may be on any device
            converted = f"{text}{_numpy.chain_text(ctx, True, True)}.numpy()"
        simple = len(node.args) == 1 and not node.lpar
        if simple and site.qualname in ("numpy.asarray", "numpy.asanyarray"):
            edit = ctx.replace(node, converted)
        elif simple and site.qualname in ops.NUMPY_COPYING_CTORS:
            edit = ctx.replace(node, f"{converted}.copy()")
        else:
            edit = ctx.replace(arg, converted)
        name = (site.qualname or "").replace("numpy.", "np.")
        ctx.report(
            self,
            node,
            f"`{name}()` on torch tensor `{ctx.short(arg)}`, which may be on CUDA or "
            "require grad; convert it explicitly",
            [edit],
            description="Convert the tensor explicitly",
        )
