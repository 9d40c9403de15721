"""Derivatives of matrix products specialised for their operands' ranks (``passes/product_gradients``).

A derivative of a function that writes ``@``, ``np.dot`` or ``np.matmul``
runs, for float arrays, a variant built for the arguments' ranks, in which
the product's gradient is written out (``g[:, None] * h``, ``W.T @ g``) and
the product of two vectors is known to be a scalar.  The inputs below are
chosen to break that if it were wrong: axes of length 1 that broadcast,
0-d arrays, Python scalars, int and float32 arrays, one array passed twice,
stacks of matrices (rank 3, left to the general helper), a name that
changes rank.  Each is checked in both modes against finite differences
and the forward/reverse identity, and its value.
"""
from __future__ import annotations

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, make_function, no_disk_cache   # noqa: F401

SOURCES = {
    "matmul": "def f(a, b):\n    return np.sum(np.tanh(a @ b))\n",
    "dot": "def f(a, b):\n    return np.sum(np.tanh(np.dot(a, b)))\n",
    "np_matmul": "def f(a, b):\n    return np.sum(np.tanh(np.matmul(a, b)))\n",
    "quadratic": "def f(a, b):\n    return (b @ a @ b) / (1.0 + np.sum(b) ** 2)\n",
    "scalar_product": "def f(a, b):\n    s = np.dot(b, b)\n    return np.sum(a * s) + s * np.sum(a)\n",
    "chain": "def f(a, b):\n    h = np.dot(a, b)\n    for _ in range(3):\n        h = np.tanh(a.T @ h) if a.ndim == 2 else np.tanh(h)\n    return np.sum(h * h)\n",
}
RNG = np.random.default_rng(11)
PRODUCT_INPUTS = {
    "vector_vector": (RNG.normal(size=3), RNG.normal(size=3)),
    "matrix_vector": (RNG.normal(size=(4, 3)), RNG.normal(size=3)),
    "vector_matrix": (RNG.normal(size=3), RNG.normal(size=(3, 2))),
    "matrix_matrix": (RNG.normal(size=(4, 3)), RNG.normal(size=(3, 2))),
    "ones": (RNG.normal(size=(1, 1)), RNG.normal(size=(1, 1))),
    "row_column": (RNG.normal(size=(1, 3)), RNG.normal(size=(3, 1))),
    "column_row": (RNG.normal(size=(3, 1)), RNG.normal(size=(1, 3))),
    "length_one": (RNG.normal(size=1), RNG.normal(size=(1, 2))),
    "stack": (RNG.normal(size=(2, 4, 3)), RNG.normal(size=(3, 2))),
}
SQUARE_INPUTS = {   # for the functions that need a square a and a vector b
    "square": (RNG.normal(size=(3, 3)), RNG.normal(size=3)),
    "one_by_one": (RNG.normal(size=(1, 1)), RNG.normal(size=1)),
}


def _function(name):
    return make_function(SOURCES[name], {"np": np})


@pytest.mark.parametrize("inputs", sorted(PRODUCT_INPUTS))
@pytest.mark.parametrize("name", ("matmul", "dot", "np_matmul"))
def test_products(name, inputs):
    a, b = PRODUCT_INPUTS[inputs]
    if name == "dot" and inputs == "stack":
        b = RNG.normal(size=(4, 3, 2))   # np.dot of stacks pairs every matrix with every one
    check_both_modes(_function(name), (a, b))


@pytest.mark.parametrize("a_shape, b_shape", [((2, 4, 3), (3,)), ((2, 3), (4, 3, 2)), ((), (3,))])
def test_dot_of_other_ranks(a_shape, b_shape):
    check_both_modes(_function("dot"), (RNG.normal(size=a_shape), RNG.normal(size=b_shape)))


@pytest.mark.parametrize("inputs", sorted(SQUARE_INPUTS))
@pytest.mark.parametrize("name", ("quadratic", "scalar_product", "chain"))
def test_products_in_larger_functions(name, inputs):
    check_both_modes(_function(name), SQUARE_INPUTS[inputs])


def test_one_array_as_both_operands():
    a = RNG.normal(size=(3, 3))
    check_both_modes(_function("matmul"), (a, a))
    v = RNG.normal(size=3)
    check_both_modes(_function("dot"), (v, v))


def test_scalars_and_zero_d_arrays_take_the_general_derivative():
    check_both_modes(_function("dot"), (1.5, RNG.normal(size=3)))
    check_both_modes(_function("dot"), (np.array(1.5), RNG.normal(size=(2, 3))))


def test_float32_and_int_arguments():
    a, b = (RNG.normal(size=(4, 3)).astype(np.float32), RNG.normal(size=3).astype(np.float32))
    gradient = srcad.grad(_function("matmul"), wrt=(0, 1))(a, b)
    assert [g.dtype for g in gradient] == [np.float32, np.float32]
    reference = srcad.grad(_function("matmul"), wrt=(0, 1))(a.astype(float), b.astype(float))
    for got, expected in zip(gradient, reference):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    check_both_modes(_function("matmul"), (RNG.normal(size=(4, 3)), np.arange(3)), wrt=0)


def test_the_variant_writes_the_gradients_out():
    source = srcad.source(_function("matmul"), wrt=(0, 1), ranks=(2, 1))
    assert "matmul_lhs_grad" not in source and "matmul_rhs_grad" not in source
    assert "[:, None] * b" in source and "@ a" in source
    general = srcad.source(_function("matmul"), wrt=(0, 1))
    assert "matmul_lhs_grad" in general   # ranks unknown: the helper tests them at run time


def test_a_name_that_changes_rank_keeps_the_helper():
    function = make_function("def f(x, v):\n    if v[0] > -100:\n        x = np.outer(x, x)\n"
                             "    return np.sum(x @ v)\n", {"np": np})
    assert "matmul_lhs_grad" in srcad.source(function, wrt=(0, 1), ranks=(1, 1))
    check_both_modes(function, (RNG.normal(size=3), RNG.normal(size=3)))


def test_a_call_with_float_arrays_runs_the_variant():
    derivative = srcad.grad(_function("matmul"), wrt=(0, 1))
    a, b = PRODUCT_INPUTS["matrix_vector"]
    derivative(a, b)
    assert list(derivative._rank_variants) == [(2, 1)]
