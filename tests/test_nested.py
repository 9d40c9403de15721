"""Nested differentiation: f takes a derivative itself (``srcad.grad(g)(y)``, ``jvp``, ``hvp``, ``hessian``),
and f is differentiated, with no perturbation confusion.

Contract:
- ``test_the_classic_perturbation_confusion_test``: d/dx [x * d/dy (x + y)] is 1 at every x (the answer
  that confuses the inner and the outer perturbation is 2), in both modes and at the second order.
- ``CASES``: f calling ``srcad.grad``, ``srcad.value_and_grad``, ``srcad.autodiff``, ``srcad.jvp``,
  ``srcad.hvp`` and ``srcad.hessian`` of a function defined inside f that reads f's variable (a nested
  ``def`` or a lambda bound to a name), of a module-level function, and through a name bound to
  ``srcad.grad(g)``.  f's derivative matches central differences of f itself (f runs srcad while it
  runs) in both modes, and ``CONFUSED`` lists, for the closure cases, the answer a confused derivative
  gives, which differs.
- What cannot be rewritten (a ``wrt`` computed at run time, ``has_aux``, a local function calling another
  one) raises ``UnsupportedSyntaxError`` at the user's line with a fix.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)


def classic(x):
    def g(y):
        return x + y
    return x * srcad.grad(g)(x)


def test_the_classic_perturbation_confusion_test():
    for x in (-1.5, 0.0, 0.7, 3.0):
        assert srcad.grad(classic)(x) == 1.0
        assert srcad.autodiff(classic, mode="forward")(x, 1.0) == 1.0
        assert srcad.grad(srcad.grad(classic))(x) == 0.0


def closure_square(x):
    def g(y):
        return x * y * y
    return srcad.grad(g)(x)          # 2 x x: its derivative is 4 x (confused: 6 x)


def closure_lambda(x):
    g = lambda y: np.sin(x * y)      # noqa: E731 (a lambda bound to a name, as users write it)
    return srcad.grad(g)(x) * x


def with_value_and_grad(x):
    def g(y):
        return np.sum(np.tanh(x * y))
    value, slope = srcad.value_and_grad(g)(x)
    return value * np.sum(slope)


def with_autodiff(x):
    def g(y):
        return np.sin(x * y)
    return np.sum(srcad.autodiff(g, mode="forward")(x, np.ones_like(x)) * x)


def with_jvp(x):
    def g(y):
        return np.sin(x * y)
    out, tangent = srcad.jvp(g, (x,), (1.0,))
    return out * tangent


def with_hvp(x):
    def g(y):
        return np.sum(np.tanh(y * x))
    return np.sum(srcad.hvp(g, x, np.ones_like(x)) * x)


def with_hessian(x):
    def g(y):
        return np.sum(np.sin(y) * x) * np.sum(y * y)
    return np.sum(srcad.hessian(g)(x) ** 2)


def inner_global(y):
    return np.sum(np.tanh(y) * y)


def module_function(x):
    return np.sum(srcad.grad(inner_global)(x) ** 2)


def named_derivative(x):
    def g(y):
        return np.cos(x * y)
    dg = srcad.grad(g)
    return dg(x) * dg(2.0 * x)


def loop_around(x):
    def g(y):
        total = 0.0
        for k in range(3):
            total = total + np.sin(y * x * (k + 1.0))
        return total
    result = 0.0
    for k in range(2):
        result = result + srcad.grad(g)(x * (k + 1.0))
    return result


POINT = np.array([0.3, -0.4, 0.2])
CASES = [(closure_square, 0.7), (closure_lambda, 0.7), (with_value_and_grad, 0.6), (with_autodiff, 0.6),
         (with_jvp, 0.6), (with_hvp, POINT[:2]), (with_hessian, POINT), (module_function, POINT[:2]),
         (named_derivative, 0.7), (loop_around, 0.45)]
CONFUSED = {"closure_square": lambda x: 6.0 * x}   # d/dx of 2 x x counting the inner perturbation again


def _differences(f, x, h=1e-6):
    if np.ndim(x) == 0:
        return (f(x + h) - f(x - h)) / (2 * h)
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)])


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_function_taking_a_derivative_is_differentiated(f, x):
    expected = _differences(f, x)
    gradient = srcad.grad(f)(x)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)
    direction = np.ones_like(x) if np.ndim(x) else 1.0
    np.testing.assert_allclose(srcad.autodiff(f, mode="forward")(x, direction), np.sum(expected * direction),
                               rtol=1e-6, atol=1e-8)
    if f.__name__ in CONFUSED:
        assert abs(CONFUSED[f.__name__](x) - gradient) > 0.1


def test_second_order_through_a_nested_derivative():
    x, h = 0.7, 1e-5
    first = srcad.grad(closure_square)
    np.testing.assert_allclose(srcad.grad(first)(x), (first(x + h) - first(x - h)) / (2 * h), rtol=1e-7)
    np.testing.assert_allclose(srcad.grad(first)(x), 4.0, rtol=1e-12)


def test_the_generated_code_calls_the_inner_derivative_with_fs_variable():
    text = srcad.source(closure_square)
    assert "out = grad_g(x, x=x)" in text and "dgrad_g(x, x=x, ddy=dout)" in text, text


def runtime_wrt(x):
    def g(y, z):
        return y * z
    position = 1 if x > 0 else 0
    return srcad.grad(g, wrt=position)(x, x)


def with_aux(x):
    def g(y):
        return y * y, y
    return srcad.grad(g, has_aux=True)(x)[0]


def calling_another(x):
    def h(v):
        return v * x

    def g(y):
        return h(y) * y
    return srcad.grad(g)(x)


@pytest.mark.parametrize("f, construct, fix", [
    (runtime_wrt, "a `wrt` computed while f runs", "write `wrt` as a constant"),
    (with_aux, "the argument `has_aux`", "leave it out"),
    (calling_another, "which calls the local function h", "define h at module level"),
], ids=["runtime_wrt", "has_aux", "local_calls_local"])
def test_what_cannot_be_rewritten_is_refused_at_its_line(f, construct, fix):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(f)(0.5)
    message = str(info.value)
    assert message.startswith(f"{__file__}:"), message
    assert construct in message and fix in message, message
