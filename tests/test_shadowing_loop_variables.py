"""A loop variable that shadows a parameter (or an earlier array) the loop's iterable reads.

``for w, b in zip(C - w[1], C ** 3)``: the iterable reads the parameter ``w``,
then each pass binds ``w`` to a number.  The backward loop re-zeroed the
adjoint of ``w`` with the shape of a pass's ``w`` (a number) at the end of
each pass, so the adjoint of the parameter, read by index after the loop,
raised ``IndexError`` (fuzz seed 1700754).  The adjoint is now re-zeroed
with the shape of the value the tape put back: what the name held before
that pass bound it.  Both modes against central differences; a name a loop
binds only in some passes (maybe never) still starts as 0.0.
"""
import numpy as np
import pytest

from gradcheck import check_both_modes

C = np.array([0.5, -1.0, 2.0])
X = np.array([0.3, -0.7, 1.1])


def shadowing_helper(a0, a1):
    t0 = 0.0
    for a1, b2 in zip(*((C - a1[1]), C ** 3)):
        t0 = t0 + a1 * b2
    return t0


def through_a_helper(w):
    return shadowing_helper(w[0], w) + np.sum(w * 0.5)


def indexed_in_the_iterable(w):
    t0 = 0.0
    for w, b2 in zip(C - w[1], C ** 3):
        t0 = t0 + w * b2
    return t0


def whole_in_the_iterable(w):
    t0 = 0.0
    for w in w * C:
        t0 = t0 + np.sin(w)
    return t0


def read_after_the_loop(w):
    t0 = 0.0
    for w, b2 in zip(C - w[2], C ** 2):
        t0 = t0 + w * b2
    return t0 * w   # the last item


def bound_in_some_passes(x):
    s = 0.0
    for i in range(3):
        if x[i] > 0.0:
            t = x[i] * 2.0
            s = s + t * x[0]
    return s


@pytest.mark.parametrize("f", [through_a_helper, indexed_in_the_iterable, whole_in_the_iterable,
                               read_after_the_loop, bound_in_some_passes], ids=lambda f: f.__name__)
def test_a_loop_variable_shadowing_what_its_iterable_reads(f):
    check_both_modes(f, (X,))
    check_both_modes(f, (-X,))
