"""Equality, memory overlap, snapshots and mutation, for tensors and arrays."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional


def leaves(value: Any) -> Iterator[Any]:
    """Tensors and arrays inside a result (tuples, lists and dicts unpacked)."""
    import numpy as np
    import torch

    if isinstance(value, (torch.Tensor, np.ndarray)):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)


def describe(value: Any) -> str:
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        return f"tensor({value.dtype}, {tuple(value.shape)}, {value.device})"
    if isinstance(value, np.ndarray):
        return f"ndarray({value.dtype}, {value.shape})"
    return type(value).__name__


def difference(expected: Any, actual: Any) -> Optional[str]:
    """Why two results differ (type, dtype, shape, device, values), or None."""
    import numpy as np
    import torch

    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            return f"expected {type(expected).__name__} of {len(expected)}, got {describe(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            why = difference(e, a)
            if why is not None:
                return f"[{i}]: {why}"
        return None
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return f"expected {describe(expected)}, got {describe(actual)}"
        if (actual.dtype, tuple(actual.shape), actual.device.type) != (
            expected.dtype,
            tuple(expected.shape),
            expected.device.type,
        ):
            return f"expected {describe(expected)}, got {describe(actual)}"
        e, a = expected.detach().cpu(), actual.detach().cpu()
        if e.is_floating_point() or e.is_complex():
            same = torch.allclose(e.double(), a.double(), rtol=0, atol=0, equal_nan=True)
        else:
            same = torch.equal(e, a)
        return None if same else "values differ"
    if isinstance(expected, np.ndarray):
        if not isinstance(actual, np.ndarray):
            return f"expected {describe(expected)}, got {describe(actual)}"
        if (actual.dtype, actual.shape) != (expected.dtype, expected.shape):
            return f"expected {describe(expected)}, got {describe(actual)}"
        nan = expected.dtype.kind in "fc"
        return None if np.array_equal(expected, actual, equal_nan=nan) else "values differ"
    if type(expected) is not type(actual):
        return f"expected {type(expected).__name__}, got {type(actual).__name__}"
    if expected != expected and actual != actual:  # NaN scalars
        return None
    return None if expected == actual else f"expected {expected!r}, got {actual!r}"


def byte_range(value: Any) -> Optional[tuple[str, int, int]]:
    """(device, first byte, end byte) of the memory a tensor or array can reach."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided:
            return None
        storage = value.untyped_storage()
        start = storage.data_ptr()
        return str(value.device), start, start + storage.nbytes()
    if isinstance(value, np.ndarray):
        low, high = np.lib.array_utils.byte_bounds(value)
        return "cpu", low, high
    return None


def shares_memory(a: Any, b: Any) -> bool:
    ra, rb = byte_range(a), byte_range(b)
    if ra is None or rb is None or ra[0] != rb[0]:
        return False
    if ra[1] == ra[2] or rb[1] == rb[2]:
        return False  # empty buffers hold nothing to share
    return ra[1] < rb[2] and rb[1] < ra[2]


@dataclass(frozen=True)
class Snapshot:
    """Everything check 4 compares: values, dtype, device, grad state."""

    values: Any
    dtype: str
    device: str
    requires_grad: bool
    grad: Any


def snapshot(value: Any) -> Snapshot:
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        grad = value.grad.detach().clone() if value.is_leaf and value.grad is not None else None
        return Snapshot(
            value.detach().clone(), str(value.dtype), str(value.device), value.requires_grad, grad
        )
    if isinstance(value, np.ndarray):
        return Snapshot(value.copy(), str(value.dtype), "cpu", False, None)
    return Snapshot(value, type(value).__name__, "", False, None)


def changed(before: Snapshot, value: Any) -> Optional[str]:
    after = snapshot(value)
    for field in ("dtype", "device", "requires_grad"):
        if getattr(before, field) != getattr(after, field):
            return f"{field} changed from {getattr(before, field)} to {getattr(after, field)}"
    why = difference(before.values, after.values)
    if why is not None:
        return f"values changed ({why})"
    if (before.grad is None) != (after.grad is None):
        return ".grad changed"
    if before.grad is not None and difference(before.grad, after.grad) is not None:
        return ".grad values changed"
    return None


def mutate(value: Any) -> bool:
    """Write new values into a tensor or array in place; False if it cannot be."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        if value.numel() == 0:
            return False
        with torch.no_grad():
            if value.dtype == torch.bool:
                value.logical_not_()
            else:
                value.add_(7)
        return True
    if isinstance(value, np.ndarray):
        if value.size == 0 or not value.flags.writeable:
            return False
        if value.dtype == np.bool_:
            np.logical_not(value, out=value)
        else:
            value += 7
        return True
    return False
