"""Unpacking a value of unknown length (``a, b, c = x``): the derivative raises where f raises.

Generated code reads the names by position (``a = x[0]``...), which would
silently accept an ``x`` with more items than names (and a gradient would
come back for a call that raises).  ``check_unpacking(x, 3)`` runs first and
raises Python's own ``ValueError``, with Python's message.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes


def three(x):
    a, b, c = x
    return a * b + np.sin(c)


def pair_of_arrays(params, x):
    W, b = params
    return np.sum(np.tanh(W @ x + b))


def separate_arguments(W, b, x):
    return np.sum(np.tanh(W @ x + b))


@pytest.mark.parametrize("x", [np.arange(4.0), np.arange(2.0), [1.0, 2.0, 3.0, 4.0], (1.0, 2.0)],
                         ids=["array of 4", "array of 2", "list of 4", "tuple of 2"])
def test_the_wrong_number_of_values_raises_what_f_raises(x):
    with pytest.raises(ValueError) as raised_by_f:
        three(x)
    with pytest.raises(ValueError) as raised_by_grad:
        srcad.grad(three)(x)
    direction = np.ones(len(x)) if isinstance(x, np.ndarray) else type(x)([1.0] * len(x))
    with pytest.raises(ValueError) as raised_by_jvp:
        srcad.jvp(three, (x,), (direction,))
    assert str(raised_by_grad.value) == str(raised_by_f.value) == str(raised_by_jvp.value)


def test_the_right_number_of_values():
    check_both_modes(three, (np.array([0.3, -0.8, 1.1]),))
    rng = np.random.default_rng(2)
    W, b, x = rng.normal(size=(2, 3)), rng.normal(size=2), rng.normal(size=3)
    check_both_modes(pair_of_arrays, ((W, b), x), wrt=1)
    dW, db = srcad.grad(pair_of_arrays)((W, b), x)   # the tuple's gradient, against the same function of W, b
    separate = srcad.grad(separate_arguments, wrt=(0, 1))(W, b, x)
    np.testing.assert_allclose(dW, separate[0], rtol=1e-12)
    np.testing.assert_allclose(db, separate[1], rtol=1e-12)
    check_both_modes(separate_arguments, (W, b, x), wrt=(0, 1))
    assert "check_unpacking(x, 3)" in srcad.source(three)


def unpack_keys(d):
    a, b = d            # a dict unpacks into its keys
    return a * b


def unpack_keys_starred(d):
    a, *rest = d
    return a * len(rest)


@pytest.mark.parametrize("f", [unpack_keys, unpack_keys_starred])
def test_unpacking_a_dict_is_refused_not_read_by_position(f):
    """With int keys 0, 1 the derivative read ``d[0]``, ``d[1]`` (values) where f unpacks the keys: f gave 0,
    the derivative 6 and a gradient.  Now both modes raise."""
    d = {0: 2.0, 1: 3.0}
    assert f(d) == 0
    with pytest.raises(srcad.errors.UnsupportedValueError, match="unpacking a dict"):
        srcad.grad(f)(d)
    with pytest.raises(srcad.errors.UnsupportedValueError, match="unpacking a dict"):
        srcad.jvp(f, (d,), ({0: 1.0, 1: 0.0},))
