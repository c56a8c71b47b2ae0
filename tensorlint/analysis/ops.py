"""The tables the analysis rests on: one source of truth for every list.

Each set below was measured on torch 2.13 and NumPy 2.4 (which ops return
views, which copy, which write in place). Rules and the analysis import
these names; nothing else spells these lists out again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Optional

from tensorlint.analysis import numpy_table

# --- conversions -----------------------------------------------------------

#: ndarray -> tensor conversions that share memory with their argument.
FROM_NUMPY = "torch.from_numpy"
AS_TENSOR_FUNCS = frozenset({"torch.as_tensor", "torch.asarray"})
ARRAY_TO_TENSOR_FUNCS = frozenset({FROM_NUMPY}) | AS_TENSOR_FUNCS

#: NumPy constructors that call ``Tensor.__array__`` on a tensor argument (TL103).
NUMPY_ARRAY_CTORS = frozenset(
    {
        "numpy.asarray",
        "numpy.array",
        "numpy.asanyarray",
        "numpy.ascontiguousarray",
        "numpy.asfortranarray",
    }
)
#: Of those, the ones that copy by default (the fix keeps the copy).
NUMPY_COPYING_CTORS = frozenset({"numpy.array"})
#: Every NumPy function through which a tensor, or a list of tensors, reaches
#: ``Tensor.__array__`` (measured: ``numpy_table``), the constructors included.
NUMPY_CONVERTING_FUNCS = numpy_table.CONVERTING
#: Of those, the ones whose result is always host memory without grad (the
#: call raises on a CUDA tensor or one that requires grad; ``np.squeeze``
#: calls ``Tensor.squeeze`` and is left out).
NUMPY_HOST_RESULT_FUNCS = numpy_table.HOST_RESULT
#: NumPy functions that make a new array from shapes, ranges, files or a
#: random generator: host memory whatever they are given.
NUMPY_NEW_ARRAYS = frozenset(
    {
        "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.eye",
        "numpy.identity", "numpy.arange", "numpy.linspace", "numpy.logspace",
        "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile",
        "numpy.frombuffer", "numpy.random.rand", "numpy.random.randn",
        "numpy.random.random", "numpy.random.random_sample", "numpy.random.uniform",
        "numpy.random.normal", "numpy.random.standard_normal", "numpy.random.randint",
    }
)  # fmt: skip
#: The NumPy calls whose value is host memory without grad (the summaries'
#: ``cpu`` and ``nograd``).
NUMPY_HOST_VALUES = NUMPY_HOST_RESULT_FUNCS | NUMPY_NEW_ARRAYS

# --- views: operations whose result shares memory with the receiver --------

#: Tensor methods that always or conditionally return a view (or self).
TORCH_VIEW_METHODS = frozenset(
    {
        "view", "view_as", "reshape", "reshape_as", "flatten", "ravel", "unflatten",
        "permute", "transpose", "t", "movedim", "moveaxis", "swapaxes", "swapdims",
        "squeeze", "unsqueeze", "expand", "expand_as", "broadcast_to", "narrow",
        "select", "diagonal", "unfold", "as_strided", "detach", "contiguous", "cpu",
        "to", "type", "type_as", "float", "double", "half", "bfloat16", "long", "int",
        "short", "byte", "char", "bool", "cfloat", "cdouble", "resolve_conj",
        "resolve_neg", "conj", "to_dense", "requires_grad_", "share_memory_",
        "pin_memory", "align_to", "rename", "refine_names", "atleast_1d",
        "atleast_2d", "atleast_3d", "view_as_real", "alias",
    }
)  # fmt: skip
#: The ``torch`` functions that return a view of their first argument (the
#: function forms of view methods: ``torch.permute(t, dims)``).
TORCH_VIEW_FUNCS = frozenset(
    f"torch.{name}"
    for name in (
        "permute", "transpose", "t", "reshape", "flatten", "ravel", "unflatten",
        "squeeze", "unsqueeze", "narrow", "select", "diagonal", "movedim", "moveaxis",
        "swapaxes", "swapdims", "detach", "broadcast_to", "as_strided", "atleast_1d",
        "atleast_2d", "atleast_3d", "view_as_real", "real", "imag", "conj",
        "resolve_conj", "resolve_neg",
    )
)  # fmt: skip
#: Tensor methods that return a tuple of views of the tensor.
TORCH_VIEW_TUPLE_METHODS = frozenset(
    {"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit",
     "split_with_sizes"}
)  # fmt: skip
#: Tensor attributes that are views of the tensor.
TORCH_VIEW_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})

#: ndarray methods that always or conditionally return a view.
NUMPY_VIEW_METHODS = frozenset(
    {
        "reshape", "view", "ravel", "transpose", "swapaxes", "squeeze", "diagonal",
        "__array__", "getfield", "newbyteorder",
    }
)  # fmt: skip
NUMPY_VIEW_ATTRS = frozenset({"T", "real", "imag", "mT"})
#: NumPy functions that return (a view of) their first argument.
NUMPY_VIEW_FUNCS = frozenset(
    {
        "numpy.asarray", "numpy.asanyarray", "numpy.ascontiguousarray",
        "numpy.asfortranarray", "numpy.require", "numpy.squeeze", "numpy.reshape",
        "numpy.ravel", "numpy.transpose", "numpy.swapaxes", "numpy.moveaxis",
        "numpy.expand_dims", "numpy.broadcast_to", "numpy.atleast_1d",
        "numpy.atleast_2d", "numpy.atleast_3d", "numpy.flip", "numpy.flipud",
        "numpy.fliplr", "numpy.rot90", "numpy.diagonal", "numpy.real", "numpy.imag",
        "numpy.rollaxis", "numpy.permute_dims", "numpy.matrix_transpose",
        "numpy.trim_zeros", "numpy.asmatrix",
        "numpy.lib.stride_tricks.as_strided",
        "numpy.lib.stride_tricks.sliding_window_view",
    }
)  # fmt: skip

# --- in-place writes --------------------------------------------------------

#: Tensor methods that end in ``_`` but change only the view (shape,
#: strides, autograd link): the bytes stay as they were, and the tensor
#: still shares them (measured on a ``torch.from_numpy`` tensor).
TORCH_SHAPE_ONLY_IN_PLACE = frozenset(
    {
        "unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_",
        "resize_", "resize_as_", "as_strided_", "detach_",
    }
)  # fmt: skip
#: Tensor methods end in ``_`` when they write to their receiver; these do not
#: touch the data: the shape-only ones, flags, and two that give the tensor
#: other memory (after ``set_`` or ``share_memory_`` a ``torch.from_numpy``
#: tensor no longer shares its array's bytes; measured).
TORCH_UNDERSCORE_NON_WRITES = (
    frozenset({"requires_grad_", "share_memory_", "retain_grad_", "set_"})
    | TORCH_SHAPE_ONLY_IN_PLACE
)
#: ndarray methods that write to their receiver.
NUMPY_INPLACE_METHODS = frozenset(
    {"sort", "fill", "put", "partition", "resize", "itemset", "setfield"}
)


def in_place_method(method: str) -> str | None:
    """What ``x.method(...)`` writes in place: ``"torch"`` (a tensor method
    such as ``add_``), ``"numpy"`` (an ndarray method such as ``sort``), or
    None when the call changes no bytes of ``x``."""
    if method.endswith("_") and not method.startswith("_"):
        return None if method in TORCH_UNDERSCORE_NON_WRITES else "torch"
    return "numpy" if method in NUMPY_INPLACE_METHODS else None


#: NumPy functions that write to their first argument.
NUMPY_INPLACE_FUNCS = frozenset(
    {
        "numpy.copyto", "numpy.put", "numpy.place", "numpy.putmask",
        "numpy.fill_diagonal", "numpy.random.shuffle", "numpy.put_along_axis",
    }
)  # fmt: skip
#: Keyword arguments that name an output buffer written by the call.
OUT_KEYWORDS = frozenset({"out", "dst"})
#: In-place methods that replace every element without reading any: called
#: on a whole array or tensor they fill it (``buf.copy_(src)``, ``a.fill(0)``).
FILL_METHODS = frozenset(
    {
        "copy_", "fill_", "zero_", "normal_", "uniform_", "random_", "bernoulli_",
        "exponential_", "geometric_", "cauchy_", "log_normal_", "fill",
    }
)  # fmt: skip
#: Views of a part of an array or tensor (by method, attribute or function
#: name): filling one fills only that part.
PARTIAL_VIEWS = frozenset(
    {
        "narrow", "select", "diagonal", "unfold", "as_strided", "expand", "expand_as",
        "broadcast_to", "real", "imag", "numpy.diagonal", "numpy.real", "numpy.imag",
        "numpy.broadcast_to", "numpy.lib.stride_tricks.as_strided",
        "numpy.lib.stride_tricks.sliding_window_view",
    }
)  # fmt: skip
#: Functions that fill their first argument the same way.
FILL_FUNCS = frozenset({"numpy.copyto"})
#: ... and the modules whose in-place functions all do (``torch.nn.init.zeros_``).
FILL_MODULES = ("torch.nn.init.",)

# --- element types (``dtypes.py``) --------------------------------------------

#: Names of element types, as qualified names and as strings, -> the type.
DTYPE_NAMES: dict[str, str] = {
    **dict.fromkeys(("torch.float32", "torch.float", "numpy.float32", "numpy.single",
                     "float32", "single", "f4"), "float32"),
    **dict.fromkeys(("torch.float64", "torch.double", "numpy.float64", "numpy.double",
                     "float64", "double", "float", "f8"), "float64"),
    **dict.fromkeys(("torch.float16", "torch.half", "numpy.float16", "numpy.half",
                     "float16", "half", "f2"), "float16"),
    "torch.bfloat16": "bfloat16",
    **dict.fromkeys(("torch.int64", "torch.long", "numpy.int64", "int64", "i8"), "int64"),
    **dict.fromkeys(("torch.int32", "torch.int", "numpy.int32", "int32", "i4"), "int32"),
    **dict.fromkeys(("torch.int16", "torch.short", "numpy.int16", "int16", "i2"), "int16"),
    **dict.fromkeys(("torch.int8", "numpy.int8", "int8", "i1"), "int8"),
    **dict.fromkeys(("torch.uint8", "numpy.uint8", "uint8", "u1"), "uint8"),
    **dict.fromkeys(("torch.bool", "numpy.bool_", "numpy.bool", "bool"), "bool"),
    **dict.fromkeys(("torch.complex64", "torch.cfloat", "numpy.complex64", "complex64"),
                    "complex64"),
    **dict.fromkeys(("torch.complex128", "torch.cdouble", "numpy.complex128",
                     "complex128"), "complex128"),
}  # fmt: skip
#: Tensor methods that cast to one type (a copy unless the type already matches).
CAST_METHODS: dict[str, str] = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
    "long": "int64", "int": "int32", "short": "int16", "char": "int8", "byte": "uint8",
    "bool": "bool", "cfloat": "complex64", "cdouble": "complex128",
}  # fmt: skip
#: View methods that may change the element type to one the call does not
#: name (``t.to(x)``, ``a.view(np.int32)``): after them the type is unknown.
TYPE_CHANGING_METHODS = frozenset(
    {"to", "type", "type_as", "astype", "view", "view_as_real", "view_as_complex"}
)
#: Constructors that make a known type when not given one.
DEFAULT_DTYPES: dict[str, str] = {
    **dict.fromkeys(("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.eye",
                     "numpy.identity", "numpy.linspace", "numpy.random.rand",
                     "numpy.random.randn", "numpy.random.random",
                     "numpy.random.random_sample", "numpy.random.uniform",
                     "numpy.random.normal", "numpy.random.standard_normal"), "float64"),
    # torch's default type, unless a program changes it (``set_default_dtype``)
    **dict.fromkeys(("torch.zeros", "torch.ones", "torch.empty", "torch.rand",
                     "torch.randn", "torch.eye", "torch.linspace"), "float32"),
}  # fmt: skip
#: Of those, the ones whose second positional argument is the type.
DTYPE_SECOND_ARGUMENT = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty"})
#: ``cv2.imread`` flags that read 8-bit images (also the default).
CV2_UINT8_FLAGS = ("IMREAD_COLOR", "IMREAD_GRAYSCALE", "IMREAD_REDUCED_COLOR_2",
                   "IMREAD_REDUCED_GRAYSCALE_2")  # fmt: skip

# --- provenance -------------------------------------------------------------

#: torch factories: CPU unless ``device=`` says otherwise, no grad unless
#: ``requires_grad=True``.
TORCH_FACTORIES = frozenset(
    {
        "torch.tensor", "torch.zeros", "torch.ones", "torch.empty", "torch.full",
        "torch.arange", "torch.range", "torch.linspace", "torch.logspace",
        "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.eye",
        "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
        "torch.rand_like", "torch.randn_like", "torch.randint_like",
        "torch.empty_strided", "torch.normal", "torch.bernoulli", "torch.multinomial",
        "torch.from_file", "torch.frombuffer", "torch.as_strided",
        "torch.sparse_coo_tensor",
    }
)  # fmt: skip
#: Factories whose arguments are sizes and numbers, never tensors
#: (``torch.arange(n + 1)``, ``torch.linspace(a, b, steps)``).
SIZE_FACTORIES = frozenset(
    {"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.arange", "torch.range",
     "torch.linspace", "torch.logspace", "torch.rand", "torch.randn", "torch.randint",
     "torch.randperm", "torch.eye"}
)  # fmt: skip
#: Builtins whose arguments are numbers (``range(n)``, ``int(steps)``).
NUMBER_BUILTINS = frozenset({"range", "int", "float", "round", "abs", "divmod", "pow"})
#: Factories that take their device from a tensor argument (``*_like``):
#: known CPU only when ``device="cpu"`` is given.
TORCH_LIKE_FACTORIES = frozenset(f for f in TORCH_FACTORIES if f.endswith("_like"))
#: Calls that make a new tensor or array of a given size: an element
#: assignment into it (``buf[i] = t``) copies the values, it keeps no reference.
_NUMPY_NEW_BUFFERS = frozenset(
    {"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.eye", "numpy.identity",
     "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like"}
)  # fmt: skip
NEW_BUFFERS = SIZE_FACTORIES | TORCH_LIKE_FACTORIES | _NUMPY_NEW_BUFFERS
#: Factories whose data argument may itself be a tensor (kept on its device).
TORCH_DATA_FACTORIES = frozenset({"torch.tensor"}) | AS_TENSOR_FUNCS

#: Methods and functions whose result never requires grad: an integer or bool
#: tensor (indices, comparisons, casts, tests), or ``histc`` (not
#: differentiable). Measured on torch 2.13: every ``Tensor`` method and
#: ``torch`` function called on a float tensor that requires grad, these
#: return a tensor that does not (``tools/measure_grad.py``; ``bincount`` is
#: not one: with float ``weights`` that require grad, its result does).
INTEGER_RESULT_METHODS = frozenset(
    {
        "argmax", "argmin", "argsort", "argwhere", "nonzero", "long", "int", "short",
        "byte", "char", "bool", "eq", "ne", "lt", "le", "gt", "ge", "greater",
        "greater_equal", "less", "less_equal", "not_equal", "isnan", "isinf",
        "isfinite", "isneginf", "isposinf", "isreal", "isclose", "isin", "all", "any",
        "logical_and", "logical_or", "logical_not", "logical_xor", "count_nonzero",
        "searchsorted", "bucketize", "signbit", "equal", "histc", "hash_tensor",
    }
)  # fmt: skip
#: Methods an ``np.ndarray`` has too (so a call of one proves no torch tensor:
#: a callee named like a module may return an array).
NDARRAY_METHODS = frozenset(
    {
        "sum", "mean", "std", "var", "max", "min", "prod", "cumsum", "cumprod", "argmax",
        "argmin", "argsort", "nonzero", "all", "any", "round", "clip", "reshape", "flatten",
        "ravel", "transpose", "squeeze", "swapaxes", "view", "astype", "copy", "diagonal",
        "repeat", "take", "sort", "dot", "tolist", "item", "conj", "trace", "ptp",
        "searchsorted", "fill", "resize", "choose", "compress", "partition", "argpartition",
    }
)  # fmt: skip
#: Tensor methods that compute a new tensor from the receiver (reductions,
#: element-wise maths): called on a forward pass's output, which may be a
#: tensor or a dict or tuple of them, the ones no ndarray, dict, tuple or
#: output object has (``TORCH_ONLY_RESULT_METHODS``: ``softmax``, ``exp``,
#: ``unsqueeze``, not ``argmax`` or ``sum``) say it was a tensor, and so is
#: what they return.
TENSOR_RESULT_METHODS = frozenset(
    {
        "sum", "mean", "std", "var", "max", "min", "amax", "amin", "prod", "norm",
        "softmax", "log_softmax", "sigmoid", "tanh", "relu", "exp", "log", "abs",
        "sqrt", "pow", "clamp", "clip", "round", "floor", "ceil", "neg", "cumsum",
        "square", "median", "logsumexp", "clone",
    }
)  # fmt: skip
#: Of those, the views and the integer results, the methods no ndarray has.
TORCH_ONLY_RESULT_METHODS = (
    TENSOR_RESULT_METHODS | TORCH_VIEW_METHODS | INTEGER_RESULT_METHODS
) - NDARRAY_METHODS
#: Methods of arrays and tensors that an ``nn.Module`` does not have (it has
#: ``float``, ``half``, ``double``, ``type``, ``to``, ``cpu``, ``cuda``,
#: ``requires_grad_``, ``share_memory``): what they return and is then moved
#: with ``.to(dev)`` / ``.cuda()`` is a tensor.
NOT_MODULE_ARRAY_METHODS = (
    NDARRAY_METHODS | TENSOR_RESULT_METHODS | TORCH_VIEW_METHODS
) - {"float", "half", "double", "bfloat16", "type", "to", "cpu", "requires_grad_",
     "share_memory_", "copy", "fill", "item", "tolist"}  # fmt: skip
#: Functions that, given one argument only, return integer indices
#: (``torch.where(mask)``: a tuple of index tensors).
INDICES_WITH_ONE_ARGUMENT = frozenset({"where"})
#: Tensor methods that make a new tensor on the receiver's device, which does
#: not require grad unless ``requires_grad=True`` (measured on torch 2.13).
TENSOR_NEW_METHODS = frozenset(
    {"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "new"}
)
#: Methods only a torch tensor has (not an ``nn.Module``, an ndarray, a list, a
#: pandas object or another framework's tensor): a value they are called on
#: is a tensor from then on, or the call raised (``x.size()`` counts: an
#: ndarray's ``size`` is an int). ``cpu``, ``to``, ``float`` and ``numpy`` are
#: not: modules and TensorFlow tensors have them too.
TENSOR_ONLY_METHODS = frozenset(
    {
        "detach", "detach_", "backward", "numel", "size", "dim", "unsqueeze", "permute",
        "contiguous", "data_ptr", "element_size", "masked_fill", "index_select", "type_as",
        "long", "is_contiguous", "storage_offset", "register_hook", "retain_grad",
    }
    | TENSOR_NEW_METHODS
)  # fmt: skip
#: Of those, the ones whose result is no tensor (a size, a flag, a handle).
TENSOR_ONLY_INFO_METHODS = frozenset(
    {"backward", "numel", "size", "dim", "data_ptr", "element_size", "is_contiguous",
     "storage_offset", "register_hook", "retain_grad"}
)  # fmt: skip
#: ``Variable(t)``: since torch 0.4 it returns ``t`` itself (``volatile`` is
#: ignored; ``requires_grad=True`` sets the flag), so it keeps ``t``'s facts.
VARIABLE_CLASSES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
#: ``torch.<dtype>`` names that are integer or bool dtypes.
INTEGER_DTYPES = frozenset(
    {
        "torch.int64", "torch.long", "torch.int32", "torch.int", "torch.int16",
        "torch.short", "torch.int8", "torch.uint8", "torch.uint16", "torch.uint32",
        "torch.uint64", "torch.bool",
    }
)  # fmt: skip
#: Legacy typed constructors: a CPU tensor (or the same tensor, given one).
LEGACY_TENSOR_TYPES = frozenset(
    f"torch.{name}Tensor"
    for name in ("", "Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int",
                 "Long", "Bool")
)  # fmt: skip
#: Calls that set the device of the tensors made without ``device=`` (a
#: process-wide setting), and whether it reaches the untyped legacy
#: constructor ``torch.Tensor(...)`` too. Measured on torch 2.13 with the
#: ``meta`` device standing in for CUDA: after ``set_default_device``,
#: ``torch.tensor``, ``zeros``, ``arange``, ``randn``, ``empty`` and
#: ``as_tensor`` (of a list or an ndarray) follow it; ``torch.Tensor(...)``,
#: ``torch.FloatTensor(...)``, ``from_numpy`` and ``zeros_like`` of a CPU
#: tensor do not. ``set_default_tensor_type`` (deprecated since 2.1) sets the
#: type ``torch.Tensor(...)`` makes (its documentation; the recall cases'
#: fixes of ``torch.Tensor([x]).numpy()`` after a CUDA type show it), and
#: with a CUDA type the factories' device too (not measured here, where CUDA
#: is missing: a GPU session should confirm it).
DEFAULT_DEVICE_SETTERS: Mapping[str, bool] = MappingProxyType(
    {"set_default_tensor_type": True, "set_default_device": False}
)


def default_cuda(func: str, argument: Optional[str]) -> Optional[bool]:
    """For a call of ``func`` (dotted) whose first argument reads ``argument``
    (a string, or a dotted name: ``torch.cuda.FloatTensor``): None unless it
    makes CUDA the default device of new tensors; else whether
    ``torch.Tensor(...)`` follows too."""
    name = func.rsplit(".", 1)[-1]
    if name not in DEFAULT_DEVICE_SETTERS or not func.startswith(("torch.", name)):
        return None
    if argument is None or not argument.removeprefix("torch.").startswith("cuda"):
        return None
    return DEFAULT_DEVICE_SETTERS[name]


#: Annotations naming an integer or bool tensor type (or an alias spelled the same).
INTEGER_TENSOR_ANNOTATIONS = frozenset(
    {"LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor"}
)
#: Parameter names that, by a near-universal convention, hold data rather than
#: something computed by a model (class labels, targets, indices, masks): a
#: public function's parameter so named gives no grad evidence.
DATA_PARAMETER_NAMES = frozenset(
    {"label", "labels", "target", "targets", "y_true", "index", "indices", "idx", "ids",
     "mask", "masks", "edge_index", "batch_index", "lengths", "lens"}
)  # fmt: skip
#: Parameter names that, by convention, never hold a tensor (a device, a
#: dtype, a size, a path): a public function's parameter so named gives no
#: boundary evidence, device or grad.
NOT_TENSOR_PARAMETER_NAMES = frozenset(
    {"device", "dtype", "dim", "axis", "batch_size", "num_workers", "seed", "verbose",
     "path", "filename"}
)  # fmt: skip
#: Last words of parameter names that hold integer data (``train_labels``,
#: ``token_ids``, ``gt_idx``): named for data too. Not ``_mask`` (a
#: ``pred_mask`` may be a model's soft output) nor ``_target`` (an RL
#: ``q_target`` is computed by a network).
DATA_NAME_SUFFIXES = frozenset(
    {"label", "labels", "ids", "idx", "index", "indices", "lengths", "lens"}
)
#: Names (and last words of names) of what holds loaded samples: a
#: ``dataset``, a ``train_loader``. What they give was read from disk or made
#: by transforms, never computed with grad (their device is still unknown).
DATA_SOURCE_NAMES = frozenset({"dataset", "datasets", "loader", "dataloader"})
#: Their CUDA twins: a tensor on a CUDA device.
CUDA_TENSOR_TYPES = frozenset(t.replace("torch.", "torch.cuda.") for t in LEGACY_TENSOR_TYPES)
#: Classes whose instances are trainable parameters.
PARAMETER_CLASSES = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.UninitializedParameter"}
)
#: Attributes that are a module's trainable parameters (``self.fc.weight``).
PARAMETER_ATTRIBUTES = frozenset({"weight", "bias"})
#: ``torch.nn`` modules without parameters: their output requires grad only
#: when their input does (every ``*Loss`` class is one too).
PARAMETER_FREE_MODULES = frozenset(
    {"ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
     "Tanh", "Hardtanh", "Hardswish", "Hardsigmoid", "Softplus", "Softsign", "Softmax",
     "LogSoftmax", "Softmin", "Threshold", "Identity", "Flatten", "Unflatten", "Dropout",
     "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "MaxPool1d", "MaxPool2d",
     "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
     "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
     "AdaptiveMaxPool3d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
     "PixelShuffle", "PixelUnshuffle", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
     "ReflectionPad2d", "ReplicationPad2d", "CosineSimilarity", "PairwiseDistance", "Fold",
     "Unfold", "ChannelShuffle"}
)  # fmt: skip
#: Containers whose parameters are those of the modules they hold.
MODULE_CONTAINERS = frozenset({"Sequential", "ModuleList"})
#: Module methods whose results are its trainable parameters.
MODULE_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
#: Module methods whose results are its buffers (which never require grad).
MODULE_BUFFER_METHODS = frozenset({"buffers", "named_buffers"})
#: Buffers that ``torch.nn`` modules register (``BatchNorm*``, ``InstanceNorm*``
#: with ``track_running_stats``): updated without grad, never requiring it.
BUFFER_ATTRIBUTES = frozenset({"running_mean", "running_var", "num_batches_tracked"})
#: What reads a module's own tensors, parameters and buffers: its methods
#: (``m.parameters()``, ``m.state_dict()``) and attributes (``m.weight``),
#: which live where the module's users move it.
MODULE_TENSOR_METHODS = MODULE_PARAMETER_METHODS | MODULE_BUFFER_METHODS | {"state_dict"}
MODULE_TENSOR_ATTRIBUTES = PARAMETER_ATTRIBUTES | BUFFER_ATTRIBUTES
#: Module methods that change the module in place (a statement of their own),
#: and return it (``Model().eval().to(dev)`` is a ``Model``).
MODULE_IN_PLACE_METHODS = frozenset(
    {"to", "cuda", "cpu", "xpu", "mps", "half", "float", "double", "bfloat16", "train", "eval"}
)
#: Module methods that return the module itself.
MODULE_SELF_METHODS = frozenset({"train", "eval", "float", "double", "half", "bfloat16"})
#: Methods and functions returning a (values, indices) pair; the indices are integers.
ALWAYS_INDEX_PAIR = frozenset({"sort", "topk", "kthvalue", "mode", "cummax", "cummin"})
#: ... and those that return one only when given a dimension (``torch.max(x, 1)``).
#: (Not ``aminmax``: its pair is (min, max), two values that keep the input's grad.)
INDEX_PAIR_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})

#: Tensor methods that return Python numbers, shapes or lists, not tensors.
PLAIN_RESULT_METHODS = frozenset(
    {"size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "stride",
     "element_size", "get_device", "data_ptr", "storage_offset", "is_contiguous"}
)  # fmt: skip
#: Methods named for a shape (``img.peek_pending_shape()``, ``x.spatial_size()``,
#: a tensor subclass's own): they return sizes, not a tensor
SHAPE_METHOD = re.compile(r"(?:^|_)(?:shape|shapes|size|sizes)$")

#: Attributes and methods of an array or tensor that read its metadata (shape,
#: type, device, layout), never its bytes: a write-through cannot show there.
METADATA_ATTRS = frozenset(
    {"shape", "dtype", "ndim", "device", "is_cuda", "requires_grad", "size", "itemsize",
     "nbytes", "strides", "layout", "is_sparse", "flags", "dim", "ndimension", "numel",
     "nelement", "stride", "element_size", "get_device", "data_ptr", "storage_offset",
     "is_contiguous", "grad_fn", "is_leaf"}
)  # fmt: skip
#: The fields of an OpenMMLab data sample that hold data elements
#: (``mmengine.structures.InstanceData``, ``PixelData``), not tensors:
#: ``data_sample.pred_instances``, ``gt_sem_seg``, ``pred_instances_3d``. A
#: data element's own ``.numpy()`` (``.cpu()``, ``.to(d)``, indexing by a
#: mask) converts each of its fields with ``v.detach().cpu().numpy()``; its
#: fields (``pred_instances.bboxes``) are tensors. Read so only in a file
#: that imports one of the OpenMMLab packages (``MM_PACKAGE``).
DATA_ELEMENT_FIELD = re.compile(
    r"^(?:pred|gt|ignored)_(?:track_)?instances(?:_3d)?$|^(?:pred|gt)_(?:sem|panoptic|pts)_seg$"
    r"|^(?:pred|gt)_fields$"
)
#: The data element and data sample classes of OpenMMLab's ``structures``
#: modules, by qualified name (``mmengine.structures.InstanceData``,
#: ``PixelData``, ``BaseDataElement``, ``mmdet.structures.DetDataSample``): an
#: instance made of tensors is a data element, not a tensor (see above).
DATA_ELEMENT_CLASS = re.compile(
    r"^mm[a-z0-9]*\.structures(?:\.[a-z0-9_]+)*"
    r"\.(?:BaseDataElement|[A-Z][A-Za-z0-9]*Data|[A-Z][A-Za-z0-9]*DataSample)$"
)
#: Parameters that hold OpenMMLab data samples (``data_sample``,
#: ``batch_data_samples``, ``det_data_sample``), in such a file: data
#: elements too.
DATA_SAMPLE_PARAMETER = re.compile(r"(?:^|_)data_samples?$")
#: The top-level packages of OpenMMLab's libraries (``mmengine``, ``mmdet``,
#: ``mmocr``, ``mmdet3d``, ...).
MM_PACKAGE = re.compile(r"^mm[a-z0-9]*$")
#: Attributes whose value never requires grad (``p.data``, ``p.grad``, a
#: sparse tensor's ``indices``).
GRAD_FREE_ATTRS = frozenset({"data", "grad", "indices"})
#: Builtins that read only what an object is, never an array's bytes.
METADATA_BUILTINS = frozenset({"len", "isinstance", "type", "id"})
#: Builtins that read their argument and keep nothing of it: neither its
#: memory nor its device (``float(loss)``, ``print(t)``).
READ_ONLY_BUILTINS = METADATA_BUILTINS | frozenset(
    {"float", "int", "bool", "str", "repr", "print", "format", "round", "hash"}
)

#: Builtins that return a Python number whatever they are given (``float(t)``
#: of a one-element tensor, ``len(xs)``); not ``round`` or ``abs``, which give
#: a tensor back for a tensor.
NUMBER_RESULT_BUILTINS = frozenset({"int", "float", "len", "bool"})

#: Builtins that only show their arguments: a value read by them is displayed,
#: nothing is computed from it (a tutorial's ``print(b)`` after ``a += 1``).
DISPLAY_BUILTINS = frozenset({"print", "display"})

#: Methods that move a tensor off the CPU, or to a device not known here.
DEVICE_CHANGING_METHODS = frozenset({"cuda", "to", "xpu", "mps", "ipu", "hpu"})

#: Calls that open a no-grad context, as ``with`` items or decorators.
NO_GRAD_CONTEXTS = frozenset(
    {
        "torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad", "torch.autograd.inference_mode",
        "torch.autograd.grad_mode.inference_mode",
    }
)  # fmt: skip
GRAD_CONTEXTS = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
#: Lightning's hooks around its evaluation and prediction loops
#: (``on_validation_epoch_end``, ``on_test_start``, ...)
_EVALUATION_HOOKS = frozenset(
    f"on_{loop}_{when}"
    for loop in ("validation", "test", "predict")
    for when in ("start", "end", "epoch_start", "epoch_end")
)
#: Methods a framework calls with grad disabled, by the base class's name
#: (its last part ends so): PyTorch Lightning runs its validation, test and
#: predict loops under ``torch.no_grad()`` or ``torch.inference_mode()``;
#: detectron2's ``inference_on_dataset`` gives a ``DatasetEvaluator`` each
#: batch's outputs under ``torch.no_grad()`` (its copies in other projects too);
#: mmengine's ``ValLoop.run_iter`` and ``TestLoop.run_iter``, decorated
#: ``@torch.no_grad()``, give a ``BaseMetric`` each batch (``process``) and
#: call the runner's hooks around it (a ``Hook``'s ``*_val_iter`` and
#: ``*_test_iter``).
FRAMEWORK_NO_GRAD_METHODS = {
    "DatasetEvaluator": frozenset({"process"}),
    "BaseMetric": frozenset({"process"}),
    "Hook": frozenset(
        {"before_val_iter", "after_val_iter", "before_test_iter", "after_test_iter"}
    ),
    # Lightning runs its evaluation and prediction loops (``run``, which calls
    # their start, epoch and end hooks too) under ``_no_grad_context``
    "LightningModule": frozenset(
        {
            "validation_step", "test_step", "predict_step", "on_validation_batch_start",
            "on_validation_batch_end", "on_test_batch_start", "on_test_batch_end",
            "on_predict_batch_start", "on_predict_batch_end", *_EVALUATION_HOOKS,
            "validation_epoch_end", "test_epoch_end",
        }
    ),
    # a Lightning ``Callback``'s hooks of the same loops (a Keras or fastai
    # callback has other names, and other signatures: the batch positions
    # below do not match)
    "Callback": frozenset(
        {
            "on_validation_batch_start", "on_validation_batch_end", "on_test_batch_start",
            "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end",
            *_EVALUATION_HOOKS,
        }
    ),
}  # fmt: skip
#: Methods a framework calls with data (items or batches its pipelines load,
#: never values that require grad), by the base class's name (its last part
#: ends so): method -> the data parameter's position after ``self``. fastai's
#: data pipelines (``after_item``, ``after_batch``) run a fastcore
#: ``Transform``'s ``encodes`` (its ``decodes`` may be given predictions).
FRAMEWORK_DATA_PARAMETERS: dict[str, dict[str, int]] = {"Transform": {"encodes": 0}}
#: Embeddings made from given vectors: frozen unless ``freeze=False``
PRETRAINED_EMBEDDINGS = frozenset(
    {"torch.nn.Embedding.from_pretrained", "torch.nn.EmbeddingBag.from_pretrained"}
)
#: ``torch.nn.Module`` under the names a class may derive from it by
TORCH_MODULE_CLASSES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: Methods of a module that run while it is built, before its users can move
#: it to a device (its parameters are where they were made)
MODULE_BUILD_METHODS = frozenset(
    {"__init__", "__post_init__", "reset_parameters", "_reset_parameters", "init_weights",
     "_init_weights", "initialize", "build", "__setstate__"}
)  # fmt: skip
#: Bases of a custom autograd function, whose ``forward`` autograd runs with
#: grad disabled (measured on torch 2.13: ``torch.is_grad_enabled()`` is
#: False there, and ``.numpy()`` of an input that requires grad succeeds)
AUTOGRAD_FUNCTION_CLASSES = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function",
     "torch.autograd.function.InplaceFunction"}
)  # fmt: skip
#: Methods a framework calls with a batch it moved to the module's device
#: first, by the base class's name: method -> the batch parameter's position
#: after ``self``. Lightning's loops run ``transfer_batch_to_device`` on every
#: batch, which moves each tensor in it (through lists, tuples and dicts) to
#: the device the trainer put the module on, before the module's step and
#: batch hooks and a ``Callback``'s (``on_train_batch_end(self, trainer,
#: pl_module, outputs, batch, batch_idx)``). Its other values (strings, ids)
#: are not moved, so the batch is no proof of a tensor.
#: Lightning's loops: the name in its hooks (``on_train_batch_end``) -> the
#: name of its step (``training_step``)
_LIGHTNING_LOOPS = {
    "train": "training",
    "validation": "validation",
    "test": "test",
    "predict": "predict",
}
FRAMEWORK_BATCH_PARAMETERS: dict[str, dict[str, int]] = {
    "LightningModule": {
        **{f"{step}_step": 0 for step in _LIGHTNING_LOOPS.values()},
        **{f"on_{loop}_batch_start": 0 for loop in _LIGHTNING_LOOPS},
        **{f"on_{loop}_batch_end": 1 for loop in _LIGHTNING_LOOPS},
    },
    "Callback": {
        **{f"on_{loop}_batch_start": 2 for loop in _LIGHTNING_LOOPS},
        **{f"on_{loop}_batch_end": 3 for loop in _LIGHTNING_LOOPS},
    },
}
#: Hooks a framework calls with what a step method of the same class returned
#: (hook -> (the step, the parameter's position after ``self``)): Lightning
#: 1.x's ``*_epoch_end(outputs)`` (a list of them, over the epoch) and a
#: module's ``on_*_batch_end(outputs, batch, i)`` (the batch's). What the step
#: returned stays on the module's device (Lightning detaches a training
#: step's loss, and runs the other steps without grad: only device evidence
#: goes through).
FRAMEWORK_STEP_OUTPUTS: dict[str, dict[str, tuple[str, int]]] = {
    "LightningModule": {
        **{f"{step}_epoch_end": (f"{step}_step", 0) for step in _LIGHTNING_LOOPS.values()},
        **{f"on_{loop}_batch_end": (f"{step}_step", 0) for loop, step in _LIGHTNING_LOOPS.items()},
    },
}
#: The torch release since which ``Tensor.numpy()`` checks grad mode, so that
#: under ``no_grad`` even a tensor that requires grad converts (pytorch issue
#: 37000, fixed by pull request 38906 in May 2020); before, it raised there too.
NUMPY_CHECKS_GRAD_MODE_SINCE = (1, 6)
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})

# --- zero-copy and read-only sources ----------------------------------------

#: Sources that share memory by design (exempt from the alias rules).
ZERO_COPY_SOURCES = frozenset(
    {
        "numpy.memmap", "numpy.frombuffer", "memoryview",
        "multiprocessing.shared_memory.SharedMemory",
        "numpy.lib.format.open_memmap",
    }
)  # fmt: skip
#: Producers whose result is always read-only.
READONLY_SOURCES = frozenset({"numpy.broadcast_to", "numpy.lib.stride_tricks.sliding_window_view"})

# --- other frameworks -------------------------------------------------------

#: Top-level modules whose tensors also have ``.numpy()`` but are not torch.
OTHER_FRAMEWORKS = frozenset(
    {
        "tensorflow",
        "keras",
        "tf_keras",
        "paddle",
        "jax",
        "mindspore",
        "oneflow",
        "mxnet",
        "onnxruntime",
        "warp",  # NVIDIA Warp: ``wp.array.numpy()`` copies a device array to the host
        "tinygrad",  # ``Tensor.numpy()`` copies to the host from any device
        # TensorFlow's own packages: models loaded from TF Hub, text ops, datasets
        "tensorflow_hub",
        "tensorflow_text",
        "tensorflow_datasets",
        "tflite_runtime",
        "flax",  # JAX's neural networks
        # EagerPy wraps torch, TensorFlow and JAX tensors: its ``.numpy()`` is
        # ``raw.detach().cpu().numpy()`` for a torch one (foolbox's attacks)
        "eagerpy",
    }
)

#: Packages that hold both torch and TensorFlow/Flax classes: a name of theirs
#: spelt ``TF...`` or ``Flax...`` (``transformers.TFAutoModel``) is the other framework's.
DUAL_FRAMEWORK_PACKAGES = frozenset({"transformers", "diffusers"})


def is_other_framework(qual: str) -> bool:
    """Is the dotted name ``qual`` another framework's (``tf.constant``,
    ``transformers.TFAutoModel.from_pretrained``), not torch's?"""
    parts = qual.split(".")
    if parts[0] in OTHER_FRAMEWORKS:
        return True
    return (
        parts[0] in DUAL_FRAMEWORK_PACKAGES
        and len(parts) > 1
        and parts[1].startswith(("TF", "Flax"))
    )


#: Calls that import a module named by a string, bound to a name (the index
#: reads them in any scope, summaries at a module's top level and in its
#: ``if``/``try`` blocks): ``tf = importlib.import_module("tensorflow")``,
#: ``hub = LazyLoader("hub", globals(), "tensorflow_hub")`` (TensorFlow's and
#: TextAttack's lazy loader: the module is the third argument), ``np =
#: lazy_import("numpy")``. The last name of the callee -> the position of the
#: module's name among its arguments.
LAZY_IMPORT_CALLS = MappingProxyType(
    {"import_module": 0, "__import__": 0, "LazyLoader": 2, "lazy_import": 0, "LazyImport": 0}
)
_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def lazy_import(callee: str, texts: Sequence[Optional[str]]) -> Optional[str]:
    """The module a call of ``callee`` (a dotted name) with positional
    arguments ``texts`` (each a string literal's value, or None) imports,
    where ``LAZY_IMPORT_CALLS`` says it is one and names it by a string:
    ``__import__("a.b")`` binds the package ``a``; None otherwise (a relative
    or computed name)."""
    last = callee.rsplit(".", 1)[-1]
    position = LAZY_IMPORT_CALLS.get(last)
    if position is None:
        return None
    if position >= len(texts):
        position = 0  # ``LazyLoader("tensorflow")``
    name = texts[position] if texts else None
    if name is None or not _MODULE_NAME.match(name):
        return None
    return name.split(".")[0] if last == "__import__" else name


#: ``torch.load``: where its tensors land depends on ``map_location``
TORCH_LOAD = "torch.load"

#: ``isinstance`` tests: the types that say a value is a torch tensor there
#: (``torch.FloatTensor`` and the other legacy ``torch.*Tensor`` classes too;
#: ``Variable``, whose metaclass answers ``isinstance(x, torch.Tensor)``).
TORCH_TENSOR_TYPES = (
    frozenset(
        {"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"}
    )
    | VARIABLE_CLASSES
)
#: ... that it is a NumPy array or scalar there
NUMPY_ARRAY_TYPES = frozenset(
    {"numpy.ndarray", "numpy.generic", "numpy.number", "numpy.floating", "numpy.integer"}
)
#: ... that it is something else (a plain number or string, an image, a frame),
#: besides every class of ``OTHER_FRAMEWORKS``
NOT_TENSOR_TYPES = frozenset(
    {
        "int", "float", "bool", "complex", "str", "bytes",
        "numbers.Number", "numbers.Real", "numbers.Integral",
        "PIL.Image.Image", "pandas.DataFrame", "pandas.Series",
    }
)  # fmt: skip
#: Calls that always raise, so nothing after them in their block runs
#: (``pytest.xfail("...")`` at the top of a test, ``sys.exit(main())``),
#: matched by the dotted name as written.
ALWAYS_RAISING_CALLS = frozenset(
    {"pytest.skip", "pytest.xfail", "pytest.fail", "pytest.exit", "sys.exit", "os._exit"}
)
#: Decorators that skip a test whatever happens (``@pytest.mark.skip(reason=...)``,
#: ``@unittest.skip("...")``; not ``skipif``): the function or class they
#: decorate never runs. Matched by the dotted name as written, called or bare.
ALWAYS_SKIPPING_DECORATORS = frozenset({"pytest.mark.skip", "unittest.skip", "unittest.case.skip"})
#: Tensor methods a test may name without calling them (``if x.cuda:``, meant
#: as ``x.is_cuda``): a bound method is always true.
BOUND_METHOD_TESTS = frozenset({"cuda", "cpu"})
#: Names of the objects that hold a program's settings or its own state:
#: their ``.device`` is a device the code chose (``args.device``), where any
#: other value's ``.device`` is where that value already is (``x.device``).
SETTINGS_NAMES = frozenset(
    {"self", "cls", "args", "arg", "cfg", "config", "conf", "opt", "opts", "options",
     "hparams", "hp", "settings", "flags", "FLAGS", "params", "hyperparams", "trainer"}
)  # fmt: skip
#: Containers: a value that is one is not a tensor, though its elements may be.
CONTAINER_TYPES = frozenset(
    {
        "list", "tuple", "dict", "set", "frozenset",
        "collections.abc.Sequence", "collections.abc.Mapping", "collections.abc.Iterable",
        "typing.List", "typing.Tuple", "typing.Dict", "typing.Sequence", "typing.Mapping",
    }
)  # fmt: skip
#: Frameworks a type's name or module names in a text test
#: (``"jax" in str(type(x))``): ``"chainer"`` too, which has no ``.numpy()``.
OTHER_TYPE_WORDS = frozenset({*OTHER_FRAMEWORKS, "tf", "chainer", "cupy"})
#: A project's own no-grad decorator or context, by its name, where its
#: definition cannot be read (``@smart_inference_mode()``, copied from
#: YOLOv5's ``utils/torch_utils.py`` into many projects; ``torch_no_grad``).
#: Where the definition is read, what it returns decides (``summaries.GRAD_OFF``).
NO_GRAD_HELPER = re.compile(r"^_*(?:smart_|torch_)?(?:inference_mode|no_grad)$")

#: Helper names a type test is spelt with (``_is_torch_tensor(x)``,
#: ``is_tf_tensor(x)``): the framework in the name says what ``x`` is there.
_TORCH_TEST_NAME = r"_*is_?(?:py)?torch(?:_?tensor)?"
TORCH_TEST_HELPER = re.compile(f"^{_TORCH_TEST_NAME}$")
#: ... called in a file's text: a file that never imports torch but tests for
#: torch tensors this way converts them where the test holds
TORCH_TEST_CALL = re.compile(rf"(?<![\w.]){_TORCH_TEST_NAME}\s*\(")
OTHER_TEST_HELPER = re.compile(
    r"^_*is_?(?:tf|tensorflow|jax|paddle|mindspore|mxnet|keras)(?:_?(?:tensor|array))?$"
)


#: Top-level packages built on torch only: a file that imports one handles
#: torch tensors even where it never imports torch itself (a detector's
#: results, a Lightning module's outputs, a node graph's image tensors).
#: Multi-backend packages (DGL, Keras 3, einops) are not here.
TORCH_FRONT_ENDS = frozenset(
    {
        "torchvision", "torchaudio", "torchtext", "torchdata", "torchmetrics", "torchrl",
        "tensordict", "torch_geometric", "torch_scatter", "torch_sparse", "torchio",
        "lightning", "pytorch_lightning", "lightning_fabric", "timm", "ultralytics",
        "mmcv", "mmdet", "mmdet3d", "mmseg", "mmengine", "mmpose", "mmocr", "mmaction",
        "mmpretrain", "mmcls", "mmrotate", "detectron2", "kornia", "monai", "pytorch3d",
        "segment_anything", "ignite", "fastai", "skorch", "pyro", "gpytorch", "botorch",
        "captum", "accelerate", "diffusers", "peft", "open_clip", "comfy", "transformers",
        "sentence_transformers", "spconv", "flair",
    }
)  # fmt: skip

#: What a star-import of a front end binds besides its own names (read in
#: their sources: ``fastai.imports``, which every ``fastai.*`` star-import
#: re-exports, has ``import numpy as np``, ``import matplotlib.pyplot as
#: plt``, ``import pandas as pd``, ``import torch``, ``import torch.nn as nn``
#: and ``import torch.nn.functional as F``, in fastai 0.7, 1 and 2 alike):
#: a notebook that starts ``from fastai.vision.all import *`` calls
#: ``plt.imshow`` and ``nn.Parameter`` without importing them.
STAR_IMPORT_EXPORTS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "fastai": MappingProxyType(
            {"np": "numpy", "plt": "matplotlib.pyplot", "pd": "pandas", "torch": "torch",
             "nn": "torch.nn", "F": "torch.nn.functional"}
        ),
    }
)  # fmt: skip


def star_exports(module: str) -> Mapping[str, str]:
    """The names ``from <module> import *`` binds to other packages' modules
    (``np`` -> ``numpy`` for ``fastai.basics``); empty when none are known."""
    return STAR_IMPORT_EXPORTS.get(module.split(".", 1)[0], _NO_EXPORTS)


_NO_EXPORTS: Mapping[str, str] = MappingProxyType({})

#: Front ends' predictors whose call runs the model under ``no_grad`` or
#: ``inference_mode`` itself, so what it returns never requires grad (read in
#: their sources: ultralytics' ``Model.__call__``/``predict`` reach
#: ``BasePredictor.stream_inference``, decorated ``@smart_inference_mode()``;
#: detectron2's ``DefaultPredictor.__call__`` runs under ``torch.no_grad()``).
#: Their results stay on the model's device.
INFERENCE_MODELS = frozenset(
    {
        "ultralytics.YOLO", "ultralytics.YOLOWorld", "ultralytics.YOLOE", "ultralytics.RTDETR",
        "ultralytics.SAM", "ultralytics.FastSAM", "ultralytics.NAS",
        "detectron2.engine.DefaultPredictor",
    }
)  # fmt: skip
#: Their methods that run a prediction (a call of the predictor itself does too).
INFERENCE_METHODS = frozenset({"predict", "track"})
#: Functions that run a model given to them for inference, under ``no_grad``
#: (mmdet's and mmseg's ``apis``: ``with torch.no_grad(): model.test_step(...)``).
INFERENCE_FUNCTIONS = frozenset(
    {"mmdet.apis.inference_detector", "mmseg.apis.inference_model",
     "mmseg.apis.inference_segmentor"}
)  # fmt: skip

#: Functions returning the total norm of the gradients they are given (or of
#: the parameters' gradients): a 0-d tensor on their device, computed without
#: grad (measured on torch 2.13: ``requires_grad`` False; since torch 1.5 it is
#: a tensor, a float before), so ``np.isinf(norm)`` or ``np.mean(norms)``
#: converts it.
GRAD_NORM_FUNCTIONS = frozenset(
    {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm",
     "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.get_total_norm"}
)  # fmt: skip

_TORCH_SUBMODULES_OF_FUNCTIONS = ("torch.nn.functional.", "torch.linalg.", "torch.fft.",
                                  "torch.special.", "torch.sparse.")  # fmt: skip


#: torch's data pipeline (``DataLoader``, ``TensorDataset``, ``Subset``): a
#: call of it makes no tensor, and says nothing of the device of what its
#: batches hold (the facts of a call of it are empty, in a function and
#: across files alike).
TORCH_DATA_PIPELINE = "torch.utils.data."


def is_torch_function(qual: str) -> bool:
    """``torch.cat``, ``torch.nn.functional.relu``: functions returning tensors
    (or tuples of them: ``torch.svd``)."""
    if qual.startswith(_TORCH_SUBMODULES_OF_FUNCTIONS):
        return True
    parts = qual.split(".")
    return len(parts) == 2 and parts[0] == "torch" and parts[1][:1].islower()


#: Method calls that keep a value inside a container (the value is retained).
CONTAINER_STORE_METHODS = frozenset(
    {"append", "extend", "insert", "add", "appendleft", "setdefault", "put", "put_nowait"}
)

#: List methods that add no element (what every element is still holds).
CONTAINER_READ_METHODS = frozenset(
    {"index", "count", "copy", "pop", "popleft", "remove", "clear", "sort", "reverse"}
)
#: torch functions that join the tensors of a list into one, on their device
#: and with their grad (``torch.cat(out)`` of CPU tensors is on the CPU).
TORCH_JOINING_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in ("cat", "concat", "concatenate", "stack", "vstack", "hstack", "dstack",
                 "column_stack", "row_stack")
)  # fmt: skip

# --- lists and dicts (``containers.py``) -------------------------------------

#: Methods only lists, dicts and deques have (never an array or a tensor): a
#: name they are called on holds a container, so ``d[k] = v`` rebinds a slot.
CONTAINER_ONLY_METHODS = frozenset(
    {
        "keys", "items", "values", "append", "extend", "insert", "get", "setdefault",
        "update", "pop", "popitem", "appendleft", "popleft",
    }
)  # fmt: skip
#: Calls that make a container (by the name called).
CONTAINER_CLASSES = frozenset(
    {"list", "dict", "set", "tuple", "frozenset", "OrderedDict", "defaultdict", "deque",
     "Counter", "ChainMap"}
)  # fmt: skip
#: Annotations naming a container (by their last name).
CONTAINER_ANNOTATIONS = frozenset(
    {"dict", "Dict", "list", "List", "tuple", "Tuple", "Mapping", "MutableMapping",
     "Sequence", "MutableSequence", "OrderedDict", "DefaultDict", "defaultdict", "Deque",
     "deque"}
)  # fmt: skip

# --- state updates (function summaries) -------------------------------------

#: Module methods that write the module's parameters in place.
STATE_LOADING_METHODS = frozenset({"load_state_dict", "set_state_dict"})
#: Optimizer methods that write the parameters they were given.
OPTIMIZER_STEP_METHODS = frozenset({"step"})
#: Methods that, called on a value, show it is a module whose parameters an
#: optimizer stepped in the same function may hold.
MODULE_USE_METHODS = frozenset(
    {"parameters", "named_parameters", "train", "eval", "zero_grad", "forward", "state_dict"}
)
#: Module methods whose items are (parts of) the module's own tensors.
PARAMETER_ITERATORS = frozenset({"parameters", "buffers"})
#: Methods every ``nn.Module`` has that hand back its own tensors or modules
#: (a parameter requires grad under ``no_grad`` too), or any attribute.
MODULE_OWN_VALUE_METHODS = (
    MODULE_PARAMETER_METHODS
    | MODULE_BUFFER_METHODS
    | frozenset({"state_dict", "get_parameter", "get_buffer", "children", "named_children"})
    | frozenset({"__getattr__", "__getattribute__"})
)

#: Annotation names of sequences whose elements the subscript names
#: (``list[LongTensor]``): a union of integer tensor types and these proves no grad.
SEQUENCE_ANNOTATIONS = frozenset(
    {"list", "List", "tuple", "Tuple", "Sequence", "Iterable", "Collection"}
)
#: Annotation names that are never a tensor (a parameter annotated with only
#: these gives no boundary evidence).
PLAIN_ANNOTATIONS = frozenset(
    {
        "int", "float", "str", "bool", "bytes", "complex", "None", "Optional", "Union",
        "Literal", "Collection", "Sequence", "List", "list", "Tuple", "tuple", "Dict",
        "dict", "Set", "set", "FrozenSet", "frozenset", "Iterable", "Mapping", "Hashable",
    }
)  # fmt: skip

#: Last names of callees that are, by a near-universal convention, modules:
#: ``model(x)``, ``self.encoder(h)``, ``net(x)``.
MODULE_NAME = re.compile(
    r"(?:^|_)(?:model|net|network|module|encoder|decoder|backbone|head|classifier|"
    r"generator|discriminator|policy|actor|critic|mlp|cnn|rnn|lstm|gru|transformer|layer)s?$"
)
#: Callee names that by convention compute a loss (``self.criterion(out, y)``,
#: ``loss_fn(pred, target)``): given tensors, a tensor where they are.
LOSS_NAME = re.compile(r"(?:^|_)(?:criterion|loss|loss_fn|loss_func|loss_function)$")


def names_a_loss(name: str) -> bool:
    """Is a call of ``name`` (a callee's last name) by convention a loss?"""
    return bool(LOSS_NAME.search(name.lower().lstrip("_")))


#: Tensor methods (and ``torch.<name>`` functions) whose result keeps the
#: receiver's ``requires_grad`` whatever the grad mode: views (measured on torch
#: 2.13, ``tools/measure_grad.py``)
SAME_GRAD_FLAG_METHODS = TORCH_VIEW_METHODS - {"detach"}

#: Prefixes of callees named like a module that fetch, build or register one
#: (``self.get_model()``, ``build_network(cfg)``, ``self.named_modules()``):
#: calling them is not a forward pass.
MODULE_ACCESSOR_PREFIXES = (
    "get_", "build_", "load_", "make_", "create_", "init_", "named_", "register_", "add_",
    "set_", "setup_", "reset_", "save_", "freeze_", "unfreeze_", "copy_", "clone_",
)  # fmt: skip
#: ``nn.Module`` methods whose names look like a module's (``m.modules()``).
MODULE_ACCESSOR_METHODS = frozenset({"modules", "named_modules", "get_submodule", "add_module"})


def names_a_forward_pass(name: str) -> bool:
    """Is a call of ``name`` (a callee's last name) by convention a module's
    forward pass: ``model(x)``, ``self.encoder(h)``, ``net(x)``; not
    ``self.get_model()`` or ``self.named_modules()``?"""
    lowered = name.lower()
    bare = lowered.lstrip("_")  # (``self.__load_model()``, ``_build_net(cfg)``)
    return (
        bool(MODULE_NAME.search(lowered))
        and bare not in MODULE_ACCESSOR_METHODS
        and not bare.startswith(MODULE_ACCESSOR_PREFIXES)
    )


#: Methods whose result never requires grad: it is detached, a number, or integers.
GRAD_ENDING_METHODS = frozenset({"detach", "numpy"}) | INTEGER_RESULT_METHODS | PLAIN_RESULT_METHODS
