"""A helper summing a list it builds, inlined several times: its list's derivative starts from zero each time.

Each inlined copy of the helper reuses the names of the list and of its
derivative.  In reverse mode the derivative of the list starts as the plain
0.0 of a variable that may be unbound, or as the empty list left after the
items of an earlier copy were popped; ``add_lists`` must read both as "no
derivative yet" (fuzz seeds 701587 and 702213 crashed with ``'float' object
is not iterable``), and lists of two different lengths must raise rather
than be cut to the shorter one.
"""
import numpy as np
import pytest

from gradcheck import check_both_modes
from srcad.runtime.containers import add_lists, add_structures


def summed_products(a):
    terms = sum(a[j] * a[0] for j in sorted({j % 2 for j in range(3)}))
    return a[0] ** 2 * terms


def in_branch_then_after(y, s):
    if s > 0.0:
        t = summed_products(y[0])
    else:
        t = s
    return summed_products(y[1]) * t + summed_products(np.tanh(y[1]))


def in_loop(y, s):
    total = s
    for k in range(3):
        total = total + summed_products(y[k % 2] * s)
    return total


def store_then_branch(y, s):
    z = np.zeros((2, 3))
    z[1, 2] = summed_products(np.arctan(y[1]))
    if z[1, 2] + s < 10.0:
        z[0] = summed_products(y[0] ** 2) * y[1]
    return np.sum(z) + summed_products(-z[0] / (1.0 + y[1] ** 2))


@pytest.mark.parametrize("f", [in_branch_then_after, in_loop, store_then_branch], ids=lambda f: f.__name__)
@pytest.mark.parametrize("s", [0.7, -0.4])
def test_helper_summing_a_list_inlined_several_times(f, s):
    y = np.random.default_rng(3).normal(size=(2, 3))
    check_both_modes(f, (y, s))


def test_a_zero_stands_for_no_items_yet():
    assert add_lists(0.0, [1.0, np.ones(2)])[0] == 1.0
    assert add_lists([], [1.0, 2.0]) == [1.0, 2.0]
    assert add_lists([1.0, 2.0], []) == [1.0, 2.0]
    assert add_structures([[1.0], 2.0], [[0.5], 0.5]) == [[1.5], 2.5]


def test_lists_of_different_lengths_raise():
    with pytest.raises(ValueError, match="lengths 2 and 3"):
        add_lists([1.0, 2.0], [1.0, 2.0, 3.0])
