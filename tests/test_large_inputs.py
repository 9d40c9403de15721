"""Large inputs: long loops and big arrays give right derivatives without recursion errors.

Contract checked here (against closed forms, in float64):
- a ``for`` loop and a ``while`` loop of 10,000 iterations whose body must
  save a value per iteration (``y = y * a``, so ``y = x a^n``) give
  ``d/dx = a^n`` and ``d/da = n x a^(n-1)`` in reverse and forward mode;
- a loop of 10,000 iterations over the elements of an array with an element
  store gives the right gradient;
- gradients over arrays of 10^6 elements (elementwise, shifted slices,
  reductions) are right in both modes;
- a straight-line function of 250 statements and an expression nested 100
  deep are transformed without
  hitting Python's recursion limit.
"""
import numpy as np

import srcad
from gradcheck import make_function, no_disk_cache  # noqa: F401 (autouse)

N = 10_000
STATEMENTS = 250
DEPTH = 100
A = 1.0001


def power_loop(x, a):
    y = x
    for i in range(10000):
        y = y * a
    return y


def power_while(x, a):
    y = x
    k = 0
    while k < 10000:
        y = y * a
        k = k + 1
    return y


def test_ten_thousand_iterations_reverse_and_forward():
    x = 0.7
    for f in (power_loop, power_while):
        dx, da = srcad.grad(f, (0, 1))(x, A)
        np.testing.assert_allclose(dx, A ** N, rtol=1e-10)
        np.testing.assert_allclose(da, N * x * A ** (N - 1), rtol=1e-10)
        value, tangent = srcad.jvp(f, (x, A), (1.0, 2.0))
        np.testing.assert_allclose(value, x * A ** N, rtol=1e-10)
        np.testing.assert_allclose(tangent, A ** N + 2.0 * N * x * A ** (N - 1), rtol=1e-10)


def running_product(x):
    out = np.zeros(x.shape[0])
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
        out[i] = p
    return np.sum(out)


def test_ten_thousand_element_stores_in_a_loop():
    x = np.full(N, 0.999)
    gradient = srcad.grad(running_product)(x)
    # d/dx_j sum_i prod_{k<=i} x_k = sum_{i>=j} prod_{k<=i} x_k / x_j
    prefix = np.cumprod(x)
    expected = np.cumsum(prefix[::-1])[::-1] / x
    np.testing.assert_allclose(gradient, expected, rtol=1e-9)
    tangent = srcad.jvp(running_product, (x,), (np.ones(N),))[1]
    np.testing.assert_allclose(tangent, np.sum(expected), rtol=1e-9)


def big_array(x):
    return np.sum(np.sin(x) * x) + np.sum(x[1:] * x[:-1]) + np.mean(x) ** 2


def big_array_gradient(x):
    gradient = np.cos(x) * x + np.sin(x) + 2.0 * np.mean(x) / x.size
    gradient[:-1] += x[1:]
    gradient[1:] += x[:-1]
    return gradient


def test_a_million_elements():
    x = np.linspace(-3.0, 3.0, 10 ** 6)
    expected = big_array_gradient(x)
    np.testing.assert_allclose(srcad.grad(big_array)(x), expected, rtol=1e-12, atol=1e-12)
    v = np.cos(np.arange(x.size))
    value, tangent = srcad.jvp(big_array, (x,), (v,))
    np.testing.assert_allclose(value, big_array(x), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.dot(expected, v), rtol=1e-9)


def test_hundreds_of_statements():
    lines = ["def chain(x):", "    y0 = x"]
    lines += [f"    y{k} = np.sin(y{k - 1}) + 0.5 * x" for k in range(1, STATEMENTS)]
    lines += [f"    return np.sum(y{STATEMENTS - 1})"]
    chain = make_function("\n".join(lines), {"np": np})
    x = np.array([0.3, -0.2])
    y, dy = x.copy(), np.ones(2)
    for _ in range(STATEMENTS - 1):
        y, dy = np.sin(y) + 0.5 * x, np.cos(y) * dy + 0.5
    np.testing.assert_allclose(srcad.grad(chain)(x), dy, rtol=1e-10)
    np.testing.assert_allclose(srcad.jvp(chain, (x,), (np.ones(2),))[1], np.sum(dy), rtol=1e-10)


def test_a_deeply_nested_expression():
    expression = "x"
    for k in range(DEPTH):
        expression = f"({expression} * 0.99 + {k % 7} * x)"
    deep = make_function(f"def deep(x):\n    return {expression}\n", {"np": np})
    slope = 1.0
    for k in range(DEPTH):
        slope = slope * 0.99 + k % 7
    np.testing.assert_allclose(srcad.grad(deep)(1.5), slope, rtol=1e-10)
    np.testing.assert_allclose(srcad.jvp(deep, (1.5,), (1.0,))[1], slope, rtol=1e-10)
