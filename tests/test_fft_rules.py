"""numpy.fft: the real functions are differentiated, and complex values never reach a derivative through them.

Contract: ``fftshift``/``ifftshift``/``fftfreq``/``rfftfreq`` have rules (their
rows are in the spec table) and keep a real array real, so the complex-number
refusal lets them through; a complex array they move (``fftshift(fft(c))``)
is still complex, and meeting a differentiated value it raises
``ComplexError``; the transforms themselves have no rule yet.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import make_function


def test_a_shifted_complex_spectrum_meeting_a_derivative_is_refused():
    f = make_function("def f(x):\n    spectrum = np.fft.fftshift(np.fft.fft(np.arange(4.0)))\n"
                      "    return np.sum(np.abs(spectrum * x))\n", {"np": np})
    with pytest.raises(srcad.ComplexError):
        srcad.grad(f)(np.ones(4))


def test_transforms_have_no_rule_yet():
    f = make_function("def f(x):\n    return np.sum(np.abs(np.fft.rfft(x)) ** 2)\n", {"np": np})
    with pytest.raises(srcad.MissingTemplateError, match="np.fft.rfft"):
        srcad.grad(f)(np.ones(4))


def test_shift_of_a_real_signal_in_both_modes():
    f = make_function("def f(x):\n    return np.sum(np.fft.ifftshift(np.fft.fftshift(x) * w))\n",
                      {"np": np, "w": np.arange(5.0)})
    x = np.linspace(-1.0, 1.0, 5)
    gradient = srcad.grad(f)(x)
    np.testing.assert_array_equal(gradient, np.fft.ifftshift(np.arange(5.0)))
    forward = srcad.autodiff(f, mode="forward")
    assert forward(x, np.eye(5)[2]) == pytest.approx(gradient[2])
