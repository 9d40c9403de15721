"""Constant subexpressions computed when the derivative is built (``passes/fold_constants``).

Functions whose constants are calls of ``math`` on literals, ``math``/NumPy
float constants and arithmetic on them, checked in both modes against
finite differences and the forward/reverse identity, and its value; and the
cases that must not be folded: a call that raises, NumPy calls (their
``np.float64`` promotes float32 arrays), a local named ``math``, a literal
division by zero, negative zero.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, make_function, no_disk_cache   # noqa: F401

FOLDED = {
    "sqrt": ("def f(x):\n    s2 = math.sqrt(2.0)\n    return np.sum(x * (1.0 + s2)) / (math.sqrt(8.0) * x[0])\n",
             "math.sqrt(8.0)"),
    "pi": ("def f(x):\n    return np.sum(np.sin(x * np.pi / 2)) + math.log(2.0 * math.pi) * x[0]\n",
           "math.log(2.0 * math.pi)"),
    "nested": ("def f(x):\n    return x * math.exp(-math.cos(math.pi / 3.0)) - math.e ** 2 * x * x\n",
               "math.exp(-math.cos(math.pi / 3.0))"),
    "negative_zero": ("def f(x):\n    return x * math.copysign(0.0, -1.0) + x * x\n", "math.copysign(0.0, -1.0)"),
}
KEPT = {
    "raises": ("def f(x):\n    if x[0] > 100.0:\n        return x[0] * math.log(0.0)\n    return np.sum(x * x)\n",
               "math.log(0.0)"),
    "numpy_call": ("def f(x):\n    return np.sum(x * np.sqrt(2.0))\n", "np.sqrt(2.0)"),
    "zero_division": ("def f(x):\n    if x[0] > 100.0:\n        return x[0] * (1.0 / 0.0)\n    return np.sum(x)\n",
                      "1.0 / 0.0"),
    "int_power": ("def f(x):\n    return np.sum(x) * 2 ** 3\n", "2 ** 3"),
}
INPUTS = {
    "vector": (np.array([0.3, 0.7, 1.1]),),
    "two": (np.array([0.9, -0.4]),),
}


def _function(text):
    return make_function(text, {"np": np, "math": math})


@pytest.mark.parametrize("inputs", sorted(INPUTS))
@pytest.mark.parametrize("name", sorted(FOLDED) + sorted(KEPT))
def test_folded_functions_match_finite_differences(name, inputs):
    text = {**FOLDED, **KEPT}[name][0]
    check_both_modes(_function(text), INPUTS[inputs])


@pytest.mark.parametrize("name", sorted(FOLDED))
def test_the_literal_replaces_the_call(name):
    text, expression = FOLDED[name]
    literal = repr(eval(expression))   # the value Python computes when f runs
    for mode in ("reverse", "forward"):
        source = srcad.source(_function(text), mode=mode)
        code = [line for line in source.partition("def ")[2].splitlines() if not line.strip().startswith("#")]
        assert literal in source and not any("math." in line for line in code), source


@pytest.mark.parametrize("name", sorted(KEPT))
def test_what_must_stay_stays(name):
    text, kept = KEPT[name]
    assert kept in srcad.source(_function(text))


def test_a_call_that_raises_raises_in_the_derivative_as_in_f():
    function = _function(KEPT["raises"][0])
    x = np.array([200.0, 1.0])
    with pytest.raises(ValueError):
        function(x)
    with pytest.raises(ValueError):
        srcad.grad(function)(x)


def test_numpy_constants_keep_float32_as_float64():
    function = _function("def f(x):\n    return np.sum(x * np.sqrt(2.0) * math.sqrt(2.0))\n")
    x = np.ones(3, dtype=np.float32)
    value, gradient = srcad.value_and_grad(function)(x)
    assert value == function(x) and np.asarray(value).dtype == np.asarray(function(x)).dtype
    np.testing.assert_allclose(gradient, np.full(3, 2.0), rtol=1e-6)


def test_a_local_named_math_is_not_the_module():
    function = make_function("def f(x, math):\n    return x * math.pi\n", {"np": np})

    class Holder:
        pi = 2.5
    assert "math.pi" in srcad.source(function)
    assert srcad.grad(function)(1.0, Holder()) == 2.5
