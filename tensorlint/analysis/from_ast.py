"""Build the analysis tree (``syntax``) from CPython's ``ast``.

CPython parses ten times faster than LibCST and the file is already parsed
for the function summaries; this turns its tree into nodes with LibCST's
names and shapes (``a and b and c`` nests to the left, ``elif`` is an ``If``
in ``orelse``, ``x[a, b]`` has two subscript elements, ``"a" "b"`` is a
``ConcatenatedString``), so the analysis reads one shape whichever parser
built it. Spans are character offsets in the whole file, a node's own
parentheses excluded (as LibCST's positions); ``src_parens`` counts those
parentheses (``(x)`` in ``f((x))`` has one pair, the call's are not its own).
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Optional, Union

from tensorlint.analysis import syntax as S

_NEWLINE = re.compile(r"\r\n|\r|\n")


def line_starts(source: str) -> list[int]:
    """Where each line of ``source`` starts (lines end at ``\\n``, ``\\r\\n``
    or a bare ``\\r``, as for Python's tokenizer)."""
    if "\r" in source:
        return [0, *(m.end() for m in _NEWLINE.finditer(source))]
    lengths = map(len, source.split("\n")[:-1])
    return list(itertools.accumulate(map((1).__add__, lengths), initial=0))


#: one string literal (any prefix, any quotes)
_STRING = re.compile(
    r"""[A-Za-z]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\r\n])*'|"(?:\\.|[^"\\\r\n])*")""",
    re.S,
)
_STRING_START = re.compile(r"""[A-Za-z]{0,2}(?:'''|\"\"\"|'|")""")
_BLANK = re.compile(r"(?:[ \t\f\r\n]|\\\r?\n|\\\r|#[^\r\n]*)*")
_DEF = re.compile(r"(?:async\s+)?def\s+|class\s+")

_BINARY: dict[type[ast.AST], type[S.CSTNode]] = {
    ast.Add: S.Add, ast.Sub: S.Subtract, ast.Mult: S.Multiply, ast.Div: S.Divide,
    ast.FloorDiv: S.FloorDivide, ast.Mod: S.Modulo, ast.Pow: S.Power,
    ast.MatMult: S.MatrixMultiply, ast.LShift: S.LeftShift, ast.RShift: S.RightShift,
    ast.BitOr: S.BitOr, ast.BitAnd: S.BitAnd, ast.BitXor: S.BitXor,
}  # fmt: skip
_AUGMENTED: dict[type[ast.AST], type[S.CSTNode]] = {
    ast.Add: S.AddAssign, ast.Sub: S.SubtractAssign, ast.Mult: S.MultiplyAssign,
    ast.Div: S.DivideAssign, ast.FloorDiv: S.FloorDivideAssign, ast.Mod: S.ModuloAssign,
    ast.Pow: S.PowerAssign, ast.MatMult: S.MatrixMultiplyAssign,
    ast.LShift: S.LeftShiftAssign, ast.RShift: S.RightShiftAssign,
    ast.BitOr: S.BitOrAssign, ast.BitAnd: S.BitAndAssign, ast.BitXor: S.BitXorAssign,
}  # fmt: skip
_BOOLEAN: dict[type[ast.AST], type[S.CSTNode]] = {ast.And: S.And, ast.Or: S.Or}
_UNARY: dict[type[ast.AST], type[S.CSTNode]] = {
    ast.Not: S.Not,
    ast.USub: S.Minus,
    ast.UAdd: S.Plus,
    ast.Invert: S.BitInvert,
}
_COMPARE: dict[type[ast.AST], type[S.CSTNode]] = {
    ast.Eq: S.Equal, ast.NotEq: S.NotEqual, ast.Lt: S.LessThan, ast.LtE: S.LessThanEqual,
    ast.Gt: S.GreaterThan, ast.GtE: S.GreaterThanEqual, ast.Is: S.Is, ast.IsNot: S.IsNot,
    ast.In: S.In, ast.NotIn: S.NotIn,
}  # fmt: skip


_OPERATORS: dict[type[S.CSTNode], S.CSTNode] = {}


def _operator(kinds: Mapping[type[ast.AST], type[S.CSTNode]], node: ast.AST) -> S.CSTNode:
    """The operator node (one shared instance per kind: operators hold no code)."""
    kind = kinds[type(node)]
    made = _OPERATORS.get(kind)
    if made is None:
        made = object.__new__(kind)
        for name in kind.__slots__:  # ``!=``'s spelling: LibCST's only operator field
            setattr(made, name, "!=")
        made = _OPERATORS[kind] = _at(made, 0, 0)
    return made


def _at(node: S.CSTNode, start: int, end: int, parens: int = 0) -> S.CSTNode:
    node.src_start, node.src_end, node.src_parens = start, end, parens
    return node


Statement = Union[S.SimpleStatementLine, S.BaseCompoundStatement]


class Builder:
    """Converts one file's ``ast`` nodes; offsets are the file's."""

    def __init__(self, source: str, starts: Optional[list[int]] = None) -> None:
        self.source = source
        self.line_starts = line_starts(source) if starts is None else starts
        self._ascii = source.isascii()
        #: lines holding a character outside ASCII (their byte columns need decoding)
        self._wide: dict[int, bool] = {}
        #: statements left out of the analysis (``id`` of the ``ast`` node ->
        #: the name they bind): each becomes ``name = None`` (see ``parse.py``)
        self.stubs: dict[int, str] = {}

    # -- offsets ---------------------------------------------------------------

    def offset(self, line: int, column: int) -> int:
        """The character offset of CPython's (line, UTF-8 byte column)."""
        base = self.line_starts[line - 1]
        if self._ascii or self._wide.get(line) is False:
            return base + column
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.source)
        text = self.source[base:end]
        self._wide[line] = not text.isascii()
        if not self._wide[line]:
            return base + column
        return base + len(text.encode("utf-8")[:column].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def _next(self, index: int) -> int:
        """The first character at or after ``index`` that is code (not blank, not a comment)."""
        match = _BLANK.match(self.source, index)
        return match.end() if match else index

    def _previous(self, index: int) -> int:
        """The last code character before ``index`` (-1 when none)."""
        source = self.source
        i = index - 1
        while i >= 0:
            char = source[i]
            if char in " \t\f\\":
                i -= 1
            elif char in "\r\n":
                line = bisect.bisect_right(self.line_starts, i) - 1
                start = self.line_starts[line]
                text = source[start:i]
                cut = _comment_start(text)
                i = start + cut - 1 if cut is not None else i - 1
            else:
                return i
        return -1

    def parens(self, start: int, end: int, forbidden: int = -1) -> int:
        """How many pairs of parentheses surround exactly ``start:end``
        (stopping at ``forbidden``, the opening parenthesis of a call)."""
        source = self.source
        if start == 0 or source[start - 1] not in "( \t\f\r\n\\":
            return 0
        count = 0
        while True:
            before = self._previous(start)
            if before < 0 or source[before] != "(" or before == forbidden:
                return count
            after = self._next(end)
            if after >= len(source) or source[after] != ")":
                return count
            count += 1
            start, end = before, after + 1

    def outer(self, node: S.CSTNode) -> tuple[int, int]:
        """The node's span with its own parentheses."""
        start, end = node.src_start, node.src_end
        for _ in range(node.src_parens):
            start = self._previous(start)
            end = self._next(end) + 1
        return start, end

    # -- statements ------------------------------------------------------------

    def module(self, body: Sequence[ast.stmt]) -> S.Module:
        made = S.Module(self.statements(body))
        return _at(made, 0, len(self.source))  # type: ignore[return-value]

    def statements(self, body: Sequence[ast.stmt]) -> list[Statement]:
        out: list[Statement] = []
        line: list[S.BaseSmallStatement] = []
        last_line = -1
        for statement in body:
            converted = self.statement(statement)
            if isinstance(converted, S.BaseCompoundStatement):
                if line:
                    out.append(self._line(line))
                    line = []
                out.append(converted)
                continue
            if line and statement.lineno != last_line:
                out.append(self._line(line))
                line = []
            line.append(converted)
            last_line = statement.end_lineno or statement.lineno
        if line:
            out.append(self._line(line))
        return out

    def _line(self, body: list[S.BaseSmallStatement]) -> S.SimpleStatementLine:
        made = S.SimpleStatementLine(body)
        return _at(made, body[0].src_start, body[-1].src_end)  # type: ignore[return-value]

    def suite(self, body: Sequence[ast.stmt]) -> S.BaseSuite:
        first = self.offset(body[0].lineno, body[0].col_offset)
        before = self._previous(first)
        statements = self.statements(body)
        between = self.source[before:first] if before >= 0 else "\n"
        if self.source[before] == ":" and "\n" not in between and "\r" not in between:
            small: list[S.BaseSmallStatement] = []
            for statement in statements:
                if isinstance(statement, S.SimpleStatementLine):
                    small.extend(statement.body)
            made: S.BaseSuite = S.SimpleStatementSuite(small)
            return _at(made, first, statements[-1].src_end)  # type: ignore[return-value]
        made = S.IndentedBlock(statements)
        return _at(made, statements[0].src_start, statements[-1].src_end)  # type: ignore[return-value]

    def _orelse(self, orelse: Sequence[ast.stmt]) -> Optional[S.CSTNode]:
        if not orelse:
            return None
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):
            where = self.offset(orelse[0].lineno, orelse[0].col_offset)
            if self.source.startswith("elif", where):
                return self.statement(orelse[0])
        body = self.suite(orelse)
        return _at(S.Else(body), body.src_start, body.src_end)

    def statement(self, node: ast.stmt) -> Union[S.BaseSmallStatement, S.BaseCompoundStatement]:
        start, end = self.span(node)
        stub = self.stubs.get(id(node))
        if stub is not None:
            return self._stub(stub, start)
        made: S.CSTNode
        e = self.expr
        if isinstance(node, ast.Expr):
            made = S.Expr(e(node.value))
        elif isinstance(node, ast.Assign):
            targets = [self._target(t) for t in node.targets]
            made = S.Assign(targets, e(node.value))
        elif isinstance(node, ast.AugAssign):
            op = _operator(_AUGMENTED, node.op)
            made = S.AugAssign(e(node.target), op, e(node.value))  # type: ignore[arg-type]
        elif isinstance(node, ast.AnnAssign):
            made = S.AnnAssign(
                e(node.target),  # type: ignore[arg-type]
                self._annotation(node.annotation),  # type: ignore[arg-type]
                e(node.value) if node.value is not None else None,
            )
        elif isinstance(node, ast.Return):
            made = S.Return(e(node.value) if node.value is not None else None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            made = S.FunctionDef(
                self._def_name(node.name, start),
                self.parameters(node.args),
                self.suite(node.body),
                [self._decorator(d) for d in node.decorator_list],
                self._annotation(node.returns),
                isinstance(node, ast.AsyncFunctionDef),
            )
        elif isinstance(node, ast.ClassDef):
            made = self._class(node, start)
        elif isinstance(node, ast.If):
            made = S.If(e(node.test), self.suite(node.body), self._orelse(node.orelse))  # type: ignore[arg-type]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            made = S.For(
                e(node.target),  # type: ignore[arg-type]
                e(node.iter),
                self.suite(node.body),
                self._orelse(node.orelse) if node.orelse else None,  # type: ignore[arg-type]
            )
        elif isinstance(node, ast.While):
            made = S.While(e(node.test), self.suite(node.body), self._orelse(node.orelse))  # type: ignore[arg-type]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            made = S.With([self._with_item(item) for item in node.items], self.suite(node.body))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            made = self._try(node)  # type: ignore[arg-type]
        elif isinstance(node, ast.Raise):
            cause = None
            if node.cause is not None:
                item = e(node.cause)
                keyword = self.source.rfind("from", start, item.src_start)
                cause = _at(S.From(item), keyword, item.src_end)
            made = S.Raise(e(node.exc) if node.exc is not None else None, cause)  # type: ignore[arg-type]
        elif isinstance(node, ast.Assert):
            made = S.Assert(e(node.test), e(node.msg) if node.msg is not None else None)
        elif isinstance(node, ast.Delete):
            if len(node.targets) == 1:
                target = e(node.targets[0])
            else:
                elements = [self._element(t) for t in node.targets]
                target = _at(S.Tuple(elements), elements[0].src_start, elements[-1].src_end)  # type: ignore[assignment]
            made = S.Del(target)  # type: ignore[arg-type]
        elif isinstance(node, ast.Pass):
            made = S.Pass()
        elif isinstance(node, ast.Break):
            made = S.Break()
        elif isinstance(node, ast.Continue):
            made = S.Continue()
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            items = [_at(S.NameItem(self._name(n, start, end)), start, end) for n in node.names]
            kind = S.Global if isinstance(node, ast.Global) else S.Nonlocal
            made = kind(items)  # type: ignore[arg-type]
        elif isinstance(node, ast.Import):
            made = S.Import([self._alias(a, start, end) for a in node.names])
        elif isinstance(node, ast.ImportFrom):
            module = self._dotted(node.module, start, end) if node.module else None
            names: Union[list[S.ImportAlias], S.ImportStar]
            if len(node.names) == 1 and node.names[0].name == "*":
                names = _at(S.ImportStar(), start, end)  # type: ignore[assignment]
            else:
                names = [self._alias(a, start, end) for a in node.names]
            dots = [_at(S.Dot(), start, start) for _ in range(node.level or 0)]
            made = S.ImportFrom(module, names, dots)  # type: ignore[arg-type]
        elif type(node).__name__ == "Match":
            cases = []
            for case in node.cases:  # type: ignore[attr-defined]
                body = self.suite(case.body)
                guard = e(case.guard) if case.guard is not None else None
                cases.append(_at(S.MatchCase(None, body, guard), body.src_start, body.src_end))
            made = S.Match(e(node.subject), cases)  # type: ignore[attr-defined, arg-type]
        else:  # a statement kind newer than this table (``type X = ...``)
            made = S.Pass()
        return _at(made, start, end)  # type: ignore[return-value]

    def _stub(self, name: str, start: int) -> S.Assign:
        target = _at(S.AssignTarget(_at(S.Name(name), start, start)), start, start)  # type: ignore[arg-type]
        value = _at(S.Name("None"), start, start)
        return _at(S.Assign([target], value), start, start)  # type: ignore[arg-type, list-item, return-value]

    def _class(self, node: ast.ClassDef, start: int) -> S.ClassDef:
        name = self._def_name(node.name, start)
        bases: list[S.Arg] = []
        keywords: list[S.Arg] = []
        if node.bases or node.keywords:
            paren = self._next(name.src_end)
            bases = [self._arg(b, paren) for b in node.bases]
            keywords = [self._keyword(k, paren) for k in node.keywords]
        return S.ClassDef(
            name,
            self.suite(node.body),
            bases,
            keywords,
            [self._decorator(d) for d in node.decorator_list],
        )

    def _try(self, node: ast.Try) -> S.CSTNode:
        star = type(node).__name__ == "TryStar"
        handlers = []
        for handler in node.handlers:
            hstart, hend = self.span(handler)
            body = self.suite(handler.body)
            kind = self.expr(handler.type) if handler.type is not None else None
            name = None
            if handler.name is not None:
                where = self.source.rfind(handler.name, hstart, body.src_start)
                target = _at(S.Name(handler.name), where, where + len(handler.name))
                name = _at(S.AsName(target), where, target.src_end)  # type: ignore[arg-type]
            made = (S.ExceptStarHandler if star else S.ExceptHandler)(body, kind, name)  # type: ignore[arg-type]
            handlers.append(_at(made, hstart, hend))
        body = self.suite(node.body)
        orelse = None
        if node.orelse:
            suite = self.suite(node.orelse)
            orelse = _at(S.Else(suite), suite.src_start, suite.src_end)
        final = None
        if node.finalbody:
            suite = self.suite(node.finalbody)
            final = _at(S.Finally(suite), suite.src_start, suite.src_end)
        return (S.TryStar if star else S.Try)(body, handlers, orelse, final)  # type: ignore[arg-type]

    def _with_item(self, item: ast.withitem) -> S.WithItem:
        value = self.expr(item.context_expr)
        asname = None
        end = value.src_end
        if item.optional_vars is not None:
            target = self.expr(item.optional_vars)
            asname = _at(S.AsName(target), target.src_start, target.src_end)  # type: ignore[arg-type]
            end = target.src_end
        return _at(S.WithItem(value, asname), value.src_start, end)  # type: ignore[arg-type, return-value]

    def _def_name(self, name: str, start: int) -> S.Name:
        match = _DEF.search(self.source, start)
        where = match.end() if match else start
        return _at(S.Name(name), where, where + len(name))  # type: ignore[return-value]

    def _name(self, name: str, start: int, end: int) -> S.Name:
        where = self.source.find(name, start, end)
        where = start if where < 0 else where
        return _at(S.Name(name), where, where + len(name))  # type: ignore[return-value]

    def _dotted(self, dotted: str, start: int, end: int) -> Union[S.Name, S.Attribute]:
        parts = dotted.split(".")
        node: Union[S.Name, S.Attribute] = self._name(parts[0], start, end)
        for part in parts[1:]:
            attr = self._name(part, node.src_end, end)
            node = _at(S.Attribute(node, attr), node.src_start, attr.src_end)  # type: ignore[assignment]
        return node

    def _alias(self, alias: ast.alias, start: int, end: int) -> S.ImportAlias:
        if hasattr(alias, "lineno"):
            start, end = self.span(alias)
        name = self._dotted(alias.name, start, end)
        asname = None
        if alias.asname is not None:
            target = self._name(alias.asname, name.src_end, end)
            keyword = self.source.rfind("as", name.src_end, target.src_start)
            asname = _at(S.AsName(target), keyword, target.src_end)
        return _at(S.ImportAlias(name, asname), name.src_start, end)  # type: ignore[arg-type, return-value]

    def _decorator(self, node: ast.expr) -> S.Decorator:
        value = self.expr(node)
        start, end = self.outer(value)
        return _at(S.Decorator(value), self._previous(start), end)  # type: ignore[return-value]

    def _annotation(self, node: Optional[ast.expr]) -> Optional[S.Annotation]:
        if node is None:
            return None
        value = self.expr(node)
        return _at(S.Annotation(value), value.src_start, value.src_end)  # type: ignore[return-value]

    def parameters(self, args: ast.arguments) -> S.Parameters:
        positional = [*args.posonlyargs, *args.args]
        defaults: list[Optional[ast.expr]] = [None] * (len(positional) - len(args.defaults))
        defaults += args.defaults
        made = [self._param(a, d) for a, d in zip(positional, defaults)]
        posonly, params = made[: len(args.posonlyargs)], made[len(args.posonlyargs) :]
        kwonly = [self._param(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        star: Union[S.Param, S.ParamStar, None] = None
        if args.vararg is not None:
            star = self._starred_param(args.vararg)
        elif kwonly:
            star = _at(S.ParamStar(), 0, 0)  # type: ignore[assignment]
        kwarg = self._starred_param(args.kwarg) if args.kwarg is not None else None
        every = [*made, *kwonly]
        start = every[0].src_start if every else 0
        end = every[-1].src_end if every else 0
        return _at(S.Parameters(params, star, kwonly, kwarg, posonly), start, end)  # type: ignore[return-value]

    def _param(self, arg: ast.arg, default: Optional[ast.expr]) -> S.Param:
        start = self.offset(arg.lineno, arg.col_offset)
        name = _at(S.Name(arg.arg), start, start + len(arg.arg))
        annotation = self._annotation(arg.annotation)
        value = self.expr(default) if default is not None else None
        # (LibCST's position of a parameter is its name's)
        return _at(S.Param(name, annotation, value), start, name.src_end)  # type: ignore[arg-type, return-value]

    def _starred_param(self, arg: ast.arg) -> S.Param:
        made = self._param(arg, None)
        made.src_start = self.source.rfind("*", 0, made.src_start)  # ``*args``: its star too
        if self.source.startswith("*", made.src_start - 1):
            made.src_start -= 1
        return made

    def _target(self, node: ast.expr) -> S.AssignTarget:
        value = self.expr(node)
        return _at(S.AssignTarget(value), *self.outer(value))  # type: ignore[arg-type, return-value]

    # -- expressions -----------------------------------------------------------

    def expr(self, node: ast.expr) -> S.BaseExpression:
        return self._expression(node, *self.span(node))

    def _expression(self, node: ast.expr, start: int, end: int) -> S.BaseExpression:
        e = self.expr
        made: S.CSTNode
        if isinstance(node, ast.Name):
            made = S.Name(node.id)
        elif isinstance(node, ast.Attribute):
            attr = _at(S.Name(node.attr), end - len(node.attr), end)
            made = S.Attribute(e(node.value), attr)  # type: ignore[arg-type]
        elif isinstance(node, ast.Call):
            made = self._call(node)
        elif isinstance(node, ast.Constant):
            return self._constant(node, start, end)
        elif isinstance(node, ast.Subscript):
            made = S.Subscript(e(node.value), self._subscript(node.slice))
        elif isinstance(node, ast.BinOp):
            made = S.BinaryOperation(e(node.left), _operator(_BINARY, node.op), e(node.right))  # type: ignore[arg-type]
        elif isinstance(node, ast.UnaryOp):
            made = S.UnaryOperation(_operator(_UNARY, node.op), e(node.operand))  # type: ignore[arg-type]
        elif isinstance(node, ast.BoolOp):
            values = [e(v) for v in node.values]
            result = values[0]
            for value in values[1:]:
                boolean = _operator(_BOOLEAN, node.op)
                combined = S.BooleanOperation(result, boolean, value)  # type: ignore[arg-type]
                result = _at(combined, self.outer(values[0])[0], self.outer(value)[1])  # type: ignore[assignment]
            result.src_start, result.src_end = start, end
            result.src_parens = self.parens(start, end)
            return result
        elif isinstance(node, ast.Compare):
            targets = []
            for op, comparator in zip(node.ops, node.comparators):
                compared = e(comparator)
                target = S.ComparisonTarget(_operator(_COMPARE, op), compared)  # type: ignore[arg-type]
                targets.append(_at(target, compared.src_start, compared.src_end))
            made = S.Comparison(e(node.left), targets)  # type: ignore[arg-type]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements = [self._element(v) for v in node.elts]
            kind = {ast.Tuple: S.Tuple, ast.List: S.List, ast.Set: S.Set}[type(node)]
            made = kind(elements)
            if isinstance(node, ast.Tuple) and self.source.startswith("(", start):
                first = self.outer(elements[0])[0] if elements else start + 1
                if first > start:  # the tuple's own parentheses: ``(a, b)``
                    inner_end = self._previous(end - 1) + 1
                    start, end = (first, inner_end) if elements else (start + 1, start + 1)
        elif isinstance(node, ast.Dict):
            items: list[S.BaseDictElement] = []
            for key, entry in zip(node.keys, node.values):
                v = e(entry)
                where = self._previous(v.src_start) - 1
                if key is None:
                    starred = _at(S.StarredDictElement(v), where, v.src_end)
                    items.append(starred)  # type: ignore[arg-type]
                else:
                    k = e(key)
                    pair = _at(S.DictElement(k, v), self.outer(k)[0], self.outer(v)[1])
                    items.append(pair)  # type: ignore[arg-type]
            made = S.Dict(items)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            elt = e(node.elt)
            kind2 = {
                ast.ListComp: S.ListComp,
                ast.SetComp: S.SetComp,
                ast.GeneratorExp: S.GeneratorExp,
            }
            comprehension = self._comprehension(node.generators)
            made = kind2[type(node)](elt, comprehension)
            if isinstance(node, ast.GeneratorExp) and self.source.startswith("(", start):
                # CPython's span takes in the parentheses (the call's, for a lone argument)
                start, end = self.outer(elt)[0], comprehension.src_end
        elif isinstance(node, ast.DictComp):
            made = S.DictComp(e(node.key), e(node.value), self._comprehension(node.generators))
        elif isinstance(node, ast.IfExp):
            made = S.IfExp(e(node.test), e(node.body), e(node.orelse))
        elif isinstance(node, ast.Lambda):
            made = S.Lambda(self.parameters(node.args), e(node.body))
        elif isinstance(node, ast.NamedExpr):
            made = S.NamedExpr(e(node.target), e(node.value))
        elif isinstance(node, ast.Await):
            made = S.Await(e(node.value))
        elif isinstance(node, ast.Yield):
            made = S.Yield(e(node.value) if node.value is not None else None)
        elif isinstance(node, ast.YieldFrom):
            item = e(node.value)
            keyword = self.source.rfind("from", start, item.src_start)
            made = S.Yield(_at(S.From(item), keyword, item.src_end))  # type: ignore[arg-type]
        elif isinstance(node, ast.Starred):
            made = S.StarredElement(e(node.value))
        elif isinstance(node, ast.JoinedStr):
            made = self._fstring(node, start, end)
        else:  # a kind newer than this table; slices are built by ``_subscript``
            made = S.Ellipsis()
        made.src_start, made.src_end = start, end
        made.src_parens = self.parens(start, end)
        return made

    def _element(self, node: ast.expr) -> S.BaseElement:
        if isinstance(node, ast.Starred):
            value = self.expr(node.value)
            start, end = self.span(node)
            made: S.CSTNode = S.StarredElement(value)
            _at(made, start, end, self.parens(start, end))
            return made  # type: ignore[return-value]
        value = self.expr(node)
        start, end = self.outer(value)
        return _at(S.Element(value), start, end)  # type: ignore[return-value]

    def _call(self, node: ast.Call) -> S.Call:
        func = self.expr(node.func)
        paren = self._next(self.outer(func)[1])
        args = [self._arg(a, paren) for a in node.args]
        args += [self._keyword(k, paren) for k in node.keywords]
        if node.keywords and node.args:
            args.sort(key=lambda a: a.src_start)
        return S.Call(func, args)

    def _arg(self, node: ast.expr, paren: int) -> S.Arg:
        if isinstance(node, ast.Starred):
            start, end = self.span(node)
            value = self.expr(node.value)
            return _at(S.Arg(value, None, "*"), start, end)  # type: ignore[return-value]
        value = self.expr(node)
        value.src_parens = self.parens(value.src_start, value.src_end, paren)
        start, end = self.outer(value)
        return _at(S.Arg(value, None, ""), start, end)  # type: ignore[return-value]

    def _keyword(self, node: ast.keyword, paren: int) -> S.Arg:
        start, end = self.span(node)
        value = self.expr(node.value)
        if node.arg is None:
            return _at(S.Arg(value, None, "**"), start, end)  # type: ignore[return-value]
        keyword = _at(S.Name(node.arg), start, start + len(node.arg))
        return _at(S.Arg(value, keyword, ""), start, end)  # type: ignore[arg-type, return-value]

    def _subscript(self, node: ast.expr) -> list[S.SubscriptElement]:
        parts: Sequence[ast.expr] = [node]
        if isinstance(node, ast.Tuple) and node.elts:
            start = self.offset(node.lineno, node.col_offset)
            first = node.elts[0]
            if not (
                self.source.startswith("(", start)
                and self.offset(first.lineno, first.col_offset) > start
                and self.parens(*self.span(first)) == 0
            ):
                parts = node.elts
        out = []
        for part in parts:
            made: S.CSTNode
            if isinstance(part, ast.Slice):
                start, end = self.span(part)
                made = S.Slice(
                    self.expr(part.lower) if part.lower is not None else None,
                    self.expr(part.upper) if part.upper is not None else None,
                    self.expr(part.step) if part.step is not None else None,
                )
                _at(made, start, end)
            else:
                value = self.expr(part)
                made = _at(S.Index(value), value.src_start, value.src_end)
            out.append(_at(S.SubscriptElement(made), made.src_start, made.src_end))  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    def _comprehension(self, generators: Sequence[ast.comprehension]) -> S.CompFor:
        inner: Optional[S.CompFor] = None
        for generator in reversed(generators):
            target = self.expr(generator.target)
            where = self.source.rfind("for", 0, target.src_start)
            ifs = []
            for test in generator.ifs:
                value = self.expr(test)
                ifs.append(_at(S.CompIf(value), value.src_start, value.src_end))
            iterable = self.expr(generator.iter)
            end = ifs[-1].src_end if ifs else self.outer(iterable)[1]
            if inner is not None:
                end = inner.src_end
            made = S.CompFor(target, iterable, ifs, inner)  # type: ignore[arg-type]
            inner = _at(made, where, end)  # type: ignore[assignment]
        assert inner is not None
        return inner

    def _constant(self, node: ast.Constant, start: int, end: int) -> S.BaseExpression:
        value = node.value
        text = self.source[start:end]
        made: S.CSTNode
        if value is None or value is True or value is False:
            made = S.Name(str(value))
        elif value is Ellipsis:
            made = S.Ellipsis()
        elif isinstance(value, int):
            made = S.Integer(text)
        elif isinstance(value, float):
            made = S.Float(text)
        elif isinstance(value, complex):
            made = S.Imaginary(text)
        elif isinstance(value, (str, bytes)):
            made = self._string(value, start, end)
        else:
            made = S.Ellipsis()
        _at(made, start, end, self.parens(start, end))
        return made  # type: ignore[return-value]

    def _string(self, value: Union[str, bytes], start: int, end: int) -> S.CSTNode:
        pieces = self._literals(start, end)
        if len(pieces) <= 1:
            return S.SimpleString(self.source[start:end], value)
        strings = [self._simple_string(*piece) for piece in pieces]
        result: S.CSTNode = strings[-1]
        for string in reversed(strings[:-1]):
            result = _at(
                S.ConcatenatedString(string, result, None),  # type: ignore[arg-type]
                string.src_start,
                end,
            )
        result.evaluated_value = value  # type: ignore[attr-defined]
        return result

    def _simple_string(self, start: int, end: int) -> S.SimpleString:
        """One literal of an implicit concatenation."""
        text = self.source[start:end]
        try:
            evaluated = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            evaluated = ""
        return _at(S.SimpleString(text, evaluated), start, end)  # type: ignore[return-value]

    def _literals(self, start: int, end: int) -> list[tuple[int, int]]:
        """The string literals of an implicit concatenation in ``start:end``."""
        match = _STRING.match(self.source, start)
        if match is not None and match.end() == end:
            return [(start, end)]
        out = []
        at = start
        while at < end:
            match = _STRING.match(self.source, at)
            if match is None:
                break
            out.append((at, match.end()))
            at = self._next(match.end())
        return out

    def _fstring(self, node: ast.JoinedStr, start: int, end: int) -> S.BaseExpression:
        parts = [self._fstring_part(v) for v in node.values]
        pieces = self._literals(start, end)
        if len(pieces) <= 1:
            return self._fstring_piece(parts, start)
        # ``f"{a}" "b"``: CPython joins the literals, LibCST keeps each
        strings: list[S.BaseExpression] = []
        for piece_start, piece_end in pieces:
            inside = [p for p in parts if piece_start <= p.src_start < piece_end]
            head = _STRING_START.match(self.source, piece_start)
            made: S.BaseExpression
            if head is not None and "f" in head.group(0).lower():
                made = self._fstring_piece(inside, piece_start)
            else:
                made = self._simple_string(piece_start, piece_end)
            strings.append(_at(made, piece_start, piece_end))  # type: ignore[arg-type]
        result = strings[-1]
        for string in reversed(strings[:-1]):
            joined = S.ConcatenatedString(string, result, None)  # type: ignore[arg-type]
            result = _at(joined, string.src_start, end)  # type: ignore[assignment]
        return result

    def _fstring_piece(
        self, parts: list[S.BaseFormattedStringContent], start: int
    ) -> S.FormattedString:
        head = _STRING_START.match(self.source, start)
        opening = head.group(0) if head else 'f"'
        quote = opening.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return S.FormattedString(parts, opening, quote)  # type: ignore[arg-type]

    def _fstring_part(self, node: ast.expr) -> S.BaseFormattedStringContent:
        if isinstance(node, ast.FormattedValue):
            value = self.expr(node.value)
            spec = None
            if node.format_spec is not None and isinstance(node.format_spec, ast.JoinedStr):
                spec = [self._fstring_part(v) for v in node.format_spec.values]
            conversion = chr(node.conversion) if node.conversion and node.conversion > 0 else None
            after = self._next(self.outer(value)[1])
            equal = self.source.startswith("=", after) and not self.source.startswith("==", after)
            made: S.CSTNode = S.FormattedStringExpression(value, conversion, spec, equal)
            return _at(made, value.src_start, value.src_end)  # type: ignore[return-value]
        text = node.value if isinstance(node, ast.Constant) else ""
        return _at(S.FormattedStringText(str(text)), 0, 0)  # type: ignore[return-value]


def _comment_start(line: str) -> Optional[int]:
    """Where the comment of a line of code starts (None: no comment)."""
    if "#" not in line:
        return None
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif line.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif char == "#":
            return i
        elif char in "'\"":
            quote = line[i : i + 3] if line[i : i + 3] in ("'''", '"""') else char
            i += len(quote) - 1
        i += 1
    return None


def build(source: str, tree: ast.Module) -> S.Module:
    """The analysis tree of a whole file."""
    return Builder(source).module(tree.body)


def parse_expression(text: str) -> S.BaseExpression:
    """The analysis tree of one expression; SyntaxError when it is not one."""
    try:
        tree = ast.parse(text, mode="eval")
    except ValueError as error:  # null bytes
        raise SyntaxError(str(error)) from None
    return Builder(text).expr(tree.body)
