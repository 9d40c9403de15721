"""A call whose value the derivative does not need still runs when it may raise, as in f.

Dead-code elimination dropped ``cond = helper0(x) > -0.3`` when nothing read
the choice it made, so where ``helper0`` raises, f raised and the derivative
returned a number (fuzz seed 1005314).  Calls of the user's own functions and
of ``math`` (domain and overflow errors) are kept as statements of their own.

More generally, an assignment f itself never uses is kept whole when it may
raise (``unused_statements``): an inlined helper's ``a[::-1]`` of what a loop
variable made a scalar raised ``IndexError`` in f while the derivative, which
had dropped it, returned a number (fuzz seed 1007110).  Only assignments that
cannot raise (a constant, a name, ``x.shape``) are dropped.
"""
import math

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes


def checked(v):
    if -v[1] > 0.5:
        raise ArithmeticError("out of range")
    return v[0]


def unused_choice(w, x):
    z = w.copy()
    z[:] = (w if checked(x) > -0.3 else -w)
    return np.sum(w * 2.0)


def unused_math(w, x):
    t = math.sqrt(x[1] + 0.5) * w[0]
    return np.sum(w * x)


def unused_numpy(w, x):
    t = np.sqrt(x[1] + 0.5) * w[0]   # NumPy warns (nan), but x[1] raises where x has one element
    n = x.shape                      # cannot raise: dropped
    return np.sum(w * x)


def shadowed(a0, a1):
    t0 = 0.0
    for a1, b2 in zip(np.exp(-a1 ** 2), a1 * a1[::-1]):   # a1 is a scalar after the loop
        t0 = t0 + a1 * b2
    z5 = np.zeros((2, 3))
    z5[:, 1] = z5[1, 2] * a1[::-1]
    return t0


def calls_shadowed(y):
    return shadowed(y, y[0, :]) + np.sum(y)


def unused_store(w, x):
    z = np.zeros(3)
    z[:] = w * x            # shapes that do not fit raise ValueError in f
    return np.sum(w * x)


W = np.array([1.0, 2.0])


@pytest.mark.parametrize("f, error", [(unused_choice, ArithmeticError), (unused_math, ValueError)],
                         ids=["user function", "math"])
def test_a_dead_call_that_raises_still_raises(f, error):
    x = np.array([0.5, -1.0])
    with pytest.raises(error):
        f(W, x)
    with pytest.raises(error):
        srcad.grad(f, wrt=(0, 1))(W, x)
    with pytest.raises(error):
        srcad.jvp(f, (W, x), (np.ones(2), np.ones(2)))
    check_both_modes(f, (W, np.array([0.5, 1.0])))   # where it does not raise: the derivative, unchanged


@pytest.mark.parametrize("f, args, error", [
    (unused_numpy, (W, np.array([0.5])), IndexError),
    (calls_shadowed, (np.ones((2, 3)),), IndexError),
    (unused_store, (W, np.array([0.5])), ValueError),
], ids=["numpy", "inlined helper", "element store"])
def test_an_unused_assignment_that_raises_still_raises(f, args, error):
    with pytest.raises(error):
        f(*args)
    wrt = tuple(range(len(args)))
    with pytest.raises(error):
        srcad.grad(f, wrt=wrt)(*args)
    with pytest.raises(error):
        srcad.jvp(f, args, tuple(np.ones_like(a) for a in args))


def test_unused_assignments_that_may_raise_are_kept_and_the_rest_dropped():
    source = srcad.source(unused_numpy, wrt=(0, 1))
    assert "t = np.sqrt(x[1] + 0.5) * w[0]" in source and "x.shape" not in source
    assert "math.sqrt" in srcad.source(unused_math, wrt=(0, 1))
    for mode in ("reverse", "forward"):
        assert "z5[:, 1] = z5[1, 2] * a1[::-1]" in srcad.source(calls_shadowed, mode=mode)
    check_both_modes(unused_numpy, (W, np.array([0.5, 1.0])))
    check_both_modes(unused_store, (np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.0, -2.0])))


def shadowing_loop(a1):
    t0 = 0.0
    for a1, b in zip(np.arctan(a1), a1 * a1[::-1]):   # a1 becomes each item: a scalar
        t0 = t0 + a1 * b
    return t0 * a1


def test_a_loop_variable_that_shadows_a_parameter():
    """Fuzz seed 1300015: the adjoint of the loop's scalar ``a1`` (a NumPy scalar zero) was then added to in
    place for the parameter ``a1`` (an array); a NumPy scalar zero is rebound by ``+=``, so that works, and
    the adjoint of ``x[..., None]`` of an np.float64 is written ``dx += v[..., 0]`` rather than stored into."""
    check_both_modes(shadowing_loop, (np.array([0.3, -0.7, 1.1]),))
