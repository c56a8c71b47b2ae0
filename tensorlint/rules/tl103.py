from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from tensorlint.analysis import ops, syntax
from tensorlint.diagnostics import Applicability
from tensorlint.rule import Rule, RuleContext
from tensorlint.rules import _evidence, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class ImplicitTensorToArray(Rule):
    """## What it does
    Checks for `np.asarray(t)`, `np.array(t)` and the other NumPy array
    constructors called on a value known to be a torch tensor (made by a torch
    function in the same function, or a parameter annotated `torch.Tensor`)
    that the code shows may be on CUDA or may require grad (the evidence of
    TL101 and TL102, named in the message). A tensor of unknown device and
    grad state is reported by the strict rule TL113.

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
        return np.asarray(t.to("cuda") * 2)
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch

    def to_array(t: torch.Tensor):
        return (t.to("cuda") * 2).cpu().detach().numpy()
    ```

    ## Fix safety
    Safe when the value is certainly a tensor: `np.asarray(t)` becomes
    `t.cpu().detach().numpy()` and
    `np.array(t)` becomes `t.cpu().detach().numpy().copy()` (it copied
    before and still does); with other arguments (`dtype=`, `order=`) the
    call is kept and only its argument is converted:
    `np.asarray(t.cpu().detach().numpy(), dtype=d)`. Unsafe when the only
    proof that it is a tensor is a parameter's annotation: callers may pass
    an ndarray anyway, and `.cpu()` does not exist there.
    """

    CODE = "TL103"
    NAME = "implicit-tensor-to-array"
    KINDS = frozenset({"array_ctor"})
    #: ``\b(?:as|asany|ascontiguous|asfortran)?array\s*\(``, written to start
    #: with a literal (the lookbehind is the ``\b`` before the ``a``): ``re``
    #: scans for a leading literal many times faster
    TRIGGERS = (r"a(?<!\wa)(?:s(?:any|contiguous|fortran)?a)?rray\s*\(",)
    FIX = "safe"

    def check(self, site: Site, ctx: RuleContext) -> None:
        arg = tensor_argument(site)
        if arg is None:
            return
        evidence = site.device_evidence(arg) or site.grad_evidence(arg)
        if evidence is None:
            return
        reason, related = _evidence.explain(evidence, ctx)
        convert(self, site, ctx, arg, f"which may be on CUDA or require grad: {reason}", related)


def tensor_argument(site: Site) -> Optional[syntax.BaseExpression]:
    """The converted argument, when it is known to be a torch tensor."""
    node = site.node
    assert isinstance(node, syntax.Call)
    if not node.args or node.args[0].keyword is not None or node.args[0].star:
        return None
    arg = node.args[0].value
    return arg if site.is_tensor(arg) else None


def convert(
    rule: Rule,
    site: Site,
    ctx: RuleContext,
    arg: syntax.BaseExpression,
    why: str,
    related: Sequence[tuple[syntax.CSTNode, str]] = (),
) -> None:
    """Report, with the explicit conversion as the fix (shared with TL113)."""
    node = site.node
    assert isinstance(node, syntax.Call)
    text = ctx.analysis.code(arg).strip()
    atoms = (syntax.Name, syntax.Attribute, syntax.Call, syntax.Subscript)
    if not isinstance(arg, atoms) and not arg.src_parens:
        text = f"({text})"
    if ctx.settings.numpy_idiom == "force":
        suffix = ".numpy(force=True)"
    else:
        # the documented idiom in full: the value may be on any device
        suffix = f"{_numpy.chain_text(ctx, True, True, site)}.numpy()"
    converted = f"{text}{suffix}"
    simple = len(node.args) == 1 and not node.src_parens
    copying = simple and site.qualname in ops.NUMPY_COPYING_CTORS
    if simple and _has_comment(ctx.analysis.code(node)):
        # keep the comments inside the call: its parentheses stay, the
        # function name goes (``np.asarray(  # why\n    t\n)`` -> ``(...).cpu()...``)
        inside = ctx.text(ctx.end(node.func), ctx.end(node))
        edit = ctx.replace(node, f"{inside}{suffix}" + (".copy()" if copying else ""))
    elif simple and site.qualname in ("numpy.asarray", "numpy.asanyarray"):
        edit = ctx.replace(node, converted)
    elif copying:
        edit = ctx.replace(node, f"{converted}.copy()")
    else:
        edit = ctx.replace(arg, converted)
    name = (site.qualname or "").replace("numpy.", "np.")
    ctx.report(
        rule,
        node,
        f"`{name}()` on torch tensor `{ctx.short(arg)}`, {why}; convert it explicitly",
        [edit],
        Applicability.UNSAFE
        if site.tensor_only_by_annotation(arg) or _numpy.in_self_documenting_fstring(site)
        else Applicability.SAFE,
        "Convert the tensor explicitly",
        related,
    )


def _has_comment(code: str) -> bool:
    """Does ``code`` (an expression's source) hold a comment?"""
    if "#" not in code:
        return False
    import tokenize  # (rarely needed: not on every run's start-up)

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(f"({code})").readline))
    except (tokenize.TokenError, SyntaxError):
        return True  # when unsure, keep the text
    return any(token.type == tokenize.COMMENT for token in tokens)
