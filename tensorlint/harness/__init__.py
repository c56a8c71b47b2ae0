"""The runtime harness: run fixed code on real tensors and prove the fix right.

This package imports torch and NumPy, lazily: nothing in ``tensorlint check``
imports it. README.md, section *The runtime harness*, says what it checks.
"""
