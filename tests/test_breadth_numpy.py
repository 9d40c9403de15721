"""The NumPy rules of issue 20 where the spec table cannot reach: refusals, kinks, and every window of a convolution.

Contract:
- What srcad cannot differentiate exactly raises instead of returning a
  number: ``np.linalg.eig``/``eigvals`` with complex eigenvalues (ValueError
  when the derivative runs, both modes), the extra columns of
  ``np.linalg.qr(a, 'complete')`` (ValueError in reverse mode, NaN in forward
  mode), ``np.nan_to_num(x, copy=False)`` and ``np.interp(..., period=p)``
  (a SrcadError at the user's line: the rules do not take those arguments),
  ``np.gradient`` with more than three spacing arguments.
- The one-sided choices the rules document: ``np.interp`` has the slope of
  the piece to the right of a knot, and 0 at and beyond ``xp[-1]``;
  ``np.partition`` and ``np.sort`` send each tied element its own gradient;
  ``np.angle`` and ``np.imag`` of real numbers have derivative 0.
- ``np.convolve`` and ``np.correlate`` in every mode and every pair of
  lengths up to 5 (the window of ``'same'`` depends on which is longer) match
  finite differences in both modes.
"""
import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

ROTATION = np.array([[0.1, -1.0], [1.0, 0.1]])   # eigenvalues 0.1 +- 1j


def eigenvalue_sum(a):
    return np.sum(np.real(np.linalg.eig(a)[0]))


def eigvals_sum(a):
    return np.sum(np.real(np.linalg.eigvals(a)))


@pytest.mark.parametrize("f", [eigenvalue_sum, eigvals_sum])
def test_complex_eigenvalues_raise_in_both_modes(f):
    with pytest.raises(ValueError, match="complex eigenvalues"):
        srcad.grad(f)(ROTATION)
    with pytest.raises(ValueError, match="complex eigenvalues"):
        srcad.autodiff(f, mode="forward")(ROTATION, np.ones((2, 2)))


def complete_q(a):
    q, r = np.linalg.qr(a, mode="complete")
    return np.sum(q ** 3) + np.sum(r)


def test_extra_columns_of_complete_qr_have_no_derivative():
    tall = np.random.default_rng(0).standard_normal((4, 2))
    with pytest.raises(ValueError, match="extra columns of q"):
        srcad.grad(complete_q)(tall)
    assert np.isnan(srcad.autodiff(complete_q, mode="forward")(tall, np.ones((4, 2))))


def nan_to_num_in_place(x):
    return np.sum(np.nan_to_num(x, copy=False))


def periodic_interp(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0]), np.array([0.0, 2.0]), period=3.0))


def four_spacings(x):
    return np.sum(np.gradient(np.reshape(x, (2, 2, 2, 2)), 1.0, 2.0, 3.0, 4.0)[0])


@pytest.mark.parametrize("f", [nan_to_num_in_place, periodic_interp, four_spacings])
def test_arguments_the_rules_do_not_take_are_refused_at_the_line(f):
    with pytest.raises(SrcadError, match="do not match the rule") as error:
        srcad.grad(f)(np.ones(16) if f is four_spacings else np.ones(3))
    assert f"{__file__}:{f.__code__.co_firstlineno + 1}:" in str(error.value)   # the line of the call


def interp_sum(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])))


def test_interp_takes_the_slope_on_the_right_of_a_knot():
    at_knots = np.array([0.0, 1.0, 3.0, 5.0, -1.0])   # knots, then beyond the last and before the first
    expected = np.array([2.0, 0.5, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(srcad.grad(interp_sum)(at_knots), expected)
    np.testing.assert_array_equal(srcad.autodiff(interp_sum, mode="forward")(at_knots, np.ones(5)), expected.sum())


def partition_top(x):
    return np.partition(x, 2)[2:] @ np.array([1.0, 10.0])


def sorted_weights(x):
    return np.sort(x) @ np.array([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("f", [partition_top, sorted_weights])
def test_tied_elements_each_get_their_own_gradient(f):
    x = np.array([2.0, 0.5, 2.0, 1.0])
    gradient = srcad.grad(f)(x)
    assert sorted(gradient) == sorted(srcad.grad(f)(x + np.array([0.0, 0.0, 1e-9, 0.0])))   # one side of the tie
    forward = [srcad.autodiff(f, mode="forward")(x, e) for e in np.eye(4)]
    np.testing.assert_allclose(forward, gradient)


def angle_and_imag(x):
    return np.sum(np.angle(x) * x + np.imag(x) * x ** 2)


def test_angle_and_imag_of_real_numbers_are_piecewise_constant():
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    np.testing.assert_allclose(srcad.grad(angle_and_imag)(x), np.angle(x))
    check_reverse(angle_and_imag, (x,))


CONVOLUTIONS = [(name, mode) for name in ("convolve", "correlate") for mode in ("full", "same", "valid")]


@pytest.mark.parametrize("name, mode", CONVOLUTIONS, ids=[f"{n}-{m}" for n, m in CONVOLUTIONS])
def test_convolutions_for_every_pair_of_lengths(name, mode):
    f = make_function(f"def conv_{name}_{mode}(a, v):\n    return np.{name}(a, v, mode={mode!r})\n", {"np": np})
    rng = np.random.default_rng(3)
    for n in range(1, 6):
        for m in range(1, 6):
            args = (rng.standard_normal(n), rng.standard_normal(m))
            check_reverse(f, args)
            check_forward(f, args)
            check_forward_reverse(f, args)
