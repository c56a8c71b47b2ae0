"""Fixit 2 rules that match tensorlint's conversions at the pattern level.

The benchmark loads them with ``fixit --rules .fixit_rules lint FILE...`` run
from ``bench/peers``; they import ``fixit``, so they are only ever imported
inside Fixit's own virtualenv, never by the benchmark itself.
"""

from .torch_numpy import FromNumpyWithoutClone, NumpyWithoutCpuDetach

__all__ = ["FromNumpyWithoutClone", "NumpyWithoutCpuDetach"]
