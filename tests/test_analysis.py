"""The analysis layer answers the rules' questions, independent of any rule."""

from __future__ import annotations

import ast
import textwrap
from typing import Optional

import pytest
from analysis_helpers import analyze, site

from tensorlint.analysis import syntax
from tensorlint.analysis.containers import container_keys
from tensorlint.analysis.facts import (
    CPU,
    MAY_TENSOR,
    MOVED,
    NDARRAY,
    NOGRAD,
    OTHER,
    OUTPUT,
    TENSOR,
)
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.analysis.names import qualified_name
from tensorlint.analysis.summaries import summarize

# --- 1. is it torch? ----------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import torch\nx = torch.from_numpy(a)", "torch.from_numpy"),
        ("import torch as th\nx = th.from_numpy(a)", "torch.from_numpy"),
        ("from torch import from_numpy\nx = from_numpy(a)", "torch.from_numpy"),
        ("from torch import from_numpy as fn\nx = fn(a)", "torch.from_numpy"),
        ("import numpy as onp\nx = onp.asarray(a)", "numpy.asarray"),
        ("import torch\ndef f(torch):\n    return torch.from_numpy(a)", None),
        ("import torch\ntorch = None\nx = torch.from_numpy(a)", None),
        ("from torch import *\nx = from_numpy(a)", None),
        (
            "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
            "x = torch.from_numpy(a)",
            "torch.from_numpy",
        ),
        (
            "import torch\nclass C:\n    torch = 1\n    def f(self):\n"
            "        return torch.from_numpy(a)",
            "torch.from_numpy",
        ),
    ],
    ids=[
        "plain-import",
        "aliased-module",
        "from-import",
        "from-import-as",
        "numpy-alias",
        "parameter-shadows-module",
        "rebinding-makes-it-ambiguous",
        "star-import-is-unknown",
        "import-error-fallback-does-not-count",
        "class-scope-not-visible-in-methods",
    ],
)
def test_call_names_resolve_through_imports(code: str, expected: str | None) -> None:
    analysis = analyze(code)
    calls = [c for c in analysis.index.candidates if c.kind == "call"]
    assert len(calls) == 1
    node = calls[0].node
    assert isinstance(node, syntax.Call)
    assert qualified_name(node.func, calls[0].scope) == expected


def test_numpy_receivers_are_torch_only_in_modules_that_import_torch() -> None:
    assert not site("def f(t):\n    return t.numpy()\n", "t.numpy()").is_torch_numpy()
    assert site("import torch\ndef f(t):\n    return t.numpy()\n", "t.numpy()").is_torch_numpy()
    assumed = site("def f(t):\n    return t.numpy()\n", "t.numpy()", assume_torch=True)
    assert assumed.is_torch_numpy()


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nimport tensorflow as tf\nx = tf.constant([1.0]).numpy()",
        "import torch\nimport tensorflow as tf\nv = tf.Variable(1.0)\nx = v.numpy()",
        "import torch\nimport jax.numpy as jnp\nx = jnp.ones(3).numpy()",
        "import torch\nimport paddle\nx = paddle.to_tensor([1]).numpy()",
        "import torch\nfrom tensorflow import keras\nm = keras.Sequential()\nx = m(y).numpy()",
    ],
    ids=["tf-call", "tf-bound-name", "jax", "paddle", "keras-model-output"],
)
def test_other_framework_receivers_are_not_torch(code: str) -> None:
    analysis = analyze(code)
    (numpy_site,) = [s for s in analysis.sites() if s.kind == "numpy"]
    assert OTHER in numpy_site.facts(numpy_site.receiver)
    assert not numpy_site.is_torch_numpy()


# --- 3. provenance facts ------------------------------------------------------

PROVENANCE = [
    ("t = torch.from_numpy(a)", {CPU, NOGRAD, TENSOR}),
    ("t = torch.zeros(3)", {CPU, NOGRAD, TENSOR}),
    ("t = torch.zeros(3, device='cpu')", {CPU, NOGRAD, TENSOR}),
    ("t = torch.zeros(3, device='cuda')", {NOGRAD, TENSOR}),
    ("t = torch.zeros(3, device=dev)", {NOGRAD, TENSOR}),
    ("t = torch.randn(3, requires_grad=True)", {CPU, TENSOR}),
    ("t = torch.tensor(x)", {NOGRAD, TENSOR}),
    ("t = torch.tensor([1.0, 2.0])", {CPU, NOGRAD, TENSOR}),
    ("t = x.cpu()", {CPU}),
    ("t = x.to('cpu')", {CPU}),
    ("t = torch.zeros(3).to(dev)", {NOGRAD, TENSOR, MOVED}),
    ("t = torch.zeros(3).cuda()", {NOGRAD, TENSOR, MOVED}),
    ("t = x.detach()", {NOGRAD, TENSOR}),
    ("t = x.data", {NOGRAD}),
    ("t = x.argmax(1)", {NOGRAD}),
    ("t = x.long()", {NOGRAD}),
    ("t = x > 0", {NOGRAD}),
    ("t = x.to(torch.int64)", {NOGRAD}),
    # what a forward pass returns: a tensor, or a tuple or dict of them
    ("t = model(x)", {OUTPUT}),
    ("t = torch.zeros(3) * 2", {CPU, NOGRAD, TENSOR}),
    # a tensor whatever ``y`` is (or the addition raises), on the CPU: a CUDA
    # ``y`` would make the addition raise, before any conversion
    ("t = torch.zeros(3) + y", {CPU, TENSOR}),
    ("t = torch.zeros(3) + torch.ones(3, device=dev)", {TENSOR, NOGRAD}),
    # a choice between the two is not an operation: it is either
    ("t = torch.zeros(3) if a else y", set()),
    ("total = 0\nfor y in ys:\n    total += torch.zeros(3) * y\nt = total", {CPU, TENSOR}),
    ("t = (torch.zeros(3) != y)", {CPU, TENSOR, NOGRAD}),
    ("t = (y in torch.zeros(3))", {NOGRAD}),
    ("t = torch.autograd.Variable(torch.zeros(3))", {CPU, NOGRAD, TENSOR}),
    ("t = model.forward(x).data", {NOGRAD, TENSOR}),
    ("t = model(x).data[0]", set()),
    ("t = '%s' % torch.zeros(3)", set()),
    ("t = np.zeros(3)", {NDARRAY}),
    ("t = torch.zeros(3)\nt = model(t)", {OUTPUT}),
    ("t = torch.zeros(3)\nt = t.view(-1)", {CPU, NOGRAD, TENSOR}),
    # results that never require grad (measured: tools/measure_grad.py)
    ("t = x.any(1)", {NOGRAD}),
    ("t = x.greater_equal(y)", {NOGRAD}),
    ("t = torch.isin(x, y)", {NOGRAD, TENSOR}),
    ("t = torch.where(x > 0)[0]", {NOGRAD, TENSOR}),
    ("t = torch.where(x > 0, x, y)", {TENSOR}),
    ("t = x.type(torch.LongTensor)", {NOGRAD}),
    ("t = x.type('torch.LongTensor')", {NOGRAD}),
    ("t = x.new_zeros(3)", {NOGRAD, TENSOR}),
    ("t = x.new_zeros(3, requires_grad=True)", {TENSOR}),
    ("t = torch.zeros(3).new_ones(3)", {CPU, NOGRAD, TENSOR}),
    ("t = model(x).new(3)", {NOGRAD, TENSOR}),
    ("t = a.new(3)", set()),  # ``new`` of any class: not known to be a tensor
    # a method only tensors have, of a module's output: a tensor if the
    # module is torch's; one an ndarray has too proves nothing
    ("t = (model(x) == y).float()", {NOGRAD, MAY_TENSOR}),
    ("t = (model(x) == y).float().mean()", {NOGRAD}),
    ("t = model(x).argmax(1)", {NOGRAD}),
    ("t = model(x).softmax(-1)", {MAY_TENSOR}),
    ("t = model(x).round()", set()),
    ("t = model(x).items()", set()),  # a dict's method: nothing known
    # buffers and state dicts
    ("t = model.bn.running_mean", {NOGRAD, TENSOR}),
    ("t = model.state_dict()['w']", {NOGRAD}),
    ("t = model.state_dict(keep_vars=True)['w']", set()),
    # frozen and parameter-free modules: no grad when the inputs have none
    ("model.requires_grad_(False)\nt = model(x.detach())", {NOGRAD, OUTPUT}),
    ("model.requires_grad_(False)\nt = model(x)", {OUTPUT}),
    (
        "for p in model.parameters():\n    p.requires_grad = False\nt = model(x.detach())",
        {NOGRAD, OUTPUT},
    ),
    ("t = torch.nn.ReLU()(x.detach())", {NOGRAD, OUTPUT}),
]


@pytest.mark.parametrize(("code", "facts"), PROVENANCE, ids=[c for c, _ in PROVENANCE])
def test_provenance_facts_flow_through_assignments(code: str, facts: set[str]) -> None:
    source = "import numpy as np\nimport torch\ndef f(a, x, y, model, dev):\n"
    source += "".join(f"    {line}\n" for line in code.splitlines())
    source += "    return t.numpy()\n"
    found = site(source, "t.numpy()")
    proofs = {fact for fact in found.facts(found.receiver) if ":" not in fact}
    assert proofs == facts


NOT_TYPED = ["[t]", "(t,)", "{t}", "{0: t}", "[u for u in t]", "(u for u in t)", "f'{t}'",
             "lambda: t", "(u := t)", "t and t", "'t'", "3"]  # fmt: skip


@pytest.mark.parametrize("expression", [*NOT_TYPED, "t", "t[0]", "t * 2"])
def test_what_may_be_tensor_skips_is_never_a_tensor(expression: str) -> None:
    """TL103 asks ``may_be_tensor`` before walking the function: every kind it
    answers no for has facts without ``TENSOR``, even around a CUDA tensor."""
    from tensorlint.analysis.facts import may_be_tensor

    source = "import numpy as np\nimport torch\ndef f(dev):\n"
    source += "    t = torch.zeros(3).cuda()\n"
    source += f"    return np.asarray({expression})\n"
    analysis = analyze(source)
    (found,) = [s for s in analysis.sites() if s.kind == "numpy_function"]
    arg = found.node.args[0].value  # type: ignore[attr-defined]
    typed = expression not in NOT_TYPED
    assert (TENSOR in found.facts(arg)) == typed  # (the last three: a tensor)
    assert may_be_tensor(arg) == typed


EVIDENCE = [
    ("t = x.to(dev)", "move", None),
    ("t = torch.zeros(3).cuda() + 1", "move", None),
    ("t = torch.zeros(3, device=dev)", "device", None),
    ("t = torch.zeros(3, requires_grad=True)", None, "requires-grad"),
    ("t = torch.nn.Parameter(torch.zeros(3))", None, "parameter"),
    ("model.to(dev)\n_ = 1\nt = model(a)", "move", "module-output"),
    ("t = model(a)\n_, t = torch.max(t, 1)", None, None),
    ("model.requires_grad_(False)\nt = model(a)", None, None),
    ("t = x.to(dev).cpu()", None, None),
    ("t = torch.cat([torch.zeros(2), torch.ones(2)])", None, None),
    ("t = x.type(torch.cuda.FloatTensor)", "move", None),
    ("t = model.bn.weight", None, "parameter"),
    ("t = model.bn.running_var", None, None),
    ("model.eval()\nt = model(a)", None, "module-output"),
    ("for p in model.parameters():\n    p.requires_grad_(False)\nt = model(a)", None, None),
    (
        "for n, p in model.named_parameters():\n    p.requires_grad = False\nt = model(a)",
        None,
        None,
    ),
    (
        "for n, p in model.named_parameters():\n    if n:\n        p.requires_grad = False\n"
        "t = model(a)",
        None,
        "module-output",
    ),
    (
        "for p in model.parameters():\n    if p.ndim:\n        continue\n"
        "    p.requires_grad = False\nt = model(a)",
        None,
        "module-output",
    ),
    (
        "model.requires_grad_(False)\nfor p in model.parameters():\n    p.requires_grad = True\n"
        "t = model(a)",
        None,
        "module-output",
    ),
    ("h = net(a)\nmodel.requires_grad_(False)\nt = model(h)", None, "module-output"),
]


@pytest.mark.parametrize(("code", "device", "grad"), EVIDENCE, ids=[c for c, _, _ in EVIDENCE])
def test_evidence_names_its_kind(code: str, device: Optional[str], grad: Optional[str]) -> None:
    # a private function with a caller: its parameters give no evidence of their own
    source = "import torch\ndef _f(a, x, model, dev):\n"
    source += "".join(f"    {line}\n" for line in code.splitlines())
    source += "    return t.numpy()\n_f(1, 2, 3, 4)\n"
    found = site(source, "t.numpy()")
    found_device = found.device_evidence(found.receiver)
    found_grad = found.grad_evidence(found.receiver)
    assert (found_device.kind if found_device else None) == device
    assert (found_grad.kind if found_grad else None) == grad


def test_public_library_function_parameters_are_evidence_only_in_library_code() -> None:
    source = "import torch\ndef to_array(t):\n    return t.numpy()\n"
    library = site(source, "t.numpy()")
    evidence = library.device_evidence(library.receiver)
    assert evidence is not None and evidence.kind == "api"
    script = site(source, "t.numpy()", library=False)
    assert script.device_evidence(script.receiver) is None


def test_facts_hold_after_a_branch_only_when_every_path_has_them() -> None:
    code = """
    import torch
    def f(c, x):
        if c:
            t = torch.zeros(3)
        else:
            t = torch.ones(3)
        u = torch.zeros(3) if c else x
        if c:
            u = x
        return t.numpy(), u.numpy()
    """
    assert site(code, "t.numpy()").facts(parse_expression("t")) >= {CPU, NOGRAD}
    u = site(code, "u.numpy()")
    assert {fact for fact in u.facts(u.receiver) if ":" not in fact} == set()


def test_facts_from_the_end_of_a_loop_reach_its_top() -> None:
    code = """
    import torch
    def f(xs):
        t = torch.zeros(3)
        for x in xs:
            y = t.numpy()
            t = x
    """
    found = site(code, "t.numpy()")
    assert CPU not in found.facts(found.receiver)


@pytest.mark.parametrize(
    "guard",
    [
        "if t.requires_grad:\n        t = t.detach()",
        "if t.requires_grad is True:\n        t = t.detach()",
        "t = t.detach() if t.requires_grad else t",
        "if t.requires_grad:\n        raise ValueError('no grad please')",
    ],
    ids=["if-detach", "if-is-true", "conditional-expression", "if-raise"],
)
def test_requires_grad_guards_mean_no_grad(guard: str) -> None:
    code = f"import torch\ndef f(t):\n    {guard}\n    return t.numpy()\n"
    found = site(code, "t.numpy()")
    assert not found.needs_detach()
    assert found.needs_device_move()


@pytest.mark.parametrize(
    ("wrapper", "expected"),
    [
        ("with torch.no_grad():", True),
        ("with torch.inference_mode():", True),
        ("with torch.inference_mode(False):", False),
        ("with torch.set_grad_enabled(False):", True),
        ("with torch.set_grad_enabled(True):", False),
        ("with torch.no_grad(), open(p) as fh:", True),
        ("with open(p) as fh:", False),
    ],
    ids=lambda v: str(v),
)
def test_no_grad_contexts_are_recognized(wrapper: str, expected: bool) -> None:
    code = f"import torch\ndef f(t, p):\n    {wrapper}\n        return t.numpy()\n"
    assert site(code, "t.numpy()").in_no_grad() is expected


@pytest.mark.parametrize(
    "decorator",
    ["@torch.no_grad()", "@torch.no_grad", "@torch.inference_mode()"],
)
def test_no_grad_decorators_are_recognized(decorator: str) -> None:
    code = f"import torch\n{decorator}\ndef f(t):\n    return t.numpy()\n"
    assert site(code, "t.numpy()").in_no_grad()


@pytest.mark.parametrize(
    ("name", "data"),
    [("labels", True), ("mask", True), ("train_labels", True), ("token_ids", True),
     ("gt_idx", True), ("train_features", False), ("pred_mask", False), ("q_target", False),
     ("ids_embedding", False)],
)  # fmt: skip
def test_parameters_named_for_data_give_no_grad_evidence(name: str, data: bool) -> None:
    from tensorlint.analysis.facts import is_data_name

    assert is_data_name(name) is data
    found = site(f"import torch\ndef to_array({name}):\n    return {name}.numpy()\n",
                 f"{name}.numpy()")  # fmt: skip
    # the boundary's grad guess: never the default rules' evidence, and not
    # made at all for a parameter named for data (TL112 names no guess there)
    assert found.grad_hazard() is None
    assert (found.grad_guess(found.receiver) is None) is data


@pytest.mark.parametrize(
    ("loop", "nograd"),
    [
        ("for t in model.buffers():", True),
        ("for _, t in model.named_buffers():", True),
        ("for _, t in model.state_dict().items():", True),
        ("for _, t in model.named_parameters():", False),
    ],
)
def test_buffers_and_state_dict_values_have_no_grad(loop: str, nograd: bool) -> None:
    code = f"import torch\ndef f(model):\n    {loop}\n        print(t.numpy())\n"
    found = site(code, "t.numpy()")
    assert (NOGRAD in found.facts(found.receiver)) is nograd


@pytest.mark.parametrize("decorator", ["@torch.no_grad()", "@torch.inference_mode()"])
def test_a_no_grad_decorator_does_not_reach_an_async_body(decorator: str) -> None:
    # measured: the coroutine's body runs when awaited, in the awaiter's mode
    code = f"import torch\n{decorator}\nasync def f(t):\n    return t.numpy()\n"
    found = site(code, "t.numpy()")
    assert not found.in_no_grad()
    assert found.unreached_no_grad_decorator() is not None
    assert found.function.owner.asynchronous  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("call", "expected"),
    [("await _f(t)", True), ("c = _f(t)", False)],
    ids=["awaited-there", "awaited-later"],
)
def test_an_async_helper_runs_without_grad_only_when_awaited_in_no_grad(
    call: str, expected: bool
) -> None:
    code = f"""
    import torch
    async def _f(t):
        return t.numpy()
    async def g(t):
        with torch.no_grad():
            {call}
    """
    assert site(code, "t.numpy()").in_no_grad() is expected


@pytest.mark.parametrize(
    ("base", "method", "expected"),
    [
        ("pl.LightningModule", "validation_step", True),
        ("LightningModule", "test_step", True),
        ("ReAgentLightningModule", "predict_step", True),
        ("pl.LightningModule", "training_step", False),
        ("torch.nn.Module", "validation_step", False),
    ],
)
def test_lightning_runs_its_evaluation_steps_without_grad(
    base: str, method: str, expected: bool
) -> None:
    code = f"""
    import torch
    import pytorch_lightning as pl
    class M({base}):
        def {method}(self, batch, batch_idx):
            return self.net(batch).numpy()
    """
    found = site(code, "self.net(batch).numpy()")
    assert found.in_no_grad() is expected
    assert (found.grad_hazard() is None) is expected


@pytest.mark.parametrize(
    ("line", "keeps"),
    [
        ("w = model.weight", True),
        ("w = model.weight.T", True),
        ("w = model.weight[0]", True),
        ("w = model.weight.view(-1).cpu()", True),
        ("w = model.weight.chunk(2)[0]", True),
        ("w = torch.as_tensor(model.weight)", True),
        ("w = model.weight * 2", False),
        ("w = model.weight[[0, 1]]", False),
        ("w = model.weight.clone()", False),
        ("w = model(x).logits", False),
        ("w = model(x)[0]", False),
    ],
)
def test_a_view_made_in_no_grad_keeps_the_flag_of_what_it_views(line: str, keeps: bool) -> None:
    code = f"""
    import torch
    def f(model, x):
        with torch.no_grad():
            {line}
        return w.numpy()
    """
    found = site(code, "w.numpy()")
    assert (NOGRAD not in found.facts(found.receiver)) is keeps


@pytest.mark.parametrize(
    ("target", "body", "hazard"),
    [
        (None, "return self.fc.weight.numpy()", None),
        ((1, 6), "return self.fc.weight.numpy()", None),
        ((1, 5), "return self.fc.weight.numpy()", "parameter"),
        ((1, 5), "return self.fc.weight.T.numpy()", "parameter"),
        ((1, 5), "return self.fc(x).numpy()", None),
        ((1, 5), "out = self.fc(x)\n            return out.numpy()", None),
        ((1, 5), "return (self.fc.weight * 2).numpy()", None),
    ],
)
def test_before_torch_1_6_no_grad_does_not_exempt_a_tensor_that_requires_grad(
    target: Optional[tuple[int, int]], body: str, hazard: Optional[str]
) -> None:
    code = f"""
    import torch
    from torch import nn
    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
        @torch.no_grad()
        def f(self, x):
            {body}
    """
    found = site(code, body.rsplit("return ", 1)[1], target_version=target)
    evidence = found.grad_hazard()
    assert (evidence.kind if evidence else None) == hazard
    assert found.needs_detach() is (hazard is not None)


def test_enable_grad_inside_no_grad_turns_grad_back_on() -> None:
    code = """
    import torch
    @torch.no_grad()
    def f(t):
        with torch.enable_grad():
            return t.numpy()
    """
    assert not site(code, "t.numpy()").in_no_grad()


# --- 4. retained or consumed --------------------------------------------------

RETENTION = [
    ("x = t.numpy()", True),
    ("x = t.numpy().T", True),
    ("x = t.numpy().reshape(-1)", True),
    ("return t.numpy()", True),
    ("yield t.numpy()", True),
    ("x = [t.numpy()]", True),
    ("out.append(t.numpy())", True),
    ("self.cache = t.numpy()", True),
    ("d[k] = t.numpy()", True),
    ("x = np.asarray(t.numpy())", True),
    ("x = t.numpy().copy()", False),
    ("x = t.numpy().sum()", False),
    ("x = t.numpy().tolist()", False),
    ("x = np.mean(t.numpy())", False),
    ("print(t.numpy())", False),
    ("x = t.numpy() + 1", False),
    ("x = t.numpy()[[0, 2]]", False),
    ("x = t.numpy().astype(np.float32)", False),
    ("x = t.numpy().astype(np.float32, copy=False)", True),
    ("np.add(a, b, out=t.numpy())", False),
]


@pytest.mark.parametrize(("line", "retained"), RETENTION, ids=[r for r, _ in RETENTION])
def test_results_are_retained_or_consumed(line: str, retained: bool) -> None:
    code = f"import numpy as np\nimport torch\ndef f(self, t, out, d, k, a, b):\n    {line}\n"
    assert site(code, "t.numpy()").retained() is retained


# --- 2 & 5. alias roots, persistence and in-place writes ----------------------


def _conversion(code: str, text: str) -> tuple[object, object]:
    found = site(code, text)
    conversion = found.conversion
    assert conversion is not None
    return found, conversion


@pytest.mark.parametrize(
    ("body", "persists"),
    [
        ("t = torch.from_numpy(a)", True),  # parameter
        ("t = torch.from_numpy(self.buf)", True),  # attribute
        ("t = torch.from_numpy(GLOBAL)", True),  # global
        ("t = torch.from_numpy(a[1:])", True),  # view of a parameter
        ("b = np.load(p)\n    t = torch.from_numpy(b)", False),  # dead local
        ("b = np.load(p)\n    t = torch.from_numpy(b)\n    print(b)", True),
        ("b = np.load(p)\n    t = torch.from_numpy(b.reshape(-1))\n    print(b)", True),
        ("t = torch.from_numpy(np.stack(a))", False),  # fresh
        ("t = torch.from_numpy(a.copy())", False),  # copy before
        ("t = torch.from_numpy(a[[0, 1]])", False),  # advanced indexing copies
        ("b = np.zeros(3)\n    for i in range(3):\n        t = torch.from_numpy(b)", True),
        ("for i in range(3):\n        b = np.zeros(3)\n        t = torch.from_numpy(b)", False),
    ],
    ids=[
        "parameter", "attribute", "global", "view-of-parameter", "dead-local",
        "local-used-later", "view-of-local-used-later", "fresh-call", "copy-before",
        "advanced-index", "reused-in-loop", "rebound-in-loop",
    ],
)  # fmt: skip
def test_roots_persist_when_kept_or_used_later(body: str, persists: bool) -> None:
    code = f"import numpy as np\nimport torch\nGLOBAL = None\ndef f(self, a, p):\n    {body}\n"
    line = next(line for line in body.splitlines() if "from_numpy" in line)
    found, conversion = _conversion(code, line[line.index("torch.from_numpy") :])
    assert found.function.source_persists(conversion) is persists  # type: ignore[attr-defined]


WRITES = [
    ("t += 1", "t"),
    ("t[0] = 1", "t"),
    ("t.add_(1)", "t"),
    ("t.clamp_(0, 1)", "t"),
    ("t[1:].zero_()", "t"),
    ("v = t.view(-1)\n    v.clamp_(0)", "v"),
    ("a.sort()", "a"),
    ("np.copyto(a, 0)", "a"),
    ("np.add(a, 1, out=a)", "a"),
    ("np.add.at(a, [0], 1)", "a"),
    ("torch.nn.functional.relu(t, inplace=True)", "t"),
    ("a[0] += 1", "a"),
]


@pytest.mark.parametrize(("write", "name"), WRITES, ids=[w for w, _ in WRITES])
def test_in_place_writes_are_seen_on_either_side(write: str, name: str) -> None:
    code = (
        f"import numpy as np\nimport torch\ndef f(a):\n    t = torch.from_numpy(a)\n    {write}\n"
    )
    code += "    return t\n"
    found, conversion = _conversion(code, "torch.from_numpy(a)")
    result = found.function.write_through(conversion)  # type: ignore[attr-defined]
    assert result is not None
    assert result[1] == name


@pytest.mark.parametrize(
    "write",
    ["t = t + 1", "a = a * 2", "t.sort()", "a.add_(1)", "t.requires_grad_()", "x = t.sum()",
     "t.unsqueeze_(0)", "t.t_()", "t.resize_(6)", "t.as_strided_((3,), (1,))"],
    ids=["rebinding-t", "rebinding-a", "torch-sort-is-not-in-place",
         "numpy-has-no-add_", "requires_grad_-writes-no-data", "read-only",
         "unsqueeze_-changes-the-shape-only", "t_-changes-the-strides-only",
         "resize_-to-fewer-elements-keeps-the-bytes", "as_strided_-changes-the-view-only"],
)  # fmt: skip
def test_rebinding_and_reads_are_not_writes(write: str) -> None:
    code = (
        f"import numpy as np\nimport torch\ndef f(a):\n    t = torch.from_numpy(a)\n    {write}\n"
    )
    found, conversion = _conversion(code, "torch.from_numpy(a)")
    assert found.function.write_through(conversion) is None  # type: ignore[attr-defined]


def test_a_write_to_a_local_pair_needs_a_later_read_of_the_other_side() -> None:
    quiet = """
    import numpy as np
    import torch
    def f():
        a = np.zeros(3)
        t = torch.from_numpy(a)
        t += 1
        return t
    """
    loud = quiet.replace("return t", "return a")
    for code, expected in ((quiet, False), (loud, True)):
        found, conversion = _conversion(code, "torch.from_numpy(a)")
        result = found.function.write_through(conversion)  # type: ignore[attr-defined]
        assert (result is not None) is expected


def test_a_buffer_refilled_in_a_loop_reaches_the_tensors_kept_from_earlier_iterations() -> None:
    code = """
    import numpy as np
    import torch
    def f(batches):
        buf = np.empty(3)
        kept = []
        for b in batches:
            buf[:] = b
            kept.append(torch.from_numpy(buf))
        return kept
    """
    found, conversion = _conversion(code, "torch.from_numpy(buf)")
    result = found.function.write_through(conversion)  # type: ignore[attr-defined]
    assert result is not None
    assert result[1] == "buf"
    assert "kept" in result[2]


FILLS = [
    ("t.copy_(src)", False),
    ("t.zero_()", False),
    ("t.normal_()", False),
    ("t[:] = src", False),
    ("t[...] = 0", False),
    ("t.T[:, :] = src", False),
    ("torch.add(src, 1, out=t)", False),
    ("torch.nn.init.zeros_(t)", False),
    ("t.copy_(t.flip(0))", True),  # reads what it writes
    ("t[:] = t * 2", True),
    ("t[0] = 0", True),  # a part of it
    ("t[1:].zero_()", True),
    ("t.narrow(0, 0, 2).zero_()", True),
    ("t.view(-1).zero_()", False),
    ("torch.add(t, 1, out=t)", True),
    ("a[:] = src", True),  # the array side: the tensor changes under its reader
    ("np.copyto(a, src)", True),
]


@pytest.mark.parametrize(("write", "reported"), FILLS, ids=[w for w, _ in FILLS])
def test_filling_the_conversion_result_whole_is_the_point(write: str, reported: bool) -> None:
    code = (
        "import numpy as np\nimport torch\ndef f(a, src):\n"
        f"    t = torch.from_numpy(a)\n    {write}\n    return t\n"
    )
    found, conversion = _conversion(code, "torch.from_numpy(a)")
    function = found.function  # type: ignore[attr-defined]
    assert (function.write_through(conversion) is not None) is reported
    # the strict latent-alias rule stays silent too: a copy would lose the fill
    assert function.filled_through(conversion) is not reported


CASTS = [
    ("a = cv2.imread(p)", "t = torch.from_numpy(a).float()", False),
    ("a = cv2.imread(p)", "t = torch.from_numpy(a).byte()", True),  # the same type
    ("a = cv2.imread(p, cv2.IMREAD_UNCHANGED)", "t = torch.from_numpy(a).float()", True),
    ("a = np.zeros(3)", "t = torch.from_numpy(a).to(torch.float32)", False),
    ("a = np.zeros(3)", "t = torch.from_numpy(a).to(dtype=torch.float64)", True),
    ("a = np.zeros(3, np.float32)", "t = torch.from_numpy(a).float()", True),
    ("a = np.zeros(3, dtype='int64')", "t = torch.from_numpy(a).float()", False),
    ("a = np.ones(3).astype(np.uint8)", "t = torch.from_numpy(a).long()", False),
    ("a = np.load(p)", "t = torch.from_numpy(a).float()", True),  # type unknown
    ("a = np.zeros(3)", "t = torch.from_numpy(a).view(torch.int64).float()", True),
    ("a = np.zeros(3)", "t = torch.from_numpy(a).to(dev).float()", True),
    ("a = np.zeros(3)", "t = torch.from_numpy(a).to('cpu').float()", False),
    ("a = np.zeros(3)", "t = torch.from_numpy(a.reshape(-1).T).half()", False),
    ("a = np.random.rand(3)", "t = torch.from_numpy(a)\n    t = t.type(torch.float32)", False),
]


@pytest.mark.parametrize(
    ("made", "converted", "reported"), CASTS, ids=[f"{m} {c}" for m, c, _ in CASTS]
)
def test_a_cast_between_two_known_types_copies(made: str, converted: str, reported: bool) -> None:
    code = (
        "import cv2\nimport numpy as np\nimport torch\ndef f(p, dev):\n"
        f"    {made}\n    {converted}\n    t += 1\n    return t, a\n"
    )
    found, conversion = _conversion(code, _call_text(converted, "torch.from_numpy("))
    result = found.function.write_through(conversion)  # type: ignore[attr-defined]
    assert (result is not None) is reported


def _call_text(code: str, start: str) -> str:
    """The call in ``code`` that begins with ``start``, to its closing parenthesis."""
    begin = code.index(start)
    depth = 0
    for end in range(begin, len(code)):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        if code[end] == ")" and depth == 0:
            return code[begin : end + 1]
    raise ValueError(code)


READS = [
    ("x = a.shape", False),
    ("x = a.T.shape[0]", False),
    ("x = len(a)", False),
    ("x = a.dtype", False),
    ("x = isinstance(a, np.ndarray)", False),
    ("x = a.sum()", True),
    ("x = a[0]", True),
    ("x = str(a)", True),
    ("x = len(a.tolist())", True),
]


@pytest.mark.parametrize(("read", "reported"), READS, ids=[r for r, _ in READS])
def test_only_a_read_of_the_bytes_after_the_write_counts(read: str, reported: bool) -> None:
    code = (
        "import numpy as np\nimport torch\ndef f(p):\n    a = np.load(p)\n"
        f"    t = torch.from_numpy(a)\n    t += 1\n    {read}\n    return t, x\n"
    )
    found, conversion = _conversion(code, "torch.from_numpy(a)")
    result = found.function.write_through(conversion)  # type: ignore[attr-defined]
    assert (result is not None) is reported


def _write_through(code: str, conversion_text: str) -> object:
    found, conversion = _conversion(textwrap.dedent(code), conversion_text)
    return found.function.write_through(conversion)  # type: ignore[attr-defined]


# Each case: a list or dict entry replaced (silent), and its twin, the same
# code with the entry's bytes written instead (reported).
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "dict-entry-replaced-by-its-tensor": (
        """
        import torch
        def f(batch):
            for key in batch.keys():
                batch[key] = torch.from_numpy(batch[key])
            return batch
        """,
        "torch.from_numpy(batch[key])",
        "batch[key] = torch.from_numpy(batch[key])",
        "t = torch.from_numpy(batch[key])\n        batch[key] += 1\n        s = t.sum()",
    ),
    "list-entry-replaced-by-its-tensor": (
        """
        import torch
        def f(xs):
            for i in range(len(xs)):
                xs[i] = torch.from_numpy(xs[i])
            return xs
        """,
        "torch.from_numpy(xs[i])",
        "xs[i] = torch.from_numpy(xs[i])",
        "xs[i] = torch.from_numpy(xs[i])\n        xs[i] += 1",
    ),
    "entry-scaled-before-it-is-converted": (
        """
        import torch
        def f(dets, r):
            for i in range(len(dets)):
                det = dets[i]
                det[:, :4] *= r
                dets[i] = torch.from_numpy(det[:, :4])
            return dets
        """,
        "torch.from_numpy(det[:, :4])",
        "det[:, :4] *= r\n        dets[i] = torch.from_numpy(det[:, :4])",
        "dets[i] = torch.from_numpy(det[:, :4])\n        det[:, :4] *= r",
    ),
    "string-key-replaced": (
        """
        import numpy as np
        import torch
        def f(sample):
            t = torch.from_numpy(sample["image"])
            sample["image"] = np.zeros(3)
            return t, sample
        """,
        'torch.from_numpy(sample["image"])',
        'sample["image"] = np.zeros(3)',
        'sample["image"] += 1',
    ),
    "annotated-dict": (
        """
        from typing import Dict
        import numpy as np
        import torch
        def f(d: Dict[str, np.ndarray], k):
            t = torch.from_numpy(d[k])
            d[k] = np.zeros(3)
            return t
        """,
        "torch.from_numpy(d[k])",
        "d[k] = np.zeros(3)",
        "d[k][:] = 0",
    ),
    "name-rebound-to-an-array": (
        """
        import numpy as np
        import torch
        def f(p):
            x = {}
            x = np.zeros(3)
            t = torch.from_numpy(x)
            x = np.load(p)
            return t, x
        """,
        "torch.from_numpy(x)",
        "x = np.load(p)",
        "x[0] = 1",
    ),
    "display-entry": (
        """
        import numpy as np
        import torch
        def f(p):
            parts = [np.load(p), np.load(p)]
            t = torch.from_numpy(parts[0])
            parts[0] = np.zeros(3)
            return t, parts
        """,
        "torch.from_numpy(parts[0])",
        "parts[0] = np.zeros(3)",
        "parts[0] -= 1",
    ),
}


@pytest.mark.parametrize("name", list(ENTRIES))
def test_replacing_a_list_or_dict_entry_writes_no_bytes(name: str) -> None:
    code, conversion, _, _ = ENTRIES[name]
    assert _write_through(code, conversion) is None


@pytest.mark.parametrize("name", list(ENTRIES))
def test_writing_into_the_entry_instead_is_reported(name: str) -> None:
    code, conversion, replaced, written = ENTRIES[name]
    code = textwrap.dedent(code)
    assert replaced in code
    assert _write_through(code.replace(replaced, written), conversion) is not None


@pytest.mark.parametrize(
    ("reads", "reported"),
    [
        ("print(t)", False),
        ('print(f"now {t.sum()}")', False),
        ("t", False),  # a bare name: a notebook cell's output
        ("print(t)\n    s = t.sum()", True),
        ("s = t.sum()", True),
        ("log(t)", True),  # an unknown call may compute from it
    ],
)
def test_a_read_that_only_shows_the_other_side_is_not_corrupted(reads: str, reported: bool) -> None:
    code = "import numpy as np\nimport torch\ndef f(p, log):\n    a = np.load(p)\n"
    code += f"    t = torch.from_numpy(a)\n    a += 1\n    {reads}\n"
    found = _write_through(code, "torch.from_numpy(a)")
    assert (found is not None) == reported


def test_a_name_used_as_a_list_or_dict_is_a_container() -> None:
    code = textwrap.dedent(
        """
        from typing import List, Optional
        import torch
        def f(a: List[int], b: Optional[dict], c: "dict", t: torch.Tensor, self):
            d = {}
            e = [x for x in a]
            g = dict(a=1)
            h.append(1)
            i["image"]
            self.cache.keys()
            t[0] = 1
            j = t.numpy()
        """
    )
    analysis = analyze(code)
    function = next(o for o in analysis.index.scopes if isinstance(o, syntax.FunctionDef))
    scope = analysis.index.scopes[function]
    assert container_keys(function, scope) == {"a", "b", "d", "e", "g", "h", "i", "self.cache"}


@pytest.mark.parametrize(
    ("source", "zero_copy", "readonly"),
    [
        ("np.load(p, mmap_mode='r')", True, True),
        ("np.load(p, mmap_mode='r+')", True, False),
        ("np.load(p)", False, False),
        ("np.memmap(p, mode='r')", True, True),
        ("np.memmap(p, mode='w+')", True, False),
        ("np.frombuffer(data)", True, False),  # unknown buffer: not known read-only
        ("np.frombuffer(b'abc', dtype=np.uint8)", True, True),
        ("np.frombuffer(fh.read())", True, True),
        ("np.ndarray((3,), buffer=shm.buf)", True, False),
        ("np.frombuffer(bytearray(data))", True, False),
        ("np.broadcast_to(x, (3, 3))", False, True),
    ],
)
def test_zero_copy_and_read_only_sources(source: str, zero_copy: bool, readonly: bool) -> None:
    code = f"import numpy as np\nimport torch\ndef f(p, data, x, fh, shm):\n    a = {source}\n"
    code += "    t = torch.from_numpy(a)\n"
    found, conversion = _conversion(code, "torch.from_numpy(a)")
    function = found.function  # type: ignore[attr-defined]
    assert function.source_is_zero_copy(conversion) is zero_copy
    assert function.source_is_readonly(conversion) is readonly


@pytest.mark.parametrize(
    ("init", "other", "facts"),
    [
        ("self.t = torch.from_numpy(a)", "", {CPU, NOGRAD, TENSOR}),
        (
            "self.t = np.load(p)\n        self.t = torch.from_numpy(self.t)",
            "",
            {CPU, NOGRAD, TENSOR},
        ),
        # a proof holds only where every assignment agrees: another method
        # binding an unknown value leaves a tensor on one path only
        ("self.t = torch.zeros(3)", "self.t = x", {MAY_TENSOR}),
        # evidence from any assigning method counts (the method may have run)
        ("self.t = torch.zeros(3)", "self.t = torch.ones(3).cuda()", {NOGRAD, TENSOR, "dev"}),
        ("if a:\n            self.t = torch.zeros(3)", "", set()),
    ],
    ids=["one-assignment", "rebound-in-init", "unknown-elsewhere", "device-elsewhere", "branch"],
)
def test_attribute_facts_are_what_every_assigning_method_agrees_on(
    init: str, other: str, facts: set[str]
) -> None:
    code = f"""
import numpy as np
import torch
class Holder:
    def __init__(self, a, p):
        {init}
    def set(self, x):
        {other or "pass"}
    def host(self):
        return self.t.numpy()
"""
    found = site(code, "self.t.numpy()")
    got = found.facts(found.receiver) - {MOVED}
    assert {t.split(":")[0] for t in got} == facts


def test_an_attribute_a_method_stores_from_another_attribute_takes_its_facts() -> None:
    # ``self.net`` is moved in ``__init__``; ``forward_store`` keeps its output
    # in ``self.buf``; ``read`` converts it: the second walk of the assigning
    # methods reads what the first said of ``self.net``
    code = """
import torch
class Runner:
    def __init__(self, net):
        self.net = net.cuda()
        self.buf = None
    def forward_store(self, x):
        self.buf = self.net(x)
    def read(self):
        return self.buf.detach().numpy()
"""
    found = site(code, "self.buf.detach().numpy()")
    assert found.device_hazard() is not None


def test_an_attribute_detached_where_it_requires_grad_has_no_grad_evidence() -> None:
    # ``reset`` leaves it ``None``; ``append`` detaches it when it requires
    # grad: the guess about ``val`` is answered before the methods meet
    code = """
import torch
class Average:
    def reset(self):
        self.val = None
    def append(self, val):
        self.val = torch.as_tensor(val, dtype=torch.float)
        if self.val.requires_grad:
            self.val = self.val.detach().clone()
    def get(self):
        return self.val.clone().cpu().numpy()
"""
    found = site(code, "self.val.clone().cpu().numpy()")
    assert found.grad_guess(found.receiver) is None
    unguarded = code.replace(
        "        if self.val.requires_grad:\n            self.val = self.val.detach().clone()\n", ""
    )
    assert "detach" not in unguarded
    bare = site(unguarded, "self.val.clone().cpu().numpy()")
    # the guess reaches the attribute (a guess: the strict TL112 names it)
    assert bare.grad_guess(bare.receiver) is not None
    assert bare.grad_hazard() is None


def test_parameters_used_only_as_numbers_are_found() -> None:
    from tensorlint.analysis.index import build_index
    from tensorlint.analysis.param_uses import numbers_only
    from tensorlint.analysis.parse import parse_whole
    from tensorlint.analysis.syntax import FunctionDef

    source = (
        "import torch\n\n"
        "def f(steps, n, scale, x, k, shape, items):\n"
        "    a = torch.arange(steps + 1) / steps\n"
        "    b = torch.linspace(0, 1, n) * scale\n"
        "    c = x.numpy() + torch.zeros(k)\n"
        "    d = torch.ones(shape.numel())\n"
        "    for i in range(len(items)):\n"
        "        pass\n"
        "    return a, b, c, d, helper(k)\n"
    )
    index = build_index(parse_whole(source), frozenset())
    function, scope = next((n, s) for n, s in index.scopes.items() if isinstance(n, FunctionDef))
    names = ["steps", "n", "scale", "x", "k", "shape", "items"]
    # ``scale`` only in arithmetic says nothing; ``k`` is also passed to a
    # call; ``shape`` and ``items`` are used as objects
    assert numbers_only(function, names, scope) == {"steps", "n"}


def test_parameters_the_function_moves_itself_are_found() -> None:
    from tensorlint.analysis.param_uses import moved_here
    from tensorlint.analysis.parse import parse_whole
    from tensorlint.analysis.syntax import FunctionDef

    source = (
        "def f(self, batch, target, mask, weights, table, dev):\n"
        "    x = batch\n"
        "    x_gpu = x.to(self.device)\n"
        "    y = target.cuda()\n"
        "    m = mask.to(torch.float32)\n"
        "    w = weights.to('cpu')\n"
        "    t = table.to(device=dev)\n"
        "    def later(z):\n"
        "        return dev.to('cuda')\n"
        "    return x.numpy(), y, m, w, t\n"
    )
    function = parse_whole(source).body[0]
    assert isinstance(function, FunctionDef)
    names = ["batch", "target", "mask", "weights", "table", "dev"]
    # through a name bound to it, ``.cuda()``, ``device=``; not a cast, not
    # the CPU, not inside a closure
    assert moved_here(function, names) == {"batch", "target", "table"}


def test_attribute_classes_come_from_every_assignment_in_the_class() -> None:
    from tensorlint.analysis import syntax
    from tensorlint.analysis.callees import attribute_classes
    from tensorlint.analysis.parse import parse_whole

    module = parse_whole(
        "class C:\n"
        "    def __init__(self, head: Optional[Union[Head, sk.LogReg]] = None, n: int = 1):\n"
        "        self.head = head\n"
        "        self.enc = Encoder(n).eval()\n"
        "        self.size = n\n"
        "        self.other = None\n"
        "        self.mixed = Encoder(n)\n"
        "    def to(self, device):\n"
        "        self.head = self.head.to(device)\n"
        "        self.mixed = make_encoder()\n"
        "        self.other = Decoder(1) if device else Encoder(2)\n"
    )
    (node,) = [s for s in module.body if isinstance(s, syntax.ClassDef)]
    # ``size`` (an ``int`` parameter), ``mixed`` (a call of a function too) and
    # ``other`` (a conditional expression) are not known to be one class's
    assert attribute_classes(node) == {
        "head": frozenset({"Head", "sk.LogReg"}),
        "enc": frozenset({"Encoder"}),
    }


@pytest.mark.parametrize(
    ("method", "call_defined", "output"),
    [
        ("    def scores(self, x):\n        return self(x).sigmoid()\n", False, True),
        # the class runs its own ``__call__``, not a forward pass
        ("    def scores(self, x):\n        return self(x).sigmoid()\n", True, False),
        # ``cls(...)`` in a class method makes an instance
        ("    @classmethod\n    def scores(cls, x):\n        return cls(x)\n", False, False),
    ],
    ids=["self-call", "own-call", "classmethod"],
)
def test_a_summary_counts_self_call_as_a_forward_pass(
    method: str, call_defined: bool, output: bool
) -> None:
    import ast

    from tensorlint.analysis.summaries import summarize

    own_call = "    def __call__(self, x):\n        return x\n" if call_defined else ""
    source = f"import torch\n\nclass Head(torch.nn.Module):\n{own_call}{method}"
    summary = summarize(ast.parse(source), source).functions["Head.scores"]
    assert summary.grad_output is output


def test_summary_proves_what_numbers_compute() -> None:
    """Parameters that default to numbers or are annotated ``int``/``float``,
    and the targets of a comprehension over ``range``, hold numbers."""
    source = textwrap.dedent(
        """
        import torch

        def rates(start: float, end=1.0, steps=10):
            gamma = (end / start) ** (1 / (steps - 1))
            return [start * gamma**i for i in range(steps)]

        def scaled(x, scale=2.0):
            return [x * scale for _ in range(3)]

        def tensor_default(start: torch.Tensor, end=1.0):
            return [start * end for i in range(3)]

        def none_default(start=None, end=1.0):
            return [start * end for i in range(3)]
        """
    )
    functions = summarize(ast.parse(source), source).functions
    assert functions["rates"].returns >= {"cpu", "nograd"}
    for name in ("scaled", "tensor_default", "none_default"):
        assert not functions[name].returns & {"cpu", "nograd"}, name
