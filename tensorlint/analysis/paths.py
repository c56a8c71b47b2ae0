"""What a test says about the path it guards, for correlated branches.

Code often decides once and acts on the decision later::

    if isinstance(scores, np.ndarray):
        scores = torch.Tensor(scores)
        return_type = "numpy"
    elif isinstance(scores, torch.Tensor):
        return_type = "torch"
    preds = one_hot(scores.argmax(1))
    if return_type == "numpy":
        return preds.numpy()        # only the first path reaches here

A walk that merges the two paths after the first ``if`` has forgotten which
one set ``return_type``. This module gives the walker (``flow.FactsWalker``)
what it needs to remember it: the *literals* a path is known to satisfy
(``return_type == "numpy"``, ``use_gl`` false, ``force`` true), in
disjunctive normal form, from the tests of the ``if`` statements it went
through and the constants its branches assign, and whether two sets of
literals can hold at once.

Only names and attributes a test reads directly are literals (``x``,
``self.use_cuda``, ``mode == "eval"``, ``d is None``, ``k in ("a", "b")``);
any other test (``isinstance(...)``, a call) says nothing and is always
satisfiable. Nothing here is ever a reason to report: the walker uses it
only to drop evidence that reaches a branch through paths its test rules out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, Optional

from tensorlint.analysis import syntax
from tensorlint.analysis.names import dotted_name, target_names
from tensorlint.analysis.walk import children


class Literal(NamedTuple):
    """``key`` is (``op`` ``"=="``) or is not (``"!="``) the constant whose
    ``repr`` is ``value`` and whose truth is ``truthy``; or (``op``
    ``"truth"``) has the truth ``truthy``."""

    key: str
    op: str
    value: str
    truthy: bool

    def negated(self) -> Literal:
        if self.op == "truth":
            return self._replace(truthy=not self.truthy)
        return self._replace(op="!=" if self.op == "==" else "==")


Conjunction = frozenset[Literal]
#: a disjunction of conjunctions; ``[frozenset()]`` holds always, ``[]`` never
DNF = list[Conjunction]

TRUE: DNF = [frozenset()]
_MOST = 16  #: disjuncts kept; a test with more says nothing


def consistent(literals: Iterable[Literal]) -> bool:
    """Can every one of ``literals`` hold at once?"""
    truths: dict[str, bool] = {}
    equal: dict[str, str] = {}
    truth_of: dict[str, bool] = {}
    unequal: dict[str, set[str]] = {}
    for lit in literals:
        if lit.op == "truth":
            if truths.setdefault(lit.key, lit.truthy) != lit.truthy:
                return False
        elif lit.op == "==":
            if equal.setdefault(lit.key, lit.value) != lit.value:
                return False
            truth_of[lit.key] = lit.truthy
        else:
            unequal.setdefault(lit.key, set()).add(lit.value)
    for key, value in equal.items():
        if value in unequal.get(key, ()):
            return False
        if key in truths and truths[key] != truth_of[key]:
            return False
    return True


def both(a: DNF, b: DNF) -> DNF:
    """``a and b``, without the conjunctions that cannot hold."""
    found: DNF = []
    for left in a:
        for right in b:
            joined = left | right
            if joined not in found and consistent(joined):
                found.append(joined)
    return found if len(found) <= _MOST else TRUE


def either(a: DNF, b: DNF) -> DNF:
    """``a or b`` (what holds always, where either holds always)."""
    if frozenset() in a or frozenset() in b:
        return TRUE
    found = list(a)
    found.extend(c for c in b if c not in found)
    return found if len(found) <= _MOST else TRUE


def dnf(test: syntax.BaseExpression, holds: bool = True) -> DNF:
    """What ``test`` says where it holds (``holds``) or fails."""
    if isinstance(test, syntax.UnaryOperation) and isinstance(test.operator, syntax.Not):
        return dnf(test.expression, not holds)
    if isinstance(test, syntax.BooleanOperation):
        left, right = dnf(test.left, holds), dnf(test.right, holds)
        conjunction = isinstance(test.operator, syntax.And) == holds
        return both(left, right) if conjunction else either(left, right)
    found = _literals(test)
    if found is None:
        return TRUE
    if holds:
        return [frozenset({lit}) for lit in found[1]] if found[0] == "any" else [found[1]]
    negated = frozenset(lit.negated() for lit in found[1])
    # not (a or b) = not a and not b; not (a and b) = not a or not b
    return [negated] if found[0] == "any" else [frozenset({lit}) for lit in negated]


def _literals(test: syntax.BaseExpression) -> Optional[tuple[str, frozenset[Literal]]]:
    """The literals of one test, and whether ``"any"`` or ``"all"`` of them hold."""
    if isinstance(test, (syntax.Name, syntax.Attribute)):
        key = dotted_name(test)
        if key is None or key in ("True", "False", "None"):
            return None
        return "all", frozenset({Literal(key, "truth", "", True)})
    if isinstance(test, syntax.Call) and not test.args:
        name = dotted_name(test.func)
        if name is not None and name.endswith("cuda.is_available"):
            return "all", frozenset({Literal(f"{name}()", "truth", "", True)})
        return None
    if not isinstance(test, syntax.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator, right, left = target.operator, target.comparator, test.left
    if isinstance(operator, (syntax.In, syntax.NotIn)):
        key = dotted_name(left)
        values = _constants(right)
        if key is None or values is None:
            return None
        lits = frozenset(Literal(key, "==", v, t) for v, t in values)
        if isinstance(operator, syntax.NotIn):
            return "all", frozenset(lit.negated() for lit in lits)
        return "any", lits
    if not isinstance(operator, (syntax.Equal, syntax.NotEqual, syntax.Is, syntax.IsNot)):
        return None
    key, constant = dotted_name(left), constant_of(right)
    if key is None or constant is None:
        key, constant = dotted_name(right), constant_of(left)
    if key is None or constant is None:
        return None
    if isinstance(operator, (syntax.Is, syntax.IsNot)) and constant[0] not in (
        "None",
        "True",
        "False",
    ):
        return None  # (``x is "a"`` compares identities)
    lit = Literal(key, "==", constant[0], constant[1])
    if isinstance(operator, (syntax.NotEqual, syntax.IsNot)):
        lit = lit.negated()
    return "all", frozenset({lit})


def constant_of(node: syntax.BaseExpression) -> Optional[tuple[str, bool]]:
    """The ``repr`` and truth of a constant written in the code, else None."""
    if isinstance(node, syntax.Name) and node.value in ("True", "False", "None"):
        return node.value, node.value == "True"
    if isinstance(node, syntax.SimpleString):
        value = node.evaluated_value
        return repr(value), bool(value)
    if isinstance(node, (syntax.Integer, syntax.Float)):
        text = node.value
        try:
            number = float(int(text, 0)) if isinstance(node, syntax.Integer) else float(text)
        except ValueError:
            return None
        return repr(number), bool(number)
    if isinstance(node, syntax.UnaryOperation) and isinstance(node.operator, syntax.Minus):
        inner = constant_of(node.expression)
        if inner is not None and isinstance(node.expression, (syntax.Integer, syntax.Float)):
            return f"-{inner[0]}", inner[1]
    return None


def _constants(node: syntax.BaseExpression) -> Optional[list[tuple[str, bool]]]:
    if not isinstance(node, (syntax.Tuple, syntax.List, syntax.Set)) or not node.elements:
        return None
    found = []
    for element in node.elements:
        constant = constant_of(element.value)
        if constant is None or isinstance(element, syntax.StarredElement):
            return None
        found.append(constant)
    return found


# -- what a block binds --------------------------------------------------------


def binds(nodes: Iterable[syntax.CSTNode]) -> set[str]:
    """The names and dotted names (``self.mode``) the statements ``nodes``
    bind anywhere inside them (not in the functions and classes they define,
    whose own names count)."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        found.update(_bound_here(node))
        if isinstance(node, (syntax.FunctionDef, syntax.ClassDef, syntax.Lambda)):
            continue
        stack.extend(children(node))
    return found


def _bound_here(node: syntax.CSTNode) -> Iterator[str]:
    targets: Sequence[syntax.BaseExpression] = ()
    if isinstance(node, syntax.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (syntax.AugAssign, syntax.AnnAssign, syntax.For, syntax.CompFor)):
        targets = [node.target]
    elif isinstance(node, syntax.AsName):
        targets = [node.name] if isinstance(node.name, syntax.BaseExpression) else []
    elif isinstance(node, syntax.NamedExpr):
        targets = [node.target]
    elif isinstance(node, (syntax.FunctionDef, syntax.ClassDef)):
        yield node.name.value
    elif isinstance(node, syntax.Del):
        targets = [node.target]
    elif isinstance(node, (syntax.Global, syntax.Nonlocal)):
        yield from (n.name.value for n in node.names)
    for target in targets:
        name = dotted_name(target)
        if name is not None:
            yield name
        else:
            yield from target_names(target)


def _block_bindings(
    statements: Sequence[syntax.CSTNode],
) -> tuple[set[str], dict[str, tuple[str, bool]]]:
    """What a block binds anywhere in it, and the names it leaves bound to a
    constant it assigns at its own level (``return_type = "numpy"``), not
    bound again after."""
    bound: set[str] = set()
    constants: dict[str, tuple[str, bool]] = {}
    for statement in statements:
        constant = _constant_assignment(statement)
        here = binds([statement])
        bound |= here
        for name in here:
            constants.pop(name, None)
        if constant is not None:
            constants[constant[0]] = constant[1]
    return bound, constants


def sets_constants(statements: Sequence[syntax.CSTNode]) -> bool:
    """Does the block assign a constant to a name at its own level?"""
    return any(_constant_assignment(statement) is not None for statement in statements)


def _constant_assignment(
    statement: syntax.CSTNode,
) -> Optional[tuple[str, tuple[str, bool]]]:
    if not isinstance(statement, syntax.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, syntax.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if not isinstance(target, syntax.Name):
        return None
    constant = constant_of(small.value)
    return None if constant is None else (target.value, constant)


def keys(conditions: DNF) -> set[str]:
    return {lit.key for conjunction in conditions for lit in conjunction}


def after_block(conditions: DNF, statements: Sequence[syntax.CSTNode]) -> DNF:
    """What holds at the end of a block entered where ``conditions`` do: the
    literals on names the block binds are gone, its constants hold."""
    bound, constants = _block_bindings(statements)
    extra = frozenset(Literal(k, "==", v, t) for k, (v, t) in constants.items())
    found: DNF = []
    for conjunction in conditions:
        kept = frozenset(lit for lit in conjunction if lit.key not in bound) | extra
        if kept not in found:
            found.append(kept)
    return found
