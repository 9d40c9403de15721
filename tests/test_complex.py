"""Complex numbers: gradients in autograd's convention, tangents as complex perturbations, both modes.

Contract: srcad pairs an adjoint ``g`` with a tangent ``t`` by
``Re(sum(g * t))`` (README, "Complex numbers"); so the gradient of a real
``f(x + iy)`` is ``df/dx - i df/dy`` (autograd's value), forward mode gives
the true directional derivative of the real map ``R^2n -> R^2m`` (holomorphic
or not), and ``Re <u, Jv> = Re <J^T u, v>`` with that pairing.  Every row of
``CASES`` is checked against central finite differences that perturb real and
imaginary parts, in both modes, and for the identity between the modes;
values of autograd's own complex tests are pinned where autograd states them.
Functions whose rules are not checked for complex numbers stay refused with
``ComplexError``.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_grad_full, check_reverse, make_function

RNG = np.random.default_rng(7)
Z = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
W = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
M = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
X = RNG.standard_normal(3)
C = 0.5 - 1.5j

# (function body using z, w, x (real), m (2x3 complex); the arguments' names; their values)
BASIC_CASES = [
    ("np.sum(np.abs(z))", "z", (Z,)),
    ("np.sum(np.abs(z) ** 2)", "z", (Z,)),
    ("np.real(np.sum(z * w))", "z, w", (Z, W)),
    ("np.sum(z * w)", "z, w", (Z, W)),
    ("np.imag(np.sum(np.exp(z) / (w + 3.0)))", "z, w", (Z, W)),
    ("np.sum(np.angle(z) + np.real(np.conj(z) * w))", "z, w", (Z, W)),
    ("np.sum(np.conjugate(z) * z)", "z", (Z,)),
    ("np.sin(z) * np.cos(w) + np.tanh(z) - np.log(w) + np.sqrt(z)", "z, w", (Z, W)),
    ("z ** 2 - 1.0 / z + np.square(w) * np.reciprocal(w)", "z, w", (Z, W)),
    ("np.abs(np.exp(1j * x) * x)", "x", (X,)),
    ("np.real(np.exp(1j * x)) + np.imag(x * 2.0j + x ** 2)", "x", (X,)),
    ("np.abs(z * x + 1j)", "z, x", (Z, X)),
    ("np.prod(z) + np.mean(w * z)", "z, w", (Z, W)),
    ("np.dot(z, w) + np.einsum('i,i->', z, x)", "z, w, x", (Z, W, X)),
    ("np.matmul(m, z) + m @ w", "m, z, w", (M, Z, W)),
    ("np.concatenate([np.reshape(m, (3, 2))[0], z[1:]]) * np.stack([z, w]).sum(axis=0)[0]", "m, z, w", (M, Z, W)),
    ("np.transpose(m)[:, 1] * z[::-1]", "m, z", (M, Z)),
    ("np.sum(np.abs(z * C) + np.real_if_close(z))", "z", (Z,)),
    ("np.abs(np.sum(z)) * x", "z, x", (Z, X)),
    ("z ** w + z ** x + np.abs(x) ** z + 2.0 ** w + np.power(w, 2.5)", "z, w, x", (Z, W, X)),
    ("np.ravel(np.expand_dims(z, 0)) * np.squeeze(np.reshape(w, (1, 3)))", "z, w", (Z, W)),
    ("np.negative(np.add(z, w)) + np.positive(np.subtract(z, x)) * np.divide(w, z) - np.true_divide(z, 2.0)",
     "z, w, x", (Z, W, X)),
    ("np.real(np.sum(x * (1 + 2j)))", "x", (X,)),
    ("np.abs(x * C) + np.angle(C * x)", "x", (X,)),
    ("np.sum(np.abs(z))", "z", (1 + 2j,)),
    ("np.sum(np.abs(np.exp(1j * np.arange(3.0))) * x)", "x", (X,)),
    # the attribute and method forms: z.real, z.imag, z.conj(), z.conjugate()
    ("np.sum(z.real * z.imag) + (z * w).imag", "z, w", (Z, W)),
    ("np.abs(z.conj() * w) + (z.conjugate() * z).real + x.real * x.conj()", "z, w, x", (Z, W, X)),
    ("(m @ z).conj().imag ** 2 + m.T.real[0]", "m, z", (M, Z)),
]
# linear or holomorphic functions whose real rules hold for complex numbers
LINEAR_CASES = [
    ("np.cumsum(z) * w + np.cumprod(w)", "z, w", (Z, W)),
    ("np.where(x > 0, z, w * 2.0) + np.flip(z) + np.roll(w, 1)", "z, w, x", (Z, W, X)),
    ("np.tile(z, 2)[1:4] * np.repeat(w, 2)[::2] + np.repeat(m, 2, axis=1)[1, ::2]", "z, w, m", (Z, W, M)),
    ("np.trace(m @ m.T) + np.diagonal(m)[0] + np.swapaxes(m, 0, 1)[:, 0] + np.moveaxis(m, 0, 1)[:, 1]", "m",
     (M,)),
    ("np.hstack([z, w])[1:4] * np.vstack([z, w])[1] + np.outer(z, w)[1] + np.diff(z, append=0.0)", "z, w",
     (Z, W)),
    ("sum([z, w, z * w]) + x.astype(complex) * z", "z, w, x", (Z, W, X)),
    ("np.linalg.det(np.outer(z, w) + np.eye(3)) + np.linalg.solve(np.outer(z, w) + 3 * np.eye(3), z)"
     " + np.linalg.inv(np.outer(w, z) + 3 * np.eye(3))[0]", "z, w", (Z, W)),
]

CASES = BASIC_CASES + LINEAR_CASES


def _function(body, names):
    return make_function(f"def f({names}):\n    return {body}\n", {"np": np, "C": C})


@pytest.mark.parametrize("body, names, args", CASES, ids=[case[0] for case in CASES])
def test_complex_both_modes_against_finite_differences(body, names, args):
    f = _function(body, names)
    check_reverse(f, args)
    check_forward(f, args)
    check_forward_reverse(f, args)


@pytest.mark.parametrize("body, names, args", [case for case in CASES if case[1].count(",") >= 1],
                         ids=[case[0] for case in CASES if case[1].count(",") >= 1])
def test_each_argument_alone_with_the_others_complex_constants(body, names, args):
    # a complex argument left out of wrt is still complex: the derivative must use the complex rules
    f = _function(f"np.real(np.sum({body}))", names)
    for position in range(len(args)):
        check_grad_full(f, args, wrt=position)
        check_forward(f, args, wrt=position)


def test_check_grads_moves_real_and_imaginary_parts_to_second_order():
    f = _function("np.sum(np.abs(np.fft.fft(z) * x) ** 2 + np.angle(z))", "z, x")
    srcad.check_grads(f, (Z, X), order=2)
    srcad.check_grads(_function("np.abs(z) ** 3", "z"), (1 + 2j,), order=2)


@pytest.mark.parametrize("body, names, args", LINEAR_CASES, ids=[case[0] for case in LINEAR_CASES])
def test_linear_and_holomorphic_rules_to_second_order(body, names, args):
    srcad.check_grads(_function(f"np.sum(np.abs({body}) ** 2)", names), args, order=2)


def test_complex_arrays_inside_a_tuple_argument():
    # the same function with the arrays as separate arguments is checked against finite differences
    packed = _function("np.sum(np.abs(zs[0] * zs[1]) + np.real(zs[1]) * x)", "zs, x")
    separate = _function("np.sum(np.abs(z * w) + np.real(w) * x)", "z, w, x")
    check_reverse(separate, (Z, W, X))
    (grad_z, grad_w), grad_x = srcad.grad(packed, wrt=("zs", "x"))((Z, W), X)
    expected = srcad.grad(separate, wrt=("z", "w", "x"))(Z, W, X)
    for got, want in zip((grad_z, grad_w, grad_x), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_autograds_value_of_the_gradient_of_abs():
    def f(z):
        return np.sum(np.abs(z))
    assert srcad.grad(f)(1 + 2j) == pytest.approx((1 - 2j) / np.sqrt(5))
    np.testing.assert_allclose(srcad.grad(f)(np.array([1 + 2j])), [0.4472136 - 0.89442719j])


@pytest.mark.parametrize("body", ["np.sum(np.real(x))", "np.sum(np.real_if_close(x))"])
def test_the_gradient_has_its_arguments_kind(body):
    # autograd's test_real_type / test_real_if_close_type
    df = srcad.grad(_function(body, "x"))
    assert np.isrealobj(df(2.0)) and df(2.0) == 1.0
    assert np.iscomplexobj(df(1.0j)) and df(1.0j) == 1.0


@pytest.mark.parametrize("body", ["np.angle(x)", "np.abs(x)"])
@pytest.mark.parametrize("x", [0.7, 1.1 + 1.2j, -0.4 + 0.9j])
def test_angle_and_abs_and_their_gradients_real_and_complex(body, x):
    # autograd's test_angle_real/complex and test_abs_real/complex: the function and its gradient, checked
    srcad.check_grads(_function(body, "x"), (x,), order=2)


def test_gradient_is_df_dx_minus_i_df_dy():
    def f(z):
        return np.real(z) ** 2 * 3.0 + np.imag(z) * 5.0
    z = 1.5 - 0.5j
    assert srcad.grad(f)(z) == pytest.approx(2 * 3.0 * 1.5 - 5.0j)


def test_holomorphic_gradient_of_a_complex_output_is_its_derivative():
    # the gradient of Re f, which for a holomorphic f is f'(z): autograd's holomorphic_grad (its grad refuses
    # a complex result)
    def f(z):
        return np.sin(z) * z
    z = 0.3 + 0.4j
    assert srcad.grad(f)(z) == pytest.approx(np.cos(z) * z + np.sin(z))


def test_real_argument_gets_a_real_gradient():
    def f(z, x):
        return np.sum(np.abs(z * x + 1j))
    gradient = srcad.grad(f, wrt=("z", "x"))(Z, X)
    assert gradient[0].dtype == np.complex128 and gradient[1].dtype == np.float64


def test_an_object_with_a_complex_field_is_refused():
    from types import SimpleNamespace
    f = make_function("def f(p):\n    return np.sum(np.abs(p.z * p.x))\n", {"np": np})
    with pytest.raises(srcad.ComplexError, match="field `z` is complex"):
        srcad.grad(f)(SimpleNamespace(z=Z, x=X))


def test_an_unchecked_rule_on_complex_numbers_is_refused():
    # np.clip has a rule for real numbers only; np.maximum orders complex numbers with a jump
    # (tests/test_complex_linalg.py checks its message and the fix it names)
    f = make_function("def f(z):\n    return np.sum(np.maximum(z, 0.0).real)\n", {"np": np})
    g = make_function("def f(z):\n    return np.abs(np.tan(np.clip(z, -1.0, 1.0))[0])\n", {"np": np})
    with pytest.raises(srcad.ComplexError, match="np.clip"):
        srcad.grad(g)(Z)
    with pytest.raises(srcad.ComplexError, match="np.maximum"):
        srcad.grad(f)(Z)
