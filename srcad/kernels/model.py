"""The data model of index-notation kernels: index expressions, value expressions, statements.

Contract:
- Index expressions (what goes inside ``[...]``) are ``IVar``, ``IConst`` and
  ``IBin`` (``+ - * // %``); value expressions are ``Access``, ``Number``,
  ``Neg``, ``Binary`` (``+ - * /``) and ``Sum`` (an Einstein summation that the
  analysis inserts; the parser never produces one).  All nodes are frozen
  dataclasses, so they compare and hash by value.
- ``Access.version`` counts the writes to that array before the access (0 is
  the value the kernel was called with); the analysis fills it in.
- ``interval(expr, ranges)`` bounds an index expression over inclusive
  variable ranges; ``affine(expr)`` writes it as ``{var: coefficient}`` plus a
  constant, or returns None; ``substitute`` replaces variables.
- ``KernelError`` (a ``SrcadError``) is raised for every problem with a
  kernel; ``KernelSyntaxError`` is its subclass for text that does not parse.

Example::

    >>> e = IBin("+", IVar("i"), IConst(2))
    >>> interval(e, {"i": (0, 7)}), affine(e), show_index(e)
    ((2, 9), ({'i': 1}, 2), 'i + 2')
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterator, Optional, Tuple, Union

from ..errors import SrcadError


class KernelError(SrcadError):
    """A kernel case that cannot be compiled: bad JSON fields, shapes, names or ranges."""


class KernelSyntaxError(KernelError):
    """Kernel text that does not parse; the message starts with ``line:column``."""


# --------------------------------------------------------------------------
# index expressions

@dataclass(frozen=True)
class IVar:
    name: str


@dataclass(frozen=True)
class IConst:
    value: int


@dataclass(frozen=True)
class IBin:
    op: str            # one of + - * // %
    left: "Index"
    right: "Index"


Index = Union[IVar, IConst, IBin]
Range = Tuple[int, int]   # inclusive (lowest, highest)


def index_vars(expr: Index) -> Tuple[str, ...]:
    """The variables of an index expression, in order of first appearance, without repeats."""
    if isinstance(expr, IVar):
        return (expr.name,)
    if isinstance(expr, IBin):
        left = index_vars(expr.left)
        return left + tuple(v for v in index_vars(expr.right) if v not in left)
    return ()


def interval(expr: Index, ranges: Dict[str, Range]) -> Range:
    """The smallest and largest value of ``expr`` when each variable stays in its range."""
    if isinstance(expr, IConst):
        return expr.value, expr.value
    if isinstance(expr, IVar):
        return ranges[expr.name]
    (a, b), (c, d) = interval(expr.left, ranges), interval(expr.right, ranges)
    if expr.op == "+":
        return a + c, b + d
    if expr.op == "-":
        return a - d, b - c
    if expr.op == "*":
        corners = (a * c, a * d, b * c, b * d)
        return min(corners), max(corners)
    if expr.op == "//":            # the divisor is a positive constant (checked by the parser)
        return a // c, b // c
    if b - a + 1 >= c or a // c != b // c:   # %: the whole period may be reached
        return 0, c - 1
    return a % c, b % c


def affine(expr: Index) -> Optional[Tuple[Dict[str, int], int]]:
    """``expr`` as (coefficients by variable, constant) when it is affine, else None."""
    if isinstance(expr, IConst):
        return {}, expr.value
    if isinstance(expr, IVar):
        return {expr.name: 1}, 0
    left, right = affine(expr.left), affine(expr.right)
    if left is None or right is None:
        return None
    (lc, lk), (rc, rk) = left, right
    if expr.op in "+-":
        sign = 1 if expr.op == "+" else -1
        merged = dict(lc)
        for name, coefficient in rc.items():
            merged[name] = merged.get(name, 0) + sign * coefficient
        return {n: c for n, c in merged.items() if c}, lk + sign * rk
    if expr.op == "*" and (not lc or not rc):
        scale, coefficients = (lk, rc) if not lc else (rk, lc)
        constant = lk * rk
        return {n: c * scale for n, c in coefficients.items() if c * scale}, constant
    return None


def from_affine(coefficients: Dict[str, int], constant: int) -> Index:
    """The readable index expression of an affine form: ``h - r + 1``, ``2*i``."""
    result: Optional[Index] = None
    for name, coefficient in coefficients.items():
        term: Index = IVar(name) if abs(coefficient) == 1 else IBin("*", IConst(abs(coefficient)), IVar(name))
        if result is None:
            result = term if coefficient > 0 else IBin("-", IConst(0), term)
        else:
            result = IBin("+" if coefficient > 0 else "-", result, term)
    if result is None:
        return IConst(constant)
    if constant:
        result = IBin("+" if constant > 0 else "-", result, IConst(abs(constant)))
    return result


def substitute(expr: Index, mapping: Dict[str, Index]) -> Index:
    """``expr`` with the variables of ``mapping`` replaced by their expressions."""
    if isinstance(expr, IVar):
        return mapping.get(expr.name, expr)
    if isinstance(expr, IBin):
        return IBin(expr.op, substitute(expr.left, mapping), substitute(expr.right, mapping))
    return expr


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}


def show_index(expr: Index, parent: int = 0, right_side: bool = False) -> str:
    """Kernel-style text of an index expression, with only the parentheses it needs."""
    if isinstance(expr, IVar):
        return expr.name
    if isinstance(expr, IConst):
        return str(expr.value) if expr.value >= 0 or parent == 0 else f"({expr.value})"
    if expr.op == "-" and expr.left == IConst(0):
        text = "-" + show_index(expr.right, 3)
        return f"({text})" if parent else text
    level = _PRECEDENCE[expr.op]
    spaced = " " if level == 1 else ""
    text = (f"{show_index(expr.left, level)}{spaced}{expr.op}{spaced}"
            f"{show_index(expr.right, level, True)}")
    needs = level < parent or (level == parent and right_side)
    return f"({text})" if needs else text


# --------------------------------------------------------------------------
# value expressions

@dataclass(frozen=True)
class Access:
    """``name<shape>[indices]``; a scalar has ``shape == ()`` and no indices."""
    name: str
    shape: Tuple[int, ...]
    indices: Tuple[Index, ...]
    version: int = 0
    line: int = field(default=0, compare=False)
    col: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Number:
    value: Union[int, float]

    @property
    def is_float(self) -> bool:
        return isinstance(self.value, float)


@dataclass(frozen=True)
class Neg:
    operand: "Expr"


@dataclass(frozen=True)
class Binary:
    op: str            # one of + - * /
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Sum:
    """The sum of ``body`` over ``vars``, each from 0 to its entry of ``extents``."""
    vars: Tuple[str, ...]
    extents: Tuple[int, ...]
    body: "Expr"


Expr = Union[Access, Number, Neg, Binary, Sum]


def accesses(expr: Expr) -> Iterator[Access]:
    """Every array or scalar read in ``expr``, left to right."""
    if isinstance(expr, Access):
        yield expr
    elif isinstance(expr, Neg):
        yield from accesses(expr.operand)
    elif isinstance(expr, Binary):
        yield from accesses(expr.left)
        yield from accesses(expr.right)
    elif isinstance(expr, Sum):
        yield from accesses(expr.body)


def expr_vars(expr: Expr) -> Tuple[str, ...]:
    """The index variables ``expr`` mentions (summed ones included), in order, without repeats."""
    found: Dict[str, None] = {}
    for access in accesses(expr):
        for index in access.indices:
            found.update(dict.fromkeys(index_vars(index)))
    return tuple(found)


def map_accesses(expr: Expr, change) -> Expr:
    """``expr`` with every access replaced by ``change(access)``."""
    if isinstance(expr, Access):
        return change(expr)
    if isinstance(expr, Neg):
        return Neg(map_accesses(expr.operand, change))
    if isinstance(expr, Binary):
        return Binary(expr.op, map_accesses(expr.left, change), map_accesses(expr.right, change))
    if isinstance(expr, Sum):
        return Sum(expr.vars, expr.extents, map_accesses(expr.body, change))
    return expr


def substitute_expr(expr: Expr, mapping: Dict[str, Index]) -> Expr:
    """``expr`` with index variables replaced inside every subscript."""
    if not mapping:
        return expr
    return map_accesses(expr, lambda a: replace(
        a, indices=tuple(substitute(i, mapping) for i in a.indices)))


# --------------------------------------------------------------------------
# kernels

@dataclass(frozen=True)
class Statement:
    """One analysed statement: ``target = rhs`` for every value of the target's variables.

    ``extents`` maps every variable of the statement (target and summed) to
    its extent; ``text`` is the statement as written, for comments.
    """
    target: Access
    rhs: Expr
    extents: Dict[str, int]
    text: str
    line: int


@dataclass
class Kernel:
    """An analysed kernel case: what the JSON file says plus the analysed statements.

    ``inputs`` are the arrays read before the kernel writes them: ``ins``
    first, then outputs the kernel reads before writing (updated in place).
    ``locals`` are arrays the kernel writes that are neither ins nor outs.
    """
    name: str
    ins: Tuple[str, ...]
    outs: Tuple[str, ...]
    data_type: str
    grad_to: Tuple[str, ...]
    statements: Tuple[Statement, ...]
    shapes: Dict[str, Tuple[int, ...]]
    inputs: Tuple[str, ...]
    locals: Tuple[str, ...]
    source: str
    has_grad: bool = False

    @property
    def forward_params(self) -> Tuple[str, ...]:
        """The forward kernel's parameters: ``ins``, then the ``outs`` not among them."""
        return self.ins + tuple(o for o in self.outs if o not in self.ins)

    @property
    def final_versions(self) -> Dict[str, int]:
        """How many times the kernel writes each array."""
        counts: Dict[str, int] = {}
        for statement in self.statements:
            counts[statement.target.name] = statement.target.version
        return counts
