"""Overflow: a zero adjoint or tangent times a value that overflowed is 0, not NaN (issue [trust], item 4).

Contract:
- ``OVERFLOW``: functions whose derivatives multiplied a zero adjoint (a
  branch ``np.where`` or ``np.maximum`` discarded, a saturated ``tanh``, a
  dead loop) by a partial derivative that overflowed to infinity.  In both
  modes the derivative holds no NaN, matches central finite differences, and
  the value ``value_and_grad``, ``vjp`` and ``jvp`` return is ``f(*args)``.
- A NaN that overflow does not explain stays: an infinite or NaN argument,
  an infinite f, ``inf - inf`` with no zero involved, a point where f
  computed only finite numbers and has no derivative.
- Derivatives that run normally never compute guarded products.
"""
import math
import os

import numpy as np
import pytest

import srcad
import srcad.api
import srcad.derivative
import srcad.overflow

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_reverse, check_values

THIS_FILE = os.path.abspath(__file__)


def overflow_in_a_dead_loop(x, y):   # fuzz seed 110187, minimised: the loop's x is never read again
    x = ((np.exp(np.tanh(y[1])) * -x[-1]) if np.maximum(x[0], x[0]) > -0.3 else np.arctan((x) ** 3)) * 1.0
    t0 = (np.arctan((x[-1] * x[-1])) * (y).sum(axis=0))
    t1 = t0[:2] * 1.0
    k2 = 0
    while k2 < 3:
        x = (np.log1p(np.exp(np.maximum(x, t1[1])))) ** 3
        k2 = k2 + 1
    return t0[0]


def overflow_into_a_saturated_tanh(w):   # fuzz seed 130037, minimised: t5 reaches -inf, tanh saturates
    t5 = ((np.where(w[1] > w[1], w[1], w[1]) + (w[1] * w[1])) - math.exp(math.sin(w[1] / (1.0 + w[1] * w[1]))))
    k6 = 0
    while k6 < 4:
        for i7 in range(3):
            t5 += -(t5) ** 2
        k6 = k6 + 1
    return np.exp(np.tanh((np.minimum(w[1], t5) * np.abs(w[1]))))


def overflow_into_arctan2(s):   # fuzz seed 1792, minimised: t10[1, 2] reaches -inf, arctan2 gives pi / 2
    t10 = np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]]) * 1.0
    for i11 in range(1, 3):
        for i12 in range(3, -1, -1):
            t10 = (((s) ** 3 + (t10[0, :]) ** 2) * t10)
    t14 = t10[:, 0] * -(s) ** 3
    return np.arctan2((np.arctan(s) - t10[1, 2]), 2.0 + np.cos(t14[1]))


def where_discards_an_overflow(x):
    return np.sum(np.where(x > 0.5, x ** 2, np.exp(1.0 / (x - 0.5))))


def maximum_discards_an_overflow(x):
    return np.sum(np.maximum(x, -np.exp(x * 1000.0)))


def tanh_of_an_overflow(x):
    return np.sum(np.tanh(np.exp(x)))


def logistic_sigmoid(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def overflow_in_a_dead_branch(x):
    y = x * 2.0
    if x[0] > 0.0:
        z = np.exp(x * 1000.0)   # never read
        y = y + 1.0
    return np.sum(y ** 2)


OVERFLOW = [
    (overflow_in_a_dead_loop, (np.array([0.15952133570778226, 0.6064153270222241, -1.2295868313352782]),
                               np.array([[0.34435171360238925, -0.44551561041963716, 0.2844379138305091],
                                         [1.3357525232202891, -1.4640832119417764, 0.4415035139589021]]))),
    (overflow_into_a_saturated_tanh, (np.array([0.23563029203059838, -0.6223970247786774]),)),
    (overflow_into_arctan2, (-0.9427113416224849,)),   # forward mode: J v from reverse mode
    (where_discards_an_overflow, (np.array([0.5001, 0.9, 0.2]),)),
    (maximum_discards_an_overflow, (np.array([1.0, 2.0, -0.5]),)),
    (tanh_of_an_overflow, (np.array([800.0, 0.3]),)),
    (tanh_of_an_overflow, (800.0,)),   # the scalar variant
    (logistic_sigmoid, (np.array([-800.0, 0.1, 750.0]),)),
    (logistic_sigmoid, (-800.0,)),
    (logistic_sigmoid, (np.linspace(-800.0, 2.0, 40),)),   # more than a few elements: found by np.vdot
    (overflow_in_a_dead_branch, (np.array([0.8, 0.4]),)),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # f itself overflows
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args", OVERFLOW, ids=[f"{f.__name__}-{type(a[0]).__name__}" for f, a in OVERFLOW])
def test_overflow_gives_no_nan(function, args, mode):
    assert np.all(np.isfinite(function(*args)))
    (check_reverse if mode == "reverse" else check_forward)(function, args)
    derivative = (srcad.grad(function, wrt=tuple(range(len(args))))(*args) if mode == "reverse" else
                  srcad.jvp(function, args, tuple(np.ones_like(a) for a in args))[1])
    assert not any(np.any(np.isnan(part)) for part in (derivative if isinstance(derivative, tuple)
                                                       else (derivative,))), derivative
    check_values(function, args)


@pytest.fixture
def recomputations(monkeypatch):
    """The calls that went to ``srcad.overflow.settled`` and the J v computed by reverse mode, counted."""
    counts = {"settled": 0, "jvp_by_reverse": 0}
    real_settled, real_jvp = srcad.overflow.settled, srcad.overflow._jvp_by_reverse

    def settled(*args, **kwargs):
        counts["settled"] += 1
        return real_settled(*args, **kwargs)

    def jvp_by_reverse(*args, **kwargs):
        counts["jvp_by_reverse"] += 1
        return real_jvp(*args, **kwargs)

    monkeypatch.setattr(srcad.general_call, "settled", settled)   # where Derivative.__call__ finds it
    monkeypatch.setattr(srcad.call_entry, "settled", settled)     # and the entry a second call writes out
    monkeypatch.setattr(srcad.overflow, "_jvp_by_reverse", jvp_by_reverse)
    return counts


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_loop_whose_adjoints_are_provably_zero_is_not_differentiated(recomputations):
    """The loop's x is never read after it: its adjoint is zero throughout, so no adjoint code runs
    (and no 0 * inf) there, and the derivative needs no recomputation."""
    function, args = OVERFLOW[0]
    derivative = srcad.grad(function, wrt=(0, 1))
    assert not any(np.any(np.isnan(g)) for g in derivative(*args))
    assert recomputations["settled"] == 0
    backward_loop = srcad.source(function).split("for t in range(trips):")[1].split("# t0 = ")[0]
    adjoint_lines = [line for line in backward_loop.splitlines() if line.strip().startswith("d")]
    assert "tape.pop()" in backward_loop and not adjoint_lines, backward_loop


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_forward_mode_whose_tangents_overflow_is_computed_by_reverse_mode(recomputations):
    """The tangents themselves overflow (inf - inf): no guarded product helps, so J v comes from one
    reverse sweep, whose zero adjoints do not overflow."""
    forward = srcad.autodiff(overflow_into_arctan2, mode="forward")
    assert forward(-0.9427113416224849, 1.0) == 0.0
    assert recomputations["jvp_by_reverse"] == 1


def difference_of_square_roots(x):
    return np.sqrt(x) - np.sqrt(x)


def cube_root_squared(x):
    return np.sum(np.cbrt(x) ** 2)


def arctan2_at_the_origin(y, x):
    return np.sum(np.arctan2(y, x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_nan_no_zero_explains_stays(mode):
    """inf - inf at the edge of sqrt's domain: no zero adjoint is involved, so the NaN stands."""
    derivative = (srcad.grad(difference_of_square_roots)(0.0) if mode == "reverse" else
                  srcad.jvp(difference_of_square_roots, (0.0,), (1.0,))[1])
    assert np.isnan(derivative)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args", [(cube_root_squared, (np.zeros(2),)),
                                           (arctan2_at_the_origin, (np.zeros(2), np.zeros(2)))],
                         ids=["cbrt-squared-at-0", "arctan2-at-the-origin"])
def test_no_derivative_where_f_computed_only_finite_numbers_gets_no_number(function, args, mode):
    """A zero times an infinity that f's finite computation did not make by overflowing is no artefact:
    x ** (2/3) has no derivative at 0, arctan2 none at the origin, and srcad does not invent 0."""
    if mode == "reverse":
        parts = srcad.grad(function, wrt=tuple(range(len(args))))(*args)
    else:
        parts = [srcad.jvp(function, args, tuple(np.ones_like(a) if i == j else np.zeros_like(a)
                                                  for j, a in enumerate(args)))[1] for i in range(len(args))]
    assert all(not np.isfinite(part).all() for part in parts), parts


def naive_softplus(s):
    return np.log(1.0 + np.exp(s))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_an_infinite_function_keeps_its_nan(mode):
    """f itself overflows (log(1 + inf)): its true slope 1 is lost, and the guarded recomputation's 0 would
    be a wrong number, so the NaN stands."""
    s = np.array([1400.0, 0.5])
    derivative = (srcad.autodiff(naive_softplus)(s, np.ones(2)) if mode == "reverse" else
                  srcad.jvp(naive_softplus, (s,), (np.ones(2),))[1])
    assert np.isnan(derivative[0]) and np.isclose(derivative[1], 1.0 / (1.0 + np.exp(-0.5)))


def test_benchmark_problems_compute_no_guarded_products():
    """The guarded products are built only to recompute a NaN: derivatives that run normally have none."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(THIS_FILE)), "benchmarks"))
    from problems import PROBLEMS
    for problem in PROBLEMS.values():
        for mode in ("reverse", "forward"):
            text = srcad.source(problem.function, wrt=tuple(problem.wrt), mode=mode)
            assert "strong_" not in text, (problem.name, mode)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_nan_input_gives_its_nan_without_recomputation(mode, monkeypatch):
    calls = []
    monkeypatch.setattr(srcad.overflow, "_primal_overflows", lambda *a: calls.append(a) or True)
    x = np.array([np.nan, 0.3])
    derivative = srcad.autodiff(logistic_sigmoid, mode=mode)
    result = derivative(x, np.ones(2) if mode == "forward" else 1.0)
    assert np.isnan(result[0] if mode == "reverse" else result) and not calls
