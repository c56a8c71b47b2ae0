"""NumPy functions given torch tensors: what each one was measured to do.

One source of truth. TL103 and TL113 read it (which calls convert a tensor
argument, and whether the explicit conversion keeps the call's meaning);
``docs/numpy-functions.md`` is generated from it
(``python tools/gen_numpy_doc.py``); ``tools/measure_numpy.py`` measures
every row, and the test suite measures them again against the installed
torch and NumPy.

Measured on torch 2.13.0 and NumPy 2.4.6, on the CPU: a tensor that
requires grad, and a ``meta`` tensor for a device other than the CPU (it
takes ``Tensor.__array__``'s path to the same ``TypeError`` as a CUDA
tensor).
"""

from __future__ import annotations

from typing import NamedTuple


class NumpyFunction(NamedTuple):
    """One NumPy function, and what it does with a tensor as the argument at ``position``."""

    #: the qualified name (``numpy.mean``)
    name: str
    #: a call; ``{x}`` is the converted argument (the measurement's tensor or list)
    example: str
    #: a tensor argument reaches ``Tensor.__array__``: it raises on a tensor
    #: that requires grad (``RuntimeError``) and on one on CUDA (``TypeError``)
    tensor: bool
    #: a list or tuple of tensors does
    sequence: bool
    #: on a CPU tensor without grad, converting the argument explicitly
    #: (``t.cpu().detach().numpy()``) gives the same type and value
    same: bool
    #: what else happens, in words (shown in the docs)
    note: str = ""
    #: the positional argument that is converted (``np.save(file, arr)``: 1)
    position: int = 0


_REDUCES = (
    "a tensor raises `TypeError` on any device (NumPy calls the tensor's own method"
    " with NumPy's keywords); a list of tensors is converted"
)
_WRAPS = (
    "on a CPU tensor the result is a tensor again (`__array_wrap__`); the fixed call"
    " returns an array"
)
_FILE = "the array is the second argument"
#: a function that calls the tensor's own method, which succeeds: its result
#: is a tensor where the argument was (not host memory)
_METHOD = "on a tensor it calls `Tensor.{}` and succeeds"

#: (name, example, tensor, sequence, same, note, position)
_ROWS: list[tuple[str, str, bool, bool, bool, str, int]] = [
    ("array", "np.array({x})", True, True, True, "", 0),
    ("asarray", "np.asarray({x})", True, True, True, "", 0),
    ("asanyarray", "np.asanyarray({x})", True, True, True, "", 0),
    ("ascontiguousarray", "np.ascontiguousarray({x})", True, True, True, "", 0),
    ("asfortranarray", "np.asfortranarray({x})", True, True, True, "", 0),
    ("copy", "np.copy({x})", True, True, True, "", 0),
    ("sum", "np.sum({x})", False, True, True, _REDUCES, 0),
    ("mean", "np.mean({x})", False, True, True, _REDUCES, 0),
    ("std", "np.std({x})", False, True, True, _REDUCES, 0),
    ("var", "np.var({x})", False, True, True, _REDUCES, 0),
    ("max", "np.max({x})", False, True, True, _REDUCES, 0),
    ("min", "np.min({x})", False, True, True, _REDUCES, 0),
    ("amax", "np.amax({x})", False, True, True, _REDUCES, 0),
    ("amin", "np.amin({x})", False, True, True, _REDUCES, 0),
    ("prod", "np.prod({x})", False, True, True, _REDUCES, 0),
    ("all", "np.all({x})", False, True, True, _REDUCES, 0),
    ("any", "np.any({x})", False, True, True, _REDUCES, 0),
    ("average", "np.average({x})", True, True, True, "", 0),
    ("nanmean", "np.nanmean({x})", True, True, True, "", 0),
    ("nansum", "np.nansum({x})", True, True, True, "", 0),
    ("median", "np.median({x})", True, True, True, "", 0),
    ("percentile", "np.percentile({x}, 50)", True, True, True, "", 0),
    ("quantile", "np.quantile({x}, 0.5)", True, True, True, "", 0),
    ("argmax", "np.argmax({x})", True, True, False, _WRAPS, 0),
    ("argmin", "np.argmin({x})", True, True, False, _WRAPS, 0),
    ("cumsum", "np.cumsum({x})", True, True, False, _WRAPS, 0),
    ("reshape", "np.reshape({x}, -1)", True, True, False, _WRAPS, 0),
    ("transpose", "np.transpose({x})", True, True, False, _WRAPS, 0),
    (
        "squeeze",
        "np.squeeze({x})",
        False,
        True,
        True,
        _METHOD.format("squeeze"),
        0,
    ),
    ("expand_dims", "np.expand_dims({x}, 0)", True, True, True, "", 0),
    ("ravel", "np.ravel({x})", True, True, True, "", 0),
    ("stack", "np.stack({x})", True, True, True, "", 0),
    ("vstack", "np.vstack({x})", True, True, True, "", 0),
    ("hstack", "np.hstack({x})", True, True, True, "", 0),
    ("column_stack", "np.column_stack({x})", True, True, True, "", 0),
    ("dstack", "np.dstack({x})", True, True, True, "", 0),
    (
        "concatenate",
        "np.concatenate({x})",
        False,
        True,
        True,
        "a tensor is read as a sequence of rows",
        0,
    ),
    ("sort", "np.sort({x})", True, True, True, "", 0),
    ("argsort", "np.argsort({x})", True, True, False, _WRAPS, 0),
    ("unique", "np.unique({x})", True, True, True, "", 0),
    ("where", "np.where({x})", True, True, True, "", 0),
    ("clip", "np.clip({x}, 0, 1)", True, True, False, _WRAPS, 0),
    ("round", "np.round({x})", True, True, False, _WRAPS, 0),
    ("around", "np.around({x})", True, True, False, _WRAPS, 0),
    ("isnan", "np.isnan({x})", True, True, False, _WRAPS, 0),
    ("isinf", "np.isinf({x})", True, True, False, _WRAPS, 0),
    ("isfinite", "np.isfinite({x})", True, True, False, _WRAPS, 0),
    ("abs", "np.abs({x})", True, True, False, _WRAPS, 0),
    ("absolute", "np.absolute({x})", True, True, False, _WRAPS, 0),
    ("sqrt", "np.sqrt({x})", True, True, False, _WRAPS, 0),
    ("exp", "np.exp({x})", True, True, False, _WRAPS, 0),
    ("log", "np.log({x})", True, True, False, _WRAPS, 0),
    ("square", "np.square({x})", True, True, False, _WRAPS, 0),
    ("equal", "np.equal({x}, 0)", True, True, False, _WRAPS, 0),
    ("add", "np.add({x}, 1)", True, True, False, _WRAPS, 0),
    ("maximum", "np.maximum({x}, 0)", True, True, False, _WRAPS, 0),
    ("minimum", "np.minimum({x}, 0)", True, True, False, _WRAPS, 0),
    ("matmul", "np.matmul({x}, np.ones(3))", True, True, False, _WRAPS, 0),
    ("allclose", "np.allclose({x}, 0)", True, True, True, "", 0),
    ("isclose", "np.isclose({x}, 0)", True, True, True, "", 0),
    ("dot", "np.dot({x}, np.ones(3))", True, True, True, "", 0),
    ("outer", "np.outer({x}, np.ones(2))", True, True, True, "", 0),
    ("linalg.norm", "np.linalg.norm({x})", True, True, True, "", 0),
    ("float32", "np.float32({x})", True, True, True, "", 0),
    ("int32", "np.int32({x})", True, True, True, "", 0),
    ("int64", "np.int64({x})", True, True, True, "", 0),
    ("float16", "np.float16({x})", True, True, True, "", 0),
    ("uint8", "np.uint8({x})", True, True, True, "", 0),
    ("int8", "np.int8({x})", True, True, True, "", 0),
    ("int16", "np.int16({x})", True, True, True, "", 0),
    ("uint16", "np.uint16({x})", True, True, True, "", 0),
    ("bool_", "np.bool_({x})", True, True, True, "", 0),
    (
        "char.mod",
        'np.char.mod("%d", {x})',
        True,
        True,
        True,
        "the values are the second argument",
        1,
    ),
    ("save", "np.save(OUT, {x})", True, True, True, _FILE, 1),
    ("savez", "np.savez(OUT, {x})", True, True, True, _FILE, 1),
    ("savetxt", "np.savetxt(OUT, {x})", True, True, True, _FILE, 1),
    ("histogram", "np.histogram({x})", True, True, True, "", 0),
    ("ones_like", "np.ones_like({x})", True, True, True, "", 0),
    ("zeros_like", "np.zeros_like({x})", True, True, True, "", 0),
    ("full_like", "np.full_like({x}, 2.0)", True, True, True, "", 0),
    ("empty_like", "np.empty_like({x})", True, True, True, "", 0),
    ("diff", "np.diff({x})", True, True, True, "", 0),
    ("roll", "np.roll({x}, 1)", True, True, True, "", 0),
    ("pad", "np.pad({x}, 1)", True, True, True, "", 0),
    ("tile", "np.tile({x}, 2)", True, True, True, "", 0),
    ("nan_to_num", "np.nan_to_num({x})", True, True, True, "", 0),
    ("atleast_2d", "np.atleast_2d({x})", True, True, True, "", 0),
    ("cov", "np.cov({x})", True, True, True, "", 0),
    ("corrcoef", "np.corrcoef({x})", True, True, True, "", 0),
]

#: measured and left out: they do not fail the way a conversion does
LEFT_OUT: tuple[tuple[str, str], ...] = (
    (
        "numpy.float64",
        "a subclass of Python's float: it calls `float(t)`, which works on a 0-d tensor"
        " on any device and with grad",
    ),
    ("numpy.array_equal", "it catches the conversion's error and returns False"),
)

FUNCTIONS: tuple[NumpyFunction, ...] = tuple(
    NumpyFunction(f"numpy.{name}", example, tensor, sequence, same, note, position)
    for name, example, tensor, sequence, same, note, position in _ROWS
)

#: qualified name -> its row
BY_NAME = {entry.name: entry for entry in FUNCTIONS}


class ArrayStore(NamedTuple):
    """``a[subscript] = x`` into ``a = np.zeros(shape)``: does ``x`` reach
    ``Tensor.__array__``? (``analysis/stores.py`` decides the same from the
    code: a slice, or fewer indices than dimensions.)"""

    #: the array's shape
    shape: tuple[int, ...]
    #: the subscript, as written between the brackets
    subscript: str
    #: the stored tensor (0-d, or a vector the length of the store) reaches
    #: ``__array__``: it raises with grad and on CUDA
    converts: bool
    #: what happens, in words (shown in the docs)
    note: str


_ELEMENT = (
    "one element: NumPy calls `float(t)`, which `Tensor.item()` answers with grad and on a"
    " CUDA device (measured on an H200; a `meta` tensor raises in `item()` instead)"
)
_SUBARRAY = "a sub-array: NumPy calls `np.asarray(t)`, that is `Tensor.__array__`"

#: measured: ``tools/measure_numpy.py``'s ``measure_store``
STORES: tuple[ArrayStore, ...] = (
    ArrayStore((5,), "2", False, _ELEMENT),
    ArrayStore((5, 3), "2, 1", False, _ELEMENT),
    ArrayStore((5,), "1:3", True, _SUBARRAY + " (a slice)"),
    ArrayStore((5, 1), "2", True, _SUBARRAY + " (a row: `np.zeros((n, 1))` then `a[i] = loss`)"),
    ArrayStore((5, 3), "2", True, _SUBARRAY + " (a row)"),
    ArrayStore((5, 3), ":, 1", True, _SUBARRAY + " (a column)"),
    ArrayStore((5, 3), "2, 0:2", True, _SUBARRAY + " (part of a row)"),
)

#: the functions through which a tensor, or a list of tensors, reaches ``__array__``
CONVERTING = frozenset(e.name for e in FUNCTIONS if e.tensor or e.sequence)
#: Of those, the ones whose result is in host memory whenever the call returns
#: (an array; on a CPU tensor, for some, a CPU tensor again, without grad): a
#: tensor on another device or one that requires grad raises there. Left out:
#: those that call the tensor's own method, which succeeds (``np.squeeze``).
HOST_RESULT = frozenset(
    e.name for e in FUNCTIONS if e.name in CONVERTING and e.note != _METHOD.format(e.name[6:])
)

__all__ = [
    "BY_NAME", "CONVERTING", "FUNCTIONS", "HOST_RESULT", "LEFT_OUT", "STORES",
    "ArrayStore", "NumpyFunction",
]  # fmt: skip
