"""Derivatives through Python control flow: if/else, a for loop with break, a while loop.

srcad differentiates the path the program actually takes.  In reverse mode
the generated code records, on a small tape, what each loop iteration
overwrites and how many iterations ran, then replays the iterations backwards.

- ``piecewise``: a different formula on each side of a branch;
- ``grow_until``: a for loop that stops early once the value passes a bound,
  so its derivative depends on the number of iterations taken;
- ``babylonian_sqrt``: a while loop computing sqrt(a), whose derivative
  converges to 1 / (2 sqrt(a)) with the value.

Every gradient is checked against a central finite difference, and the
generated code of the while loop is printed.  Run it with
``python examples/control_flow.py``.
"""
import numpy as np

import srcad


def piecewise(x):
    if x > 1.0:
        y = x * x * x
    else:
        y = 2.0 * x - 1.0
    return y


def grow_until(x):
    y = x
    for i in range(20):
        y = 1.5 * y + np.sin(y)
        if y > 10.0:
            break
    return y


def babylonian_sqrt(a):
    x = 0.5 * (a + 1.0)
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def central_difference(f, x: float, h: float = 1e-6) -> float:
    """(f(x + h) - f(x - h)) / 2h."""
    return (f(x + h) - f(x - h)) / (2.0 * h)


def iterations(x: float) -> int:
    """How many times grow_until's loop body runs from x."""
    y, count = x, 0
    for _ in range(20):
        y, count = 1.5 * y + np.sin(y), count + 1
        if y > 10.0:
            break
    return count


def show(name, f, points, exact=None, note=lambda x: "") -> None:
    df = srcad.grad(f)
    print(f"{name}:")
    for x in points:
        got, fd = float(df(x)), central_difference(f, x)
        assert abs(got - fd) <= 1e-6 * max(1.0, abs(fd)), (name, x, got, fd)
        extra = f"   exact {exact(x):.6f}" if exact else ""
        print(f"  x = {x:5.2f}   d/dx = {got:12.6f}   finite difference {fd:12.6f}{extra}{note(x)}")


def main() -> None:
    show("piecewise (3x^2 above 1, 2 below)", piecewise, [-0.5, 0.5, 1.5, 2.0],
         exact=lambda x: 3 * x * x if x > 1.0 else 2.0)
    show("grow_until (for loop with break)", grow_until, [0.1, 0.5, 2.0, 4.0],
         note=lambda x: f"   ({iterations(x)} iterations)")
    show("babylonian_sqrt (while loop)", babylonian_sqrt, [2.0, 9.0, 100.0],
         exact=lambda a: 0.5 / np.sqrt(a))
    print("\nall gradients agree with finite differences")
    print("\nThe generated reverse-mode derivative of babylonian_sqrt:\n")
    print(srcad.source(babylonian_sqrt))


if __name__ == "__main__":
    main()
