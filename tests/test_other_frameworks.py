"""Values of other frameworks (TensorFlow, JAX) and the imports that name them."""

from __future__ import annotations

import ast
import textwrap

import pytest

from tensorlint.analysis import ops
from tensorlint.analysis.classes import all_imports
from tensorlint.analysis.summaries import OTHER_MADE, summarize


@pytest.mark.parametrize(
    ("callee", "texts", "module"),
    [
        ("importlib.import_module", ["tensorflow"], "tensorflow"),
        ("import_module", ["a.b"], "a.b"),
        ("__import__", ["a.b"], "a"),
        ("LazyLoader", ["hub", None, "tensorflow_hub"], "tensorflow_hub"),
        ("utils.LazyLoader", ["tensorflow"], "tensorflow"),
        ("lazy_import", ["numpy"], "numpy"),
        ("importlib.import_module", [".models"], None),  # relative: the package decides
        ("importlib.import_module", [None], None),  # computed at run time
        ("load_module", ["tensorflow"], None),  # not an import this table knows
        ("LazyLoader", [], None),
    ],
)
def test_lazy_import_names_the_module(
    callee: str, texts: list[str | None], module: str | None
) -> None:
    assert ops.lazy_import(callee, texts) == module


def _tree(source: str) -> ast.Module:
    return ast.parse(textwrap.dedent(source))


def test_imports_in_top_level_blocks_and_lazy_imports_count() -> None:
    found = all_imports(
        _tree(
            """
            import importlib
            if HAVE_TF:
                import tensorflow as tf
            try:
                import jax.numpy as jnp
            except ImportError:
                import numpy as jnp_fallback
            hub = LazyLoader("hub", globals(), "tensorflow_hub")
            th = importlib.import_module("torch")

            def f():
                import pandas as pd
            """
        )
    )
    assert found["tf"] == "tensorflow"
    assert found["jnp"] == "jax.numpy"
    assert found["hub"] == "tensorflow_hub"
    assert found["th"] == "torch"
    assert "jnp_fallback" not in found  # (the fallback of a failed import)
    assert "pd" not in found  # (a function's own import)


def test_summary_says_a_helper_returns_another_frameworks_value() -> None:
    source = textwrap.dedent(
        """
        import torch
        try:
            import tensorflow as tf
        except ImportError:
            tf = None

        def to_tf(a):
            if a is None:
                return None
            t = tf.convert_to_tensor(a)
            return tf.expand_dims(t, 0)

        def run(model, a):
            return model(to_tf(a), training=False)

        def run_torch(model, a):
            return model(torch.as_tensor(a))

        def mixed(a, flag):
            if flag:
                return tf.constant(a)
            return torch.as_tensor(a)
        """
    )
    functions = summarize(ast.parse(source), source).functions
    assert functions["to_tf"].returns == {OTHER_MADE}
    run = functions["run"]
    assert run.returns == {OTHER_MADE}
    assert not run.grad_output and not run.forward_output and not run.keeps_device
    assert functions["run_torch"].grad_output
    assert OTHER_MADE not in functions["mixed"].returns  # (a torch tensor on one path)
