"""Measure what NumPy functions do when they are given torch tensors.

This is how the facts in ``tensorlint/analysis/numpy_table.py`` were
obtained, and ``tests/test_numpy_table.py`` runs it again against the
installed torch and NumPy: the table is measured, never assumed.

For each function's example call (``{x}`` stands for the argument):

- ``tensor``: given a tensor that requires grad, the call raises torch's
  "Can't call numpy() on Tensor that requires grad" (it reached
  ``Tensor.__array__``, which calls ``Tensor.numpy()``); given a tensor on
  another device it raises "can't convert ... device type tensor to numpy".
  The device is ``cuda`` when one is present, else ``meta`` (on a CPU-only
  machine a ``meta`` tensor takes the same ``__array__`` path).
- ``sequence``: the same, for a list of two such tensors.
- ``same``: on a CPU tensor without grad, the call gives the same type and
  value as the call on ``t.numpy()`` (for a list: on a list of arrays), so
  converting the argument explicitly keeps the program's meaning.

The library calls of ``tensorlint/analysis/library_table.py`` (matplotlib,
scikit-learn, pandas, SciPy) are measured the same way by ``measure_call``,
once per converted argument: ``tensor`` and ``sequence`` as above, and
``same``: on a CPU tensor the call and the call on ``t.numpy()`` both
succeed and return the same type (never a tensor).

Run ``python tools/measure_numpy.py`` to print every row.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from typing import Any, Callable, NamedTuple, Optional

GRAD_ERROR = "Can't call numpy() on Tensor that requires grad"
DEVICE_ERROR = "device type tensor to numpy"


class Measured(NamedTuple):
    tensor: bool
    sequence: bool
    same: bool
    device: str  #: the device the conversion was tried on (cuda or meta)


def _compile(example: str, folder: str) -> Callable[[Any], Any]:
    """The example as a function of ``x``; ``OUT`` is a file in ``folder``."""
    import numpy

    code = compile(f"lambda x: {example.replace('{x}', 'x')}", "<example>", "eval")
    scope = {"np": numpy, "numpy": numpy, "OUT": os.path.join(folder, "out")}
    function: Callable[[Any], Any] = eval(code, scope)
    return function


def _raises(function: Callable[[Any], Any], value: Any, needle: str) -> bool:
    try:
        function(value)
    except Exception as error:  # only torch's conversion errors count
        return needle in str(error)
    return False


def _same(a: Any, b: Any) -> bool:
    import numpy

    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, numpy.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(numpy.array_equal(a, b))
    try:
        return bool(a == b)
    except Exception:
        return False


def _result(function: Callable[[Any], Any], value: Any) -> tuple[bool, Any]:
    try:
        return True, function(value)
    except Exception as error:  # the same exception on both sides is the same meaning
        return False, type(error)


def measure(example: str, device: Optional[str] = None) -> Measured:
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "meta"

    def grad() -> Any:
        return torch.arange(6.0).reshape(2, 3).requires_grad_() * 1.5

    def moved() -> Any:
        return torch.arange(6.0, device=device).reshape(2, 3) * 1.5

    with tempfile.TemporaryDirectory(prefix="tensorlint-measure-") as folder:
        function = _compile(example, folder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tensor = _raises(function, grad(), GRAD_ERROR) and _raises(
                function, moved(), DEVICE_ERROR
            )
            sequence = _raises(function, [grad(), grad()], GRAD_ERROR) and _raises(
                function, [moved(), moved()], DEVICE_ERROR
            )
            cpu = torch.arange(6.0).reshape(2, 3) * 1.5
            listed = not tensor and sequence  # measured on a list of tensors
            ok, original = _result(function, [cpu, cpu] if listed else cpu)
            ok_fixed, fixed = _result(
                function, [cpu.numpy(), cpu.numpy()] if listed else cpu.numpy()
            )
            same = ok and ok_fixed and _same(original, fixed)
    return Measured(tensor, sequence, same, device)


def measure_store(shape: tuple[int, ...], subscript: str, device: Optional[str] = None) -> bool:
    """``a = np.zeros(shape); a[subscript] = x``: does ``x`` reach ``__array__``
    (raise torch's conversion error with grad, and on ``device``)? ``x`` is
    a 0-d tensor, which fits any store by broadcasting."""
    import numpy
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "meta"
    scope: dict[str, Any] = {}
    exec(compile(f"def store(a, x):\n    a[{subscript}] = x\n", "<store>", "exec"), scope)
    store: Callable[[Any, Any], Any] = scope["store"]

    def fresh() -> Callable[[Any], Any]:
        array = numpy.zeros(shape)
        return lambda x: store(array, x)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad = torch.ones((), requires_grad=True) * 2
        moved = torch.ones((), device=device) * 2
        return _raises(fresh(), grad, GRAD_ERROR) and _raises(fresh(), moved, DEVICE_ERROR)


def _library_scope(folder: str) -> dict[str, Any]:
    """The names a library example may use (``{x}`` is the measured argument)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy
    import pandas
    import scipy.stats
    import sklearn.cluster
    import sklearn.decomposition
    import sklearn.linear_model
    import sklearn.metrics

    return {
        "np": numpy,
        "plt": plt,
        "AX": plt.figure().add_subplot(),
        "pandas": pandas,
        "sklearn": sklearn,
        "scipy": scipy,
        "X": numpy.arange(8.0),
        "Y": numpy.linspace(1.0, 2.0, 8),
        "LABELS": numpy.array([0, 1, 1, 0, 1, 0, 0, 1]),
        "M": numpy.eye(8) + numpy.arange(64.0).reshape(8, 8) / 64,
        "OUT": os.path.join(folder, "out.png"),
    }


def measure_call(example: str, matrix: bool = False, device: Optional[str] = None) -> Measured:
    """A library call's example: does the tensor at ``{x}`` reach ``__array__``?"""
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "meta"
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0]

    def make(where: str) -> Any:
        t = torch.tensor(values, device=where)
        return (t[:, None] + torch.arange(8.0, device=where) / 8) if matrix else t

    def grad() -> Any:
        return make("cpu").requires_grad_() * 1.0

    # (nested: parenthesised context managers need Python 3.10)
    with tempfile.TemporaryDirectory(prefix="tensorlint-measure-") as folder:  # noqa: SIM117
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scope = _library_scope(folder)
            code = compile(f"lambda x: {example.replace('{x}', 'x')}", "<example>", "eval")
            function: Callable[[Any], Any] = eval(code, scope)
            try:
                tensor = _raises(function, grad(), GRAD_ERROR) and _raises(
                    function, make(device), DEVICE_ERROR
                )
                # a list of the rows (for a vector: of 0-d tensors, ``preds.append(p)``)
                sequence = _raises(function, list(grad()), GRAD_ERROR) and _raises(
                    function, list(make(device)), DEVICE_ERROR
                )
                cpu = make("cpu")
                ok, original = _result(function, cpu)
                ok_fixed, fixed = _result(function, cpu.numpy())
                same = (
                    ok
                    and ok_fixed
                    and type(original) is type(fixed)
                    and not isinstance(original, torch.Tensor)
                )
            finally:
                scope["plt"].close("all")
    return Measured(tensor, sequence, same, device)


def main() -> int:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import numpy
    import torch

    from tensorlint.analysis.numpy_table import FUNCTIONS

    print(f"# torch {torch.__version__}, NumPy {numpy.__version__}")
    for entry in FUNCTIONS:
        found = measure(entry.example)
        mark = "" if found[:3] == (entry.tensor, entry.sequence, entry.same) else "   <- differs"
        print(f"{entry.name:28} {found}{mark}")
    from tensorlint.analysis.numpy_table import STORES

    for row in STORES:
        converts = measure_store(row.shape, row.subscript)
        mark = "" if converts == row.converts else "   <- differs"
        print(f"a = np.zeros({row.shape}); a[{row.subscript}] = x  converts={converts}{mark}")
    from tensorlint.analysis.library_table import FUNCTIONS as CALLS

    for call in CALLS:
        for example in call.examples:
            found = measure_call(example, call.matrix)
            mark = "" if found[:3] == (True, call.sequence, True) else "   <- differs"
            print(f"{example:60} {found}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
