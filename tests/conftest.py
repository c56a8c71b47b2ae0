from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True, scope="session")
def _user_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's cache folder, where the key that signs tensorlint's caches
    lives: one of the test run's own, never the real ``~/.cache``. Set for
    the session before any other fixture, so that the environments tests
    copy for child processes (the pre-commit hook's) have it too."""
    folder = tmp_path_factory.getbasetemp() / "user-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder
