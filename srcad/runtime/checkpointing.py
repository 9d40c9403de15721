"""Binomial checkpointing of a loop whose body srcad made a step function (``grad(f, checkpoints=K)``).

Contract:
- ``checkpointed_loop(step, indices, state, invariants, checkpoints, copies, where)``
  runs ``state = step(t, *state, *invariants)`` for every ``t`` in the range
  ``indices`` and returns the final state as a ``CarriedState`` (a tuple).
  While it runs it keeps the snapshots the reverse sweep starts from, never
  more than ``checkpoints`` states at once (the loop's initial state counts).
- ``checkpointed_loop_grads(grads, result, ...)`` is the reverse sweep: it
  pulls the adjoint ``grads`` of the final state back through every step,
  in the order of Griewank's binomial schedule (``revolve``): a segment is
  split at the point that keeps the number of recomputed steps minimal, the
  state at the split is stored, the later part is reversed first.  It returns
  ``[adjoint of each initial state item], [adjoint of each invariant]``;
  the adjoints of the invariants are summed over all steps.
- Each step's adjoint is the reverse-mode derivative of ``step`` (built
  through ``srcad.runtime.callbacks``) with respect to the state items and
  invariants that hold floats.
- With ``copies`` (the body writes into a carried array in place), every
  step gets copies of the carried arrays, so no snapshot is ever changed.
- ``checkpointed_loop_tangents(state_tangents, invariant_tangents, ...)`` is
  forward mode (for derivatives of code that calls the helper): the loop
  again, each step with its Jacobian-vector product; it keeps no states.
- ``repetitions(steps, snapshots)`` and ``recomputed_steps(steps, snapshots)``
  give the schedule's cost: how often a step runs at most, and how many
  plain forward steps the reverse sweep makes in all.

Example::

    >>> recomputed_steps(10000, 20)   # forward steps the reverse sweep makes for 10**4 steps and 20 snapshots
    37976
"""
from __future__ import annotations

from math import comb
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from ..errors import SrcadError
from .callbacks import derivative_of


class CarriedState(tuple):
    """The final state of a checkpointed loop, holding the snapshots its reverse sweep starts from."""

    snapshots: List[Tuple[int, tuple]]


def _binomial(snapshots: int, repetitions: int) -> int:
    """How many steps ``snapshots`` snapshots reverse when no step runs more than ``repetitions`` times."""
    return comb(snapshots + repetitions, snapshots)


def repetitions(steps: int, snapshots: int) -> int:
    """The least number of times a step must run forward to reverse ``steps`` steps with ``snapshots`` snapshots.

    Example: ``repetitions(10, 1)`` is 9 (a single snapshot: the first step runs 9 times in all).
    """
    count = 0
    while _binomial(snapshots, count) < steps:
        count += 1
    return count


def recomputed_steps(steps: int, snapshots: int) -> int:
    """The plain forward steps the binomial schedule makes to reverse ``steps`` steps (Griewank's bound).

    Example: ``recomputed_steps(4, 1)`` is 6 (3 + 2 + 1 steps from the one snapshot).
    """
    if steps <= 1:
        return 0
    count = repetitions(steps, snapshots)
    return count * steps - _binomial(snapshots + 1, count - 1)


def split_point(steps: int, snapshots: int) -> int:
    """How far to advance before storing the next snapshot, so the reversal of ``steps`` steps is cheapest.

    Example: ``split_point(10, 2)`` is 6: store the state after 6 steps, reverse the last 4 from
    that snapshot alone, then the first 6 with two.
    """
    if snapshots <= 1:
        return steps - 1
    count = repetitions(steps, snapshots)
    return max(1, min(steps - 1, _binomial(snapshots, count - 1),
                      steps - _binomial(snapshots - 1, count - 1)))


def checked_snapshots(checkpoints) -> int:
    """``checkpoints`` as given to ``srcad.grad``: an int of 1 or more, or None (no checkpointing).

    Example: ``checked_snapshots(20)`` is 20; ``checked_snapshots(0)`` raises ``SrcadError``.
    """
    if checkpoints is None:
        return None
    if not isinstance(checkpoints, (int, np.integer)) or isinstance(checkpoints, bool) or checkpoints < 1:
        raise SrcadError(f"checkpoints={checkpoints!r} is not a number of snapshots; give an int of 1 or more "
                         "(checkpoints=20), or leave it out")
    return int(checkpoints)


def _separate(state: Sequence, invariants: Sequence, names: Sequence[str], where: str) -> None:
    """Refuse carried arrays that share memory with each other or with an invariant: the step writes into
    them in place, and each gets a copy of its own, so the other name would miss the write."""
    arrays = [(names[1 + k], item) for k, item in enumerate(list(state) + list(invariants))
              if isinstance(item, np.ndarray)]
    for position, (name, array) in enumerate(arrays[:len(state)]):
        for other, value in arrays[position + 1:]:
            if np.may_share_memory(array, value):
                raise SrcadError(f"{where}: `{name}` and `{other}` share memory, and the checkpointed loop writes "
                                 f"into `{name}` in place; make one a copy before the loop "
                                 f"(`{name} = {name}.copy()`), or write the loop out of place")


def _fresh(state: Sequence, copies: bool) -> tuple:
    """``state`` as a step may take it: its arrays copied when the step writes into them."""
    if not copies:
        return tuple(state)
    return tuple(item.copy() if isinstance(item, np.ndarray) else item for item in state)


def _first_descent(length: int, snapshots: int) -> List[int]:
    """The offsets, from the loop's start, at which the schedule stores snapshots before reversing anything."""
    offsets, start, free = [0], 0, snapshots
    while length - start > 1 and free > 1:
        start += split_point(length - start, free)
        offsets.append(start)
        free -= 1
    return offsets


def checkpointed_loop(step: Callable, indices: range, state: tuple, invariants: tuple, checkpoints: int,
                      copies: bool = False, where: str = "") -> CarriedState:
    """Run the loop ``for t in indices: state = step(t, *state, *invariants)``, keeping the first snapshots.

    Example::

        >>> def step(t, x, rate):
        ...     return (x * rate,)
        >>> checkpointed_loop(step, range(3), (1.0,), (2.0,), 2)
        (8.0,)
    """
    stored = set(_first_descent(len(indices), checkpoints))
    code = step.__code__
    names = code.co_varnames[:code.co_argcount]
    snapshots, current = [], _fresh(state, copies)   # the step may write into its own copies only
    for offset, index in enumerate(indices):
        if copies:
            _separate(current, invariants, names, where)
        if offset in stored:
            snapshots.append((offset, _fresh(current, copies)))
        current = _carried(step(index, *current, *invariants), len(state), where)
    result = CarriedState(current)
    result.snapshots = snapshots
    return result


def _carried(output, count: int, where: str) -> tuple:
    if not isinstance(output, tuple) or len(output) != count:   # the step srcad wrote always returns a tuple
        raise SrcadError(f"{where}: the checkpointed loop's step returned {output!r}, not the {count} "
                         "carried values")
    return output


def _holds_floats(value) -> bool:
    if isinstance(value, (float, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


_PLAIN = (float, int, bool, np.floating, np.integer, np.bool_, str, range, type(None))


def _check_differentiable(name: str, value, where: str) -> None:
    """Refuse a carried or invariant value whose derivative the step's adjoint would leave out: a container,
    an object, a complex number (a float, an int or a real array is taken as it is)."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" or isinstance(value, _PLAIN) \
            and not isinstance(value, complex):
        return
    raise SrcadError(f"{where}: `{name}` holds {type(value).__name__} {_short(value)}, and a checkpointed loop's "
                     f"step is differentiated with respect to floats and real arrays only; give the loop its "
                     f"arrays as variables of their own (`w = {name}[0]` before the loop), or leave checkpoints "
                     "out")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _zero_like(value):
    return np.zeros_like(value) if isinstance(value, np.ndarray) else 0.0


class _Reversal:
    """One reverse sweep: the step, its derivative, the adjoints of the invariants being summed."""

    def __init__(self, step, indices, invariants, copies, where, active_state, active_invariants, wrt):
        self.step, self.indices, self.invariants, self.copies, self.where = step, indices, invariants, copies, where
        self.active_state, self.active_invariants = active_state, active_invariants
        self.derivative = derivative_of(step, wrt=wrt, mode="reverse") if wrt else None
        self.invariant_grads = [_zero_like(invariants[k]) for k in range(len(invariants))]

    def advance(self, state: tuple, start: int, stop: int) -> tuple:
        """The state before step ``stop``, from ``state`` (before step ``start``), which stays as it is."""
        state = _fresh(state, self.copies)
        for offset in range(start, stop):
            state = _carried(self.step(self.indices[offset], *state, *self.invariants), len(state), self.where)
        return state

    def reverse_step(self, state: tuple, offset: int, adjoint: list) -> list:
        """The adjoint of the state before step ``offset``, given ``adjoint`` of the state after it."""
        previous = [_zero_like(item) for item in state]
        if self.derivative is None:
            return previous
        seed = tuple(adjoint)
        grads = self.derivative(self.indices[offset], *state, *self.invariants, seed)   # writes no argument
        grads = grads if isinstance(grads, tuple) else (grads,)
        for position, k in enumerate(self.active_state):
            previous[k] = grads[position]
        for position, k in enumerate(self.active_invariants):
            self.invariant_grads[k] = self.invariant_grads[k] + grads[len(self.active_state) + position]
        return previous

    def reverse(self, state: tuple, start: int, stop: int, free: int, adjoint: list) -> list:
        """Reverse steps ``start`` to ``stop`` from ``state`` (the state before ``start``), with ``free``
        snapshots (the one holding ``state`` counts)."""
        while stop - start > 1:
            if free <= 1:   # one snapshot: run up to each step again
                adjoint = self.reverse_step(self.advance(state, start, stop - 1), stop - 1, adjoint)
                stop -= 1
                continue
            middle = start + split_point(stop - start, free)
            adjoint = self.reverse(self.advance(state, start, middle), middle, stop, free - 1, adjoint)
            stop = middle
        return self.reverse_step(state, start, adjoint) if stop > start else adjoint


def checkpointed_loop_grads(grads, result: CarriedState, step: Callable, indices: range, state: tuple,
                            invariants: tuple, checkpoints: int, copies: bool = False, where: str = "",
                            names: Sequence[str] = ()) -> Tuple[List[Any], List[Any]]:
    """The adjoints ``([initial state items], [invariants])`` of ``result = checkpointed_loop(...)``.

    ``names`` are the step's parameter names (the index, the state items, the invariants); by default
    those ``step`` declares.

    Example: for ``step(t, x, rate) = (x * rate,)`` over ``range(3)`` from ``x = 1.0``,
    ``checkpointed_loop_grads((1.0,), result, step, range(3), (1.0,), (2.0,), 2, names=("t", "x", "rate"))``
    is ``([8.0], [12.0])``.
    """
    code = step.__code__
    names = tuple(names) or code.co_varnames[:code.co_argcount]
    adjoint = [_zero_like(item) if grad is None else grad
               for item, grad in zip(result, _items(grads, len(result)))]
    active_state = [k for k, item in enumerate(state) if _holds_floats(item) or _holds_floats(result[k])]
    for k in active_state:
        if not _holds_floats(state[k]):
            raise SrcadError(f"{where}: the carried variable {names[1 + k]!r} starts as {state[k]!r} and holds "
                             f"floats after the loop; make it a float before the loop "
                             f"({names[1 + k]} = float({names[1 + k]}))")
    for name, item in zip(names[1:], list(state) + list(invariants)):
        _check_differentiable(name, item, where)
    active_invariants = [k for k, item in enumerate(invariants) if _holds_floats(item)]
    wrt = tuple(names[1 + k] for k in active_state) + tuple(names[1 + len(state) + k] for k in active_invariants)
    reversal = _Reversal(step, indices, invariants, copies, where, active_state, active_invariants, wrt)
    snapshots = getattr(result, "snapshots", None) or [(0, _fresh(state, copies))]
    stop, free = len(indices), checkpoints - len(snapshots) + 1
    for offset, snapshot in reversed(snapshots):   # the schedule's first descent stored these on the way
        adjoint = reversal.reverse(snapshot, offset, stop, free, adjoint)
        stop, free = offset, free + 1
    return list(adjoint), reversal.invariant_grads


def checkpointed_loop_tangents(state_tangents, invariant_tangents, step: Callable, indices: range, state: tuple,
                               invariants: tuple, copies: bool = False, where: str = "") -> tuple:
    """The tangent of ``checkpointed_loop(step, indices, state, invariants, ...)``'s final state for the tangents
    of the initial state and of the invariants (a zero or None for none).

    Example: for ``step(t, x, rate) = (x * rate,)`` over ``range(3)`` from ``x = 1.0`` with ``rate = 2.0``,
    ``checkpointed_loop_tangents((1.0,), (0.0,), step, range(3), (1.0,), (2.0,))`` is ``(8.0,)``.
    """
    code = step.__code__
    names = code.co_varnames[:code.co_argcount]
    for name, item in zip(names[1:], list(state) + list(invariants)):
        _check_differentiable(name, item, where)
    current, tangents = _fresh(state, copies), list(_tangent_items(state_tangents, state))
    invariant_tangents = _tangent_items(invariant_tangents, invariants)
    active_invariants = [k for k, item in enumerate(invariants) if _holds_floats(item)]
    derivatives = {}
    for index in indices:
        active_state = tuple(k for k, item in enumerate(current) if _holds_floats(item))
        wrt = tuple(names[1 + k] for k in active_state) + tuple(names[1 + len(state) + k] for k in active_invariants)
        if not wrt:
            tangents = [_zero_like(item) for item in current]
        else:
            if wrt not in derivatives:
                derivatives[wrt] = derivative_of(step, wrt=wrt, mode="forward")
            pushed = derivatives[wrt](index, *current, *invariants, *[tangents[k] for k in active_state],
                                      *[invariant_tangents[k] for k in active_invariants])
            pushed = pushed if isinstance(pushed, tuple) else (pushed,)
            tangents = list(pushed)
        current = _fresh(_carried(step(index, *current, *invariants), len(state), where), copies)
    return tuple(_zero_like(item) if tangent is None else tangent for item, tangent in zip(current, tangents))


def _tangent_items(tangents, values) -> list:
    """The tangents of the items of a tuple, a zero for each when the tuple has none."""
    if isinstance(tangents, (tuple, list)) and len(tangents) == len(values):
        return [_zero_like(value) if tangent is None else tangent for value, tangent in zip(values, tangents)]
    return [_zero_like(value) for value in values]


def _items(grads, count: int) -> list:
    """The adjoint of the final state as one entry per carried value."""
    if grads is None:
        return [None] * count
    if isinstance(grads, (tuple, list)) and len(grads) == count:
        return list(grads)
    raise SrcadError(f"the adjoint of a checkpointed loop's state is {grads!r}, not one value per carried variable")
