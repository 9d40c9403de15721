"""The numba backend on loop problems: njit primal, srcad numba gradient, jax.jit gradient.

Contract: ``python benchmarks/numba_loops.py [--quick]`` prints one row per
problem (logistic map, pool, loop matmul, a 1-D heat stencil written as a
loop): the best time of the ``numba.njit`` primal, of the srcad gradient with
``backend="numba"``, their ratio, the best time of ``jax.jit(jax.grad(...))``
of an idiomatic jax version (vectorised where jax wants it, ``lax.fori_loop``
for time steps), the first compile time of the srcad numba gradient in a new
process with an empty cache, and its load time in a second new process
(cache warm).  The gradient of every problem is checked against the jax one
before it is timed.  Nothing is written to disk but srcad's and numba's caches
(in a temporary directory).

Example::

    $ python benchmarks/numba_loops.py --quick
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from problems import logistic, matmul_loops, pool  # noqa: E402


def heat(u, k):
    """Explicit 1-D heat steps, the stencil written as a loop over cells; the final energy."""
    n = len(u)
    for _ in range(STEPS):
        v = u.copy()
        for i in range(1, n - 1):
            v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = v
    return np.sum(u * u)


STEPS = 1000


def _jax_versions():
    """The idiomatic jax formulation of each problem (vectorised bodies, lax loops over time)."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    def logistic_jax(x, r):
        return jax.lax.fori_loop(0, 100, lambda _, x: r * x * (1.0 - x), x)

    def pool_jax(B):
        A = (B[:-2] + B[1:-1] + B[2:]) / 3.0
        return jnp.sum(A * A)

    def matmul_jax(B, C):
        A = B @ C
        return jnp.sum(A * A)

    def heat_jax(u, k):
        def step(_, u):
            return u.at[1:-1].set(u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]))
        return jnp.sum(jax.lax.fori_loop(0, STEPS, step, u) ** 2)

    return jax, {"logistic": logistic_jax, "pool": pool_jax, "matmul_loops": matmul_jax, "heat": heat_jax}


def _problems(quick: bool):
    rng = np.random.default_rng(0)
    n_pool = (20, 10) if quick else (1000, 100)
    n_matmul = 8 if quick else 64
    cells = 100 if quick else 10_000
    return {
        "logistic": (logistic, (0.3, 2.9), (0, 1)),
        "pool": (pool, (rng.normal(size=n_pool),), (0,)),
        "matmul_loops": (matmul_loops, (rng.normal(size=(n_matmul,) * 2), rng.normal(size=(n_matmul,) * 2)), (0, 1)),
        "heat": (heat, (np.sin(np.linspace(0.0, np.pi, cells)), 0.2), (0, 1)),
    }


def best_time(call, repeats: int = 5, budget: float = 2.0) -> float:
    """The best of ``repeats`` timed calls (fewer when one call takes longer than ``budget`` seconds)."""
    best = float("inf")
    start = time.perf_counter()
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
        if time.perf_counter() - start > budget:
            break
    return best


_LOAD_SCRIPT = """
import sys, time
began = time.perf_counter()
sys.path.insert(0, {here!r}); sys.path.insert(0, {root!r})
import numba_loops, srcad
numba_loops.STEPS = {steps}
name = {name!r}
function, args, wrt = numba_loops._problems({quick})[name]
imported = time.perf_counter()
gradient = srcad.grad(function, wrt=wrt, backend="numba")
gradient(*args)
print(time.perf_counter() - imported)
"""


def load_time(name: str, quick: bool, cache: str) -> float:
    """Seconds from building to the first result of the numba gradient in a new process (``cache`` dir)."""
    script = _LOAD_SCRIPT.format(here=str(HERE), root=str(HERE.parent), name=name, quick=quick, steps=STEPS)
    environment = dict(os.environ, SRCAD_CACHE_DIR=cache, PYTHONPATH=str(HERE.parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return float(done.stdout.split()[-1])


def main(quick: bool) -> None:
    global STEPS
    import numba
    import srcad
    STEPS = 50 if quick else 1000
    jax, jax_versions = _jax_versions()
    print(f"{'problem':14} {'njit f':>10} {'numba grad':>11} {'ratio':>6} {'jax.jit grad':>13} {'vs jax':>7} "
          f"{'compile':>8} {'cached load':>12}")
    for name, (function, args, wrt) in _problems(quick).items():
        primal = numba.njit(function)
        primal(*args)
        gradient = srcad.grad(function, wrt=wrt, backend="numba")
        ours = gradient(*args)
        jax_gradient = jax.jit(jax.grad(jax_versions[name], argnums=wrt))
        theirs = jax_gradient(*args)
        for mine, reference in zip(ours, theirs):
            np.testing.assert_allclose(mine, np.asarray(reference), rtol=1e-8, atol=1e-10)
        primal_time = best_time(lambda: primal(*args))
        gradient_time = best_time(lambda: gradient(*args))
        jax_time = best_time(lambda: jax.block_until_ready(jax_gradient(*args)))
        with tempfile.TemporaryDirectory() as cache:
            compile_time = load_time(name, quick, cache)
            cached_time = load_time(name, quick, cache)
        print(f"{name:14} {primal_time * 1e6:9.1f}µ {gradient_time * 1e6:10.1f}µ {gradient_time / primal_time:6.2f} "
              f"{jax_time * 1e6:12.1f}µ {gradient_time / jax_time:7.2f} {compile_time * 1e3:7.0f}m "
              f"{cached_time * 1e3:11.0f}m")
    print("times: best of up to 5 calls; compile and cached load: ms from srcad.grad to the first result in a "
          "new process (first with an empty cache, then with the cache it left)")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
