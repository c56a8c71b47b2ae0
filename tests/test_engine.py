"""The engine: cache and process pool change the speed, never the findings."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from tensorlint.config import Config
from tensorlint.engine.cache import Cache, seal, signing_key, unseal
from tensorlint.engine.runner import RunOptions, run
from tensorlint.registry import select
from tensorlint.rule import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SETTINGS = Settings(enabled=select(strict=True))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for folder in sorted(FIXTURES.glob("TL*")):
        for case in sorted(folder.glob("*.py")):
            if not case.name.endswith(".fixed.py"):
                target = root / folder.name / case.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(case, target)
    return root


def _findings(results: list) -> list:  # type: ignore[type-arg]
    return [(r.path, r.diagnostics, r.error) for r in results]


def test_parallel_and_serial_runs_find_the_same_in_the_same_order(tree: Path) -> None:
    serial = run([tree], Config(), SETTINGS, RunOptions(), jobs=1)
    parallel = run([tree], Config(), SETTINGS, RunOptions(), jobs=2)
    assert sum(len(r.diagnostics) for r in serial) > 100
    assert _findings(parallel) == _findings(serial)


def test_a_warm_cache_serves_the_same_findings(tree: Path, tmp_path: Path) -> None:
    fresh = run([tree], Config(), SETTINGS, RunOptions(), jobs=1)
    cold = run([tree], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    warm_cache = Cache(tmp_path / "c")
    assert len(warm_cache) == len(fresh)
    warm = run([tree], Config(), SETTINGS, RunOptions(), cache=warm_cache)
    assert _findings(cold) == _findings(fresh) == _findings(warm)
    assert (tmp_path / "c" / ".gitignore").read_text().strip().endswith("*")


def test_a_changed_file_is_never_served_from_the_cache(tree: Path, tmp_path: Path) -> None:
    path = tree / "TL101" / "fire_runtime_unknown_device.py"
    run([path], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    stat = path.stat()
    text = path.read_text().replace("return t.numpy()", "return t.cpu().detach().numpy().sum()")
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime, new content
    (result,) = run([path], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    assert result.diagnostics == ()


def test_a_touched_but_unchanged_file_is_a_hit_and_other_settings_miss(
    tree: Path, tmp_path: Path
) -> None:
    path = tree / "TL101" / "fire_runtime_unknown_device.py"
    (first,) = run([path], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    os.utime(path, None)
    cache = Cache(tmp_path / "c")
    assert cache.get(path, SETTINGS) == first.diagnostics
    assert cache.get(path, Settings(enabled=frozenset({"TL102"}))) is None
    # the oldest torch targeted changes what TL102 reports under no_grad
    assert cache.get(path, SETTINGS._replace(target_version=(1, 5))) is None


def _cached_tree(tree: Path, directory: Path) -> tuple[Path, dict[str, Any]]:
    run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(directory))
    (file,) = directory.glob("*.cache")
    data = json.loads(unseal(signing_key(), file.read_bytes()))
    assert data["format"] == "tensorlint-cache" and data["entries"]
    return file, data


def _write_signed(file: Path, body: bytes) -> None:
    """``body`` as this user's run would have written it (signed with the
    user's key): what the checks of the file's content must catch."""
    file.write_bytes(seal(signing_key(), body))


@pytest.mark.parametrize(
    "text",
    [
        b"not json",
        b"\xff\xfe",
        b"[]",
        b"[" * 100_000,
    ],
    ids=["text", "binary", "list", "deep"],
)
def test_a_cache_file_that_is_not_one_is_ignored(tree: Path, tmp_path: Path, text: bytes) -> None:
    directory = tmp_path / "c"
    file, _ = _cached_tree(tree, directory)
    _write_signed(file, text)
    assert len(Cache(directory)) == 0
    results = run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(directory))
    assert any(r.diagnostics for r in results)


def test_a_cache_file_of_another_format_version_is_ignored(tree: Path, tmp_path: Path) -> None:
    directory = tmp_path / "c"
    file, data = _cached_tree(tree, directory)
    _write_signed(file, json.dumps(data).encode())
    assert len(Cache(directory)) == len(data["entries"]) > 0  # as written, it is read
    data["version"] -= 1
    _write_signed(file, json.dumps(data).encode())
    assert len(Cache(directory)) == 0


def _no_settings(data: dict[str, Any]) -> None:
    data["settings"] = []


def _row(change: Callable[[list[Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        for row in data["entries"]:
            change(row)

    return apply


@pytest.mark.parametrize(
    "corrupt",
    [
        _no_settings,
        _row(lambda row: row.pop()),
        _row(lambda row: row.__setitem__(1, 7)),
        _row(lambda row: row.__setitem__(0, 1)),
    ],
    ids=["no-settings", "short-row", "settings-out-of-range", "path-not-text"],
)
def test_a_cache_file_with_a_malformed_row_is_ignored(
    tree: Path, tmp_path: Path, corrupt: Callable[[dict[str, Any]], None]
) -> None:
    directory = tmp_path / "c"
    file, data = _cached_tree(tree, directory)
    corrupt(data)
    _write_signed(file, json.dumps(data).encode())
    assert len(Cache(directory)) == 0


def _first_finding(change: Callable[[list[Any]], None]) -> Callable[[list[Any]], None]:
    def apply(row: list[Any]) -> None:
        if row[5]:
            change(row[5][0])

    return apply


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda row: row.__setitem__(2, True),
        lambda row: row.__setitem__(4, None),
        lambda row: row.__setitem__(6, [["a.py", 1]]),
        lambda row: row.__setitem__(6, [["a.py", 1, True]]),
        _first_finding(lambda finding: finding.__setitem__(3, [1, 2, 3])),
        _first_finding(lambda finding: finding.__setitem__(0, None)),
    ],
    ids=[
        "bool-size",
        "no-digest",
        "short-dependency",
        "bool-dependency-mtime",
        "short-span",
        "code-not-text",
    ],
)
def test_a_malformed_entry_is_a_miss_and_is_dropped(
    tree: Path, tmp_path: Path, corrupt: Callable[[list[Any]], None]
) -> None:
    """Rows are checked when first asked for: a bad one is a miss, the file
    is checked again, and the rewritten cache holds a good row for it."""
    directory = tmp_path / "c"
    file, data = _cached_tree(tree, directory)
    for row in data["entries"]:
        corrupt(row)
    _write_signed(file, json.dumps(data).encode())
    assert len(Cache(directory)) == len(data["entries"])
    paths = [Path(row[0]) for row in data["entries"] if row[5]]
    assert paths  # the findings' corruptions had a finding to corrupt
    cache = Cache(directory)
    assert all(cache.get(path, SETTINGS) is None for path in paths)
    results = run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(directory))
    assert any(r.diagnostics for r in results)
    served = Cache(directory)
    for result in results:
        assert served.get(Path(result.path), SETTINGS) == result.diagnostics


def test_the_cache_round_trips_findings_with_fixes_related_places_and_cells(
    tree: Path, tmp_path: Path
) -> None:
    fresh = run([tree], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    served = Cache(tmp_path / "c")
    found = [d for r in fresh for d in r.diagnostics]
    assert any(d.fix for d in found) and any(d.related for d in found)
    for result in fresh:
        assert served.get(Path(result.path), SETTINGS) == result.diagnostics


def test_a_planted_pickle_in_the_cache_never_runs(tree: Path, tmp_path: Path) -> None:
    import pickle

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, (f"touch {marker}",))

    directory = tmp_path / "c"
    run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(directory))
    (file,) = directory.glob("*.cache")
    payload = pickle.dumps(Payload())
    _write_signed(file, payload)  # under the name tensorlint reads, signed
    for old in (".pickle", ".json"):  # the old names
        (directory / file.name.replace(".cache", old)).write_bytes(payload)
    results = run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(directory))
    assert any(r.diagnostics for r in results)
    assert not marker.exists()


def test_a_symlinked_cache_directory_is_never_written_through(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    link = tmp_path / "c"
    link.symlink_to(outside, target_is_directory=True)
    run([tree / "TL101"], Config(), SETTINGS, RunOptions(), cache=Cache(link))
    assert list(outside.iterdir()) == []


def test_fix_runs_skip_files_cached_as_clean_but_fix_the_others(tree: Path, tmp_path: Path) -> None:
    folder = tree / "TL101"
    run([folder], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    fixed = run([folder], Config(), SETTINGS, RunOptions(fix=True), cache=Cache(tmp_path / "c"))
    assert sum(len(r.fixes_applied) for r in fixed) > 10
    again = run([folder], Config(), SETTINGS, RunOptions(), cache=Cache(tmp_path / "c"))
    assert not [
        d for r in again for d in r.diagnostics if d.fix and d.fix.applicability.value == "safe"
    ]


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork",
    reason="the crash is injected by patching the module a forked worker inherits",
)
def test_a_worker_that_dies_is_one_error_line_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensorlint.engine import runner

    source = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"
    for n in range(20):
        (tmp_path / f"m{n:02d}.py").write_text(source, encoding="utf-8")
    (tmp_path / "crash.py").write_text(source, encoding="utf-8")
    parent = os.getpid()
    real = runner.check_file

    def crashing(path: Path, *args: Any) -> Any:
        if path.name == "crash.py" and os.getpid() != parent:
            os._exit(139)  # as a segfault in a native parser would
        return real(path, *args)

    monkeypatch.setattr(runner, "check_file", crashing)
    results = runner.run(
        [tmp_path], Config(), Settings(enabled=select()), runner.RunOptions(), jobs=2
    )
    by_name = {Path(r.path).name: r for r in results}
    assert len(by_name) == 21
    crashed = by_name.pop("crash.py")
    assert crashed.error is not None and "stopped abruptly" in crashed.error
    assert all(r.error is None and len(r.diagnostics) == 2 for r in by_name.values())


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the time limit needs SIGALRM")
@pytest.mark.parametrize("jobs", [1, 2], ids=["in-process", "pool"])
def test_a_file_over_the_time_limit_is_one_error_line_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    from tensorlint.engine import lint, runner

    if jobs > 1 and multiprocessing.get_start_method() != "fork":
        pytest.skip("the hang is injected by patching the module a forked worker inherits")
    source = "import torch\n\n\ndef f(model, x):\n    return model(x.cuda()).numpy()\n"
    for n in range(10):
        (tmp_path / f"m{n:02d}.py").write_text(source, encoding="utf-8")
    (tmp_path / "spin.py").write_text(source + "# spin\n", encoding="utf-8")
    real = lint.lint_source

    def spinning(text: str, *args: Any) -> Any:
        while "# spin" in text:  # as an analysis that never converges would
            pass
        return real(text, *args)

    monkeypatch.setattr(lint, "lint_source", spinning)  # the runner looks it up per file
    monkeypatch.setenv(runner.BUDGET_VARIABLE, "0.5")
    started = time.monotonic()
    results = runner.run(
        [tmp_path], Config(), Settings(enabled=select()), runner.RunOptions(), jobs=jobs
    )
    assert time.monotonic() - started < 30
    by_name = {Path(r.path).name: r for r in results}
    spun = by_name.pop("spin.py")
    assert spun.error is not None and "longer than 0.5 s, the time limit" in spun.error
    assert runner.BUDGET_VARIABLE in spun.error
    assert all(r.error is None and len(r.diagnostics) == 2 for r in by_name.values())
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left behind


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the time limit needs SIGALRM")
def test_the_prefilter_runs_under_the_time_limit_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the prefilter runs in the parent process, before a file goes to a
    # worker: it reads the text, scans it and parses the modules it imports
    from tensorlint.engine import lint, runner

    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "spin.py").write_text("x = 1\n# spin\n", encoding="utf-8")
    real = lint.may_lint

    def spinning(text: str, *args: Any) -> Any:
        deadline = time.monotonic() + 20
        while "# spin" in text and time.monotonic() < deadline:
            pass  # as a scan that is quadratic in the text would
        return real(text, *args)

    monkeypatch.setattr(lint, "may_lint", spinning)  # the runner looks it up per file
    monkeypatch.setenv(runner.BUDGET_VARIABLE, "0.5")
    results = runner.run([tmp_path], Config(), Settings(enabled=select()), runner.RunOptions())
    by_name = {Path(r.path).name: r for r in results}
    spun = by_name["spin.py"]
    assert spun.error is not None and "longer than 0.5 s, the time limit" in spun.error
    assert by_name["clean.py"].error is None and by_name["clean.py"].how == "skipped"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left behind


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no real-time timer on this OS")
def test_a_time_limit_whose_first_expiry_is_swallowed_still_stops_the_block() -> None:
    # Python prints and drops an exception raised while a gc callback or a
    # __del__ runs; the expiry must come again rather than be lost for good
    # (the loops call something: on CPython 3.13.0 an exception a signal
    # handler raises at a bare loop's back jump can miss the ``except``)
    from tensorlint.engine.runner import OverBudget, time_budget

    swallowed = 0
    give_up = time.monotonic() + 10
    with pytest.raises(OverBudget), time_budget(0.05):
        try:
            while time.monotonic() < give_up:
                time.sleep(0.001)
        except OverBudget:
            swallowed += 1  # as a gc callback's exception is
        while time.monotonic() < give_up:
            time.sleep(0.001)
    assert swallowed == 1 and time.monotonic() < give_up
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("", 60.0), ("2.5", 2.5), ("0", 0.0), ("nan", 0.0), ("inf", 0.0), ("x", 60.0)],
)
def test_the_time_limit_per_file_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, seconds: float
) -> None:
    from tensorlint.engine import runner

    monkeypatch.setenv(runner.BUDGET_VARIABLE, value)
    assert runner.file_time_budget() == seconds


def test_the_import_scan_reads_what_its_single_pattern_would() -> None:
    import re

    from tensorlint.engine.imports import from_imports

    # the readable form: quadratic where a ``(`` has no ``)`` after it
    readable = re.compile(r"\n[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)")
    texts = [
        "from a import (b,\n  c as d)\nfrom .x import y; z = 1\n",
        "from a import (b\nfrom c import d\nx = f(1)\n",  # unclosed, a ``)`` later
        "from a import (b\nfrom c import (d\n",  # unclosed, none later
        "from ..m import (a,  # (a comment)\n b)\nfrom . import  \n",
        "  from a.b import c # x\nimport q as r\nfrom\timport import (x)",
    ]
    fixtures = Path(__file__).parent.parent / "fixtures"
    texts += [p.read_text(encoding="utf-8") for p in sorted(fixtures.rglob("*.py"))]
    for text in texts:
        lines = "\n" + text
        expected = [(m.group(1), m.group(2)) for m in readable.finditer(lines)]
        assert list(from_imports(lines)) == expected, text


def test_imported_modules_reads_every_import_form() -> None:
    from tensorlint.engine.imports import imported_modules

    source = (
        "from .models import Net, Head as H\n"
        "from utils import *\n"
        "from . import io\n"
        "import pkg.sub as s, other\n"
        "  import nested  # in a block\n"
        "x = 'from fake import text'\n"
    )
    assert imported_modules(source) == [
        ".models.Net",
        ".models.Head",
        "utils",
        ".io",
        "pkg.sub",
        "other",
        "nested",
    ]


def test_front_ends_count_as_torch_and_other_frameworks_as_not() -> None:
    from tensorlint.engine.imports import imports_other_framework, imports_torch

    assert imports_torch("from ultralytics import YOLO\n")
    assert imports_torch("import numpy as np, pytorch_lightning as pl\n")
    assert not imports_torch("import torchy\nfrom my.torch import x\n")
    assert not imports_torch('"""does not import torch"""\n')
    assert imports_other_framework("import tensorflow as tf\r")
    assert not imports_other_framework("from transformers import TFAutoModel\n")
