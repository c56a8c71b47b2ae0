"""The design's four motivating bugs: flagged, fixed, and fixed right on CPU."""

from __future__ import annotations

import importlib.util
import shutil
import types
from pathlib import Path

import pytest

from tensorlint.cli import main
from tensorlint.engine.lint import lint_source
from tensorlint.registry import select
from tensorlint.rule import Settings

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "motivating.py"
torch = pytest.importorskip("torch", reason="the runtime check needs torch (test extra)")
np = pytest.importorskip("numpy", reason="the runtime check needs numpy (test extra)")


def _load(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line_of(name: str) -> int:
    lines = EXAMPLE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {name}("))
    return start + 1


def test_each_motivating_example_is_flagged_with_the_right_code() -> None:
    findings = lint_source(EXAMPLE.read_text(), Settings(enabled=select()))
    by_function: dict[str, set[str]] = {}
    for name in ("standardize", "shifted_copy", "to_host", "predict"):
        start = _line_of(name)
        by_function[name] = {d.code for d in findings if start < d.start.line < start + 8}
    assert "TL201" in by_function["standardize"]
    assert "TL202" in by_function["shifted_copy"]
    assert "TL101" in by_function["to_host"]
    assert "TL102" in by_function["predict"]


@pytest.fixture
def fixed(tmp_path: Path) -> types.ModuleType:
    copy = tmp_path / "motivating_fixed.py"
    shutil.copy(EXAMPLE, copy)
    assert main(["check", "--fix", "--unsafe-fixes", str(copy)]) == 0
    assert main(["check", "--fix", "--unsafe-fixes", str(copy)]) == 0  # nothing left
    return _load(copy)


def test_the_original_shows_the_bugs_on_cpu() -> None:
    original = _load(EXAMPLE)
    features = np.arange(4.0)
    original.standardize(features)
    assert features.tolist() == [-1.5, -0.5, 0.5, 1.5]  # the caller's array changed
    weights = torch.arange(3.0)
    original.shifted_copy(weights)
    assert weights.tolist() == [1.0, 2.0, 3.0]  # the caller's tensor changed
    with pytest.raises(RuntimeError, match="requires grad"):
        original.to_host(torch.ones(2, requires_grad=True), device="cpu")
    with pytest.raises(RuntimeError, match="requires grad"):
        original.predict(torch.nn.Linear(2, 1), torch.ones(1, 2))


def test_after_the_fix_values_no_longer_change_through_the_other_side(
    fixed: types.ModuleType,
) -> None:
    features = np.arange(4.0)
    t, _same = fixed.standardize(features)
    assert features.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t.tolist() == [-1.5, -0.5, 0.5, 1.5]
    features[0] = 100.0
    assert t[0].item() == -1.5

    weights = torch.arange(3.0)
    a, _ = fixed.shifted_copy(weights)
    assert weights.tolist() == [0.0, 1.0, 2.0]
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_after_the_fix_grad_tensors_convert_to_the_reference_values(
    fixed: types.ModuleType,
) -> None:
    # `to_host` gets `.cpu()` only: the script's one call of it passes a
    # tensor without grad (what it passes is what is checked here)
    t = torch.tensor([1.0, 2.0])
    assert fixed.to_host(t).tolist() == [1.0, 2.0]
    layer = torch.nn.Linear(2, 1)
    x = torch.ones(1, 2)
    expected = layer(x).detach().numpy()
    assert np.array_equal(fixed.predict(layer, x), expected)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_after_the_fix_cuda_tensors_convert(fixed: types.ModuleType) -> None:
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        _load(EXAMPLE).to_host(torch.ones(2))  # the original, on the default device
    t = torch.tensor([1.0, 2.0], device="cuda")
    assert fixed.to_host(t).tolist() == [1.0, 2.0]
