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
from types import ModuleType

import pytest
from analysis_helpers import analyze

from tensorlint.analysis import library_table
from tensorlint.analysis.parse import parse_whole
from tensorlint.analysis.syntax import Call, Expr, SimpleStatementLine

ROOT = Path(__file__).resolve().parent.parent
LIBRARIES = ("matplotlib", "sklearn", "pandas", "scipy", "torch")
MISSING = [name for name in LIBRARIES if importlib.util.find_spec(name) is None]
EXAMPLES = [(entry, example) for entry in library_table.FUNCTIONS for example in entry.examples]


def _tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    found = _tool("measure_numpy").measure_call(example, entry.matrix, "meta")
    assert (found.tensor, found.sequence, found.same) == (True, entry.sequence, True)


@pytest.mark.skipif(bool(MISSING) or not _cuda(), reason="needs CUDA and the test extra")
@pytest.mark.parametrize(("entry", "example"), EXAMPLES, ids=[e for _, e in EXAMPLES])
def test_each_example_holds_on_cuda(entry: library_table.LibraryFunction, example: str) -> None:
    found = _tool("measure_numpy").measure_call(example, entry.matrix, "cuda")
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


def test_the_docs_page_is_generated_from_the_table() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_numpy_doc.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
