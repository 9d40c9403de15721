"""The verify switch (``srcad.config.verify``, ``SRCAD_VERIFY=1``): a wrong derivative is caught at its first call.

A rule registered wrong on purpose stands in for a bug: with the switch on,
the first call on each argument signature raises ``VerificationError`` with
``check_grads``' report, in both modes and through every transformation; a
right derivative returns exactly what it returns with the switch off, and a
signature is checked once.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import srcad
from srcad import VerificationError


def wrongly_ruled(x):
    return np.sin(x)


@srcad.adjoint(wrongly_ruled)
def _wrong_adjoint(y, x):
    srcad.d[x] = srcad.d[y] * 2.0   # the truth is cos(x)


@srcad.tangent(wrongly_ruled)
def _wrong_tangent(y, x):
    srcad.d[y] = srcad.d[x] * 2.0


def uses_the_wrong_rule(x):
    return np.sum(wrongly_ruled(x) * x)


CALLS = []


def _tick():
    CALLS.append(1)


srcad.nondifferentiable(_tick)


def counted(x, w):
    _tick()   # counts the primal's runs
    return np.sum(np.tanh(x * w) ** 2)


def with_int_steps(x, steps):
    for _ in range(steps):
        x = np.sin(x)
    return np.sum(x)


@pytest.fixture
def verifying():
    srcad.config.verify = True
    try:
        yield
    finally:
        srcad.config.verify = False


X = np.array([0.3, -0.8, 1.1])
W = np.array([0.5, 1.5, -0.2])

WRONG_CALLS = {
    "grad": lambda: srcad.grad(uses_the_wrong_rule)(X),
    "value_and_grad": lambda: srcad.value_and_grad(uses_the_wrong_rule)(X),
    "forward autodiff": lambda: srcad.autodiff(uses_the_wrong_rule, mode="forward")(X, np.ones(3)),
    "jvp": lambda: srcad.jvp(uses_the_wrong_rule, (X,), (np.ones(3),)),
    "vjp": lambda: srcad.vjp(uses_the_wrong_rule, X)[1](1.0),
}


@pytest.mark.parametrize("call", WRONG_CALLS.values(), ids=list(WRONG_CALLS))
def test_a_wrong_derivative_is_caught_at_its_first_call(verifying, call):
    with pytest.raises(VerificationError, match="disagrees with central finite differences") as caught:
        call()
    assert "uses_the_wrong_rule" in str(caught.value) and "srcad.check_grads" in str(caught.value)


@pytest.mark.parametrize("call", WRONG_CALLS.values(), ids=list(WRONG_CALLS))
def test_without_the_switch_the_same_call_runs_unchecked(call):
    assert srcad.config.verify is False
    call()   # the wrong rule is used as registered: only the switch checks it


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_right_derivative_returns_what_it_returns_unchecked(verifying, mode):
    derivative = srcad.autodiff(counted, wrt=(0, 1), mode=mode)
    extra = () if mode == "reverse" else (np.ones(3), np.zeros(3))
    checked = derivative(X, W, *extra)
    srcad.config.verify = False
    plain = derivative(X, W, *extra)
    for a, b in zip(checked if mode == "reverse" else [checked], plain if mode == "reverse" else [plain]):
        np.testing.assert_array_equal(a, b)


def test_each_argument_signature_is_checked_once(verifying):
    derivative = srcad.grad(counted, wrt=(0, 1))
    x, w = np.linspace(0.1, 0.5, 5), np.linspace(-1.0, 1.0, 5)   # a signature no other test uses
    CALLS.clear()
    derivative(x, w)
    first = len(CALLS)              # the derivative's own forward sweep, then the check's runs of f
    CALLS.clear()
    derivative(x + 1.0, w)          # same signature: the derivative's own forward sweep only
    assert len(CALLS) == 1 and first >= 1 + 2 * 2 + 1
    CALLS.clear()
    derivative(np.ones((2, 5)), w)   # a new shape: checked again
    assert len(CALLS) == first


def test_second_derivatives_under_the_switch(verifying):
    hessian = srcad.hessian(counted)(X, W)
    srcad.config.verify = False
    np.testing.assert_allclose(hessian, srcad.hessian(counted)(X, W))


def test_integer_arguments_are_left_alone(verifying):
    gradient = srcad.grad(with_int_steps)(X, 3)
    np.testing.assert_allclose(gradient, np.cos(np.sin(np.sin(X))) * np.cos(np.sin(X)) * np.cos(X))


def test_the_environment_variable_turns_it_on():
    code = "import srcad; print(srcad.config.verify)"
    for value, expected in (("1", "True"), ("yes", "True"), ("0", "False"), ("", "False")):
        env = dict(os.environ, SRCAD_VERIFY=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected, value
