"""``for`` loops and comprehensions over ``itertools.product`` and ``itertools.combinations``.

Pairwise energies (``for i, j in combinations(range(n), 2)``) and grids
(``product(xs, ys)``, ``repeat=``) are checked against central finite
differences in both modes, and to second order; other ``itertools`` calls,
or one kept in a variable, are refused at the user's line with a rewrite.
"""
import functools
import itertools
from itertools import combinations, product

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, check_hessian


def pair_energy(X):
    energy = 0.0
    for i, j in itertools.combinations(range(X.shape[0]), 2):
        r = X[i] - X[j]
        energy = energy + 1.0 / np.sqrt(np.sum(r * r) + 0.5)
    return energy


def grid(w):
    total = 0.0
    for a, b in product(w, w[::-1]):
        total = total + np.sin(a) * b
    return total


def row_pairs(X):
    total = 0.0
    for u, v in combinations(X, 2):   # rows: views of X
        total = total + np.sum(u * v)
    return total


def cube(w):
    total = 0.0
    for a, b, c in itertools.product(w[:2], repeat=3):
        total = total + a * b * c
    return total


def triples(w):
    total = 0.0
    for a, b, c in itertools.combinations(w, 3):
        total = total + a * b - np.tanh(c)
    return total


def in_a_comprehension(w):
    return sum(a * b for a, b in itertools.combinations(w, 2)) + len(list(product(w[:2], w[:3])))


def with_break(w):
    total = 0.0
    for a, b in itertools.product(w, w):
        if a * b > 0.5:
            break
        total = total + a * b
    return total


X = np.random.default_rng(0).normal(size=(4, 3))
W = np.array([0.3, -0.7, 1.1, 0.5])
CASES = [(pair_energy, X), (grid, W), (row_pairs, X), (cube, W), (triples, W), (in_a_comprehension, W),
         (with_break, W)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_itertools_loops_in_both_modes(f, x):
    check_both_modes(f, (x,))


@pytest.mark.parametrize("f, x", [(pair_energy, X), (grid, W), (triples, W)], ids=["pairs", "grid", "triples"])
def test_second_order(f, x):
    check_hessian(f, x)


def test_the_loop_reads_like_the_line():
    source = srcad.source(pair_energy)
    assert "pool = range(X.shape[0])" in source
    assert "# for i, j in itertools.combinations(range(X.shape[0]), 2):" in source


def chained(w):
    total = 0.0
    for v in itertools.chain(w[:2], w[2:]):
        total = total + v * v
    return total


def kept_in_a_variable(w):
    pairs = itertools.combinations(w, 2)
    total = 0.0
    for a, b in pairs:
        total = total + a * b
    return total


def computed_size(w):
    total = 0.0
    for pair in itertools.combinations(w, len(w) - 2):
        total = total + pair[0]
    return total


def reduced_sometimes(w):
    return functools.reduce(lambda u, v: u * v, [w[0], w[1], w[2]]) if w[0] > 0 else 0.0


@pytest.mark.parametrize("f", [chained, kept_in_a_variable, computed_size, reduced_sometimes])
def test_other_itertools_uses_are_refused_with_a_rewrite(f):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(f)(W)
    message = str(raised.value)
    assert "test_itertools_loops.py:" in message and ("itertools." in message or "functools.reduce" in message)
    assert "append" in message or "for item in" in message or "total = functools.reduce(fn, items" in message
