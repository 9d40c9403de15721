"""Composite straight-line functions, differentiated whole, against finite differences.

Contract:
- Each function in ``COMPOSITES`` is a real module-level function (srcad reads
  this file).  For each: reverse mode matches finite differences (and, for
  scalar outputs, so does the full ``srcad.grad``), forward mode matches them,
  and the two modes agree to 1e-10.
- Derivatives never mutate the caller's arrays (arguments, seed, tangents),
  bitwise, and calling a derivative twice gives bitwise-identical results.
- ``wrt`` may be a position, a name, or a tuple of either; a single entry gives
  a bare gradient, a tuple gives a tuple in the same order.
- Gradients have their argument's shape and dtype (float32 stays float32);
  arguments the output does not depend on get exact zeros.
- ``srcad.grad`` of a non-scalar function and a seed of the wrong shape raise
  ``srcad.SeedError`` with a message that says what to do.
"""
import math
import zlib

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import (PYFLOAT, assert_like_argument, check_forward, check_forward_reverse,
                       check_grad_full, check_reverse, like, random_input, same_bits, snapshot)

# --------------------------------------------------------------------------
# the functions


def chain(x, y):
    return np.sum(np.tanh(np.sin(x) * y + np.exp(-x)) ** 2)


def fan_out(x):
    a = np.sin(x)
    return a * a + a - 1.0 / (1.0 + a * a)


def unpack_pair(x):
    a, b = x[0], x[1:]
    return np.sum(a * b)


def swap(x, y):
    a, b = x, y * 2.0
    a, b = b, a
    return a * np.sin(b)


def reassign(x):
    x = x * 2
    x = np.exp(x) + x
    return x


def augmented(x, y):
    z = x * 1.0
    z += np.sin(y)
    z *= y
    z -= x / 3.0
    return z


def index_param(x, i):
    return x[i] * x[i + 1]


def tail(x):
    return x[1:] * x[:-1]


def column(x):
    return np.exp(x[:, 0])


def new_axis(x):
    return x[..., None] * x


def shape_reads(x):
    n = x.shape[0]
    k = x.ndim
    return x * n + x.T.T * k + x.size


def transposed(x, y):
    return x.T @ y


def keywords(x):
    return np.sum(x, axis=0, keepdims=True) * x


def methods(x, y):
    a = x.sum(axis=1)
    b = x.mean()
    c = x.reshape(2, 3)
    e = x.T
    g = x.dot(y)
    return np.sum(a * a) + b + np.sum(np.sin(c)) + np.sum(e ** 3) + np.sum(g)


def math_scalars(x, y):
    return math.sin(x) * math.exp(y) + math.sqrt(x * x + 1.0) - math.log(y) + math.cos(x * y)


def constants(x):
    return np.pi * x + 2.0 * math.e


def named_constant(x):
    k = np.pi
    return x * k + 2.0


def outer_broadcast(x, y):
    return x * y + np.sin(x)


def row_broadcast(x, y):
    return np.sum((x + y) * x, axis=0)


def layer(x, w, b):
    return np.mean(np.tanh(x @ w + b) ** 2)


def unused_variable(x, y):
    z = y * 2.0
    w = np.exp(z)
    return np.sum(x ** 2)


def independent_of_x(x, y):
    return y * 2.0


def tuple_output(x, y):
    return x * y, np.sin(x)


def passthrough(x, y):
    return x + y


def identity(x):
    return x


def alias_then_index(x):
    z = x
    return z + z[0]


def differences(x):
    d = x[1:] - x[:-1]
    return np.sum(d ** 2)


# --------------------------------------------------------------------------
# the table: function, arguments (shapes are drawn at random), wrt


def A(*shape, domain="real", dtype=np.float64):
    """A random array argument of ``shape``."""
    return ("random", shape, domain, dtype)


def F(domain="real"):
    """A random Python float argument."""
    return ("random", PYFLOAT, domain, None)


COMPOSITES = [
    (chain, (A(3), A(3)), None),
    (fan_out, (A(2, 3),), 0),
    (unpack_pair, (A(4),), 0),
    (swap, (A(3), A(3)), None),
    (reassign, (A(3),), 0),
    (augmented, (A(2, 3), A(3)), None),
    (index_param, (A(4), 1), 0),
    (index_param, (A(4, 2), -2), "x"),
    (tail, (A(5),), 0),
    (column, (A(3, 2),), 0),
    (new_axis, (A(3),), 0),
    (new_axis, (A(2, 2),), 0),
    (shape_reads, (A(2, 3),), 0),
    (transposed, (A(3, 2), A(3, 4)), None),
    (keywords, (A(2, 3),), 0),
    (methods, (A(3, 2), A(2)), None),
    (math_scalars, (F(), F("positive")), None),
    (constants, (A(3),), 0),
    (named_constant, (A(3),), 0),
    (outer_broadcast, (A(3, 1), A(1, 4)), None),
    (row_broadcast, (A(5), A(2, 5)), None),
    (layer, (A(4, 3), A(3, 2), A(2)), None),
    (unused_variable, (A(3), A(3)), None),
    (independent_of_x, (A(3), A(3)), 0),
    (tuple_output, (A(3), A(3)), None),
    (passthrough, (A(3), A(3)), None),
    (identity, (A(2, 2),), 0),
    (alias_then_index, (A(3),), 0),
    (differences, (A(5),), 0),
]


def case_id(entry) -> str:
    function, args, wrt = entry
    return f"{function.__name__}-wrt={wrt}" if wrt is not None else function.__name__


def make_args(entry):
    """The entry's arguments, random ones drawn with a generator seeded by the case id."""
    rng = np.random.default_rng(zlib.crc32(case_id(entry).encode()))
    result = []
    for spec in entry[1]:
        if isinstance(spec, tuple) and spec and spec[0] == "random":
            _, shape, domain, dtype = spec
            value = random_input(shape, domain, rng)
            result.append(value.astype(dtype) if dtype is not None else value)
        else:
            result.append(spec)
    return tuple(result)


IDS = [case_id(entry) for entry in COMPOSITES]
SCALAR_OUTPUT = [entry for entry in COMPOSITES if np.ndim(entry[0](*make_args(entry))) == 0]


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_reverse_matches_finite_differences(entry):
    check_reverse(entry[0], make_args(entry), entry[2])


@pytest.mark.parametrize("entry", SCALAR_OUTPUT, ids=[case_id(e) for e in SCALAR_OUTPUT])
def test_full_gradient_matches_finite_differences(entry):
    check_grad_full(entry[0], make_args(entry), entry[2])


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_forward_matches_finite_differences(entry):
    check_forward(entry[0], make_args(entry), entry[2])


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_forward_and_reverse_agree(entry):
    check_forward_reverse(entry[0], make_args(entry), entry[2])


def _wrt_tuple(entry, args):
    return tuple(range(len(args))) if entry[2] is None else entry[2]


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_reverse_never_mutates_arguments_or_seed(entry):
    function, args = entry[0], make_args(entry)
    seed = like(function(*args), np.random.default_rng(5))
    before = snapshot((args, seed))
    srcad.autodiff(function, _wrt_tuple(entry, args))(*args, seed)
    assert same_bits(before, snapshot((args, seed))), f"{function.__name__}'s VJP wrote into its inputs"


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_forward_never_mutates_arguments_or_tangents(entry):
    function, args = entry[0], make_args(entry)
    wrt = _wrt_tuple(entry, args)
    positions = [function.__code__.co_varnames.index(w) if isinstance(w, str) else w
                 for w in (wrt if isinstance(wrt, tuple) else (wrt,))]
    tangents = [like(args[p], np.random.default_rng(6)) for p in positions]
    before = snapshot((args, tangents))
    srcad.autodiff(function, wrt, mode="forward")(*args, *tangents)
    assert same_bits(before, snapshot((args, tangents))), f"{function.__name__}'s JVP wrote into its inputs"


@pytest.mark.parametrize("entry", COMPOSITES, ids=IDS)
def test_calling_twice_gives_identical_results(entry):
    function, args = entry[0], make_args(entry)
    seed = like(function(*args), np.random.default_rng(7))
    vjp = srcad.autodiff(function, _wrt_tuple(entry, args))
    first = snapshot(vjp(*args, seed))
    second = snapshot(vjp(*args, seed))
    assert same_bits(first, second), f"{function.__name__}: a second call gave different gradients"


# --------------------------------------------------------------------------
# wrt forms


def two(x, y):
    return np.sum(np.sin(x) * y ** 2)


@pytest.fixture
def two_args():
    rng = np.random.default_rng(11)
    return rng.standard_normal(3), rng.standard_normal(3)


@pytest.mark.parametrize("wrt", [0, 1, "x", "y", -1, (0, 1), ("x", "y"), (1, 0), ("y",), (0, "y")],
                         ids=repr)
def test_wrt_forms_match_finite_differences(wrt, two_args):
    check_reverse(two, two_args, wrt)
    check_grad_full(two, two_args, wrt)
    check_forward(two, two_args, wrt)


def test_wrt_by_position_and_by_name_agree(two_args):
    by_position = srcad.grad(two, wrt=1)(*two_args)
    by_name = srcad.grad(two, wrt="y")(*two_args)
    both = srcad.grad(two, wrt=("x", "y"))(*two_args)
    reversed_order = srcad.grad(two, wrt=(1, 0))(*two_args)
    assert isinstance(by_position, np.ndarray) and isinstance(both, tuple) and len(both) == 2
    assert same_bits(by_position, by_name)
    assert same_bits(both[1], by_name)
    assert same_bits(reversed_order[0], both[1]) and same_bits(reversed_order[1], both[0])
    assert same_bits(srcad.grad(two, wrt=0)(*two_args), both[0])


def test_default_wrt_is_the_first_argument(two_args):
    assert same_bits(srcad.grad(two)(*two_args), srcad.grad(two, wrt=0)(*two_args))


def test_decorator_forms(two_args):
    decorated = srcad.grad(wrt="y")(two)
    assert same_bits(decorated(*two_args), srcad.grad(two, wrt=1)(*two_args))


# --------------------------------------------------------------------------
# shapes and dtypes of gradients


def sum_tanh_product(x, y):
    return np.sum(np.tanh(x * y))


def mean_square(x):
    return np.mean(x ** 2)


def first_times_rest(x):
    return np.sum(x[1:] * x[0])


def plain_sum(x):
    return np.sum(x)


def scaled(x):
    return x * 2.0


FLOAT32_CASES = [(sum_tanh_product, [(3, 1), (1, 4)]), (mean_square, [(2, 3)]),
                 (first_times_rest, [(4,)]), (plain_sum, [(3,)]), (plain_sum, [()])]


@pytest.mark.parametrize("function,shapes", FLOAT32_CASES,
                         ids=[f"{f.__name__}-{s}" for f, s in FLOAT32_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_has_argument_shape_and_dtype(function, shapes, dtype):
    rng = np.random.default_rng(3)
    args = tuple(rng.standard_normal(shape).astype(dtype) for shape in shapes)
    wrt = tuple(range(len(args)))
    grads = srcad.grad(function, wrt=wrt)(*args)
    for g, a in zip(grads, args):
        assert_like_argument(g, a)
        assert isinstance(g, np.ndarray) or np.ndim(a) == 0
    expected = srcad.grad(function, wrt=wrt)(*(a.astype(np.float64) for a in args))
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5 if dtype == np.float32 else 1e-15)


def test_float32_seed_keeps_float32():
    x = np.ones((3, 1), np.float32)
    gradient = srcad.autodiff(scaled)(x, np.ones((3, 1), np.float32))
    assert gradient.dtype == np.float32 and gradient.shape == (3, 1)


def test_gradient_of_a_python_float_is_a_float():
    gradient = srcad.grad(math_scalars, wrt=(0, 1))(0.3, 1.7)
    assert all(isinstance(g, float) for g in gradient), [type(g) for g in gradient]


def test_unused_argument_gets_exact_zeros():
    x, y = np.random.default_rng(4).standard_normal((2, 3))
    dx, dy = srcad.grad(unused_variable, wrt=(0, 1))(x, y)
    assert_like_argument(dy, y)
    assert isinstance(dy, np.ndarray) and not np.any(dy) and dy.flags.writeable
    np.testing.assert_allclose(dx, 2.0 * x, rtol=1e-15)


def test_output_independent_of_wrt_gives_zeros():
    x, y = np.random.default_rng(5).standard_normal((2, 2, 3))
    seed = np.ones((2, 3))
    dx = srcad.autodiff(independent_of_x, wrt=0)(x, y, seed)
    assert_like_argument(dx, x)
    assert isinstance(dx, np.ndarray) and not np.any(dx)
    tangent = srcad.autodiff(independent_of_x, wrt=0, mode="forward")(x, y, np.ones_like(x))
    assert np.shape(tangent) == (2, 3) and not np.any(tangent)


# --------------------------------------------------------------------------
# seed errors


def test_grad_of_non_scalar_output_raises_seed_error():
    with pytest.raises(srcad.SeedError) as info:
        srcad.grad(scaled)(np.ones((2, 3)))
    message = str(info.value)
    assert "scalar" in message and "(2, 3)" in message and "autodiff" in message
    assert "Traceback" not in message


@pytest.mark.parametrize("seed_shape", [(4,), (3, 1), (1, 3), ()], ids=str)
def test_seed_of_wrong_shape_raises_seed_error(seed_shape):
    with pytest.raises(srcad.SeedError) as info:
        srcad.autodiff(scaled)(np.ones(3), np.ones(seed_shape))
    message = str(info.value)
    assert "(3,)" in message and "seed" in message


def test_tuple_output_needs_tuple_seed():
    x, y = np.ones(3), np.ones(3)
    with pytest.raises(srcad.SeedError) as info:
        srcad.autodiff(tuple_output, wrt=(0, 1))(x, y, np.ones(3))
    assert "tuple" in str(info.value)
    with pytest.raises(srcad.SeedError):
        srcad.autodiff(tuple_output, wrt=(0, 1))(x, y, (np.ones(3), np.ones(4)))
