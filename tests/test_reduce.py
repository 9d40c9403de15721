"""``functools.reduce`` as the loop it runs.

``reduce(fn, items[, initial])`` in a statement that evaluates it once and
whole becomes ``total = initial`` (or, without one, the items listed, an
empty list refused with Python's ``TypeError``, ``total = items[0]``) and a
loop ``total = fn(total, item)``.  Each form (a lambda, a NumPy function, an
``operator`` function, a ``functools.partial``, the user's own function; a
list, a generator, ``map``, rows of an array; with and without an initial
value; nested in an expression, one reduction inside another) is checked
against central finite differences in both modes and to second order.
"""
import functools
import operator
from functools import partial, reduce

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, check_hessian


def product_of_sines(x):
    return reduce(lambda a, b: a * np.sin(b), x)


def elementwise_max(x):
    return np.sum(functools.reduce(np.maximum, [x, x ** 2, np.cos(x)]))


def generator_with_initial(x):
    return reduce(operator.add, (np.tanh(v) * v for v in x), 0.5)


def mapped(x):
    return reduce(operator.mul, map(np.exp, x)) * 2.0


def mapped_with_initial(x):
    return np.sum(reduce(np.maximum, map(np.sin, x), x[1] * 0.5))


def affine(h, row, w=1.0):
    return np.tanh(w * h + row)


def recurrence_over_rows(X):
    return np.sum(reduce(partial(affine, w=0.7), X, np.zeros(X.shape[1])))


def users_function(x):
    return reduce(affine, [x[0], x[1], x[2]]) * x[1]


def nested(x):
    inner = reduce(lambda a, b: a + b * b, x, 0.0)
    return reduce(lambda a, b: a * b + inner, [x[0], reduce(operator.mul, x)], 1.0)


def in_a_loop(x):
    total = 0.0
    for k in range(2):
        total = total + reduce(lambda a, b: a * b + k, x)
    return total


X = np.array([0.3, -0.5, 0.8])
ROWS = np.array([[0.1, 0.2], [0.3, -0.4], [-0.2, 0.6]])
CASES = [(product_of_sines, X), (elementwise_max, X), (generator_with_initial, X), (mapped, X), (mapped_with_initial, X),
         (recurrence_over_rows, ROWS), (users_function, X), (nested, X), (in_a_loop, X)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_reduce_in_both_modes(f, x):
    check_both_modes(f, (x,))


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_reduce_to_second_order(f, x):
    check_hessian(f, x)


def test_an_empty_reduction_raises_as_python_does():
    def first_or_nothing(x, n):
        return reduce(operator.add, [x[i] for i in range(n)]) * 2.0

    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable") as expected:
        first_or_nothing(X, 0)
    with pytest.raises(TypeError) as raised:
        srcad.grad(first_or_nothing)(X, 0)
    assert str(raised.value) == str(expected.value)
    with pytest.raises(TypeError):
        srcad.autodiff(first_or_nothing, mode="forward")(X, 0, np.ones(3))
    check_both_modes(first_or_nothing, (X, 2), wrt=0)


def test_the_loop_reads_like_the_call():
    source = srcad.source(product_of_sines)
    assert "check_reduce_items(pool)" in source and "total = pool[0]" in source
    assert "for position in range(1, len(pool)):" in source
    assert "# return reduce(lambda a, b: a * np.sin(b), x)" in source
