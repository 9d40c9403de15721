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


def list_copy(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[:]
    return ys[0] ** 2 + xs[1]


def list_tail_then_pop(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[1:]
    return xs.pop() + ys[0] ** 2


def list_copy_then_pop(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[:]
    return xs.pop() + ys[0] ** 2 * ys[2]


def array_stencil(u, alpha):
    for _ in range(3):   # slices of an array: their adjoints are stored with `+=`
        u = np.concatenate((u[:1], u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2]), u[-1:]))
    return np.sum(u * u)


@pytest.mark.parametrize("f", [list_copy, list_tail_then_pop, list_copy_then_pop])
def test_a_slice_of_a_list_gives_its_adjoint_item_by_item(f):
    """``ys = xs[1:]`` of a list: the adjoint of ``xs`` gathers that of ``ys`` item by item.  Before, the
    reverse sweep wrote ``dxs[1:] += dys``, which for lists puts the items of ``dys`` in as well: the
    gradient of ``list_copy`` was [0, 1, 0] instead of [2x0, 1, 0]."""
    check_both_modes(f, (X[:3],))


def test_slices_of_an_array_keep_their_store():
    check_both_modes(array_stencil, (np.linspace(0.0, 1.0, 6), 0.2), wrt=(0, 1))
    source = srcad.source(array_stencil, wrt=(0, 1))
    assert "= add_at(" not in source and "du[-1:] += " in source
