"""``srcad.jvp(srcad.grad(f), primals, tangents)``: a Hessian-vector product written as in JAX.

The forward-mode derivative of a gradient takes the gradient's ``dout=1.0``
(and f's defaults) before its tangents, which are keyword-only; ``jvp`` passed
the tangents by position and raised ``WrtError``.  Checked against central
differences of the gradient, with one and several ``wrt`` and f with a default.
"""
import numpy as np
import pytest

import srcad


def with_default(x, scale=2.0):
    return np.sum(np.sin(x) * scale * x)


def two_arguments(x, y):
    return np.sum(np.sin(x) * y ** 2) + np.sum(x * x * y)


def differences(gradient, args, tangents, h=1e-5):
    ahead = gradient(*[a + h * t for a, t in zip(args, tangents)])
    behind = gradient(*[a - h * t for a, t in zip(args, tangents)])
    if isinstance(ahead, tuple):
        return tuple((p - m) / (2 * h) for p, m in zip(ahead, behind))
    return (ahead - behind) / (2 * h)


@pytest.mark.parametrize("f, wrt", [(with_default, 0), (two_arguments, (0, 1)), (two_arguments, 1)])
def test_jvp_of_grad_is_the_hessian_times_the_tangent(f, wrt):
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=3), rng.normal(size=3)
    gradient = srcad.grad(f, wrt=wrt)
    args = (x,) if f is with_default else (x, y)
    tangents = tuple(rng.normal(size=3) for _ in args)
    value, product = srcad.jvp(gradient, args, tangents)
    expected = differences(gradient, args, tangents)
    for got, want in zip(product if isinstance(product, tuple) else (product,),
                         expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    for got, want in zip(value if isinstance(value, tuple) else (value,),
                         gradient(*args) if isinstance(value, tuple) else (gradient(*args),)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    if f is with_default:
        np.testing.assert_allclose(product, srcad.hvp(f, x, tangents[0]), rtol=1e-12)
