"""Newton's method with srcad's gradient and Hessian.

Minimises the 10-dimensional Rosenbrock function with Newton steps
x <- x - H(x)^-1 g(x), where g = srcad.grad(f) and H = srcad.hessian(f)
(forward mode over srcad's own reverse-mode gradient), and compares the
Hessian with the analytic one at the start.

Run: python examples/newton.py
"""
import numpy as np

import srcad


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def analytic_hessian(x):
    n = x.shape[0]
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i + 1, i + 1] += 200.0
        h[i, i + 1] -= 400.0 * x[i]
        h[i + 1, i] -= 400.0 * x[i]
    return h


def main() -> None:
    gradient = srcad.grad(rosenbrock)
    hessian = srcad.hessian(rosenbrock)
    x = np.full(10, 0.8)
    x[::2] = 1.2
    print("max |H - analytic H| at the start:", np.max(np.abs(hessian(x) - analytic_hessian(x))))
    for step in range(1, 31):
        g = gradient(x)
        x = x - np.linalg.solve(hessian(x), g)
        print(f"step {step:2d}: f = {rosenbrock(x):.3e}, |g| = {np.linalg.norm(gradient(x)):.3e}")
        if np.linalg.norm(gradient(x)) < 1e-10:
            break
    print("minimum found at x =", np.round(x, 8))
    print("distance to (1, ..., 1):", np.linalg.norm(x - 1.0))


if __name__ == "__main__":
    main()
