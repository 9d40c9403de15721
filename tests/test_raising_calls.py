"""A call whose value the derivative does not need still runs when it may raise, as in f.

Dead-code elimination dropped ``cond = helper0(x) > -0.3`` when nothing read
the choice it made, so where ``helper0`` raises, f raised and the derivative
returned a number (fuzz seed 1005314).  Calls of the user's own functions and
of ``math`` (domain and overflow errors) are kept as statements of their own;
NumPy, which warns instead, is dropped as before.
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
    t = np.sqrt(x[1] + 0.5) * w[0]   # NumPy warns (nan): nothing to raise, so nothing to keep
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


def test_a_dead_numpy_call_is_dropped():
    assert "np.sqrt" not in srcad.source(unused_numpy, wrt=(0, 1))
    assert "math.sqrt" in srcad.source(unused_math, wrt=(0, 1))
