"""Peak memory of srcad's reverse-mode gradients: the tape grows with what is saved, nothing more.

Usage::

    python benchmarks/memory.py [--sizes 1000,10000,100000]

For loops, it differentiates ``y = y * a + sin(y) * b`` run n times,
measures the peak of ``tracemalloc`` during one gradient call for
each n, and prints the bytes per iteration and per saved value (the count
of ``tape.append`` calls in the loop body of the generated code).  The slope
between the largest two n removes fixed costs.  For array functions it
prints the peak divided by the size of the input, for inputs of 10^4 to
10^6 elements.  The derivatives are built before measuring, so only the
generated code's own allocations count.  It reports; it asserts nothing.

``--heat`` measures checkpointed loops instead (``srcad.grad(f, checkpoints=20)``):
the 1-D heat equation, explicit stencil ``u[1:-1] = u[1:-1] + c * (u[2:] -
2 * u[1:-1] + u[:-2])`` on a 10^5-element state, for 10^3 steps (next to the
taped gradient: time and peak memory) and 10^4 steps (where the tape would
need about 8 GB, so only the checkpointed gradient runs).  Times are the
best of ``--repeat`` runs, measured without tracemalloc; the peaks come from
one more run under tracemalloc; the primal and the gradients are timed in turn,
round after round, since the load of a shared machine changes.  BLAS runs on one thread, so a dot product
is not slowed by threads fighting over the cores.
"""
from __future__ import annotations

import argparse
import os
import sys
import tracemalloc
from pathlib import Path

os.environ.setdefault("SRCAD_CACHE", "0")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import time  # noqa: E402

import numpy as np  # noqa: E402

import srcad  # noqa: E402


def recurrence(y, a, b, n):
    for i in range(n):
        y = y * a + np.sin(y) * b
    return y


def mlp_loss(x, w1, w2):
    h = np.tanh(x @ w1)
    return np.sum((h @ w2) ** 2)


def elementwise(x):
    return np.sum(np.exp(np.sin(x)) * x)


def peak_bytes(call) -> int:
    """The peak of traced allocations while ``call()`` runs."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def saved_per_iteration(source: str) -> int:
    """``tape.append`` calls in the generated forward sweep's loop body."""
    return source.count("tape.append(")


def loops(sizes) -> None:
    gradient = srcad.grad(recurrence, wrt=(1, 2))
    gradient(0.5, 0.9, 0.1, 2)   # build the derivative first
    saved = saved_per_iteration(gradient.source)
    print(f"loop: y = y * a + np.sin(y) * b, n iterations; {saved} values saved per iteration")
    print(f"{'n':>10} {'peak bytes':>14} {'bytes/iteration':>16}")
    peaks = []
    for n in sizes:
        peak = peak_bytes(lambda: gradient(0.5, 0.9, 0.1, n))
        peaks.append(peak)
        print(f"{n:>10} {peak:>14,} {peak / n:>16.1f}")
    if len(sizes) >= 2:
        slope = (peaks[-1] - peaks[-2]) / (sizes[-1] - sizes[-2])
        print(f"slope between the two largest n: {slope:.1f} bytes per iteration, "
              f"{slope / max(saved, 1):.1f} bytes per saved value")


def arrays() -> None:
    print("\narray functions: peak during one gradient call / bytes of the input")
    print(f"{'function':>12} {'elements':>10} {'peak bytes':>14} {'peak/input':>11}")
    rng = np.random.default_rng(0)
    for size in (10 ** 4, 10 ** 5, 10 ** 6):
        x = rng.standard_normal(size)
        gradient = srcad.grad(elementwise)
        gradient(x)
        peak = peak_bytes(lambda: gradient(x))
        print(f"{'elementwise':>12} {size:>10} {peak:>14,} {peak / x.nbytes:>11.1f}")
    for batch in (100, 1000, 10000):
        x, w1, w2 = rng.standard_normal((batch, 100)), rng.standard_normal((100, 50)), rng.standard_normal((50, 1))
        gradient = srcad.grad(mlp_loss, wrt=(1, 2))
        gradient(x, w1, w2)
        peak = peak_bytes(lambda: gradient(x, w1, w2))
        print(f"{'mlp':>12} {x.size:>10} {peak:>14,} {peak / x.nbytes:>11.1f}")


def heat(u0, c, steps):
    u = u0.copy()
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def best_times(calls, repeat: int):
    """The least wall time of each of ``calls`` over ``repeat`` rounds, the calls interleaved in each round
    (on a shared machine the load changes from minute to minute)."""
    best = [float("inf")] * len(calls)
    for _ in range(repeat):
        for position, call in enumerate(calls):
            start = time.perf_counter()
            call()
            best[position] = min(best[position], time.perf_counter() - start)
    return best


def heat_equation(size: int, snapshots: int, repeat: int, long_steps: int) -> None:
    """Checkpointed against taped gradients of the heat equation (see the module docstring)."""
    from srcad.runtime import checkpointing
    u0, c = np.sin(np.linspace(0.0, 3.0, size)) + 1.0, 0.2
    checkpointed = srcad.grad(heat, wrt=(0, 1), checkpoints=snapshots)
    taped = srcad.grad(heat, wrt=(0, 1))
    checkpointed(u0, c, 3), taped(u0, c, 3), heat(u0, c, 100)   # build both first, warm the allocator
    print(f"heat equation, {size:,}-element state ({u0.nbytes / 2 ** 20:.2f} MB), checkpoints={snapshots}")
    print(f"{'steps':>7} {'gradient':>13} {'time':>9} {'/ primal':>9} {'peak memory':>12}")
    per_step = 0.0
    for steps, kinds in ((1000, (("taped", taped), ("checkpointed", checkpointed))),
                         (long_steps, (("checkpointed", checkpointed),))):
        times = best_times([lambda: heat(u0, c, steps)] + [lambda g=g: g(u0, c, steps) for _, g in kinds], repeat)
        print(f"{steps:>7} {'(primal)':>13} {times[0]:>8.2f}s {1.0:>9.2f} "
              f"{peak_bytes(lambda: heat(u0, c, steps)) / 2 ** 20:>10.1f}MB")
        for (label, gradient), seconds in zip(kinds, times[1:]):
            peak = peak_bytes(lambda: gradient(u0, c, steps))
            per_step = peak / steps if label == "taped" else per_step
            print(f"{steps:>7} {label:>13} {seconds:>8.2f}s {seconds / times[0]:>9.2f} {peak / 2 ** 20:>10.1f}MB")
        recomputed = checkpointing.recomputed_steps(steps, snapshots)
        print(f"{'':>7} steps a checkpointed gradient runs: {steps} forward, at most {recomputed} again, "
              f"{steps} step derivatives")
    print(f"a tape of the {long_steps:,} states alone would hold {long_steps * u0.nbytes / 2 ** 30:.1f} GB; "
          f"srcad's taped gradient grows {per_step / 2 ** 20:.1f} MB a step: {long_steps * per_step / 2 ** 30:.0f} GB")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="loop trip counts, comma-separated")
    parser.add_argument("--heat", action="store_true", help="measure checkpointed loops (the heat equation)")
    parser.add_argument("--state", type=int, default=10 ** 5, help="with --heat: elements of the state")
    parser.add_argument("--steps", type=int, default=10 ** 4, help="with --heat: the long run's steps")
    parser.add_argument("--checkpoints", type=int, default=20, help="with --heat: snapshots")
    parser.add_argument("--repeat", type=int, default=3, help="with --heat: runs per time (the best counts)")
    args = parser.parse_args(argv)
    if args.heat:
        heat_equation(args.state, args.checkpoints, args.repeat, args.steps)
        return
    sizes = [int(n) for n in args.sizes.split(",")]
    loops(sizes)
    arrays()


if __name__ == "__main__":
    main()
