"""A name bound to another that holds a list or tuple a call gave: their adjoints add item by item.

``parts = np.split(x, [2]); q = parts``: the adjoint of ``parts`` gathers the
adjoint of ``q``.  Both are lists, and ``+=`` joins lists, so the gradient had
twice the length of ``x``.  The same holds in srcad's own derivative code
differentiated again, where adjoints of lists come from ``unconcatenate``:
the fifth derivative of a sum over ``np.concatenate([np.sin(s * c),
np.reshape(s, (1,))]) ** 3`` was off by 3%.  Both modes, against central
differences; the fifth derivative against differences of the fourth.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes

X = np.array([0.3, -0.7, 1.1, 0.5])
SH = np.array([0.6, -0.9, 0.85, 2.1])


def split_alias(x):
    parts = np.split(x, [2])
    q = parts
    return np.sum(q[0] ** 2) + np.sum(parts[1] ** 3) + np.sum(q[1])


def hsplit_aliases(x):
    parts = np.hsplit(x, 2)
    q = parts
    r = q
    return np.sum(r[0] * parts[1]) + np.sum(q[0] ** 2)


def doubled_and_sine(u):
    return u * 2.0, np.sin(u)


def tuple_alias(x):
    pair = doubled_and_sine(x)
    kept = pair
    return np.sum(kept[1] ** 2) + np.sum(pair[0] * x)


def eigh_alias(x):
    result = np.linalg.eigh(np.outer(x, x) + np.diag(x ** 2 + 1.0))
    kept = result
    return np.sum(kept[0] ** 2) + np.sum(result[0])


@pytest.mark.parametrize("f", [split_alias, hsplit_aliases, tuple_alias, eigh_alias], ids=lambda f: f.__name__)
def test_an_alias_of_a_list_or_tuple_a_call_gave(f):
    check_both_modes(f, (X,))


def cubes_of_a_join(s):
    return np.sum(np.concatenate([np.sin(s * SH), np.reshape(s, (1,))]) ** 3)


def test_the_fifth_derivative_through_a_join():
    derivatives = [cubes_of_a_join]
    for _ in range(5):
        derivatives.append(srcad.grad(derivatives[-1]))
    s, step = 0.7, 1e-3
    for order in range(1, 6):
        previous = derivatives[order - 1]
        expected = (previous(s + step) - previous(s - step)) / (2 * step)
        np.testing.assert_allclose(derivatives[order](s), expected, rtol=2e-5, err_msg=f"order {order}")
