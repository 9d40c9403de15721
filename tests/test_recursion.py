"""Recursion, direct and mutual: the derivative of a recursive function calls its own derivative.

Contract:
- ``CASES``: a power by repeated multiplication, a sum over a nested tuple (a tree), a list walked by
  index, even/odd mutual recursion, each with the recursion depth decided at run time.  In both modes
  the derivative matches finite differences (``gradcheck``), and its source calls the derivative of
  the recursive callee (``derivative(power, ...)``).
- Higher orders: ``srcad.grad`` applied up to four times to a recursive function matches the closed form
  (power) or central differences of a first derivative written by hand (even/odd), and forward over
  reverse gives the same second derivative.
- A recursion deeper than a few hundred calls works (each level adds a few frames, not a build).
- A recursive function defined inside f is refused at its line, with a fix.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_reverse


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def tree_sum(tree):
    if isinstance(tree, float) or isinstance(tree, np.ndarray):
        return np.sum(np.sin(tree))
    return tree_sum(tree[0]) * tree_sum(tree[1])


def list_walk(xs, i):
    if i == len(xs):
        return 0.0
    return xs[i] * xs[i] + np.tanh(list_walk(xs, i + 1))


def is_even(x, n):
    if n == 0:
        return np.cos(x)
    return np.sin(x) * is_odd(x, n - 1)


def is_odd(x, n):
    if n == 0:
        return x * x
    return x + is_even(x * 1.5, n - 1)


def power_of_array(x):
    return np.sum(power(x, 3))


def even_of_array(x):
    return np.sum(is_even(x, 4))


def walk_of_array(x):
    return list_walk(x, 0)


TREE = ((0.3, 0.5), (np.array([0.1, 0.2]), 0.7))
CASES = [(power_of_array, (np.array([0.5, -1.2, 0.8]),), "power"),
         (even_of_array, (np.array([0.4, -0.3]),), "is_even"),
         (walk_of_array, (np.array([0.3, -0.5, 0.8]),), "list_walk")]


@pytest.mark.parametrize("f, args, callee", CASES, ids=[f.__name__ for f, _, _ in CASES])
def test_recursive_functions_in_both_modes(f, args, callee):
    check_reverse(f, args)
    check_forward(f, args)
    for mode in ("reverse", "forward"):
        assert f"d{callee} = derivative({callee}," in srcad.source(f, mode=mode)


def _leaves_moved(tree, path, step):
    """``tree`` with the leaf at ``path`` moved by ``step``."""
    if not path:
        return tree + step
    return tuple(_leaves_moved(child, path[1:], step) if i == path[0] else child for i, child in enumerate(tree))


def test_a_tree_walked_recursively_in_both_modes():
    gradient = srcad.grad(tree_sum)(TREE)
    assert isinstance(gradient, tuple) and isinstance(gradient[1][0], np.ndarray)
    h = 1e-6
    for path, got in (((0, 0), gradient[0][0]), ((0, 1), gradient[0][1]), ((1, 1), gradient[1][1])):
        expected = (tree_sum(_leaves_moved(TREE, path, h)) - tree_sum(_leaves_moved(TREE, path, -h))) / (2 * h)
        np.testing.assert_allclose(got, expected, rtol=1e-7)
    for index in range(2):
        step = np.eye(2)[index] * h
        expected = (tree_sum(_leaves_moved(TREE, (1, 0), step)) - tree_sum(_leaves_moved(TREE, (1, 0), -step))) / (2 * h)
        np.testing.assert_allclose(gradient[1][0][index], expected, rtol=1e-7)
    tangent = ((1.0, 0.0), (np.array([0.0, 2.0]), 0.0))
    expected = (tree_sum(_leaves_moved(TREE, (1, 0), np.array([0.0, 2.0 * h])))
                + tree_sum(_leaves_moved(TREE, (0, 0), h)) - 2 * tree_sum(TREE))   # first order in h
    jvp = srcad.autodiff(tree_sum, mode="forward")(TREE, tangent)
    np.testing.assert_allclose(jvp, expected / h, rtol=1e-5)
    np.testing.assert_allclose(jvp, gradient[0][0] + 2.0 * gradient[1][0][1], rtol=1e-12)
    assert "dtree_sum = derivative(tree_sum," in srcad.source(tree_sum)


def test_power_to_the_fourth_order_is_exact():
    x, n = 1.3, 5
    derivative = power
    for order in range(1, 5):
        derivative = srcad.grad(derivative)
        exact = np.prod(np.arange(n, n - order, -1.0)) * x ** (n - order)
        np.testing.assert_allclose(derivative(x, n), exact, rtol=1e-12)


def even_slope(x, n):
    """d/dx is_even(x, n), written by hand."""
    if n == 0:
        return -np.sin(x)
    return np.cos(x) * is_odd(x, n - 1) + np.sin(x) * odd_slope(x, n - 1)


def odd_slope(x, n):
    if n == 0:
        return 2.0 * x
    return 1.0 + 1.5 * even_slope(x * 1.5, n - 1)


def test_mutual_recursion_to_the_third_order():
    x, n = 0.7, 5
    first, second, third = srcad.grad(is_even), srcad.grad(srcad.grad(is_even)), \
        srcad.grad(srcad.grad(srcad.grad(is_even)))
    np.testing.assert_allclose(first(x, n), even_slope(x, n), rtol=1e-12)
    h = 1e-5
    np.testing.assert_allclose(second(x, n), (even_slope(x + h, n) - even_slope(x - h, n)) / (2 * h), rtol=1e-7)
    h = 1e-4
    np.testing.assert_allclose(third(x, n), (even_slope(x + h, n) - 2 * even_slope(x, n) + even_slope(x - h, n))
                               / h ** 2, rtol=1e-5)
    forward_over_reverse = srcad.autodiff(srcad.grad(is_even), mode="forward")
    np.testing.assert_allclose(forward_over_reverse(x, n, **{forward_over_reverse.parameters[-1]: 1.0}),
                               second(x, n), rtol=1e-12)


def test_deep_recursion():
    n = 300
    np.testing.assert_allclose(srcad.grad(power)(1.001, n), n * 1.001 ** (n - 1), rtol=1e-12)
    np.testing.assert_allclose(srcad.autodiff(power, mode="forward")(1.001, n, 1.0), n * 1.001 ** (n - 1),
                               rtol=1e-12)


def local_recursion(x):
    def shrink(v, n):
        if n == 0:
            return v
        return np.sin(v) * shrink(v * 1.1, n - 1)
    return shrink(x, 3)


def test_a_recursive_local_function_is_refused_with_a_fix():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(local_recursion)(0.4)
    message = str(info.value)
    assert message.startswith(f"{__file__}:") and "the recursive local function shrink" in message, message
    assert "define it at module level" in message, message
