"""Derivatives of Dask arrays stay Dask arrays, lazily, and compute on a cluster to the NumPy derivative.

Contract:
- Each objective (an MLP loss, logistic regression, the GMM objective, a
  least-squares fit) is differentiated in reverse and forward mode with Dask
  arguments (and Dask tangents).  Building the derivative computes nothing
  (the Dask scheduler is replaced by a trap while it runs), every result is a
  ``dask.array.Array``, and ``client.compute`` on a ``LocalCluster`` gives the
  NumPy derivative of the same numbers, which ``tests/gradcheck.py`` checks
  against finite differences here as well.
- One cluster of threads serves the module; one test runs on a cluster of
  worker processes.

Example::

    python -m pytest -q -p no:cacheprovider tests/test_dask.py
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np
import pytest

import srcad

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from gradcheck import check_forward, check_forward_reverse, check_reverse  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from problems import mlp  # noqa: E402


def logistic_regression(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) / X.shape[0]


def least_squares(A, x, b):
    r = A @ x - b
    return 0.5 * np.sum(r * r)


D = 3
COLS, ROWS = np.triu_indices(D, 1)
# icf's strictly lower triangle (column-major, as ADBench) placed into a d x d matrix by a product: Dask cannot
# store into fancy-indexed positions of an array, which benchmarks/problems.py's gmm does with Ls[:, rows, cols]
PLACE_LOWER = np.zeros((len(ROWS), D * D))
PLACE_LOWER[np.arange(len(ROWS)), ROWS * D + COLS] = 1.0


def gmm(alphas, means, icf, x, wishart_gamma, wishart_m):
    """benchmarks/problems.py's GMM objective, new axes spelled ``[:, None]`` as there (the adjoint stores
    ``d[:] += v[:, 0]``, as Dask's item assignment takes no new axis), with a product for the triangle's
    placement."""
    n, d = x.shape
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    Ls = np.reshape(icf[:, d:] @ PLACE_LOWER, (k, d, d))
    xcentered = x[None, :, :] - means[:, None, :]
    Lxcentered = Qdiags[:, None, :] * xcentered + xcentered @ np.transpose(Ls, (0, 2, 1))
    sqsum_Lxcentered = np.sum(Lxcentered ** 2, axis=2)
    inner_term = (alphas + sum_qs)[:, None] - 0.5 * sqsum_Lxcentered
    top = np.max(inner_term, axis=0)
    slse = np.sum(np.log(np.sum(np.exp(inner_term - top), axis=0)) + top)
    top_alpha = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - top_alpha))) + top_alpha
    constant = -n * d * 0.5 * math.log(2.0 * math.pi)
    nw = d + wishart_m + 1
    frobenius = np.sum(Qdiags ** 2) + np.sum(icf[:, d:] ** 2)
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)
    log_gamma = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        log_gamma = log_gamma + math.lgamma(0.5 * nw - 0.5 * j)
    c = nw * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - log_gamma
    return constant + slse - n * lse_alphas + prior - k * c


def _mlp_inputs(rng):
    x = rng.uniform(0.0, 1.0, (40, 6))
    y = np.eye(3)[rng.integers(0, 3, 40)]
    return (rng.normal(0.0, 0.4, (6, 5)), rng.normal(0.0, 0.1, 5), rng.normal(0.0, 0.4, (5, 3)),
            rng.normal(0.0, 0.1, 3), x, y)


def _logistic_inputs(rng):
    X = rng.normal(size=(60, 4))
    return rng.normal(size=4), X, (rng.uniform(size=60) > 0.5).astype(float)


def _least_squares_inputs(rng):
    return rng.normal(size=(50, 4)), rng.normal(size=4), rng.normal(size=50)


def _gmm_inputs(rng):
    k, n = 2, 30
    return (rng.normal(size=k), rng.uniform(size=(k, D)), rng.uniform(-0.5, 0.5, (k, D + D * (D - 1) // 2)),
            rng.uniform(size=(n, D)), 1.0, 0)


# name: (objective, wrt positions, inputs, the positions whose arrays are chunked by rows)
PROBLEMS = {
    "mlp": (mlp, (0, 1, 2, 3), _mlp_inputs),
    "logistic_regression": (logistic_regression, (0,), _logistic_inputs),
    "least_squares": (least_squares, (0, 1), _least_squares_inputs),
    "gmm": (gmm, (0, 1, 2), _gmm_inputs),
}


def _chunked(value):
    """A Dask array of ``value``, in several chunks along its first axis (scalars stay Python numbers)."""
    if not isinstance(value, np.ndarray):
        return value
    rows = max(1, value.shape[0] // 3) if value.ndim else 1
    return da.from_array(value, chunks=(rows,) + value.shape[1:] if value.ndim else ())


def _no_computation(*args, **kwargs):
    raise AssertionError("a Dask graph was computed while the derivative was being built")


def _lazy(derivative, args):
    """``derivative(*args)``, with the Dask scheduler replaced by a trap: it must not compute anything."""
    with dask.config.set(scheduler=_no_computation):
        result = derivative(*args)
    results = result if isinstance(result, tuple) else (result,)
    for item in results:
        assert isinstance(item, da.Array), f"a derivative of Dask arrays is a {type(item).__name__}"
    return results


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as connected:
        yield connected


def test_the_trap_catches_a_computation(client):
    with dask.config.set(scheduler=_no_computation), pytest.raises(AssertionError, match="computed"):
        da.ones(3).sum().compute()


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_numpy_derivative_against_finite_differences(name):
    function, wrt, make = PROBLEMS[name]
    args = make(np.random.default_rng(0))
    check_reverse(function, args, wrt=wrt)
    check_forward(function, args, wrt=wrt)
    check_forward_reverse(function, args, wrt=wrt)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_lazy_and_equal_on_a_cluster(client, name, mode):
    function, wrt, make = PROBLEMS[name]
    rng = np.random.default_rng(1)
    args = make(rng)
    derivative = srcad.autodiff(function, wrt=wrt, mode=mode)
    extra = [rng.normal(size=np.shape(args[p])) for p in wrt] if mode == "forward" else []
    expected = derivative(*args, *extra)
    expected = expected if isinstance(expected, tuple) else (expected,)
    results = _lazy(derivative, [_chunked(a) for a in args] + [_chunked(t) for t in extra])
    computed = client.compute(list(results), sync=True)
    for got, want in zip(computed, expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_grad_on_worker_processes():
    function, wrt, make = PROBLEMS["logistic_regression"]
    args = make(np.random.default_rng(2))
    (expected,) = srcad.grad(function, wrt=wrt)(*args)
    (gradient,) = _lazy(srcad.grad(function, wrt=wrt), [_chunked(a) for a in args])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        np.testing.assert_allclose(client.compute(gradient, sync=True), expected, rtol=1e-10, atol=1e-12)


def test_value_and_grad_vjp_and_jvp_stay_lazy(client):
    args = _logistic_inputs(np.random.default_rng(3))
    lazy_args = [_chunked(a) for a in args]
    tangents = (np.ones(4), np.zeros((60, 4)), np.zeros(60))
    with dask.config.set(scheduler=_no_computation):
        value, gradient = srcad.value_and_grad(logistic_regression)(*lazy_args)
        _, vjp_fn = srcad.vjp(logistic_regression, *lazy_args)
        gradients = vjp_fn(1.0)
        _, tangent = srcad.jvp(logistic_regression, tuple(lazy_args), tuple(_chunked(t) for t in tangents))
    lazy = [value, gradient, *gradients, tangent]
    assert all(isinstance(item, da.Array) for item in lazy)
    expected_value, expected_gradient = srcad.value_and_grad(logistic_regression)(*args)
    expected = [expected_value, expected_gradient, *srcad.vjp(logistic_regression, *args)[1](1.0),
                srcad.jvp(logistic_regression, args, tangents)[1]]
    for got, want in zip(client.compute(lazy, sync=True), expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
