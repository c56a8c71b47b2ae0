"""How a finding says why it is right: the evidence, in words, and its place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tensorlint.analysis import syntax
from tensorlint.rule import RuleContext

if TYPE_CHECKING:
    from tensorlint.analysis.facts import Evidence
    from tensorlint.analysis.sites import Site


def explain(evidence: Evidence, ctx: RuleContext) -> tuple[str, list[tuple[syntax.CSTNode, str]]]:
    """(a clause for the message, the related locations with their notes).

    Evidence a caller in the file passed in also names that call.
    """
    reason, related = _explain(evidence, ctx)
    call = evidence.via
    if call is None:
        return reason, [related]
    callee = ctx.short(call.func)
    line = ctx.start(call).line
    return (
        f"{reason}; `{callee}(...)` at line {line} passes it in",
        [related, (call, f"`{callee}(...)` passes the value in here")],
    )


def grad_mode_note(site: Site, ctx: RuleContext) -> str:
    """Why a grad-disabling context does not help here, if one seems to."""
    if site.in_no_grad():  # (a finding there: the target torch is older than 1.6)
        return "; `target-version` is below 1.6, where `.numpy()` raises under `no_grad` too"
    decorator = site.unreached_no_grad_decorator()
    if decorator is not None:
        line = ctx.start(decorator).line
        return (
            f"; `@{ctx.short(decorator.decorator)}` (line {line}) does not reach the body "
            "of an `async def`, which runs when awaited"
        )
    return ""


def _explain(evidence: Evidence, ctx: RuleContext) -> tuple[str, tuple[syntax.CSTNode, str]]:
    node = evidence.node
    line = ctx.start(node).line
    code = ctx.short(node)
    kind = evidence.kind
    if kind in ("api", "api-grad"):
        param = node.name.value if isinstance(node, syntax.Param) else code
        what = "a CUDA tensor" if kind == "api" else "a tensor that requires grad"
        if evidence.through:
            return (
                f"`{param}` enters `{evidence.name}` (line {line}) from "
                + evidence.through.replace("{what}", what),
                (node, f"`{param}`: {evidence.note}"),
            )
        return (
            f"`{param}` enters the public function `{evidence.name}` (line {line}) from "
            f"callers outside this file, who may pass {what}",
            (node, f"`{param}`: a parameter of a public function no code here calls"),
        )
    if kind == "move":
        return (
            f"it comes from `{code}` at line {line}, which moves it to a device that may be CUDA",
            (node, "moved to a device that may be CUDA"),
        )
    if kind == "device":
        what = (
            f"made by `{code}`" if isinstance(node, syntax.Call) else f"made with `device={code}`"
        )
        return (f"it is {what} at line {line}", (node, "made on a device that may be CUDA"))
    if kind == "default-device":
        where = evidence.name
        setter = (
            f"this file makes CUDA the default device at {where}"
            if where.startswith("line ")
            else f"a module imported here makes CUDA the default device at {where}"
        )
        return (
            f"it is made by `{code}` at line {line} with no `device=`, and {setter}",
            (node, "made on the default device, which is CUDA here"),
        )
    if kind == "batch":
        return (
            f"`{code}` is the batch Lightning passes to `{evidence.name}` (line {line}), "
            "moved to the module's device, which may be CUDA",
            (node, "a batch Lightning moves to the module's device"),
        )
    if kind == "gathered":
        return (
            f"`{code}` (line {line}) holds what `{evidence.name}` returned, as Lightning "
            "hands it over: values computed on the module's device, which may be CUDA",
            (node, f"what `{evidence.name}` returned, on the module's device"),
        )
    if kind == "load":
        return (
            f"it comes from `{code}` at line {line}, which restores tensors to the device "
            "they were saved from (no `map_location`)",
            (node, "loaded onto the device it was saved from"),
        )
    if kind == "parameter":
        return (
            f"it comes from `{code}` at line {line}, a trainable parameter",
            (node, "a trainable parameter: requires grad"),
        )
    if kind == "owned":
        return (
            f"`{code}` (line {line}) belongs to the module, which its users may move to a "
            "CUDA device",
            (node, "a parameter or buffer of the module: where its users move it"),
        )
    if kind == "callee-device":
        return (
            f"it comes from `{code}` at line {line}: {evidence.name} returns a value it "
            "moved to a device that may be CUDA",
            (node, "returns a value moved to a device that may be CUDA"),
        )
    if kind == "callee-output":
        return (
            f"it comes from `{code}` at line {line}: {evidence.name} returns a value "
            "computed with grad enabled from a module's output or parameters",
            (node, "returns a module's output or parameters, with grad enabled"),
        )
    if kind == "callee-requires-grad":
        return (
            f"it comes from `{code}` at line {line}: {evidence.name} returns a tensor it "
            "set to require grad",
            (node, "returns a tensor set to require grad"),
        )
    if kind == "backward":
        return (
            f"`{code}` at line {line} backpropagates through it, so it requires grad",
            (node, "backpropagates: the tensor requires grad"),
        )
    if kind == "requires-grad":
        return (
            f"it comes from `{code}` at line {line}, which requires grad",
            (node, "set to require grad"),
        )
    if _constructs(node):  # ``Decoder()``: the evidence is the module it builds
        return (
            f"it comes from `{code}` at line {line}, a module built there, whose outputs are "
            "computed with grad enabled",
            (node, "a module built here: its outputs are computed with grad enabled"),
        )
    return (
        f"it comes from `{code}` at line {line}, a module's output computed with grad enabled",
        (node, "a module's output, computed with grad enabled"),
    )


def _constructs(node: syntax.CSTNode) -> bool:
    """Is ``node`` a call of a class by Python's naming convention (``Net(...)``)?"""
    if not isinstance(node, syntax.Call) or not isinstance(node.func, syntax.Name):
        return False
    name = node.func.value
    return name[:1].isupper() and not name.isupper()
