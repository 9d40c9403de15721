"""Aliasing and mutation: every change made in place is differentiated exactly, or refused clearly.

Contract checked here, in both modes, optimised or not:
- each function in ``EXACT`` (stores through views made by reshape, ravel,
  .T, transpose, swapaxes, squeeze, expand_dims, asarray, atleast_2d,
  ``A[...]``, basic slices, ``.view()``; stores into an array while a view
  of it is live; chains of views; aliases; inlined helpers changing their
  argument; arrays held by lists and dicts; ``out=``; ``np.fill_diagonal``,
  ``np.copyto`` with ``where=``, ``np.add.at``, ``np.subtract.at``,
  ``np.put``, ``.fill``, ``.sort``) has derivatives that agree with central
  finite differences, and ``value_and_grad`` returns exactly ``f(*args)``;
- each function in ``REFUSED`` raises ``AliasingError`` at its line in this
  file, naming both names involved (or the call and its argument) and a fix;
- no derivative writes into the caller's arrays.
"""
import copy
import os

import numpy as np
import pytest

import srcad
from aliasing_helpers import pop, push, unknown_view
from test_language import (a_nested_def_writes_its_argument, a_parameter_written_through_view,  # exact now
                           a_store_through_loop_variable)
from gradcheck import check_forward, check_reverse, inner, like, no_disk_cache  # noqa: F401

THIS_FILE = os.path.abspath(__file__)
V = np.array([0.2, -0.7, 1.2])
M = np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]])


def v_reshape(x):
    A = x * 1.0
    B = A.reshape(3)
    B[0] = 10.0
    return np.sum(A * x)

def v_ravel(X):
    A = X * 1.0
    B = A.ravel()
    B[1] = B[0] * X[1, 1]
    return np.sum(A * X)

def v_T(X):
    A = X * 1.0
    B = A.T
    B[0, 1] = 3.0 * X[0, 0]
    return np.sum(A * X)

def v_transpose(X):
    A = X * 1.0
    B = A.transpose()
    B[1] += X[:, 1]
    return np.sum(A * X)

def v_swapaxes(X):
    A = X * 1.0
    B = A.swapaxes(0, 1)
    B *= 2.0
    return np.sum(A * X)

def v_base_store_then_view_store(X):
    # regression (fuzz seed 203902): the base changed while the view's copy was only stored into later;
    # the view's write-back then restored the base's old element
    A = X * 1.0
    B = A.swapaxes(0, 1)
    A[1, 1] = np.sin(X[0, 0])
    B[2, 1] = np.sum(X)
    return np.sum(A * X)


def v_squeeze(X):
    A = X[None] * 1.0
    B = A.squeeze()
    B[0, 0] = X[1, 1] ** 2
    return np.sum(A * A)

def v_expand(x):
    A = x * 1.0
    B = np.expand_dims(A, 0)
    B[0, 1] = x[0] * x[2]
    return np.sum(A * x)

def v_asarray(x):
    A = x * 1.0
    B = np.asarray(A)
    B[2] = x[0] * 4.0
    return np.sum(A * x)

def v_ellipsis(x):
    A = x * 1.0
    B = A[...]
    B[1] = x[0] ** 2
    return np.sum(A * x)

def v_slice(x):
    A = x * 1.0
    B = A[1:]
    B[0] = x[0] * 3.0
    return np.sum(A * x)

def v_column(X):
    A = X * 1.0
    B = A[:, 0]
    B += X[:, 1]
    return np.sum(A * X)

def v_view(x):
    A = x * 1.0
    B = A.view()
    B[0] = x[1]
    return np.sum(A * x)

def v_np_reshape(x):
    A = x * 1.0
    B = np.reshape(A, (3, 1))
    B[2, 0] = x[0] * x[1]
    return np.sum(A * x)

def v_atleast(x):
    A = x * 1.0
    B = np.atleast_2d(A)
    B[0, 0] = x[2] * 2.0
    return np.sum(A * x)

def v_real(x):
    A = x * 1.0
    B = A.real
    B[0] = x[2] * 2.0
    return np.sum(A * x)

def v_store_base_view_live(x):
    A = x * 1.0
    B = A[1:]
    A[1] = x[0] * 5.0
    return np.sum(B * x[1:])

def v_chain(x):
    A = x * 1.0
    B = A.reshape(3, 1)
    C = B[1:]
    C[0, 0] = x[0] * 7.0
    return np.sum(A * x) + np.sum(B)

def v_alias(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)

def v_copy_reshape_of_transpose(X):
    A = X * 1.0
    B = A.T.reshape(6)
    B[0] = 100.0
    return np.sum(A * X)




def v_dict(d):
    v = d["a"]
    v *= 2.0
    return np.sum(d["a"] * d["b"])

def v_list_acc(y):
    acc = [y]
    y *= 2.0
    return np.sum(acc[0])

def v_local_dict(x):
    d = {"a": x * 1.0, "b": x * 2.0}
    v = d["a"]
    v *= 3.0
    return np.sum(d["a"] * d["b"])

def v_branch_view(x):
    A = x * 1.0
    if x[0] > 0.0:
        B = A[1:]
    else:
        B = x[1:] * 1.0
    B[0] = 9.0
    return np.sum(A * x)

def v_view_in_loop_store_after(x):
    A = x * 1.0
    s = 0.0
    for i in range(3):
        B = A[i:]
        B[0] = B[0] * x[i]
        s = s + np.sum(A)
    return s + np.sum(A * x)


def m_out(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return np.sum(y)

def m_out_view(x):
    A = np.zeros(4)
    np.sin(x, out=A[1:])
    return np.sum(A * A)

def m_out_assigned(x):
    y = np.ones(3)
    z = np.add(x, 2.0, out=y)
    return np.sum(z * y * x)

def m_out_where(x):
    y = x * 1.0
    np.exp(x, out=y, where=x > 0.0)
    return np.sum(y * x)

def m_fill_diagonal(x):
    A = np.outer(x, x)
    np.fill_diagonal(A, x[0])
    return np.sum(A * A)

def m_copyto(x):
    A = np.zeros(3)
    np.copyto(A, x * 2.0)
    return np.sum(A * x)

def m_copyto_where(x):
    A = x * 1.0
    np.copyto(A, x ** 2, where=x > 0.0)
    return np.sum(A * x)

def m_add_at(x):
    A = x * 1.0
    np.add.at(A, np.array([0, 0, 2]), x * x)
    return np.sum(A * A)

def m_subtract_at(x):
    A = np.zeros(3)
    np.subtract.at(A, np.array([1, 1]), x[:2])
    return np.sum(A * x)

def m_multiply_at(x):
    A = x * 1.0
    np.multiply.at(A, np.array([1, 1]), x[:2])
    return np.sum(A)

def m_put(x):
    A = x * 1.0
    np.put(A, [0, -1, 0], x[1:] * 3.0)
    return np.sum(A * x)

def m_fill(x):
    A = x * 1.0
    B = A[1:]
    B.fill(x[0])
    return np.sum(A * x)

def m_sort(x):
    A = x * 1.0
    A.sort()
    return np.sum(A * np.arange(3.0))

def m_putmask(x):
    A = x * 1.0
    np.putmask(A, x > 0.0, 0.0)
    return np.sum(A)

def m_shuffle(x):
    A = x * 1.0
    np.random.shuffle(A)
    return np.sum(A)

def m_shuffle_constant(x):
    idx = np.arange(3)
    np.random.shuffle(idx)
    return np.sum(x[np.sort(idx)] ** 2)

def m_resize(x):
    A = x * 1.0
    A.resize(2)
    return np.sum(A)

def m_stack(a):
    s = []
    push(s, a * a)
    push(s, a * a)
    return pop(s) * pop(s)

def m_list_reverse(x):
    xs = [x[0], x[1]]
    xs.reverse()
    return xs[0] * 2.0 + xs[1]

def m_fill_diagonal_view(x):
    A = np.zeros((2, 3, 3))
    np.fill_diagonal(A[1], x)
    return np.sum(A * A)


def v_list_param(xs):
    r = xs[0]
    r *= 3.0
    return np.sum(xs[0] * xs[1])


def v_held_then_store_base(x):
    A = x * 1.0
    acc = [A]
    acc[0] = x * 2.0
    A[1] = 5.0
    return np.sum(acc[0] * A)


def v_reshape_order(x):
    A = x * 1.0
    B = A.reshape(3, order="F")
    B[0] = 2.0 * x[1]
    return np.sum(A * x)


def v_unknown_function(x):
    A = x * 1.0
    B = np.diagonal(np.outer(A, A))
    C = unknown_view(A)
    C[0] = 4.0
    return np.sum(A * x) + np.sum(B)


def v_view_index_changed(x):
    A = x * 1.0
    i = 0
    B = A[i:]
    i = 1
    B[0] = 7.0
    return np.sum(A * x) + i


def v_tuple_held(x):
    A = x * 1.0
    t = (A, x)
    A *= 2.0
    return np.sum(t[0] * x)


def v_list_copy_is_shallow(x):
    a = x * 1.0
    xs = [a]
    ys = xs.copy()   # a new list holding the same array
    ys[0] *= 2.0
    return np.sum(a * x)


def v_double_negation_then_store(x):   # fuzz seed 301482: `--x` was simplified to `x`, an alias
    t = --x
    t[1] = 0.0
    return np.sum(t * x[1])


def v_negative_of_negation_then_store(x):
    t = np.negative(-x)
    t[1] = 0.0
    return np.sum(t * x[1])


def v_float_alias(s):
    t = s
    t += 1.0
    return s * t


# --------------------------------------------------------------------------
# the tables

ARGUMENTS = {"X": (M,), "d": ({"a": V, "b": V * 3.0},), "a": (1.5,), "s": (0.7,), "xs": ([V, V * 2.0],)}

EXACT = [v_reshape, v_ravel, v_T, v_transpose, v_swapaxes, v_base_store_then_view_store, v_squeeze, v_expand, v_asarray, v_ellipsis, v_slice,
         v_column, v_view, v_np_reshape, v_atleast, v_store_base_view_live, v_chain, v_alias,
         v_copy_reshape_of_transpose, a_store_through_loop_variable, a_parameter_written_through_view,
         a_nested_def_writes_its_argument, v_dict, v_list_acc, v_local_dict,
         v_view_in_loop_store_after, v_list_param, v_float_alias, v_double_negation_then_store,
         v_negative_of_negation_then_store, m_out, m_out_view, m_out_assigned, m_out_where,
         m_fill_diagonal, m_fill_diagonal_view, m_copyto, m_copyto_where, m_add_at, m_subtract_at, m_put, m_fill,
         m_sort, m_shuffle_constant]

# function -> (the changed name, the other name or argument, words of the fix)
REFUSED = {
    v_real: ("`B`", "`A`", "B = A.real.copy()"),
    v_branch_view: ("`B`", "`A`", "B = A[1:].copy()"),
    v_held_then_store_base: ("`A`", "`acc`", "A.copy()"),
    v_reshape_order: ("`B`", "`A`", ".copy()"),
    v_unknown_function: ("`C`", "`A`", "C = unknown_view(A).copy()"),
    v_view_index_changed: ("`B`", "`A`", "B = A[i:].copy()"),
    v_tuple_held: ("`A`", "`t`", "A.copy()"),
    v_list_copy_is_shallow: ("`ys`", "`a`", "ys = [item.copy() for item in xs]"),
    m_multiply_at: ("np.multiply.at", "A", "assign"),
    m_putmask: ("putmask", "`A`", "np.where"),
    m_shuffle: ("shuffle", "`A`", "assign"),
    m_resize: ("A.resize(2)", "in place", "assign"),
    m_list_reverse: ("xs.reverse()", "in place", "xs = xs[::-1]"),
    m_stack: ("push(s, a * a)", "`s`", "s = push(s, a * a)"),
}


def arguments(function):
    name = function.__code__.co_varnames[0]
    return copy.deepcopy(ARGUMENTS.get(name, (V,)))


def fresh(args):
    return copy.deepcopy(args)


def leaves(value):
    """The arrays and numbers of a value, in order (dicts by key)."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item)]
    return [np.asarray(value, dtype=float)]


def direction(args, rng):
    """A random direction for the first argument (a number, an array, or a dict or list of arrays)."""
    first = args[0]
    if isinstance(first, dict):
        return {key: rng.standard_normal(np.shape(value)) for key, value in first.items()}
    if isinstance(first, list):
        return [rng.standard_normal(np.shape(value)) for value in first]
    return like(first, rng)


def moved(args, v, h):
    first = args[0]
    if isinstance(first, dict):
        return ({key: first[key] + h * v[key] for key in first},) + tuple(args[1:])
    if isinstance(first, list):
        return ([a + h * b for a, b in zip(first, v)],) + tuple(args[1:])
    return (first + h * v,) + tuple(args[1:])


def central(function, args, v, h=1e-6):
    plus, minus = function(*moved(fresh(args), v, h)), function(*moved(fresh(args), v, -h))
    return [(np.asarray(p) - np.asarray(m)) / (2.0 * h) for p, m in zip(leaves(plus), leaves(minus))]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("function", EXACT, ids=lambda f: f.__name__)
def test_reverse_mode_is_exact(function, optimize):
    args = arguments(function)
    rng = np.random.default_rng(3)
    vjp = srcad.autodiff(function, 0, mode="reverse", optimize=optimize)
    output = function(*fresh(args))
    u = like(output, rng)
    v = direction(args, rng)
    gradient = vjp(*fresh(args), u)
    expected = sum(inner(w, t) for w, t in zip(leaves(u), central(function, args, v)))
    got = sum(inner(g, d) for g, d in zip(leaves(gradient), leaves(v)))
    assert abs(got - expected) <= 1e-5 * max(1.0, abs(expected)), (function.__name__, got, expected)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("function", EXACT, ids=lambda f: f.__name__)
def test_forward_mode_is_exact(function, optimize):
    args = arguments(function)
    rng = np.random.default_rng(4)
    jvp = srcad.autodiff(function, 0, mode="forward", optimize=optimize)
    v = direction(args, rng)
    tangent = jvp(*fresh(args), v)
    for t, expected in zip(leaves(tangent), central(function, args, v)):
        np.testing.assert_allclose(t, expected, rtol=1e-5, atol=1e-6, err_msg=function.__name__)


@pytest.mark.parametrize("function", EXACT, ids=lambda f: f.__name__)
def test_value_and_grad_returns_what_f_returns(function):
    args = arguments(function)
    value, _ = srcad.value_and_grad(function)(*fresh(args))
    assert np.array_equal(value, function(*fresh(args)))
    out, tangent = srcad.jvp(function, fresh(args), (direction(args, np.random.default_rng(5)),))
    assert np.array_equal(out, function(*fresh(args)))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function", EXACT, ids=lambda f: f.__name__)
def test_derivatives_never_write_the_callers_arrays(function, mode):
    args = arguments(function)
    kept = copy.deepcopy(args)
    derivative = srcad.autodiff(function, 0, mode=mode)
    extra = like(function(*fresh(args)), np.random.default_rng(6)) if mode == "reverse" else \
        direction(args, np.random.default_rng(6))
    derivative(*args, extra)
    for before, after in zip(leaves(kept), leaves(args)):
        assert np.array_equal(before, after), function.__name__


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function", list(REFUSED), ids=lambda f: f.__name__)
def test_what_cannot_be_followed_is_refused_clearly(function, mode):
    changed, other, fix = REFUSED[function]
    with pytest.raises(srcad.AliasingError) as caught:
        srcad.source(function, mode=mode)
    message = str(caught.value)
    assert message.startswith(THIS_FILE + ":"), message
    for words in (changed, other, fix):
        assert words in message, (words, message)


def test_a_view_gets_its_own_copy_and_the_store_is_written_back():
    text = srcad.source(v_reshape, optimize=False)
    assert "B_views_A = shares(B, A)" in text
    assert "if B_views_A:" in text


def test_programs_without_changes_through_shared_memory_are_left_alone():
    def plain(x):
        A = x * 1.0
        B = A.reshape(3)
        return np.sum(B * x)
    assert "shares" not in srcad.source(plain)


# --------------------------------------------------------------------------
# one array passed for two parameters of a function that changes one of them in place

def writes_its_first_argument(x, y):
    x[0] = x[0] * 3.0
    return np.sum(x * y)


def reads_both_arguments(x, y):
    return np.sum(np.sin(x) * y)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("second", [lambda a: a, lambda a: a[:2], lambda a: a.reshape(3)],
                         ids=["same-array", "slice", "reshape"])
def test_one_array_for_two_parameters_that_f_changes_is_refused(mode, second):
    a = V.copy()
    arguments = (a, second(a))
    with pytest.raises(srcad.AliasingError) as caught:
        if mode == "reverse":
            srcad.grad(writes_its_first_argument, wrt=(0, 1))(*arguments)
        else:
            srcad.jvp(writes_its_first_argument, arguments, tuple(np.ones_like(v) for v in arguments))
    message = str(caught.value)
    assert message.startswith(f"{THIS_FILE}:"), message
    for words in ("`x` and `y`", "x[0] = x[0] * 3.0", "writes_its_first_argument(a, a.copy())"):
        assert words in message, message


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_distinct_arrays_or_a_function_that_changes_none_are_differentiated(mode):
    a = V.copy()
    check = check_reverse if mode == "reverse" else check_forward
    check(writes_its_first_argument, (a, a.copy()))
    check(reads_both_arguments, (a, a))   # nothing is changed in place: sharing is harmless
