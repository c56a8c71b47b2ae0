"""Array <-> tensor helpers of an augmentation package."""

import numpy as np
import torch


def hwc_to_chw(image):
    """An HWC image array as a CHW tensor (no copy)."""
    return torch.from_numpy(image).permute(2, 0, 1)


def mask_tensor(mask):
    """A mask array as a tensor the caller may edit."""
    return torch.from_numpy(np.ascontiguousarray(mask, dtype=np.uint8).copy())


def labels_tensor(labels):
    return torch.as_tensor(labels, dtype=torch.long)
