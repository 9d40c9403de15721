"""Reproducers of the issue [trust], items 3 and 4: results srcad returned wrong, each in both modes.

Contract:
- ``EXACT``: functions srcad crashed on or differentiated wrongly.  For each
  one, in reverse mode (``vjp``) and forward mode (``jvp``), the derivative
  matches central finite differences, and the output ``value_and_grad``,
  ``vjp`` and ``jvp`` return is ``f(*args)``.
- The value and aux that ``value_and_grad`` and ``grad(has_aux=True)``
  return are f's, also when the backward sweep restores what they hold.
Nothing is skipped: a failure is a bug.
"""
import os

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_reverse, check_values

THIS_FILE = os.path.abspath(__file__)
V4 = np.array([0.3, 0.7, 1.1, 0.5])
V3 = np.array([0.2, -0.4, 0.9])
R34 = np.array([[0.3, 0.5, 0.2, 0.8], [0.6, 0.1, 0.9, 0.4], [0.7, 0.3, 0.5, 0.2]])
R34B = np.array([[0.5, -0.2, 0.1, 0.4], [-0.6, 0.3, 0.2, 0.9], [0.1, 0.8, -0.5, 0.3]])


# ==========================================================================
# 1. iterating over an array: comprehensions and `for` loops


def comprehension_sum(a):
    return np.sum([i * 3 for i in a])


def comprehension_mean_of_squares(a):
    return np.mean([v ** 2 for v in a])


def comprehension_max(a):
    return np.max([v * v for v in a])


def comprehension_through_ufunc(a):
    return np.sum(np.exp([v for v in a]))


def comprehension_dot(a):
    return np.dot([v * v for v in a], a)


def comprehension_builtin_sum(a):
    return sum([v * v for v in a])


def comprehension_over_rows(A):
    return np.sum([np.sum(row ** 2) for row in A])


def comprehension_of_rows(A):
    return np.sum([row * row for row in A])


def comprehension_nested(a, b):
    return np.sum([x * y for x in a for y in b])


def comprehension_filtered(a):
    return np.sum([v * v for v in a if v > 0.4])


def comprehension_used_twice(a):
    items = [v * v for v in a]
    return np.sum(items) + items[0]


def comprehension_alias(a):
    ys = [v * 2.0 for v in a]
    zs = ys
    return np.sum(np.sin(zs))


def comprehension_norm(a):
    return np.linalg.norm([v * 2.0 for v in a])


def comprehension_prod(a):
    return np.prod([v + 2.0 for v in a])


def comprehension_std(a):
    return np.std([v * v for v in a])


def comprehension_stacked(A):
    return np.sum(np.stack([row * 2.0 for row in A]) ** 2)


def loop_over_rows(A, w):
    s = 0.0
    for row in A:
        s = s + np.tanh(row @ w)
    return s


def loop_appends_then_ufunc(a):
    ys = []
    for v in a:
        ys.append(v * 2.0)
    return np.sum(np.square(ys))


def loop_enumerate_rows(A):
    s = 0.0
    for i, row in enumerate(A):
        s = s + i * np.sum(row ** 2)
    return s


def loop_enumerate_from_one(a):
    s = 0.0
    for i, v in enumerate(a, start=1):
        s = s + i * v * v
    return s


def loop_enumerate_from_positional(a):
    s = 0.0
    for i, v in enumerate(a, 2):
        s = s + i * v * v
    return s


def loop_zip_rows(A, B):
    s = 0.0
    for r, q in zip(A, B):
        s = s + np.sum(r * q)
    return s


def loop_reversed(a):
    s = 0.0
    for v in reversed(a):
        s = s * 0.5 + v
    return s


def loop_over_columns(A):
    s = 0.0
    for col in A.T:
        s = s + np.sum(col) ** 2
    return s


def loop_over_slice(a):
    s = 1.0
    for v in a[1:]:
        s = s * v
    return s


def loop_rebinds_what_it_iterates(A):
    s = 0.0
    for row in A:
        A = A * 2.0          # Python iterates over the array the loop started with
        s = s + np.sum(row * A[0])
    return s


def loop_nested_over_rows(A):
    s = 0.0
    for row in A:
        for v in row:
            s = s + v * v * v
    return s


def loop_breaks(a):
    s = 0.0
    for v in a:
        if s > 1.0:
            break
        s = s + v * v
    return s


def loop_changes_a_row_in_place(A):
    B = A * 1.0
    for row in B:
        row *= 2.0
    return np.sum(B ** 2)


# ==========================================================================
# 4. the value value_and_grad returns when f overwrites a parameter


def logistic_steps(x, r):
    for _ in range(3):
        x = r * x * (1 - x)
    return x


def overwritten_array_and_aux(x):
    y = x * 1.0
    for i in range(3):
        y[i] = y[i] * y[i]
    return np.sum(y), y


def overwritten_aux(x):
    a = 0.0
    for i in range(3):
        a = x * i
        x = x * 2.0
    return x, a


def appended_aux(x):
    ys = []
    for i in range(3):
        ys.append(x * i)
    return np.sum(np.array(ys)), ys


def returns_an_alias_of_a_restored_array(x, s):   # fuzz seed 275, minimised
    k = 0
    while k < 2:
        z = np.zeros((2, 3))
        z[:, 1] = x[:2]   # the backward sweep restores z[:, 1] in place: the returned alias must not see it
        if s > 0.0:
            chosen = z
            return chosen
        k = k + 1
    return z * 2.0


def stored_element_returned(x):
    y = x * 1.0
    for _ in range(2):
        y[0] = y[0] * 3.0
    return y[0] + np.sum(y)


EXACT = [
    (loop_changes_a_row_in_place, (R34,)),
    (comprehension_sum, (V4,)),
    (comprehension_mean_of_squares, (V4,)),
    (comprehension_max, (V4,)),
    (comprehension_through_ufunc, (V4,)),
    (comprehension_dot, (V4,)),
    (comprehension_builtin_sum, (V4,)),
    (comprehension_over_rows, (R34,)),
    (comprehension_of_rows, (R34,)),
    (comprehension_nested, (V4, V3)),
    (comprehension_filtered, (V4,)),
    (comprehension_used_twice, (V4,)),
    (comprehension_alias, (V4,)),
    (comprehension_norm, (V4,)),
    (comprehension_prod, (V4,)),
    (comprehension_std, (V4,)),
    (comprehension_stacked, (R34,)),
    (loop_over_rows, (R34, V4)),
    (loop_appends_then_ufunc, (V4,)),
    (loop_enumerate_rows, (R34,)),
    (loop_enumerate_from_one, (V4,)),
    (loop_enumerate_from_positional, (V4,)),
    (loop_zip_rows, (R34, R34B)),
    (loop_reversed, (V4,)),
    (loop_over_columns, (R34,)),
    (loop_over_slice, (V4,)),
    (loop_rebinds_what_it_iterates, (R34,)),
    (loop_nested_over_rows, (R34,)),
    (loop_breaks, (V4,)),
    (logistic_steps, (0.3, 3.2)),
    (stored_element_returned, (V3,)),
    (returns_an_alias_of_a_restored_array, (V3, 0.5)),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args", EXACT, ids=[f.__name__ for f, _ in EXACT])
def test_exact(function, args, mode):
    (check_reverse if mode == "reverse" else check_forward)(function, args)


@pytest.mark.parametrize("function,args", EXACT, ids=[f.__name__ for f, _ in EXACT])
def test_values_are_fs(function, args):
    check_values(function, args)


def test_value_and_grad_of_the_logistic_map_is_the_map():
    value, gradient = srcad.value_and_grad(logistic_steps)(0.3, 3.2)
    assert value == logistic_steps(0.3, 3.2)
    assert abs(value - 0.6650851145809918) < 1e-15
    assert abs(gradient - 1.8516261679923203) < 1e-12


@pytest.mark.parametrize("function", [overwritten_array_and_aux, overwritten_aux, appended_aux],
                         ids=lambda f: f.__name__)
def test_aux_is_what_f_returns(function):
    x = V3.copy() if function is overwritten_array_and_aux else 0.5
    out, aux = function(x.copy() if isinstance(x, np.ndarray) else x)
    (value, got_aux), _ = srcad.value_and_grad(function, has_aux=True)(x)
    gradient, also_aux = srcad.grad(function, has_aux=True)(x)
    for returned in (got_aux, also_aux):
        np.testing.assert_array_equal(np.asarray(returned), np.asarray(aux))
    assert value == out
    _, tangent, forward_aux = srcad.jvp(function, (x,), (np.ones_like(x) if isinstance(x, np.ndarray) else 1.0,),
                                        has_aux=True)
    np.testing.assert_array_equal(np.asarray(forward_aux), np.asarray(aux))
