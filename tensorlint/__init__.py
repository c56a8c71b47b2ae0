"""tensorlint: precise lint rules and autofixes for PyTorch <-> NumPy conversion bugs."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
