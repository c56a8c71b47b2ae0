"""Reporters are pure functions: ``render(results) -> str``."""
