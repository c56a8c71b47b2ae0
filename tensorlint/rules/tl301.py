from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.analysis import ops, syntax
from tensorlint.diagnostics import LOW, Applicability
from tensorlint.rule import Rule, RuleContext

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class DataAttributeDetach(Rule):
    """## What it does
    Checks for `.data` used to leave autograd on the way to NumPy:
    `t.data.numpy()`, `t.data.cpu().numpy()`, `np.asarray(t.data)`. Off by
    default; on with `strict = true`.

    ## Why is this bad?
    `.data` gives a tensor that shares memory with `t` but not its version
    counter, so autograd cannot detect later in-place writes through it and
    returns wrong gradients instead of raising. `.detach()` is the supported
    way to leave the graph.

    ## Example
    ```python
    import torch

    def weights(layer):
        return layer.weight.data.cpu().numpy()
    ```

    ## Use instead
    ```python
    import torch

    def weights(layer):
        return layer.weight.detach().cpu().numpy()
    ```

    ## Fix safety
    Unsafe: `.detach()` shares the version counter, so a later in-place
    write that `.data` hid now raises an error in `backward()`.
    """

    CODE = "TL301"
    NAME = "data-attribute-detach"
    DEFAULT = False
    CONFIDENCE = LOW
    KINDS = frozenset({"data"})
    TRIGGERS = (r"\.data\b",)
    REQUIRES = (r"\.numpy\s*\(|array\s*\(",)
    FIX = "unsafe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        node = site.node
        assert isinstance(node, syntax.Attribute)
        if not site.analysis.torch_module or not _feeds_numpy(site):
            return
        ctx.report(
            self,
            node.attr,
            f"`{ctx.short(node)}` leaves autograd through `.data`; use `.detach()`",
            [ctx.replace(node.attr, "detach()")],
            Applicability.UNSAFE,
            "Replace `.data` with `.detach()`",
        )


def _feeds_numpy(site: Site) -> bool:
    """Does the ``.data`` value flow straight into a NumPy conversion?"""
    from tensorlint.analysis.names import qualified_name

    child: syntax.CSTNode = site.node
    ancestors = site.candidate.ancestors
    i = len(ancestors) - 1
    while i >= 0:
        parent = ancestors[i]
        if isinstance(parent, syntax.Attribute) and parent.value is child:
            call = ancestors[i - 1] if i >= 1 else None
            if not isinstance(call, syntax.Call) or call.func is not parent:
                return False
            if parent.attr.value == "numpy":
                return True
            if parent.attr.value not in ops.TORCH_VIEW_METHODS:
                return False
            child, i = call, i - 2
            continue
        if isinstance(parent, syntax.Arg) and i >= 1:
            call = ancestors[i - 1]
            return (
                isinstance(call, syntax.Call)
                and call.args[0] is parent
                and qualified_name(call.func, site.scope) in ops.NUMPY_ARRAY_CTORS
            )
        return False
    return False
