"""Rules for ``numpy.fft``: the transforms, ``fftshift``, ``ifftshift``, ``fftfreq``, ``rfftfreq``.

The transforms are linear.  A tangent is transformed like the argument; an
adjoint goes through the transpose (``srcad.runtime.spectral``): the DFT
matrix is symmetric, so the transpose of ``fft`` is ``fft`` itself (with
the same ``norm``), followed by undoing the zero-padding or the truncation
made by ``n``/``s``.  ``rfft``'s adjoint extends the half spectrum by zeros
and keeps the real part; ``irfft``'s doubles the entries it reads twice
(the Hermitian weighting).  Adjoints pair with tangents by
``Re(sum(adjoint * tangent))``: README, "Complex numbers".

``fftshift`` and ``ifftshift`` roll the zero frequency to the middle and
back: each is the other's inverse and transpose, so each one's adjoint is
the other.  ``fftfreq(n, d)`` and ``rfftfreq(n, d)`` are ``k / (n d)``:
linear in ``1 / d`` (``n`` is an integer).  Pass ``d`` by position: a rule
cannot name a parameter ``d`` (the derivative notation), so ``d=0.1`` is
refused at its line.

"""
import numpy as np

from srcad.runtime import spectral
from srcad.runtime.spectral import (fft_fitted, fft_transpose, irfft_fitted, irfft_transpose, like_real, rfft_fitted,
                                    rfft_transpose)
from srcad.templates import adjoint, d, tangent


@adjoint(np.fft.fft)
def fft_adjoint(y, a, n=None, axis=-1, norm=None):
    d[a] = fft_transpose(d[y], a, n, axis, norm, False)


@tangent(np.fft.fft)
def fft_tangent(y, a, n=None, axis=-1, norm=None):
    d[y] = np.fft.fft(d[a], n, axis, norm)


@adjoint(np.fft.ifft)
def ifft_adjoint(y, a, n=None, axis=-1, norm=None):
    d[a] = fft_transpose(d[y], a, n, axis, norm, True)


@tangent(np.fft.ifft)
def ifft_tangent(y, a, n=None, axis=-1, norm=None):
    d[y] = np.fft.ifft(d[a], n, axis, norm)


@adjoint(np.fft.fft2)
def fft2_adjoint(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = fft_transpose(d[y], a, s, axes, norm, False)


@tangent(np.fft.fft2)
def fft2_tangent(y, a, s=None, axes=(-2, -1), norm=None):
    d[y] = np.fft.fft2(d[a], s, axes, norm)


@adjoint(np.fft.ifft2)
def ifft2_adjoint(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = fft_transpose(d[y], a, s, axes, norm, True)


@tangent(np.fft.ifft2)
def ifft2_tangent(y, a, s=None, axes=(-2, -1), norm=None):
    d[y] = np.fft.ifft2(d[a], s, axes, norm)


@adjoint(np.fft.fftn)
def fftn_adjoint(y, a, s=None, axes=None, norm=None):
    d[a] = fft_transpose(d[y], a, s, axes, norm, False, None)


@tangent(np.fft.fftn)
def fftn_tangent(y, a, s=None, axes=None, norm=None):
    d[y] = np.fft.fftn(d[a], s, axes, norm)


@adjoint(np.fft.ifftn)
def ifftn_adjoint(y, a, s=None, axes=None, norm=None):
    d[a] = fft_transpose(d[y], a, s, axes, norm, True, None)


@tangent(np.fft.ifftn)
def ifftn_tangent(y, a, s=None, axes=None, norm=None):
    d[y] = np.fft.ifftn(d[a], s, axes, norm)


@adjoint(np.fft.rfft)
def rfft_adjoint(y, a, n=None, axis=-1, norm=None):
    d[a] = rfft_transpose(d[y], a, n, axis, norm)


@tangent(np.fft.rfft)
def rfft_tangent(y, a, n=None, axis=-1, norm=None):
    d[y] = np.fft.rfft(d[a], n, axis, norm)


@adjoint(np.fft.rfft2)
def rfft2_adjoint(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = rfft_transpose(d[y], a, s, axes, norm)


@tangent(np.fft.rfft2)
def rfft2_tangent(y, a, s=None, axes=(-2, -1), norm=None):
    d[y] = np.fft.rfft2(d[a], s, axes, norm)


@adjoint(np.fft.rfftn)
def rfftn_adjoint(y, a, s=None, axes=None, norm=None):
    d[a] = rfft_transpose(d[y], a, s, axes, norm, None)


@tangent(np.fft.rfftn)
def rfftn_tangent(y, a, s=None, axes=None, norm=None):
    d[y] = np.fft.rfftn(d[a], s, axes, norm)


@adjoint(np.fft.irfft)
def irfft_adjoint(y, a, n=None, axis=-1, norm=None):
    d[a] = irfft_transpose(d[y], a, n, axis, norm)


@tangent(np.fft.irfft)
def irfft_tangent(y, a, n=None, axis=-1, norm=None):
    d[y] = np.fft.irfft(d[a], n, axis, norm)


@adjoint(np.fft.irfft2)
def irfft2_adjoint(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = irfft_transpose(d[y], a, s, axes, norm)


@tangent(np.fft.irfft2)
def irfft2_tangent(y, a, s=None, axes=(-2, -1), norm=None):
    d[y] = np.fft.irfft2(d[a], s, axes, norm)


@adjoint(np.fft.irfftn)
def irfftn_adjoint(y, a, s=None, axes=None, norm=None):
    d[a] = irfft_transpose(d[y], a, s, axes, norm, None)


@tangent(np.fft.irfftn)
def irfftn_tangent(y, a, s=None, axes=None, norm=None):
    d[y] = np.fft.irfftn(d[a], s, axes, norm)


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


# the transposes, for derivatives of derivatives: linear in the adjoint they move, and each other's transpose

@adjoint(spectral.fft_transpose)
def fft_transpose_adjoint(y, grad, x, lengths, axes, norm, inverse, default_axes=(-1,)):
    d[grad] = fft_fitted(d[y], x, grad, lengths, axes, norm, inverse, default_axes)


@tangent(spectral.fft_transpose)
def fft_transpose_tangent(y, grad, x, lengths, axes, norm, inverse, default_axes=(-1,)):
    d[y] = fft_transpose(d[grad], x, lengths, axes, norm, inverse, default_axes)


@adjoint(spectral.fft_fitted)
def fft_fitted_adjoint(y, grad, x, like, lengths, axes, norm, inverse, default_axes=(-1,)):
    d[grad] = like_real(fft_transpose(like_real(d[y], like), x, lengths, axes, norm, inverse, default_axes), grad)


@tangent(spectral.fft_fitted)
def fft_fitted_tangent(y, grad, x, like, lengths, axes, norm, inverse, default_axes=(-1,)):
    d[y] = fft_fitted(d[grad], x, like, lengths, axes, norm, inverse, default_axes)


@adjoint(spectral.rfft_transpose)
def rfft_transpose_adjoint(y, grad, x, lengths, axes, norm, default_axes=(-1,)):
    d[grad] = rfft_fitted(d[y], x, grad, lengths, axes, norm, default_axes)


@tangent(spectral.rfft_transpose)
def rfft_transpose_tangent(y, grad, x, lengths, axes, norm, default_axes=(-1,)):
    d[y] = rfft_transpose(d[grad], x, lengths, axes, norm, default_axes)


@adjoint(spectral.rfft_fitted)
def rfft_fitted_adjoint(y, grad, x, like, lengths, axes, norm, default_axes=(-1,)):
    d[grad] = like_real(rfft_transpose(like_real(d[y], like), x, lengths, axes, norm, default_axes), grad)


@tangent(spectral.rfft_fitted)
def rfft_fitted_tangent(y, grad, x, like, lengths, axes, norm, default_axes=(-1,)):
    d[y] = rfft_fitted(d[grad], x, like, lengths, axes, norm, default_axes)


@adjoint(spectral.irfft_transpose)
def irfft_transpose_adjoint(y, grad, c, lengths, axes, norm, default_axes=(-1,)):
    d[grad] = irfft_fitted(d[y], c, grad, lengths, axes, norm, default_axes)


@tangent(spectral.irfft_transpose)
def irfft_transpose_tangent(y, grad, c, lengths, axes, norm, default_axes=(-1,)):
    d[y] = irfft_transpose(d[grad], c, lengths, axes, norm, default_axes)


@adjoint(spectral.irfft_fitted)
def irfft_fitted_adjoint(y, grad, c, like, lengths, axes, norm, default_axes=(-1,)):
    d[grad] = like_real(irfft_transpose(like_real(d[y], like), c, lengths, axes, norm, default_axes), grad)


@tangent(spectral.irfft_fitted)
def irfft_fitted_tangent(y, grad, c, like, lengths, axes, norm, default_axes=(-1,)):
    d[y] = irfft_fitted(d[grad], c, like, lengths, axes, norm, default_axes)
