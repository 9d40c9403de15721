"""Python's `+` and `*` on lists and tuples, and `.copy()`: never NumPy's meaning by mistake.

Python joins and repeats lists and tuples with ``+`` and ``*``, where srcad's
rules for those operators are NumPy's, element by element.  Forward mode
moves tangents with the same operators, so it joins the tangent lists as
Python joins the values, and is right; reverse mode would sum a longer
derivative into a shorter operand (``xs + [v]`` gave ``[22, 3, 3]`` for
``[10, 3]``), so ``unbroadcast`` refuses a list or tuple operand whose
derivative has another length.  ``xs.copy()`` ran as ``np.copy(xs)``, an
array, so ``ys + ys`` after ``ys = xs.copy()`` added where Python joins: it
now runs as ``array_copy``, which refuses a list, tuple, dict or set with the
fix ``list(xs)``.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, check_forward, fd_directional
from srcad.errors import UnsupportedValueError


def joined_with_a_list(xs):
    zs = xs + [xs[0] * 3.0]
    return sum(z * z for z in zs)


def joined_tuples(x):
    t = (x[0], x[1]) + (x[0] * 3.0,)
    return sum(z * z for z in t)


def joined_lists_of_elements(x):
    zs = [x[0], x[1]] + [x[0] * 3.0]
    return sum(z * z for z in zs)


def repeated(xs):
    zs = xs * 2
    return sum(z * z * k for k, z in enumerate(zs))


def repeated_literal(x):
    zs = [x[0], x[1] * 2.0] * 2
    return sum(z * z * k for k, z in enumerate(zs))


def tuple_state(x):
    state = ()
    for k in range(3):
        state = state + (x[0] * k + x[1],)
    return sum(s * s for s in state)


def copied_list(xs):
    ys = xs.copy()
    zs = ys + ys
    return sum(z * z for z in zs)


def copied_dict(p):
    q = p.copy()
    return np.sum(q["w"] ** 2)


def copied_array(u0, c):
    u = u0.copy()
    u[1:] = u[1:] + c * u[:-1]
    v = u.copy()
    v *= 2.0
    return np.sum(u * v)


def elementwise_with_a_list(x, xs):
    return np.sum(np.sin(x) * xs + xs)


XS = [0.5, 1.5]
X = np.array([0.5, 1.5])


@pytest.mark.parametrize("f, arg", [(joined_with_a_list, XS), (joined_tuples, X), (joined_lists_of_elements, X),
                                    (repeated, XS)], ids=lambda v: getattr(v, "__name__", ""))
def test_joining_and_repeating_is_refused_in_reverse_mode_and_right_in_forward_mode(f, arg):
    with pytest.raises(UnsupportedValueError, match="joined two lists or tuples|joins or repeats it"):
        srcad.grad(f)(arg)
    direction = [1.0, -0.5] if isinstance(arg, list) else np.array([1.0, -0.5])
    value, tangent = srcad.jvp(f, (arg,), (direction,))
    assert value == f(arg)
    expected = fd_directional(lambda a: f(list(a) if isinstance(arg, list) else a), (np.array(arg),), (0,),
                              (np.array(direction),))
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)


def test_a_tuple_grown_by_joining_is_refused_in_reverse_mode():
    with pytest.raises(UnsupportedValueError, match="joined two lists or tuples"):
        srcad.grad(tuple_state)(X)


def test_a_repeated_list_literal_is_refused_in_reverse_mode():
    # (a loud NumPy error for now, naming the generated line and the user's line)
    with pytest.raises((UnsupportedValueError, ValueError)):
        srcad.grad(repeated_literal)(X)
    value, tangent = srcad.jvp(repeated_literal, (X,), (np.array([1.0, -0.5]),))
    np.testing.assert_allclose(tangent, fd_directional(repeated_literal, (X,), (0,), (np.array([1.0, -0.5]),)),
                               rtol=1e-6)


@pytest.mark.parametrize("f, arg, kind", [(copied_list, XS, "list"), (copied_dict, {"w": X}, "dict")])
def test_copy_of_a_container_is_refused_in_both_modes(f, arg, kind):
    with pytest.raises(UnsupportedValueError, match=f"`.copy\\(\\)` of a {kind}.*`ys = {kind}\\(xs\\)`"):
        srcad.grad(f)(arg)
    with pytest.raises(UnsupportedValueError, match=f"`.copy\\(\\)` of a {kind}"):
        srcad.autodiff(f, mode="forward")(arg, arg)


def test_copy_of_an_array_is_np_copy():
    check_both_modes(copied_array, (np.linspace(0.1, 0.9, 5), 0.4))
    assert "array_copy(u0)" in srcad.source(copied_array)


def test_a_list_operand_of_an_elementwise_operator_of_the_same_length():
    check_both_modes(elementwise_with_a_list, (X, np.array(XS)))
    check_forward(elementwise_with_a_list, (X, XS), wrt=0)
    gradient = srcad.grad(elementwise_with_a_list)(X, XS)
    np.testing.assert_allclose(gradient, np.cos(X) * np.array(XS))


def joined_fresh_items(w):
    z = w * 1.0
    h = [np.sum(z)] + [w[0]]    # np.sum(z) is a new value: h shares nothing with z
    z *= 2.0
    return h[0] * h[-1] + z[1]


def joined_after_a_view_store(w):
    z0 = np.ones(2)
    v = z0[...]
    v[1] = w[1]
    h = [w[0]] + [np.max(z0)]
    return h[0] * h[-1] + z0[1]


def joined_view(w):
    z = w * 1.0
    h = [z[0:1]] + [w[0]]       # a view of z: the change reaches h[0]
    z *= 2.0
    return np.sum(h[0]) * h[-1] + z[1]


@pytest.mark.parametrize("f", [joined_fresh_items, joined_after_a_view_store])
def test_a_joined_list_of_new_values_shares_nothing(f):
    """Fuzz seeds 2000416, 2000586: every name inside a joined list's items (``z`` in ``np.sum(z)``, even
    ``np``) was taken to share its memory, and forward mode was refused with a list ``.copy()`` as the fix."""
    check_forward(f, (np.array([0.5, 1.2]),))


def test_a_joined_list_holding_a_view_is_refused_with_a_fix_that_works():
    with pytest.raises(srcad.AliasingError) as raised:
        srcad.jvp(joined_view, (np.array([0.5, 1.2]),), (np.ones(2),))
    message = str(raised.value)
    assert "z.copy()" in message and "]).copy()" not in message
