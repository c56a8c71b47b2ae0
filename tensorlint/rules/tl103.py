from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Optional

from tensorlint.analysis import index, library_table, numpy_table, ops, stores, syntax
from tensorlint.diagnostics import Applicability, Edit, confidence_rank
from tensorlint.rule import BY_EVIDENCE, Rule, RuleContext
from tensorlint.rules import _evidence, _numpy

if TYPE_CHECKING:
    from tensorlint.analysis.sites import Site


class ImplicitTensorToArray(Rule):
    """## What it does
    Checks for NumPy calls that convert a torch tensor through
    `Tensor.__array__`: the array constructors (`np.asarray(t)`,
    `np.array(t)`, ...) and the other functions measured to do so
    (`np.mean`, `np.stack`, `np.median`, `np.argmax`, ufuncs such as
    `np.isnan`, `np.float32(t)`, `np.save(path, t)`; the table is in
    `docs/numpy-functions.md`), and the library calls measured to convert
    their arguments the same way: matplotlib's plots (`plt.plot(t)`,
    `plt.hist`, `ax.imshow(t)` on an Axes from `plt.subplots()` or
    `fig.add_subplot()`), scikit-learn's metrics (`roc_auc_score(y, t)`)
    and the data of its estimators' methods (`TSNE(n_components=2).fit_transform(t)`,
    `km = KMeans(3)` then `km.fit(t)`),
    pandas' `DataFrame` and `Series`, SciPy's statistics (the table is in
    `docs/library-functions.md`; a project adds its own functions with the
    `extend-converting-calls` setting), and stores into a sub-array of a
    NumPy array (`probs[i] = out` into `probs = np.zeros((n, k))`: a row, a
    slice or a column; a store into one element calls `float(t)`, which
    works on any device, and is not reported; the measured table is in
    `docs/numpy-functions.md`). The argument must be known to be a torch
    tensor (made by a torch function in the same function, or unpacked
    from one: `_, s, _ = torch.svd(a)`; returned by a function of the
    project that returns a tensor on every path; the total norm
    `clip_grad_norm_` returns; a parameter annotated `torch.Tensor`; a
    module's parameters (`model.parameters()`, a known module's `.weight`),
    a method's result moved with `.to(d)` / `.cuda()` (`y.flatten().to(d)`:
    an ndarray has neither), the `.data` of a module's output or of one of
    its entries; a
    module's output as in `np.argmax(net(x), 1)`, and the result of a
    method only tensors have on one, `net(x).softmax(1)`, with an unsafe
    fix: the module may not be torch's), or a list or tuple of
    them: a display
    (`np.stack([a, b])`), a comprehension (`[model(x) for x in xs]`) or a
    list filled with `append`, `extend`, `insert` or `+=` (`losses.append(loss)`,
    then `np.mean(losses)`), also the lists of a dict of lists
    (`curves[phase].append(loss)`, then `plt.plot(curves[phase])`); a
    running total counts as a tensor
    (`wrong += (pred != y).sum()`), and so does a value the code called
    `.backward()` on (it requires grad, too), and so does a parameter that
    the project's other files pass values moved to a device (a metrics module
    given CUDA scores by the model's file, whether or not it imports
    torch), and so does a
    parameter of a public function that a caller in the same file passes a
    tensor (`auc_of(labels, scores)` called with CUDA scores; other callers
    may pass arrays, so the fix is unsafe there), and a value that is a
    tensor on one path while nothing is known of it on the other (`grid =
    cache.get(key)`, then `if grid is None: grid = torch.zeros(n,
    device=d)`, then `np.asarray(grid)`; unsafe fix too). It
    reports when the code shows a tensor may be on CUDA or may require grad
    (the evidence of TL101 and TL102, named in the message). A tensor of
    unknown device and grad state is reported by the strict rule TL113.

    ## Why is this bad?
    These calls run `Tensor.__array__`, which calls `Tensor.numpy()`: they
    raise the same `TypeError` on CUDA tensors and `RuntimeError` on tensors
    that require grad, hidden one level down. `np.mean(losses)` over a list
    of losses that still hold their graph is a common crash. Spelling the
    conversion out makes the device move and the detach visible.

    ## Example
    ```python
    import numpy as np
    import torch
    from sklearn.metrics import roc_auc_score

    def to_array(t: torch.Tensor):
        return np.asarray(t.to("cuda") * 2)

    def spread(values):
        z = torch.as_tensor(values).cuda()
        return np.median(z)

    def auc(model, inputs, labels):
        return roc_auc_score(labels, torch.sigmoid(model(inputs)))

    def probabilities(model, batches, device):
        probs = np.zeros((len(batches), 10))
        for i, batch in enumerate(batches):
            probs[i] = torch.softmax(model(batch.to(device)), dim=1)[0]
        return probs
    ```

    ## Use instead
    ```python
    import numpy as np
    import torch
    from sklearn.metrics import roc_auc_score

    def to_array(t: torch.Tensor):
        return (t.to("cuda") * 2).cpu().detach().numpy()

    def spread(values):
        z = torch.as_tensor(values).cuda()
        return np.median(z.cpu().detach().numpy())

    def auc(model, inputs, labels):
        return roc_auc_score(labels, torch.sigmoid(model(inputs)).cpu().detach().numpy())

    def probabilities(model, batches, device):
        probs = np.zeros((len(batches), 10))
        for i, batch in enumerate(batches):
            probs[i] = torch.softmax(model(batch.to(device)), dim=1)[0].cpu().detach().numpy()
        return probs
    ```

    ## Fix safety
    Safe when the value is certainly a tensor and the measured table says
    the call gives the same type and value on the converted array:
    `np.asarray(t)` becomes `t.cpu().detach().numpy()`, `np.array(t)`
    becomes `t.cpu().detach().numpy().copy()` (it copied before and still
    does), and any other call keeps its name and converts its argument
    (`np.median(t.cpu().detach().numpy())`, `np.asarray(t.cpu().detach().numpy(), dtype=d)`,
    `plt.plot(t.cpu().detach().numpy())`), and a store converts the value
    stored (`probs[i] = out.cpu().detach().numpy()`: on a CPU tensor NumPy
    stored `out.numpy()` before, the same values); what the argument already ends
    with is not repeated (`t.detach()` becomes `t.detach().cpu().numpy()`).
    For a display or a comprehension each tensor element is converted
    (`np.stack([a.cpu().detach().numpy(), b.cpu().detach().numpy()])`);
    for a list filled elsewhere there is no automatic fix: convert each
    tensor where it is added (`.detach().cpu()`, or `.item()` for a number).
    Unsafe when the only proof that it is a tensor is a parameter's
    annotation or what one caller passes (callers may pass an ndarray
    anyway, and `.cpu()` does not exist there) or a module's output (it
    may be a tuple), and when the
    call returned a tensor on a CPU tensor (`np.argmax`, ufuncs such as
    `np.isnan`: `__array_wrap__`), since the fixed call returns an array,
    and when the value may still be a plain number (`total = 0`, then
    `total += loss` in a loop that may not run: `.cpu()` does not exist there).
    """

    CODE = "TL103"
    NAME = "implicit-tensor-to-array"
    KINDS = frozenset({"numpy_function", "library_function", "array_store"})
    #: ``\b(?:as|asany|ascontiguous|asfortran)?array\s*\(``, written to start
    #: with a literal (the lookbehind is the ``\b`` before the ``a``): ``re``
    #: scans for a leading literal many times faster
    TRIGGERS = (
        r"a(?<!\wa)(?:s(?:any|contiguous|fortran)?a)?rray\s*\(",
        # ``np.mean(``, ``numpy.stack(``, ``np.linalg.norm(``, ``np.char.mod(``:
        # the other functions of the measured table, called on the module
        r"n(?<![\w.]n)(?:p|umpy)\.(?:(?:"
        + "|".join(sorted(index.NUMPY_SUBMODULES))
        + r")\.)?(?:"
        + "|".join(sorted(index.NUMPY_CALL_NAMES, key=lambda n: (-len(n), n)))
        + r")\s*\(",
        # ``np.zeros((n, k))``: an array a tensor may be stored into (``preds[i] = out``)
        r"n(?<![\w.]n)(?:p|umpy)\.(?:"
        + "|".join(sorted(n.rsplit(".", 1)[1] for n in stores.SHAPE_FACTORIES))
        + r")\s*\(",
    )
    #: ``plt.plot(``, ``ax.imshow(``, ``accuracy_score(``, ``pd.DataFrame(``: the
    #: library calls of the measured table, in a file importing their library
    LIBRARY_TRIGGERS = (
        r"\b(?:"
        + "|".join(sorted(library_table.CALL_NAMES, key=lambda n: (-len(n), n)))
        + r")\s*\(",
    )
    FIX = "safe or unsafe"
    CONFIDENCE = BY_EVIDENCE

    def check(self, site: Site, ctx: RuleContext) -> None:
        for found in converted(site):
            for value in found.values:
                # the surer of the two, the device's on a tie
                shown = [e for e in (site.device_evidence(value), site.grad_evidence(value)) if e]
                evidence = max(shown, key=lambda e: confidence_rank(e.confidence), default=None)
                if evidence is not None:
                    reason, related = _evidence.explain(evidence, ctx)
                    why = f"which may be on CUDA or require grad: {reason}"
                    convert(self, site, ctx, found, why, related, evidence.confidence)
                    return


class Converted(NamedTuple):
    """What a NumPy or library call converts: one argument, and the tensors in it."""

    #: the argument converted
    arg: syntax.BaseExpression
    #: the tensors converted: the argument itself, a display's tensor
    #: elements, or (a list filled elsewhere) the list
    values: tuple[syntax.BaseExpression, ...]
    #: the expressions the fix converts (none: a list filled elsewhere)
    targets: tuple[syntax.BaseExpression, ...]
    #: the measured table says the call means the same on the converted array
    same: bool


def converted(site: Site) -> tuple[Converted, ...]:
    """The arguments this call hands to ``Tensor.__array__`` that are known to
    be tensors or lists of them, in order (a NumPy function: one argument)."""
    if site.store is not None:  # ``preds[i] = out``: the value stored into a sub-array
        found = _converted(site, site.store.value, True, True, True)
        return (found,) if found is not None else ()
    node = site.node
    assert isinstance(node, syntax.Call)
    qualname = site.qualname or ""
    entry = numpy_table.BY_NAME.get(qualname)
    if entry is not None:
        if len(node.args) <= entry.position:
            return ()
        for earlier in node.args[: entry.position + 1]:
            if earlier.keyword is not None or earlier.star:
                return ()
        arg = node.args[entry.position].value
        found = _converted(site, arg, entry.tensor, entry.sequence, entry.same)
        return (found,) if found is not None else ()
    call = site.analysis.library_calls.by_name.get(qualname)
    if call is None:
        return ()
    every: list[Converted] = []
    for arg in library_table.converted_arguments(call, node):
        found = _converted(site, arg, True, call.sequence, True)
        if found is not None:
            every.append(found)
    return tuple(every)


def _converted(
    site: Site, arg: syntax.BaseExpression, tensor: bool, sequence: bool, same: bool
) -> Optional[Converted]:
    if isinstance(arg, (syntax.List, syntax.Tuple)):
        if not sequence:
            return None
        values = tuple(
            e.value
            for e in arg.elements
            if not isinstance(e, syntax.StarredElement) and site.is_torch_value(e.value)
        )
        return Converted(arg, values, values, same) if values else None
    kind = site.converted_as(arg, lists=sequence)
    if kind in ("tensor", "output"):  # (a module's output: a tensor, or tensors)
        return Converted(arg, (arg,), (arg,), same) if tensor else None
    if kind != "list":
        return None
    if isinstance(arg, (syntax.ListComp, syntax.GeneratorExp)):
        return Converted(arg, (arg,), (arg.elt,), same)
    return Converted(arg, (arg,), (), same)


def convert(
    rule: Rule,
    site: Site,
    ctx: RuleContext,
    found: Converted,
    why: str,
    related: Sequence[tuple[syntax.CSTNode, str]] = (),
    confidence: Optional[str] = None,
) -> None:
    """Report, with the explicit conversion as the fix (shared with TL113;
    ``confidence``: the evidence's, or the rule's without one)."""
    node = site.node
    if site.store is not None:
        done = f"`{ctx.short(site.store.target)} = ...` (a store into a NumPy sub-array) converts"
    elif site.kind == "library_function":
        assert isinstance(node, syntax.Call)
        done = f"`{ctx.short(node.func)}()` on"  # as written: ``plt.plot``, ``ax.imshow``
    else:
        done = f"`{(site.qualname or '').replace('numpy.', 'np.')}()` on"
    edits: list[Edit] = []
    if found.targets == (found.arg,):
        if site.store is not None:
            edits.append(ctx.replace(found.arg, _explicit(site, ctx, found.arg)))
        else:
            edits.append(_edit_argument(site, ctx, found.arg))
        if site.is_tensor(found.arg):
            what = f"torch tensor `{ctx.short(found.arg)}`"
        elif site.may_be_tensor_value(found.arg):
            what = f"`{ctx.short(found.arg)}`, a torch tensor on some paths"
            if site.from_module_output(found.arg):
                what = f"`{ctx.short(found.arg)}`, a tensor computed from a module's output"
        else:
            what = f"`{ctx.short(found.arg)}`, a module's output"
        action = "convert it explicitly"
    elif found.targets:
        edits.extend(ctx.replace(v, _explicit(site, ctx, v)) for v in found.targets)
        shown = ", ".join(f"`{ctx.short(v)}`" for v in found.targets)
        what = f"a list of torch tensors ({shown})"
        action = "convert each tensor explicitly"
    else:
        what = f"`{ctx.short(found.arg)}`, a list of torch tensors"
        action = "convert each tensor where it is added to the list"
    unsafe = (
        any(
            # a module's output; a running total that may still be ``0``
            site.tensor_only_by_annotation(v) or not site.is_tensor(v) or site.may_be_number(v)
            for v in found.targets
        )
        or not found.same
        or _numpy.in_self_documenting_fstring(site)
    )
    ctx.report(
        rule,
        node,
        f"{done} {what}, {why}; {action}",
        edits,
        Applicability.UNSAFE if unsafe else Applicability.SAFE,
        "Convert the tensor explicitly",
        related,
        confidence,
    )


def _explicit(site: Site, ctx: RuleContext, arg: syntax.BaseExpression) -> str:
    """``arg`` converted by the documented idiom (``t.cpu().detach().numpy()``)."""
    text = ctx.analysis.code(arg).strip()
    atoms = (syntax.Name, syntax.Attribute, syntax.Call, syntax.Subscript)
    if not isinstance(arg, atoms) and not arg.src_parens:
        text = f"({text})"
    return f"{text}{_suffix(site, ctx, arg)}"


def _suffix(site: Site, ctx: RuleContext, arg: Optional[syntax.BaseExpression] = None) -> str:
    if ctx.settings.numpy_idiom == "force":
        return ".numpy(force=True)"
    # the documented idiom, less what the argument's own last calls already
    # do (``t.detach()`` -> ``t.detach().cpu().numpy()``)
    done = _trailing_calls(arg) if arg is not None else set()
    return f"{_numpy.chain_text(ctx, 'cpu' not in done, 'detach' not in done, site)}.numpy()"


def _trailing_calls(node: syntax.BaseExpression) -> set[str]:
    """``{"detach", "cpu"}`` for ``t.detach().cpu()``: the argument-free
    ``.cpu()`` / ``.detach()`` calls the expression ends with."""
    done: set[str] = set()
    while (
        isinstance(node, syntax.Call)
        and not node.args
        and isinstance(node.func, syntax.Attribute)
        and node.func.attr.value in ("cpu", "detach")
        and not node.src_parens
    ):
        done.add(node.func.attr.value)
        node = node.func.value
    return done


def _edit_argument(site: Site, ctx: RuleContext, arg: syntax.BaseExpression) -> Edit:
    """The fix for one tensor argument: a lone constructor call becomes the
    explicit conversion; any other call keeps its name and converts the argument."""
    node = site.node
    assert isinstance(node, syntax.Call)
    suffix = _suffix(site, ctx, arg)
    explicit = _explicit(site, ctx, arg)
    simple = site.qualname in ops.NUMPY_ARRAY_CTORS and len(node.args) == 1
    simple = simple and not node.src_parens
    copying = simple and site.qualname in ops.NUMPY_COPYING_CTORS
    if simple and _has_comment(ctx.analysis.code(node)):
        # keep the comments inside the call: its parentheses stay, the
        # function name goes (``np.asarray(  # why\n    t\n)`` -> ``(...).cpu()...``)
        inside = ctx.text(ctx.end(node.func), ctx.end(node))
        return ctx.replace(node, f"{inside}{suffix}" + (".copy()" if copying else ""))
    if simple and site.qualname in ("numpy.asarray", "numpy.asanyarray"):
        return ctx.replace(node, explicit)
    if copying:
        return ctx.replace(node, f"{explicit}.copy()")
    return ctx.replace(arg, explicit)


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
