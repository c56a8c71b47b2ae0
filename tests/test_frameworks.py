"""What a training framework hands the methods it calls: PyTorch Lightning's
batches (moved to the module's device) and the outputs of its steps."""

from __future__ import annotations

import pytest
from analysis_helpers import analyze, site

from tensorlint.analysis import ops, syntax
from tensorlint.analysis.names import framework_inputs


def _inputs(code: str, method: str) -> tuple[tuple[str, str], ...]:
    analysis = analyze(code)
    for node, scope in analysis.index.scopes.items():
        if isinstance(node, syntax.FunctionDef) and node.name.value == method:
            return tuple((param.name.value, kind) for param, kind in framework_inputs(scope))
    raise AssertionError(method)


LIGHTNING = """
import pytorch_lightning as pl

class Net(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        return batch

    def on_train_batch_end(self, outputs, batch, batch_idx):
        pass

    def validation_epoch_end(self, outputs):
        pass

class Logger(pl.Callback):
    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        pass

"""


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("training_step", (("batch", "batch"),)),
        ("on_train_batch_end", (("batch", "batch"), ("outputs", "step:training_step"))),
        ("validation_epoch_end", (("outputs", "step:validation_step"),)),
        ("on_validation_batch_end", (("batch", "batch"),)),
    ],
)
def test_lightning_methods_get_what_the_framework_prepared(
    method: str, expected: tuple[tuple[str, str], ...]
) -> None:
    assert _inputs(LIGHTNING, method) == expected


def test_other_classes_and_signatures_get_nothing() -> None:
    # a Keras callback's ``batch`` is an index, and it has fewer parameters
    assert _inputs(LIGHTNING, "on_train_batch_end") != ()
    keras = (
        "from keras.callbacks import Callback\n"
        "class Logger(Callback):\n"
        "    def on_train_batch_end(self, batch, logs=None):\n"
        "        pass\n"
    )
    assert _inputs(keras, "on_train_batch_end") == ()
    plain = "class Plain:\n    def training_step(self, batch, batch_idx):\n        pass\n"
    assert _inputs(plain, "training_step") == ()


def test_the_batch_is_device_evidence_but_no_tensor() -> None:
    code = """
    import numpy as np
    import pytorch_lightning as pl

    class Net(pl.LightningModule):
        def validation_step(self, batch, batch_idx):
            x, ids = batch
            print(np.asarray(ids))
            return x.numpy()
    """
    converted = site(code, "x.numpy()")
    assert converted.device_evidence(converted.receiver) is not None
    ids = site(code, "np.asarray(ids)")
    assert not ids.is_torch_value(ids.node.args[0].value)  # (strings, ids: not moved)


@pytest.mark.parametrize(
    ("name", "loss"),
    [
        ("criterion", True),
        ("loss_fn", True),
        ("_loss", True),
        ("compute_metrics", False),
        ("lossy", False),
        ("model", False),
    ],
)
def test_loss_names(name: str, loss: bool) -> None:
    assert ops.names_a_loss(name) is loss
