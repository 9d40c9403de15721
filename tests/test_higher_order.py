"""Higher-order derivatives: srcad differentiating its own generated code, against finite differences.

Contract:
- ``HESSIAN_CASES`` is a table of scalar functions of one array built with
  ``@``/``np.dot``/``np.matmul`` (1-D.1-D, 2-D@1-D, 1-D@2-D, 2-D@2-D,
  batched), fancy and slice reads and stores, reductions with axes, ``solve``,
  ``inv``, ``det``, ``prod``, ``cumsum``, joins and reshapes.  For each:
  ``srcad.hessian`` matches the central finite difference of ``srcad.grad``
  and is symmetric; ``srcad.hvp`` is ``hessian @ v``; forward over reverse,
  reverse over reverse and reverse over forward give the same ``H v``, and
  forward over forward gives ``v^T H v``.
- ``SCALAR_CASES``: ``srcad.grad(srcad.grad(g))`` of scalar functions
  ``g(s)`` built with the same operations matches finite differences of
  ``srcad.grad(g)`` and a second-order central difference of ``g``.
- ``test_fourth_order_*``: nested ``srcad.grad`` up to order four against
  closed forms (a matmul of ``tanh``, a product, a determinant).
- ``test_mlp_*``: the Hessian-vector product of a two-layer tanh network's
  softmax cross-entropy against finite differences of its gradient.
- ``test_every_row_*``: every row of ``tests/specs.py`` differentiated twice
  (forward over its VJP, reverse over its VJP) matches finite differences of
  its VJP, except the rows listed in ``ONCE_ONLY`` (and, reverse over reverse,
  ``REVERSE_ONLY_GAPS``), which must raise ``SrcadError`` (a refusal naming
  the line) rather than give a wrong number.
- ``test_getitem_of_a_numpy_scalar_*``: ``x[..., None]`` and ``x[()]`` of an
  ``np.float64`` in both modes, and twice.
- ``test_example_runs``: ``examples/higher_order.py`` runs and prints its checks.
"""
import os
import runpy

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import fd_hessian, inner, leaves, like
from specs import SPECS, cases, special

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))
M = RNG.standard_normal((2, 2))
B = RNG.standard_normal((3, 2))
C = RNG.standard_normal(3)
N = RNG.standard_normal((3, 3))
EYE3 = np.eye(3)
H = 1e-5   # finite-difference step


# Functions of one array ------------------------------------------------------

def inner_1d(x):
    return np.tanh(x) @ np.sin(x)


def matrix_vector(x):
    return np.sum(np.tanh(A @ x) ** 2)


def vector_matrix(x):
    return np.sum(np.sin(x @ A))


def matrix_matrix(x):
    X = np.reshape(x, (3, 2))
    return np.sum(np.tanh(X.T @ X @ M))


def batched_matmul(x):
    X = np.reshape(x, (2, 2, 3))
    return np.sum(np.matmul(X, np.swapaxes(X, -1, -2)) ** 2)


def dot_vectors(x):
    return np.dot(x, np.cos(x))


def dot_matrices(x):
    return np.sum(np.dot(np.reshape(x, (2, 3)), B) ** 3)


def fancy_read(x):
    return np.sum(np.sin(x[[0, 2, 2, 3]]) * x[[1, 1, 0, 3]]) + x[0] * x[-1] ** 2


def gather(x):
    return np.sum(np.sin(np.take(x, [0, 2, 2, 3])) * np.take(x, [1, 1, 0, 3]))


def slice_read(x):
    return np.sum(x[1:] * x[:-1] ** 2)


def slice_store(x):
    y = np.zeros(5)
    y[1:3] = x[:2] ** 2
    y[3:] = np.sin(x[2:])
    return np.sum(np.exp(y) * y)


def fancy_store(x):
    y = x * 1.0
    y[[0, 3]] = np.sin(x[[1, 2]]) * x[0]
    return np.sum(y ** 3)


def sum_axis(x):
    X = np.reshape(x, (3, 2))
    return np.sum(np.sum(np.tanh(X), axis=0) ** 2) + np.sum(np.mean(X ** 3, axis=1, keepdims=True) ** 2)


def max_axis(x):
    X = np.reshape(x, (2, 3))
    return np.sum(np.max(np.sin(X) * X, axis=1) ** 2)


def solve_system(x):
    return np.sum(np.linalg.solve(np.reshape(x[:9], (3, 3)) + 4.0 * EYE3, x[9:] ** 2) ** 2)


def inverse(x):
    return np.sum(np.linalg.inv(np.reshape(x, (3, 3)) + 3.0 * EYE3) @ C)


def determinant(x):
    return np.linalg.det(np.reshape(x, (3, 3)) + 2.0 * EYE3)


def product(x):
    return np.prod(np.sin(x) + 1.5)


def product_axis_with_zero(x):
    X = np.reshape(x, (2, 3))
    return np.sum(np.prod(X, axis=1) ** 2)


def cumulative_sum(x):
    return np.sum(np.cumsum(np.tanh(x)) ** 2) + np.sum(np.cumsum(np.reshape(x, (2, 2)), axis=1) ** 3)


def joins(x):
    joined = np.concatenate([np.sin(x), x ** 2, np.cos(x)])
    stacked = np.stack([x, np.cos(x)], axis=1)
    return np.sum(joined ** 2) + np.sum((stacked @ np.array([1.0, -2.0])) ** 3)


def reshape_transpose(x):
    X = np.reshape(x, (2, 3))
    return np.sum((X.T @ X) * np.transpose(X)[:, :1]) + np.sum(np.ravel(X.T)[::2] ** 3)


def einsum_trace(x):
    X = np.reshape(x, (2, 2))
    return np.einsum("ij,jk,ki", X, X, np.tanh(X))


def _inputs(n, seed):
    return np.random.default_rng(seed).uniform(-0.8, 0.8, n)


HESSIAN_CASES = [
    (inner_1d, _inputs(4, 1)), (matrix_vector, _inputs(4, 2)), (vector_matrix, _inputs(3, 3)),
    (matrix_matrix, _inputs(6, 4)), (batched_matmul, _inputs(12, 5)), (dot_vectors, _inputs(3, 6)),
    (dot_matrices, _inputs(6, 7)), (fancy_read, _inputs(4, 22)), (gather, _inputs(4, 8)), (slice_read, _inputs(4, 9)),
    (slice_store, _inputs(4, 10)), (fancy_store, _inputs(4, 11)), (sum_axis, _inputs(6, 12)),
    (max_axis, _inputs(6, 13)), (solve_system, _inputs(12, 14)), (inverse, _inputs(9, 15)),
    (determinant, _inputs(9, 16)), (product, _inputs(4, 17)),
    (product_axis_with_zero, np.array([0.5, 0.0, -0.7, 0.3, 0.9, -0.4])), (cumulative_sum, _inputs(4, 18)),
    (joins, _inputs(3, 19)), (reshape_transpose, _inputs(6, 20)), (einsum_trace, _inputs(4, 21)),
]
HESSIAN_IDS = [f.__name__ for f, _ in HESSIAN_CASES]


def call_by_keyword(derivative, *args, tangent):
    """Call a derivative of a derivative with its last parameter (the tangent or seed, maybe keyword-only)."""
    return derivative(*args, **{derivative.parameters[-1]: tangent})


@pytest.mark.parametrize("f, x", HESSIAN_CASES, ids=HESSIAN_IDS)
def test_hessian_matches_finite_differences(f, x):
    hessian = srcad.hessian(f)(x)
    assert hessian.shape == x.shape + x.shape
    np.testing.assert_allclose(hessian.reshape(x.size, x.size), fd_hessian(f, x, H), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("f, x", HESSIAN_CASES, ids=HESSIAN_IDS)
def test_every_composition_of_modes_gives_the_same_hvp(f, x):
    v = np.random.default_rng(3).standard_normal(x.shape)
    expected = srcad.hessian(f)(x) @ v
    forward_over_reverse = srcad.hvp(f, x, v)
    reverse_over_reverse = call_by_keyword(srcad.autodiff(srcad.grad(f)), x, tangent=v)
    reverse_over_forward = srcad.grad(srcad.autodiff(f, mode="forward"))(x, v)
    for got in (forward_over_reverse, reverse_over_reverse, reverse_over_forward):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-10)
    forward_over_forward = srcad.autodiff(srcad.autodiff(f, mode="forward"), wrt=0, mode="forward")
    np.testing.assert_allclose(call_by_keyword(forward_over_forward, x, v, tangent=v), v @ expected,
                               rtol=1e-9, atol=1e-10)


# Scalar functions of a scalar: grad of grad ------------------------------------

def g_matmul(s):
    return np.sum(np.tanh(s * A) @ A.T[:, 0])


def g_dot(s):
    return np.dot(np.sin(s * C), np.cos(s * C) @ N)


def g_solve(s):
    return np.sum(np.linalg.solve(N + 4.0 * EYE3 + s * np.outer(C, C), np.sin(s * C)))


def g_inverse(s):
    return np.sum(np.linalg.inv(EYE3 * 3.0 + s * N) ** 2)


def g_determinant(s):
    return np.linalg.det(EYE3 + s * N)


def g_prod(s):
    return np.prod(np.sin(s * C) + 2.0)


def g_cumsum_max(s):
    return np.sum(np.cumsum(np.exp(s * C)) ** 2) + np.max(np.sin(s * C) * C)


def g_indexing(s):
    v = np.sin(s * C)
    w = np.zeros(4)
    w[1:] = v[::-1] ** 2
    w[[0, 2]] = v[1:]
    return np.sum(w * v[:1]) + np.sum(v[1:] ** 3)


def g_joins(s):
    return np.sum(np.concatenate([np.tanh(s * C), np.stack([s * C, s ** 2 * C]).ravel()]) ** 2)


def g_reshape(s):
    return np.sum(np.transpose(np.reshape(np.sin(s * A), (2, 6))) @ np.ones(2)) ** 2


SCALAR_CASES = [g_matmul, g_dot, g_solve, g_inverse, g_determinant, g_prod, g_cumsum_max, g_indexing, g_joins,
                g_reshape]


@pytest.mark.parametrize("g", SCALAR_CASES, ids=[g.__name__ for g in SCALAR_CASES])
def test_grad_of_grad_of_a_scalar_function(g):
    s = 0.37
    first, second = srcad.grad(g), srcad.grad(srcad.grad(g))
    by_first = (first(s + H) - first(s - H)) / (2 * H)
    np.testing.assert_allclose(second(s), by_first, rtol=1e-6, atol=1e-7)
    step = 1e-4
    by_values = (g(s + step) - 2.0 * g(s) + g(s - step)) / step ** 2
    np.testing.assert_allclose(second(s), by_values, rtol=1e-4, atol=1e-4)


def nested_grads(g, order):
    derivatives = [g]
    for _ in range(order):
        derivatives.append(srcad.grad(derivatives[-1]))
    return derivatives


def test_fourth_order_through_a_matmul():
    """g(s) = sum(tanh(s W) @ v): the n-th derivative is sum((W^n tanh^(n)(s W)) @ v)."""
    W, v, s = A, A.T[:, 1], 0.7

    def g(s):
        return np.sum(np.tanh(s * W) @ v)

    t = np.tanh(s * W)
    slope = 1.0 - t * t
    exact = [t, W * slope, W ** 2 * -2.0 * t * slope, W ** 3 * slope * (6.0 * t * t - 2.0),
             W ** 4 * slope * t * (16.0 - 24.0 * t * t)]
    derivatives = nested_grads(g, 4)
    for order in range(5):
        np.testing.assert_allclose(derivatives[order](s), np.sum(exact[order] @ v), rtol=1e-11, atol=1e-12)


def test_fourth_order_of_a_product_is_exact():
    """prod(s c + 1) is a polynomial; its derivatives are elementary symmetric sums of c."""
    c = np.array([0.5, -1.0, 2.0, 1.5, -0.25])
    derivatives = nested_grads(shifted_product, 4)
    roots = -1.0 / c
    polynomial = np.poly(roots) * np.prod(c)   # coefficients of prod(s c + 1), highest power first
    s = 0.3
    for order in range(5):
        exact = np.polyval(np.polyder(polynomial, order), s) if order else np.polyval(polynomial, s)
        np.testing.assert_allclose(derivatives[order](s, c), exact, rtol=1e-11)


def shifted_product(s, c):
    return np.prod(s * c + 1.0)


def test_third_and_fourth_order_of_a_determinant():
    """det(I + s N) is a cubic in s for 3x3 N: its third derivative is 6 det(N), its fourth is 0."""
    derivatives = nested_grads(g_determinant, 4)
    np.testing.assert_allclose(derivatives[3](0.4), 6.0 * np.linalg.det(N), rtol=1e-10)
    np.testing.assert_allclose(derivatives[4](0.4), 0.0, atol=1e-10)


# A small network: Hessian-vector products of a softmax cross-entropy ---------------

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "higher_order.py")
X_DATA = np.random.default_rng(11).standard_normal((5, 4))
LABELS = np.eye(3)[[0, 2, 1, 1, 0]]   # one-hot


def mlp_loss_scipy(theta):
    W1 = np.reshape(theta[:20], (4, 5))
    W2 = np.reshape(theta[20:], (5, 3))
    logits = np.tanh(X_DATA @ W1) @ W2
    return np.mean(special.logsumexp(logits, axis=1) - np.sum(LABELS * logits, axis=1))


MLP_CASES = [(runpy.run_path(EXAMPLE)["loss"], 20)] + ([(mlp_loss_scipy, 35)] if special is not None else [])


@pytest.mark.parametrize("loss, size", MLP_CASES, ids=["example_loss", "scipy_logsumexp_loss"][:len(MLP_CASES)])
def test_mlp_hessian_vector_product(loss, size):
    rng = np.random.default_rng(5)
    theta, v = 0.5 * rng.standard_normal(size), rng.standard_normal(size)
    gradient = srcad.grad(loss)
    by_differences = (gradient(theta + H * v) - gradient(theta - H * v)) / (2 * H)
    np.testing.assert_allclose(srcad.hvp(loss, theta, v), by_differences, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(call_by_keyword(srcad.autodiff(gradient), theta, tangent=v), srcad.hvp(loss, theta, v),
                               rtol=1e-10)


# Every spec row, twice ------------------------------------------------------------

ONCE_ONLY = {   # case-id prefix: why srcad does not differentiate the row's derivative
    "scipy.integrate.odeint-": "the adjoint and sensitivity solves of an ODE are not differentiated again",
    "scipy.integrate.solve_ivp-": "the adjoint and sensitivity solves of an ODE are not differentiated again",
    "checkpointed_loop-": "a checkpointed loop's reverse sweep is not differentiated again",
}
REVERSE_ONLY_GAPS = {}   # reverse over reverse only: case-id prefix: why
ROW_CASES = cases(SPECS)


def _flat(value):
    arrays = leaves(value)
    return np.concatenate([np.ravel(a) for a in arrays]) if arrays else np.zeros(0)


def _row_setup(case):
    args = case.inputs()
    rng = np.random.default_rng(1)
    out = case.function(*args)
    seed = tuple(like(out, rng)) if isinstance(out, tuple) else like(out, rng)
    vjp = srcad.autodiff(case.function, wrt=tuple(range(len(args))), mode="reverse")
    directions = [float(d) if isinstance(a, float) else d for a, d in zip(args, (like(a, rng) for a in args))]
    return args, seed, vjp, directions, rng


def _vjp_difference(vjp, args, seed, directions):
    plus = vjp(*[a + H * d for a, d in zip(args, directions)], seed)
    minus = vjp(*[a - H * d for a, d in zip(args, directions)], seed)
    return (_flat(plus) - _flat(minus)) / (2 * H)


def _known_gap(case, gaps):
    return next((reason for prefix, reason in gaps.items() if case.id.startswith(prefix)), None)


def _forward_over_vjp(case):
    args, seed, vjp, directions, _ = _row_setup(case)
    derivative = srcad.autodiff(vjp, wrt=tuple(range(len(args))), mode="forward")
    names = derivative.parameters[-len(args):]
    got = _flat(derivative(*args, seed, **dict(zip(names, directions))))
    expected = _vjp_difference(vjp, args, seed, directions)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * max(1.0, np.max(np.abs(expected), initial=0)))


def _reverse_over_vjp(case):
    args, seed, vjp, directions, rng = _row_setup(case)
    gradients = vjp(*args, seed)
    gradients = gradients if len(args) > 1 else (gradients,)
    cotangents = [float(u) if isinstance(g, float) else u for g, u in zip(gradients, (like(g, rng) for g in gradients))]
    derivative = srcad.autodiff(vjp, wrt=tuple(range(len(args))), mode="reverse")
    got = derivative(*args, seed, **{derivative.parameters[-1]: tuple(cotangents) if len(args) > 1 else cotangents[0]})
    got = got if len(args) > 1 else (got,)
    projected = sum(inner(g, d) for g, d in zip(got, directions))
    expected = inner(_vjp_difference(vjp, args, seed, directions), _flat(cotangents))
    np.testing.assert_allclose(projected, expected, rtol=1e-5, atol=1e-5 * max(1.0, abs(expected)))


@pytest.mark.parametrize("case", ROW_CASES, ids=[case.id for case in ROW_CASES])
def test_every_row_forward_over_reverse(case):
    if _known_gap(case, ONCE_ONLY):
        with pytest.raises(srcad.SrcadError):   # a clear refusal, never a wrong number (an AssertionError)
            _forward_over_vjp(case)
    else:
        _forward_over_vjp(case)


@pytest.mark.parametrize("case", ROW_CASES, ids=[case.id for case in ROW_CASES])
def test_every_row_reverse_over_reverse(case):
    if _known_gap(case, {**ONCE_ONLY, **REVERSE_ONLY_GAPS}):
        with pytest.raises(srcad.SrcadError):
            _reverse_over_vjp(case)
    else:
        _reverse_over_vjp(case)


# Subscripts of a NumPy scalar ------------------------------------------------------

def scalar_subscripts(x):
    return np.sum(np.sin(x[..., None]) * x[()]) + np.sum(x[None, ..., None] ** 3)


@pytest.mark.parametrize("x", [np.float64(0.3), np.float64(-1.2), np.array(0.7)], ids=["float64", "negative", "0-d"])
def test_getitem_of_a_numpy_scalar_in_both_modes_and_twice(x):
    # the adjoint of x[..., None] is a store into dx: an np.float64 x gets a 0-d adjoint that can be stored into
    # (the finite differences step x as an np.float64: a Python float has no x[..., None])
    by_values = (scalar_subscripts(x + H) - scalar_subscripts(x - H)) / (2 * H)
    gradient = srcad.grad(scalar_subscripts)
    np.testing.assert_allclose(gradient(x), by_values, rtol=1e-7)
    u, one = 0.7, x * 0.0 + 1.0   # a seed, and a tangent of x's kind
    vjp, jvp = srcad.autodiff(scalar_subscripts), srcad.autodiff(scalar_subscripts, mode="forward")
    np.testing.assert_allclose(jvp(x, one), by_values, rtol=1e-7)
    np.testing.assert_allclose(u * jvp(x, one), vjp(x, u) * one, rtol=1e-12)   # <u, Jv> = <J^T u, v>
    by_gradients = (gradient(x + H) - gradient(x - H)) / (2 * H)
    np.testing.assert_allclose(srcad.grad(gradient)(x), by_gradients, rtol=1e-6)
    np.testing.assert_allclose(srcad.hvp(scalar_subscripts, x, one), by_gradients, rtol=1e-6)


def test_example_runs(capsys):
    runpy.run_path(EXAMPLE, run_name="__main__")
    printed = capsys.readouterr().out
    assert "4th derivative" in printed and "agrees with finite differences" in printed
