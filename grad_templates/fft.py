"""Rules for the real-valued functions of ``numpy.fft``: ``fftshift``, ``ifftshift``, ``fftfreq``, ``rfftfreq``.

``fftshift`` and ``ifftshift`` roll the zero frequency to the middle and
back: each is the other's inverse and transpose, so each one's adjoint is
the other.  ``fftfreq(n, d)`` and ``rfftfreq(n, d)`` are ``k / (n d)``:
linear in ``1 / d`` (``n`` is an integer).  Pass ``d`` by position: a rule
cannot name a parameter ``d`` (the derivative notation), so ``d=0.1`` is
refused at its line.

The transforms themselves (``fft``, ``rfft``, ``irfft``...) make complex
numbers, which srcad refuses where they meet a differentiated value
(``ComplexError``) until it differentiates complex numbers.
"""
import numpy as np

from srcad.templates import adjoint, d, tangent


@adjoint(np.fft.fftshift)
def fftshift_adjoint(y, x, axes=None):
    d[x] = np.fft.ifftshift(d[y], axes=axes)


@tangent(np.fft.fftshift)
def fftshift_tangent(y, x, axes=None):
    d[y] = np.fft.fftshift(d[x], axes=axes)


@adjoint(np.fft.ifftshift)
def ifftshift_adjoint(y, x, axes=None):
    d[x] = np.fft.fftshift(d[y], axes=axes)


@tangent(np.fft.ifftshift)
def ifftshift_tangent(y, x, axes=None):
    d[y] = np.fft.ifftshift(d[x], axes=axes)


@adjoint(np.fft.fftfreq)
def fftfreq_adjoint(y, n, d_=1.0):
    d[d_] = -np.sum(d[y] * y) / d_


@tangent(np.fft.fftfreq)
def fftfreq_tangent(y, n, d_=1.0):
    d[y] = -y * d[d_] / d_


@adjoint(np.fft.rfftfreq)
def rfftfreq_adjoint(y, n, d_=1.0):
    d[d_] = -np.sum(d[y] * y) / d_


@tangent(np.fft.rfftfreq)
def rfftfreq_tangent(y, n, d_=1.0):
    d[y] = -y * d[d_] / d_
