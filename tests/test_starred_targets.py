"""Starred assignment targets: ``a, *rest = x``, ``first, *mid, last = parts``.

Written out by ``starred_targets`` as indexing, a length check and an append
loop; checked here against central finite differences in both modes, to
second order, on arrays, lists and tuples a helper returns, with the wrong
number of values raising what Python raises, and the targets srcad cannot
write out refused at the user's line with a rewrite that works.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, check_hessian


def head_and_rest(x):
    a, *rest = x
    return a * np.sum(np.stack(rest) ** 2)


def middle(x):
    a, *mid, b = x
    return a * b + sum(m * m for m in mid)


def only_rest(x):
    *front, last = x
    total = 0.0
    for v in front:
        total = total + np.sin(v) * last
    return total


def rows_of_matrix(A):
    first, *others = A          # rows: views of A, as in Python
    return np.sum(first * np.stack(others).sum(axis=0))


def pair_and_tail(x):
    return x[0] * 2.0, x[1], x[2] * x[3], np.tanh(x)


def helper_result(x):
    scale, *parts, vector = pair_and_tail(x)
    return scale * np.sum(vector) + parts[0] * parts[1]


def in_a_loop(X):
    total = 0.0
    for row in X:
        head, *tail = row
        total = total + head * np.sum(np.exp(np.stack(tail)))
    return total


def list_of_scalars(x):
    values = [x[0], x[1] * 3.0, np.cos(x[2])]
    *firsts, last = values
    return firsts[0] * firsts[1] + last * last


def empty_star(x):
    a, *rest, b = x
    return a * b + len(rest)


VECTOR = np.array([0.3, -0.7, 1.1, 0.5])
MATRIX = np.array([[0.2, -0.4, 0.9], [1.3, 0.1, -0.6], [0.5, 0.8, -1.2]])
CASES = [(head_and_rest, VECTOR), (middle, VECTOR), (only_rest, VECTOR), (rows_of_matrix, MATRIX),
         (helper_result, VECTOR), (in_a_loop, MATRIX), (list_of_scalars, VECTOR[:3]), (empty_star, VECTOR[:2])]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_starred_targets_differentiate_in_both_modes(f, x):
    check_both_modes(f, (x,))


@pytest.mark.parametrize("f, x", CASES[:4], ids=[f.__name__ for f, _ in CASES[:4]])
def test_second_order(f, x):
    check_hessian(f, x)


@pytest.mark.parametrize("f, x", [(middle, np.array([1.0])), (middle, [1.0]), (head_and_rest, np.float64(2.0))],
                         ids=["array too short", "list too short", "a scalar"])
def test_too_few_values_raise_what_python_raises(f, x):
    with pytest.raises((ValueError, TypeError)) as raised_by_f:
        f(x)
    with pytest.raises(type(raised_by_f.value)) as raised_by_grad:
        srcad.grad(f)(x)
    direction = np.ones_like(x) if isinstance(x, np.ndarray) else [1.0]
    with pytest.raises(type(raised_by_f.value)) as raised_by_jvp:
        srcad.jvp(f, (x,), (direction,))
    assert str(raised_by_grad.value) == str(raised_by_f.value) == str(raised_by_jvp.value)


def test_the_written_out_code_reads_like_the_line():
    source = srcad.source(middle)
    assert "check_starred_unpacking(x, 1, 1)" in source
    assert "a = x[0]" in source and "b = x[-1]" in source
    assert "for index in range(1, len(x) - 1):" in source
    assert "# a, *mid, b = x" in source and "# def " not in source
    assert "range(1, len(x)):" in srcad.source(head_and_rest, mode="forward")


def mutated_after(A):
    first, *others = A
    A *= 2.0                    # first and others are views: they change too
    return np.sum(first * others[0])


def test_views_held_by_the_starred_list_are_right_or_refused():
    A = MATRIX.copy()
    try:
        gradient = srcad.grad(mutated_after)(A.copy())
    except srcad.SrcadError as error:
        assert "line" in str(error) or ".py:" in str(error)
        return
    h = 1e-6
    expected = np.zeros_like(A)
    for i in np.ndindex(A.shape):
        step = np.zeros_like(A)
        step[i] = h
        expected[i] = (mutated_after(A + step) - mutated_after(A - step)) / (2 * h)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)


def starred_loop_target(X):
    total = 0.0
    for head, *tail in X:
        total = total + head
    return total


def nested_star(x):
    (a, *b), c = (x[0], x[1]), x[2]
    return a * c * len(b)


@pytest.mark.parametrize("f", [starred_loop_target, nested_star])
def test_targets_it_cannot_write_out_are_refused_with_a_rewrite(f):
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(f)(MATRIX)
    message = str(raised.value)
    assert "test_starred_targets.py:" in message and "starred target" in message
    assert "first, *rest = row" in message
