"""Library calls given torch tensors: plotting, metrics, data frames, statistics.

One source of truth, like ``numpy_table``: TL103 and TL113 read it (which
calls convert which arguments); ``docs/library-functions.md`` is generated
from it (``python tools/gen_numpy_doc.py``); ``tools/measure_numpy.py``
measures every example, and the test suite measures them again against the
installed libraries (skipped, saying so, where one is not installed).

These libraries convert what they are given with ``np.asarray`` (matplotlib's
``plot`` and ``imshow``, scikit-learn's ``check_array``, pandas' constructors,
SciPy's statistics): a tensor reaches ``Tensor.__array__`` and raises there
on CUDA (``TypeError``) and with grad (``RuntimeError``), one level further
down than a NumPy call. Measured on torch 2.13.0, NumPy 2.4.6, matplotlib
3.11.2, scikit-learn 1.9.1, pandas 3.1.1 and SciPy 1.17.1, on the CPU (a
``meta`` tensor for a device other than the CPU).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import NamedTuple, Optional

from tensorlint.analysis import ops, syntax


class LibraryFunction(NamedTuple):
    """One library function, and the arguments it converts."""

    #: the qualified name (``matplotlib.pyplot.plot``; a method of matplotlib's
    #: axes is ``matplotlib.axes.Axes.plot``)
    name: str
    #: one call per converted positional argument, ``{x}`` in its place
    #: (``X``, ``Y``: arrays; ``LABELS``: 0/1 labels; ``AX``: an Axes; ``OUT``: a file)
    examples: tuple[str, ...]
    #: the positional arguments converted
    positions: tuple[int, ...]
    #: the keyword names of converted arguments
    keywords: tuple[str, ...] = ()
    #: every positional argument from the first of ``positions`` on is
    #: converted (``plt.plot(x, y, fmt, x2, y2)``; a string is a format)
    rest: bool = False
    #: measured with a matrix (``imshow``) rather than a vector
    matrix: bool = False
    note: str = ""
    #: a list of tensors (for a vector: of 0-d tensors) raises too
    sequence: bool = True


_PYPLOT = "matplotlib.pyplot"
#: modules that re-export pyplot's functions
_PYPLOT_ALIASES = ("matplotlib.pylab", "pylab")
_AXES = "matplotlib.axes.Axes"

#: matplotlib's plotting functions, on ``pyplot`` and as methods of an Axes:
#: (name, calls with ``{f}`` for the function, positions, keywords, rest, matrix)
_PLOTS: list[tuple[str, tuple[str, ...], tuple[int, ...], tuple[str, ...], bool, bool]] = [
    ("plot", ("{f}({x})", "{f}(X, {x})"), (0, 1), (), True, False),
    ("semilogx", ("{f}({x})", "{f}(X, {x})"), (0, 1), (), True, False),
    ("semilogy", ("{f}({x})", "{f}(X, {x})"), (0, 1), (), True, False),
    ("loglog", ("{f}({x})", "{f}(X, {x})"), (0, 1), (), True, False),
    ("step", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), (), True, False),
    ("stem", ("{f}({x})", "{f}(X, {x})"), (0, 1), (), True, False),
    ("scatter", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), ("x", "y", "s", "c"), False, False),
    ("bar", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), ("x", "height"), False, False),
    ("barh", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), ("y", "width"), False, False),
    ("errorbar", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), ("x", "y", "yerr", "xerr"), False, False),
    (
        "fill_between",
        ("{f}({x}, Y, Y)", "{f}(X, {x}, Y)", "{f}(X, Y, {x})"),
        (0, 1, 2),
        ("x", "y1", "y2"),
        False,
        False,
    ),
    ("hist", ("{f}({x})",), (0,), ("x",), False, False),
    ("pie", ("{f}({x})",), (0,), ("x",), False, False),
    ("hist2d", ("{f}({x}, Y)", "{f}(X, {x})"), (0, 1), ("x", "y"), False, False),
    ("boxplot", ("{f}({x})",), (0,), ("x",), False, False),
    ("violinplot", ("{f}({x})",), (0,), ("dataset",), False, False),
    ("imshow", ("{f}({x})",), (0,), ("X",), False, True),
    ("matshow", ("{f}({x})",), (0,), ("A",), False, True),
    ("contour", ("{f}({x})",), (0,), (), True, True),
    ("contourf", ("{f}({x})",), (0,), (), True, True),
    ("pcolormesh", ("{f}({x})",), (0,), (), True, True),
]

#: scikit-learn's metrics: (name, keywords of the first two arguments)
_METRICS: list[tuple[str, tuple[str, ...]]] = [
    ("accuracy_score", ("y_true", "y_pred")),
    ("balanced_accuracy_score", ("y_true", "y_pred")),
    ("precision_score", ("y_true", "y_pred")),
    ("recall_score", ("y_true", "y_pred")),
    ("f1_score", ("y_true", "y_pred")),
    ("precision_recall_fscore_support", ("y_true", "y_pred")),
    ("confusion_matrix", ("y_true", "y_pred")),
    ("classification_report", ("y_true", "y_pred")),
    ("matthews_corrcoef", ("y_true", "y_pred")),
    ("cohen_kappa_score", ("y1", "y2")),
    ("roc_auc_score", ("y_true", "y_score")),
    ("average_precision_score", ("y_true", "y_score")),
    ("roc_curve", ("y_true", "y_score")),
    ("precision_recall_curve", ("y_true", "y_score")),
    ("log_loss", ("y_true", "y_pred")),
    ("mean_squared_error", ("y_true", "y_pred")),
    ("mean_absolute_error", ("y_true", "y_pred")),
    ("r2_score", ("y_true", "y_pred")),
    ("explained_variance_score", ("y_true", "y_pred")),
    ("adjusted_rand_score", ("labels_true", "labels_pred")),
    ("normalized_mutual_info_score", ("labels_true", "labels_pred")),
]

#: SciPy's statistics: (name, calls, positions, keywords)
_STATS: list[tuple[str, tuple[str, ...], tuple[int, ...], tuple[str, ...]]] = [
    ("pearsonr", ("{f}({x}, X)", "{f}(X, {x})"), (0, 1), ("x", "y")),
    ("spearmanr", ("{f}({x}, X)", "{f}(X, {x})"), (0, 1), ("a", "b")),
    ("kendalltau", ("{f}({x}, X)", "{f}(X, {x})"), (0, 1), ("x", "y")),
    ("linregress", ("{f}({x}, X)", "{f}(X, {x})"), (0, 1), ("x", "y")),
    ("ttest_ind", ("{f}({x}, X)", "{f}(X, {x})"), (0, 1), ("a", "b")),
    ("describe", ("{f}({x})",), (0,), ("a",)),
    ("entropy", ("{f}({x})",), (0,), ("pk",)),
]


#: scikit-learn's estimators: a method of an instance of any class of
#: ``sklearn`` (``TSNE(n_components=2).fit_transform(x)``, ``km = KMeans(3)``
#: then ``km.fit(x)``) validates its data with ``check_array``, which converts
#: with ``np.asarray``: (method, calls with ``{e}`` for a fitted or fresh
#: estimator, positions, keywords). ``M``: a matrix; the rows are named
#: ``sklearn.base.BaseEstimator.<method>``.
ESTIMATOR = "sklearn.base.BaseEstimator"
_PCA = "sklearn.decomposition.PCA(n_components=1)"
_LINEAR = "sklearn.linear_model.LinearRegression()"
_LOGISTIC = "sklearn.linear_model.LogisticRegression()"
_KMEANS = "sklearn.cluster.KMeans(n_clusters=2, n_init=1)"
_MINIBATCH = "sklearn.cluster.MiniBatchKMeans(n_clusters=2, n_init=1)"
_ESTIMATORS: list[tuple[str, tuple[str, ...], tuple[int, ...], tuple[str, ...]]] = [
    ("fit", (f"{_PCA}.fit({{x}})", f"{_LINEAR}.fit(M, {{x}})"), (0, 1), ("X", "y")),
    ("fit_transform", (f"{_PCA}.fit_transform({{x}})",), (0,), ("X",)),
    ("transform", (f"{_PCA}.fit(M).transform({{x}})",), (0,), ("X",)),
    ("inverse_transform",
     ("sklearn.decomposition.PCA().fit(M).inverse_transform({x})",), (0,), ("X",)),
    ("predict", (f"{_LINEAR}.fit(M, Y).predict({{x}})",), (0,), ("X",)),
    ("predict_proba", (f"{_LOGISTIC}.fit(M, LABELS).predict_proba({{x}})",), (0,), ("X",)),
    ("decision_function",
     (f"{_LOGISTIC}.fit(M, LABELS).decision_function({{x}})",), (0,), ("X",)),
    ("score",
     (f"{_LINEAR}.fit(M, Y).score({{x}}, Y)", f"{_LINEAR}.fit(M, M).score(M, {{x}})"),
     (0, 1), ("X", "y")),
    ("fit_predict", (f"{_KMEANS}.fit_predict({{x}})",), (0,), ("X",)),
    ("partial_fit", (f"{_MINIBATCH}.partial_fit({{x}})",), (0,), ("X",)),
]  # fmt: skip
#: the methods above
ESTIMATOR_METHODS = frozenset(name for name, *_ in _ESTIMATORS)
#: methods of an estimator that return the estimator itself
#: (``scaler = StandardScaler().fit(x)`` binds a scaler)
ESTIMATOR_SELF_METHODS = frozenset({"fit", "partial_fit", "set_params"})


def names_estimator(qual: Optional[str]) -> bool:
    """``sklearn.manifold.TSNE``: a class of scikit-learn (named so)."""
    return qual is not None and qual.startswith("sklearn.") and qual.rsplit(".", 1)[1][:1].isupper()


#: plots that read a list of 0-d tensors element by element (``Tensor.item()``),
#: not through ``__array__``
_ITEMWISE = frozenset({"stem", "scatter", "bar", "barh", "fill_between"})
_ITEMWISE_NOTE = "a list of 0-d tensors is read with `Tensor.item()`, not converted"


def _rows() -> list[LibraryFunction]:
    rows: list[LibraryFunction] = []
    for name, calls, positions, keywords, rest, matrix in _PLOTS:
        itemwise = name in _ITEMWISE
        for owner, f in ((_PYPLOT, f"plt.{name}"), (_AXES, f"AX.{name}")):
            examples = tuple(c.replace("{f}", f) for c in calls)
            rows.append(
                LibraryFunction(
                    f"{owner}.{name}",
                    examples,
                    positions,
                    keywords,
                    rest,
                    matrix,
                    note=_ITEMWISE_NOTE if itemwise else "",
                    sequence=not itemwise,
                )
            )
    rows.append(
        LibraryFunction(
            f"{_PYPLOT}.imsave",
            ("plt.imsave(OUT, {x})",),
            (1,),
            ("arr",),
            matrix=True,
            note="the image is the second argument",
        )
    )
    for name, keywords in _METRICS:
        f = f"sklearn.metrics.{name}"
        examples = (f"{f}({{x}}, LABELS)", f"{f}(LABELS, {{x}})")
        rows.append(LibraryFunction(f, examples, (0, 1), keywords))
    rows.append(
        LibraryFunction(
            "sklearn.metrics.auc",
            ("sklearn.metrics.auc(X, {x})",),
            (1,),
            ("y",),
            note="`x` too, which must be monotonic (not measured here)",
        )
    )
    rows.append(
        LibraryFunction(
            "sklearn.metrics.silhouette_score",
            ("sklearn.metrics.silhouette_score({x}, LABELS)",),
            (0,),
            ("X",),
            matrix=True,
        )
    )
    for name in ("DataFrame", "Series"):
        rows.append(
            LibraryFunction(
                f"pandas.{name}",
                (f"pandas.{name}({{x}})",),
                (0,),
                ("data",),
                matrix=name == "DataFrame",
                sequence=False,
                note="a list of tensors is kept as objects, not converted",
            )
        )
    for name, calls, positions, keywords in _STATS:
        f = f"scipy.stats.{name}"
        rows.append(
            LibraryFunction(f, tuple(c.replace("{f}", f) for c in calls), positions, keywords)
        )
    for name, calls, positions, keywords in _ESTIMATORS:
        rows.append(
            LibraryFunction(
                f"{ESTIMATOR}.{name}",
                calls,
                positions,
                keywords,
                matrix=True,
                note="a method of an instance of a scikit-learn class",
            )
        )
    return rows


FUNCTIONS: tuple[LibraryFunction, ...] = tuple(_rows())


def converted_arguments(
    entry: LibraryFunction, call: syntax.Call
) -> Iterator[syntax.BaseExpression]:
    """The arguments of ``call`` that ``entry`` says are converted, in order."""
    first = min(entry.positions, default=0)
    position = 0
    for arg in call.args:
        if arg.star:  # ``*args``, ``**kwargs``: positions after it are not known
            if arg.star == "*":
                position = -1
            continue
        if arg.keyword is not None:
            if arg.keyword.value in entry.keywords:
                yield arg.value
            continue
        if position < 0:
            continue
        wanted = position in entry.positions or (entry.rest and position >= first)
        if wanted and not isinstance(arg.value, syntax.BaseString):  # ``plt.plot(x, "r-")``
            yield arg.value
        position += 1


#: qualified name -> its row
BY_NAME = {entry.name: entry for entry in FUNCTIONS}

_ENTRY = re.compile(
    r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?::(?P<args>(?:\d+|[A-Za-z_]\w*)"
    r"(?:,(?:\d+|[A-Za-z_]\w*))*))?"
)


def parse_entry(text: str) -> Optional[LibraryFunction]:
    """A configured call (``extend-converting-calls``): ``"pkg.viz.show"``
    converts its first argument; ``"pkg.viz.show:0,2,image"`` the arguments
    at positions 0 and 2 and the keyword ``image``. None when malformed."""
    match = _ENTRY.fullmatch(text.replace(" ", ""))
    if match is None:
        return None
    parts = (match.group("args") or "0").split(",")
    positions = tuple(sorted({int(p) for p in parts if p.isdigit()}))
    keywords = tuple(p for p in parts if not p.isdigit())
    return LibraryFunction(match.group("name"), (), positions, keywords, note="configured")


class CallTable(NamedTuple):
    """The calls a run looks for: the measured table and the configured ones."""

    by_name: dict[str, LibraryFunction]
    #: first parts of the names (the packages an import must name)
    packages: frozenset[str]
    #: last parts of the names
    call_names: frozenset[str]


@functools.lru_cache(maxsize=64)
def table_with(configured: tuple[str, ...] = ()) -> CallTable:
    """The measured table, with ``configured`` entries added (they win)."""
    by_name = dict(BY_NAME)
    for row in FUNCTIONS:  # ``matplotlib.pylab`` and ``pylab`` re-export pyplot
        if row.name.startswith(f"{_PYPLOT}."):
            attr = row.name[len(_PYPLOT) + 1 :]
            for alias in _PYPLOT_ALIASES:
                by_name[f"{alias}.{attr}"] = row._replace(name=f"{alias}.{attr}")
    for text in configured:
        entry = parse_entry(text)
        if entry is not None:
            by_name[entry.name] = entry
    return CallTable(
        by_name,
        frozenset(name.split(".", 1)[0] for name in by_name),
        frozenset(name.rsplit(".", 1)[1] for name in by_name),
    )


_MEASURED = table_with()
#: the packages whose functions are in the table
PACKAGES = _MEASURED.packages

#: the front ends whose star-import binds one of those packages
#: (``from fastai.vision.all import *`` binds ``plt``: ``ops.STAR_IMPORT_EXPORTS``)
EXPORTED_BY = frozenset(
    front
    for front, names in ops.STAR_IMPORT_EXPORTS.items()
    if any(full.split(".", 1)[0] in PACKAGES for full in names.values())
)

#: an import of one of those packages, or of a front end that binds one, on a
#: line of its own (the prefilter: their calls count only in a file that has one)
IMPORT_PATTERN = (
    r"^[ \t]*(?:import|from)[ \t]+(?:" + "|".join(sorted(PACKAGES | EXPORTED_BY)) + r")\b"
)

#: the last part of each function's name (``plot``, ``accuracy_score``)
CALL_NAMES = _MEASURED.call_names

#: methods of matplotlib's axes in the table (``ax.imshow``)
AXES_METHODS = frozenset(
    entry.name.rsplit(".", 1)[1] for entry in FUNCTIONS if entry.name.startswith(f"{_AXES}.")
)

#: calls that return an Axes (``plt.gca()``, ``fig.add_subplot(...)``);
#: ``plt.subplots()`` returns the figure and the axes (an Axes, or an array of them)
AXES_FUNCTIONS = frozenset(
    {f"{_PYPLOT}.gca", f"{_PYPLOT}.subplot", f"{_PYPLOT}.axes", f"{_PYPLOT}.subplot2grid"}
)
#: methods that return an Axes whatever their receiver's name (a Figure's)
AXES_MAKING_METHODS = frozenset({"add_subplot", "add_axes", "gca", "subplots"})
#: ``plt.subplots()``: (figure, axes)
SUBPLOTS = f"{_PYPLOT}.subplots"
#: annotations that make a parameter an Axes
AXES_TYPES = frozenset({_AXES, f"{_PYPLOT}.Axes", "matplotlib.axes._axes.Axes"})

__all__ = [
    "AXES_FUNCTIONS",
    "AXES_MAKING_METHODS",
    "AXES_METHODS",
    "AXES_TYPES",
    "BY_NAME",
    "CALL_NAMES",
    "ESTIMATOR",
    "ESTIMATOR_METHODS",
    "ESTIMATOR_SELF_METHODS",
    "FUNCTIONS",
    "IMPORT_PATTERN",
    "PACKAGES",
    "SUBPLOTS",
    "CallTable",
    "LibraryFunction",
    "converted_arguments",
    "names_estimator",
    "parse_entry",
    "table_with",
]
