"""Helpers that generated derivative code calls for matrix decompositions: Cholesky, eigh, SVD.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name.  ``*_grad(grad, result, a, ...)`` takes the
gradient of a decomposition's result (a list with one gradient per output
when it returns several) and returns the gradient of its input ``a``;
``*_tangent(tangent, result, ...)`` takes the input's tangent and returns the
result's (a tuple when it returns several).  Matrices may be stacked (the last
two axes are the matrix).  Real inputs only.

Symmetric input.  ``np.linalg.cholesky``, ``eigh`` and ``eigvalsh`` read
only one triangle of ``a`` (the lower one by default), so they are functions
of that triangle: their gradients are zero on the other strict triangle, and
an off-diagonal entry of the read triangle counts for both entries it stands
for.  Derivatives assume distinct eigenvalues (``eigh``) and distinct,
nonzero singular values (``svd``); they are undefined otherwise.

Example::

    >>> import numpy as np
    >>> a = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> cholesky_tangent(np.eye(2), np.linalg.cholesky(a)).shape
    (2, 2)
"""
from __future__ import annotations

import numpy as np


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _diag(v):
    """Stacked diagonal matrices with ``v`` (..., n) on their diagonals."""
    return v[..., :, None] * np.eye(np.shape(v)[-1])


def _lower_half(m):
    """The lower triangle of ``m`` with its diagonal halved (the map Phi of the Cholesky derivative)."""
    return np.tril(m) - 0.5 * _diag(np.diagonal(m, axis1=-2, axis2=-1))


def _read_triangle(m, lower=True):
    """The symmetric matrix a decomposition reads from one triangle of ``m``."""
    if lower:
        return np.tril(m) + _mT(np.tril(m, -1))
    return np.triu(m) + _mT(np.triu(m, 1))


def _onto_triangle(m, lower=True):
    """The gradient, with respect to the triangle read, of a function of the symmetric matrix it stands for.

    ``m`` is the gradient as if every entry were free; the result is
    ``tril(m + m^T)`` with the diagonal halved (``triu`` for the upper triangle).
    """
    both = m + _mT(m)
    half = 0.5 * _diag(np.diagonal(both, axis1=-2, axis2=-1))
    return (np.tril(both) if lower else np.triu(both)) - half


def _gap_inverse(values):
    """``F[i, j] = 1 / (values[j] - values[i])`` off the diagonal, 0 on it."""
    gaps = values[..., None, :] - values[..., :, None]
    eye = np.eye(np.shape(values)[-1], dtype=bool)
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gaps))


# --------------------------------------------------------------------------
# Cholesky: a = L L^T

def cholesky_grad(grad, factor, upper=False):
    """The gradient of ``factor = np.linalg.cholesky(a, upper=upper)`` with respect to ``a``.

    Example: ``cholesky_grad(np.ones((1, 1)), np.full((1, 1), 2.0))`` is ``array([[0.25]])``.
    """
    low, grad = (_mT(factor), _mT(grad)) if upper else (factor, grad)
    inner = _lower_half(_mT(low) @ grad)
    left = np.linalg.solve(_mT(low), inner)                  # L^-T Phi(L^T dL)
    free = _mT(np.linalg.solve(_mT(low), _mT(left)))         # ... L^-1
    return _onto_triangle(free, lower=not upper)


def cholesky_tangent(tangent, factor, upper=False):
    """The tangent of ``factor = np.linalg.cholesky(a, upper=upper)`` for the input tangent ``tangent``.

    Example: ``cholesky_tangent(np.ones((1, 1)), np.full((1, 1), 2.0))`` is ``array([[0.25]])``.
    """
    low = _mT(factor) if upper else factor
    symmetric = _read_triangle(tangent, lower=not upper)
    scaled = _mT(np.linalg.solve(low, _mT(np.linalg.solve(low, symmetric))))   # L^-1 dA L^-T
    result = low @ _lower_half(scaled)
    return _mT(result) if upper else result


# --------------------------------------------------------------------------
# eigh: a = V diag(w) V^T

def eigh_grad(grad, result, UPLO="L"):
    """The gradient of ``(w, v) = np.linalg.eigh(a, UPLO)`` with respect to ``a``; ``grad`` is ``[dw, dv]``.

    Example: ``eigh_grad([np.array([1.0, 0.0]), np.zeros((2, 2))], np.linalg.eigh(np.diag([1.0, 2.0])))``
    is ``array([[1., 0.], [0., 0.]])``.
    """
    w, v = result
    grad_w, grad_v = grad
    core = _diag(np.broadcast_to(grad_w, np.shape(w))) + _gap_inverse(w) * (_mT(v) @ grad_v)
    return _onto_triangle(v @ core @ _mT(v), lower=UPLO.upper() == "L")


def eigh_tangent(tangent, result, UPLO="L"):
    """The tangent ``(dw, dv)`` of ``(w, v) = np.linalg.eigh(a, UPLO)`` for the input tangent ``tangent``.

    Example: ``eigh_tangent(np.eye(2), np.linalg.eigh(np.diag([1.0, 2.0])))[0]`` is ``array([1., 1.])``.
    """
    w, v = result
    rotated = _mT(v) @ _read_triangle(tangent, lower=UPLO.upper() == "L") @ v
    return np.diagonal(rotated, axis1=-2, axis2=-1).copy(), v @ (_gap_inverse(w) * rotated)


def eigvalsh_grad(grad, a, UPLO="L"):
    """The gradient of ``w = np.linalg.eigvalsh(a, UPLO)`` with respect to ``a``.

    Example: ``eigvalsh_grad(np.array([1.0, 0.0]), np.diag([1.0, 2.0]))`` is ``array([[1., 0.], [0., 0.]])``.
    """
    v = np.linalg.eigh(a, UPLO=UPLO)[1]
    return _onto_triangle(v @ _diag(np.broadcast_to(grad, np.shape(a)[:-1])) @ _mT(v), lower=UPLO.upper() == "L")


def eigvalsh_tangent(tangent, a, UPLO="L"):
    """The tangent of ``w = np.linalg.eigvalsh(a, UPLO)`` for the input tangent ``tangent``.

    Example: ``eigvalsh_tangent(np.eye(2), np.diag([1.0, 2.0]))`` is ``array([1., 1.])``.
    """
    v = np.linalg.eigh(a, UPLO=UPLO)[1]
    rotated = _mT(v) @ _read_triangle(tangent, lower=UPLO.upper() == "L") @ v
    return np.diagonal(rotated, axis1=-2, axis2=-1).copy()


# --------------------------------------------------------------------------
# SVD: a = U diag(s) V^T

def _reduced(result, a):
    u, s, vh = result
    k = s.shape[-1]
    return u[..., :, :k], s, vh[..., :k, :], k


def svd_grad(grad, result, a):
    """The gradient of ``(u, s, vh) = np.linalg.svd(a)`` with respect to ``a``; ``grad`` is ``[du, ds, dvh]``.

    With ``full_matrices=True`` and a non-square ``a``, the extra columns of
    ``u`` (rows of ``vh``) are not determined by ``a``: a nonzero gradient on
    them raises ValueError.

    Example: with ``a = np.full((1, 1), 2.0)``,
    ``svd_grad([np.zeros((1, 1)), np.ones(1), np.zeros((1, 1))], np.linalg.svd(a), a)``
    is ``array([[1.]])``.
    """
    u, s, vh, k = _reduced(result, a)
    grad_u, grad_s, grad_vh = [np.broadcast_to(g, np.shape(r)) for g, r in zip(grad, result)]
    if np.any(grad_u[..., :, k:] != 0) or np.any(grad_vh[..., k:, :] != 0):
        raise ValueError("the derivative through the extra columns of u (rows of vh) that "
                         "np.linalg.svd(a, full_matrices=True) returns for a non-square a is not defined; "
                         "pass full_matrices=False")
    grad_u, grad_vh = grad_u[..., :, :k], grad_vh[..., :k, :]
    v, grad_v = _mT(vh), _mT(grad_vh)
    f = _gap_inverse(s * s)
    j = f * (_mT(u) @ grad_u - _mT(grad_u) @ u)
    l = f * (_mT(v) @ grad_v - _mT(grad_v) @ v)
    core = j * s[..., None, :] + _diag(grad_s) + s[..., :, None] * l
    result_grad = u @ core @ vh
    m, n = np.shape(a)[-2:]
    if m > k:
        result_grad = result_grad + (grad_u - u @ (_mT(u) @ grad_u)) / s[..., None, :] @ vh
    if n > k:
        result_grad = result_grad + u @ ((_mT(grad_v) - (_mT(grad_v) @ v) @ vh) / s[..., :, None])
    return result_grad


def svd_tangent(tangent, result, a):
    """The tangent ``(du, ds, dvh)`` of ``(u, s, vh) = np.linalg.svd(a)`` for the input tangent ``tangent``.

    With ``full_matrices=True`` and a non-square ``a``, the tangent of the
    extra columns of ``u`` (rows of ``vh``) is not defined and is NaN.

    Example: ``svd_tangent(np.ones((1, 1)), np.linalg.svd(np.full((1, 1), 2.0)), np.full((1, 1), 2.0))[1]``
    is ``array([1.])``.
    """
    full_u, s, full_vh = result
    u, s, vh, k = _reduced(result, a)
    v = _mT(vh)
    rotated = _mT(u) @ tangent @ v
    f = _gap_inverse(s * s)
    grad_s = np.diagonal(rotated, axis1=-2, axis2=-1).copy()
    tangent_u = u @ (f * (rotated * s[..., None, :] + s[..., :, None] * _mT(rotated)))
    tangent_u = tangent_u + (tangent @ v - u @ rotated) / s[..., None, :]
    tangent_v = v @ (f * (s[..., :, None] * rotated + _mT(rotated) * s[..., None, :]))
    tangent_v = tangent_v + (_mT(tangent) @ u - v @ _mT(rotated)) / s[..., None, :]
    if full_u.shape[-1] > k or full_vh.shape[-2] > k:
        tangent_u = np.concatenate([tangent_u, np.full(full_u.shape[:-1] + (full_u.shape[-1] - k,), np.nan)], -1)
        tangent_v = np.concatenate([tangent_v, np.full(full_vh.shape[:-2] + (full_vh.shape[-1],
                                                                         full_vh.shape[-2] - k), np.nan)], -1)
    return tangent_u, grad_s, _mT(tangent_v)


def singular_values_grad(grad, a):
    """The gradient of ``s = np.linalg.svd(a, compute_uv=False)`` with respect to ``a``: ``U diag(ds) V^T``.

    Example: ``singular_values_grad(np.ones(2), np.diag([3.0, 2.0]))`` is ``array([[1., 0.], [0., 1.]])``.
    """
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return u @ _diag(np.broadcast_to(grad, np.shape(u)[:-2] + np.shape(u)[-1:])) @ vh


def singular_values_tangent(tangent, a):
    """The tangent of ``s = np.linalg.svd(a, compute_uv=False)``: the diagonal of ``U^T da V``.

    Example: ``singular_values_tangent(np.eye(2), np.diag([3.0, 2.0]))`` is ``array([1., 1.])``.
    """
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.diagonal(_mT(u) @ tangent @ _mT(vh), axis1=-2, axis2=-1).copy()


def singular_direction_tangent(t, x, ord, axis=None):
    """The tangent along ``t`` of ``u v^T`` (``ord`` 2/-2: the largest/smallest singular pair of ``x``) or
    ``U V^T`` (``'nuc'``): the Hessian of the spectral or nuclear norm times ``t``.

    Example: ``singular_direction_tangent(np.eye(2), np.diag([2.0, 1.0]), 'nuc')`` is ``array([[0., 0.], [0., 0.]])``.
    """
    rows, columns = (0, 1)
    if axis is not None:
        rows, columns = (axis[0] % x.ndim, axis[1] % x.ndim)
    moved, moved_t = np.moveaxis(x, (rows, columns), (-2, -1)), np.moveaxis(t, (rows, columns), (-2, -1))
    result = np.linalg.svd(moved, full_matrices=False)
    tangent_u, _, tangent_vh = svd_tangent(moved_t, result, moved)
    u, vh = result[0], result[2]
    if ord != "nuc":
        k = 0 if ord == 2 else np.shape(u)[-1] - 1
        u, vh, tangent_u, tangent_vh = u[..., :, k:k + 1], vh[..., k:k + 1, :], tangent_u[..., :, k:k + 1], \
            tangent_vh[..., k:k + 1, :]
    return np.moveaxis(tangent_u @ vh + u @ tangent_vh, (-2, -1), (rows, columns))
