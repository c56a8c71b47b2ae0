"""Library calls that convert a tensor argument (matplotlib, scikit-learn,
pandas, SciPy): the measured table, which calls are found, which arguments
are converted.

``tensorlint/analysis/library_table.py`` says which arguments of each call
reach ``Tensor.__array__``. The measurement tests run every example against
the installed libraries: on a tensor that requires grad, on a ``meta``
tensor (the CPU stand-in for CUDA) and, on a machine with CUDA, on CUDA.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from analysis_helpers import analyze
from repo_tools import load_tool

from tensorlint.analysis import library_table
from tensorlint.analysis.parse import parse_whole
from tensorlint.analysis.syntax import Call, Expr, SimpleStatementLine

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ("matplotlib", "sklearn", "pandas", "scipy", "torch")
MISSING = [name for name in LIBRARIES if importlib.util.find_spec(name) is None]
EXAMPLES = [(entry, example) for entry in library_table.FUNCTIONS for example in entry.examples]


def _cuda() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.skipif(bool(MISSING), reason=f"measured with {', '.join(MISSING)} (test extra)")
@pytest.mark.parametrize(("entry", "example"), EXAMPLES, ids=[e for _, e in EXAMPLES])
def test_each_example_is_what_the_installed_versions_do(
    entry: library_table.LibraryFunction, example: str
) -> None:
    found = load_tool("measure_numpy").measure_call(example, entry.matrix, "meta")
    assert (found.tensor, found.sequence, found.same) == (True, entry.sequence, True)


@pytest.mark.skipif(bool(MISSING) or not _cuda(), reason="needs CUDA and the test extra")
@pytest.mark.parametrize(("entry", "example"), EXAMPLES, ids=[e for _, e in EXAMPLES])
def test_each_example_holds_on_cuda(entry: library_table.LibraryFunction, example: str) -> None:
    found = load_tool("measure_numpy").measure_call(example, entry.matrix, "cuda")
    assert found.tensor


def test_every_example_calls_its_function_once_per_converted_position() -> None:
    for entry in library_table.FUNCTIONS:
        last = entry.name.rsplit(".", 1)[1]
        assert len(entry.examples) == len(entry.positions), entry.name
        for example, position in zip(entry.examples, entry.positions):
            assert f"{last}(" in example, entry.name
            inside = example.split(f"{last}(", 1)[1]
            assert inside.split(", ")[position].startswith("{x}"), (entry.name, example)


def _arguments(code: str, name: str) -> list[str]:
    analysis = analyze(code)
    statement = parse_whole(code).body[0]
    assert isinstance(statement, SimpleStatementLine)
    expr = statement.body[0]
    assert isinstance(expr, Expr) and isinstance(expr.value, Call)
    entry = library_table.BY_NAME[name]
    return [analysis.code(a) for a in library_table.converted_arguments(entry, expr.value)]


@pytest.mark.parametrize(
    ("code", "name", "expected"),
    [
        ("plt.plot(x, y, 'r-', x2, y2)\n", "matplotlib.pyplot.plot", ["x", "y", "x2", "y2"]),
        ("plt.scatter(x, y, c=cs, label=l)\n", "matplotlib.pyplot.scatter", ["x", "y", "cs"]),
        ("plt.imsave(path, image)\n", "matplotlib.pyplot.imsave", ["image"]),
        ("f1_score(y_true=a, y_pred=b, average=m)\n", "sklearn.metrics.f1_score", ["a", "b"]),
        ("ax.bar(*args, height=h)\n", "matplotlib.axes.Axes.bar", ["h"]),
        ("pd.DataFrame(t, columns=c)\n", "pandas.DataFrame", ["t"]),
    ],
)
def test_the_converted_arguments(code: str, name: str, expected: list[str]) -> None:
    assert _arguments(code, name) == expected


def _library_sites(code: str) -> list[tuple[str, str]]:
    analysis = analyze(code)
    return [
        (analysis.code(s.node.func).strip(), s.qualname or "")  # type: ignore[attr-defined]
        for s in analysis.sites()
        if s.kind == "library_function"
    ]


def test_calls_are_found_through_every_import_spelling() -> None:
    code = """
        import matplotlib.pyplot as plt
        from matplotlib import pyplot
        import pandas as pd
        import scipy.stats
        from sklearn import metrics
        from sklearn.metrics import roc_auc_score as auc_of

        def f(t):
            plt.plot(t)
            pyplot.hist(t)
            pd.Series(t)
            scipy.stats.pearsonr(t, t)
            metrics.accuracy_score(t, t)
            auc_of(t, t)
        """
    assert _library_sites(code) == [
        ("plt.plot", "matplotlib.pyplot.plot"),
        ("pyplot.hist", "matplotlib.pyplot.hist"),
        ("pd.Series", "pandas.Series"),
        ("scipy.stats.pearsonr", "scipy.stats.pearsonr"),
        ("metrics.accuracy_score", "sklearn.metrics.accuracy_score"),
        ("auc_of", "sklearn.metrics.roc_auc_score"),
    ]


def test_axes_methods_need_a_receiver_shown_to_be_an_axes() -> None:
    code = """
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots()
        fig2, grid = plt.subplots(2, 2)

        def f(t, other, given: plt.Axes):
            ax.imshow(t)
            grid[0, 1].hist(t)
            for cell in grid.flat:
                cell.plot(t)
            for i, cell2 in enumerate(grid.ravel()):
                cell2.bar(t, t)
            made = fig.add_subplot(1, 2, 1)
            made.scatter(t, t)
            given.matshow(t)
            other.plot(t)
            plt.gca().plot(t)
        """
    assert [s[0] for s in _library_sites(code)] == [
        "ax.imshow",
        "grid[0, 1].hist",
        "cell.plot",
        "cell2.bar",
        "made.scatter",
        "given.matshow",
    ]


def test_same_names_from_other_packages_are_not_library_calls() -> None:
    code = """
        import seaborn as sns
        from mylib.metrics import accuracy_score
        import matplotlib.pyplot as plt

        def f(t, logger):
            sns.histplot(t)
            accuracy_score(t, t)
            logger.plot(t)
            plt.title(t)
        """
    assert _library_sites(code) == []


def test_the_docs_pages_are_generated_from_the_tables() -> None:
    """docs/numpy-functions.md and docs/library-functions.md (no torch needed)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_numpy_doc.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tensorlint", "check", "--no-cache", "--output-format",
         "concise", *args],
        cwd=folder, capture_output=True, text=True, check=False,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


CONFIGURED = """\
import torch
from vizkit import show_image
from vizkit.grid import save_grid


def render():
    t = torch.randn(3, 8, 8, device="cuda")
    show_image(t)
    save_grid("grid.png", t)
    save_grid(t, "grid.png")
    save_grid("grid.png", tensor=t)
"""


def test_configured_calls_are_reported_like_the_measured_ones(tmp_path: Path) -> None:
    (tmp_path / "render.py").write_text(CONFIGURED, encoding="utf-8")
    silent = _check(tmp_path)
    assert silent.returncode == 0 and "TL103" not in silent.stdout, silent.stdout
    (tmp_path / "pyproject.toml").write_text(
        "[tool.tensorlint]\n"
        'extend-converting-calls = ["vizkit.show_image", "vizkit.grid.save_grid:1,tensor"]\n',
        encoding="utf-8",
    )
    found = _check(tmp_path)
    lines = [line.split(" TL103 ")[0] for line in found.stdout.splitlines() if " TL103 " in line]
    # the first argument of show_image; position 1 and ``tensor=`` of save_grid
    assert lines == ["render.py:8:5:", "render.py:9:5:", "render.py:11:5:"], found.stdout


@pytest.mark.parametrize("entry", ["vizkit", "vizkit.show:", "vizkit.show:0,,1", "1pkg.f"])
def test_a_malformed_configured_call_is_a_one_line_error(tmp_path: Path, entry: str) -> None:
    (tmp_path / "render.py").write_text(CONFIGURED, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.tensorlint]\nextend-converting-calls = ["{entry}"]\n', encoding="utf-8"
    )
    result = _check(tmp_path)
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if "extend-converting-calls" in line]
    assert len(errors) == 1 and repr(entry) in errors[0], result.stderr
    assert "Traceback" not in result.stderr


def test_parse_entry() -> None:
    entry = library_table.parse_entry("pkg.viz.show:2,0,image")
    assert entry is not None
    assert (entry.name, entry.positions, entry.keywords) == ("pkg.viz.show", (0, 2), ("image",))
    first = library_table.parse_entry("pkg.show")
    assert first is not None and (first.positions, first.keywords) == ((0,), ())
    assert library_table.parse_entry("show") is None  # a bare name: no module to import it from


def test_library_triggers_count_only_in_a_file_importing_a_library() -> None:
    from tensorlint.engine.lint import plan_for
    from tensorlint.registry import select
    from tensorlint.rule import Settings

    plan = plan_for(Settings(enabled=select(strict=True)))
    training = "import torch\n\ndef train(opt, sched):\n    opt.step()\n    sched.step()\n"
    assert not plan.may_match(training, Settings())  # ``step(`` alone: every optimizer's
    plotting = "import torch\nimport matplotlib.pyplot as plt\n\ndef f(t):\n    plt.step(t, t)\n"
    assert plan.may_match(plotting, Settings())
    assert plan.blocks_for(plotting).search("plt.step(t, t)")
    assert not plan.blocks_for(training).search("sched.step()")
