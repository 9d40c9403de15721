"""What a new user meets first: the eight cases that used to give misleading errors, one test each.

Each either works (checked against central finite differences, in both modes
where both apply) or raises a ``SrcadError`` whose message names the user's
``file:line``, what is not supported, and a fix that is Python.
"""
import functools

import numpy as np
import pytest

import srcad
from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from test_calls import returns_pair, with_steps  # noqa: E402
from gradcheck import check_forward, check_forward_reverse, check_reverse, fd_directional

X = np.array([0.3, 0.6, 0.9])
W = np.array([1.5, -0.5, 2.0])


class Net:
    def forward(self, x):
        return np.sin(x) * 2.0

    def loss(self, x):
        return np.sum(self.forward(x))


def scaled(x, a):
    return np.sum(np.tanh(x * a))


def enumerate_zip(x, w):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, w)):
        s = s + a * b * (i + 1.0)
    return s


def floor_divided(x):
    return np.sum(x // 0.5 + x ** 2)


def with_default(x, y=2.0):
    return np.sum(np.sin(x) * y)


relax, pair = with_steps, returns_pair   # (tests/test_calls.py's)


def looped(x):
    s = 0.0
    for i in range(3):
        s = s + np.sin(x[i]) * s + x[i] ** 3
    return s


def as_list(x):
    return x.tolist()


@pytest.mark.parametrize("check", [check_reverse, check_forward, check_forward_reverse])
@pytest.mark.parametrize("function,args", [
    (Net().loss, (X,)), (functools.partial(scaled, a=2.0), (X,)), (enumerate_zip, (X, W)), (floor_divided, (X,)),
], ids=["self.forward", "partial", "enumerate-zip", "floor-division"])
def test_what_used_to_be_refused_works(function, args, check):
    check(function, args)


def test_forward_tangents_for_parameters_with_defaults():
    value, tangent = srcad.jvp(with_default, (X, 2.0), (W, 0.5))
    assert np.isclose(value, with_default(X, 2.0))
    assert np.isclose(tangent, fd_directional(with_default, [X, 2.0], (0, 1), [W, 0.5])[0])


@pytest.mark.parametrize("primals,tangents", [((X,), (W,)), ((X, 20), (W, 0))], ids=["default", "given"])
def test_jvp_with_an_int_parameter(primals, tangents):
    value, tangent = srcad.jvp(relax, primals, tangents)
    expected = fd_directional(lambda x: relax(x, *primals[1:]), [X], (0,), [W])[0]
    assert np.isclose(value, relax(*primals)) and np.isclose(tangent, expected)


def test_grad_of_a_tuple_names_has_aux():
    with pytest.raises(srcad.SeedError) as info:
        srcad.grad(pair)(X)
    message = str(info.value)
    assert message.startswith(f"{returns_pair.__code__.co_filename}:") and "returns several values" in message
    assert "srcad.grad(returns_pair, has_aux=True)" in message
    compile("srcad.grad(returns_pair, has_aux=True)", "fix", "eval")
    gradient, aux = srcad.grad(pair, has_aux=True)(X)
    assert np.allclose(gradient, 2 * X) and aux is not None


def test_hessian_of_a_loop():
    hessian = srcad.hessian(looped)(X)
    gradient = srcad.grad(looped)
    h = 1e-6
    by_differences = np.array([(gradient(X + h * e) - gradient(X - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.allclose(hessian, by_differences, rtol=1e-5, atol=1e-6)


def test_an_unknown_method_names_the_call_and_a_fix():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(as_list)(X)
    message = str(info.value)
    assert message.startswith(f"{__file__}:") and "`x.tolist(...)`" in message
    assert "matching NumPy function" not in message and "@srcad.adjoint(my_function)" in message
    compile("@srcad.adjoint(my_function)\ndef rule(y, x): pass", "fix", "exec")
