"""The harness's input matrix: every tensor and array a case may meet.

An input is built fresh for every run (original, rewritten, reference), so
that a run that writes to its input cannot affect the next one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

TENSOR_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "bool")
GRAD_DTYPES = frozenset({"float32", "float64", "float16", "bfloat16"})
TENSOR_LAYOUTS = ("contiguous", "transposed", "0-d", "empty")
ARRAY_DTYPES = ("float32", "float64", "int64", "uint8", "bool")
ARRAY_VARIANTS = ("writable", "read-only", "fortran", "sliced", "negative-stride")


@dataclass(frozen=True)
class InputSpec:
    """One cell's input: how to build it, and what it is."""

    kind: str  # "tensor" or "array"
    device: str  # "cpu", "cuda", ... ("cpu" for arrays)
    dtype: str
    layout: str
    requires_grad: bool = False

    @property
    def id(self) -> str:
        parts = [self.kind, self.device, self.dtype, self.layout]
        if self.requires_grad:
            parts.append("grad")
        return "-".join(parts)

    def build(self) -> Any:
        return _build_tensor(self) if self.kind == "tensor" else _build_array(self)


def available_devices() -> list[str]:
    """CPU, and every accelerator torch reports."""
    import torch

    devices = ["cpu"]
    if torch.cuda.is_available():
        devices.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        devices.append("xpu")
    return devices


#: Devices a full matrix names even when absent, so their cells are reported
#: as skipped instead of silently missing.
EXPECTED_DEVICES = ("cpu", "cuda")


def matrix(kind: str, devices: tuple[str, ...] = EXPECTED_DEVICES) -> Iterator[InputSpec]:
    if kind == "array":
        for dtype in ARRAY_DTYPES:
            for variant in ARRAY_VARIANTS:
                yield InputSpec("array", "cpu", dtype, variant)
        return
    for device in devices:
        for dtype in TENSOR_DTYPES:
            for layout in TENSOR_LAYOUTS:
                yield InputSpec("tensor", device, dtype, layout)
                if dtype in GRAD_DTYPES:
                    yield InputSpec("tensor", device, dtype, layout, requires_grad=True)


def _build_tensor(spec: InputSpec) -> Any:
    import torch

    dtype = getattr(torch, spec.dtype)
    if spec.layout == "0-d":
        base = torch.tensor(1.5 if spec.dtype != "bool" else 1.0)
    elif spec.layout == "empty":
        base = torch.zeros(0, 3)
    elif spec.layout == "transposed":
        base = torch.arange(6.0).reshape(3, 2) - 2.0
    else:
        base = torch.arange(6.0).reshape(2, 3) - 2.0
    values = base.to(dtype) if spec.dtype != "bool" else (base > 0)
    leaf = values.to(spec.device)
    if spec.requires_grad:
        leaf.requires_grad_(True)
    if spec.layout == "transposed":
        return leaf.t()  # a view (a non-leaf when the leaf requires grad)
    return leaf


def _build_array(spec: InputSpec) -> Any:
    import numpy as np

    base = np.arange(12.0).reshape(3, 4) - (0.0 if spec.dtype == "uint8" else 5.0)
    values = base.astype(spec.dtype) if spec.dtype != "bool" else base > 0
    if spec.layout == "read-only":
        array = values[:, :3].copy()
        array.setflags(write=False)
        return array
    if spec.layout == "fortran":
        return np.asfortranarray(values[:, :3])
    if spec.layout == "sliced":
        return values[1:3, 1:]
    if spec.layout == "negative-stride":
        return values[::-1, :3]
    return values[:, :3].copy()


Builder = Callable[[], Any]
