"""Findings that cross files: summaries of the functions a file imports.

``fixtures/cross/<case>/`` is a small tree; ``expected.txt`` lists its
findings (``path:line:col CODE message``, paths relative to the case). The
engine must find the same serially, in a pool, from a cache, and when only
the calling file is named.
"""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest

from tensorlint.analysis.summaries import FunctionSummary, ModuleSummary, summarize
from tensorlint.config import Config
from tensorlint.diagnostics import FileResult
from tensorlint.engine.cache import Cache
from tensorlint.engine.runner import RunOptions, run
from tensorlint.registry import select
from tensorlint.rule import Settings

CROSS = Path(__file__).resolve().parent.parent / "fixtures" / "cross"
CASES = sorted(p for p in CROSS.iterdir() if p.is_dir())
SETTINGS = Settings(enabled=select())


def findings(results: list[FileResult], root: Path) -> str:
    lines = []
    for result in results:
        assert result.error is None, result.error
        for d in result.diagnostics:
            where = os.path.relpath(result.path, root).replace(os.sep, "/")
            lines.append(f"{where}:{d.start.line}:{d.start.column + 1} {d.code} {d.message}\n")
    return "".join(lines)


def expected(case: Path) -> str:
    return (case / "expected.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_case_finds_what_it_expects(case: Path, tmp_path: Path) -> None:
    tree = tmp_path / case.name
    shutil.copytree(case, tree)
    got = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1), tree)
    assert got == expected(case)
    assert bool(got) == case.name.startswith("fire_"), "the name says whether it fires"


@pytest.mark.parametrize("case", [c for c in CASES if c.name.startswith("fire_")],
                         ids=lambda c: c.name)  # fmt: skip
def test_naming_only_the_calling_file_finds_the_same(case: Path, tmp_path: Path) -> None:
    tree = tmp_path / case.name
    shutil.copytree(case, tree)
    want = expected(case)
    named = sorted({line.split(":", 1)[0] for line in want.splitlines()})
    results = run([tree / n for n in named], Config(), SETTINGS, RunOptions(), jobs=1)
    assert findings(results, tree) == want


def test_a_pool_and_a_serial_run_agree(tmp_path: Path) -> None:
    for case in CASES:
        shutil.copytree(case, tmp_path / case.name)
    serial = run([tmp_path], Config(), SETTINGS, RunOptions(), jobs=1)
    pooled = run([tmp_path], Config(), SETTINGS, RunOptions(), jobs=2)
    assert findings(serial, tmp_path) == findings(pooled, tmp_path)
    assert findings(serial, tmp_path).count("\n") >= 5


def test_a_cached_result_is_dropped_when_a_module_it_used_changes(tmp_path: Path) -> None:
    tree = tmp_path / "case"
    shutil.copytree(CROSS / "fire_helper_returns_from_numpy", tree)
    cache = lambda: Cache(tmp_path / "cache")  # noqa: E731
    first = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert "TL201" in first
    again = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert again == first
    helper = tree / "vision" / "convert.py"
    text = helper.read_text(encoding="utf-8")
    helper.write_text(text.replace(".permute(2, 0, 1)", ".permute(2, 0, 1).clone()"))
    # the calling file did not change; the helper it imports did
    after = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert after == ""
    fresh = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1), tree)
    assert after == fresh


def test_a_cached_result_is_dropped_when_a_caller_two_files_up_changes(tmp_path: Path) -> None:
    tree = tmp_path / "case"
    shutil.copytree(CROSS / "fire_caller_two_files_up_moves_the_model", tree)
    plots = tree / "utils" / "plots.py"
    cache = lambda: Cache(tmp_path / "cache")  # noqa: E731
    first = findings(run([plots], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert "TL101" in first and "`train()` at ../train.py" in first
    script = tree / "train.py"
    text = script.read_text(encoding="utf-8")
    script.write_text(text.replace("model = Net().to(device)", "model = Net()"), encoding="utf-8")
    # neither the plotting file nor the logger changed; the script that calls
    # the logger's caller did
    after = findings(run([plots], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    fresh = findings(run([plots], Config(), SETTINGS, RunOptions(), jobs=1), tree)
    assert after == fresh
    assert "`train()` at ../train.py" not in after


def test_fix_inserts_the_copy_at_the_call(tmp_path: Path) -> None:
    tree = tmp_path / "case"
    shutil.copytree(CROSS / "fire_helper_returns_from_numpy", tree)
    run([tree], Config(), SETTINGS, RunOptions(fix=True, unsafe_fixes=True), jobs=1)
    show = (tree / "vision" / "show.py").read_text(encoding="utf-8")
    assert "x = to_chw(image).clone()\n" in show
    assert findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1), tree) == ""


SUMMARISED = """
import numpy as np
import torch


def view_of(a):
    return torch.from_numpy(a)[1:]


def copy_of(a):
    return torch.from_numpy(a).clone()


def host(t):
    return t.detach().cpu()


def scale(x, k):
    x *= k


def scale_twice(y):
    scale(y, 2)
    scale(y, 2)


def fit(net, opt, data):
    for x in data:
        net(x).sum().backward()
        opt.step()


def schedule(net, scheduler):
    net.train()
    scheduler.step()


class Box:
    def keep(self, a):
        self.a = a
        self._fill(a)

    def _fill(self, a):
        a.fill(0)
"""


def test_summaries_say_what_a_function_returns_and_writes() -> None:
    found = summarize(ast.parse(SUMMARISED)).functions
    assert found["view_of"].alias == ("a", "from_numpy", 7)
    assert found["copy_of"].alias is None  # a fresh copy: no alias...
    assert found["copy_of"].carries == ("a",)  # ... but computed from ``a`` (its grad)
    assert found["host"].returns == frozenset({"cpu", "nograd", "tensor"})
    assert found["scale"].writes["x"].line == 19
    assert found["scale_twice"].writes["y"].via == "scale"  # through the callee
    assert found["fit"].writes["net"].what == "steps an optimizer over"
    assert "schedule" not in found  # a scheduler's step writes no parameter
    assert found["Box.keep"].writes["a"].via == "Box._fill"
    assert found["Box.keep"].params == ("a",)  # ``self`` is the receiver


BRANCHES = """
import torch


def either(x, flag):
    if flag:
        y = x.cuda()
    else:
        y = x.cpu()
    return y


def both_host(x, flag):
    if flag:
        y = x.detach().cpu()
    else:
        y = x.cpu().detach()
    return y


def early(x, flag):
    if flag:
        y = x.cuda()
        return y.detach().cpu()
    y = x.detach().cpu()
    return y


def looped(xs):
    last = torch.zeros(1)
    for x in xs:
        last = x.cuda()
    return last


def tried(x):
    try:
        out = x.cpu().detach()
    except RuntimeError:
        out = x
    return out


def chosen(x, flag):
    if flag:
        y = x
    else:
        y = 0
    return y


def collected(model, batches, sampled):
    draws = []
    for batch in batches:
        draws.append(model(batch.cuda()).detach().cpu())
    if sampled:
        draws = torch.cat(draws)
    return draws


def copied(x):
    return x.detach().cpu().clone()


def matched(x, like):
    return x.detach().cpu().type_as(like)


@torch.no_grad()
def reconstructed(model, x, full):
    if full:
        out = model(x)
        out = out[0] if isinstance(out, tuple) else out
    else:
        out = model(x).detach()
    return out


def maybe_host(model, x):
    out = model(x.cuda())
    if out is not None:
        out = out.detach().cpu()
    return out
"""


def test_summaries_keep_what_every_path_proves() -> None:
    """A value bound on the host in one branch and moved in the other (or
    not bound again by a loop that may run no turn, or by a handler) proves
    nothing after them; one that every path leaves on the host does, and a
    branch that returns leaves nothing behind."""
    found = summarize(ast.parse(BRANCHES)).functions
    assert "cpu" not in found["either"].returns
    assert found["both_host"].returns >= {"cpu", "nograd"}
    assert found["early"].returns >= {"cpu", "nograd"}
    assert "cpu" not in found["looped"].returns
    assert "nograd" not in found["tried"].returns
    # (``x`` on one path: nothing proved; a function with nothing to say has no summary)
    assert "chosen" not in found or not found["chosen"].returns
    # a list of host copies on one path, their concatenation on the other
    assert found["collected"].returns >= {"cpu", "nograd"}
    assert found["copied"].returns >= {"cpu", "nograd"}  # a copy stays where it was
    assert "cpu" not in found["matched"].returns  # (``type_as``: where ``like`` is)
    assert "nograd" in found["reconstructed"].returns  # (each arm of the ``if`` expression)
    # (where ``out is None``, it holds no tensor: every tensor it returns is on the host)
    assert found["maybe_host"].returns >= {"cpu", "nograd"}
    assert not found["maybe_host"].device_output


FILLED = """
import numpy as np
import torch


def gathered(xs, scale):
    out = []
    for x in xs:
        out.append(torch.relu(x) * scale)
    return out


def keyed(x, k):
    found = {}
    found[k] = torch.relu(x)
    return found


def timed(model, inputs, iters):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        model(*inputs)
    end.record()
    return start.elapsed_time(end) / iters


def ones_like_count(x, n):
    return torch.ones(3) * n


def relayed(a, b):
    return ones_like_count(a, 2) * b


def benchmark(model, size):
    inputs = [torch.randn(size, device="cuda")]
    latency = timed(model, inputs, 10)
    return latency


def outputs(model, size):
    inputs = [torch.randn(size, device="cuda")]
    return gathered(inputs, 2.0)


def host_boxes(scores):
    return [np.asarray(s) for s in scores.cpu().numpy()]


def shadowed(xs):
    x = np.zeros(3)
    return [x for x in xs]


def to_host(x):
    if torch.cuda.is_available():
        return x.cpu()
    else:
        return x


def corners(center, scale):
    t = torch.eye(3)
    t[0, 2] = center[0] * scale
    return t


def counted(prompts, maps):
    return maps.reshape(len(prompts), -1)
"""


def test_summaries_follow_values_into_containers_and_callees() -> None:
    """A parameter stored in a list or a dict the function returns flows
    into what it returns; a call of a function of the module gives what its
    summary says, not whatever its arguments hold (a timing computed while
    the inputs sit on the device is no value on the device)."""
    found = summarize(ast.parse(FILLED)).functions
    assert found["gathered"].carries == ("xs", "scale")
    assert "xs" in found["gathered"].keeps_device
    assert found["keyed"].carries == ("x",)  # (the key is no value stored)
    assert "inputs" not in found["timed"].carries
    assert "benchmark" not in found or not found["benchmark"].device_output
    assert found["relayed"].carries == ("b",)  # (what ``ones_like_count`` says reaches it)
    assert found["outputs"].device_output
    assert found["host_boxes"].returns >= {"cpu", "nograd"}  # every element a host array
    assert "cpu" not in found["shadowed"].returns  # (the elements are ``xs``'s, not ``x``'s)
    assert "cpu" in found["to_host"].returns  # (where CUDA is not available, on the CPU)
    assert found["corners"].keeps_device == ()  # written into a tensor made on the CPU
    assert found["corners"].carries == ("center", "scale")  # (its grad, with grad on)
    assert found["counted"].carries == ("maps",)  # ``len(prompts)`` is a number


MADE_TENSORS = """
import torch


def scaled(xs):
    batch = torch.stack(xs, 0).cuda()
    return 2.0 * (batch - 0.5)


def flipped(t):
    return -t.detach()


def host_array(t):
    return t.detach().cpu().numpy()


def loaded(path):
    return torch.load(path)


def maybe(t, k):
    if k:
        return t.permute(1, 0)
    return k * 2
"""


def test_summaries_say_which_functions_return_tensors() -> None:
    """A torch function's result, arithmetic on a tensor and a method only
    tensors have give a tensor; an array, a checkpoint or a number do not."""
    found = summarize(ast.parse(MADE_TENSORS)).functions
    assert "tensor" in found["scaled"].returns
    assert found["scaled"].device_output
    assert found["flipped"].returns == frozenset({"nograd", "tensor"})
    assert "tensor" not in found["host_array"].returns
    assert "loaded" not in found or "tensor" not in found["loaded"].returns
    assert "maybe" not in found or "tensor" not in found["maybe"].returns


GRAD_OFF_HELPERS = """
import torch


def smart_inference_mode(new=True):
    def decorate(fn):
        return (torch.inference_mode if new else torch.no_grad)()(fn)

    return decorate


def frozen(fn):
    return torch.no_grad()(fn)


def quiet():
    return torch.no_grad()


def half_quiet(flag):
    if flag:
        return torch.no_grad()
    return torch.enable_grad()


def timed(fn):
    def decorate(*args):
        return fn(*args)

    return decorate
"""


def test_summaries_say_which_functions_turn_grad_off() -> None:
    """A factory of no-grad decorators or contexts, and a no-grad decorator
    itself; not one that may give a grad context, nor a plain wrapper."""
    from tensorlint.analysis.summaries import GRAD_OFF, GRAD_OFF_WRAP

    found = summarize(ast.parse(GRAD_OFF_HELPERS)).functions
    assert GRAD_OFF in found["smart_inference_mode"].returns
    assert GRAD_OFF_WRAP in found["frozen"].returns
    assert GRAD_OFF in found["quiet"].returns
    for name in ("half_quiet", "timed"):  # (a summary that says nothing is left out)
        summary = found.get(name)
        assert summary is None or not summary.returns & {GRAD_OFF, GRAD_OFF_WRAP}


TUPLES = """
def step(model, x):
    out = model(x)
    if x is None:
        return None
    return out.argmax(1).detach().cpu(), out.softmax(1)

def act(self_device, x, model):
    y = model(x.to(self_device))
    if y is None:
        return y.detach(), 0
    return y.detach(), y.sum()

def mixed(x):
    if x:
        return x, x
    return x, x, x
"""


def test_summaries_say_what_each_position_of_a_returned_tuple_is() -> None:
    found = summarize(ast.parse(TUPLES)).functions
    preds, probs = found["step"].elements
    assert preds.returns == frozenset({"cpu", "nograd", "tensor"}) and not preds.grad_output
    assert probs.grad_output and not probs.returns
    value, total = found["act"].elements
    assert "tensor" in value.returns  # ``.detach()`` on both paths
    assert not total.returns  # ``0`` on one path, a tensor on the other
    assert found["mixed"].elements == ()  # tuples of two lengths: nothing per position
    summary = summarize(ast.parse(TUPLES))
    assert ModuleSummary.from_json(summary.to_json()) == summary


def test_type_aliases_are_followed_to_what_they_name() -> None:
    summary = summarize(ast.parse("Long = torch.LongTensor\nTriples: TypeAlias = Long\n"))
    assert summary.alias_chain("Triples") == ["Long", "torch.LongTensor"]


def test_summaries_survive_json_and_reject_anything_else() -> None:
    summary = summarize(ast.parse(SUMMARISED))
    assert ModuleSummary.from_json(summary.to_json()) == summary
    host = summary.to_json()["functions"]["host"]
    for bad in ([], {"f": {}}, {"functions": {"f": {**host, "line": "1"}}, "aliases": {}}):
        with pytest.raises((ValueError, KeyError, TypeError)):
            ModuleSummary.from_json(bad)
    assert isinstance(FunctionSummary.from_json(host), FunctionSummary)


# -- files that never import torch: the import graph decides ------------------

STRICT = Settings(enabled=select(strict=True))


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_graph_cases_keep_their_verdict_under_strict(tmp_path: Path) -> None:
    """The silent twins stay silent when every ``.numpy()`` is questioned:
    their receivers are not torch's, whatever the project's other modules are."""
    for name in ("ok_helpers_never_import_torch", "ok_tensorflow_script_beside_a_torch_model"):
        tree = tmp_path / name
        shutil.copytree(CROSS / name, tree)
        assert findings(run([tree], Config(), STRICT, RunOptions(), jobs=1), tree) == ""
    tree = tmp_path / "fire"
    shutil.copytree(CROSS / "fire_script_imports_the_projects_model", tree)
    got = findings(run([tree], Config(), STRICT, RunOptions(), jobs=1), tree)
    assert "predict.py:9:23 TL101" in got
    tree = tmp_path / "boundary"
    shutil.copytree(CROSS / "ok_public_function_of_a_file_without_torch", tree)
    got = findings(run([tree], Config(), STRICT, RunOptions(), jobs=1), tree)
    assert "report.py:9:12 TL111" in got and "report.py:9:12 TL112" in got


@pytest.mark.parametrize(
    "importing",
    [
        "from models import Net\n",
        "from . import models\n",
        "from .models import Net as N\n",
        "import models\n",
        "import pkg_other, models as m\n",
        "from models import (\n    Net,\n)\n",
    ],
)
def test_each_import_form_reaches_the_module(tmp_path: Path, importing: str) -> None:
    _write(
        tmp_path,
        {
            "__init__.py": "",
            "models.py": "import torch\nNet = torch.nn.Linear\n",
            "use.py": importing + "def f(t):\n    return t.numpy()\n",
        },
    )
    got = findings(run([tmp_path / "use.py"], Config(), STRICT, RunOptions(), jobs=1), tmp_path)
    assert "TL1" in got and "`.numpy()` on `t`" in got
    (tmp_path / "models.py").write_text("import numpy\nNet = None\n", encoding="utf-8")
    got = findings(run([tmp_path / "use.py"], Config(), STRICT, RunOptions(), jobs=1), tmp_path)
    assert got == ""


def test_the_graph_is_followed_three_imports_deep_and_no_further(tmp_path: Path) -> None:
    """a -> b -> c -> d: torch in d reaches a (three steps); in a fourth
    module, the graph is not read that far."""
    chain = {"a.py": "from b import *\n", "b.py": "from c import *\n", "c.py": "from d import *\n"}
    use = "import a\n\ndef f(t):\n    return t.numpy()\n"
    _write(tmp_path, {**chain, "d.py": "import e\n", "e.py": "import torch\n", "use.py": use})
    run_use = lambda: findings(  # noqa: E731
        run([tmp_path / "use.py"], Config(), STRICT, RunOptions(), jobs=1), tmp_path
    )
    assert run_use() == ""
    (tmp_path / "c.py").write_text("import torch\n", encoding="utf-8")
    assert "use.py:4:12 TL1" in run_use()


def test_a_cached_verdict_is_dropped_when_a_module_of_the_graph_changes(tmp_path: Path) -> None:
    tree = tmp_path / "case"
    shutil.copytree(CROSS / "fire_star_import_through_a_package", tree)
    cache = lambda: Cache(tmp_path / "cache")  # noqa: E731
    first = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert "rollout.py:8:7 TL101" in first
    nets = tree / "common" / "nets.py"
    nets.write_text(nets.read_text(encoding="utf-8").replace("import torch", "import jax"))
    after = findings(run([tree], Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert after == ""


def test_a_file_that_imports_another_framework_never_follows_the_graph(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "models.py": "import torch\n",
            "use.py": "import models\nimport paddle\n\ndef f(t):\n    return t.numpy()\n",
        },
    )
    assert findings(run([tmp_path], Config(), STRICT, RunOptions(), jobs=1), tmp_path) == ""


def test_a_script_finds_the_project_it_puts_on_sys_path(tmp_path: Path) -> None:
    """``tools/x.py`` that appends the folder above to ``sys.path`` and star-
    imports the project's ``common``: looked for up to two folders up."""
    script = "import sys\nsys.path.append('..')\nfrom common import *\n\nprint(net(x).numpy())\n"
    _write(tmp_path, {"common.py": "import torch\n", "tools/deep/x.py": script})
    got = findings(run([tmp_path], Config(), SETTINGS, RunOptions(), jobs=1), tmp_path)
    assert got.startswith("tools/deep/x.py:5:7 TL102")
    shutil.move(str(tmp_path / "tools"), str(tmp_path / "a" / "tools"))
    assert findings(run([tmp_path], Config(), SETTINGS, RunOptions(), jobs=1), tmp_path) == ""


# -- classes: how a base class calls its subclasses' hooks ---------------------

CLASSES = """
import torch
from torch import no_grad
from .base import Base
from . import mixins
import pkg.engine as engine


class Local:
    pass


class Runner(Base, mixins.Logging, engine.Loop, Local, object):
    def evaluate(self, loader):
        with torch.no_grad():
            for batch in loader:
                self.step(batch)
        with no_grad():
            self.log(self.state)

    @torch.inference_mode()
    def predict(self, x):
        self.log(x.cuda())
        self.forward_once(torch.zeros(3, device="cpu"))

    def train(self, x):
        self.step(x.to(torch.float32))
        f = lambda: self.forward_once(x)
        with torch.no_grad():
            g = lambda: self.hidden(x)

    @staticmethod
    def helper(self):
        self.never()
"""


def test_a_class_summary_has_its_bases_and_its_calls_on_self() -> None:
    runner = summarize(ast.parse(CLASSES)).classes["Runner"]
    # imported bases qualified as imported; a class of the module by name; builtins dropped
    assert runner.bases == (".base.Base", ".mixins.Logging", "pkg.engine.Loop", "Local")
    calls = runner.calls
    assert (calls["step"].line, calls["step"].caller) == (17, "evaluate")
    assert not calls["step"].no_grad  # ``train`` calls it with grad on
    assert calls["step"].passes_parameters and not calls["step"].moved  # (a dtype is no device)
    assert calls["log"].no_grad and calls["log"].moved and calls["log"].passes_parameters
    assert not calls["forward_once"].no_grad  # a lambda runs when it is called
    assert not calls["hidden"].no_grad
    assert "never" not in calls  # a static method has no ``self``
    state = summarize(ast.parse(CLASSES.replace("self.log(x.cuda())", "pass"))).classes
    assert not state["Runner"].calls["log"].passes_parameters  # ``self.state``: its own


def test_class_summaries_survive_json() -> None:
    summary = summarize(ast.parse(CLASSES))
    again = ModuleSummary.from_json(summary.to_json())
    assert dict(again.classes) == dict(summary.classes)
    data = summary.to_json()
    data["classes"]["Runner"]["calls"]["step"][2] = "yes"
    with pytest.raises(ValueError):
        ModuleSummary.from_json(data)


def test_an_attribute_set_from_a_parameter_binds_no_name() -> None:
    source = (
        "class Base:\n"
        "    def __init__(self, sampler):\n"
        "        self.sampler = sampler\n"
        "        self.groups(self.sampler)\n"
        "        first, *rest = sampler\n"
        "        self.split(rest)\n"
    )
    calls = summarize(ast.parse(source)).classes["Base"].calls
    assert not calls["groups"].passes_parameters  # ``self`` is not tainted by ``self.x = p``
    assert calls["split"].passes_parameters  # a starred target of a parameter is


OUTPUTS = """
import torch


def probs(network, x):
    logits = network(x)
    return torch.softmax(logits, -1)


def detached(network, x):
    return network(x).detach()


def labels(network, x):
    return network(x).argmax(-1)


@torch.no_grad()
def quiet(network, x):
    return network(x)


def quiet_block(network, x):
    with torch.no_grad():
        out = network(x)
    return out


def through(network, x):
    return probs(network, x) * 2


def not_a_module(fn, x):
    return fn(x)


def rebound(network, x):
    out = network(x)
    out = x + 1
    return out


class Head:
    def scores(self, h):
        return self.encoder(h).mean(0)
"""


def test_a_summary_says_when_a_function_returns_a_module_output_with_grad() -> None:
    found = summarize(ast.parse(OUTPUTS)).functions
    grad = {name for name in found if found[name].grad_output}
    assert grad == {"probs", "through", "Head.scores"}
    assert "nograd" in found["labels"].returns  # integers never require grad
    assert "nograd" in found["quiet"].returns  # computed with grad disabled
    assert not found["quiet_block"].grad_output  # (made inside ``with torch.no_grad()``)
    again = ModuleSummary.from_json(summarize(ast.parse(OUTPUTS)).to_json())
    assert again.functions["probs"].grad_output


def test_a_view_made_without_grad_proves_nothing() -> None:
    # under no_grad a view of a tensor that requires grad still requires grad
    source = (
        "import torch\n\n@torch.no_grad()\ndef flipped(w):\n    return torch.permute(w, (1, 0))\n"
        "\n@torch.no_grad()\ndef scaled(w):\n    return torch.mul(w, 2)\n"
    )
    found = summarize(ast.parse(source)).functions
    assert "flipped" not in found or "nograd" not in found["flipped"].returns
    assert "nograd" in found["scaled"].returns


def test_a_summary_says_when_every_return_is_set_to_require_grad() -> None:
    source = (
        "import torch\n\n"
        "def fresh(a):\n    return torch.tensor(a, requires_grad=True)\n\n"
        "@torch.no_grad()\n"  # the flag holds under no-grad too
        "def quiet(a):\n    w = torch.tensor(a, requires_grad=True)\n    return w\n\n"
        "def leaf(a):\n    return a.clone().requires_grad_()\n\n"
        "def sometimes(a, keep):\n    if keep:\n        return None\n"
        "    return torch.tensor(a, requires_grad=True)\n\n"
        "def detached(a):\n    w = torch.tensor(a, requires_grad=True)\n    w = w.detach()\n"
        "    return w\n"
    )
    found = summarize(ast.parse(source)).functions
    made = {name for name in found if found[name].grad_made}
    assert made == {"fresh", "quiet", "leaf"}
    assert "nograd" not in found["quiet"].returns
    again = ModuleSummary.from_json(summarize(ast.parse(source)).to_json())
    assert again.functions["quiet"].grad_made


PARAMETERS = """\
import torch


def looped(net):
    pieces = []
    for w in net.parameters():
        pieces.append(w.view(-1))
    return torch.cat(pieces)


def named(net):
    return torch.cat([w.flatten() for _, w in net.named_parameters()])


def vector(net):
    return torch.nn.utils.parameters_to_vector(net.parameters())


def grads(net):
    return torch.cat([w.grad.view(-1) for w in net.parameters()])


def values(net):
    return [w.data for w in net.parameters()]


def names(net):
    return [name for name, _ in net.named_parameters()]


def count(net):
    return sum(w.numel() for w in net.parameters())


@torch.no_grad()
def quiet(net):
    return torch.cat([w.view(-1) for w in net.parameters()])


def rebound(net, xs):
    for w in net.parameters():
        pass
    for w in xs:
        pass
    return w
"""


def test_a_summary_says_when_a_function_returns_values_of_parameters_with_grad() -> None:
    found = summarize(ast.parse(PARAMETERS)).functions
    grad = {name for name in found if found[name].grad_output}
    assert grad == {"looped", "named", "vector"}


@pytest.mark.parametrize(
    "init",
    [
        "from pkg.ops import *\n",
        "from .ops import *\n",
        "from .ops import flat\n",
        "from pkg.ops import flat as flat\n",
        "from .inner import *\n",  # two modules deep
    ],
)
def test_a_function_re_exported_by_a_package_is_found(tmp_path: Path, init: str) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": init,
            "pkg/inner.py": "from .ops import *\n",
            "pkg/ops.py": (
                "import torch\n\ndef flat(net):\n"
                "    return torch.cat([w.view(-1) for w in net.parameters()])\n"
            ),
            "scripts/run.py": "from pkg import *\n\nprint(flat(model).numpy())\n",
            "use.py": "from pkg import flat\n\nprint(flat(model).numpy())\n",
        },
    )
    for name in ("scripts/run.py", "use.py"):
        got = findings(run([tmp_path / name], Config(), SETTINGS, RunOptions(), jobs=1), tmp_path)
        assert f"{name}:3:7 TL102" in got and "(defined at " in got, (name, got)


def test_re_exports_are_followed_three_modules_deep_and_no_further(tmp_path: Path) -> None:
    chain = {f"m{i}.py": f"from m{i + 1} import *\n" for i in range(1, 4)}
    flat = "import torch\n\ndef flat(net):\n    return torch.cat(list(net.parameters()))\n"
    use = "import torch\nfrom m1 import flat\n\nprint(flat(model).numpy())\n"
    _write(tmp_path, {**chain, "m4.py": flat, "use.py": use})
    run_use = lambda: findings(  # noqa: E731
        run([tmp_path / "use.py"], Config(), SETTINGS, RunOptions(), jobs=1), tmp_path
    )
    assert "use.py:4:7 TL102" in run_use()
    (tmp_path / "m4.py").write_text("from m5 import *\n", encoding="utf-8")
    (tmp_path / "m5.py").write_text(flat, encoding="utf-8")
    assert run_use() == ""


def test_a_module_without_torch_is_checked_again_when_a_caller_passes_cuda(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "case"
    shutil.copytree(CROSS / "ok_metrics_module_without_torch_given_host_tensors", tree)
    cache = lambda: Cache(tmp_path / "cache")  # noqa: E731
    metrics = [tree / "anomaly" / "metrics.py"]
    assert (
        findings(run(metrics, Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree) == ""
    )
    detector = tree / "anomaly" / "detector.py"
    text = detector.read_text(encoding="utf-8").replace(".cpu()", "")
    detector.write_text(text, encoding="utf-8")
    got = findings(run(metrics, Config(), SETTINGS, RunOptions(), jobs=1, cache=cache()), tree)
    assert "anomaly/metrics.py:9:12 TL103" in got and "detector.py:19" in got


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import torch\ntorch.set_default_tensor_type("torch.cuda.FloatTensor")\n', (2, True)),
        ("import torch\nif torch.cuda.is_available():\n"
         "    torch.set_default_tensor_type(torch.cuda.DoubleTensor)\n", (3, True)),
        ('import torch\ntry:\n    torch.set_default_device("cuda:0")\nexcept Exception:\n'
         "    pass\n", (3, False)),
        ('import torch\ntorch.set_default_device(torch.device("cuda"))\n', (2, False)),
        ('import torch\ntorch.set_default_tensor_type("torch.FloatTensor")\n', (0, False)),
        ('import torch\ntorch.set_default_device("cpu")\n', (0, False)),
        # (in a function: importing the module does not run it)
        ('import torch\ndef gpu():\n    torch.set_default_device("cuda")\n', (0, False)),
    ],
)  # fmt: skip
def test_a_module_that_makes_cuda_the_default_device_when_imported_says_where(
    source: str, expected: tuple[int, bool]
) -> None:
    summary = summarize(ast.parse(source), source)
    assert (summary.default_cuda, summary.default_cuda_legacy) == expected
    again = ModuleSummary.from_json(summary.to_json())
    assert (again.default_cuda, again.default_cuda_legacy) == expected
