"""The runtime harness: run fixed code on real tensors and prove the fix right.

This package imports torch and NumPy, lazily: nothing in ``tensorlint check``
imports it. See HARNESS.md for what it checks.
"""
