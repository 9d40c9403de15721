"""How much a srcad derivative costs beyond the generated code it runs.

Contract: prints a table with
- the per-call overhead of calling a ``srcad.grad(f)`` object compared with
  calling the generated function it runs directly (the variant for the
  arguments' ranks when the function gets one, else ``Derivative._compiled``), with
  the target (< 1.5 us) and whether it is met;
- the same overhead for other kinds of call (``SCENARIOS``): a plain
  ``grad`` call (no variant), ``value_and_grad``, a forward-mode
  ``autodiff`` call, a call with a keyword argument, a tuple ``wrt``, a
  call of Python floats (the all-scalar variant) and a ``wrt`` of four
  weights (two of them matrices), whose result takes the most checking;
  each with the part the NaN check of the result takes (the entry's check
  as a function: one sum of the small arrays, a sum of squares per larger
  one),
  and whether the rest (the entry, the dependency checks, the argument
  tests) is under the target;
- the time of the first transformation (parse, passes, emit, compile) in this
  process, with the disk cache off;
- the time a new process takes to get the derivative from the disk cache,
  next to the time it takes to transform it (both measured inside the child,
  excluding interpreter start-up and imports).
It only reports; it asserts nothing.  Run it with
``python benchmarks/cache_overhead.py [--number N]``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import timeit
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

import srcad
import srcad.api

TARGET_US = 1.5
REPEATS = 25
MODEL = '''\
import numpy as np


def loss(W, b, x, y):
    h = np.tanh(np.sin(x) @ W + b)
    err = h - y
    return 0.5 * np.sum(err ** 2)


def energy(x):
    return np.sum(np.tanh(x) ** 2)


def coupled(x, y):
    return np.sum(np.tanh(x) * y)


def scaled(x, scale=2.0):
    return np.sum(np.sin(x) * scale)


def product(x, y):
    return x * y + np.sin(x)


def layers(W1, b1, W2, b2, x):
    h = np.tanh(x @ W1 + b1)
    return np.sum(np.tanh(h @ W2 + b2) ** 2)
'''

CHILD = '''\
import os, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import srcad, model
start = time.perf_counter()
df = srcad.grad(model.loss)
df(np.ones((3, 2)), np.zeros(2), np.ones((4, 3)), np.zeros((4, 2)))
print(time.perf_counter() - start)
'''


def _write_model(directory: Path) -> None:
    (directory / "model.py").write_text(MODEL)


def _import_model(directory: Path):
    sys.path.insert(0, str(directory))
    try:
        import model
    finally:
        sys.path.remove(str(directory))
    return model


def _inputs():
    rng = np.random.default_rng(0)
    return rng.normal(size=(3, 2)), np.zeros(2), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))


def call_overhead(func, args, number: int, derivative=None, kwargs=None) -> Tuple[float, float]:
    """Best-of-25 CPU seconds per call of ``derivative`` (``srcad.grad(func)`` when not given) and of the
    generated function it runs, timed in turns so a change in the machine's load reaches both.

    Example::

        >>> wrapped, direct = call_overhead(f, (np.ones(3),), 10000)   # doctest: +SKIP
    """
    derivative = srcad.grad(func) if derivative is None else derivative
    kwargs = kwargs or {}
    derivative(*args, **kwargs)              # builds (or loads) and compiles
    generated = _running_function(derivative, args, kwargs)
    # the process's own CPU time: on a shared machine, time spent waiting for a core is not counted
    timer_wrapped = timeit.Timer(lambda: derivative(*args, **kwargs), timer=time.process_time)
    timer_direct = timeit.Timer(lambda: generated(*args, **kwargs), timer=time.process_time)
    wrapped, direct = [], []
    for _ in range(REPEATS):   # many short repeats: on a shared machine some run undisturbed
        wrapped.append(timer_wrapped.timeit(number) / number)
        direct.append(timer_direct.timeit(number) / number)
    return min(wrapped), min(direct)


def nan_check_time(derivative, args, number: int, kwargs=None) -> float:
    """Best-of-25 CPU seconds of the check for a NaN a call's entry makes on its result, as a function
    (``srcad.call_entry.result_check_function``), whose cost grows with the number of arrays returned.

    Example::

        >>> nan_check_time(srcad.grad(f), (np.ones(3),), 10000)   # doctest: +SKIP
    """
    from srcad.call_entry import result_check_function
    result = derivative(*args, **(kwargs or {}))
    clean = result_check_function(result)
    assert clean(result), "the measured check does not take this result"
    timer = timeit.Timer(lambda: clean(result), timer=time.process_time)
    return min(timer.timeit(number) / number for _ in range(REPEATS))


def _running_function(derivative, args, kwargs=None):
    """The generated function a call with ``args`` runs: the all-scalar variant for Python floats, the
    variant for the arguments' ranks when the function gets rank variants (element loops, matrix
    products), else the general derivative (always, with keywords)."""
    from srcad.variants import float_ranks
    if kwargs:
        return derivative._compiled
    if all(arg.__class__ is float for arg in args) and derivative._scalar_function is not None:
        return derivative._scalar_function
    ranks = float_ranks(args[:derivative._arity])
    return derivative._rank_variant(ranks) if ranks is not None and derivative._rank_variants \
        else derivative._compiled


def scenarios(model, rng) -> List[Tuple[str, object, tuple, dict]]:
    """The other kinds of call measured: (label, derivative, args, kwargs).

    Example::

        >>> [label for label, *_ in scenarios(model, np.random.default_rng(0))][0]   # doctest: +SKIP
        'plain grad (no variant), x of 5'
    """
    x, y = rng.normal(size=5), rng.normal(size=5)
    return [
        ("plain grad (no variant), x of 5", srcad.grad(model.energy), (x,), {}),
        ("value_and_grad, x of 5", srcad.value_and_grad(model.energy), (x,), {}),
        ("forward-mode autodiff, x and dx of 5", srcad.autodiff(model.energy, mode="forward"), (x, y), {}),
        ("keyword argument: df(x, scale=3.0)", srcad.grad(model.scaled), (x,), {"scale": 3.0}),
        ("tuple wrt=(0, 1), x and y of 5", srcad.grad(model.coupled, wrt=(0, 1)), (x, y), {}),
        ("all floats: df(1.5, 2.5)", srcad.grad(model.product), (1.5, 2.5), {}),
        ("two layers, wrt=(0, 1, 2, 3): W1 5x8, b1, W2 8x3, b2", srcad.grad(model.layers, wrt=(0, 1, 2, 3)),
         (rng.normal(size=(5, 8)), rng.normal(size=8), rng.normal(size=(8, 3)), rng.normal(size=3),
          rng.normal(size=(4, 5))), {}),
    ]


def first_transformation(func) -> float:
    """Seconds to build a derivative of ``func`` from scratch (memory and disk cache bypassed)."""
    saved = os.environ.get("SRCAD_CACHE")
    os.environ["SRCAD_CACHE"] = "0"
    srcad.api._MEMORY.clear()
    srcad.api._BY_FUNCTION.clear()   # a new derivative object: nothing built, nothing checked yet
    try:
        start = timeit.default_timer()
        srcad.source(func)
        return timeit.default_timer() - start
    finally:
        if saved is None:
            del os.environ["SRCAD_CACHE"]
        else:
            os.environ["SRCAD_CACHE"] = saved


def child_process_times(directory: Path, cache: Path) -> Dict[str, float]:
    """Seconds a new process spends getting the derivative: transforming, then from the disk cache."""
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache))
    env.pop("SRCAD_CACHE", None)
    results = {}
    for label in ("transform in a new process", "disk-cache load in a new process"):
        out = subprocess.run([sys.executable, "-c", CHILD, str(directory)], env=env, check=True,
                             capture_output=True, text=True).stdout
        results[label] = float(out.strip().splitlines()[-1])
    return results


def _overhead_text(overhead: float, check: float) -> str:
    """An overhead, the part of it the result's NaN check takes, and whether the rest is under the target."""
    rest_us = (overhead - check) * 1e6
    return (f"{overhead * 1e6:9.2f} us  (NaN check of the result {check * 1e6:4.2f} us; call and checks "
            f"{rest_us:4.2f} us: {'met' if rest_us < TARGET_US else 'NOT met'})")


def main(argv: Optional[List[str]] = None) -> None:
    """Measure and print the table.

    Example::

        $ python benchmarks/cache_overhead.py --number 20000
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=5_000, help="calls per timing repeat")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        os.environ["SRCAD_CACHE_DIR"] = str(directory / "in-process-cache")
        _write_model(directory)
        model = _import_model(directory)
        inputs = _inputs()
        wrapped, direct = call_overhead(model.loss, inputs, args.number)
        overhead_us = (wrapped - direct) * 1e6
        others = [(label, call_overhead(None, call_args, args.number, derivative, kwargs),
                   nan_check_time(derivative, call_args, args.number, kwargs))
                  for label, derivative, call_args, kwargs in scenarios(model, np.random.default_rng(1))]
        build = first_transformation(model.loss)
        children = child_process_times(directory, directory / "child-cache")

    rows = [
        ("call via srcad.grad object", f"{wrapped * 1e6:9.2f} us"),
        ("call generated function directly", f"{direct * 1e6:9.2f} us"),
        ("per-call overhead", f"{overhead_us:9.2f} us"),
        (f"overhead target (< {TARGET_US:g} us)", "met" if overhead_us < TARGET_US else "NOT met"),
    ] + [(f"overhead: {label}", _overhead_text(w - d, check)) for label, (w, d), check in others] + [
        ("first transformation (this process)", f"{build * 1e3:9.2f} ms"),
    ] + [(label, f"{seconds * 1e3:9.2f} ms") for label, seconds in children.items()]
    width = max(len(label) for label, _ in rows)
    print(textwrap.dedent(f"""\
        srcad {srcad.__version__}, Python {sys.version.split()[0]}, NumPy {np.__version__}
        model: loss(W, b, x, y) = 0.5 * sum((tanh(sin(x) @ W + b) - y) ** 2), W 3x2, x 4x3
        {args.number} calls per repeat, best of {REPEATS} in CPU time (wrapped and direct timed in turns)
        """))
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 12}")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
