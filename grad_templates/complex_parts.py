"""Rules for the functions of complex numbers that are not holomorphic: ``|z|``, real and imaginary parts,
the conjugate, the phase, ``np.real_if_close``, the marker of a real value read among complex ones, and
``complex(a, b)`` of two real numbers.

In a function that computes with complex numbers, srcad calls these
functions by their names in ``srcad.runtime.spectral`` (``complex_abs`` for
``np.abs``...), so real-only code keeps its rules and its derivatives.
An adjoint ``g`` pairs with a tangent ``t`` by ``Re(sum(g * t))``; for a
real result the adjoint's imaginary part means nothing and only
``np.real(d[y])`` is used.  With ``u = z / |z|``:

- ``|z|``: tangent ``Re(conj(u) dz)``, adjoint ``Re(g) conj(u)``; at
  ``z == 0`` (a kink) both give 0, the one-sided choice of ``np.abs``;
- ``Re z``: tangent ``Re dz``, adjoint ``Re g``; ``Im z``: tangent
  ``Im dz``, adjoint ``-i Re g``; ``conj z``: tangent ``conj dz``, adjoint
  ``conj g``;
- ``angle z``: tangent ``Im(conj(z) dz) / |z|^2``, adjoint
  ``-i Re(g) conj(z) / |z|^2`` (infinite at 0, where the phase jumps).

Example: the gradient of ``np.sum(np.abs(z))`` at ``1 + 2j`` is
``(1 - 2j) / sqrt(5)``, autograd's value.
"""
import numpy as np

from srcad.runtime import spectral
from srcad.runtime.spectral import like_kind, like_real, unit_phase
from srcad.templates import adjoint, d, tangent


@adjoint(spectral.real_input)
def real_input_adjoint(y, x):
    d[x] = np.real(d[y])


@tangent(spectral.real_input)
def real_input_tangent(y, x):
    d[y] = d[x]


@adjoint(spectral.complex_abs)
def complex_abs_adjoint(y, z):
    d[z] = like_real(np.real(d[y]) * np.conj(unit_phase(z)), z)


@tangent(spectral.complex_abs)
def complex_abs_tangent(y, z):
    d[y] = np.real(np.conj(unit_phase(z)) * d[z])


@adjoint(spectral.real_part)
def real_part_adjoint(y, z):
    d[z] = like_real(np.real(d[y]), z)


@tangent(spectral.real_part)
def real_part_tangent(y, z):
    d[y] = np.real(d[z])


@adjoint(spectral.imag_part)
def imag_part_adjoint(y, z):
    d[z] = like_real(-1j * np.real(d[y]), z)


@tangent(spectral.imag_part)
def imag_part_tangent(y, z):
    d[y] = np.imag(d[z])


@adjoint(spectral.conjugate)
def conjugate_adjoint(y, z):
    d[z] = like_real(np.conj(d[y]), z)


@tangent(spectral.conjugate)
def conjugate_tangent(y, z):
    d[y] = np.conj(d[z])


@adjoint(spectral.phase)
def phase_adjoint(y, z):
    d[z] = like_real(-1j * np.real(d[y]) * np.conj(z) / np.abs(z) ** 2, z)


@tangent(spectral.phase)
def phase_tangent(y, z):
    d[y] = np.imag(np.conj(z) * d[z]) / np.abs(z) ** 2


@adjoint(spectral.close_real)
def close_real_adjoint(y, a, tol=100):
    d[a] = like_real(like_kind(d[y], y), a)


@tangent(spectral.close_real)
def close_real_tangent(y, a, tol=100):
    d[y] = like_kind(d[a], y)


@adjoint(spectral.like_real)
def like_real_adjoint(y, grad, x):
    d[grad] = like_real(like_real(d[y], x), grad)


@tangent(spectral.like_real)
def like_real_tangent(y, grad, x):
    d[y] = like_real(d[grad], x)


@adjoint(spectral.like_kind)
def like_kind_adjoint(y, grad, other):
    d[grad] = like_real(like_kind(d[y], other), grad)


@tangent(spectral.like_kind)
def like_kind_tangent(y, grad, other):
    d[y] = like_kind(d[grad], other)




@adjoint(spectral.unit_phase)
def unit_phase_adjoint(y, z):   # infinite at z == 0, where z / |z| jumps
    d[z] = like_real((d[y] - np.real(d[y] * y) * np.conj(y)) / np.abs(z), z)


@tangent(spectral.unit_phase)
def unit_phase_tangent(y, z):
    d[y] = (d[z] - y * np.real(np.conj(y) * d[z])) / np.abs(z)


@adjoint(complex)
def complex_adjoint(y, real=0.0, imag=0.0):   # y = real + 1j * imag, from two real numbers
    d[real] = np.real(d[y])
    d[imag] = -np.imag(d[y])


@tangent(complex)
def complex_tangent(y, real=0.0, imag=0.0):
    d[y] = d[real] + 1j * d[imag]
