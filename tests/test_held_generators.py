"""A generator expression kept in a variable and consumed once later in the same block.

``g = (e for v in it)`` then ``sum(g)`` (or ``math.fsum``, ``max``,
``sorted``, ``list``, ``tuple``, ``functools.reduce``...) is differentiated as
``sum(e for v in it)`` written where it is consumed: the generator computes
its items then, reading the names as they are then (``scale`` reassigned in
between counts), which the tests check against f's own value and against
central finite differences in both modes and to second order.  Where moving
it could change what it computes or how often it is consumed (its first
iterable's names reassigned in between, two consumers, a consumer under a
conditional expression or in a loop of its own, a reassignment of the
generator), srcad refuses at the user's line with a rewrite.
"""
import functools
import math

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, check_hessian


def squares(x):
    held = (x[i] ** 2 for i in range(len(x)))
    return sum(held)


def read_when_consumed(x):
    scale = 1.0
    held = (np.sin(v) * scale for v in x)
    scale = 3.0   # the generator reads scale when sum runs: 3.0
    return math.fsum(held) * 2.0


def in_a_loop(x):
    total = 0.0
    for k in range(3):
        held = (v ** (k + 1) for v in x)
        total = total + max(held)
    return total


def listed_and_reduced(x):
    pairs = (x[i] * x[i + 1] for i in range(2))
    ordered = sorted(pairs)
    terms = (np.tanh(v) for v in ordered)
    return functools.reduce(lambda a, b: a * b + 1.0, terms) + ordered[0]


def in_an_expression(x):
    held = (np.exp(-v * v) for v in x)
    return 0.5 * np.log(1.0 + sum(held)) + x[0]


X = np.array([0.3, -0.5, 0.8])
CASES = [squares, read_when_consumed, in_a_loop, listed_and_reduced, in_an_expression]


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_held_generators_in_both_modes(f):
    check_both_modes(f, (X,))


@pytest.mark.parametrize("f", CASES, ids=[f.__name__ for f in CASES])
def test_held_generators_to_second_order(f):
    check_hessian(f, X)


def test_the_generator_stands_where_it_is_consumed():
    source = srcad.source(read_when_consumed)
    assert "# return math.fsum(held) * 2.0" in source and "scale = 3.0" in source


def first_iterable_reassigned(x):
    held = (v * 2.0 for v in x)
    x = x[::-1] * 3.0   # the generator iterates over the old x
    return sum(held) + x[0]


def consumed_twice(x):
    held = (v * 2.0 for v in x)
    return sum(held) + sum(held)   # the second sum gets nothing


def consumed_sometimes(x):
    held = (v * 2.0 for v in x)
    return sum(held) if x[0] > 0 else 0.0


def consumed_in_a_nested_loop(x):
    held = (v * 2.0 for v in x)
    total = 0.0
    for k in range(2):
        total = total + sum(held)   # the second pass gets nothing
    return total


def reassigned(x):
    held = (v * 2.0 for v in x)
    held = (v * 3.0 for v in x)
    return sum(held)


def copy_then_append(x):
    xs = [x[0], x[1]]
    held = (v ** 2 for v in xs[:])   # iterates over a copy made here
    xs.append(x[2])
    return sum(held)


def length_then_append(x):
    xs = [x[0], x[1]]
    held = (xs[i] ** 2 for i in range(len(xs)))   # the length taken here
    xs.append(x[2])
    return sum(held)


def product_then_store(x):
    y = x * 1.0
    held = (v ** 2 for v in y * 2.0)   # a new array made here
    y[0] = 5.0
    return sum(held)


def entry_then_replaced(x):
    d = {"a": [x[0], x[1]]}
    held = (v * v for v in d["a"])
    d["a"] = [x[2]]
    return sum(held)


def random_draws(x):
    np.random.seed(0)
    held = (x[0] * v for v in np.random.rand(3))   # drawn before the next draw
    y = np.random.rand(3) * 10.0
    return sum(held) + x[1] * np.sum(y)


def raises_before_an_early_return(x):
    held = (v for v in x[7])   # f raises here, whatever follows
    if x[0] > 0:
        return x[0] * 2.0
    return sum(held)


def a_change_in_between(x):
    xs = [x[0], x[1]]
    held = (v ** 2 for v in xs)
    xs.append(x[2])   # the iterator reads the list as it runs: the append counts, but srcad does not move past it
    return sum(held)


@pytest.mark.parametrize("f", [first_iterable_reassigned, consumed_twice, consumed_sometimes,
                               consumed_in_a_nested_loop, reassigned, copy_then_append, length_then_append,
                               product_then_store, entry_then_replaced, random_draws, a_change_in_between])
def test_generators_that_could_change_are_refused(f):
    f(X)   # runs in Python
    for mode in ("reverse", "forward"):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            srcad.source(f, mode=mode)
        assert "test_held_generators.py:" in str(raised.value) and "list comprehension" in str(raised.value)


def test_a_generator_whose_first_iterable_raises_is_refused_not_moved():
    with pytest.raises(IndexError):
        raises_before_an_early_return(X)
    for mode in ("reverse", "forward"):
        with pytest.raises(srcad.UnsupportedSyntaxError):
            srcad.source(raises_before_an_early_return, mode=mode)
