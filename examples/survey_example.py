"""The textbook example of automatic differentiation, in both modes.

    f(x1, x2) = ln(x1) + x1 * x2 - sin(x2)    at (x1, x2) = (2, 5)

``f`` is written as the primal trace v1..v5 that AD surveys tabulate, so the
generated code can be read line by line against those tables:

- forward mode carries one tangent through the trace, so it needs one pass
  per input: seed (dx1, dx2) = (1, 0) gives df/dx1, (0, 1) gives df/dx2;
- reverse mode runs the trace, then propagates adjoints from dv5 = 1 back to
  both inputs in one pass.

Expected: f = ln 2 + 10 - sin 5 = 11.6521, df/dx1 = 1/x1 + x2 = 5.5 and
df/dx2 = x1 - cos(x2) = 2 - cos 5 = 1.7163.

Run it with ``python examples/survey_example.py``.
"""
import math

import srcad


def f(x1, x2):
    v1 = math.log(x1)
    v2 = x1 * x2
    v3 = math.sin(x2)
    v4 = v1 + v2
    v5 = v4 - v3
    return v5


def main() -> None:
    x1, x2 = 2.0, 5.0
    print(f"f(x1, x2) = ln(x1) + x1*x2 - sin(x2) at (x1, x2) = ({x1:g}, {x2:g}): f = {f(x1, x2):.4f}")
    expected = (1.0 / x1 + x2, x1 - math.cos(x2))

    print("\n== forward mode: one pass per input ==\n")
    print(srcad.source(f, wrt=("x1", "x2"), mode="forward"))
    tangent = srcad.autodiff(f, wrt=("x1", "x2"), mode="forward")
    forward = (tangent(x1, x2, 1.0, 0.0), tangent(x1, x2, 0.0, 1.0))
    print(f"df(2, 5, dx1=1, dx2=0) = df/dx1 = {forward[0]:.4f}")
    print(f"df(2, 5, dx1=0, dx2=1) = df/dx2 = {forward[1]:.4f}")

    print("\n== reverse mode: one pass for both inputs ==\n")
    print(srcad.source(f, wrt=("x1", "x2")))
    reverse = srcad.grad(f, wrt=("x1", "x2"))(x1, x2)
    print(f"df(2, 5) = (df/dx1, df/dx2) = ({reverse[0]:.4f}, {reverse[1]:.4f})")

    for got in (forward, reverse):
        assert all(abs(a - b) < 1e-12 for a, b in zip(got, expected)), (got, expected)
    print(f"\nboth modes agree with 1/x1 + x2 = {expected[0]:.4f} and x1 - cos(x2) = {expected[1]:.4f}")


if __name__ == "__main__":
    main()
