"""Rules for ``scipy.signal.convolve``, ``correlate`` and ``fftconvolve``, registered when ``scipy.signal`` is
imported.

A convolution is bilinear, so each tangent is two convolutions with one
tangent each, in the call's own mode.  The adjoints use ``y = full[centre]``
(modes ``same`` and ``valid`` keep the centred part of the full convolution):
the output gradient padded back to the full shape (``full_padding``), then
``d in1 = correlate(g_full, in2, 'valid')`` and
``d in2 = correlate(g_full, in1, 'valid')``.  ``correlate(in1, in2)`` is
``convolve(in1, flip(in2))`` in every mode, which gives its rules.  Real
arrays of any (equal) number of dimensions; ``method`` is passed on.
``fftconvolve``'s ``axes`` is not a rule parameter: a call that passes it is
refused.
"""
import numpy as np
from scipy import signal

from srcad.runtime.convolution import full_padding
from srcad.templates import adjoint, d, nondifferentiable, tangent

nondifferentiable(full_padding, reason="it computes widths (integers) from shapes")


@adjoint(signal.convolve)
def convolve_adjoint(y, in1, in2, mode="full", method="auto"):
    if mode == "full":
        full = d[y]
    else:
        full = np.pad(d[y], full_padding(y, in1, in2))
    d[in1] = signal.correlate(full, in2, mode="valid", method=method)
    d[in2] = signal.correlate(full, in1, mode="valid", method=method)


@tangent(signal.convolve)
def convolve_tangent(y, in1, in2, mode="full", method="auto"):
    d[y] = signal.convolve(d[in1], in2, mode=mode, method=method) + signal.convolve(in1, d[in2], mode=mode,
                                                                                    method=method)


@adjoint(signal.correlate)
def correlate_adjoint(y, in1, in2, mode="full", method="auto"):
    if mode == "full":
        full = d[y]
    else:
        full = np.pad(d[y], full_padding(y, in1, in2))
    d[in1] = signal.correlate(full, np.flip(in2), mode="valid", method=method)
    d[in2] = np.flip(signal.correlate(full, in1, mode="valid", method=method))


@tangent(signal.correlate)
def correlate_tangent(y, in1, in2, mode="full", method="auto"):
    d[y] = signal.correlate(d[in1], in2, mode=mode, method=method) + signal.correlate(in1, d[in2], mode=mode,
                                                                                      method=method)


@adjoint(signal.fftconvolve)
def fftconvolve_adjoint(y, in1, in2, mode="full"):
    if mode == "full":
        full = d[y]
    else:
        full = np.pad(d[y], full_padding(y, in1, in2))
    d[in1] = signal.correlate(full, in2, mode="valid", method="fft")
    d[in2] = signal.correlate(full, in1, mode="valid", method="fft")


@tangent(signal.fftconvolve)
def fftconvolve_tangent(y, in1, in2, mode="full"):
    d[y] = signal.fftconvolve(d[in1], in2, mode=mode) + signal.fftconvolve(in1, d[in2], mode=mode)
