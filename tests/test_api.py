"""Tests of the transformations built on the generated derivatives: value_and_grad, vjp, jvp
with has_aux, and jacobian in every mode.

Contract: each result is checked against central finite differences in float64 (or against
the function itself for values); the aux value passes through unchanged; bad uses raise a
``srcad.SrcadError`` with a readable message.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)

RNG = np.random.default_rng(7)
EPS = 1e-6


def loss(x, w):
    h = np.tanh(x * w)
    return np.sum(h * h) + np.sum(w)


def loss_with_aux(x, w):
    h = np.tanh(x * w)
    return np.sum(h * h), h.max()


def vector_field(x, w):
    return np.sin(x) * w + x[::-1]


def vector_field_with_aux(x, w):
    y = np.sin(x) * w
    return y, np.sum(y)


def fd_gradient(f, args, index):
    x = np.array(args[index], dtype=float)
    grad = np.zeros_like(x)
    for position in np.ndindex(x.shape):
        shifted = [np.array(a, dtype=float) for a in args]
        shifted[index][position] += EPS
        up = f(*shifted)
        shifted[index][position] -= 2 * EPS
        down = f(*shifted)
        grad[position] = (up - down) / (2 * EPS)
    return grad


def fd_jacobian(f, args, index):
    x = np.array(args[index], dtype=float)
    out = np.asarray(f(*args))
    jac = np.zeros(out.shape + x.shape)
    for position in np.ndindex(x.shape):
        shifted = [np.array(a, dtype=float) for a in args]
        shifted[index][position] += EPS
        up = np.asarray(f(*shifted))
        shifted[index][position] -= 2 * EPS
        down = np.asarray(f(*shifted))
        jac[(Ellipsis,) + position] = (up - down) / (2 * EPS)
    return jac


ARGS = (RNG.normal(size=4), RNG.normal(size=4))


def test_value_and_grad_returns_the_value_and_each_gradient():
    value, (dx, dw) = srcad.value_and_grad(loss, wrt=(0, 1))(*ARGS)
    assert value == pytest.approx(loss(*ARGS), rel=1e-12)
    np.testing.assert_allclose(dx, fd_gradient(loss, ARGS, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dw, fd_gradient(loss, ARGS, 1), rtol=1e-6, atol=1e-8)


def test_value_and_grad_generated_code_returns_both_from_one_sweep():
    text = srcad.value_and_grad(loss, wrt="w").source
    calls = [line for line in text.splitlines() if "np.tanh(" in line and not line.strip().startswith("#")]
    assert len(calls) == 1, text   # the value is not computed a second time
    assert "return out, dw" in text, text


def test_grad_with_aux_returns_the_aux_value_unchanged():
    gradient, aux = srcad.grad(loss_with_aux, has_aux=True)(*ARGS)
    assert aux == loss_with_aux(*ARGS)[1]
    np.testing.assert_allclose(gradient, fd_gradient(lambda x, w: loss_with_aux(x, w)[0], ARGS, 0),
                               rtol=1e-6, atol=1e-8)


def test_value_and_grad_with_aux():
    (value, aux), gradient = srcad.value_and_grad(loss_with_aux, wrt=1, has_aux=True)(*ARGS)
    expected_value, expected_aux = loss_with_aux(*ARGS)
    assert value == pytest.approx(expected_value, rel=1e-12) and aux == expected_aux
    np.testing.assert_allclose(gradient, fd_gradient(lambda x, w: loss_with_aux(x, w)[0], ARGS, 1),
                               rtol=1e-6, atol=1e-8)


def test_vjp_pulls_a_seed_back_to_every_argument():
    out, pullback = srcad.vjp(vector_field, *ARGS)
    np.testing.assert_allclose(out, vector_field(*ARGS))
    seed = RNG.normal(size=4)
    pulled = pullback(seed)
    for index in range(2):
        expected = np.tensordot(seed, fd_jacobian(vector_field, ARGS, index), axes=1)
        np.testing.assert_allclose(pulled[index], expected, rtol=1e-6, atol=1e-8)


def test_vjp_with_aux():
    out, pullback, aux = srcad.vjp(vector_field_with_aux, *ARGS, has_aux=True)
    expected_out, expected_aux = vector_field_with_aux(*ARGS)
    np.testing.assert_allclose(out, expected_out)
    assert aux == expected_aux
    seed = RNG.normal(size=4)
    jac = fd_jacobian(lambda x, w: vector_field_with_aux(x, w)[0], ARGS, 0)
    np.testing.assert_allclose(pullback(seed)[0], seed @ jac, rtol=1e-6, atol=1e-8)


def test_jvp_with_aux_orders_output_tangent_aux():
    tangents = (RNG.normal(size=4), np.zeros(4))
    out, tangent, aux = srcad.jvp(vector_field_with_aux, ARGS, tangents, has_aux=True)
    expected_out, expected_aux = vector_field_with_aux(*ARGS)
    np.testing.assert_allclose(out, expected_out)
    assert aux == expected_aux
    jac = fd_jacobian(lambda x, w: vector_field_with_aux(x, w)[0], ARGS, 0)
    np.testing.assert_allclose(tangent, jac @ tangents[0], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["auto", "forward", "reverse"])
def test_jacobian_in_every_mode_matches_finite_differences(mode):
    jac_x, jac_w = srcad.jacobian(vector_field, wrt=(0, 1), mode=mode)(*ARGS)
    np.testing.assert_allclose(jac_x, fd_jacobian(vector_field, ARGS, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jac_w, fd_jacobian(vector_field, ARGS, 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_shapes_follow_output_then_argument(mode):
    matrix = RNG.normal(size=(2, 3))

    jac = srcad.jacobian(loss, wrt=0, mode=mode)(*ARGS)          # scalar output
    assert jac.shape == (4,)
    np.testing.assert_allclose(jac, fd_gradient(loss, ARGS, 0), rtol=1e-6, atol=1e-8)
    jac = srcad.jacobian(matrix_map, wrt=0, mode=mode)(matrix)   # matrix in, matrix out
    assert jac.shape == (3, 2, 2, 3)
    np.testing.assert_allclose(jac, fd_jacobian(matrix_map, (matrix,), 0), rtol=1e-6, atol=1e-8)


def matrix_map(a):
    return np.tanh(a.T * 2.0)


def test_has_aux_needs_a_pair():
    with pytest.raises(srcad.SrcadError, match="has_aux=True needs f to return a pair"):
        srcad.grad(loss, has_aux=True)(*ARGS)


def test_jacobian_rejects_an_unknown_mode():
    with pytest.raises(srcad.SrcadError, match="not a jacobian mode"):
        srcad.jacobian(loss, mode="sideways")


# --------------------------------------------------------------------------
# higher order: the generated derivatives are themselves differentiable


def quartic_mix(x):
    return x ** 4 + np.sin(x) * np.exp(x) + np.log(x) * np.tanh(x)


def quartic_mix_derivatives(x):
    """The first four derivatives of quartic_mix, in closed form."""
    s, c, e, t, lg = np.sin(x), np.cos(x), np.exp(x), np.tanh(x), np.log(x)
    sech2 = 1.0 - t * t
    # derivatives of tanh: t' = sech2, t'' = -2 t sech2, t''' = (6 t^2 - 2) sech2 ... written via sech2
    t1, t2, t3, t4 = sech2, -2 * t * sech2, -2 * sech2 * (sech2 - 2 * t * t), 8 * t * sech2 * (2 * sech2 - t * t)
    l1, l2, l3, l4 = 1 / x, -1 / x ** 2, 2 / x ** 3, -6 / x ** 4
    def product(k, a, b):   # Leibniz rule for (a b)^(k) from lists of derivatives 0..k
        from math import comb
        return sum(comb(k, j) * a[j] * b[k - j] for j in range(k + 1))
    sines = [s, c, -s, -c, s]
    exps = [e] * 5
    logs = [lg, l1, l2, l3, l4]
    tanhs = [t, t1, t2, t3, t4]
    powers = [x ** 4, 4 * x ** 3, 12 * x ** 2, 24 * x, 24.0]
    return [powers[k] + product(k, sines, exps) + product(k, logs, tanhs) for k in range(1, 5)]


@pytest.mark.parametrize("x", [0.4, 1.3])
def test_fourth_order_derivatives_match_closed_forms(x):
    derivative = quartic_mix
    for order, expected in enumerate(quartic_mix_derivatives(x), start=1):
        derivative = srcad.grad(derivative)
        assert derivative(x) == pytest.approx(expected, rel=1e-9), f"order {order}"


def polynomial(x):
    return 3.0 * x ** 5 - 2.0 * x ** 3 + x


def test_grad_of_forward_mode_code():
    forward = srcad.autodiff(polynomial, mode="forward")      # f'(x) * t
    second = srcad.grad(forward, wrt=0)                       # d/dx (f'(x) t) = f''(x) t
    x, t = 0.7, 1.0
    assert second(x, t) == pytest.approx(60.0 * x ** 3 - 12.0 * x, rel=1e-12)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x):
    n = x.shape[0]
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i + 1, i + 1] += 200.0
        h[i, i + 1] -= 400.0 * x[i]
        h[i + 1, i] -= 400.0 * x[i]
    return h


def test_hessian_of_50_dimensional_rosenbrock_is_the_analytic_one():
    x = RNG.normal(size=50)
    np.testing.assert_allclose(srcad.hessian(rosenbrock)(x), rosenbrock_hessian(x), rtol=1e-10, atol=1e-8)


def test_hvp_is_the_hessian_times_a_vector():
    x, v = RNG.normal(size=6), RNG.normal(size=6)
    np.testing.assert_allclose(srcad.hvp(rosenbrock, x, v), rosenbrock_hessian(x) @ v, rtol=1e-10, atol=1e-8)


def stopped_product(x):
    return np.sum(x * srcad.stop_gradient(np.sin(x)))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_stop_gradient_cuts_the_derivative(mode):
    x = RNG.normal(size=3)
    if mode == "reverse":
        got = srcad.grad(stopped_product)(x)
    else:
        got = np.array([srcad.autodiff(stopped_product, mode="forward")(x, e) for e in np.eye(3)])
    np.testing.assert_allclose(got, np.sin(x), rtol=1e-12)   # d/dx x * c = c, with c = sin(x) held fixed
    assert stopped_product(x) == pytest.approx(np.sum(x * np.sin(x)))


def _make_scaled():
    num = 3.0

    def scaled_by_enclosing(x, y, num=num):   # the default names a variable of the enclosing scope
        return np.sum(x * y) * num
    return scaled_by_enclosing


SCALED_BY_ENCLOSING = _make_scaled()


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_default_naming_an_enclosing_variable_loads_and_is_the_functions_value(mode):
    """The generated def writes such a default as ``...``; the derivative takes f's own value ([trust] item 3)."""
    x, y = np.array([1.0, -2.0]), np.array([0.5, 4.0])
    if mode == "reverse":
        np.testing.assert_allclose(srcad.grad(SCALED_BY_ENCLOSING, wrt=(0, 1))(x, y), (3.0 * y, 3.0 * x))
        assert "num=..." in srcad.source(SCALED_BY_ENCLOSING)
    else:
        tangent = srcad.autodiff(SCALED_BY_ENCLOSING, mode="forward")(x, y, dx=np.ones(2))
        np.testing.assert_allclose(tangent, 3.0 * np.sum(y))
    SCALED_BY_ENCLOSING.__defaults__ = (5.0,)   # replaced after the first call: followed
    try:
        np.testing.assert_allclose(srcad.grad(SCALED_BY_ENCLOSING)(x, y), 5.0 * y)
    finally:
        SCALED_BY_ENCLOSING.__defaults__ = (3.0,)
