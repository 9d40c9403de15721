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
    pairs = (x[i] * x[j] for i, j in zip(range(2), range(1, 3)))
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


@pytest.mark.parametrize("f", [first_iterable_reassigned, consumed_twice, consumed_sometimes,
                               consumed_in_a_nested_loop, reassigned])
def test_generators_that_could_change_are_refused(f):
    f(X)   # runs in Python
    for mode in ("reverse", "forward"):
        with pytest.raises(srcad.UnsupportedSyntaxError) as raised:
            srcad.source(f, mode=mode)
        assert "test_held_generators.py:" in str(raised.value) and "list comprehension" in str(raised.value)
