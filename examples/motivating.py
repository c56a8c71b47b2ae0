"""The four bugs tensorlint was built for, as a user would write them.

`tensorlint check examples/` reports each one; `tensorlint check --fix
--unsafe-fixes examples/` rewrites them into the safe idiom. Run this file
(`python examples/motivating.py`) before and after to see the difference.
"""

import numpy as np
import torch


DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def standardize(features):
    """from_numpy, then a write to the tensor, then a read of the array."""
    t = torch.from_numpy(features)
    t -= t.mean()
    return t, features


def shifted_copy(weights):
    """.numpy(), then a write to the array, then a read of the tensor."""
    a = weights.numpy()
    a += 1.0
    return a, weights


def to_host(t, device=DEVICE):
    """A tensor moved to a device that may be CUDA, then converted with .numpy()."""
    return t.to(device).numpy()


def predict(layer, x):
    """A tensor that requires grad converted with .numpy()."""
    return layer(x).numpy()


if __name__ == "__main__":
    features = np.arange(4.0)
    t, original = standardize(features)
    print("array after standardize:", original)

    weights = torch.arange(3.0)
    a, same = shifted_copy(weights)
    print("tensor after shifted_copy:", same)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        print("to_host:", to_host(torch.ones(2, device=device)))
    except TypeError as error:
        print("to_host raised:", error)

    layer = torch.nn.Linear(2, 1)
    try:
        print("predict:", predict(layer, torch.ones(1, 2)))
    except RuntimeError as error:
        print("predict raised:", error)
