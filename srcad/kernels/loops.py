"""Loop nests: the target-independent form of generated kernel code.

Contract:
- A ``Nest`` is ``for`` loops, then ``Let`` bindings and ``Guard``
  conditions (each placed by the writer right after the loop that binds the
  last variable it uses), then one ``Store`` ``name[indices] op value`` with
  ``op`` ``=`` or ``+=``.  Values are model expressions whose accesses
  already carry the names the generated code uses; a ``Sum`` in a value
  becomes an accumulator loop in front of the store.  With ``reduction = n``
  the last n loops add ``value`` into a local accumulator, which is stored
  once after them (``name[indices] op accumulator``).
- A loop runs from ``start`` to ``stop`` (exclusive) by ``step``, and also
  stays within its symbolic bounds: ``var >= low`` for each of ``lows``,
  ``var <= high`` for each of ``highs`` (index expressions of outer loop
  variables).  A guard with ``enforced`` set holds by those bounds: it prints
  nothing but still tells the writer the ranges of its variables.
- ``Fill`` sets a whole array to a number or to a copy of another array;
  ``Comment`` is a comment line.  A ``Function`` is a name, parameters,
  local arrays and a body of these items.
- ``tighten(nest)`` folds guards on one loop variable into that loop's
  bounds (``1 <= h < 9`` becomes ``range(1, 9)``, ``h % 2 == 0`` a step) and
  drops guards that always hold.  ``bound_loops(nest)`` turns the remaining
  range guards on an affine expression into symbolic bounds of the innermost
  loop it uses (``0 <= h2 - r < 5`` becomes ``max(0, h2 - 4) <= r <= min(2,
  h2)``), so no condition is tested inside the loops.

Example::

    >>> from srcad.kernels.model import IBin, IConst, IVar, Number
    >>> nest = Nest((Loop("h", 0, 10),), (Guard(IVar("h"), 1, 9),), Store("dB", (10,), (IVar("h"),), "+=", Number(1.0)))
    >>> tighten(nest).loops
    (Loop(var='h', start=1, stop=9, step=1, lows=(), highs=()),)
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple, Union

from .model import (Expr, IConst, Index, IVar, Number, Range, affine, from_affine, index_vars, interval,
                    substitute)


@dataclass(frozen=True)
class Loop:
    var: str
    start: int
    stop: int
    step: int = 1
    lows: Tuple["Index", ...] = ()      # var >= each (inclusive), besides start
    highs: Tuple["Index", ...] = ()     # var <= each (inclusive), besides stop - 1

    @property
    def range(self) -> Range:
        """The inclusive range of values the loop variable takes (empty loops give lo > hi)."""
        last = self.start + ((self.stop - 1 - self.start) // self.step) * self.step
        return self.start, last


@dataclass(frozen=True)
class Let:
    var: str
    expr: Index


@dataclass(frozen=True)
class Guard:
    """``low <= expr < high``; with ``divisor``, instead ``expr % divisor == 0``."""
    expr: Index
    low: Optional[int] = None
    high: Optional[int] = None
    divisor: Optional[int] = None
    enforced: bool = False         # true by the loop bounds: prints nothing, narrows ranges


Step = Union[Let, Guard]


@dataclass(frozen=True)
class Store:
    name: str
    shape: Tuple[int, ...]
    indices: Tuple[Index, ...]
    op: str                 # "=" or "+="
    value: Expr


@dataclass(frozen=True)
class Nest:
    loops: Tuple[Loop, ...]
    steps: Tuple[Step, ...]
    store: Store
    reduction: int = 0       # the last ``reduction`` loops sum into an accumulator, stored once

    @property
    def store_loops(self) -> Tuple[Loop, ...]:
        """The loops outside the reduction (all of them when there is none)."""
        return self.loops[:len(self.loops) - self.reduction]


@dataclass(frozen=True)
class Fill:
    """``name[...] = value`` for every element; ``source`` copies that array instead."""
    name: str
    shape: Tuple[int, ...]
    value: Optional[Number] = None
    source: Optional[str] = None


@dataclass(frozen=True)
class Comment:
    text: str


Item = Union[Nest, Fill, Comment]


@dataclass(frozen=True)
class Param:
    name: str
    shape: Tuple[int, ...]
    role: str               # "input", "output", "seed" or "gradient"


@dataclass
class Function:
    name: str
    params: Tuple[Param, ...]
    locals: Tuple[Tuple[str, Tuple[int, ...]], ...]
    body: List[Item]
    summary: List[str]       # comment lines that head the function


def ranges_of(nest: Nest) -> Dict[str, Range]:
    """Inclusive ranges of the loop and let variables of ``nest`` (guards on a variable narrow it)."""
    ranges = {loop.var: loop.range for loop in nest.loops}
    for step in nest.steps:
        if isinstance(step, Let):
            ranges[step.var] = interval(step.expr, ranges)
        else:
            narrow(ranges, step)
    return ranges


def narrow(ranges: Dict[str, Range], guard: Guard) -> None:
    """Narrow ``ranges`` by ``guard`` when it bounds a single variable."""
    if isinstance(guard.expr, IVar) and guard.divisor is None:
        low, high = ranges[guard.expr.name]
        if guard.low is not None:
            low = max(low, guard.low)
        if guard.high is not None:
            high = min(high, guard.high - 1)
        ranges[guard.expr.name] = (low, high)


def holds(guard: Guard, ranges: Dict[str, Range]) -> bool:
    """Whether ``guard`` is true for every value of the variables in ``ranges``."""
    if guard.divisor is not None:
        return guard.divisor == 1
    low, high = interval(guard.expr, ranges)
    return (guard.low is None or low >= guard.low) and (guard.high is None or high < guard.high)


def tighten(nest: Nest) -> Nest:
    """``nest`` with single-variable guards folded into loop bounds and needless guards dropped."""
    loops = {loop.var: loop for loop in nest.loops}
    lets: Dict[str, Index] = {}
    kept: List[Step] = []
    for step in nest.steps:
        if isinstance(step, Let):
            lets[step.var] = substitute(step.expr, lets)
            kept.append(step)
            continue
        form = affine(substitute(step.expr, lets))
        if form is None or len(form[0]) != 1 or next(iter(form[0])) not in loops:
            kept.append(step)
            continue
        (var, coefficient), constant = next(iter(form[0].items())), form[1]
        loop = loops[var]
        if step.divisor is None and abs(coefficient) == 1:
            low = -10**18 if step.low is None else step.low
            high = 10**18 if step.high is None else step.high
            if coefficient == 1:       # low <= h + c < high
                start, stop = max(loop.start, low - constant), min(loop.stop, high - constant)
            else:                      # low <= c - h < high
                start, stop = max(loop.start, constant - high + 1), min(loop.stop, constant - low + 1)
            start += (-(start - loop.start)) % loop.step      # stay on the loop's stride
            loops[var] = Loop(var, start, max(start, stop), loop.step)
        elif step.divisor is not None and coefficient == 1 and loop.step == 1:
            start = loop.start + (-(loop.start + constant)) % step.divisor   # (h + c) % d == 0
            loops[var] = Loop(var, start, max(start, loop.stop), step.divisor)
        else:
            kept.append(step)
    tightened = replace(nest, loops=tuple(loops[loop.var] for loop in nest.loops))
    ranges = {loop.var: loop.range for loop in tightened.loops}
    steps: List[Step] = []
    for step in kept:
        if isinstance(step, Let):
            ranges[step.var] = interval(step.expr, ranges)
        elif holds(step, ranges):
            continue
        else:
            narrow(ranges, step)
        steps.append(step)
    return replace(tightened, steps=tuple(steps))


def bound_loops(nest: Nest) -> Nest:
    """``nest`` with range guards on affine expressions turned into symbolic loop bounds.

    A guard ``low <= a*v + rest < high`` (``a`` = +-1, ``v`` the innermost
    loop it uses, ``rest`` over outer loops, lets substituted) becomes bounds
    of v's loop and stays as an enforced guard, so the writer still knows
    the range of its expression.  Guards the loop ranges already satisfy go.

    Example::

        >>> from srcad.kernels.model import IBin, show_index
        >>> h, r = IVar("h"), IVar("r")
        >>> nest = Nest((Loop("h", 0, 7), Loop("r", 0, 3)), (Let("p", IBin("-", h, r)), Guard(IVar("p"), 0, 5)),
        ...             Store("dB", (7,), (h,), "=", Number(1.0)))
        >>> [show_index(e) for e in bound_loops(nest).loops[1].lows + bound_loops(nest).loops[1].highs]
        ['h - 4', 'h']
    """
    order = {loop.var: position for position, loop in enumerate(nest.loops)}
    loops = list(nest.loops)
    lets: Dict[str, Index] = {}
    steps: List[Step] = []
    for step in nest.steps:
        if isinstance(step, Let):
            lets[step.var] = substitute(step.expr, lets)
        elif step.divisor is None and not step.enforced:
            bounded = _symbolic_bounds(step, affine(substitute(step.expr, lets)), order, loops)
            if bounded:
                step = replace(step, enforced=True)
        steps.append(step)
    return replace(nest, loops=tuple(loops), steps=tuple(steps))


def _symbolic_bounds(guard: Guard, form, order: Dict[str, int], loops: List[Loop]) -> bool:
    """Add ``guard`` as bounds of the innermost loop of its affine ``form``; whether that was possible."""
    if form is None or not form[0] or any(v not in order for v in form[0]):
        return False
    coefficients, constant = form
    var = max(coefficients, key=order.get)
    position = order[var]
    loop = loops[position]
    if abs(coefficients[var]) != 1 or loop.step != 1:
        return False
    sign = coefficients[var]
    rest = {v: -sign * c for v, c in coefficients.items() if v != var}   # var = sign * (value - rest)
    outer = {other.var: other.range for other in loops[:position]}
    low = -10**18 if guard.low is None else guard.low
    high = 10**18 if guard.high is None else guard.high - 1
    # low <= sign*var + (-sign)*rest_sum + constant <= high, solved for var
    first, last = (low - constant, high - constant) if sign == 1 else (constant - high, constant - low)
    lows, highs = list(loop.lows), list(loop.highs)
    start, stop = loop.start, loop.stop
    for bound, into in ((first, lows), (last, highs)):
        if abs(bound) >= 10**17:
            continue
        expr = from_affine(rest, bound) if rest else IConst(bound)
        smallest, largest = interval(expr, outer)
        if into is lows:
            if smallest == largest:
                start = max(start, smallest)
            elif largest > start:
                lows.append(expr)
        else:
            if smallest == largest:
                stop = min(stop, largest + 1)
            elif smallest < stop - 1:
                highs.append(expr)
    loops[position] = replace(loop, start=start, stop=max(start, stop), lows=tuple(lows), highs=tuple(highs))
    return True


def loop_range(loop: Loop, ranges: Dict[str, Range]) -> Range:
    """The inclusive range of ``loop``'s variable, its symbolic bounds evaluated over ``ranges``."""
    low, high = loop.range
    for bound in loop.lows:
        low = max(low, interval(bound, ranges)[0])
    for bound in loop.highs:
        high = min(high, interval(bound, ranges)[1])
    return low, high


def is_empty(nest: Nest) -> bool:
    """Whether some loop of ``nest`` runs zero times."""
    return any(loop.start >= loop.stop for loop in nest.loops)


def bound_guards(indices: Tuple[Index, ...], shape: Tuple[int, ...]) -> Tuple[Guard, ...]:
    """``0 <= index < extent`` for each subscript that is not a constant already in range."""
    return tuple(Guard(index, 0, extent) for index, extent in zip(indices, shape)
                 if not (isinstance(index, IConst) and 0 <= index.value < extent))


def uses(step: Step) -> Tuple[str, ...]:
    """The variables a let or guard reads."""
    return index_vars(step.expr)


def is_plain(index: Index) -> bool:
    """Whether a subscript is a bare variable or a constant (no arithmetic)."""
    return isinstance(index, (IVar, IConst))
