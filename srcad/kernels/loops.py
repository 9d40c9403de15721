"""Loop nests: the target-independent form of generated kernel code.

Contract:
- A ``Nest`` is ``for`` loops with constant bounds, then ``Let`` bindings and
  ``Guard`` conditions (each placed by the writer right after the loop that
  binds the last variable it uses), then one ``Store`` ``name[indices] op
  value`` with ``op`` ``=`` or ``+=``.  Values are model expressions whose
  accesses already carry the names the generated code uses; a ``Sum`` in a
  value becomes an accumulator loop in front of the store.
- ``Fill`` sets a whole array to a number or to a copy of another array;
  ``Comment`` is a comment line.  A ``Function`` is a name, parameters,
  local arrays and a body of these items.
- ``tighten(nest)`` folds guards on one loop variable into that loop's
  bounds (``1 <= h < 9`` becomes ``range(1, 9)``, ``h % 2 == 0`` a step) and
  drops guards that always hold.

Example::

    >>> from srcad.kernels.model import IBin, IConst, IVar, Number
    >>> nest = Nest((Loop("h", 0, 10),), (Guard(IVar("h"), 1, 9),), Store("dB", (10,), (IVar("h"),), "+=", Number(1.0)))
    >>> tighten(nest).loops
    (Loop(var='h', start=1, stop=9, step=1),)
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple, Union

from .model import Expr, IConst, Index, IVar, Number, Range, affine, index_vars, interval, substitute


@dataclass(frozen=True)
class Loop:
    var: str
    start: int
    stop: int
    step: int = 1

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
