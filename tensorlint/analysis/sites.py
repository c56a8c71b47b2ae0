"""A module's conversion sites, and the questions rules ask about each."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Optional, Union

from tensorlint.analysis import callers, dtypes, escape, library_table, ops, syntax
from tensorlint.analysis.callees import Callee, Callees, Lookup
from tensorlint.analysis.classes import Inherited, inherited_calls
from tensorlint.analysis.facts import (
    API_KINDS,
    COMPREHENSIONS,
    CPU,
    DEV,
    ELEMENT,
    ELEMS,
    GRAD,
    MAY_NUMBER,
    MAY_TENSOR,
    NDARRAY,
    NOGRAD,
    NOTTENSOR,
    OTHER,
    OUTPUT,
    TENSOR,
    TORCH_DATA,
    Env,
    Evidence,
    FactEvaluator,
    Facts,
    comprehension_env,
    decorated_with,
    element_facts,
    evidence,
    flag_test,
    forward_pass_of_a_given_module,
    grad_mode,
    is_basic_index,
    is_false,
    is_forward_pass,
    is_grad_guess,
    keeps_grad_flag,
    keyword,
    may_be_tensor,
    may_be_tensor_only,
    meet,
    never_moved_attributes,
    never_moved_under,
    on_cpu_test,
    record,
    refine,
    requires_grad_test,
    self_name,
    shown_as_written,
    torch_valued,
    type_guards,
)
from tensorlint.analysis.flow import Conversion, is_view_call, owner_body
from tensorlint.analysis.from_ast import parse_expression
from tensorlint.analysis.function import (
    ClassAttributes,
    FunctionAnalysis,
    Owner,
    class_attribute_facts,
)
from tensorlint.analysis.index import Candidate, ModuleIndex, build_index
from tensorlint.analysis.names import (
    Boundary,
    Scope,
    bind_arguments,
    dotted_name,
    framework_bases,
    framework_data,
    framework_inputs,
    qualified_name,
)
from tensorlint.analysis.param_uses import moved_here, numbers_only
from tensorlint.analysis.positions import Positions
from tensorlint.analysis.project_calls import PASSES_ON as _PASSES_ON
from tensorlint.analysis.project_calls import Call, External
from tensorlint.analysis.pytree import parse
from tensorlint.analysis.stores import Bindings, Store, bindings, subarray_store
from tensorlint.analysis.summaries import EMPTY_SUMMARY, ModuleSummary, default_cuda_call
from tensorlint.analysis.walk import children, own_statements
from tensorlint.roles import is_framework_suite, is_test_text, runs_on_an_accelerator, trains


def default_cuda(
    source: str, summary: Optional[ModuleSummary], tree: Optional[Lookup]
) -> Optional[tuple[str, bool]]:
    """Where the file (anywhere in it: a process-wide setting its code runs
    with), or a module of the tree it imports (at that module's top level: run
    by the import), makes CUDA the default device of new tensors, and
    whether ``torch.Tensor(...)`` follows; None when neither does."""
    if "set_default_" in source:  # (a file that calls none is not parsed again)
        try:
            found = default_cuda_call(parse(source), top_level=False)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            found = None
        if found is not None:
            return f"line {found[0]}", found[1]
    if tree is None or summary is None:
        return None
    modules = [*summary.stars, *summary.imports.values()]
    return tree.default_cuda(modules) if modules else None


class ModuleAnalysis:
    """Everything known about one parsed module; computed lazily."""

    def __init__(
        self,
        module: syntax.Module,
        source: str,
        *,
        assume_torch: bool = False,
        torch_imported: bool = False,
        torch_tested: bool = False,
        torch_via: Optional[str] = None,
        library: bool = True,
        summary: Optional[ModuleSummary] = None,
        tree: Optional[Lookup] = None,
        helpers: frozenset[str] = frozenset(),
        converting_calls: tuple[str, ...] = (),
        target_version: Optional[tuple[int, int]] = None,
    ) -> None:
        self.module = module
        self.source = source
        #: ``Tensor.numpy()`` converts a tensor that requires grad under
        #: ``no_grad`` on every torch the code targets (>= 1.6)
        self.numpy_checks_grad_mode = (
            target_version is None or target_version >= ops.NUMPY_CHECKS_GRAD_MODE_SINCE
        )
        #: set when the file imports torch in a part the selective parse left out
        self.torch_imported = torch_imported
        #: set when a file that does not import torch tests values for torch
        #: tensors (``_is_torch_tensor(x)``): torch code where the test holds
        self.torch_tested = torch_tested
        #: the module of the checked tree through which torch reaches a file
        #: that does not import it (``engine/tree.py``), or None
        self.torch_via = torch_via
        #: how often each name is ``def``'d in the text
        self._def_counts = _def_counts(self._text)
        local_functions = frozenset(self._def_counts)
        #: the library calls that convert their arguments, configured ones included
        self.library_calls = library_table.table_with(converting_calls)
        self.index: ModuleIndex = build_index(
            module,
            local_functions,
            helpers,
            self.library_calls,
            tree.star_names if tree is not None and summary is not None and summary.stars else None,
        )
        self.assume_torch = assume_torch
        self._functions: dict[int, FunctionAnalysis] = {}
        self._wanted: dict[int, set[int]] = {}
        self._positions: Optional[Positions] = None
        self._classes: dict[int, ClassAttributes] = {}
        self._wanted_owners: set[Owner] = set()
        #: library code: public functions are entered from callers we cannot see
        self.library = library
        # from the text: the selective parse leaves most ``def`` blocks out
        module_scope = self.index.scopes[module]
        module_scope.functions.update(local_functions)
        module_scope.callees = Callees(summary or EMPTY_SUMMARY, tree)
        module_scope.names_accelerator = runs_on_an_accelerator(source)
        module_scope.maps_locations = "map_location" in source
        module_scope.default_cuda = functools.partial(default_cuda, source, summary, tree)
        module_scope.owned_devices = library and self.boundary_counts
        self._classes_summary = (summary or EMPTY_SUMMARY).classes
        self._tree = tree
        self._inherited: dict[int, Optional[Inherited]] = {}
        self._external: dict[int, Optional[External]] = {}
        #: the calls ``external_callers`` read (None: they cannot be known)
        self._calls: dict[int, Optional[Sequence[tuple[Call, str]]]] = {}
        #: parameter (its id) -> its public function, whose boundary is a guess
        #: that callers in other files may answer
        self._guessed: dict[int, syntax.FunctionDef] = {}
        #: the project's other files pass a function here evidence (``_mark_callers``)
        self.called_with_evidence = False
        #: the statements of each calling function where a local function is called
        self._call_wanted: dict[int, set[int]] = {}
        self._caller_walks: dict[int, FunctionAnalysis] = {}
        self._bindings: dict[int, Bindings] = {}
        self._no_grad_callers: dict[int, bool] = {}
        self._no_grad_elsewhere: dict[int, bool] = {}
        #: a function's id -> its calls in this file (``_calls_in_file``)
        self._calls_here: dict[int, list[callers.CallSite]] = {}
        #: suite -> {statement: the grad mode a ``set_grad_enabled`` statement before it set}
        self._grad_sets: dict[int, dict[int, Optional[bool]]] = {}
        self._called: dict[str, bool] = {}
        self._lambdas: dict[int, tuple[Mapping[str, Facts], Mapping[str, syntax.Call]]] = {}
        self._mention_counts: dict[str, int] = {}
        mapped = [site for sites in self.index.function_maps.values() for site in sites]
        for call in [*self.index.calls, *self.index.lambda_maps.values(), *mapped]:
            caller = _calling_owner(call)
            if caller is not None:
                _add_path(self._call_wanted.setdefault(id(caller), set()), call.ancestors)
        called: set[syntax.FunctionDef] = set()
        for candidate in self.index.candidates:
            owner = _owner(candidate)
            if owner not in self._wanted_owners and candidate.kind not in _NOT_BOUNDARY:
                self._wanted_owners.add(owner)
                if isinstance(owner, syntax.FunctionDef):
                    if library and self.boundary_counts:
                        self._mark_boundary(owner)
                    else:
                        self._mark_callers(owner)
                        called.add(owner)
            elif (
                candidate.kind in _NOT_BOUNDARY
                and isinstance(owner, syntax.FunctionDef)
                and owner not in called
                and owner not in self._wanted_owners
            ):
                # ``plt.plot(curve)``: no guess that callers pass tensors, but
                # what the project's other files do pass is evidence
                called.add(owner)
                self._mark_callers(owner)
            _add_path(self._wanted.setdefault(id(owner), set()), candidate.ancestors)
        if library and self.boundary_counts:
            self._mark_entry_callers()
        if called:
            # one level up: a function of this file that passes its parameters
            # on to one of these (``evaluate`` calls ``roc(labels, scores)``)
            names = {f.name.value for f in called}
            mapped_calls = [
                site for name in names for site in self.index.function_maps.get(name, [])
            ]
            mapping = {id(site.call) for site in mapped_calls}
            for call in [*self.index.calls, *mapped_calls]:
                func = call.call.func
                if id(call.call) in mapping or (
                    isinstance(func, syntax.Name) and func.value in names
                ):
                    caller = _calling_owner(call)
                    if isinstance(caller, syntax.FunctionDef) and caller not in called:
                        called.add(caller)
                        self._mark_callers(caller)

    def _mark_entry_callers(self) -> None:
        """A function that its own file calls takes what those calls pass;
        where a caller is a public function that no code here calls
        (``assert_equal(a, b)`` calling ``to_numpy(a)``, ``find(query)``
        calling ``self._to_numpy(query)``), its parameters are the API
        boundary, and what they may be reaches the function through the
        call. Two calls up, at most."""
        level = [o for o in self._wanted_owners if isinstance(o, syntax.FunctionDef)]
        seen: set[int] = {id(o) for o in level}
        for _ in range(_ENTRY_DEPTH):
            above: list[syntax.FunctionDef] = []
            for function in level:
                scope = self.index.scopes.get(function)
                if scope is None:
                    continue
                for site in self._mapped(function, scope):
                    caller = callers.owner_of(site.ancestors)
                    if isinstance(caller, syntax.FunctionDef) and id(caller) not in seen:
                        seen.add(id(caller))
                        self._mark_boundary(caller)
                        above.append(caller)
                if not self._is_called(function.name.value):
                    continue
                for site in self.index.calls:
                    if not callers.targets(function, scope, site):
                        continue
                    caller = _calling_owner(site)
                    if isinstance(caller, syntax.FunctionDef) and id(caller) not in seen:
                        seen.add(id(caller))
                        self._mark_boundary(caller)
                        above.append(caller)
            level = above

    def _mark_boundary(self, function: syntax.FunctionDef) -> None:
        """Parameters of a public function no code in this file calls take values
        from outside: evidence that they may be anywhere (see ``facts``)."""
        scope = self.index.scopes.get(function)
        if scope is None:
            return
        maker = None if _is_public(function, scope) else self._returned_by_public(function, scope)
        if maker is None and not _is_public(function, scope):
            return
        name = function.name.value
        inherited = self.inherited(function) if maker is None else None
        host: Optional[str] = None
        device: Optional[str] = ""
        grad: Optional[str] = ""
        note = "a parameter of a public function no code here calls"
        if maker is not None:
            # a wrapper a public decorator returns: its callers are the callers
            # of what the decorator made, outside this file
            device = grad = (
                f"the callers of the function that the public `{maker.name.value}()` "
                f"(line {self.line(maker)}) returns, outside this file, who may pass {{what}}"
            )
            note = "a parameter of a function a public function returns"
        elif inherited is not None:
            # a hook a base class calls on ``self``: that call decides; it passes
            # on its own callers' values, or values it makes (then no boundary)
            if not inherited.from_outside:
                return
            device = grad = f"{inherited.where}, {_PASSES_ON}"
            note = "a parameter of a method a base class calls"
        elif name == "backward" and _autograd_function_method(scope):
            # autograd calls it with the gradients of ``forward``'s outputs
            device = grad = _AUTOGRAD_PASSES
            note = "a gradient autograd passes to `backward()`"
            host = _forward_returns_host_arrays(scope)
        elif self._called_outside(function):
            return  # called here: its callers decide (function summaries, later)
        else:
            # the guess stands in for callers in other files: when a finding
            # rests on it, they are looked for (``resolve_boundary``)
            for param in _parameters(function, scope):
                self._guessed[id(param)] = function
        shown = _dispatcher(function) if name.startswith("_") else None
        params = _parameters(function, scope)
        numbers = numbers_only(function, [p.name.value for p in params], scope)
        moved = moved_here(function, [p.name.value for p in params])
        # what a framework hands the method (a batch, a step's outputs) is
        # known where it is made, not guessed
        framework = {param.name.value for param, _ in framework_inputs(scope)}
        data = framework_data(scope)  # (a pipeline's data: anywhere, without grad)
        positional = [*function.params.posonly_params, *function.params.params]
        context = positional[0] if positional else None  # (``ctx``)
        for param in params:
            if param.name.value in numbers or param.name.value in framework:
                continue  # a size or a count (a number), or the framework's
            if host is not None and (param is not context or host == _CONVERTED_IN_PLACE):
                # a function computed in NumPy: its outputs, so their gradients,
                # are on the CPU; and where its forward converts its inputs
                # without moving them, a tensor saved there is on the CPU too
                continue
            scope.boundary[param.name.value] = Boundary(
                param,
                f"{shown or name}()",
                None if param.name.value in moved else device,  # taken on the host
                None if param.name.value in data else grad,
                note,
            )

    def _returned_by_public(
        self, function: syntax.FunctionDef, scope: Scope
    ) -> Optional[syntax.FunctionDef]:
        """The public function (a decorator, or a decorator factory's
        decorator) that returns ``function``, a function it defines and does
        not call itself (``return wrapper``, ``return wraps(fn)(wrapper)``);
        else None."""
        parent = scope.parent
        outer = parent.node if parent is not None and parent.kind == "function" else None
        if not isinstance(outer, syntax.FunctionDef) or parent is None:
            return None
        name = function.name.value
        inside = range(outer.src_start, outer.src_end)
        own = range(function.src_start, function.src_end)
        if any(start in inside and start not in own for start in self._call_starts(name)):
            return None  # a helper the function calls: its calls decide
        if not any(_returns_name(statement, name) for statement in own_statements(outer)):
            return None
        if _is_public(outer, parent):
            return outer
        return self._returned_by_public(outer, parent)

    def resolve_boundary(self, evidence: Evidence) -> Optional[Evidence]:
        """The API boundary's guess, as the project's other files answer it:
        unchanged when no file calls the function (or only tests do, or they
        cannot be known); None when the calls give no evidence of its kind;
        else the evidence, naming the first call that gives it."""
        function = self._guessed.get(id(evidence.node))
        if function is None:
            return evidence
        external = self.external_callers(function)
        if external is None:
            return None if self._uncalled_application(function) else evidence
        clause = external.device if evidence.kind == "api" else external.grad
        if clause is None or (evidence.kind == "api-grad" and external.no_grad):
            return None
        # a value moved (or a module's output) counts for the parameter it is passed to
        keys = external.moved_keys if evidence.kind == "api" else external.grad_keys
        made = external.moved if evidence.kind == "api" else external.grad_output
        if made is not None and clause != made and self._takes(function, evidence.node, keys):
            clause = made  # (a cause a caller shows, before the guess of another)
        if clause == made and not self._takes(function, evidence.node, keys):
            return None
        return evidence._replace(
            through=clause,
            note="a parameter of a function other files of the project call",
            shown=clause == made,
        )

    def _takes(
        self, function: syntax.FunctionDef, param: syntax.CSTNode, keys: Optional[frozenset[str]]
    ) -> bool:
        """Do the calls pass the value ``keys`` names to ``param`` of ``function``?"""
        scope = self.index.scopes.get(function)
        if scope is None or keys is None:
            return True
        params = _parameters(function, scope)
        listed = [*function.params.posonly_params, *function.params.params]
        positional = sum(1 for p in params if any(p is q for q in listed))
        for position, candidate in enumerate(params):
            if candidate is param:
                star = param is function.params.star_arg or param is function.params.star_kwarg
                where = position if position < positional else -1
                return _given(keys, where, candidate.name.value, star)
        return True

    def called_without_grad_elsewhere(self, function: Optional[syntax.FunctionDef]) -> bool:
        """Is ``function`` a public function of library code every call of
        which in the project's other files is made with grad disabled, and
        that this file does not call, or calls only so (``test_emb()`` run by
        its script's main code and by ``train.py``, both under ``no_grad``)?
        Or one the project's other files never call, that this file calls
        only so (``tracker.reid()``, called by ``tracker.step()``, which
        every driver runs under ``no_grad``: calls up, across files)? Then its
        body runs without grad."""
        if function is None or function.asynchronous or not (self.library and self.boundary_counts):
            return False
        scope = self.index.scopes.get(function)
        if scope is None or not _is_public(function, scope):
            return False
        key = id(function)
        known = self._no_grad_elsewhere.get(key)
        if known is not None:
            return known
        self._no_grad_elsewhere[key] = False  # (calls in a cycle: not known)
        called_here = self._called_outside(function)
        found = False
        if not called_here or self._own_calls_without_grad(function, scope):
            external = self.external_callers(function)
            if external is not None:
                found = external.no_grad
            else:
                # no call in the other files (not even a test's): this file's
                # calls are all there are
                found = called_here and self._calls.get(key) == []
        self._no_grad_elsewhere[key] = found
        return found

    def _mark_callers(self, function: syntax.FunctionDef) -> None:
        """Where a public function's parameters are no API boundary (tests,
        scripts, a file torch reaches through a front end), what the project's
        other files pass it is still evidence: a value they moved to a device,
        a module's output computed with grad enabled."""
        scope = self.index.scopes.get(function)
        if scope is None or scope.parent is None:
            return
        constructor = _constructor_of(function, scope)  # ``Detection(box, feature)``
        if constructor is not None:
            if constructor.startswith("_") or self._is_called(constructor):
                return
        elif (
            scope.parent.kind != "module"  # (helpers of scripts are functions)
            or not _is_public(function, scope)
            or self._is_called(function.name.value)
        ):
            return
        external = self.external_callers(function)
        if external is None or not (external.moved or external.grad_output):
            return
        device, grad = external.moved, external.grad_output
        self.called_with_evidence = True
        note = "a parameter of a function other files of the project call"
        shown = function.name.value if constructor is None else f"{constructor}.__init__"
        for param in _parameters(function, scope):
            # only the parameters the moved value (or module output) is passed to
            moved = self._takes(function, param, external.moved_keys)
            graded = self._takes(function, param, external.grad_keys)
            if not (moved or graded):
                continue
            scope.boundary[param.name.value] = Boundary(
                param,
                f"{shown}()",
                device if moved else None,
                grad if graded else None,
                note,
                tensor=bool(device) and moved,
                shown=True,
            )

    def _uncalled_application(self, function: syntax.FunctionDef) -> bool:
        """Is ``function`` one that no file of an application calls (tests
        aside)? An application (a project with no ``pyproject.toml``,
        ``setup.py`` or ``setup.cfg``: nothing installs it, nothing outside
        imports it) has all its callers in the checked tree: a function none
        of them calls is called dynamically or not at all, and what it is
        given is unknown, not a guess about a library's users."""
        if self._tree is None or not self._tree.in_application():
            return False
        calls = self._project_calls(function)
        return calls is not None and all(call.test for call, _ in calls)

    def _project_calls(self, function: syntax.FunctionDef) -> Optional[Sequence[tuple[Call, str]]]:
        """Every call of ``function`` in the project's other files, tests
        included (``external_callers`` keeps them); None where they cannot
        be known."""
        self.external_callers(function)
        return self._calls.get(id(function))

    def external_callers(self, function: syntax.FunctionDef) -> Optional[External]:
        """How the project's other files call a module function of this file,
        or a method of one of its top-level classes on the instances they
        make (None: they do not, or they cannot be known)."""
        key = id(function)
        if key in self._external:
            return self._external[key]
        found = None
        scope = self.index.scopes.get(function)
        parent = scope.parent if scope is not None else None
        calls = None
        name = function.name.value
        if self._tree is None or parent is None:
            pass
        elif parent.kind == "module":
            calls = self._tree.external_callers(name)
        elif (
            parent.kind == "class"
            and isinstance(parent.node, syntax.ClassDef)
            and parent.parent is not None
            and parent.parent.kind == "module"
        ):
            owner = parent.node.name.value
            by_class = decorated_with(function, "staticmethod") or decorated_with(
                function, "classmethod"
            )
            calls = self._tree.external_callers(owner, name, by_class=by_class)
            name = f"{owner}.{name}"
        # tests call a library function with what they need: when only
        # tests call it, its users are still the ones no one here sees
        if calls and not all(call.test for call, _ in calls):
            found = External.of(name, calls)
        self._calls[key] = calls
        self._external[key] = found
        return found

    @property
    def torch_module(self) -> bool:
        """Do ``.numpy()`` receivers here count as torch tensors?"""
        return (
            self.assume_torch
            or self.torch_imported
            or self.index.imports_torch
            or self.torch_via is not None
            or self.torch_tested
        )

    @property
    def tested_for_torch(self) -> bool:
        """Is torch code here only what a test for torch tensors guards
        (``if _is_torch_tensor(x):`` in a file that never imports torch)?"""
        return self.torch_tested and not (
            self.assume_torch or self.torch_imported or self.index.imports_torch
        )

    @property
    def boundary_counts(self) -> bool:
        """Are a public function's parameters evidence here? Only in a file
        that imports torch itself (or ``assume-torch``): where torch reaches a
        file through a front end (mmdet, ultralytics) or the project's modules,
        the file consumes what that code hands it (predictions, data samples),
        and what its callers pass is a guess on a guess."""
        return self.assume_torch or self.index.imports_torch_itself

    @property
    def other_frameworks(self) -> frozenset[str]:
        return self.index.other_frameworks

    def sites(self) -> Iterator[Site]:
        for candidate in self.index.candidates:
            site = Site(self, candidate)
            if site.kind:
                yield site

    def attributes_for(self, scope: Scope) -> Optional[dict[str, Facts]]:
        """Facts of ``self.<name>`` when ``scope`` is a method (else None)."""
        parent = scope.parent
        if parent is None or parent.kind != "class" or not isinstance(parent.node, syntax.ClassDef):
            return None
        return self._class_attributes(parent.node, set())

    def _class_attributes(self, node: syntax.ClassDef, seen: set[int]) -> ClassAttributes:
        """``class_attribute_facts`` of ``node``, with what its bases defined
        in this module assign (``self._cpu_device = torch.device("cpu")`` in
        a base's ``__init__``): an attribute both assign keeps what they agree
        on."""
        found = self._classes.get(id(node))
        if found is not None:
            return found
        seen.add(id(node))
        found = class_attribute_facts(node, self.index.scopes)
        merged = dict(found)
        assigned = set(found.assigned)
        for base in node.bases:
            defined = self._top_level_classes.get(dotted_name(base.value) or "")
            if defined is None or id(defined) in seen:
                continue
            inherited = self._class_attributes(defined, seen)
            for name in inherited.assigned:
                facts = inherited.get(name, frozenset())
                # (one the class assigns itself keeps what both agree on)
                merged[name] = (
                    meet(merged.get(name, frozenset()), facts) if name in assigned else facts
                )
            assigned |= inherited.assigned
        found = ClassAttributes(
            {n: f for n, f in merged.items() if f}, found.after, frozenset(assigned)
        )
        self._classes[id(node)] = found
        return found

    @functools.cached_property
    def _top_level_classes(self) -> dict[str, syntax.ClassDef]:
        """The module's top-level classes by name (the last one of a name)."""
        return {
            statement.name.value: statement
            for statement in self.module.body
            if isinstance(statement, syntax.ClassDef)
        }

    def function(self, owner: Owner) -> FunctionAnalysis:
        analysis = self._functions.get(id(owner))
        if analysis is None:
            scope = self.index.scopes[owner]
            params, via = (
                self._passed(owner, scope)
                if isinstance(owner, syntax.FunctionDef)
                else (None, None)
            )
            gathered = self._gathered(scope)
            if gathered is not None:
                params = {**(params or {}), gathered[0]: gathered[1]}
            analysis = FunctionAnalysis(
                owner,
                scope,
                self._wanted.get(id(owner), set()),
                self.attributes_for(scope),
                params,
                via,
                no_grad=isinstance(owner, syntax.FunctionDef) and self.runs_without_grad(owner),
                flags=self._passed_names(owner, scope)
                if isinstance(owner, syntax.FunctionDef)
                else None,
            )
            self._functions[id(owner)] = analysis
        return analysis

    def _gathered(self, scope: Scope) -> Optional[tuple[str, Facts]]:
        """``(outputs, facts)`` for a hook a framework calls with what a step
        method of its class returned (Lightning's
        ``validation_epoch_end(self, outputs)``): the device evidence of the
        step's returns (a dict display's values, each), grad aside (the
        framework detaches a training loss and runs the other steps without
        grad). None for other functions, or when the step is not here."""
        framework = next((f for f in framework_inputs(scope) if f[1].startswith("step:")), None)
        if framework is None:
            return None
        step_name = framework[1].split(":", 1)[1]
        parent = scope.parent
        assert parent is not None and isinstance(parent.node, syntax.ClassDef)
        body = parent.node.body
        steps = [
            item
            for item in (body.body if isinstance(body, syntax.IndentedBlock) else ())
            if isinstance(item, syntax.FunctionDef)
            and item.name.value == step_name
            and item in self.index.scopes
        ]
        if len(steps) != 1:
            return None
        step = steps[0]
        step_scope = self.index.scopes[step]
        returns = _returns(step)
        wanted: set[int] = set()
        for _, path in returns:
            _add_path(wanted, path)
        walk = FunctionAnalysis(
            step,
            step_scope,
            wanted,
            self.attributes_for(step_scope),
            no_grad=True,
        )
        evaluator = FactEvaluator(step_scope, walk.attributes, walk.params)
        found: Facts = frozenset()
        for value, path in returns:
            env = walk.env_at(path)
            parts = (
                [e.value for e in value.elements if isinstance(e, syntax.DictElement)]
                if isinstance(value, syntax.Dict)
                else [value]
            )
            for part in parts:
                facts = evaluator.expr(part, env)
                if not (torch_valued(facts, step_scope) or facts & {MAY_TENSOR, ELEMS}):
                    continue  # (objects built from tensors, numbers, arrays)
                # a tensor a step computes on the module's device
                found = found | frozenset(t for t in facts if t.startswith(DEV))
        if not any(t.startswith(DEV) for t in found):
            return None
        token = record(scope, "gathered", framework[0], f"{step_name}()")
        return framework[0].name.value, frozenset({token, TORCH_DATA})

    def runs_without_grad(self, function: syntax.FunctionDef) -> bool:
        """Does the body of ``function`` run with grad disabled: a (not
        ``async``) function decorated ``@torch.no_grad()`` or the like, or one
        every call of which in this file is made with grad disabled?"""
        for decorator in () if function.asynchronous else function.decorators:
            verdict = grad_mode(decorator.decorator, self.index.scopes[function])
            if verdict is not None:
                return verdict
        return self.called_only_without_grad(function)

    def _calls_in_file(self, function: syntax.FunctionDef, scope: Scope) -> list[callers.CallSite]:
        """The calls of ``function`` in this file, made outside it (a
        recursive call adds nothing to what its callers give it)."""
        found = self._calls_here.get(id(function))
        if found is None:
            found = self._calls_here[id(function)] = [
                s
                for s in self.index.calls
                if callers.targets(function, scope, s) and function not in s.ancestors
            ]
        return found

    def _passed(
        self, function: syntax.FunctionDef, scope: Scope
    ) -> tuple[Optional[dict[str, Facts]], Optional[dict[str, syntax.Call]]]:
        """What the calls of ``function`` in this file pass to its parameters,
        and the call each evidence token came through."""
        sites = self._calls_in_file(function, scope)
        name = function.name.value
        mapped = self._mapped(function, scope)
        if not sites and not mapped:
            return None, None
        evaluate = self._evaluators([*sites, *mapped])
        complete = not (self.library and _is_public(function, scope)) and self._mentions(
            name
        ) == len(sites) + len(mapped)
        return callers.parameter_facts(function, scope, sites, evaluate, complete, mapped)

    def _mapped(self, function: syntax.FunctionDef, scope: Scope) -> list[callers.CallSite]:
        """The calls ``map(function, xs)`` in this file (of a module-level
        function), made outside it."""
        if scope.parent is None or scope.parent.kind != "module":
            return []
        sites = self.index.function_maps.get(function.name.value, [])
        return [s for s in sites if function not in s.ancestors]

    def _passed_names(self, function: syntax.FunctionDef, scope: Scope) -> dict[str, str]:
        """Parameter -> the name (``USE_CUDA``, ``args.cuda``) every call of
        ``function`` in this file passes to it: a flag the function tests is
        the one its callers tested (``callers.passed_names``)."""
        sites = self._calls_in_file(function, scope)
        return callers.passed_names(function, scope, sites) if sites else {}

    def discards_argument(self, function: syntax.FunctionDef, param: str) -> bool:
        """Does every caller of ``function`` rebind, in the statement that
        makes the call, the name it passes to ``param`` (``d = xi *
        _l2_normalize(d)``), or pass a local name it never reads again
        (``_unread_after``)? Then nothing the caller reads afterwards holds
        what the call was given. Only where every caller is known: calls in
        this file, every mention of the name one of them, none from the
        project's other files, and not a public function of a library."""
        scope = self.index.scopes.get(function)
        if scope is None:
            return False
        name = function.name.value
        sites = [s for s in self.index.calls if callers.targets(function, scope, s)]
        if not sites or self._mentions(name) != len(sites):
            return False
        if self.library and _is_public(function, scope):
            return False
        calls = self._project_calls(function)
        if calls is None or any(not call.test for call, _ in calls):
            return False  # (unknown, or called from the project's other files)
        positional, names = callers.parameter_names(function, scope)
        for site in sites:
            passed = bind_arguments(site.call, positional, names).get(param)
            if not isinstance(passed, syntax.Name):
                return False
            if not (_rebinds(site.ancestors, passed.value) or self._unread_after(site, passed)):
                return False
        return True

    def _unread_after(self, site: callers.CallSite, passed: syntax.Name) -> bool:
        """Is ``passed`` a name local to the calling function that nothing
        reads after the call (nor the call again, in a loop), and that no
        container, attribute or global holds (``weights = get_weights(...)``,
        then ``return risk(weights, error)``)?"""
        owner = site.scope.node
        if not isinstance(owner, (syntax.FunctionDef, syntax.Module)) or any(
            isinstance(node, _OWN_SCOPES) for node in site.ancestors
        ):
            return False  # (``[f(x) for x in xs]``: ``x`` is each element of ``xs``)
        log = self.function(owner).log
        event = next(
            (e for e in log.events if e.kind == "use" and e.node is passed), None
        )  # (asked only of a function whose every caller is in this file)
        if event is None or len(event.storages) != 1:
            return False
        (storage,) = event.storages
        if log.storages[storage].visible or any(storage in held for held in log.contained.values()):
            return False
        return not any(
            not (use.metadata or use.display) for use in log.uses_after(event.idx, storage)
        )

    def lambda_inputs(
        self, function: syntax.Lambda
    ) -> tuple[Mapping[str, Facts], Mapping[str, syntax.Call]]:
        """The facts a lambda's parameters are given, and the call each
        evidence token came through (``_lambda_passed``), computed once."""
        found = self._lambdas.get(id(function))
        if found is None:
            params, via = self._lambda_passed(function, self.index.scopes[function])
            found = self._lambdas[id(function)] = (params or {}, via or {})
        return found

    def _lambda_passed(
        self, function: syntax.Lambda, scope: Scope
    ) -> tuple[Optional[dict[str, Facts]], Optional[dict[str, syntax.Call]]]:
        """What a lambda's parameters are given where the code shows it:
        ``f = lambda t: ...`` called as ``f(x)`` in this file (as a function
        ``def``'d here is), or ``map(lambda t: ..., xs)`` (each element of ``xs``)."""
        mapped = self.index.lambda_maps.get(id(function))
        if mapped is not None:
            params = [*function.params.posonly_params, *function.params.params]
            at = self._evaluator_at(mapped)
            if at is None or not params:
                return None, None
            facts = element_facts(at(mapped.call.args[1].value))
            return {params[0].name.value: facts}, {t: mapped.call for t in evidence(facts)}
        name = self.index.lambda_names.get(id(function))
        parent = scope.parent
        if name is None or parent is None:
            return None, None
        sites = [
            s
            for s in self.index.calls
            if isinstance(s.call.func, syntax.Name)
            and s.call.func.value == name
            and function not in s.ancestors
            and _within(s.scope, parent)
        ]
        if not sites:
            return None, None
        evaluate = self._evaluators(sites)
        public = self.library and parent.kind == "module" and not name.startswith("_")
        complete = not public and self._mentions(name) == len(sites)
        return callers.parameter_facts(function, scope, sites, evaluate, complete)

    def _evaluators(self, sites: Sequence[callers.CallSite]) -> dict[int, callers.FactEvaluatorAt]:
        """Per call (its id), the facts of expressions where it is made."""
        found = {}
        for site in sites:
            at = self._evaluator_at(site)
            if at is not None:
                found[id(site.call)] = at
        return found

    def _evaluator_at(self, site: callers.CallSite) -> Optional[callers.FactEvaluatorAt]:
        """The facts of expressions where ``site`` makes its call (None when
        it is made inside a lambda, whose walk is not kept)."""
        caller = callers.owner_of(site.ancestors)
        params: Optional[Mapping[str, Facts]] = None
        if caller is None:
            # a call in a lambda's body (``map(lambda t: helper(t), xs)``): the
            # code around the lambda, and what the lambda is given
            around = callers.lambda_owner(site.ancestors)
            if around is None or site.scope.node is not around[1]:
                return None
            caller = around[0]
            params = self.lambda_inputs(around[1])[0]
        if not isinstance(caller, (syntax.FunctionDef, syntax.ClassDef, syntax.Module)):
            return None
        walk = self._caller_walk(caller)
        attributes = walk.attributes if site.scope is walk.scope else None
        # a call made with grad disabled runs the callee so: ``.numpy()``
        # there converts what requires grad (torch >= 1.6)
        no_grad = self.numpy_checks_grad_mode and self._made_without_grad(site)
        evaluator = FactEvaluator(site.scope, attributes, params)
        env = walk.env_at(site.ancestors)
        ancestors = site.ancestors
        for i, node in enumerate(ancestors):
            if isinstance(node, COMPREHENSIONS):  # ``[helper(t) for t in batch]``
                env = comprehension_env(evaluator, node, env, [*ancestors[i + 1 :], site.call])
        return callers.FactEvaluatorAt(evaluator, env, no_grad=no_grad)

    def called_only_without_grad(self, function: syntax.FunctionDef) -> bool:
        """Is every call of ``function`` (all seen, in this file, each awaited
        there for an ``async def``) made with grad disabled, or is it a method
        a framework calls so (a Lightning ``validation_step``)? Then its body
        runs without grad too."""
        found = self._no_grad_callers.get(id(function))
        if found is None:
            self._no_grad_callers[id(function)] = False  # (calls in a cycle: not known)
            found = self._all_calls_without_grad(function)
            self._no_grad_callers[id(function)] = found
        return found

    def _made_without_grad(self, site: callers.CallSite) -> bool:
        """Is the call made with grad disabled: in a ``no_grad`` block (or
        after ``set_grad_enabled(False)``), or in a function whose body runs
        without grad (decorated, or called only so, calls up, in this file or
        from the project's other files: ``tracker.step()`` calling
        ``self.reid()``)?"""
        verdict, function = _grad_context(
            site.ancestors, site.scope, self.grad_set_before, lambdas=True
        )
        if verdict is not None:
            return verdict
        return function is not None and (
            self.called_only_without_grad(function) or self.called_without_grad_elsewhere(function)
        )

    def _all_calls_without_grad(self, function: syntax.FunctionDef) -> bool:
        scope = self.index.scopes.get(function)
        if scope is None:
            return False
        if _framework_calls_without_grad(function, scope):
            return True
        if self._hook_called_without_grad(function):
            return True
        if self.library and _is_public(function, scope):
            return False
        return self._own_calls_without_grad(function, scope)

    def _own_calls_without_grad(self, function: syntax.FunctionDef, scope: Scope) -> bool:
        """Is every mention of ``function`` in this file a call of it (one at
        least) made with grad disabled (and awaited here, for an ``async def``)?"""
        sites = self._calls_in_file(function, scope)
        method = scope.parent is not None and scope.parent.kind == "class"
        if not sites or self._mentions(function.name.value, method) != len(sites):
            return False
        if function.asynchronous and not all(_awaited(site) for site in sites):
            return False  # a coroutine made here may be awaited elsewhere
        return all(self._made_without_grad(site) for site in sites)

    def inherited(self, function: syntax.FunctionDef) -> Optional[Inherited]:
        """How the bases of the method's class, in this file or in other
        modules of the checked tree, call it on ``self`` (None: they do not,
        or it is not a method of a top-level class)."""
        key = id(function)
        if key in self._inherited:
            return self._inherited[key]
        found = None
        scope = self.index.scopes.get(function)
        parent = scope.parent if scope is not None else None
        if (
            parent is not None
            and parent.kind == "class"
            and isinstance(parent.node, syntax.ClassDef)
            and parent.parent is not None
            and parent.parent.kind == "module"
        ):
            found = inherited_calls(
                self._classes_summary, self._tree, parent.node.name.value, function.name.value
            )
        self._inherited[key] = found
        return found

    def _hook_called_without_grad(self, function: syntax.FunctionDef) -> bool:
        """A method its base class calls on ``self`` with grad disabled only
        (``with torch.no_grad(): score = self.evaluating_forward(batch)``),
        which its own class does not call otherwise."""
        if function.asynchronous:
            return False
        inherited = self.inherited(function)
        if inherited is None or not inherited.no_grad:
            return False
        scope = self.index.scopes[function]
        assert scope.parent is not None and isinstance(scope.parent.node, syntax.ClassDef)
        own = self._classes_summary.get(scope.parent.node.name.value)
        call = own.calls.get(function.name.value) if own is not None else None
        return call is None or call.no_grad

    def grad_set_before(
        self, suite: Suite, statement: syntax.CSTNode, scope: Scope
    ) -> Optional[bool]:
        """The grad mode a ``torch.set_grad_enabled(...)`` statement earlier in
        ``suite`` set for ``statement`` (the last one wins; one pass per suite)."""
        table = self._grad_sets.get(id(suite))
        if table is None:
            table = self._grad_sets[id(suite)] = _grad_sets(suite.body, scope)
        return table.get(id(statement))

    def _caller_walk(self, caller: Owner) -> FunctionAnalysis:
        """The caller's facts at its calls, its own parameters taken as they are."""
        walk = self._caller_walks.get(id(caller))
        if walk is None:
            scope = self.index.scopes[caller]
            walk = FunctionAnalysis(
                caller,
                scope,
                self._call_wanted.get(id(caller), set()),
                self.attributes_for(scope),
                no_grad=isinstance(caller, syntax.FunctionDef) and self.runs_without_grad(caller),
            )
            self._caller_walks[id(caller)] = walk
        return walk

    @property
    def runs_elsewhere(self) -> bool:
        """May code outside library code run on an accelerator: its text names
        one, or the project's other files pass its functions values they
        moved or module outputs (``_mark_callers``)?"""
        return self.called_with_evidence or self.mentions_accelerator

    def bindings_of(self, owner: syntax.CSTNode) -> Bindings:
        """What ``owner`` (a function, class or module) binds each name to,
        for the stores into arrays it holds (one walk per owner)."""
        found = self._bindings.get(id(owner))
        if found is None:
            found = self._bindings[id(owner)] = bindings(owner)
        return found

    @functools.cached_property
    def test_suite(self) -> bool:
        """Does the text read as a test (``roles.is_test_text``; asked of
        code run as written)?"""
        return is_test_text(self.source)

    @functools.cached_property
    def framework_suite(self) -> bool:
        """Is the file a pytest or unittest suite (``roles.is_framework_suite``)?"""
        return is_framework_suite(self.source)

    @functools.cached_property
    def module_marks(self) -> str:
        """The module's ``pytestmark = ...`` statements' text ("" if none)."""
        if "pytestmark" not in self.source:
            return ""
        return "\n".join(m.group(0) for m in _PYTESTMARK.finditer(self.source))

    @functools.cached_property
    def trains(self) -> bool:
        """Does the file run a backward pass (``roles.trains``)? Then a
        forward pass there counts as grad evidence even where its output was
        moved to the host (``Site.grad_evidence``)."""
        return trains(self.source)

    @functools.cached_property
    def mentions_accelerator(self) -> bool:
        """Does the text name an accelerator, or call a helper that picks the
        device at run time (asked outside library code only)?"""
        return runs_on_an_accelerator(self.source)

    @functools.cached_property
    def _text(self) -> str:
        """The source with bare CRs as newlines (for line starts)."""
        return self.source.replace("\r", "\n") if "\r" in self.source else self.source

    def _called_outside(self, function: syntax.FunctionDef) -> bool:
        """Is ``function`` called in this file other than by itself (a
        recursive call passes on what its own callers gave it)?"""
        name = function.name.value
        if not self._is_called(name):
            return False
        inside = range(function.src_start, function.src_end)
        return any(
            start not in inside and not self._calls_own_method(function, start)
            for start in self._call_starts(name)
        )

    def _calls_own_method(self, function: syntax.FunctionDef, start: int) -> bool:
        """Is the call at ``start`` ``self.f(`` or ``cls.f(`` in another class
        than ``function``'s, one that defines a method of that name itself? It
        calls that method (a sibling class's ``from_matrix``), not ``function``."""
        if self._text[start - 1 : start] != ".":
            return False
        name = function.name.value
        for low, high, names in reversed(self._class_spans):
            if low <= start < high:  # the innermost class around the call
                return name in names and not low <= function.src_start < high
        return False

    @functools.cached_property
    def _class_spans(self) -> list[tuple[int, int, frozenset[str]]]:
        """Each class of the file, from the text (the selective parse leaves
        most of them out): its span and the names its body ``def``s, in the
        order they start."""
        text = self._text
        found = []
        for match in _CLASS.finditer(text):
            indent = len(match.group(1))
            low = match.start() + 1 if text[match.start()] == "\n" else match.start()
            high = len(text)
            names = set()
            body_indent: Optional[int] = None
            for line in _LINE.finditer(text, match.end()):
                content = line.group(2)
                if not content or content.startswith("#"):
                    continue
                depth = len(line.group(1))
                if depth <= indent:
                    high = line.start()
                    break
                if body_indent is None:
                    body_indent = depth
                if depth == body_indent:
                    word = _METHOD.match(content)
                    if word is not None:
                        names.add(word.group(1))
            found.append((low, high, frozenset(names)))
        return found

    def _is_called(self, name: str) -> bool:
        """Does code in this file call ``name``: ``f(...)``, ``self.f(...)``,
        ``cls.f(...)`` (not ``obj.f(...)``, not ``def f(``, not in doctests or
        comments)? One scan for the name's literal text, once per name."""
        known = self._called.get(name)
        if known is None:
            known = self._called[name] = any(True for _ in self._call_starts(name))
        return known

    def _call_starts(self, name: str) -> Iterator[int]:
        """Where the text calls ``name`` (as ``_is_called`` counts calls)."""
        for match in re.finditer(rf"{re.escape(name)}(?<!\w{re.escape(name)})\s*\(", self._text):
            if _is_call_at(self._text, match.start(), self._top_classes):
                yield match.start()

    @functools.cached_property
    def _top_classes(self) -> frozenset[str]:
        """The names of the module's top-level classes, from the text."""
        return frozenset(m.group(1) for m in _TOP_CLASS.finditer(self._text))

    def _mentions(self, name: str, attributes: bool = True) -> int:
        """How often ``name`` occurs in the code as a whole word, less the
        ``def`` lines that define it (comments and string literals aside:
        ``help="the data to evaluate"`` is no mention of ``evaluate``), and
        keyword arguments (``Darknet(cfg, test_emb=True)`` names no function);
        without ``attributes``, ``.name`` neither (``opt.test_emb`` is no
        module-level function)."""
        key = name if attributes else f".{name}"
        known = self._mention_counts.get(key)
        if known is None:
            escaped = re.escape(name)
            code, defs = self._code
            words = 0
            for match in re.finditer(rf"(?<!\w){escaped}(?!\w)", code):
                before = _before(code, match.start())
                if not attributes and before == ".":
                    continue
                if before in ("(", ",") and _KEYWORD_EQUALS.match(code, match.end()):
                    continue
                words += 1
            known = self._mention_counts[key] = words - defs[name]
        return known

    @functools.cached_property
    def _code(self) -> tuple[str, Counter[str]]:
        """The text with comments and string literals blanked (``_code_only``),
        and the functions it defines."""
        code = _code_only(self._text)
        return code, _def_counts(code) if code is not self._text else self._def_counts

    @property
    def positions(self) -> Positions:
        if self._positions is None:
            self._positions = Positions(self.source)
        return self._positions

    def start(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self.positions.start(node)

    def end(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self.positions.end(node)

    def line(self, node: syntax.CSTNode) -> int:
        return self.positions.start(node)[0]

    def outer_start(self, node: syntax.CSTNode) -> tuple[int, int]:
        """Where ``node`` starts, its own parentheses included."""
        return self.positions.outer_start(node)

    def outer_end(self, node: syntax.CSTNode) -> tuple[int, int]:
        return self.positions.outer_end(node)

    def code(self, node: syntax.CSTNode) -> str:
        return self.positions.code(node)


def _is_call_at(text: str, start: int, classes: frozenset[str] = frozenset()) -> bool:
    """Is the name at ``start`` (followed by ``(``) called there as the file's
    own function: ``f(``, ``self.f(``, ``cls.f(``, ``Cls.f(`` of one of the
    module's ``classes``, not ``obj.f(``, not ``def f(``, not on a doctest
    or comment line?"""
    if text[start - 1 : start] == ".":
        owner = _OWNER_BEFORE.search(text, max(start - 200, 0), start)
        if owner is not None and (owner.group(1) in ("self", "cls") or owner.group(1) in classes):
            start = owner.start(1)
        else:
            return False  # ``obj.f(``
        if start and (text[start - 1] == "." or _WORD_CHAR.match(text, start - 1)):
            return False  # ``x.self.f(``, ``myself.f(``
    if text[max(start - 4, 0) : start] == "def ":
        return False
    head = text[text.rfind("\n", 0, start) + 1 : start].lstrip()
    return not head.startswith((">>>", "...", "#"))


_WORD_CHAR = re.compile(r"\w")
#: the name right before a ``.`` that ends the searched text (``self.`` of ``self.f(``)
_OWNER_BEFORE = re.compile(r"(\w+)\.\Z")
#: a top-level ``class`` line: its name
_TOP_CLASS = re.compile(r"^class[ \t]+(\w+)", re.MULTILINE)
#: a ``class`` line (its indentation), a line after the first (its
#: indentation and content), a method's ``def``
_CLASS = re.compile(r"(?:^|\n)([ \t]*)class[ \t]+\w+")
_LINE = re.compile(r"\n([ \t]*)([^\n]*)")
_METHOD = re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)")
#: lines that define a function (``def f``, or ``f = lambda``); the pattern
#: starts with the newline before the line (the text is searched with a
#: newline put in front): ``re`` scans for a leading literal far faster than
#: it tries ``^`` at every position
_DEF = re.compile(r"\n[ \t]*(?:(?:async[ \t]+)?def[ \t]+(\w+)|(\w+)[ \t]*=[ \t]*lambda\b)")


def _within(scope: Scope, outer: Scope) -> bool:
    """Is ``scope`` ``outer`` or nested in it?"""
    current: Optional[Scope] = scope
    while current is not None:
        if current is outer:
            return True
        current = current.parent
    return False


#: ``=`` after a name in a call's arguments: a keyword, not a mention
_KEYWORD_EQUALS = re.compile(r"\s*=(?!=)")


def _before(code: str, start: int) -> str:
    """The character before ``start`` in ``code``, white space skipped ("" at the start)."""
    index = start - 1
    while index >= 0 and code[index].isspace():
        index -= 1
    return code[index] if index >= 0 else ""


def _code_only(text: str) -> str:
    """``text`` with every comment and every string literal but f-strings
    (whose fields are code) blanked, offsets and lines kept; the text itself
    where it does not tokenize (a notebook's shell escapes)."""
    import io
    import tokenize  # (asked of a few files only: not imported at start-up)

    starts = [0]
    for line in io.StringIO(text):  # (the lines ``tokenize`` numbers)
        starts.append(starts[-1] + len(line))
    blanks: list[tuple[int, int]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT or (
                token.type == tokenize.STRING and "f" not in _string_prefix(token.string)
            ):
                (row, col), (end_row, end_col) = token.start, token.end
                blanks.append((starts[row - 1] + col, starts[end_row - 1] + end_col))
    except (tokenize.TokenError, SyntaxError, IndexError):
        return text
    if not blanks:
        return text
    parts: list[str] = []
    done = 0
    for low, high in blanks:
        parts.append(text[done:low])
        parts.append(re.sub(r"[^\n]", " ", text[low:high]))
        done = high
    parts.append(text[done:])
    return "".join(parts)


def _string_prefix(literal: str) -> str:
    """The prefix letters of a string literal, lower-cased (``rb``, ``f``)."""
    return literal[: len(literal) - len(literal.lstrip("rRbBuUfF"))].lower()


def _def_counts(text: str) -> Counter[str]:
    """Names of the functions the text (bare CRs made newlines) defines, and
    how often."""
    return Counter(d or name for d, name in _DEF.findall("\n" + text))


#: Methods that are a public entry point though spelled as dunders.
_PUBLIC_DUNDERS = frozenset({"__call__"})


def _parameters(function: syntax.FunctionDef, scope: Scope) -> list[syntax.Param]:
    """The parameters callers pass (a method's ``self`` aside), ``*args`` and
    ``**kwargs`` included."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if scope.parent is not None and scope.parent.kind == "class" and self_name(scope):
        every = every[1:]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, syntax.Param):
            every.append(star)  # ``*args`` / ``**kwargs``: values from outside too
    return every


def _returns_name(statement: syntax.CSTNode, name: str) -> bool:
    """``return name``, or ``return wraps(fn)(name)`` (``name`` an argument of
    the call returned)."""
    if not isinstance(statement, syntax.Return):
        return False
    value = statement.value
    if isinstance(value, syntax.Name):
        return value.value == name
    return isinstance(value, syntax.Call) and any(
        isinstance(arg.value, syntax.Name) and arg.value.value == name for arg in value.args
    )


_OWN_SCOPES = (syntax.Lambda, syntax.ListComp, syntax.SetComp, syntax.DictComp, syntax.GeneratorExp)


def _rebinds(ancestors: Sequence[syntax.CSTNode], name: str) -> bool:
    """Is the statement around a call (the last of ``ancestors``) an
    assignment to ``name``, as a target of its own or in a tuple?"""
    for node in reversed(ancestors):
        if isinstance(node, _OWN_SCOPES):
            return False  # (``d = [f(d) for d in ds]``: another ``d``)
        if isinstance(node, syntax.Assign):
            return any(name in _target_names(t.target) for t in node.targets)
        if isinstance(node, (syntax.BaseSmallStatement, syntax.BaseStatement)):
            return False
    return False


def _target_names(target: syntax.CSTNode) -> set[str]:
    if isinstance(target, syntax.Name):
        return {target.value}
    if isinstance(target, (syntax.Tuple, syntax.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    return set()


def _is_public(function: syntax.FunctionDef, scope: Scope) -> bool:
    name = function.name.value
    parent = scope.parent
    if parent is None:
        return False
    if name.startswith("_") and name not in _PUBLIC_DUNDERS:
        return parent.kind == "module" and _dispatcher(function) is not None
    if parent.kind == "module":
        return True
    if parent.kind != "class" or not isinstance(parent.node, syntax.ClassDef):
        return False
    return (
        not parent.node.name.value.startswith("_")
        and parent.parent is not None
        and parent.parent.kind == "module"
    )


def _given(keys: Optional[frozenset[str]], position: int, name: str, star: bool) -> bool:
    """Do the calls pass the value ``keys`` names (``External.moved_keys``) to
    the parameter at ``position`` (-1: keyword-only) named ``name``? A
    ``*args`` or ``**kwargs`` parameter may get any of them."""
    return keys is None or star or str(position) in keys or name in keys


def _constructor_of(function: syntax.FunctionDef, scope: Scope) -> Optional[str]:
    """The class whose ``__init__`` ``function`` is, for a top-level class."""
    parent = scope.parent
    if (
        function.name.value != "__init__"
        or parent is None
        or parent.kind != "class"
        or not isinstance(parent.node, syntax.ClassDef)
        or parent.parent is None
        or parent.parent.kind != "module"
    ):
        return None
    return parent.node.name.value


def _dispatcher(function: syntax.FunctionDef) -> Optional[str]:
    """The public generic function ``function`` is registered to as an
    implementation (``@to_numpy.register(nn.Module)`` on a ``def _(...)``):
    callers call it through that function, so its parameters are the public
    API's."""
    for decorator in function.decorators:
        node = decorator.decorator
        if isinstance(node, syntax.Call):
            node = node.func
        if (
            isinstance(node, syntax.Attribute)
            and node.attr.value == "register"
            and isinstance(node.value, syntax.Name)
            and not node.value.value.startswith("_")
        ):
            return node.value.value
    return None


#: a body of statements (where a ``set_grad_enabled`` statement holds until the next)
Suite = Union[syntax.IndentedBlock, syntax.Module]


def _grad_context(
    ancestors: Sequence[syntax.CSTNode],
    scope: Scope,
    grad_set_before: Callable[[Suite, syntax.CSTNode, Scope], Optional[bool]],
    *,
    lambdas: bool = False,
) -> tuple[Optional[bool], Optional[syntax.FunctionDef]]:
    """(the grad mode a ``with`` block, a decorator or an earlier
    ``torch.set_grad_enabled(...)`` statement sets where a node with these
    ancestors runs, else None; the function reached first, if no class or
    with ``lambdas``, lambda, comes before it)."""
    child: Optional[syntax.CSTNode] = None
    for node in reversed(ancestors):
        if child is not None and isinstance(node, (syntax.IndentedBlock, syntax.Module)):
            verdict = grad_set_before(node, child, scope)
            if verdict is not None:
                return verdict, None
        child = node
        if isinstance(node, syntax.With):
            for item in node.items:
                verdict = grad_mode(item.item, scope)
                if verdict is not None:
                    return verdict, None
        elif isinstance(node, syntax.FunctionDef):
            # a decorator sets the grad mode while the call runs; an ``async
            # def``'s call only makes the coroutine, whose body runs when
            # awaited, in the awaiting code's mode (measured on torch 2.13)
            for decorator in () if node.asynchronous else node.decorators:
                verdict = grad_mode(decorator.decorator, scope)
                if verdict is not None:
                    return verdict, None
            return None, node
        elif isinstance(node, syntax.ClassDef) or (lambdas and isinstance(node, syntax.Lambda)):
            return None, None
    return None, None


def _framework_calls_without_grad(function: syntax.FunctionDef, scope: Scope) -> bool:
    """Is ``function`` a method a framework calls with grad disabled
    (``validation_step`` of a ``LightningModule`` subclass)?"""
    if function.asynchronous:
        return False
    name = function.name.value
    if name == "forward" and _autograd_function_method(scope):
        return True  # ``torch.autograd.Function.apply`` runs it so
    return any(name in ops.FRAMEWORK_NO_GRAD_METHODS[base] for base in framework_bases(scope))


#: where a custom autograd function's ``backward`` gets its gradients from
_AUTOGRAD_PASSES = (
    "autograd, which passes the gradients of `forward()`'s outputs: on their device, and "
    "requiring grad under `create_graph=True`, so {what} may come"
)


#: tensor methods that keep a tensor where it is (views and dtype casts)
_IN_PLACE_ON_ITS_DEVICE = ops.TORCH_VIEW_METHODS - {"to", "type", "type_as"}


#: ``_forward_returns_host_arrays``: outputs made from arrays, of inputs
#: converted where they are (``x.numpy()``, no ``.cpu()`` or ``.to()``)
_CONVERTED_IN_PLACE = "in place"


def _forward_returns_host_arrays(scope: Scope) -> Optional[str]:
    """Does the ``forward`` of the autograd function whose method ``scope``
    is return only tensors made from NumPy arrays (``torch.from_numpy(z)``,
    or a name bound only to one), computing its result in NumPy? Then
    ``"moved"``, or ``_CONVERTED_IN_PLACE`` where it never moves a tensor
    (an input on an accelerator raises there first); else None."""
    parent = scope.parent
    if parent is None or not isinstance(parent.node, syntax.ClassDef):
        return None
    forward = next(
        (
            statement
            for statement in owner_body(parent.node)
            if isinstance(statement, syntax.FunctionDef) and statement.name.value == "forward"
        ),
        None,
    )
    if forward is None:
        return None
    bound = bindings(forward)  # (None: a parameter, a loop target, an unpacking)

    def from_numpy(value: syntax.BaseExpression, names: frozenset[str]) -> bool:
        while (
            isinstance(value, syntax.Call)
            and isinstance(value.func, syntax.Attribute)
            and value.func.attr.value in _IN_PLACE_ON_ITS_DEVICE
        ):
            value = value.func.value
        if isinstance(value, syntax.Call):
            return qualified_name(value.func, scope) == ops.FROM_NUMPY
        if isinstance(value, syntax.Name) and value.value in bound and value.value not in names:
            inner = names | {value.value}
            return all(v is not None and from_numpy(v, inner) for v in bound[value.value])
        return False

    returned = [value for value, _ in _returns(forward)]
    values = [
        element.value
        for value in returned
        for element in (value.elements if isinstance(value, syntax.Tuple) else ())
    ] + [value for value in returned if not isinstance(value, syntax.Tuple)]
    if not values or not all(from_numpy(value, frozenset()) for value in values):
        return None
    moves = any(
        isinstance(node, syntax.Call)
        and isinstance(node.func, syntax.Attribute)
        and node.func.attr.value in ("cpu", "to", "type", "type_as", *ops.DEVICE_CHANGING_METHODS)
        for node in _descendants(forward.body)
    )
    return "moved" if moves else _CONVERTED_IN_PLACE


#: a skip where no accelerator is, or a marker of tests that need one
_ACCELERATOR_SKIP = re.compile(
    r"skip\w*\((?s:.)*(cuda|gpu|mps|accelerator)|mark\.(\w*gpu\w*|\w*cuda\w*)\b",
    re.IGNORECASE,
)
#: a module's ``pytestmark = ...`` statement (its first line, and a bracket's lines)
_PYTESTMARK = re.compile(r"^pytestmark\s*=.*(?:\n[ \t]+.*)*", re.MULTILINE)


def _calling_owner(site: callers.CallSite) -> Optional[syntax.CSTNode]:
    """The function, class or module whose code makes the call, the code
    around a lambda for a call in the lambda's body."""
    owner = callers.owner_of(site.ancestors)
    if owner is None:
        around = callers.lambda_owner(site.ancestors)
        return around[0] if around is not None else None
    return owner


def _descendants(node: syntax.CSTNode) -> Iterator[syntax.CSTNode]:
    """``node``'s descendants, those of nested functions and classes too."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _autograd_function_method(scope: Scope) -> bool:
    """Is ``scope`` a method of a class derived from ``torch.autograd.Function``?"""
    parent = scope.parent
    if parent is None or not isinstance(parent.node, syntax.ClassDef):
        return False
    return any(
        base.keyword is None and qualified_name(base.value, parent) in ops.AUTOGRAD_FUNCTION_CLASSES
        for base in parent.node.bases
    )


def _awaited(site: callers.CallSite) -> bool:
    """``await f(...)``: the coroutine runs right where it is made."""
    parent = site.ancestors[-1] if site.ancestors else None
    return isinstance(parent, syntax.Await) and parent.expression is site.call


def _grad_sets(body: Sequence[syntax.CSTNode], scope: Scope) -> dict[int, Optional[bool]]:
    """Statement -> the grad mode the last ``torch.set_grad_enabled(...)``
    statement before it in ``body`` set (only where there is one)."""
    table: dict[int, Optional[bool]] = {}
    verdict: Optional[bool] = None
    for statement in body:
        if verdict is not None:
            table[id(statement)] = verdict
        if not isinstance(statement, syntax.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, syntax.Expr) and isinstance(small.value, syntax.Call):
                call = small.value
                if qualified_name(call.func, scope) in ops.SET_GRAD_ENABLED:
                    verdict = grad_mode(call, scope)
    return table


def _returns(
    function: syntax.FunctionDef,
) -> list[tuple[syntax.BaseExpression, list[syntax.CSTNode]]]:
    """The values ``function`` returns (not those of functions or lambdas
    nested in it), each with its ancestors from the function down."""
    found: list[tuple[syntax.BaseExpression, list[syntax.CSTNode]]] = []
    #: values stored into a dict by name (``d.update({...})``, ``d[k] = v``)
    stored: list[tuple[str, syntax.BaseExpression, list[syntax.CSTNode]]] = []
    stack: list[tuple[syntax.CSTNode, list[syntax.CSTNode]]] = [(function.body, [function])]
    while stack:
        node, path = stack.pop()
        inner = [*path, node]
        for child in children(node):
            if isinstance(child, (syntax.FunctionDef, syntax.Lambda, syntax.ClassDef)):
                continue
            if isinstance(child, syntax.Return):
                if child.value is not None:
                    found.append((child.value, inner))
                continue
            stored.extend((name, value, inner) for name, value in _dict_stores(child))
            if not isinstance(child, syntax.BaseExpression):
                stack.append((child, inner))
    returned = {v.value for v, _ in found if isinstance(v, syntax.Name)}
    return found + [(value, path) for name, value, path in stored if name in returned]


def _dict_stores(node: syntax.CSTNode) -> list[tuple[str, syntax.BaseExpression]]:
    """``d.update({k: v})`` / ``d[k] = v`` as a statement: ``[("d", v), ...]``."""
    if isinstance(node, syntax.Expr):
        call = node.value
        if (
            isinstance(call, syntax.Call)
            and isinstance(call.func, syntax.Attribute)
            and call.func.attr.value == "update"
            and isinstance(call.func.value, syntax.Name)
            and len(call.args) == 1
            and isinstance(call.args[0].value, syntax.Dict)
        ):
            name = call.func.value.value
            display = call.args[0].value
            return [(name, e.value) for e in display.elements if isinstance(e, syntax.DictElement)]
    if isinstance(node, syntax.Assign) and len(node.targets) == 1:
        target = node.targets[0].target
        if isinstance(target, syntax.Subscript) and isinstance(target.value, syntax.Name):
            return [(target.value.value, node.value)]
    return []


def _add_path(wanted: set[int], ancestors: Sequence[syntax.CSTNode]) -> None:
    """Add the ancestors' ids to ``wanted``, which holds whole paths from the
    root: from the innermost up to the first one already there (sites below
    one node share its path)."""
    for node in reversed(ancestors):
        if id(node) in wanted:
            return
        wanted.add(id(node))


#: how many calls up from a converting function the API boundary is looked for
_ENTRY_DEPTH = 2

#: candidates that are no evidence that their function's arguments come from
#: outside: a call of a helper, of a NumPy function, of a library function
_NOT_BOUNDARY = frozenset({"helper", "npcall", "libcall", "axescall", "estcall"})


def _owner(candidate: Candidate) -> Owner:
    for node in reversed(candidate.ancestors):
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Module)):
            return node
    raise AssertionError("a candidate outside any module")


class Site:
    """One candidate node, with the answers rules need about it."""

    def __init__(self, analysis: ModuleAnalysis, candidate: Candidate) -> None:
        self.analysis = analysis
        self.candidate = candidate
        self.node = candidate.node
        self.scope: Scope = candidate.scope
        self.owner = _owner(candidate)
        self.qualname: Optional[str] = None
        #: for a call of a function that returns a conversion of its argument
        self.callee: Optional[Callee] = None
        #: for an assignment into a NumPy sub-array (``preds[i] = out``)
        self.store: Optional[Store] = None
        self.kind = self._classify()

    def _classify(self) -> str:
        node = self.node
        kind = self.candidate.kind
        if kind == "numpy":
            return "numpy"
        if kind == "data":
            return "data"
        if kind == "store":
            assert isinstance(node, syntax.Assign)
            bound = functools.partial(self.analysis.bindings_of, self.owner)
            for target in node.targets:
                if isinstance(target.target, syntax.Subscript):
                    found = subarray_store(target.target, node.value, bound, self.scope)
                    if found is not None:
                        self.store = found
                        return "array_store"
            return ""
        assert isinstance(node, syntax.Call)
        if kind == "helper":
            callees = self.scope.module().callees
            callee = callees.of(node, self.scope) if callees else None
            if callee is None or callee.summary.alias is None:
                return ""
            self.callee = callee
            return "helper_numpy" if callee.summary.alias[1] == "numpy" else "helper_from_numpy"
        if kind == "axescall":
            assert isinstance(node.func, syntax.Attribute)
            self.qualname = f"matplotlib.axes.Axes.{node.func.attr.value}"
            return "library_function"
        if kind == "estcall":
            assert isinstance(node.func, syntax.Attribute)
            self.qualname = f"{library_table.ESTIMATOR}.{node.func.attr.value}"
            return "library_function"  # (every method the index takes has a row)
        qual = qualified_name(node.func, self.scope)
        self.qualname = qual
        if kind == "libcall":
            return "library_function" if qual in self.analysis.library_calls.by_name else ""
        if qual == ops.FROM_NUMPY:
            return "from_numpy"
        if qual in ops.AS_TENSOR_FUNCS:
            return "as_tensor"
        if qual in ops.NUMPY_CONVERTING_FUNCS:
            return "numpy_function"
        return ""

    # -- per-function answers ------------------------------------------------

    @property
    def function(self) -> FunctionAnalysis:
        return self.analysis.function(self.owner)

    def is_tensor(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` known to be a torch tensor here? (A literal or display
        is not, without the walk of the function its facts need.)"""
        return may_be_tensor(expr) and TENSOR in self.facts(expr)

    def may_be_tensor_value(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` a torch tensor on some path only (``MAY_TENSOR``)?"""
        return may_be_tensor(expr) and may_be_tensor_only(self.facts(expr))

    def from_module_output(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` computed from a forward pass's output (``TORCH_DATA``)
        without being known to be a tensor (``net(x).argmax(1)``), and no
        parameter (which other callers may pass other values)?"""
        if not may_be_tensor(expr) or (
            isinstance(expr, syntax.Name) and expr.value in self.scope.params
        ):
            return False
        facts = self.facts(expr)
        return TORCH_DATA in facts and TENSOR not in facts

    def is_torch_value(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` known to be a tensor, or a module's output, here?"""
        if not may_be_tensor(expr):
            return False
        return torch_valued(self.facts(expr), self.scope)

    def converted_as(self, expr: syntax.BaseExpression, lists: bool = True) -> Optional[str]:
        """What ``expr`` is to a call that converts it, from one evaluation of
        its facts: ``"tensor"``; ``"list"``, a list or tuple of tensors
        (``[model(x) for x in xs]``, a list filled by ``append``; asked only
        with ``lists``); ``"output"``, the very value a forward pass returned
        (``net(x)``, a name bound to it: a tensor, or tensors); else None."""
        typed = may_be_tensor(expr)
        if not (typed or lists):
            return None
        facts = self.facts(expr)
        if typed and TENSOR in facts:
            return "tensor"
        if typed and may_be_tensor_only(facts):
            return "tensor"  # (a list that holds one is not one)
        if ELEMS in facts:
            return "list" if lists else None
        if typed and OUTPUT in facts:
            return "output"
        return None

    def facts(self, expr: syntax.BaseExpression) -> Facts:
        """The provenance facts of ``expr`` where this site evaluates it."""
        env = self.function.env_at(self.candidate.ancestors)
        function = self.function
        params = self._inputs()[0]
        evaluator = FactEvaluator(self.scope, function.attributes, params, function.flags)
        env = self._guarded(env, evaluator)
        ancestors = self.candidate.ancestors
        for i, node in enumerate(ancestors):
            if isinstance(node, COMPREHENSIONS):  # ``[p.numpy() for p in m.parameters()]``
                env = comprehension_env(evaluator, node, env, [*ancestors[i + 1 :], self.node])
        return evaluator.expr(expr, env)

    def _guarded(self, env: Env, evaluator: FactEvaluator) -> Env:
        """Refine ``env`` by the conditional expressions the site sits in:
        ``... if t.requires_grad else t.numpy()`` (``t`` has no grad there),
        ``... if t.is_cuda else t.numpy()`` (``t`` is on the CPU there),
        ``x.numpy() if isinstance(x, tf.Tensor) else ...`` (not torch's)."""
        ancestors = self.candidate.ancestors
        refined: Optional[Env] = None
        for i, node in enumerate(ancestors):
            if not isinstance(node, syntax.IfExp):
                continue
            inner = ancestors[i + 1] if i + 1 < len(ancestors) else self.node
            if inner is not node.orelse and inner is not node.body:
                continue
            guards = type_guards(node.test, self.scope)
            kinds = guards.body if inner is node.body else guards.orelse
            if kinds:
                refined = dict(env) if refined is None else refined
                refine(refined, kinds, lambda key: evaluator.expr(parse_expression(key), env))
            flag = flag_test(node.test)  # ``x.cpu().numpy() if use_cuda else x.numpy()``
            if flag is not None and inner is (node.orelse if flag[1] else node.body):
                refined = dict(env) if refined is None else refined
                also = evaluator.flags.get(flag[0], "")
                for name, facts in list(refined.items()):
                    refined[name] = never_moved_under(facts, flag[0], self.scope, also)
                never_moved_attributes(evaluator, flag[0], refined)
            on_cpu = on_cpu_test(node.test)  # ``x.numpy() if x.is_cpu else ...``
            cpu_key = None
            if on_cpu is not None and inner is (node.body if on_cpu[1] else node.orelse):
                cpu_key = on_cpu[0]
            grad_key = requires_grad_test(node.test) if inner is node.orelse else None
            for key, fact in ((grad_key, NOGRAD), (cpu_key, CPU)):
                if key is not None:
                    refined = dict(env) if refined is None else refined
                    known = refined.get(key)
                    if known is None:
                        known = evaluator.expr(parse_expression(key), env)
                    refined[key] = known | {fact}
        return env if refined is None else refined

    # -- evidence --------------------------------------------------------------

    def device_evidence(self, expr: syntax.BaseExpression) -> Optional[Evidence]:
        """Why ``expr`` may be on an accelerator here, if the code says so.

        Outside library code (tests, examples, scripts, notebooks) a file that
        never names an accelerator gives no such evidence, but for a tensor
        made on the default device that a module it imports makes CUDA (such
        a file runs on the GPU without naming it).
        """
        facts = self.facts(expr)
        if CPU in facts:
            return None
        if not self.analysis.library and not self.analysis.runs_elsewhere:
            return self._closest(facts, DEV, lambda e: e.kind == "default-device")
        return self._closest(facts, DEV)

    def grad_evidence(self, expr: syntax.BaseExpression) -> Optional[Evidence]:
        """Why ``expr`` may require grad here, if the code says so.

        In a no-grad context there is none: the conversion checks
        ``GradMode::is_enabled() && requires_grad``, so even a parameter
        converts there (measured on torch 2.13).

        A test suite gives none anywhere (library code too), except in a
        test skipped where no accelerator is: a conversion that raises for
        grad raises on every machine, so a suite that passes has run it.

        Outside library code, a file that never names an accelerator runs as
        written, on the CPU, with no callers from elsewhere. There an
        example, a script or a notebook gives only what it shows itself,
        a tensor made to require grad or one it calls ``.backward()`` on
        (``facts.shown_as_written``): such code is run by readers, not by a
        suite, and on today's libraries its conversions crash whatever the
        author's versions did (``plt.plot(losses)``). A parameter or a
        module's output there is not evidence (the strict TL112 still reports).

        Nor, anywhere, is the API boundary's guess that a public function's
        callers may pass a tensor that requires grad (``is_grad_guess``); a
        caller in another file that shows the cause still is.
        """
        if self.analysis.framework_suite and not self._runs_only_with_an_accelerator():
            # a conversion that raises for grad raises on every machine: a
            # suite that passes has run it (device evidence still counts: a
            # suite may run on an accelerator only where there is one)
            return None
        as_written = not self.analysis.library and not self.analysis.runs_elsewhere
        if as_written and self.analysis.test_suite:
            return None  # (a test's text, run as written on the CPU)
        facts = self._grad_facts(expr)
        if facts is None:
            return None
        # ``out.cpu().numpy()`` of a forward pass of a module the code did not
        # build, in a file that trains nothing: whether the module requires
        # grad is decided elsewhere (FORWARD_PASS)
        host = CPU in facts and not self.analysis.trains

        def counts(found: Evidence) -> bool:
            if host and forward_pass_of_a_given_module(found):
                return False
            if is_grad_guess(found):
                return False  # a guess about callers nobody shows (is_grad_guess)
            return shown_as_written(found) if as_written else True

        found = self._closest(facts, GRAD, counts)
        if (
            found is not None
            and self.analysis.numpy_checks_grad_mode
            and isinstance(self.owner, syntax.FunctionDef)
            and self.analysis.called_without_grad_elsewhere(self.owner)
        ):
            return None  # every caller in the project's other files disables grad
        return found

    def _runs_only_with_an_accelerator(self) -> bool:
        """Is the site in a test skipped where no accelerator is (a
        decorator of its function or class that skips on
        ``torch.cuda.is_available()``, a ``gpu`` / ``cuda`` marker, or a
        module-level ``pytestmark`` doing so)? Such a test may never have run."""
        if _ACCELERATOR_SKIP.search(self.analysis.module_marks):
            return True
        for node in self.candidate.ancestors:
            if isinstance(node, (syntax.FunctionDef, syntax.ClassDef)):
                for decorator in node.decorators:
                    if _ACCELERATOR_SKIP.search(self.analysis.code(decorator.decorator)):
                        return True
        return False

    def forward_pass(self, expr: syntax.BaseExpression) -> Optional[Evidence]:
        """The forward pass with grad enabled that ``expr`` comes from, for
        the strict TL112 to name where ``grad_evidence`` does not count it
        (an output moved to the host in a file that trains nothing, a
        script's pass: ``FORWARD_PASS``). None where grad is off here or the
        value is proven free of it."""
        facts = self._grad_facts(expr)
        return None if facts is None else self._closest(facts, GRAD, is_forward_pass)

    def grad_guess(self, expr: syntax.BaseExpression) -> Optional[Evidence]:
        """The API boundary's grad guess that ``expr`` rests on, for the
        strict TL112 to name (``is_grad_guess``: ``grad_evidence`` does not
        count it). None where grad is off here or the value is proven free
        of it."""
        facts = self._grad_facts(expr)
        return None if facts is None else self._closest(facts, GRAD, is_grad_guess)

    def _grad_facts(self, expr: syntax.BaseExpression) -> Optional[Facts]:
        """The facts of ``expr`` where its grad matters: None where the grad
        mode here lets it convert, or it is proven free of grad."""
        if self._grad_mode_exempts(expr):
            return None
        facts = self.facts(expr)
        return None if NOGRAD in facts else facts

    def _grad_mode_exempts(self, expr: syntax.BaseExpression) -> bool:
        """Does the grad mode here let ``expr.numpy()`` convert whatever
        ``expr`` is? Under ``no_grad`` on torch >= 1.6, yes; before 1.6 only
        a value computed there (not a named tensor or a view of one, which
        keeps its ``requires_grad``)."""
        if not self.in_no_grad():
            return False
        return self.analysis.numpy_checks_grad_mode or not keeps_grad_flag(expr, self.scope)

    def _inputs(self) -> tuple[Optional[Mapping[str, Facts]], Mapping[str, syntax.Call]]:
        """What the callers in the file give the parameters of the function
        (or lambda) the site is in, and the calls the evidence came through."""
        function = self.function
        if self.scope is function.scope:
            return function.params, function.via
        node = self.scope.node
        if isinstance(node, syntax.Lambda):
            return self.analysis.lambda_inputs(node)
        return None, {}

    def may_be_number(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` a plain number on some path (``total = 0``, then
        ``total += loss`` in a loop that may not run)?"""
        return MAY_NUMBER in self.facts(expr)

    def tensor_only_by_annotation(self, expr: syntax.BaseExpression) -> bool:
        """Is ``expr`` a parameter known to be a tensor only from its annotation?"""
        if not isinstance(expr, syntax.Name) or expr.value not in self.scope.params:
            return False
        return expr.value not in self.function.env_at(self.candidate.ancestors)

    def _closest(
        self, facts: Facts, prefix: str, keep: Optional[Callable[[Evidence], bool]] = None
    ) -> Optional[Evidence]:
        """The evidence that decided: what the code shows (a move, a module's
        output, ...) before the API boundary's guess; of those, the nearest
        before the site or inside it (``m(x.cuda()).numpy()``: ``x.cuda()``),
        else the first after it. ``keep``: only the evidence it accepts (the
        boundary's guess as the callers in other files answer it)."""
        table = self.scope.module().evidence
        via = self._inputs()[1]
        found: list[Evidence] = []
        for token in facts:
            if token.startswith(prefix) and token in table:
                call = via.get(token)
                found.append(table[token] if call is None else table[token]._replace(via=call))
        shown = [e for e in found if e.kind not in API_KINDS and (keep is None or keep(e))]
        if not shown:
            # only the boundary's guess: the callers in other files answer it
            resolved = [self.analysis.resolve_boundary(e) for e in found if e.kind in API_KINDS]
            # (the guess through a helper counts only as the callers settle it)
            shown = [
                e
                for e in resolved
                if e is not None and (e.shown or not e.settled_only) and (keep is None or keep(e))
            ]
            if not shown:
                return None
        found = shown
        here = self.analysis.end(self.node)
        placed = sorted(found, key=lambda e: (self.analysis.start(e.node), e.kind))
        before = [e for e in placed if self.analysis.start(e.node) <= here]
        return before[-1] if before else placed[0]

    @property
    def conversion(self) -> Optional[Conversion]:
        if isinstance(self.node, syntax.Call):
            return self.function.conversion(self.node)
        return None

    def moved_by(self) -> Optional[syntax.Call]:
        """The ``.to(...)`` call that takes the conversion's result at once
        (``torch.from_numpy(a).to(device)``), when ``copy=True`` can be added
        to it: a device or dtype given, no ``copy`` yet, no ``*args``/``**kw``."""
        ancestors = self.candidate.ancestors
        if len(ancestors) < 2:
            return None
        attribute, call = ancestors[-1], ancestors[-2]
        if not (
            isinstance(attribute, syntax.Attribute)
            and attribute.value is self.node
            and attribute.attr.value == "to"
            and isinstance(call, syntax.Call)
            and call.func is attribute
            and call.args
        ):
            return None
        if any(a.star or (a.keyword is not None and a.keyword.value == "copy") for a in call.args):
            return None
        return call

    # -- ``.numpy()`` calls ----------------------------------------------------

    @property
    def receiver(self) -> syntax.BaseExpression:
        assert isinstance(self.node, syntax.Call) and isinstance(self.node.func, syntax.Attribute)
        return self.node.func.value

    def numpy_is_forced(self) -> bool:
        assert isinstance(self.node, syntax.Call)
        force = keyword(self.node, "force")
        return force is not None and not is_false(force)

    def is_torch_numpy(self) -> bool:
        """Is this ``.numpy()`` a torch ``Tensor.numpy()`` worth checking?"""
        if self.kind != "numpy" or not self.analysis.torch_module:
            return False
        if self.in_forwarding_method():
            return False
        facts = self.facts(self.receiver)
        if self.analysis.tested_for_torch:
            return TENSOR in facts  # only where the file's own test says so
        return not (facts & {OTHER, NDARRAY, NOTTENSOR, ELEMENT})

    def needs_device_move(self) -> bool:
        """Is the receiver not known to be on the CPU? (What the fix must assume.)"""
        return not self.numpy_is_forced() and CPU not in self.facts(self.receiver)

    def needs_detach(self) -> bool:
        """May the receiver require grad here, as far as we can prove? (The fix's view.)"""
        if self.numpy_is_forced():
            return False
        if self._grad_mode_exempts(self.receiver):
            return False
        return NOGRAD not in self.facts(self.receiver)

    def device_hazard(self) -> Optional[Evidence]:
        """TL101's question: is there evidence the receiver may be on an accelerator?"""
        if self.numpy_is_forced():
            return None
        return self.device_evidence(self.receiver)

    def grad_hazard(self) -> Optional[Evidence]:
        """TL102's question: is there evidence the receiver may require grad here?"""
        if self.numpy_is_forced():
            return None
        return self.grad_evidence(self.receiver)

    def in_forwarding_method(self) -> bool:
        owner = self.owner
        return isinstance(owner, syntax.FunctionDef) and owner.name.value in ("numpy", "__array__")

    # -- contexts ------------------------------------------------------------

    def in_no_grad(self) -> bool:
        verdict, function = _grad_context(
            self.candidate.ancestors, self.scope, self.analysis.grad_set_before
        )
        if verdict is not None:
            return verdict
        return function is not None and self.analysis.called_only_without_grad(function)

    def unreached_no_grad_decorator(self) -> Optional[syntax.Decorator]:
        """``@torch.no_grad()`` on the ``async def`` the site is in, which
        does not reach its body (the coroutine runs when awaited)."""
        if self.in_no_grad():
            return None
        for node in reversed(self.candidate.ancestors):
            if isinstance(node, (syntax.ClassDef, syntax.Lambda, syntax.With)):
                return None
            if isinstance(node, syntax.FunctionDef):
                if not node.asynchronous:
                    return None
                for decorator in node.decorators:
                    if grad_mode(decorator.decorator, self.scope) is True:
                        return decorator
                return None
        return None

    # -- where the result goes -------------------------------------------------

    def retained(self) -> bool:
        """Does the conversion's result outlive the expression (is it bound,
        stored, returned or yielded)?"""
        conversion = self.conversion
        dtype = None
        if conversion is not None:
            dtype = self.function.log.storages[conversion.result].dtype
        return _retention(
            self.node, self.candidate.ancestors, self.scope, self.result_is_array(), dtype
        )

    def result_is_array(self) -> Optional[bool]:
        """Is the conversion's result an ndarray (True) or a tensor (False)?"""
        if self.kind in ("numpy", "helper_numpy"):
            return True
        if self.kind in ("from_numpy", "as_tensor", "helper_from_numpy"):
            return False
        return None

    def stays_in_function(self) -> bool:
        """Is the kept result only read in its function, or collated by a
        DataLoader (``escape.py``)?"""
        return escape.stays_in_function(
            self.node, self.candidate.ancestors, self.scope, self.result_is_array()
        )

    def written_through_directly(self) -> bool:
        """``torch.from_numpy(a).fill_(0)``: the write is the point."""
        return not self.retained() and _directly_written(self.node, self.candidate.ancestors)


def _retention(
    node: syntax.CSTNode,
    ancestors: Sequence[syntax.CSTNode],
    scope: Scope,
    array: Optional[bool],
    dtype: Optional[str],
) -> bool:
    """``array``: the result is an ndarray (``.numpy()``), not a tensor;
    ``dtype``: its element type, where known (a cast to another is a copy)."""
    child: syntax.CSTNode = node
    i = len(ancestors) - 1
    while i >= 0:
        parent = ancestors[i]
        if isinstance(parent, syntax.Attribute) and parent.value is child:
            attr = parent.attr.value
            if attr in ops.TORCH_VIEW_ATTRS or attr in ops.NUMPY_VIEW_ATTRS:
                child, i = parent, i - 1
                continue
            call = ancestors[i - 1] if i >= 1 else None
            if (
                isinstance(call, syntax.Call)
                and call.func is parent
                and is_view_call(call, attr, array)
            ):
                step = dtypes.step_type(call, scope)
                if dtype is not None and step not in (None, dtypes.CHANGED) and step != dtype:
                    return False  # ``torch.from_numpy(float64).float()`` copies
                dtype = None if step == dtypes.CHANGED else (step or dtype)
                child, i = call, i - 2
                continue
            return False
        if isinstance(parent, syntax.Subscript) and parent.value is child:
            if is_basic_index(parent):
                child, i = parent, i - 1
                continue
            return False
        if isinstance(parent, syntax.Assign) and escape.copied_into(parent, scope):
            return False  # ``buf[i] = t.numpy()``: the elements are copied into ``buf``
        if isinstance(parent, (syntax.Assign, syntax.AnnAssign, syntax.NamedExpr, syntax.Return)):
            return True
        if isinstance(parent, (syntax.Yield,)):
            return True
        if isinstance(parent, (syntax.Element, syntax.DictElement, syntax.StarredElement)):
            child, i = parent, i - 1
            continue
        if isinstance(parent, (syntax.List, syntax.Tuple, syntax.Set, syntax.Dict, syntax.IfExp,
                               syntax.BooleanOperation)):  # fmt: skip
            child, i = parent, i - 1
            continue
        if isinstance(parent, syntax.Arg):
            call = ancestors[i - 1] if i >= 1 else None
            if not isinstance(call, syntax.Call):
                return False
            if parent.keyword is not None and parent.keyword.value in ops.OUT_KEYWORDS:
                return False
            func = call.func
            if (
                isinstance(func, syntax.Attribute)
                and func.attr.value in ops.CONTAINER_STORE_METHODS
            ):
                return qualified_name(func, scope) is None
            if qualified_name(func, scope) in ops.NUMPY_VIEW_FUNCS:
                child, i = call, i - 2
                continue
            return False
        return False
    return False


def _directly_written(node: syntax.CSTNode, ancestors: Sequence[syntax.CSTNode]) -> bool:
    """Is the conversion's result written right where it is made?

    ``t.numpy()[:] = v``, ``torch.from_numpy(a).zero_()``, ``out=t.numpy()``,
    ``np.copyto(t.numpy(), v)``.
    """
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, syntax.Attribute) and parent.value is node:
        return ops.in_place_method(parent.attr.value) is not None
    if isinstance(parent, syntax.Subscript) and len(ancestors) >= 2:
        target = ancestors[-2]
        return isinstance(target, (syntax.AssignTarget, syntax.AugAssign)) and (
            target.target is parent
        )
    if isinstance(parent, syntax.Arg):
        if parent.keyword is not None:
            return parent.keyword.value in ops.OUT_KEYWORDS
        call = ancestors[-2] if len(ancestors) >= 2 else None
        if isinstance(call, syntax.Call) and call.args and call.args[0] is parent:
            name = (
                call.func.attr.value
                if isinstance(call.func, syntax.Attribute)
                else (call.func.value if isinstance(call.func, syntax.Name) else "")
            )
            return any(f.rsplit(".", 1)[1] == name for f in ops.NUMPY_INPLACE_FUNCS)
    return False
