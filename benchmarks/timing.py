"""Timing for ``benchmarks/run.py``: check a problem's gradients, then measure their grad/f ratios.

Contract:
- ``Timed``, ``calibrate``, ``time_rounds`` and ``median_ratio`` time
  callables against each other: each runs in a loop long enough to time (at
  least 50 ms; ``quick``: 2 ms), once per round, every callable in each round,
  for 7 rounds (at least 3, fewer for slow calls; ``quick``: 3).  A ratio is
  the median over rounds of a callable's time over the primal's time in the
  same round.  ``loop_seconds`` is the one timed loop they all use.
- ``run_problem`` returns a ``Row`` for one problem: the NumPy primal
  ``f``, srcad's reverse mode, every peer given, and srcad's forward mode
  (one JVP), each checked first (``checks.py``) and timed only if it passed;
  a ``Cell`` per column holds its median seconds and ratio, or the status
  (``unsupported``, ``error``, ``WRONG``, ``n/a``, ``mismatch``) and reason
  that replace them.  Columns are ``SRCAD_COLUMNS`` then the peers' names.
  ``Row.overheads`` is left empty for ``overheads.measure_overheads``.
- ``steady_allocator`` makes glibc's malloc keep freed memory, so that
  timings of large temporaries are steady within a process.
- Nothing here prints; srcad's own costs (transform, disk load, call
  overhead) are measured in ``overheads.py``.
"""
from __future__ import annotations

import ctypes
import platform
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

import srcad
from checks import (AGREE_RTOL, FD_RTOL, close, directional, error_summary, failure_status, finite_difference,
                    random_directions, same_gradient)
from problems import Problem

SRCAD_COLUMNS = ("srcad rev", "srcad fwd")


# --------------------------------------------------------------------------
# timing callables against each other


@dataclass
class Timed:
    """One callable being timed: its loop length and its per-call seconds, one per round."""
    call: Callable[[], Any]
    number: int = 1
    rounds: int = 7
    samples: List[float] = field(default_factory=list)


def calibrate(call: Callable[[], Any], quick: bool) -> Timed:
    """Warm ``call`` up and pick a loop length that takes at least one repeat's worth of time."""
    per_repeat = 0.002 if quick else 0.05
    budget = 0.05 if quick else 4.0           # seconds of repeats for one callable, roughly
    call()                                     # warm-up (caches, lazy imports, jit)
    number = 1
    while True:
        elapsed = loop_seconds(call, number)
        if elapsed >= per_repeat:
            break
        number = max(number + 1, int(number * 1.5 * per_repeat / max(elapsed, 1e-9)))
    rounds = 3 if quick else max(3, min(7, int(budget / elapsed)))
    return Timed(call, number, rounds, [elapsed / number])


def time_rounds(timed: Dict[str, Timed]) -> None:
    """Time every callable once per round, round after round, so a change of machine load hits all alike."""
    for round_index in range(1, max(t.rounds for t in timed.values())):
        for item in timed.values():
            if round_index < item.rounds:
                item.samples.append(loop_seconds(item.call, item.number) / item.number)


def median_ratio(item: Timed, primal: Timed) -> float:
    """Median over rounds of the callable's time over the primal's time in the same round."""
    return statistics.median(s / f for s, f in zip(item.samples, primal.samples))


def loop_seconds(call: Callable[[], Any], number: int) -> float:
    """Seconds that ``number`` calls of ``call``, back to back, take."""
    start = time.perf_counter()
    for _ in range(number):
        call()
    return time.perf_counter() - start


# --------------------------------------------------------------------------
# one problem


@dataclass
class Cell:
    """One column of a problem's row: median seconds and ratio to f if timed, else why not."""
    seconds: Optional[float] = None
    ratio: Optional[float] = None   # median over rounds of seconds / f's seconds
    status: str = ""          # "" when timed; else "unsupported", "error", "n/a", "WRONG", "mismatch"
    reason: str = ""
    setup_seconds: Optional[float] = None


@dataclass
class Row:
    """What the run learned about one problem: f's median seconds, a cell per column, srcad's overheads."""
    problem: Problem
    f_seconds: float = float("nan")
    cells: Dict[str, Cell] = field(default_factory=dict)
    overheads: Dict[str, Optional[float]] = field(default_factory=dict)

    def ratio(self, column: str) -> Optional[float]:
        """The column's median grad/f ratio, or None."""
        cell = self.cells.get(column)
        return None if cell is None else cell.ratio


def run_problem(problem: Problem, peers, quick: bool) -> Row:
    """Check f, srcad (both modes) and the peers on one problem, then time those that passed."""
    rng = np.random.default_rng(0)
    args = problem.make_inputs("quick" if quick else "full", rng)
    directions = random_directions(problem, args, np.random.default_rng(1))
    fd = finite_difference(problem, args, directions)
    calls: Dict[str, Callable[[], Any]] = {"f": lambda: problem.function(*args)}
    row = Row(problem)

    reference = None
    # srcad, reverse mode
    cell = row.cells["srcad rev"] = Cell()
    try:
        start = time.perf_counter()
        gradient_of = srcad.grad(problem.function, wrt=problem.wrt)
        gradient = gradient_of(*args)
        cell.setup_seconds = time.perf_counter() - start
    except Exception as error:   # srcad cannot do this problem (yet), or crashed: report it and go on
        cell.status, cell.reason = failure_status(error), error_summary(error)
    else:
        value = directional(gradient, directions)
        if close(value, fd, FD_RTOL):
            reference = gradient
            calls["srcad rev"] = lambda: gradient_of(*args)
        else:
            cell.status, cell.reason = "WRONG", f"<grad, v> = {value!r} but finite differences give {fd!r}"
    # peers
    for peer in peers:
        cell = row.cells[peer.name] = Cell()
        reason = peer.unavailable()
        if reason is not None:
            cell.status, cell.reason = "n/a", reason
            continue
        try:
            start = time.perf_counter()
            call, to_numpy = peer.prepare(problem, args)
            gradient = to_numpy(call())
            cell.setup_seconds = time.perf_counter() - start
        except Exception as error:   # the peer cannot run this problem: n/a with its reason
            cell.status, cell.reason = "n/a", error_summary(error)
            continue
        value = directional(gradient, directions)
        if not close(value, fd, FD_RTOL):
            cell.status, cell.reason = "mismatch", f"<grad, v> = {value!r} but finite differences give {fd!r}"
            continue
        if reference is None:
            reference = gradient
        problem_text = same_gradient(gradient, reference)
        if problem_text is not None:
            cell.status, cell.reason = "mismatch", problem_text
            continue
        calls[peer.name] = call
    # srcad, forward mode (one JVP)
    cell = row.cells["srcad fwd"] = Cell()
    try:
        start = time.perf_counter()
        jvp = srcad.autodiff(problem.function, wrt=problem.wrt, mode="forward")
        tangent = jvp(*args, *directions)
        cell.setup_seconds = time.perf_counter() - start
    except Exception as error:   # as above
        cell.status, cell.reason = failure_status(error), error_summary(error)
    else:
        expected = fd if reference is None else directional(reference, directions)
        rtol = FD_RTOL if reference is None else AGREE_RTOL
        if close(float(np.sum(tangent)), expected, rtol):
            calls["srcad fwd"] = lambda: jvp(*args, *directions)
        else:
            cell.status, cell.reason = "WRONG", f"JVP = {float(np.sum(tangent))!r} but expected {expected!r}"

    timed = {name: calibrate(call, quick) for name, call in calls.items()}
    time_rounds(timed)
    primal = timed.pop("f")
    row.f_seconds = statistics.median(primal.samples)
    for name, item in timed.items():
        row.cells[name].seconds = statistics.median(item.samples)
        row.cells[name].ratio = median_ratio(item, primal)
    return row


# --------------------------------------------------------------------------
# a steady process


def steady_allocator() -> bool:
    """Make glibc's malloc keep freed memory instead of returning it to the system; True if it could.

    By default glibc serves each large array (over 128 kB at first) with a
    fresh mmap and gives it back on free, so every temporary of a vectorised
    problem pays page faults, and whether it does changes with the process's
    history (the threshold moves).  Timings of the same code then differ by
    up to 3x within one process.  With an mmap threshold of 32 MB and a high
    trim threshold, f and every gradient reuse memory alike.
    """
    if platform.system() != "Linux":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(libc.mallopt(m_mmap_threshold, 32 * 2 ** 20)) and bool(libc.mallopt(m_trim_threshold, 2 ** 30))
    except (OSError, AttributeError):
        return False
