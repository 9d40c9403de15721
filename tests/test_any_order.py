"""Derivatives of any order through loops, branches, list appends, element stores and called helpers.

A reverse-mode derivative of a loop keeps values on a list, its tape; differentiating that code again
differentiates the tape's pushes and pops, its trip counters and branch records, ``add_at``,
``keep_last`` and the other helpers.  These tests check the result against derivatives computed without
srcad.

Contract:
- ``SCALAR_CASES``: pairs ``(g, slope)`` of a scalar function ``g(s)`` with a ``for`` loop, a ``while``
  loop, a branch, a ``break``, list appends, element stores into a vector and into rows and columns of a
  matrix, nested loops and a called helper with a loop of its own, and its derivative ``slope`` written
  by hand.  ``srcad.grad`` applied 1 to 3 times (4 for ``FOURTH_ORDER``) matches ``slope`` and its
  central differences of orders 1 to 3.
- ``VECTOR_CASES``: functions of an array with the same constructs.  ``srcad.hessian`` matches nested
  central differences of f itself, and forward over reverse (``srcad.hvp``), reverse over reverse,
  reverse over forward and forward over forward give the same Hessian-vector product.
- A list used as a stack (``v = xs.pop()``) in the user's own code is differentiated in both modes.
- ``test_a_refusal_in_generated_code_names_the_users_line``: what srcad refuses inside its own code,
  differentiated again (a checkpointed loop's sweep), is reported with the user's line.
- ``test_prod_differentiated_six_times``: ``np.prod`` (with a factor exactly 0, and along an axis)
  differentiated six times in reverse mode matches central differences of the order before, and six
  times in forward mode gives the same numbers.
"""
import numpy as np
import pytest

import srcad

from gradcheck import check_hessian, no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_reverse, make_function
from any_order_helpers import act, act_slope

C = np.array([0.5, -1.0, 0.75])
X0 = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.6]])
V = np.array([[1.0, -0.5], [0.25, 2.0], [0.3, -0.7]])
S = 0.37


# Scalar functions, each with its derivative written by hand --------------------------------------

def for_loop(s):
    t = s
    for i in range(3):
        t = np.sin(t) * s + C[i] * t
    return t


def for_loop_slope(s):
    t, dt = s, 1.0
    for i in range(3):
        t, dt = np.sin(t) * s + C[i] * t, np.cos(t) * dt * s + np.sin(t) + C[i] * dt
    return dt


def while_loop(s):
    t = s
    n = 0
    while n < 4:
        t = t * np.cos(t) + s
        n += 1
    return t


def while_loop_slope(s):
    t, dt = s, 1.0
    for _ in range(4):
        t, dt = t * np.cos(t) + s, dt * np.cos(t) - t * np.sin(t) * dt + 1.0
    return dt


def branches(s):
    t = 0.0
    for i in range(4):
        if t > 0.2:
            t = t * s - 0.1
        else:
            t = t + np.exp(s * C[i % 3])
    return t


def branches_slope(s):
    t, dt = 0.0, 0.0
    for i in range(4):
        if t > 0.2:
            t, dt = t * s - 0.1, dt * s + t
        else:
            t, dt = t + np.exp(s * C[i % 3]), dt + C[i % 3] * np.exp(s * C[i % 3])
    return dt


def early_exit(s):
    t = s
    for i in range(6):
        t = np.tanh(t) * 2.0 + s
        if t > 1.5:
            break
    return t


def early_exit_slope(s):
    t, dt = s, 1.0
    for i in range(6):
        t, dt = np.tanh(t) * 2.0 + s, (1.0 - np.tanh(t) ** 2) * 2.0 * dt + 1.0
        if t > 1.5:
            break
    return dt


def appends(s):
    ys = []
    t = s
    for i in range(3):
        t = np.sin(t * s)
        ys.append(t)
    return np.sum(np.array(ys) ** 2)


def appends_slope(s):
    t, dt, total = s, 1.0, 0.0
    for i in range(3):
        t, dt = np.sin(t * s), np.cos(t * s) * (dt * s + t)
        total += 2.0 * t * dt
    return total


def vector_stores(s):
    y = np.zeros(3)
    for i in range(3):
        y[i] = np.sin(s * C[i])
        y[i] += s * y[i]
    return np.sum(y ** 2)


def vector_stores_slope(s):
    y = np.sin(s * C) * (1.0 + s)
    dy = C * np.cos(s * C) * (1.0 + s) + np.sin(s * C)
    return np.sum(2.0 * y * dy)


def row_stores(s):
    x = X0 + s * V
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * x[i - 1]
        y[i] = y[i] * y[i] + x[i]
    return np.sum(y ** 3)


def row_stores_slope(s):
    x = X0 + s * V
    total = 0.0
    for i in range(3):
        a, da = np.sin(x[i]) * x[i - 1], np.cos(x[i]) * V[i] * x[i - 1] + np.sin(x[i]) * V[i - 1]
        b, db = a * a + x[i], 2.0 * a * da + V[i]
        total += np.sum(3.0 * b * b * db)
    return total


def column_stores(s):
    y = X0 + s * V
    for j in range(y.shape[1]):
        y[:, j] = y[:, j] * np.cos(y[:, j - 1])
    return np.sum(y ** 2)


def column_stores_slope(s):
    y, dy = X0 + s * V, V.copy()
    for j in range(2):
        new = y[:, j] * np.cos(y[:, j - 1])
        dnew = dy[:, j] * np.cos(y[:, j - 1]) - y[:, j] * np.sin(y[:, j - 1]) * dy[:, j - 1]
        y[:, j], dy[:, j] = new, dnew
    return np.sum(2.0 * y * dy)


def nested_loops(s):
    x = X0 + s * V
    acc = np.zeros(2)
    for i in range(3):
        for j in range(2):
            acc[j] = acc[j] + x[i, j] * np.sin(acc[j - 1] + x[i, j])
    return np.sum(acc ** 2)


def nested_loops_slope(s):
    x = X0 + s * V
    acc, dacc = np.zeros(2), np.zeros(2)
    for i in range(3):
        for j in range(2):
            inner, dinner = acc[j - 1] + x[i, j], dacc[j - 1] + V[i, j]
            acc[j], dacc[j] = (acc[j] + x[i, j] * np.sin(inner),
                               dacc[j] + V[i, j] * np.sin(inner) + x[i, j] * np.cos(inner) * dinner)
    return np.sum(2.0 * acc * dacc)


def called_helper(s):
    h = s
    for i in range(2):
        h = act(h, scale=0.5) * s
    return h


def called_helper_slope(s):
    h, dh = s, 1.0
    for i in range(2):
        h, dh = act(h, scale=0.5) * s, act_slope(h, 0.5) * dh * s + act(h, scale=0.5)
    return dh


SCALAR_CASES = [(for_loop, for_loop_slope), (while_loop, while_loop_slope), (branches, branches_slope),
                (early_exit, early_exit_slope), (appends, appends_slope), (vector_stores, vector_stores_slope),
                (row_stores, row_stores_slope), (column_stores, column_stores_slope),
                (nested_loops, nested_loops_slope), (called_helper, called_helper_slope)]
FOURTH_ORDER = {"early_exit", "appends", "called_helper"}   # the others to order 3: order 4 builds slowly


def _differences(slope, s, order):
    """Central differences of ``slope`` of ``order`` 0 to 3, with the step that suits each."""
    if order == 0:
        return slope(s), 1e-12
    if order == 1:
        h = 1e-5
        return (slope(s + h) - slope(s - h)) / (2 * h), 1e-7
    if order == 2:
        h = 1e-4
        return (slope(s + h) - 2.0 * slope(s) + slope(s - h)) / h ** 2, 1e-5
    h = 2e-3   # seven points: the error is of order h ** 4
    points = [slope(s + k * h) for k in (3, 2, 1, -1, -2, -3)]
    weights = [-1.0, 8.0, -13.0, 13.0, -8.0, 1.0]
    return sum(w * p for w, p in zip(weights, points)) / (8 * h ** 3), 1e-5


@pytest.mark.parametrize("g, slope", SCALAR_CASES, ids=[g.__name__ for g, _ in SCALAR_CASES])
def test_nested_grads_match_differences_of_a_derivative_written_by_hand(g, slope):
    derivative = g
    scale = max(1.0, abs(slope(S)))
    for order in range(1, (4 if g.__name__ in FOURTH_ORDER else 3) + 1):
        derivative = srcad.grad(derivative)
        expected, rtol = _differences(slope, S, order - 1)
        got = derivative(S)
        assert abs(got - expected) <= rtol * max(scale, abs(expected)), \
            f"{g.__name__}: derivative of order {order} is {got!r}, differences of the hand-written slope " \
            f"give {expected!r}"


# Functions of an array: the Hessian, and every composition of modes ----------------------------------

W = np.array([[0.5, -0.3], [0.2, 0.8]])


def rnn(x):
    h = np.zeros(2)
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + x[t])
    return np.sum(h ** 2)


def branch_rows(x):
    s = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        if np.sum(x[i]) > 0:
            s = s + np.exp(x[i] * 0.5) * s
        else:
            s = s * x[i] + 1.0
    return np.sum(s)


def while_rows(x):
    h = x[0]
    k = 0
    while np.sum(h * h) < 8.0 and k < 10:
        h = h * 1.3 + np.sin(x[k % x.shape[0]])
        k += 1
    return np.sum(h ** 2)


def appended_rows(x):
    outs = []
    h = x[0]
    for i in range(x.shape[0]):
        h = np.tanh(h + x[i])
        outs.append(h * 2.0)
    return np.sum(np.stack(outs) ** 2)


def copied_rows(x):
    y = x * 1.0
    ys = []
    for i in range(3):
        row = np.copy(y[i])
        ys.append(row)
        y[i] = np.sin(row) * 2.0
    return np.sum(np.stack(ys) ** 3) + np.sum(y ** 2)


def matrix_stores(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] * x[(i + 1) % 3]
        y[i] += np.sin(y[i])
    return np.sum(y ** 2)


def helper_in_loop(x):
    h = x[0]
    for i in range(x.shape[0]):
        h = act(h * x[i], scale=0.7)
    return np.sum(h ** 2)


VECTOR_CASES = [rnn, branch_rows, while_rows, appended_rows, copied_rows, matrix_stores, helper_in_loop]
VECTOR_POINT = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.6]])


def _nested_differences(f, x, h=1e-4):
    """The Hessian of f by central differences of f itself (no derivative srcad made)."""
    size = x.size
    hessian = np.zeros((size, size))
    steps = np.eye(size).reshape((size,) + x.shape) * h
    for i in range(size):
        for j in range(size):
            hessian[i, j] = (f(x + steps[i] + steps[j]) - f(x + steps[i] - steps[j]) - f(x - steps[i] + steps[j])
                             + f(x - steps[i] - steps[j])) / (4 * h * h)
    return hessian.reshape(x.shape + x.shape)


def _call_by_keyword(derivative, *args, tangent):
    return derivative(*args, **{derivative.parameters[-1]: tangent})


@pytest.mark.parametrize("f", VECTOR_CASES, ids=[f.__name__ for f in VECTOR_CASES])
def test_hessian_of_loops_matches_nested_differences(f):
    x = VECTOR_POINT
    hessian = srcad.hessian(f)(x)
    np.testing.assert_allclose(hessian, _nested_differences(f, x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f", VECTOR_CASES, ids=[f.__name__ for f in VECTOR_CASES])
def test_every_composition_of_modes_agrees_through_loops(f):
    x, v = VECTOR_POINT, np.random.default_rng(4).standard_normal(VECTOR_POINT.shape)
    expected = np.tensordot(srcad.hessian(f)(x), v, axes=x.ndim)
    forward_over_reverse = srcad.hvp(f, x, v)
    reverse_over_reverse = _call_by_keyword(srcad.autodiff(srcad.grad(f)), x, tangent=v)
    reverse_over_forward = srcad.grad(srcad.autodiff(f, mode="forward"))(x, v)
    for got in (forward_over_reverse, reverse_over_reverse, reverse_over_forward):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-10)
    forward_over_forward = srcad.autodiff(srcad.autodiff(f, mode="forward"), wrt=0, mode="forward")
    np.testing.assert_allclose(_call_by_keyword(forward_over_forward, x, v, tangent=v), np.sum(expected * v),
                               rtol=1e-9, atol=1e-10)


# Lists used as stacks in the user's own code -----------------------------------------------------------

def stack_of_rows(x):
    stack = []
    for i in range(x.shape[0]):
        stack.append(np.sin(x[i]) * (i + 1.0))
    total = np.zeros(x.shape[1])
    while len(stack) > 0:
        top = stack.pop()
        total = total * 0.5 + top * top
    return np.sum(total)


def stack_discarding(x):
    stack = [x * 2.0, np.cos(x)]
    stack.append(x ** 3)
    stack.pop()
    last = stack.pop()
    return np.sum(last * stack[0])


@pytest.mark.parametrize("f", [stack_of_rows, stack_discarding], ids=["stack_of_rows", "stack_discarding"])
def test_a_list_used_as_a_stack(f):
    x = VECTOR_POINT.copy()
    check_reverse(f, (x,))
    check_forward(f, (x,))
    np.testing.assert_allclose(srcad.hessian(f)(x), _nested_differences(f, x), rtol=1e-5, atol=1e-5)


# What srcad still refuses names the user's line ----------------------------------------------------------

def checkpointed(s):
    t = s
    for i in range(4):
        t = np.sin(t) * s
    return t


def test_a_refusal_in_generated_code_names_the_users_line():
    """srcad's derivative of a checkpointed loop calls a helper it differentiates once only."""
    with pytest.raises(srcad.SrcadError) as info:
        srcad.grad(srcad.grad(checkpointed, checkpoints=2))(S)
    message = str(info.value)
    assert f"your line {__file__}:" in message and "for i in range(4):" in message, message
    assert "take one derivative fewer of checkpointed" in message, message


def complex_eigenvalues(x):
    a = x + x.T + 1j * (x - x.T)
    return np.sum(np.linalg.eigvalsh(a) ** 3)


def test_hessian_through_complex_eigenvalues():
    """Once refused (the complex rule's helpers were not differentiated again); now against differences."""
    check_hessian(complex_eigenvalues, np.array([[2.0, 0.3], [-0.4, 1.5]]), atol=1e-7)


def singular_vectors(a):
    u, values, vt = np.linalg.svd(a)
    return np.sum(u * 2.0) + np.sum(values)


def test_second_derivative_through_singular_vectors():
    """Once refused (the rule's helper was not differentiable again); now against differences of the gradient."""
    check_hessian(singular_vectors, np.array([[2.0, 0.3], [0.3, 1.5]]), atol=1e-7)


# np.prod to any order ------------------------------------------------------------------------------

SHIFTED = np.array([0.6, -0.9, 0.85, 2.1, 0.1, 1.4, -0.5])


def product_of_sines(s):
    return np.prod(np.sin(s * SHIFTED) + SHIFTED)


def product_through_a_zero(s):   # one factor is exactly 0 at S: exact only without dividing by the factors
    return np.prod(np.concatenate([np.sin(s * SHIFTED[:4]) + SHIFTED[:4], np.array([s - S])]))


def product_along_an_axis(s):
    return np.sum(np.prod(np.reshape(np.sin(s * SHIFTED[:6]) + SHIFTED[:6], (2, 3)), axis=1) * np.array([1.0, -2.0]))


def _forward_derivative(g):
    """``g'`` by forward mode, as a function srcad can differentiate again."""
    return make_function("def slope(s):\n    return tangent(s, 1.0)\n",
                         {"tangent": srcad.autodiff(g, mode="forward")})


@pytest.mark.parametrize("g", [product_of_sines, product_through_a_zero, product_along_an_axis],
                         ids=lambda g: g.__name__)
def test_prod_differentiated_six_times(g):
    # each order against central differences of the order before it (np.prod's fifth and sixth derivatives
    # come from srcad differentiating prod_others_tangent4's source); forward mode gives the same numbers
    step = 1e-3
    reverse, forward = [g], [g]
    for order in range(1, 7):
        reverse.append(srcad.grad(reverse[-1]))
        by_differences = (reverse[-2](S + step) - reverse[-2](S - step)) / (2 * step)
        scale = max(1.0, abs(by_differences))
        np.testing.assert_allclose(reverse[-1](S), by_differences, rtol=1e-4, atol=1e-4 * scale)
        forward.append(_forward_derivative(forward[-1]))
        np.testing.assert_allclose(forward[-1](S), reverse[-1](S), rtol=1e-9, atol=1e-9 * scale)
