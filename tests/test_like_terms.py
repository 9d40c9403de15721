"""Sums of like terms written once, and spreads that broadcasting does anyway (``simplify``).

Each function sums two terms that are equal up to the order of a product's
factors (``d * d``, ``x * y * x``, ``np.dot(x, x)``), whose sum's gradient
``unreduce(g, d * d) * d`` becomes ``g * d``; inputs are chosen to break the rewrite if it were
wrong: broadcasting shapes, 0-d arrays, Python scalars, float32, and one
array passed as two arguments.  Every case is checked in both modes against
finite differences and the forward/reverse identity, and its value.
"""
from __future__ import annotations

import gast
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, make_function, no_disk_cache   # noqa: F401
from srcad.analysis.expressions import same_value

SOURCES = {
    "square": "def f(x, y):\n    d = x * y - 1.0\n    return np.sum(d * d)\n",
    "square_scaled": "def f(x, y):\n    return np.sum(3.0 * (x * x) * y)\n",
    "both_orders": "def f(x, y):\n    return np.sum(x * y * x + y * y)\n",
    "dot_self": "def f(x, y):\n    return np.dot(x, x) * np.sum(y)\n",
    "tanh_square": "def f(x, y):\n    t = np.tanh(x + y)\n    return np.sum(t * t * x)\n",
}

RNG = np.random.default_rng(7)
INPUTS = {
    "vectors": (RNG.normal(size=3), RNG.normal(size=3)),
    "broadcast": (RNG.normal(size=(3, 1)), RNG.normal(size=(4,))),
    "zero_d": (np.array(0.7), np.array(-1.3)),
    "python_floats": (0.7, -1.3),
    "float_and_array": (0.7, RNG.normal(size=3)),
}
SQUARE_SHAPES = ("square", "square_scaled", "both_orders", "tanh_square")


def _function(name):
    return make_function(SOURCES[name], {"np": np})


@pytest.mark.parametrize("inputs", sorted(INPUTS))
@pytest.mark.parametrize("name", SQUARE_SHAPES)
def test_like_terms_match_finite_differences(name, inputs):
    check_both_modes(_function(name), INPUTS[inputs])


@pytest.mark.parametrize("inputs", sorted(INPUTS))
def test_one_array_passed_twice(inputs):
    x = INPUTS[inputs][0]
    function = make_function("def f(x, y):\n    return np.sum(x * y + y * x)\n", {"np": np})
    check_both_modes(function, (x, x))


@pytest.mark.parametrize("inputs", ("vectors", "zero_d"))
def test_dot_with_itself(inputs):
    x = INPUTS["vectors"][0] if inputs == "vectors" else np.array(0.4)
    check_both_modes(_function("dot_self"), (x, RNG.normal(size=3)))


def test_float32_stays_float32():
    x, y = (RNG.normal(size=3).astype(np.float32) for _ in range(2))
    gradient = srcad.grad(_function("square"), wrt=("x", "y"))(x, y)
    assert all(g.dtype == np.float32 for g in gradient)
    expected = 2 * (x * y - 1) * y
    np.testing.assert_allclose(gradient[0], expected, rtol=1e-5)


def test_the_sum_is_written_once():
    source = srcad.source(_function("square"), wrt=("x", "y"))
    assert "dd = 2 * (dout * d)" in source   # not dd = unreduce(dout, d * d) * d + d * unreduce(...)
    assert "unreduce(" not in source


def _expression(text):
    return gast.parse(text).body[0].value


@pytest.mark.parametrize("left, right, same", [
    ("a * b", "b * a", True),
    ("f(a * b, c)", "f(b * a, c)", True),
    ("-(a * b)", "-(b * a)", True),
    ("a * b * c", "a * (b * c)", False),     # reassociation rounds differently
    ("a - b", "b - a", False),
    ("a / b", "b / a", False),
    ("a[0] * b", "b * a[0]", False),         # a subscript may read an array changed in between
    ("g(a)", "g(a)", False),                 # a function that is not NumPy's may draw random numbers
    ("np.random.rand()", "np.random.rand()", False),
    ("np.sin(a)", "np.sin(a)", True),
    ("1 * a", "1.0 * a", False),
    ("f(a, 0.0)", "f(a, -0.0)", False),
])
def test_same_value(left, right, same):
    objects = {"f": np.add, "g": lambda a: a, "np": np}
    assert same_value(_expression(left), _expression(right), objects) is same


SPREAD_SOURCES = {
    "sum_of_square": "def f(x, y):\n    return np.sum(x ** 2) * y\n",
    "mean_of_product": "def f(x, y):\n    return np.mean(x * y)\n",
    "sum_over_axis": "def f(x, y):\n    return np.sum(np.sum(x * x, axis=0) * y)\n",
    "keepdims": "def f(x, y):\n    return np.sum(np.sum(x * x, axis=-1, keepdims=True) * y)\n",
    "spread_larger": "def f(x, y):\n    return np.sum(np.exp(x) * y) + np.sum(np.exp(x))\n",
}
SPREAD_INPUTS = {
    "matrix_vector": (RNG.normal(size=(3, 4)), RNG.normal(size=4)),
    "vectors": (RNG.normal(size=4), RNG.normal(size=4)),
    "zero_d": (np.array(0.7), np.array(-1.3)),
    "python_floats": (0.7, -1.3),
}


SPREAD_CASES = [(name, inputs) for name in sorted(SPREAD_SOURCES) for inputs in sorted(SPREAD_INPUTS)
                if name not in ("sum_over_axis", "keepdims") or np.ndim(SPREAD_INPUTS[inputs][0]) == 2]


@pytest.mark.parametrize("name, inputs", SPREAD_CASES)
def test_spread_by_broadcasting(name, inputs):
    function = make_function(SPREAD_SOURCES[name], {"np": np})
    check_both_modes(function, SPREAD_INPUTS[inputs])
