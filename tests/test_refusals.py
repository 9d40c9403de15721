"""Complex numbers and arguments with no float are refused, never differentiated wrongly ([trust] item 3).

A complex number that meets a differentiated value in a function whose
rule srcad has not checked for complex numbers raises ``ComplexError`` at
the line (complex numbers themselves are differentiated:
``tests/test_complex.py`` checks them); a differentiated argument that holds
no number at all (a str, None) raises ``WrtError``.
"""
from __future__ import annotations

import numpy as np
import pytest

import srcad
from srcad import ComplexError, WrtError
from gradcheck import check_both_modes


def cumulative_phase(t):
    return np.sum(np.real(np.maximum(np.exp(1j * t), 0.0)))   # the choice jumps where real parts tie


def astype_complex(x):
    return np.sum(np.abs(x.astype(complex) * x))


def labelled(x, name):
    return np.sum(x) * 2.0


def made_real_first(x):
    w = np.abs(np.exp(1j * np.arange(3.0)))   # complex, but real again before it meets x
    return np.sum(w * x)


MODES = {
    "reverse": lambda f, args, wrt=0: srcad.grad(f, wrt=wrt)(*args),
    "forward": lambda f, args, wrt=0: srcad.jvp(f, args, tuple(np.ones_like(a, dtype=float)
                                                              if isinstance(a, np.ndarray) else 1.0 for a in args)),
}

REFUSED = [
    (cumulative_phase, (np.array([0.5, 1.0]),), ComplexError, "`np.maximum` of complex numbers picks one"),
]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("f, args, error, words", REFUSED, ids=[f"{r[0].__name__}-{i}" for i, r in enumerate(REFUSED)])
def test_complex_values_are_refused(mode, f, args, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(")):
        MODES[mode](f, args)


@pytest.mark.parametrize("value", ["a", None, object()])
def test_a_differentiated_argument_without_a_float_is_refused(value):
    with pytest.raises(WrtError, match="cannot differentiate labelled with respect to `name`"):
        srcad.grad(labelled, wrt=1)(np.ones(2), value)
    np.testing.assert_array_equal(srcad.grad(labelled)(np.ones(2), value), [2.0, 2.0])   # not differentiated: fine


@pytest.mark.parametrize("mode", list(MODES))
def test_complex_values_made_real_before_they_meet_a_derivative_are_fine(mode):
    x = np.array([0.3, -0.2, 0.9])
    result = MODES[mode](made_real_first, (x,))
    expected = np.ones(3) if mode == "reverse" else 3.0
    np.testing.assert_allclose(result[1] if mode == "forward" else result, expected)


def test_astype_complex_is_differentiated_now():
    # `.astype(complex)` was refused; np.asarray's rules hold for complex numbers (tests/test_complex.py)
    check_both_modes(astype_complex, (np.array([0.5, -1.0]),))
