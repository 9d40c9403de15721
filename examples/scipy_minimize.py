"""Minimising the 10-dimensional Rosenbrock function with SciPy, with and without srcad's gradient.

Without ``jac``, ``scipy.optimize.minimize`` estimates every gradient by
finite differences, one extra evaluation of ``f`` per dimension.  Passing
``jac=srcad.grad(rosenbrock)`` gives it the exact gradient instead, so it
needs far fewer evaluations of ``f`` and reaches the minimum (all ones) more
precisely.

Needs SciPy (``pip install scipy``, or ``pip install 'srcad[scipy]'``); without
it the script says so and exits with status 1.  Run it with
``python examples/scipy_minimize.py``.
"""
import sys

import numpy as np

import srcad


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def main() -> int:
    try:
        from scipy.optimize import minimize, rosen_der
    except ImportError:
        print("scipy_minimize.py needs SciPy: pip install scipy (or pip install 'srcad[scipy]')")
        return 1

    n = 10
    x0 = np.zeros(n)
    jac = srcad.grad(rosenbrock)
    probe = np.random.default_rng(0).uniform(-2.0, 2.0, n)
    difference = np.max(np.abs(jac(probe) - rosen_der(probe))) / np.max(np.abs(rosen_der(probe)))
    print(f"srcad.grad(rosenbrock) vs scipy.optimize.rosen_der at a random point: "
          f"relative difference {difference:.1e}")
    assert difference < 1e-12

    without = minimize(rosenbrock, x0, method="BFGS")
    with_jac = minimize(rosenbrock, x0, method="BFGS", jac=jac)
    print(f"\nBFGS on Rosenbrock, n = {n}, from x0 = 0")
    for label, result in (("finite differences", without), ("jac=srcad.grad", with_jac)):
        print(f"  {label:18s}: {result.nfev:4d} evaluations of f, {result.njev:3d} gradients, "
              f"f = {result.fun:.2e}, max |x - 1| = {np.max(np.abs(result.x - 1.0)):.1e}")
    assert with_jac.success and np.allclose(with_jac.x, 1.0, atol=1e-5)
    saved = without.nfev - with_jac.nfev
    print(f"\nwith srcad's gradient: {saved} fewer function evaluations "
          f"({without.nfev / with_jac.nfev:.1f}x fewer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
