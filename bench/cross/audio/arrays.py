import numpy as np


def to_host(wave):
    """Samples as a host array for the logger."""
    return np.asarray(wave.cpu())


def to_host_copy(wave):
    return wave.detach().cpu().numpy().copy()
