"""One pass over a module: scopes, imports and the candidate conversion sites.

This is the only full walk of the tree. Everything the rules need later is
computed per function, and only for functions that hold a candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, Optional, cast

from tensorlint.analysis import library_table, ops, syntax
from tensorlint.analysis.callers import CallSite
from tensorlint.analysis.names import (
    Scope,
    ScopeBuilder,
    _is_import_error_handler,
    dotted_name,
    qualified_name,
    raises_always,
    target_names,
    through_module_methods,
)
from tensorlint.analysis.walk import NO_ANCESTORS, Ancestors, children

#: The last name of a call's function that may make it a conversion site.
CANDIDATE_CALL_NAMES = frozenset(
    name.rsplit(".", 1)[1] for name in ops.ARRAY_TO_TENSOR_FUNCS | ops.NUMPY_ARRAY_CTORS
)
#: the other NumPy functions that convert a tensor argument (``np.mean``,
#: ``np.stack``): candidates when called on a name bound to NumPy
NUMPY_CALL_NAMES = (
    frozenset(name.rsplit(".", 1)[1] for name in ops.NUMPY_CONVERTING_FUNCS) - CANDIDATE_CALL_NAMES
)
#: NumPy's submodules of the measured table's functions (``linalg``, ``char``)
NUMPY_SUBMODULES = frozenset(
    name.split(".")[1] for name in ops.NUMPY_CONVERTING_FUNCS if name.count(".") == 2
)


class Candidate(NamedTuple):
    """A node a rule may want to look at, with its ancestors (outermost first)."""

    node: syntax.CSTNode
    #: "numpy" (a ``.numpy()`` call), "call" (by function name), "npcall" (a
    #: NumPy function that converts a tensor argument: ``np.mean``), "libcall"
    #: (a library's: ``plt.plot``), "axescall" (a method of a matplotlib Axes:
    #: ``ax.imshow``), "estcall" (a method of a scikit-learn estimator:
    #: ``TSNE(2).fit_transform(x)``), "data", "store" (an assignment into a subscript of a
    #: name, in a file that imports NumPy: ``preds[i] = out``)
    kind: str
    ancestors: Ancestors
    scope: Scope


class ModuleIndex:
    def __init__(
        self,
        local_functions: frozenset[str] = frozenset(),
        helpers: frozenset[str] = frozenset(),
        calls: Optional[library_table.CallTable] = None,
        star_names: Optional[Callable[[str], Mapping[str, str]]] = None,
    ) -> None:
        #: names (or dotted names) of functions that return an alias of an argument
        self.helpers = helpers
        #: the library calls that convert their arguments
        self.library = calls if calls is not None else library_table.table_with()
        #: names of the functions defined in the file, and the calls of them
        self.local_functions = local_functions
        self.calls: list[CallSite] = []
        #: ``f = lambda ...``: the lambda's id -> ``f``
        self.lambda_names: dict[int, str] = {}
        #: ``map(lambda ..., xs)``: the lambda's id -> the ``map`` call
        self.lambda_maps: dict[int, CallSite] = {}
        #: ``map(f, xs)`` of a function ``f`` defined in the file, by its name:
        #: ``f`` is called with each element of ``xs``
        self.function_maps: dict[str, list[CallSite]] = {}
        self.stack: list[syntax.CSTNode] = []
        #: how many blocks around the walk's node ended before it (then it never runs)
        self.unreachable = 0
        #: the ancestors of each node of ``stack`` recorded so far (shared by sites)
        self.paths: list[Ancestors] = []
        self.scopes: dict[syntax.CSTNode, Scope] = {}
        self.scope_stack: list[Scope] = []
        self.candidates: list[Candidate] = []
        self.builder = ScopeBuilder(star_names)
        #: ``agent = RNDAgent``, a name's first binding to a class (as written),
        #: by (scope, name): ``agent = agent(...)`` then makes an instance of it
        self._class_aliases: dict[tuple[int, str], str] = {}
        self.imported: set[str] = set()
        #: local names imported under another name for a candidate function
        self.aliases: set[str] = set()
        #: local names bound to NumPy or one of its modules (``np``, ``la``)
        self.numpy_names: set[str] = set()
        #: local names imported from NumPy for the other converting functions
        self.numpy_aliases: set[str] = set()
        #: local names bound to a package of ``library_table`` or one of its
        #: modules (``plt``, ``metrics``), and names imported for its functions
        self.library_names: set[str] = set()
        self.library_aliases: set[str] = set()
        #: per scope: names bound to a matplotlib Axes or an array of them
        #: (``fig, ax = plt.subplots()``, ``ax = fig.add_subplot()``)
        self.axes_names: dict[Scope, set[str]] = {}

    # -- results -------------------------------------------------------------

    @property
    def imports_torch(self) -> bool:
        """Does the module import torch, or a package built on torch only?"""
        return any(
            q.split(".")[0] == "torch" or q.split(".")[0] in ops.TORCH_FRONT_ENDS
            for q in self.imported
        )

    @property
    def imports_torch_itself(self) -> bool:
        """Does the module import the ``torch`` package (not only a front end)?"""
        return any(q.split(".")[0] == "torch" for q in self.imported)

    @property
    def other_frameworks(self) -> frozenset[str]:
        return frozenset(q.split(".")[0] for q in self.imported if ops.is_other_framework(q))

    # -- the walk ------------------------------------------------------------

    def _push_scope(self, kind: str, node: syntax.CSTNode) -> Scope:
        parent = self.scope_stack[-1] if self.scope_stack else None
        scope = Scope(kind, node, parent)  # type: ignore[arg-type]
        self.scopes[node] = scope
        self.scope_stack.append(scope)
        return scope

    def walk(self, node: syntax.CSTNode) -> None:
        self.on_visit(node)
        self.stack.append(node)
        # (``@pytest.mark.skip``: its body never runs)
        skipped = type(node) in _DECORATED and _always_skipped(node)
        self.unreachable += skipped
        ended = False  # (a statement before ended the block: ``return``, ``raise``)
        for child in children(node):
            self.unreachable += ended
            self.walk(child)
            self.unreachable -= ended
            ended = ended or (type(child) is syntax.SimpleStatementLine and _ends_block(child))
        self.unreachable -= skipped
        self.stack.pop()
        if len(self.paths) > len(self.stack):
            self.paths.pop()
        self.on_leave(node)

    def on_visit(self, node: syntax.CSTNode) -> None:
        if type(node) in _PASSIVE:
            return
        if isinstance(node, syntax.Call):
            func = node.func
            if isinstance(func, syntax.Attribute):
                name = func.attr.value
                if name == "numpy":
                    self._candidate(node, "numpy")
                elif name in CANDIDATE_CALL_NAMES:
                    self._candidate(node, "call")
                elif name in NUMPY_CALL_NAMES and _root_name(func.value) in self.numpy_names:
                    self._candidate(node, "npcall")
                elif name in self.library.call_names and self.library_names:
                    if _root_name(func.value) in self.library_names:
                        self._candidate(node, "libcall")
                    elif name in library_table.AXES_METHODS and self._is_axes(func.value):
                        self._candidate(node, "axescall")
                    elif name in library_table.ESTIMATOR_METHODS and self._is_estimator(func.value):
                        self._candidate(node, "estcall")
            elif isinstance(func, syntax.Name):
                if func.value in CANDIDATE_CALL_NAMES or func.value in self.aliases:
                    self._candidate(node, "call")
                elif func.value in self.numpy_aliases:
                    self._candidate(node, "npcall")
                elif func.value in self.library_aliases:
                    self._candidate(node, "libcall")
            if self.helpers and _called_name(func) in self.helpers:
                self._candidate(node, "helper")
            if self.local_functions:
                self._local_call(node)
        elif isinstance(node, syntax.Attribute):
            if node.attr.value == "data":
                self._candidate(node, "data")
        elif isinstance(node, syntax.Name):
            pass
        elif isinstance(
            node, (syntax.Assign, syntax.AugAssign, syntax.AnnAssign, syntax.For, syntax.NamedExpr)
        ):
            self._bind_statement(node)
            if type(node) is syntax.Assign and self.numpy_names and _stores_by_name(node):
                self._candidate(node, "store")  # ``preds[i] = out`` (``stores.py``)
        elif isinstance(node, syntax.FunctionDef):
            self.builder.bind(self.scope_stack[-1], node.name.value)
            scope = self._push_scope("function", node)
            self._bind_params(scope, node.params)
        elif isinstance(node, syntax.Lambda):
            self._lambda_use(node)
            scope = self._push_scope("lambda", node)
            self._bind_params(scope, node.params)
        elif isinstance(node, syntax.ClassDef):
            self.builder.bind(self.scope_stack[-1], node.name.value)
            self._push_scope("class", node)
        elif isinstance(node, syntax.Module):
            self._push_scope("module", node)
        elif isinstance(node, (syntax.Import, syntax.ImportFrom)):
            scope = self.scope_stack[-1]
            before = {k: set(v) for k, v in scope.bindings.items()}
            self.builder.bind_import(scope, node)
            for name, values in scope.bindings.items():
                for value in values - before.get(name, set()):
                    if value:
                        self._imported(name, value)
        elif isinstance(node, syntax.WithItem):
            if node.asname is not None:
                self.builder.bind_target(self.scope_stack[-1], node.asname.name)
        elif isinstance(node, syntax.ExceptStarHandler):
            if node.name is not None:
                self.builder.bind_target(self.scope_stack[-1], node.name.name)
        elif isinstance(node, syntax.ExceptHandler):
            if node.name is not None:
                self.builder.bind_target(self.scope_stack[-1], node.name.name)
            if _is_import_error_handler(node):
                self.builder.fallback_depth += 1
        elif isinstance(node, syntax.Global):
            self.scope_stack[-1].global_names.update(n.name.value for n in node.names)
        elif isinstance(node, syntax.CompFor):
            self.builder.bind_target(self.scope_stack[-1], node.target)

    def on_leave(self, original_node: syntax.CSTNode) -> None:
        # exact types (LibCST's node classes are final): ``isinstance`` against
        # LibCST's ABC-based classes costs a metaclass call per node
        kind = type(original_node)
        if kind in _SCOPES:
            self.scope_stack.pop()
        elif kind is syntax.ExceptHandler and _is_import_error_handler(
            cast(syntax.ExceptHandler, original_node)
        ):
            self.builder.fallback_depth -= 1

    def _lambda_use(self, node: syntax.Lambda) -> None:
        """Where a lambda's arguments come from, when the code shows it:
        ``f = lambda t: ...`` (then ``f(x)`` calls), or ``map(lambda t: ...,
        xs)`` (the elements of ``xs``)."""
        parent = self.stack[-1] if self.stack else None
        if (
            isinstance(parent, syntax.Assign)
            and parent.value is node
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, syntax.Name)
        ):
            self.lambda_names[id(node)] = parent.targets[0].target.value
        elif isinstance(parent, syntax.Arg) and len(self.stack) >= 2:
            call = self.stack[-2]
            if (
                isinstance(call, syntax.Call)
                and isinstance(call.func, syntax.Name)
                and call.func.value == "map"
                and len(call.args) == 2
                and call.args[0] is parent
                and not any(a.star or a.keyword for a in call.args)
            ):
                ancestors = self._ancestors()[:-2]  # (the call's: above the call and the arg)
                self.lambda_maps[id(node)] = CallSite(call, ancestors, self.scope_stack[-1])

    def _local_call(self, node: syntax.Call) -> None:
        func = node.func
        if (
            isinstance(func, syntax.Name)
            and func.value == "map"
            and len(node.args) == 2
            and not any(a.star or a.keyword for a in node.args)
            and isinstance(node.args[0].value, syntax.Name)
            and node.args[0].value.value in self.local_functions
            and not self.unreachable
        ):
            mapped = node.args[0].value.value
            site = CallSite(node, self._ancestors(), self.scope_stack[-1])
            self.function_maps.setdefault(mapped, []).append(site)
        if isinstance(func, syntax.Name):
            name = func.value
        elif isinstance(func, syntax.Attribute) and isinstance(func.value, syntax.Name):
            name = func.attr.value
        else:
            return
        if name in self.local_functions and not self.unreachable:
            self.calls.append(CallSite(node, self._ancestors(), self.scope_stack[-1]))

    def _candidate(self, node: syntax.CSTNode, kind: str) -> None:
        if not self.unreachable:  # (code after ``return`` or ``assert False`` never runs)
            self.candidates.append(Candidate(node, kind, self._ancestors(), self.scope_stack[-1]))

    def _ancestors(self) -> Ancestors:
        """``stack`` as ancestors, sharing the part other sites recorded."""
        paths = self.paths
        for node in self.stack[len(paths) :]:
            paths.append((paths[-1] if paths else NO_ANCESTORS).below(node))
        return paths[-1] if paths else NO_ANCESTORS

    def _imported(self, name: str, value: str) -> None:
        """``name`` is bound to the module or name ``value`` by an import."""
        self.imported.add(value)
        if value.rsplit(".", 1)[-1] in CANDIDATE_CALL_NAMES:
            self.aliases.add(name)
        elif value in ops.NUMPY_CONVERTING_FUNCS:
            self.numpy_aliases.add(name)
        elif value == "numpy" or value.startswith("numpy."):
            self.numpy_names.add(name)
        elif value in self.library.by_name:
            self.library_aliases.add(name)
        elif value.split(".", 1)[0] in self.library.packages:
            self.library_names.add(name)

    def _bind_statement(
        self,
        node: syntax.Assign | syntax.AugAssign | syntax.AnnAssign | syntax.For | syntax.NamedExpr,
    ) -> None:
        scope = self.scope_stack[-1]
        if isinstance(node, syntax.Assign):
            first = node.targets[0].target
            fresh = isinstance(first, syntax.Name) and first.value not in scope.bindings
            # ``model = model.to(device)``: still the instance it was
            kept = None
            if (
                isinstance(first, syntax.Name)
                and len(node.targets) == 1
                and _module_itself(node.value) == first.value
            ):
                kept = scope.instances.get(first.value)
            lazy = _lazy_import(node)
            if lazy is not None:
                # ``tf = importlib.import_module("tensorflow")``: as ``import``
                assert isinstance(first, syntax.Name)
                self.builder.bind(scope, first.value, lazy)
                self._imported(first.value, lazy)
                return
            for target in node.targets:
                self.builder.bind_target(scope, target.target)
                if self.library_names:
                    self._bind_axes(scope, target.target, node.value)
            if fresh and len(node.targets) == 1:
                assert isinstance(first, syntax.Name)
                self.builder.bind_instance(scope, first.value, node.value)
                named = dotted_name(node.value)
                if named is not None and named.rsplit(".", 1)[-1][:1].isupper():
                    self._class_aliases[(id(scope), first.value)] = named
            elif kept is not None:
                assert isinstance(first, syntax.Name)
                scope.instances[first.value] = kept
            elif isinstance(first, syntax.Name) and len(node.targets) == 1:
                # ``agent = RNDAgent``, then ``agent = agent(...)``: an instance of it
                alias = self._class_aliases.pop((id(scope), first.value), None)
                value = through_module_methods(node.value)
                if (
                    alias is not None
                    and isinstance(value, syntax.Call)
                    and isinstance(value.func, syntax.Name)
                    and value.func.value == first.value
                ):
                    scope.instances[first.value] = alias
        elif isinstance(node, (syntax.AugAssign, syntax.AnnAssign, syntax.For, syntax.NamedExpr)):
            self.builder.bind_target(scope, node.target)
            if self.library_names and isinstance(node, syntax.For):
                self._bind_axes_loop(scope, node.target, node.iter)

    # -- scikit-learn's estimators --------------------------------------------

    def _is_estimator(self, node: syntax.BaseExpression) -> bool:
        """Is ``node`` an instance of a scikit-learn class: made right there
        (``TSNE(n_components=2)``) or bound once to one in the scope that
        binds the name (``km = KMeans(3)``)?"""
        here = self.scope_stack[-1]
        if isinstance(node, syntax.Call):
            return library_table.names_estimator(qualified_name(node.func, here))
        if not isinstance(node, syntax.Name):
            return False
        scope = here.binding_scope(node.value)
        called = scope.instances.get(node.value) if scope is not None else None
        if scope is None or called is None:
            return False
        head, _, rest = called.partition(".")
        qual = scope.resolve(head)
        return library_table.names_estimator(f"{qual}.{rest}" if qual and rest else qual)

    # -- matplotlib's axes ---------------------------------------------------

    def _is_axes(self, node: syntax.BaseExpression) -> bool:
        """Is ``node`` an Axes, or an element of an array of them, as far as
        the assignments seen so far say (``ax``, ``axes[0, 1]``, ``axs.flat[i]``)?"""
        name = _axes_root(node)
        if not name:
            return False
        scope: Optional[Scope] = self.scope_stack[-1]
        while scope is not None:
            if name in scope.bindings or name in scope.params:
                return name in self.axes_names.get(scope, ())
            scope = scope.parent
        return False

    def _bind_axes(
        self, scope: Scope, target: syntax.BaseExpression, value: syntax.BaseExpression
    ) -> None:
        names = self.axes_names.setdefault(scope, set())
        if isinstance(value, syntax.Call):
            func = value.func
            qual = qualified_name(func, scope)
            if qual == library_table.SUBPLOTS:  # ``fig, ax = plt.subplots()``
                if isinstance(target, (syntax.Tuple, syntax.List)) and len(target.elements) == 2:
                    names.update(target_names(target.elements[1].value))
                return
            making = qual in library_table.AXES_FUNCTIONS or (
                qual is None
                and isinstance(func, syntax.Attribute)
                and func.attr.value in library_table.AXES_MAKING_METHODS
            )
            if not making and not self._is_axes(value):  # ``axes.ravel()``
                return
        elif not self._is_axes(value):  # ``ax = axes[0]``
            return
        if isinstance(target, syntax.Name):
            names.add(target.value)

    def _bind_axes_loop(
        self, scope: Scope, target: syntax.BaseExpression, iterable: syntax.BaseExpression
    ) -> None:
        """``for ax in axes.flat``, ``for i, ax in enumerate(axes)``."""
        if (
            isinstance(iterable, syntax.Call)
            and isinstance(iterable.func, syntax.Name)
            and iterable.func.value == "enumerate"
            and iterable.args
            and isinstance(target, syntax.Tuple)
            and len(target.elements) == 2
        ):
            iterable, target = iterable.args[0].value, target.elements[1].value
        if self._is_axes(iterable) and isinstance(target, syntax.Name):
            self.axes_names.setdefault(scope, set()).add(target.value)

    def _bind_params(self, scope: Scope, params: syntax.Parameters) -> None:
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        for param in every:
            scope.bind(param.name.value)
            annotation = param.annotation.annotation if param.annotation is not None else None
            scope.params[param.name.value] = annotation
            if annotation is not None and self.library_names:
                qual = qualified_name(annotation, scope)
                if qual in library_table.AXES_TYPES:  # ``ax: plt.Axes``
                    self.axes_names.setdefault(scope, set()).add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, syntax.Param):
                scope.bind(star.name.value)
                scope.params[star.name.value] = None


#: Node types the index has nothing to do for (most of a tree): skipping them
#: early avoids a dozen slow ``isinstance`` checks against LibCST's ABCs.
_PASSIVE = frozenset(
    getattr(syntax, name)
    for name in """
Name Integer Float SimpleString FormattedString FormattedStringText
FormattedStringExpression ConcatenatedString Arg Param Parameters SimpleStatementLine
IndentedBlock Expr BinaryOperation Comparison ComparisonTarget Subscript
SubscriptElement Index Slice Element DictElement Dict List Tuple Return If Else
UnaryOperation BooleanOperation Decorator Annotation Pass Ellipsis IfExp Add Subtract
Multiply Divide Equal NotEqual Is IsNot In NotIn LessThan GreaterThan Not And Or Minus
""".split()  # noqa: SIM905
)

#: the nodes that take decorators
_DECORATED = frozenset({syntax.FunctionDef, syntax.ClassDef})

#: the nodes that open a scope (on_visit pushes one, on_leave pops it)
_SCOPES = frozenset({syntax.FunctionDef, syntax.Lambda, syntax.ClassDef, syntax.Module})


def _always_skipped(node: syntax.CSTNode) -> bool:
    """Is ``node`` a function or class decorated to be skipped whatever
    happens (``@pytest.mark.skip(reason=...)``, ``@unittest.skip("...")``;
    ``ops.ALWAYS_SKIPPING_DECORATORS``)?"""
    if type(node) not in _DECORATED:
        return False
    assert isinstance(node, (syntax.FunctionDef, syntax.ClassDef))
    for decorator in node.decorators:
        expr = decorator.decorator
        if isinstance(expr, syntax.Call):
            expr = expr.func
        if dotted_name(expr) in ops.ALWAYS_SKIPPING_DECORATORS:
            return True
    return False


def _ends_block(line: syntax.SimpleStatementLine) -> bool:
    """Does the line end its block: ``return``, ``raise``, ``continue``,
    ``break``, a call that always raises (``pytest.skip(...)``), or an
    ``assert`` of a false constant (``assert False, "todo"``)? What follows
    it in the block never runs."""
    last = line.body[-1] if line.body else None
    if isinstance(last, (syntax.Return, syntax.Raise, syntax.Continue, syntax.Break)):
        return True
    if last is not None and raises_always(last):
        return True  # ``pytest.xfail("flaky")``, ``sys.exit(1)``
    if isinstance(last, syntax.Assert):
        test = last.test
        return (isinstance(test, syntax.Name) and test.value in ("False", "None")) or (
            isinstance(test, syntax.Integer) and test.value == "0"
        )
    return False


def _lazy_import(node: syntax.Assign) -> Optional[str]:
    """The module ``name = <call>("module")`` imports, where the call is one
    of ``ops.LAZY_IMPORT_CALLS`` (``importlib.import_module``, a
    ``LazyLoader``); else None."""
    value = node.value
    if (
        len(node.targets) != 1
        or not isinstance(node.targets[0].target, syntax.Name)
        or not isinstance(value, syntax.Call)
    ):
        return None
    callee = dotted_name(value.func)
    if callee is None or callee.rsplit(".", 1)[-1] not in ops.LAZY_IMPORT_CALLS:
        return None
    texts = [
        a.value.evaluated_value
        if a.keyword is None
        and isinstance(a.value, syntax.SimpleString)
        and isinstance(a.value.evaluated_value, str)
        else None
        for a in value.args
    ]
    return ops.lazy_import(callee, texts)


def _stores_by_name(node: syntax.Assign) -> bool:
    """Does ``node`` store into a subscript of a name (``preds[i] = ...``)?"""
    return any(
        isinstance(t.target, syntax.Subscript) and isinstance(t.target.value, syntax.Name)
        for t in node.targets
    )


def _root_name(node: syntax.BaseExpression) -> str:
    """``np`` for ``np.linalg``, ``np``; "" for anything else."""
    while isinstance(node, syntax.Attribute):
        node = node.value
    return node.value if isinstance(node, syntax.Name) else ""


def _axes_root(node: syntax.BaseExpression) -> str:
    """``axes`` for ``axes``, ``axes[0, 1]``, ``axes.flat[2]``, ``axes.ravel()``."""
    while True:
        if isinstance(node, syntax.Subscript) or (
            isinstance(node, syntax.Attribute) and node.attr.value in ("flat", "T")
        ):
            node = node.value
        elif (
            isinstance(node, syntax.Call)
            and isinstance(node.func, syntax.Attribute)
            and node.func.attr.value in ("ravel", "flatten", "reshape")
        ):
            node = node.func.value
        else:
            return node.value if isinstance(node, syntax.Name) else ""


def _called_name(func: syntax.BaseExpression) -> str:
    """``f`` for ``f(...)``, ``m`` for ``self.m(...)``, ``u.f`` for ``u.f(...)``."""
    if isinstance(func, syntax.Name):
        return func.value
    if isinstance(func, syntax.Attribute) and isinstance(func.value, syntax.Name):
        if func.value.value in ("self", "cls"):
            return func.attr.value
        return f"{func.value.value}.{func.attr.value}"
    return ""


def build_index(
    module: syntax.Module,
    local_functions: frozenset[str] = frozenset(),
    helpers: frozenset[str] = frozenset(),
    calls: Optional[library_table.CallTable] = None,
    star_names: Optional[Callable[[str], Mapping[str, str]]] = None,
) -> ModuleIndex:
    index = ModuleIndex(local_functions, helpers, calls, star_names)
    index.walk(module)
    return index


def enclosing_function(candidate: Candidate) -> Optional[syntax.FunctionDef]:
    for node in reversed(candidate.ancestors):
        if isinstance(node, syntax.FunctionDef):
            return node
        if isinstance(node, (syntax.ClassDef, syntax.Lambda)):
            return None
    return None


__all__ = ["CANDIDATE_CALL_NAMES", "Candidate", "ModuleIndex", "build_index", "target_names"]


def _module_itself(value: syntax.BaseExpression) -> Optional[str]:
    """The name ``value`` gives back when it calls module methods that return
    the module itself on it (``model.to(device).eval()``: ``model``)."""
    inner = through_module_methods(value)
    return inner.value if inner is not value and isinstance(inner, syntax.Name) else None
