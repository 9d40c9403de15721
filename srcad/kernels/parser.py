"""Parse index-notation kernel text into statements.

Contract:
- ``parse(text, filename)`` returns a list of ``Parsed`` statements
  ``(target, rhs, text, line)`` for text such as::

      A<8, 8>[i, j] = (B<10, 8>[i, j] + B<10, 8>[i + 1, j]) / 2.0;

  Grammar: statements ``Name<shape>[index, ...] = expr;``; ``<1>`` without a
  subscript is a scalar; value expressions use numbers, accesses,
  parentheses, unary minus and ``+ - * /``; index expressions use variables,
  integer constants, parentheses, unary minus and ``+ - * // %`` (the right
  side of ``//`` and ``%`` must be a positive constant).  Comments run from
  ``#`` to the end of the line.
- Every problem raises ``KernelSyntaxError`` whose message starts with
  ``<filename>:line:column`` (both 1-based), quotes the line with a caret
  under the column and says what was expected.

Example::

    >>> [p.target.name for p in parse("C<4>[i] = A<4, 3>[i, k] * B<3>[k];")]
    ['C']
"""
from __future__ import annotations

import re
from typing import List, NamedTuple, Optional, Tuple

from ..errors import Location, located
from .model import (Access, Binary, Expr, IBin, IConst, Index, IVar, KernelError, KernelSyntaxError, Neg,
                    Number)

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+|\#[^\n]*)
  | (?P<newline>\n)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)
  | (?P<int>\d+)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>//|[-+*/%<>\[\](),;=])
""", re.VERBOSE)


class Token(NamedTuple):
    kind: str      # float, int, name, op, end
    text: str
    line: int      # 1-based
    col: int       # 0-based


class Parsed(NamedTuple):
    target: Access
    rhs: Expr
    text: str      # the statement as written, on one line
    line: int


def tokenize(text: str, filename: str = "kernel") -> List[Token]:
    """The tokens of ``text``, ending with an ``end`` token; raises on a stray character."""
    tokens, line, line_start, position = [], 1, 0, 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise _error(text, filename, line, position - line_start, f"unexpected character {text[position]!r}")
        kind = match.lastgroup
        if kind == "newline":
            line, line_start = line + 1, match.end()
        elif kind != "space":
            tokens.append(Token(kind, match.group(), line, position - line_start))
        position = match.end()
    tokens.append(Token("end", "", line, position - line_start))
    return tokens


def error_at(text: str, filename: str, line: int, col: int, message: str,
             error_type=KernelSyntaxError) -> KernelError:
    """An error of ``error_type`` located at ``line`` (1-based), ``col`` (0-based) of ``text``."""
    lines = text.split("\n")
    where = Location(filename, line, col, lines[line - 1] if line <= len(lines) else "")
    return located(error_type, message, where=where)


_error = error_at


class _Parser:
    def __init__(self, text: str, filename: str):
        self.text, self.filename = text, filename
        self.tokens = tokenize(text, filename)
        self.position = 0

    # -- helpers
    @property
    def token(self) -> Token:
        return self.tokens[self.position]

    def fail(self, message: str, token: Optional[Token] = None) -> KernelSyntaxError:
        token = token or self.token
        found = "the end of the kernel" if token.kind == "end" else repr(token.text)
        return _error(self.text, self.filename, token.line, token.col, f"{message}, found {found}")

    def accept(self, text: str) -> bool:
        if self.token.kind == "op" and self.token.text == text:
            self.position += 1
            return True
        return False

    def expect(self, text: str, what: str = "") -> Token:
        token = self.token
        if not self.accept(text):
            raise self.fail(f"expected {text!r}{what}")
        return token

    def integer(self, what: str) -> int:
        token = self.token
        if token.kind != "int":
            raise self.fail(f"expected {what}")
        self.position += 1
        return int(token.text)

    # -- statements
    def kernel(self) -> List[Parsed]:
        statements = []
        while self.token.kind != "end":
            statements.append(self.statement())
        if not statements:
            raise self.fail("expected a statement such as A<4>[i] = B<4>[i] * 2.0;")
        return statements

    def statement(self) -> Parsed:
        first = self.token
        if first.kind != "name":
            raise self.fail("expected the name of the array a statement writes")
        target = self.access()
        self.expect("=", " after the array a statement writes")
        rhs = self.expr()
        end = self.expect(";", " at the end of the statement")
        return Parsed(target, rhs, self._statement_text(first, end), first.line)

    def _statement_text(self, first: Token, end: Token) -> str:
        lines = self.text.split("\n")
        if first.line == end.line:
            raw = lines[first.line - 1][first.col:end.col + 1]
        else:
            raw = " ".join([lines[first.line - 1][first.col:]] + lines[first.line:end.line - 1]
                           + [lines[end.line - 1][:end.col + 1]])
        return " ".join(re.sub(r"#[^\n]*", "", raw).split())

    def access(self) -> Access:
        name = self.token
        self.position += 1
        if not self.accept("<"):
            raise self.fail(f"expected '<' and the shape after {name.text!r} (write {name.text}<1> for a scalar)")
        shape = [self.integer("an extent (a positive integer) in the shape")]
        while self.accept(","):
            shape.append(self.integer("an extent (a positive integer) in the shape"))
        self.expect(">", " to close the shape")
        if any(extent <= 0 for extent in shape):
            raise _error(self.text, self.filename, name.line, name.col, f"the shape of {name.text} has an extent below 1")
        indices: Tuple[Index, ...] = ()
        if self.accept("["):
            items = [self.index()]
            while self.accept(","):
                items.append(self.index())
            self.expect("]", " to close the subscript")
            indices = tuple(items)
        if not indices and shape == [1]:
            return Access(name.text, (), (), line=name.line, col=name.col)
        if len(indices) != len(shape):
            raise _error(self.text, self.filename, name.line, name.col,
                         f"{name.text} has {len(shape)} dimension(s) but {len(indices)} subscript(s)")
        return Access(name.text, tuple(shape), indices, line=name.line, col=name.col)

    # -- value expressions
    def expr(self) -> Expr:
        node = self.term()
        while self.token.kind == "op" and self.token.text in "+-":
            op = self.token.text
            self.position += 1
            node = Binary(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.unary()
        while self.token.kind == "op" and self.token.text in ("*", "/", "//", "%"):
            if self.token.text in ("//", "%"):
                raise self.fail("'//' and '%' belong in subscripts; values use + - * /")
            op = self.token.text
            self.position += 1
            node = Binary(op, node, self.unary())
        return node

    def unary(self) -> Expr:
        if self.accept("-"):
            operand = self.unary()
            return Number(-operand.value) if isinstance(operand, Number) else Neg(operand)
        if self.accept("+"):
            return self.unary()
        token = self.token
        if token.kind in ("int", "float"):
            self.position += 1
            return Number(int(token.text) if token.kind == "int" else float(token.text))
        if token.kind == "name":
            return self.access()
        if self.accept("("):
            node = self.expr()
            self.expect(")", " to close the parenthesis")
            return node
        raise self.fail("expected a number, an array access or '('")

    # -- index expressions
    def index(self) -> Index:
        node = self.index_term()
        while self.token.kind == "op" and self.token.text in "+-":
            op = self.token.text
            self.position += 1
            node = _fold(op, node, self.index_term())
        return node

    def index_term(self) -> Index:
        node = self.index_unary()
        while self.token.kind == "op" and self.token.text in ("*", "//", "%", "/"):
            if self.token.text == "/":
                raise self.fail("subscripts divide with '//' (integer division), not '/'")
            op, token = self.token.text, self.token
            self.position += 1
            right = self.index_unary()
            if op != "*" and not (isinstance(right, IConst) and right.value > 0):
                raise self.fail(f"the right side of {op!r} in a subscript must be a positive integer", token)
            node = _fold(op, node, right)
        return node

    def index_unary(self) -> Index:
        if self.accept("-"):
            return _fold("-", IConst(0), self.index_unary())
        token = self.token
        if token.kind == "int":
            self.position += 1
            return IConst(int(token.text))
        if token.kind == "name":
            self.position += 1
            return IVar(token.text)
        if self.accept("("):
            node = self.index()
            self.expect(")", " to close the parenthesis")
            return node
        if token.kind == "float":
            raise self.fail("subscripts are integers")
        raise self.fail("expected an index: a variable, an integer or '('")


def _fold(op: str, left: Index, right: Index) -> Index:
    """``left op right``, computed now when both sides are constants."""
    if isinstance(left, IConst) and isinstance(right, IConst):
        a, b = left.value, right.value
        return IConst({"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else 0, "%": a % b if b else 0}[op])
    return IBin(op, left, right)


def parse(text: str, filename: str = "kernel") -> List[Parsed]:
    """The statements of kernel ``text``; ``filename`` prefixes error locations.

    Example::

        >>> parse("B<4>[i] = -A<4>[i];")[0].text
        'B<4>[i] = -A<4>[i];'
    """
    return _Parser(text, filename).kernel()
