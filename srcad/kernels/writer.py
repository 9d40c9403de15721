"""Print loop nests as source lines; the Python and C++ writers fill in the syntax.

Contract:
- ``Writer`` turns ``loops`` items into indented lines.  It owns everything
  both targets share: where lets and guards go, accumulator loops for
  ``Sum``, zero padding of reads that may fall outside their array (only
  when the index ranges do not prove them inside), parentheses.
- Subclasses define the syntax hooks (``open_for``, ``open_if``, ``close``,
  ``let``, ``declare``, ``subscript``, ``literal``, ``padded``, ...).
- ``taken`` holds every name the generated function uses; new names
  (accumulators, fill loop variables) never collide with them.
- Output depends only on the input: no dict or set ordering leaks in.

Example::

    >>> from srcad.kernels.emit_python import PythonWriter
    >>> from srcad.kernels.loops import Fill
    >>> w = PythonWriter("float", {"A"}); w.item(Fill("A", (3,), Number(0.0))); w.lines
    ['A[...] = 0.0']
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Dict, Iterable, List, Set

from .loops import Comment, Fill, Guard, Item, Let, Loop, Nest, Store, loop_range, narrow
from .model import (Access, Expr, IBin, IVar, Neg, Number, Range, Sum, affine, from_affine, index_vars,
                    interval, show_index)

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}
_ATOM = 9


class Writer(ABC):
    """Shared printing logic; see the module docstring."""

    comment_prefix = "#"
    integer_division_call = False    # whether integer ``/`` prints as a call (``divide``) rather than ``/``

    def __init__(self, data_type: str, taken: Iterable[str]):
        self.data_type = data_type
        self.taken: Set[str] = set(taken)
        self.lines: List[str] = []
        self.depth = 0
        self.ranges: Dict[str, Range] = {}
        self._scopes: List[Dict[str, Range]] = []
        self._scope_names: Set[str] = set()
        self.fold_sums = False     # evaluate ``L + Sum`` by adding each term onto L (the written order)

    # -- syntax hooks (overridden)
    @abstractmethod
    def open_for(self, loop: Loop) -> None:
        """Implemented by each target's writer."""

    @abstractmethod
    def open_if(self, condition: str) -> None:
        """Implemented by each target's writer."""

    @abstractmethod
    def close_text(self) -> str:
        """The line that ends a block ('' for none)."""

    @abstractmethod
    def let(self, var: str, text: str) -> None:
        """Implemented by each target's writer."""

    @abstractmethod
    def declare(self, name: str, value: str) -> None:
        """Start an accumulator: a new scalar variable ``name`` holding ``value``."""

    @abstractmethod
    def statement(self, target: str, op: str, value: str) -> None:
        """Implemented by each target's writer."""

    @abstractmethod
    def subscript(self, name: str, indices: List[str]) -> str:
        """Implemented by each target's writer."""

    @abstractmethod
    def scalar_store(self, name: str) -> str:
        """Implemented by each target's writer."""

    @abstractmethod
    def literal(self, number: Number) -> str:
        """Implemented by each target's writer."""

    @abstractmethod
    def padded(self, value: str, condition: str) -> str:
        """``value`` where ``condition`` holds, else zero."""

    @abstractmethod
    def between(self, low, text: str, high) -> str:
        """Implemented by each target's writer."""

    def all_of(self, conditions: List[str]) -> str:
        """Implemented by each target's writer."""

    def divide(self, left: str, right: str, integers: bool) -> str:
        return f"{left} / {right}"

    def index(self, expr) -> str:
        return show_index(expr)

    # -- blocks and names
    def line(self, text: str = "") -> None:
        self.lines.append("    " * self.depth + text if text else "")

    def comment(self, text: str) -> None:
        self.line(f"{self.comment_prefix} {text}")

    def enter(self) -> None:
        self._scopes.append(dict(self.ranges))
        self.depth += 1

    def close(self) -> None:
        self.depth -= 1
        self.ranges = self._scopes.pop()
        end = self.close_text()
        if end:
            self.line(end)

    def fresh(self, base: str) -> str:
        """A new name starting with ``base`` that nothing in the function uses yet."""
        name, number = base, 2
        while name in self.taken or name in self._scope_names:
            name, number = f"{base}{number}", number + 1
        self._scope_names.add(name)
        if self.depth <= 1:          # declared in the function body itself: no later nest may reuse it
            self.taken.add(name)
        return name

    # -- items
    def item(self, item: Item) -> None:
        if isinstance(item, Comment):
            self.comment(item.text)
        elif isinstance(item, Fill):
            self.fill(item)
        else:
            self.nest(item)

    def fill(self, fill: Fill) -> None:
        """Set every element of an array (loops over its shape; targets may print it shorter)."""
        self._scope_names = set()
        names = [self.fresh(f"i{axis}") for axis in range(len(fill.shape))]
        value: Expr = fill.value if fill.source is None else Access(
            fill.source, fill.shape, tuple(IVar(n) for n in names))
        store = Store(fill.name, fill.shape, tuple(IVar(n) for n in names), "=", value)
        self.nest(Nest(tuple(Loop(n, 0, extent) for n, extent in zip(names, fill.shape)), (), store), fresh=False)

    def nest(self, nest: Nest, fresh: bool = True) -> None:
        """Print a loop nest: loops, each let or guard once its variables exist, the store.

        With ``nest.reduction`` the last loops sum the value into a local
        accumulator, declared just before them and stored once after them.
        """
        if fresh:
            self._scope_names = set()
        depth, bound = self.depth, set()
        pending = list(nest.steps)

        def flush() -> None:
            ready = [s for s in pending if set(index_vars(s.expr)) <= bound]
            while ready:
                step = ready[0]
                pending.remove(step)
                if isinstance(step, Let):
                    self.ranges[step.var] = interval(step.expr, self.ranges)
                    self.let(step.var, self.index(step.expr))
                    bound.add(step.var)
                else:
                    if not step.enforced:
                        self.open_if(self.condition(step))
                    narrow(self.ranges, step)
                ready = [s for s in pending if set(index_vars(s.expr)) <= bound]

        flush()
        first_summed = len(nest.loops) - nest.reduction
        accumulator, summing_depth = "", 0
        for position, loop in enumerate(nest.loops):
            if position == first_summed:
                accumulator = self.fresh("sum_" + "_".join(summed.var for summed in nest.loops[position:]))
                self.declare(accumulator, self.literal(Number(0.0 if self.data_type == "float" else 0)))
                summing_depth = self.depth
            self.open_for(loop)
            self.ranges[loop.var] = loop_range(loop, self.ranges)
            bound.add(loop.var)
            flush()
        assert not pending, f"steps use unbound variables: {pending}"
        if accumulator:
            self.statement(accumulator, "+=", self.value(nest.store.value))
            while self.depth > summing_depth:
                self.close()
            store = nest.store
            self.store(Store(store.name, store.shape, store.indices, store.op, Access(accumulator, (), ())))
        else:
            self.store(nest.store)
        while self.depth > depth:
            self.close()

    def limits(self, loop: Loop):
        """``(lows, highs)``: texts whose max and min bound ``loop`` (inclusive); None for constant bounds."""
        if not loop.lows and not loop.highs:
            return None
        lows = [self.index(low) for low in loop.lows]
        if not any(interval(low, self.ranges)[0] >= loop.start for low in loop.lows):
            lows.insert(0, str(loop.start))
        highs = [self.index(high) for high in loop.highs]
        if not any(interval(high, self.ranges)[1] <= loop.stop - 1 for high in loop.highs):
            highs.insert(0, str(loop.stop - 1))
        return lows, highs

    def one_past(self, high) -> str:
        """The text of ``high + 1`` for an index expression (``h2 + 1``, ``h2`` for ``h2 - 1``)."""
        form = affine(high)
        return self.index(from_affine(form[0], form[1] + 1)) if form else f"{self.index(high)} + 1"

    def condition(self, guard: Guard) -> str:
        text = self.index(guard.expr)
        if guard.divisor is not None:
            return f"{self.group(guard.expr, text)} % {guard.divisor} == 0"
        if (guard.low, guard.high) == (0, 1) and isinstance(guard.expr, IBin) and guard.expr.op == "-":
            return f"{self.index(guard.expr.left)} == {self.index(guard.expr.right)}"
        return self.between(guard.low, text, guard.high)

    def group(self, expr, text: str) -> str:
        return text if isinstance(expr, (IVar,)) or text.isdigit() else f"({text})"

    def store(self, store: Store) -> None:
        value = self.value(store.value)
        if store.shape:
            target = self.subscript(store.name, [self.index(i) for i in store.indices])
        else:
            target = self.scalar_store(store.name)
        self.statement(target, store.op, value)

    # -- values
    def is_integer(self, expr: Expr) -> bool:
        if isinstance(expr, Number):
            return not expr.is_float and self.data_type == "int"
        if isinstance(expr, Access):
            return self.data_type == "int"
        if isinstance(expr, Neg):
            return self.is_integer(expr.operand)
        if isinstance(expr, Sum):
            return self.is_integer(expr.body)
        return self.is_integer(expr.left) and self.is_integer(expr.right)

    def value(self, expr: Expr, parent: int = 0, right_side: bool = False) -> str:
        """The text of a value; sums print their accumulator loops first."""
        text, level = self._value(expr)
        if level < parent or (level == parent and right_side):
            return f"({text})"
        return text

    def _value(self, expr: Expr):
        if isinstance(expr, Number):
            text = self.literal(expr)
            return text, (3 if text.startswith("-") else _ATOM)
        if isinstance(expr, Access):
            return self.access(expr), _ATOM
        if isinstance(expr, Neg):
            return "-" + self.value(expr.operand, 3), 3
        if isinstance(expr, Sum):
            return self.accumulate(expr), _ATOM
        if self.fold_sums and expr.op in "+-" and isinstance(expr.right, Sum):
            return self.accumulate(expr.right, self.value(expr.left), expr.op), _ATOM
        level = _PRECEDENCE[expr.op]
        if expr.op == "/" and self.integer_division_call and self.is_integer(expr.left) \
                and self.is_integer(expr.right):
            return self.divide(self.value(expr.left), self.value(expr.right), True), _ATOM
        left, right = self.value(expr.left, level), self.value(expr.right, level, True)
        if expr.op == "/":
            return self.divide(left, right, False), level
        return f"{left} {expr.op} {right}", level

    def access(self, access: Access) -> str:
        if not access.shape:
            return access.name
        texts, conditions = [], []
        for index, extent in zip(access.indices, access.shape):
            text = self.index(index)
            texts.append(text)
            low, high = interval(index, self.ranges)
            if low < 0 or high >= extent:
                conditions.append(self.between(0 if low < 0 else None, text, extent if high >= extent else None))
        text = self.subscript(access.name, texts)
        return self.padded(text, self.all_of(conditions)) if conditions else text

    def accumulate(self, total: Sum, start: str = "", op: str = "+") -> str:
        """Print the accumulator loop of a sum and return the accumulator's name.

        The accumulator starts at ``start`` (zero by default) and each term is
        added to it (subtracted, with ``op`` ``-``) in loop order.
        """
        name = self.fresh("sum_" + "_".join(total.vars))
        self.declare(name, start or self.literal(Number(0.0 if self.data_type == "float" else 0)))
        depth = self.depth
        for var, extent in zip(total.vars, total.extents):
            self.open_for(Loop(var, 0, extent))
            self.ranges[var] = (0, extent - 1)
        self.statement(name, f"{op}=", self.value(total.body))
        while self.depth > depth:
            self.close()
        return name
