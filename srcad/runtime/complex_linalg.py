"""Helpers that generated derivative code calls for ``np.linalg.eigh``, ``eigvalsh``, ``svd``, ``norm`` and
``np.sort`` of complex matrices and vectors.

Contract: like ``srcad.runtime``: small pure functions of NumPy values.  In
a function that computes with complex numbers the derivative pass calls
``np.linalg.eigh``, ``eigvalsh``, ``svd`` and ``norm`` by the names here
(``hermitian_eigh``...), which compute the same values; their rules
(``grad_templates/complex_linalg.py``) pair an adjoint ``g`` with a
tangent ``t`` by ``Re(sum(g * t))`` (README, "Complex numbers"), so the
gradient of a real ``f(x + iy)`` is ``df/dx - i df/dy``.  The formulas hold
for real inputs too.  Each ``*_grad`` takes the adjoints of the outputs (a
list for several) and returns the input's; each ``*_tangent`` the input's
tangent and returns the outputs' tangents.  Matrices may be stacked.

Gauge: a unit eigenvector ``v`` of a Hermitian matrix, and a pair of
singular vectors ``(u, v)``, are determined up to a phase ``e^{i theta}``
(a sign for real matrices).  The tangents here keep the phase NumPy chose
fixed to first order (``Im(v^H dv) = 0`` on each eigenvector; the same
for each right singular vector, its left one takes the rest); the
gradients are exact for every function of the outputs that does not
depend on the phases (eigenvalues, singular values, ``|v|``, ``v v^H``,
``u v^H``, ``|u^H x|``...), and for a function that does depend on them
there is no derivative to give.  Like the real rules, they need distinct
eigenvalues (distinct, nonzero singular values).  ``eigh`` and
``eigvalsh`` read one triangle and the real part of the diagonal (as
LAPACK does), so their gradients are zero on the other strict triangle
and real on the diagonal.

The ``*_grad``/``*_tangent`` helpers are written with operations whose
rules hold for complex numbers (products, sums, transposes, ``np.conj``,
``np.real``, the SVD and eigh; triangles by masks, broadcasts by sums) so
that srcad differentiates their source again: second derivatives through
these functions, exact for the same phase-free functions.

``np.sort`` of complex numbers is a permutation (``complex_sort``): its
derivative moves each entry with it, and where two entries have equal real
parts and different imaginary parts (the sorted array jumps there)
``complex_sort_order`` raises ``UnsupportedValueError``.

Example::

    >>> a = np.array([[2.0, 1j], [-1j, 3.0]])
    >>> eigvalsh_grad_hermitian(np.array([0.0, 1.0]), a).shape
    (2, 2)
"""
from __future__ import annotations

import numpy as np

from .decompositions import _diag, _gap_inverse, _mT
from .linalg import _is_matrix_norm, norm_direction
from ..errors import UnsupportedValueError
from .spectral import unit_phase


def hermitian_eigh(a, UPLO="L"):
    """``np.linalg.eigh(a, UPLO)``, under the name whose rules hold for complex (Hermitian) matrices.

    Example: ``hermitian_eigh(np.array([[2.0, 1j], [-1j, 2.0]]))[0]`` is ``array([1., 3.])``.
    """
    return np.linalg.eigh(a, UPLO=UPLO)


def hermitian_eigvalsh(a, UPLO="L"):
    """``np.linalg.eigvalsh(a, UPLO)``, under the name whose rules hold for complex matrices.

    Example: ``hermitian_eigvalsh(np.array([[2.0, 1j], [-1j, 2.0]]))`` is ``array([1., 3.])``.
    """
    return np.linalg.eigvalsh(a, UPLO=UPLO)


def complex_svd(a, full_matrices=True, compute_uv=True):
    """``np.linalg.svd(a, full_matrices, compute_uv)``, under the name whose rules hold for complex matrices.

    Example: ``complex_svd(np.diag([2j, 1.0]), compute_uv=False)`` is ``array([2., 1.])``.
    """
    return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def complex_norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm(x, ord, axis, keepdims)``, under the name whose rules hold for complex arrays.

    Example: ``complex_norm(np.array([3j, 4.0]))`` is ``5.0``.
    """
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _broadcast(grad, like):
    """``grad`` (an adjoint, maybe complex) broadcast to ``like``'s shape, by a sum srcad differentiates again."""
    return grad + np.zeros(np.shape(like))


def _triangle_mask(size, lower, strict):
    """1.0 on the lower (or upper) triangle of a ``size`` by ``size`` matrix, its diagonal too unless ``strict``,
    else 0.0: a mask by which a product (whose rules hold for complex numbers) takes a triangle."""
    if lower:
        return np.tri(size, k=-1 if strict else 0)
    return 1.0 - np.tri(size, k=0 if strict else -1)


def _hermitian_from_triangle(m, lower=True):
    """The Hermitian matrix that eigh reads from one triangle of ``m`` and the real part of its diagonal."""
    strict = m * _triangle_mask(np.shape(m)[-1], lower, strict=True)
    return strict + _mH(strict) + _diag(np.real(np.diagonal(m, axis1=-2, axis2=-1)))


def _onto_hermitian_triangle(m, lower=True):
    """The adjoint of the read triangle, from the adjoint ``m`` of the Hermitian matrix it stands for:
    ``m + m^H`` on the strict triangle, ``Re m`` on the diagonal, 0 on the other strict triangle."""
    both = m + _mH(m)
    half = 0.5 * _diag(np.diagonal(both, axis1=-2, axis2=-1))
    return both * _triangle_mask(np.shape(m)[-1], lower, strict=False) - half


# --------------------------------------------------------------------------
# eigh: a = V diag(w) V^H, w real

def eigh_grad_hermitian(grad, result, UPLO="L"):
    """The adjoint of ``a`` from the adjoints ``[dw, dv]`` of ``(w, v) = np.linalg.eigh(a, UPLO)``.

    Example: ``eigh_grad_hermitian([np.array([1.0, 0.0]), np.zeros((2, 2))], np.linalg.eigh(np.eye(2) * [1, 2]))``
    is ``array([[1., 0.], [0., 0.]])``.
    """
    w, v = np.real(result[0]), result[1]   # the eigenvalues' adjoint stays real
    grad_w, grad_v = _broadcast(np.real(grad[0]), w), _broadcast(grad[1], v)
    core = _diag(grad_w) + _gap_inverse(w) * (_mT(v) @ grad_v)
    return _onto_hermitian_triangle(np.conj(v) @ core @ _mT(v), lower=UPLO.upper() == "L")


def eigh_tangent_hermitian(tangent, result, UPLO="L"):
    """The tangents ``(dw, dv)`` of ``(w, v) = np.linalg.eigh(a, UPLO)`` for the tangent ``tangent`` of ``a``.

    Example: ``eigh_tangent_hermitian(np.eye(2), np.linalg.eigh(np.eye(2) * [1, 2]))[0]`` is ``array([1., 1.])``.
    """
    w, v = np.real(result[0]), result[1]
    rotated = _mH(v) @ _hermitian_from_triangle(tangent, lower=UPLO.upper() == "L") @ v
    return np.real(np.diagonal(rotated, axis1=-2, axis2=-1)).copy(), v @ (_gap_inverse(w) * rotated)


def eigvalsh_grad_hermitian(grad, a, UPLO="L"):
    """The adjoint of ``a`` from the adjoint of ``w = np.linalg.eigvalsh(a, UPLO)``.

    Example: ``eigvalsh_grad_hermitian(np.array([1.0, 0.0]), np.eye(2) * [1, 2])`` is
    ``array([[1., 0.], [0., 0.]])``.
    """
    v = np.linalg.eigh(a, UPLO=UPLO)[1]
    values = _diag(np.real(grad) + np.zeros(np.shape(a)[:-1]))
    return _onto_hermitian_triangle(np.conj(v) @ values @ _mT(v), lower=UPLO.upper() == "L")


def eigvalsh_tangent_hermitian(tangent, a, UPLO="L"):
    """The tangent of ``w = np.linalg.eigvalsh(a, UPLO)`` for the tangent ``tangent`` of ``a``.

    Example: ``eigvalsh_tangent_hermitian(np.eye(2), np.eye(2) * [1, 2])`` is ``array([1., 1.])``.
    """
    v = np.linalg.eigh(a, UPLO=UPLO)[1]
    rotated = _mH(v) @ _hermitian_from_triangle(tangent, lower=UPLO.upper() == "L") @ v
    return np.real(np.diagonal(rotated, axis1=-2, axis2=-1)).copy()


# --------------------------------------------------------------------------
# SVD: a = U diag(s) V^H, vh = V^H

def _reduced(result):
    """``(u, s, vh, k)``: the ``k`` singular values and the singular vectors they determine (``u``'s first
    ``k`` columns, ``vh``'s first ``k`` rows); ``s`` read through ``np.real`` so its adjoint stays real."""
    s = np.real(result[1])
    k = np.shape(s)[-1]
    return result[0][..., :, :k], s, result[2][..., :k, :], k


def svd_grad_complex(grad, result, a):
    """The adjoint of ``a`` from the adjoints ``[du, ds, dvh]`` of ``(u, s, vh) = np.linalg.svd(a)``.

    A nonzero adjoint on the extra columns of ``u`` (rows of ``vh``) that
    ``full_matrices=True`` returns for a non-square ``a`` raises ValueError
    (they are not determined by ``a``).

    Example: with ``a = np.full((1, 1), 2j)``,
    ``svd_grad_complex([np.zeros((1, 1)), np.ones(1), np.zeros((1, 1))], np.linalg.svd(a), a)``
    is ``array([[0.-1.j]])`` (the gradient of ``|a|`` in srcad's convention).
    """
    u, s, vh, k = _reduced(result)
    grad_u, grad_s, grad_vh = _broadcast(grad[0], result[0]), _broadcast(grad[1], s), _broadcast(grad[2], result[2])
    if np.any(grad_u[..., :, k:] != 0) or np.any(grad_vh[..., k:, :] != 0):
        raise ValueError("the derivative through the extra columns of u (rows of vh) that "
                         "np.linalg.svd(a, full_matrices=True) returns for a non-square a is not defined; "
                         "pass full_matrices=False")
    bar_u, bar_v = np.conj(grad_u[..., :, :k]), _mT(grad_vh[..., :k, :])   # cotangents: Re tr(bar^H d)
    v = _mH(vh)
    gaps = _gap_inverse(s * s)
    left, right = _mH(u) @ bar_u, _mH(v) @ bar_v
    core = (gaps * (left - _mH(left))) * s[..., None, :] + s[..., :, None] * (gaps * (right - _mH(right)))
    core = core + _diag(np.real(grad_s))
    if np.iscomplexobj(left):   # the phase of each pair: its imaginary diagonal moves u alone
        core = core + _diag(1j * np.imag(np.diagonal(left, axis1=-2, axis2=-1)) / s)
    cotangent = u @ core @ vh
    m, n = np.shape(a)[-2:]
    if m > k:
        cotangent = cotangent + (bar_u - u @ left) / s[..., None, :] @ vh
    if n > k:
        cotangent = cotangent + u @ ((_mH(bar_v) - (_mH(bar_v) @ v) @ vh) / s[..., :, None])
    return np.conj(cotangent)


def svd_tangent_complex(tangent, result, a):
    """The tangents ``(du, ds, dvh)`` of ``(u, s, vh) = np.linalg.svd(a)`` for the tangent ``tangent`` of ``a``.

    With ``full_matrices=True`` and a non-square ``a`` the tangent of the
    extra columns of ``u`` (rows of ``vh``) is not defined and is NaN.

    Example: ``svd_tangent_complex(np.ones((1, 1)), np.linalg.svd(np.full((1, 1), 2.0)), np.full((1, 1), 2.0))[1]``
    is ``array([1.])``.
    """
    full_u, full_vh = result[0], result[2]
    u, s, vh, k = _reduced(result)
    v = _mH(vh)
    rotated = _mH(u) @ tangent @ v
    gaps = _gap_inverse(s * s)
    tangent_s = np.real(np.diagonal(rotated, axis1=-2, axis2=-1)).copy()
    inner_u = gaps * (rotated * s[..., None, :] + s[..., :, None] * _mH(rotated))
    if np.iscomplexobj(rotated):
        inner_u = inner_u + _diag(1j * np.imag(np.diagonal(rotated, axis1=-2, axis2=-1)) / s)
    tangent_u = u @ inner_u + (tangent @ v - u @ rotated) / s[..., None, :]
    tangent_v = v @ (gaps * (s[..., :, None] * rotated + _mH(rotated) * s[..., None, :]))
    tangent_v = tangent_v + (_mH(tangent) @ u - v @ _mH(rotated)) / s[..., None, :]
    if full_u.shape[-1] > k or full_vh.shape[-2] > k:
        undefined_u = np.nan * np.ones(full_u.shape[:-1] + (full_u.shape[-1] - k,))
        undefined_v = np.nan * np.ones(full_vh.shape[:-2] + (full_vh.shape[-1], full_vh.shape[-2] - k))
        tangent_u = np.concatenate([tangent_u, undefined_u], -1)
        tangent_v = np.concatenate([tangent_v, undefined_v], -1)
    return tangent_u, tangent_s, _mH(tangent_v)


def singular_values_grad_complex(grad, a):
    """The adjoint of ``a`` from the adjoint of ``s = np.linalg.svd(a, compute_uv=False)``: ``conj(U diag(ds) V^H)``.

    Example: ``singular_values_grad_complex(np.ones(2), np.diag([3j, 2.0]))`` is
    ``array([[0.-1.j, 0.+0.j], [0.+0.j, 1.+0.j]])``.
    """
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    values = _diag(np.real(grad) + np.zeros(np.shape(u)[:-2] + np.shape(u)[-1:]))
    return np.conj(u @ values @ vh)


def singular_values_tangent_complex(tangent, a):
    """The tangent of ``s = np.linalg.svd(a, compute_uv=False)``: the real diagonal of ``U^H da V``.

    Example: ``singular_values_tangent_complex(np.eye(2), np.diag([3j, 2.0]))`` is ``array([0., 1.])``.
    """
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.real(np.diagonal(_mH(u) @ tangent @ _mH(vh), axis1=-2, axis2=-1)).copy()


# --------------------------------------------------------------------------
# norms

def norm_direction_complex(x, ord=None, axis=None):
    """``e`` with ``d norm(x) = Re(sum(e * dx))``: the adjoint direction of ``np.linalg.norm(x, ord, axis)``.

    Norms of the entries' magnitudes (every vector norm, the Frobenius
    norm and the matrix 1/-1/inf/-inf norms) give the real norm's direction
    at ``|x|`` times ``conj(x / |x|)``, 0 where ``x`` is 0 (the real rules'
    one-sided choices at kinks and ties); the spectral norms 2/-2 give
    ``conj(u v^H)`` of the extreme singular pair, the nuclear norm ``conj(U V^H)``.

    Example: ``norm_direction_complex(np.array([3j, 4.0]))`` is ``array([0.-0.6j, 0.8+0.j])``.
    """
    if _is_matrix_norm(x, ord, axis) and ord in ("nuc", 2, -2):
        return _spectral_direction_complex(x, ord, axis)
    return norm_direction(np.abs(x), ord=ord, axis=axis) * np.conj(unit_phase(x))


def _spectral_direction_complex(x, ord, axis):
    """``conj(U V^H)`` (nuclear norm) or ``conj(u v^H)`` of the extreme singular pair (2/-2) of each matrix
    ``x`` holds on ``axis``, written with the SVD so that its own derivative is the SVD's."""
    rows, columns = (0, 1) if axis is None else axis   # np.moveaxis takes negative axes
    moved = np.moveaxis(x, (rows, columns), (-2, -1))
    u, _, vh = np.linalg.svd(moved, full_matrices=False)
    if ord != "nuc":
        k = 0 if ord == 2 else -1
        u, vh = u[..., :, k:k + 1 or None], vh[..., k:k + 1 or None, :]
    return np.moveaxis(np.conj(u @ vh), (-2, -1), (rows, columns))


# --------------------------------------------------------------------------
# sort

def complex_sort(a, axis=-1, kind=None, order=None):
    """``np.sort(a, axis, kind, order)``, under the name whose rules hold for complex arrays.

    Example: ``complex_sort(np.array([1 + 2j, 1j]))`` is ``array([0.+1.j, 1.+2.j])``.
    """
    return np.sort(a, axis=axis, kind=kind, order=order)


def complex_sort_order(a, axis=-1, kind=None):
    """``np.argsort(a, axis, kind)``, once ``a`` is checked to have no two entries with equal real parts and
    different imaginary parts along ``axis``: NumPy orders complex numbers by real part, then imaginary part,
    and at such a tie the sorted array jumps as the real parts move, so it has no derivative there
    (``UnsupportedValueError``, which the derivative notes with the user's line).

    Example: ``complex_sort_order(np.array([1 + 2j, 1j]))`` is ``array([1, 0])``.
    """
    order = np.argsort(a, axis=axis, kind=kind)
    ordered = np.take_along_axis(np.asarray(a), order, axis=axis) if axis is not None else np.ravel(a)[order]
    step = -1 if axis is None else axis
    real, imag = np.real(ordered), np.imag(ordered)
    same_real = np.diff(real, axis=step) == 0
    if np.iscomplexobj(a) and np.any(same_real & (np.diff(imag, axis=step) != 0)):
        raise UnsupportedValueError("np.sort of complex numbers reached two entries with equal real parts and different "
                           "imaginary parts: NumPy orders them by the imaginary part, so the sorted array jumps "
                           "as the real parts move apart, and it has no derivative there. To differentiate with "
                           "NumPy's order held fixed, gather by it: z[np.argsort(z)] (np.take_along_axis(z, "
                           "np.argsort(z, axis=0), axis=0) along an axis)")
    return order
