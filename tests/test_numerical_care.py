"""Numerical care in the built-in rules: stability for large inputs, the documented choices at kinks,
and functions that carry no derivative.

Contract checked here:
- ``expit``, ``log_expit``, ``softmax``, ``log_softmax``, ``logsumexp`` (and
  ``np.logaddexp``) give finite, correct derivatives in both modes for
  inputs of +-1e3, without floating-point overflow.
- Kinks (documented in the family modules' docstrings): ``abs`` has
  derivative 0 at 0; ``maximum``/``minimum`` and the builtins ``max``/``min``
  split the gradient 0.5/0.5 at ties; ``max``/``min`` reductions and
  ``norm(ord=inf)`` split it equally among tied extremes; ``clip`` passes it
  to ``a`` at the bounds; ``prod`` is exact at zeros; ``nansum``/``nanmean``
  give NaN entries 0; ``sinc`` has derivative 0 at 0.  Forward mode agrees.
- Non-differentiable functions (shape queries, index-valued functions,
  rounding, comparisons, constant constructors, ``np.random``) run as written
  and produce no derivative code.
"""
import math

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)

special = pytest.importorskip("scipy.special")

BIG = np.array([1e3, -1e3, 0.0, 2.0])


def _modes(f, x, seed):
    """(reverse-mode gradient for ``seed``, forward-mode tangent of the basis directions), overflow = error."""
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        gradient = srcad.autodiff(f, mode="reverse")(x, seed)
        jvp = srcad.autodiff(f, mode="forward")
        columns = [jvp(x, np.eye(np.size(x))[i].reshape(np.shape(x))) for i in range(np.size(x))]
    return gradient, columns


# stability --------------------------------------------------------------------

def expit_sum(x):
    return np.sum(special.expit(x))


def log_expit_sum(x):
    return np.sum(special.log_expit(x))


def softmax_first(x):
    return special.softmax(x)[0]


def log_softmax_sum(x):
    return np.sum(special.log_softmax(x) * np.array([1.0, 2.0, 3.0, 4.0]))


def logsumexp_of(x):
    return special.logsumexp(x)


def logaddexp_sum(x):
    return np.sum(np.logaddexp(x, -x))


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


@pytest.mark.parametrize("f, expected", [
    (expit_sum, special.expit(BIG) * special.expit(-BIG)),
    (log_expit_sum, special.expit(-BIG)),
    (softmax_first, _softmax(BIG)[0] * ((np.arange(4) == 0) - _softmax(BIG))),
    (log_softmax_sum, np.array([1.0, 2.0, 3.0, 4.0]) - 10.0 * _softmax(BIG)),
    (logsumexp_of, _softmax(BIG)),
    (logaddexp_sum, np.tanh(BIG)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_stable_for_large_inputs(f, expected):
    gradient, columns = _modes(f, BIG, 1.0)
    np.testing.assert_allclose(gradient, expected, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(columns, expected, rtol=1e-12, atol=1e-300)


def softmax_rows(x):
    return special.softmax(x, axis=1)


def test_softmax_rows_of_large_inputs_check_against_finite_differences():
    x = np.array([[1e3, 999.5, -1e3], [-1e3, -999.0, -1000.5]])
    with np.errstate(over="raise"):
        srcad.check_grads(softmax_rows, (x,))


# kinks ------------------------------------------------------------------------

def np_abs(x):
    return np.abs(x)


def builtin_abs(x):
    return abs(x)


def math_fabs(x):
    return math.fabs(x)


@pytest.mark.parametrize("f, x", [(np_abs, np.zeros(2)), (builtin_abs, 0.0), (math_fabs, 0.0)],
                         ids=["np.abs", "abs", "math.fabs"])
def test_abs_has_derivative_zero_at_zero(f, x):
    assert np.all(srcad.autodiff(f)(x, np.ones_like(x) if np.ndim(x) else 1.0) == 0.0)
    assert np.all(srcad.autodiff(f, mode="forward")(x, np.ones_like(x) if np.ndim(x) else 1.0) == 0.0)


def maximum_of(x, y):
    return np.maximum(x, y)


def minimum_of(x, y):
    return np.minimum(x, y)


def builtin_max(x, y):
    return max(x, y)


def builtin_min_list(x, y):
    return min([x, y, x])


@pytest.mark.parametrize("f", [maximum_of, minimum_of, builtin_max], ids=lambda f: f.__name__)
def test_binary_extremes_split_ties_in_half(f):
    x = y = np.array(1.5) if f is not builtin_max else 1.5
    assert srcad.grad(f, wrt=(0, 1))(x, y) == (0.5, 0.5)
    forward = srcad.autodiff(f, wrt=(0, 1), mode="forward")
    assert forward(x, y, 1.0, 0.0) == 0.5 and forward(x, y, 0.0, 1.0) == 0.5


def test_builtin_min_of_a_list_splits_among_tied_items():
    dx, dy = srcad.grad(builtin_min_list, wrt=(0, 1))(2.0, 2.0)   # three tied items, x twice
    assert (dx, dy) == pytest.approx((2 / 3, 1 / 3))


def fmax_sum(x, y):
    return np.sum(np.fmax(x, y))


def test_fmax_ignores_nan():
    x, y = np.array([np.nan, 1.0, 2.0]), np.array([3.0, np.nan, 2.0])
    dx, dy = srcad.grad(fmax_sum, wrt=(0, 1))(x, y)
    np.testing.assert_array_equal(dx, [0.0, 1.0, 0.5])
    np.testing.assert_array_equal(dy, [1.0, 0.0, 0.5])


def max_reduction(x):
    return np.max(x)


def max_over_rows(x):
    return np.max(x, axis=1)


def test_max_reductions_split_among_tied_maxima():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(srcad.grad(max_reduction)(x), [0.0, 0.5, 0.5, 0.0])
    assert srcad.autodiff(max_reduction, mode="forward")(x, np.array([0.0, 1.0, 3.0, 9.0])) == 2.0
    rows = np.array([[1.0, 1.0, 1.0], [0.0, 5.0, 4.0]])
    np.testing.assert_allclose(srcad.autodiff(max_over_rows)(rows, np.ones(2)),
                               [[1 / 3, 1 / 3, 1 / 3], [0.0, 1.0, 0.0]])


def inf_norm(x):
    return np.linalg.norm(x, np.inf)


def test_inf_norm_splits_among_tied_entries():
    np.testing.assert_array_equal(srcad.grad(inf_norm)(np.array([-2.0, 1.0, 2.0])), [-0.5, 0.0, 0.5])


def clipped(x):
    return np.sum(np.clip(x, 0.0, 1.0))


def test_clip_passes_the_gradient_to_a_at_the_bounds():
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_array_equal(srcad.grad(clipped)(x), [0.0, 1.0, 1.0, 1.0, 0.0])
    assert srcad.autodiff(clipped, mode="forward")(x, np.ones(5)) == 3.0


def product(x):
    return np.prod(x)


def running_product(x):
    return np.cumprod(x)


def test_prod_and_cumprod_are_exact_at_zeros():
    np.testing.assert_array_equal(srcad.grad(product)(np.array([2.0, 0.0, 5.0])), [0.0, 10.0, 0.0])
    np.testing.assert_array_equal(srcad.grad(product)(np.array([0.0, 3.0, 0.0])), [0.0, 0.0, 0.0])
    srcad.check_grads(product, (np.array([2.0, 0.0, 5.0]),))
    srcad.check_grads(running_product, (np.array([2.0, 0.0, 5.0, 0.0, 3.0]),))


def nan_sum(x):
    return np.nansum(x)


def nan_mean(x):
    return np.nanmean(x)


def test_nan_reductions_give_nan_entries_zero():
    x = np.array([1.0, np.nan, 3.0])
    np.testing.assert_array_equal(srcad.grad(nan_sum)(x), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(srcad.grad(nan_mean)(x), [0.5, 0.0, 0.5])
    assert srcad.autodiff(nan_mean, mode="forward")(x, np.array([2.0, 7.0, 4.0])) == 3.0


def sinc_sum(x):
    return np.sum(np.sinc(x))


def test_sinc_has_derivative_zero_at_zero():
    np.testing.assert_array_equal(srcad.grad(sinc_sum)(np.zeros(2)), [0.0, 0.0])


def svd_u(x):
    return np.linalg.svd(x)[0]


def svd_s(x):
    return np.sum(np.linalg.svd(x)[1])


def test_svd_full_matrices_of_a_non_square_matrix():
    x = np.arange(6.0).reshape(3, 2) + np.eye(3, 2)
    srcad.check_grads(svd_s, (x,))                 # the singular values are fine
    with pytest.raises(ValueError, match="full_matrices=False"):
        srcad.autodiff(svd_u)(x, np.ones((3, 3)))
    tangent = srcad.autodiff(svd_u, mode="forward")(x, np.ones((3, 2)))
    assert np.all(np.isnan(tangent[:, 2])) and np.all(np.isfinite(tangent[:, :2]))


# functions without a derivative -----------------------------------------------

def uses_constants(x):
    n = len(x)
    k = np.argmax(x)
    order = np.argsort(x)
    np.random.seed(0)
    noise = np.random.normal(0.0, 1.0, 3)
    rough = np.floor(x) + np.ceil(x) + np.round(x) + np.sign(x)
    mask = x > 0.5
    base = np.zeros(3) + np.ones(3) + np.arange(3) + np.eye(3)[0] + np.size(np.empty(3))
    scale = np.shape(x)[0] + np.ndim(x)
    return np.sum(x * (rough + noise + base + mask)) * scale + x[k] * n + x[order[0]]


def test_non_differentiable_functions_pass_through_without_derivative_code():
    x = np.array([0.3, 1.7, -0.4])
    srcad.check_grads(uses_constants, (x,))
    for mode in ("reverse", "forward"):
        text = srcad.source(uses_constants, mode=mode)
        derivative_lines = [line for line in text.splitlines() if line.strip().startswith("d")]
        for name in ("argmax", "argsort", "floor", "ceil", "round", "sign", "random", "np.zeros", "np.ones",
                     "arange", "eye", "empty", "len(", "shape", "ndim"):
            assert not any(name in line for line in derivative_lines), (mode, name, derivative_lines)
