"""The tensorlint benchmark: ``python -m bench --help``.

tensorlint (cold, warm, ``--fix``, single files, scaling with files and with
candidate files) against Ruff, Semgrep, Fixit 2 and TorchFix, on pinned
releases of PyTorch libraries or a local tree. See :mod:`bench.cli`.
"""
