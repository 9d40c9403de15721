"""``srcad.check_grads``: it passes on right derivatives and reports wrong ones readably.

Contract checked here: right derivatives pass at order 1 and 2 in both modes,
for array, Python-float, matrix and tuple outputs and several arguments; a
deliberately wrong rule (registered with ``@srcad.adjoint``/``@srcad.tangent``
for a function of this module, and removed afterwards) raises AssertionError
whose message names the mode, the order, the argument and both numbers;
``wrt`` selects arguments by position or name (None: every float argument);
bad ``modes``/``order`` raise SrcadError; the inputs are never modified.
"""
import numpy as np
import pytest

import srcad
from srcad import d
from srcad.runtime import unbroadcast
from srcad.templates import REGISTRY

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)


def smooth(x, w):
    return np.sum(np.tanh(x * w) ** 2) + np.sin(w[0])


def vector_valued(x):
    return np.exp(x) * x[::-1]


def two_outputs(a):
    w, v = np.linalg.eigh(a)
    return w * 2.0, v


def scalar_code(x, y):
    return x * y + y ** 3 / (1.0 + x * x)


def with_integer(x, n):
    return np.sum(x ** n)


# A function with hand-written (and, in the tests that say so, wrong) rules.

def scaled(x, y):
    return 2.0 * x * y


def uses_scaled(x, y):
    return np.sum(np.sin(scaled(x, y)))


def _right_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * 2.0 * y, x)
    d[y] = unbroadcast(d[z] * 2.0 * x, y)


def _wrong_y_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * 2.0 * y, x)
    d[y] = unbroadcast(d[z] * 2.001 * x, y)


def _right_tangent(z, x, y):
    d[z] = 2.0 * (d[x] * y + x * d[y])


def _wrong_x_tangent(z, x, y):
    d[z] = 2.0 * (d[x] * y * 1.001 + x * d[y])


@pytest.fixture
def scaled_rules():
    """Register rules for ``scaled`` for one test, then remove them."""
    yield lambda adjoint, tangent: (srcad.adjoint(scaled)(adjoint), srcad.tangent(scaled)(tangent))
    for mode in ("reverse", "forward"):
        REGISTRY.rules[mode].pop(scaled, None)
    REGISTRY.version += 1


ARGS = (np.linspace(0.2, 1.0, 3), np.array([0.5, -1.0, 2.0]))


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("f, args", [
    (smooth, (np.linspace(-1.0, 1.0, 4), np.array([0.3, -0.7, 1.1, 0.2]))),
    (vector_valued, (np.array([0.1, -0.4, 0.9]),)),
    (two_outputs, (np.array([[2.0, 0.3], [0.3, 1.0]]),)),
    (scalar_code, (0.7, -1.3)),
], ids=["two-arguments", "vector-output", "tuple-output", "python-floats"])
def test_right_derivatives_pass(f, args, order):
    before = [np.copy(a) for a in args]
    assert srcad.check_grads(f, args, order=order) is None
    assert all(np.array_equal(a, b) for a, b in zip(args, before))


def test_wrt_by_position_or_name_and_integer_arguments_skipped():
    args = (np.array([0.5, 1.5]), 3)
    srcad.check_grads(with_integer, args)              # wrt=None: only the float argument
    srcad.check_grads(with_integer, args, wrt="x")
    srcad.check_grads(smooth, ARGS, wrt=(1,), modes="reverse")


def test_a_wrong_adjoint_is_reported_with_the_argument_and_numbers(scaled_rules):
    scaled_rules(_wrong_y_adjoint, _right_tangent)
    srcad.check_grads(uses_scaled, ARGS, modes=("forward",))     # forward mode is right
    with pytest.raises(AssertionError) as info:
        srcad.check_grads(uses_scaled, ARGS, modes=("reverse",))
    report = str(info.value)
    assert report.startswith("check_grads(uses_scaled): reverse mode, order 1, argument 'y' (position 1) "
                             "disagrees with finite differences")
    assert "<u, J v> by central differences" in report and "<J^T u, v> from srcad's reverse mode" in report
    assert "absolute error" in report and "allowed" in report and "rtol=1e-05" in report
    srcad.check_grads(uses_scaled, ARGS, wrt="x", modes=("reverse",))   # the rule for x is right


def test_a_wrong_tangent_is_reported_with_the_entry_that_disagrees(scaled_rules):
    scaled_rules(_right_adjoint, _wrong_x_tangent)
    srcad.check_grads(uses_scaled, ARGS, modes=("reverse",))
    with pytest.raises(AssertionError) as info:
        srcad.check_grads(uses_scaled, ARGS, modes=("forward",))
    report = str(info.value)
    assert "forward mode, order 1, argument 'x' (position 0)" in report
    assert "J v by central differences" in report and "J v from srcad's forward mode" in report


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_order_two_catches_a_wrong_rule(scaled_rules, mode):
    scaled_rules(_wrong_y_adjoint, _wrong_x_tangent)
    with pytest.raises(AssertionError, match=f"{mode} mode, order 2") as info:
        srcad.check_grads(uses_scaled, ARGS, modes=(mode,), order=2)
    assert "second-order central differences" in str(info.value)


def test_right_rules_pass_at_both_orders(scaled_rules):
    scaled_rules(_right_adjoint, _right_tangent)
    srcad.check_grads(uses_scaled, ARGS, order=1)
    srcad.check_grads(uses_scaled, ARGS, order=2)


def test_bad_options_are_errors():
    with pytest.raises(srcad.SrcadError, match="modes"):
        srcad.check_grads(smooth, ARGS, modes=("sideways",))
    with pytest.raises(srcad.SrcadError, match="order"):
        srcad.check_grads(smooth, ARGS, order=3)
    with pytest.raises(srcad.SrcadError, match="no float argument"):
        srcad.check_grads(with_integer, ([1, 2], 3))
