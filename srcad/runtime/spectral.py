"""Complex parts and the transposes of ``numpy.fft``'s transforms, for derivatives of complex code.

Contract: srcad pairs a derivative ``g`` (an adjoint) with a perturbation
``t`` (a tangent) by ``Re(sum(g * t))``, with no conjugate (autograd's
convention: the gradient of a real ``f(x + iy)`` is ``df/dx - i df/dy``).
Under that pairing the adjoint of a holomorphic function is its plain
transpose (``g * f'(z)``), and the helpers here give the rest:

- ``real_input(x)`` is ``x`` itself; the derivative pass puts it where a real
  value meets complex numbers, and its adjoint keeps the real part of the
  adjoint that comes back (a real number cannot move in the imaginary
  direction);
- ``complex_abs``, ``real_part``, ``imag_part``, ``conjugate``, ``phase``
  are ``np.abs``, ``np.real``, ``np.imag``, ``np.conj``, ``np.angle``
  under names whose rules (``grad_templates/complex_parts.py``) are right
  for complex arguments too (the functions are not holomorphic);
  ``unit_phase(z)`` is ``z / |z|`` (0 at 0); ``close_real`` is ``np.real_if_close``;
- ``fft_transpose``, ``rfft_transpose``, ``irfft_transpose`` apply the
  transpose of a (multi-axis) transform to an adjoint and fit it back to
  the shape of the transformed argument (undoing the zero-padding or the
  truncation that ``n``/``s`` made); ``fft_fitted``, ``rfft_fitted``,
  ``irfft_fitted`` are their own transposes;
- ``like_real(g, x)`` is ``g``'s real part when ``x`` is real, else ``g`` as
  a complex array; ``like_kind(g, y)`` the real part when ``y`` is real.

Every helper is a function of NumPy values and never writes its arguments.

Example::

    >>> import numpy as np
    >>> complex(unit_phase(np.array(2j)))
    1j
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np


def real_input(x):
    """``x``, unchanged: marks a real value read where complex numbers are computed.

    Example::

        >>> real_input(2.0)
        2.0
    """
    return x


def like_real(grad, x):
    """``grad`` as an adjoint of ``x``: its real part when ``x`` is real (a real number's adjoint is real),
    else ``grad`` as a complex array (so adjoints added to it later may be complex).

    Example::

        >>> like_real(np.array([1 + 2j]), np.array([0.5]))
        array([1.])
    """
    if np.iscomplexobj(x):
        return grad if np.iscomplexobj(grad) else np.asarray(grad) + 0j
    return np.real(grad) if np.iscomplexobj(grad) else grad


def like_kind(grad, y):
    """``grad``'s real part when ``y`` is real, else ``grad``: a tangent of ``np.real_if_close``'s result.

    Example::

        >>> like_kind(np.array([1 + 2j]), np.array([0.5]))
        array([1.])
    """
    return np.real(grad) if not np.iscomplexobj(y) else grad


def close_real(a, tol=100):
    """``np.real_if_close(a, tol)``.

    Example::

        >>> close_real(np.array([1 + 1e-20j]))
        array([1.])
    """
    return np.real_if_close(a, tol)


def unit_phase(z):
    """``z / |z|``, and 0 where ``z`` is 0 (the one-sided choice for ``|z|``'s kink at 0).

    Example::

        >>> unit_phase(np.array([0j, -2 + 0j]))
        array([ 0.+0.j, -1.+0.j])
    """
    magnitude = np.abs(z)
    return np.where(magnitude == 0, 0.0, z / np.where(magnitude == 0, 1.0, magnitude))


def complex_abs(z):
    """``np.abs(z)``.

    Example::

        >>> float(complex_abs(3 + 4j))
        5.0
    """
    return np.abs(z)


def real_part(z):
    """``np.real(z)``.

    Example::

        >>> float(real_part(3 + 4j))
        3.0
    """
    return np.real(z)


def imag_part(z):
    """``np.imag(z)``.

    Example::

        >>> float(imag_part(3 + 4j))
        4.0
    """
    return np.imag(z)


def conjugate(z):
    """``np.conj(z)``.

    Example::

        >>> complex(conjugate(3 + 4j))
        (3-4j)
    """
    return np.conj(z)


def phase(z):
    """``np.angle(z)`` in radians.

    Example::

        >>> round(float(phase(1j)), 4)
        1.5708
    """
    return np.angle(z)


def _fit(array, shape: Sequence[int], axes: Sequence[int]):
    """``array`` cut or zero-padded at the end of each of ``axes`` to ``shape``'s length there."""
    for axis in axes:
        have, want = array.shape[axis], shape[axis]
        if have > want:
            array = np.take(array, np.arange(want), axis=axis)
        elif have < want:
            widths = [(0, 0)] * array.ndim
            widths[axis] = (0, want - have)
            array = np.pad(array, widths)
    return array


def transform_axes(x, lengths, axes, default_axes: Optional[Tuple[int, ...]]) -> Tuple[Tuple[int, ...], list]:
    """The axes (non-negative) and lengths a transform of ``x`` uses: ``n``/``s`` and ``axis``/``axes`` as given,
    else numpy.fft's defaults (``default_axes``: the last one or two axes; None for every axis).

    Example::

        >>> transform_axes(np.zeros((2, 3)), None, None, (-1,))
        ((1,), [3])
    """
    ndim = np.ndim(x)
    if axes is None:
        axes = default_axes if default_axes is not None else (tuple(range(-len(lengths), 0)) if lengths is not None
                                                              else tuple(range(ndim)))
    axes = tuple(int(axis) % ndim for axis in np.atleast_1d(axes))
    if lengths is None:
        lengths = [np.shape(x)[axis] for axis in axes]
    return axes, [int(length) for length in np.atleast_1d(lengths)]


def fft_transpose(grad, x, lengths, axes, norm, inverse: bool, default_axes=(-1,)):
    """The adjoint of ``fftn(x, s=lengths, axes=axes, norm=norm)`` (``ifftn`` when ``inverse``) for output
    adjoint ``grad``: the DFT matrix is symmetric, so its transpose is the transform itself, then the
    padding or cutting ``lengths`` did is undone.

    Example::

        >>> fft_transpose(np.array([1.0, 0.0, 0.0]), np.zeros(2), 3, -1, None, False)
        array([1., 1.])
    """
    axes, lengths = transform_axes(x, lengths, axes, default_axes)
    transform = np.fft.ifftn if inverse else np.fft.fftn
    grad = transform(grad, axes=axes, norm=norm)
    return like_real(_fit(grad, np.shape(x), axes), x)


def fft_fitted(grad, x, like, lengths, axes, norm, inverse: bool, default_axes=(-1,)):
    """The transpose of ``fft_transpose(., x, ...)`` for an adjoint ``grad`` shaped like ``x``: fitted to the
    shape of ``like`` (the transform's output), then transformed (for derivatives of derivatives).

    Example::

        >>> fft_fitted(np.array([1.0, 1.0]), np.zeros(2), np.zeros(2, complex), 2, -1, None, False)
        array([2.+0.j, 0.+0.j])
    """
    axes, _ = transform_axes(like, lengths, axes, default_axes)
    transform = np.fft.ifftn if inverse else np.fft.fftn
    return like_real(transform(_fit(like_real(grad, x), np.shape(like), axes), axes=axes, norm=norm), like)


def rfft_transpose(grad, x, lengths, axes, norm, default_axes=(-1,)):
    """The adjoint of ``rfftn(x, s=lengths, axes=axes, norm=norm)``: the half spectrum extended by zeros to
    the full length, transformed by ``fftn`` (its own transpose), real part, fitted back to ``x``'s shape.

    Example::

        >>> rfft_transpose(np.array([1.0, 0.0]), np.zeros(2), None, None, None)
        array([1., 1.])
    """
    axes, lengths = transform_axes(x, lengths, axes, default_axes)
    full = list(np.shape(grad))
    for axis, length in zip(axes, lengths):
        full[axis] = length
    grad = np.fft.fftn(_fit(grad, full, axes[-1:]), axes=axes, norm=norm)
    return np.real(_fit(grad, np.shape(x), axes))


def rfft_fitted(grad, x, like, lengths, axes, norm, default_axes=(-1,)):
    """The transpose of ``rfft_transpose(., x, ...)`` for an adjoint ``grad`` shaped like ``x``: fitted to the
    transformed lengths, transformed, and cut to the half spectrum ``like`` has (for derivatives of derivatives).

    Example::

        >>> rfft_fitted(np.array([1.0, 1.0]), np.zeros(2), np.zeros(2, complex), None, None, None)
        array([2.+0.j, 0.+0.j])
    """
    axes, lengths = transform_axes(x, lengths, axes, default_axes)
    full = list(np.shape(grad))
    for axis, length in zip(axes, lengths):
        full[axis] = length
    spectrum = np.fft.fftn(_fit(np.real(grad), full, axes), axes=axes, norm=norm)
    return like_real(_fit(spectrum, np.shape(like), axes[-1:]), like)


def _hermitian_weights(half: int, length: int, axis: int, ndim: int):
    """1 for the first entry of a half spectrum (and the last, for an even ``length``), 2 for the others, shaped
    to multiply along ``axis``: how often ``irfft`` reads each entry."""
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if length % 2 == 0:
        weights[-1] = 1.0
    return weights.reshape([half if each == axis else 1 for each in range(ndim)])


def irfft_transpose(grad, c, lengths, axes, norm, default_axes=(-1,)):
    """The adjoint of ``irfftn(c, s=lengths, axes=axes, norm=norm)`` for a real output adjoint ``grad``.

    ``irfftn`` reads each half-spectrum entry but the first (and, for an even
    length, the last) twice, as itself and as its conjugate: those entries'
    adjoints are doubled (the Hermitian weighting), and the imaginary parts
    it ignores get none.

    Example::

        >>> irfft_transpose(np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3, complex), None, None, None)
        array([0.25+0.j, 0.5 +0.j, 0.25+0.j])
    """
    axes, _ = transform_axes(grad, lengths, axes, default_axes)   # the output's shape holds the lengths
    last, length = axes[-1], np.shape(grad)[axes[-1]]
    half = length // 2 + 1
    spectrum = np.take(np.fft.ifftn(grad, axes=axes, norm=norm), np.arange(half), axis=last)
    spectrum = spectrum * _hermitian_weights(half, length, last, spectrum.ndim)
    return like_real(_fit(spectrum, np.shape(c), axes), c)


def irfft_fitted(grad, c, like, lengths, axes, norm, default_axes=(-1,)):
    """The transpose of ``irfft_transpose(., c, ...)`` for an adjoint ``grad`` shaped like ``c``, ``like`` the
    real output of ``irfftn`` (for derivatives of derivatives).

    Example::

        >>> irfft_fitted(np.array([1.0, 0.0, 0.0]), np.zeros(3, complex), np.zeros(4), None, None, None)
        array([0.25, 0.25, 0.25, 0.25])
    """
    axes, _ = transform_axes(like, lengths, axes, default_axes)
    last, length = axes[-1], np.shape(like)[axes[-1]]
    half = length // 2 + 1
    shape = [half if axis == last else size for axis, size in enumerate(np.shape(like))]
    spectrum = _fit(like_real(grad, c), shape, axes) * _hermitian_weights(half, length, last, len(shape))
    return np.real(np.fft.ifftn(_fit(spectrum, np.shape(like), [last]), axes=axes, norm=norm))
