"""What the line-oriented CI formats say about a file that could not be checked."""

from __future__ import annotations

#: the code a line-oriented format gives a file tensorlint could not check
#: (the flake8 plugin's code for a configuration it cannot use)
NOT_CHECKED = "TL000"


def error_reason(path: str, error: str) -> str:
    """``error`` without the ``path: `` it starts with (the format names the
    file already): ``syntax error at line 1, column 5: ...``."""
    prefix = f"{path}: "
    return error[len(prefix) :] if error.startswith(prefix) and len(error) > len(prefix) else error
