"""Work srcad moves before a statement still runs after what Python evaluates before it.

A list comprehension becomes an append loop placed before its statement,
and so does ``functools.reduce``; where an operand Python evaluates first
changes state (``xs.pop()``, the user's function) or the moved work does,
the earlier operands are bound to names first, in Python's order
(``comprehensions.bind_earlier_operands``).  Before, ``xs.pop() + sum([v for
v in xs])`` summed the list before the pop: a silently wrong value and
gradient in reverse mode.  Checked against f's own value and central finite
differences in both modes; what cannot keep the order is refused.
"""
import operator
from functools import reduce

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes


def pop_then_comprehension(x):
    xs = [x[0], x[1], x[2]]
    return xs.pop() + sum([v * 2.0 for v in xs])


def comprehension_pop_comprehension(x):
    xs = [x[0], x[1], x[2]]
    return sum([v for v in xs]) * xs.pop() + sum([v * v for v in xs])


def pop_then_reduce(x):
    xs = [x[0], x[1], x[2]]
    return xs.pop() + reduce(operator.mul, xs, 1.0)


def pop_twice_then_reduce(x):
    xs = [x[0], x[1], x[2]]
    return xs.pop() * 2.0 + reduce(lambda a, b: a + b * b, xs) + xs[0]


def helper_then_comprehension(x):
    ys = [x[0]]
    return grow(ys, x[1]) + sum([np.sin(v) for v in ys])


def grow(ys, v):
    ys.append(v * v)
    return v


X = np.array([1.0, 2.0, 3.0])
CASES = [pop_then_comprehension, comprehension_pop_comprehension, pop_then_reduce, pop_twice_then_reduce]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_what_python_evaluates_first_runs_first(f):
    value, _ = srcad.value_and_grad(f)(X)
    assert value == pytest.approx(f(X))
    check_both_modes(f, (X,))


def test_a_helper_that_changes_an_argument_is_still_refused_or_right():
    try:
        gradient = srcad.grad(helper_then_comprehension)(X)
    except srcad.SrcadError:
        return   # refused: the helper changes its argument in place
    h = 1e-6
    differences = [(helper_then_comprehension(X + h * e) - helper_then_comprehension(X - h * e)) / (2 * h)
                   for e in np.eye(3)]
    np.testing.assert_allclose(gradient, differences, atol=1e-6)


def lazy_items_after_a_pop(x):
    xs = [x[0], x[1], x[2]]
    return reduce(operator.add, reversed(xs), xs.pop() * 2.0)   # reversed(xs) is made before the pop


def generator_read_by_a_changing_function(x):
    seen = [0.0]

    def step(a, b):
        seen[0] = a
        return a * b
    return reduce(step, (v + seen[0] for v in x))   # items made one by one, between the calls of step


@pytest.mark.parametrize("f", [lazy_items_after_a_pop, generator_read_by_a_changing_function])
def test_an_order_srcad_cannot_keep_is_refused(f):
    f(X)
    for mode in ("reverse", "forward"):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            srcad.source(f, mode=mode)
        assert "test_evaluation_order.py:" in str(raised.value) and "functools.reduce" in str(raised.value)
