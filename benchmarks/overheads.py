"""srcad's own overheads for ``benchmarks/run.py``: transformation, disk-cache load, cached-call cost.

Contract:
- ``measure_overheads(row, cache_root, quick)`` fills ``row.overheads`` for a
  problem or formulation (``formulations.EVERY_FUNCTION``) srcad can
  differentiate (reverse mode neither ``unsupported`` nor ``error``), in
  seconds or None where a measurement could not be made: ``first
  transform`` and ``disk load``, a new process getting the derivative
  ready with an empty, then a filled, disk cache under
  ``cache_root`` (``new_process_seconds``); ``rebuild rev`` and ``rebuild
  fwd``, a transformation in this process with the disk cache off and the
  memory caches emptied (``rebuild_seconds``); ``call overhead``, what the
  ``srcad.grad`` object adds to calling its generated function
  (``call_overhead_seconds``).
- ``environment(**values)`` sets environment variables for a ``with``
  block and restores them after; the driver uses it to point srcad's disk
  cache at a temporary directory.
- It uses only srcad's public entry points and the ``srcad.grad`` object's
  attributes (``_compiled``, ``_scalar_function``, ``_rank_variants``, ``_table``) and
  ``srcad.api._MEMORY`` and ``srcad.derivative._BY_FUNCTION``, and gives
  None when they are missing.  It restores the environment variables, the
  caches and the derivative's attributes it changes.
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Optional

import numpy as np

import srcad
import srcad.api
import srcad.derivative
from problems import Problem
from timing import Row, loop_seconds

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def environment(**values):
    """Set the environment variables ``values`` for the ``with`` block, then restore the previous ones."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def rebuild_seconds(problem: Problem, mode: str) -> Optional[float]:
    """Seconds to transform ``problem`` again in this process: disk cache off, memory caches emptied.

    srcad shares one derivative object per function and options
    (``srcad.derivative._BY_FUNCTION``) and keeps built modules in
    ``srcad.api._MEMORY``: both are swapped for empty ones during the build
    (so it is a real transformation, callees included) and put back after.
    """
    memory = getattr(srcad.api, "_MEMORY", None)
    shared = getattr(srcad.derivative, "_BY_FUNCTION", None)
    if memory is None or shared is None:
        return None
    with environment(SRCAD_CACHE="0"):
        srcad.api._MEMORY, srcad.derivative._BY_FUNCTION = {}, weakref.WeakKeyDictionary()
        try:
            start = time.perf_counter()
            srcad.source(problem.function, wrt=problem.wrt, mode=mode)
            return time.perf_counter() - start
        finally:
            srcad.api._MEMORY, srcad.derivative._BY_FUNCTION = memory, shared


def call_overhead_seconds(problem: Problem, args) -> Optional[float]:
    """What a call of the ``srcad.grad`` object adds to calling its generated function.

    The object is made to call a no-op instead of the generated function, so
    the difference of the two timings is the object's own work.
    """
    derivative = srcad.grad(problem.function, wrt=problem.wrt)
    derivative(*args)
    generated = getattr(derivative, "_compiled", None)
    if generated is None:
        return None

    def noop(*_args, **_kwargs):
        return None
    # all-scalar calls, and calls of a function with element loops, dispatch to a variant generated
    # for scalars or for the arguments' ranks: stub whichever the object calls
    scalar = getattr(derivative, "_scalar_function", None)
    variants = getattr(derivative, "_rank_variants", None) or {}
    ranked = {key: variant._compiled for key, variant in variants.items()}
    derivative._compiled = noop
    if scalar is not None:
        derivative._scalar_function = noop
    for variant in variants.values():
        variant._compiled = noop
    _forget_dispatch(derivative)   # the functions its calls found so far: found again, stubbed
    try:
        number = 20000
        wrapped = min(loop_seconds(lambda: derivative(*args), number) for _ in range(5)) / number
        direct = min(loop_seconds(lambda: noop(*args), number) for _ in range(5)) / number
    finally:
        derivative._compiled = generated
        if scalar is not None:
            derivative._scalar_function = scalar
        for key, variant in variants.items():
            variant._compiled = ranked[key]
        _forget_dispatch(derivative)   # the stubs it found: found again, generated
    return max(wrapped - direct, 0.0)


def _forget_dispatch(derivative) -> None:
    """Empty the derivative's dispatch table (``Derivative._table``: argument kinds -> function found)."""
    if isinstance(getattr(derivative, "_table", None), dict):
        derivative._table = {}


CHILD = """\
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import srcad
from formulations import EVERY_FUNCTION
problem = EVERY_FUNCTION[sys.argv[2]]
args = problem.make_inputs("quick", np.random.default_rng(0))   # the code does not depend on sizes
problem.function(*args)                      # NumPy's own first-call costs are not srcad's
start = time.perf_counter()
derivative = srcad.grad(problem.function, wrt=problem.wrt)
derivative.source                            # transform, or load from the disk cache
ready = time.perf_counter()
derivative(*args)
first = time.perf_counter() - ready
times = []
for _ in range(3):
    t = time.perf_counter(); derivative(*args); times.append(time.perf_counter() - t)
print(json.dumps({"get": ready - start, "first_call": first, "call": min(times)}))
"""


def new_process_seconds(problem: Problem, cache: Path) -> Optional[float]:
    """Seconds a new process spends getting the derivative ready: transform or disk load, then first call.

    The first call's excess over a steady call counts (it builds the function
    object from the module); interpreter start-up and imports do not.  The
    calls run on the problem's tiny inputs (the generated code is the same
    for every size), so the excess is not lost in the noise of a long call.
    """
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache))
    env.pop("SRCAD_CACHE", None)
    result = subprocess.run([sys.executable, "-c", CHILD, str(HERE), problem.name],
                            env=env, capture_output=True, text=True)
    if result.returncode != 0:
        return None
    times = json.loads(result.stdout.strip().splitlines()[-1])
    return times["get"] + max(0.0, times["first_call"] - times["call"])


def measure_overheads(row: Row, cache_root: Path, quick: bool) -> None:
    """Fill ``row.overheads`` (see the module's contract); nothing when srcad cannot differentiate the problem."""
    problem = row.problem
    if row.cells["srcad rev"].status in ("unsupported", "error"):
        return
    args = problem.make_inputs("quick" if quick else "full", np.random.default_rng(0))
    cache = cache_root / problem.name.replace("/", "--")
    row.overheads["first transform"] = new_process_seconds(problem, cache)
    row.overheads["disk load"] = new_process_seconds(problem, cache)
    rebuilds = [rebuild_seconds(problem, "reverse") for _ in range(1 if quick else 3)]
    row.overheads["rebuild rev"] = None if None in rebuilds else statistics.median(rebuilds)
    if row.cells["srcad fwd"].status not in ("unsupported", "error"):
        rebuilds = [rebuild_seconds(problem, "forward") for _ in range(1 if quick else 3)]
        row.overheads["rebuild fwd"] = None if None in rebuilds else statistics.median(rebuilds)
    row.overheads["call overhead"] = call_overhead_seconds(problem, args)
