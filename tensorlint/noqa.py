"""``noqa`` comments: how ``check``, the flake8 plugin, ``--add-noqa`` and
TL900 read them (one reading: a listed code also covers the codes it is a
prefix of, as flake8 has it, and ``noqa`` is read in any case).

A directive is a comment: the text is lexed as Python lexes it (its strings
and comments; Python's own tokenizer where they cannot be told apart
otherwise), so a ``# noqa`` inside a string literal is text, not a directive.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Sequence
from typing import NamedTuple, Optional

from tensorlint.diagnostics import Diagnostic


def split_codes(text: str) -> list[str]:
    """``"TL101, E501"`` -> ``["TL101", "E501"]`` (as written)."""
    return [c for c in re.split(r"[\s,]+", text) if c]


#: line ends as Python's tokenizer counts them
LINE_ENDS = re.compile(r"\r\n|\r|\n")
#: a noqa directive in a comment, bare or with codes (``TL101, E501`` after a colon)
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
#: one code of a directive's list
CODE = re.compile(r"[A-Z]+[0-9]+", re.I)
#: what every directive contains: a text without it has none (not lexed)
_MENTION = re.compile(r"noqa", re.I)

#: ``# tensorlint: noqa`` or ``# tensorlint: noqa: TL201``, a comment on a
#: line of its own: for the whole file (as Ruff's file-level comment)
FILE_NOQA = re.compile(
    r"#[ \t]*tensorlint:[ \t]*noqa"
    r"(?::[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[ \t,]+[A-Z]+[0-9]*)*))?[ \t]*",
    re.I,
)

#: flake8's file-level comment, read as flake8 reads it (its
#: ``defaults.NOQA_FILE``: a comment on a line of its own that starts with
#: the hash, one space and ``flake8:noqa`` or ``flake8=noqa``, in any case,
#: whatever follows): flake8 skips the file, so ``check`` and the plugin
#: report nothing in it
FLAKE8_FILE_NOQA = re.compile(r"# flake8[:=]\s*noqa", re.I)


class Comment(NamedTuple):
    """A comment: the column of its ``#`` on its line, and its text."""

    column: int
    text: str


class Comments(NamedTuple):
    """The comments of a text, and where one may be added."""

    #: line number (1-based) -> the comment that ends it
    by_line: dict[int, Comment]
    #: the lines a comment may be appended to on every Python: their end is
    #: a line break between tokens, not inside a string, the braces of an
    #: f-string (allowed from 3.12 only) or after a backslash continuation
    open_ends: frozenset[int]


NO_COMMENTS = Comments({}, frozenset())


def may_have_directives(source: str) -> bool:
    """Can ``source`` hold a noqa directive? (A scan of the text.)"""
    return _MENTION.search(source) is not None


def read_comments(source: str, *, python_parses: bool = True) -> Comments:
    """The comments of ``source``, lexed as the running Python lexes it.

    ``python_parses``: the running Python parses ``source``. When it does not
    (newer syntax than ours), its lexing may misread the text, so the
    comments come from LibCST's tree and no line is open to a new comment.
    """
    if not python_parses:
        return _libcst_comments(source)
    # Python reads every line end as "\n" (in strings too); columns are kept
    text = LINE_ENDS.sub("\n", source)
    lexed = _lexed(text)
    return lexed if lexed is not None else _tokenized(text, source)


#: what decides where comments are: a comment, a string (quotes and escapes;
#: a prefix changes neither), a quote that opens no string Python 3.11 would
#: close (``open``), or a backslash continuation. Each starts at one of four
#: characters, which ``re`` finds fast: Python's own tokenizer, written in
#: Python before 3.12, is many times slower.
_LEXEME = re.compile(
    r"(?P<comment>\#[^\n]*)"
    r"|(?P<string>'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")'
    r"|(?P<open>['\"])"
    r"|\\\n",
    re.S,
)
#: the letters of an f-string's (or a t-string's) prefix before its quote
_TEMPLATE_PREFIX = re.compile(r"[rRbBuUfFtT]{1,2}$")


def _lexed(text: str) -> Optional[Comments]:
    """:func:`read_comments` by :data:`_LEXEME`; None where that may differ
    from the running Python's lexing: from 3.12 an f-string is lexed in
    parts (PEP 701: quotes, comments and line breaks inside its braces)."""
    by_line: dict[int, Comment] = {}
    closed: set[int] = set()  # lines that end in a string or a backslash
    in_parts = sys.version_info >= (3, 12)
    line, line_start, at = 1, 0, 0
    for match in _LEXEME.finditer(text):
        start, end = match.span()
        breaks = text.count("\n", at, start)
        if breaks:
            line += breaks
            line_start = text.rindex("\n", at, start) + 1
        kind = match.lastgroup
        if kind == "comment":
            by_line[line] = Comment(start - line_start, match.group())
        elif kind == "open":
            return None  # a string this lexing does not close
        elif kind == "string":
            token = match.group()
            if in_parts and "{" in token and not _one_template(text, start, token):
                return None
            inside = token.count("\n")
            closed.update(range(line, line + inside))
            if inside:
                line += inside
                line_start = start + token.rindex("\n") + 1
        else:  # a backslash continuation
            closed.add(line)
            line, line_start = line + 1, end
        at = end
    lines = text.count("\n") + (not text.endswith("\n"))  # (no line after the last break)
    return Comments(by_line, frozenset(range(1, lines + 1)) - closed)


def _one_template(text: str, start: int, token: str) -> bool:
    """Is ``token`` (a string at ``start``) lexed whole from Python 3.12: not
    an f-string, or one whose braces close inside it and hold no comment?"""
    prefix = _TEMPLATE_PREFIX.search(text, max(0, start - 2), start)
    if prefix is None or not set(prefix.group()) & set("fFtT"):
        return True
    if "#" in token and "\n" in token:  # (perhaps a comment in braces, ended by the break)
        return False
    body = token[3:-3] if token[:3] in ("'''", '"""') else token[1:-1]
    if "'" not in body and '"' not in body and body.count("{") == body.count("}"):
        return True  # no string inside, every brace closed: nothing lexed in parts
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(prefix.group() + token, "<f-string>", "eval", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError):
        return False
    return True


def _tokenized(text: str, source: str) -> Comments:
    """:func:`read_comments` by Python's tokenizer."""
    by_line: dict[int, Comment] = {}
    open_ends: set[int] = set()
    fstrings = 0  # f-strings open at this token (tokenized in parts from 3.12)
    starts = {getattr(tokenize, n, None) for n in ("FSTRING_START", "TSTRING_START")} - {None}
    ends = {getattr(tokenize, n, None) for n in ("FSTRING_END", "TSTRING_END")} - {None}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                by_line[token.start[0]] = Comment(token.start[1], token.string)
            elif token.type in (tokenize.NL, tokenize.NEWLINE) and not fstrings:
                open_ends.add(token.start[0])
            elif token.type in starts:
                fstrings += 1
            elif token.type in ends:
                fstrings -= 1
    except (tokenize.TokenError, SyntaxError):  # (IndentationError included)
        return _libcst_comments(source)
    return Comments(by_line, frozenset(open_ends))


def _libcst_comments(source: str) -> Comments:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    except Exception:  # LibCST's ParserSyntaxError: nothing to read
        return NO_COMMENTS
    by_line: dict[int, Comment] = {}

    class Collect(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def visit_Comment(self, node: cst.Comment) -> None:
            where = self.get_metadata(PositionProvider, node).start
            by_line[where.line] = Comment(where.column, node.value)

    wrapper.visit(Collect())
    return Comments(by_line, frozenset())


def file_codes(comments: Comments, source: str) -> Optional[list[str]]:
    """The codes ``# tensorlint: noqa: ...`` comments on lines of their own
    silence in the whole file; None for a bare one or flake8's ``# flake8:
    noqa`` (everything)."""
    lines = LINE_ENDS.split(source)
    codes: list[str] = []
    for number, comment in comments.by_line.items():
        if lines[number - 1][: comment.column].strip():
            continue  # after code: not a file-level comment
        if FLAKE8_FILE_NOQA.match(comment.text):
            return None
        whole = FILE_NOQA.fullmatch(comment.text)
        if whole is None:
            continue
        if whole.group("codes") is None:
            return None
        codes += [c.upper() for c in split_codes(whole.group("codes"))]
    return codes


def filter_noqa(
    diagnostics: Sequence[Diagnostic], comments: Comments, source: str
) -> list[Diagnostic]:
    """Drop findings suppressed by ``# noqa`` or ``# noqa: TL201`` on their line,
    or by ``# tensorlint: noqa[: TL201]`` or ``# flake8: noqa`` on a line of
    its own (the whole file).
    ``comments``: those of ``source`` (:func:`read_comments`).

    A listed code also matches the codes it is a prefix of (``# noqa: TL2``
    silences TL201 and TL202), as flake8 reads it, so the plugin and
    ``check`` agree."""
    if not diagnostics or not comments.by_line:
        return list(diagnostics)
    whole_file = file_codes(comments, source)
    if whole_file is None:
        return []
    kept = []
    for diagnostic in diagnostics:
        if diagnostic.code.startswith(tuple(whole_file)):
            continue
        comment = comments.by_line.get(diagnostic.start.line)
        match = NOQA.search(comment.text) if comment is not None else None
        if match is None:
            kept.append(diagnostic)
            continue
        codes = match.group("codes")
        if codes is None:
            continue
        listed = tuple(c.upper() for c in split_codes(codes))
        if not diagnostic.code.startswith(listed):
            kept.append(diagnostic)
    return kept
