"""Loop-carried values first bound inside the loop, or on one path before it, in both modes.

Contract:
- A name a loop writes and reads before writing it in the same pass carries
  its derivative from one pass to the next, even when it is not bound on
  every path before the loop: bound in the loop's first pass only (``if i ==
  0``), in an ``if`` before the loop, in an inner loop, or by a ``while``.
  Forward mode once dropped the earlier passes' tangent for such a name and
  returned the derivative of the last pass alone (fuzz seed 407535).
- Every row: reverse and forward mode against central finite differences,
  ``<u, Jv> = <J^T u, v>``, and the values the derivatives return.
"""
import numpy as np
import pytest

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, check_values


def first_pass_binds(s):
    for i in range(3):
        if i > 0:
            y = y + s * y
        else:
            y = 1.0 + s
    return y


def first_pass_binds_array(s):
    for i in range(3):
        if i == 0:
            y = np.ones(2) * 2.0
        y += s * np.array([1.0, 2.0])
    return y


def bound_on_one_path_before(s):
    t0 = np.array([0.5, -1.0, 2.0]) * 1.0
    if np.exp(-(t0[-1]) ** 2) < 0.5:
        t1 = t0[-1] * 1.0
    for _ in range(2):
        t1 += s
    return --(t0 * t1)


def bound_by_an_inner_loop(x):
    total = 0.0
    for i in range(3):
        for j in range(2):
            if j == 0:
                acc = x[i]
            else:
                acc = acc * x[j] + np.sin(acc)
        total = total + acc
    return total


def while_carries(s):
    k = 0
    while k < 4:
        if k == 0:
            y = s * s
        else:
            y = y * np.cos(s) + s
        k += 1
    return y


def carried_through_a_branch(x, w):
    for i in range(4):
        if i == 0:
            h = np.tanh(w * x)
        elif i % 2 == 1:
            h = h * w + x
        else:
            h = np.tanh(h)
    return np.sum(h ** 2)


RNG = np.random.default_rng(11)
CASES = [
    (first_pass_binds, (0.3,)),
    (first_pass_binds_array, (0.7,)),
    (bound_on_one_path_before, (0.2,)),
    (bound_by_an_inner_loop, (RNG.uniform(0.2, 1.0, 3),)),
    (while_carries, (0.9,)),
    (carried_through_a_branch, (RNG.standard_normal(3), RNG.standard_normal(3))),
]
IDS = [case[0].__name__ for case in CASES]


@pytest.mark.parametrize("function, args", CASES, ids=IDS)
def test_reverse_mode(function, args):
    check_reverse(function, args)


@pytest.mark.parametrize("function, args", CASES, ids=IDS)
def test_forward_mode(function, args):
    check_forward(function, args)


@pytest.mark.parametrize("function, args", CASES, ids=IDS)
def test_modes_agree_and_values(function, args):
    check_forward_reverse(function, args)
    check_values(function, args)
