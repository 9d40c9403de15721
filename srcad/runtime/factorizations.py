"""Helpers that generated derivative code calls for ``np.linalg.eig``, ``eigvals``, ``qr``, ``lstsq``,
``pinv(a, hermitian=True)`` and ``matrix_power``.

Contract: like ``srcad.runtime.decompositions``: ``*_grad(grad, result,
a, ...)`` takes the gradient of a function's result (a list with one
gradient per output when it returns several, zeros for outputs not used)
and returns the gradient of ``a``; ``*_tangent`` takes an input's tangent and
returns the result's (a tuple when it returns several).  Written with NumPy
operations srcad has rules for, so srcad differentiates their source again.
Real inputs only.

- ``eig``/``eigvals`` of a real matrix whose eigenvalues are real and
  distinct (eigenvectors of unit length, as NumPy returns them).  Where NumPy
  returns complex eigenvalues the helpers raise ValueError: srcad
  differentiates real numbers only (``eigh`` suits a symmetric matrix).
- ``qr`` in the modes 'reduced', 'complete' and 'r', for full-rank matrices
  of any shape.  With 'complete' and more rows than columns the extra
  columns of ``q`` are not determined by ``a``: a nonzero gradient on them
  raises ValueError and their tangent is NaN.
- ``lstsq(a, b)`` (``lstsq_grads`` gives both gradients) of constant rank: the solution ``pinv(a) b`` (with
  ``lstsq``'s cutoff of small singular values), the residuals (the
  derivative of a minimum: ``a^T r = 0``), the singular values; the rank
  has derivative zero.

Example::

    >>> import numpy as np
    >>> eigenvalue_gaps(np.array([1.0, 3.0]))
    array([[ 0. ,  0.5],
           [-0.5,  0. ]])
"""
from __future__ import annotations

import numpy as np

from .decompositions import _onto_triangle, _read_triangle, singular_values_grad, singular_values_tangent
from .linalg import pinv_grad, pinv_tangent


def _mT(a):
    return np.swapaxes(a, -1, -2)


# --------------------------------------------------------------------------
# eig and eigvals: a = V diag(w) V^-1

def require_real_eigenvalues(result, name):
    """Raise ValueError when ``result = np.linalg.eig(a)`` is complex (srcad differentiates real numbers only).

    Example: ``require_real_eigenvalues(np.linalg.eig(np.eye(2)), "eig")`` returns None.
    """
    if any(np.iscomplexobj(part) for part in result):
        raise ValueError(f"np.linalg.{name} returned complex eigenvalues: srcad differentiates real numbers only, "
                         "so it differentiates eig and eigvals of matrices with real eigenvalues (for a symmetric "
                         "matrix, use np.linalg.eigh or eigvalsh)")


def eigenvalue_gaps(w):
    """``F[..., i, j] = 1 / (w_j - w_i)`` off the diagonal and 0 on it.

    Example: ``eigenvalue_gaps(np.array([1.0, 3.0]))`` is ``array([[ 0. ,  0.5], [-0.5,  0. ]])``.
    """
    n = np.shape(w)[-1]
    eye = np.eye(n, dtype=bool)
    gaps = w[..., None, :] - w[..., :, None]
    return np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, gaps))


def eig_grad(grad, result, a):
    """The gradient of ``(w, v) = np.linalg.eig(a)`` with respect to ``a``; ``grad`` is ``[dw, dv]``.

    Example: ``eig_grad([np.ones(2), np.zeros((2, 2))], np.linalg.eig(np.diag([1.0, 2.0])), np.diag([1.0, 2.0]))``
    is ``array([[1., 0.], [0., 1.]])``.
    """
    require_real_eigenvalues(result, "eig")
    w, v = result
    grad_w, grad_v = np.broadcast_to(grad[0], np.shape(w)), np.broadcast_to(grad[1], np.shape(v))
    free_v = grad_v - v * np.sum(v * grad_v, axis=-2, keepdims=True)   # unit columns: no gradient along each
    inner = grad_w[..., :, None] * np.eye(np.shape(w)[-1]) + eigenvalue_gaps(w) * (_mT(v) @ free_v)
    return np.linalg.solve(_mT(v), inner @ _mT(v))


def eig_tangent(tangent, result, a):
    """The tangent ``(dw, dv)`` of ``(w, v) = np.linalg.eig(a)`` for the input tangent ``tangent``.

    Example: ``eig_tangent(np.eye(2), np.linalg.eig(np.diag([1.0, 2.0])), np.diag([1.0, 2.0]))[0]``
    is ``array([1., 1.])``.
    """
    require_real_eigenvalues(result, "eig")
    w, v = result
    rotated = np.linalg.solve(v, tangent @ v)
    tangent_v = v @ (eigenvalue_gaps(w) * rotated)
    tangent_v = tangent_v - v * np.sum(v * tangent_v, axis=-2, keepdims=True)
    return np.diagonal(rotated, axis1=-2, axis2=-1).copy(), tangent_v


def eigvals_grad(grad, a):
    """The gradient of ``w = np.linalg.eigvals(a)``: ``V^-T diag(dw) V^T``.

    Example: ``eigvals_grad(np.ones(2), np.diag([1.0, 2.0]))`` is ``array([[1., 0.], [0., 1.]])``.
    """
    result = np.linalg.eig(a)
    require_real_eigenvalues(result, "eigvals")
    w, v = result
    return np.linalg.solve(_mT(v), np.broadcast_to(grad, np.shape(w))[..., :, None] * _mT(v))


def eigvals_tangent(tangent, a):
    """The tangent of ``w = np.linalg.eigvals(a)``: the diagonal of ``V^-1 da V``.

    Example: ``eigvals_tangent(np.eye(2), np.diag([1.0, 2.0]))`` is ``array([1., 1.])``.
    """
    result = np.linalg.eig(a)
    require_real_eigenvalues(result, "eigvals")
    return np.diagonal(np.linalg.solve(result[1], tangent @ result[1]), axis1=-2, axis2=-1).copy()


# --------------------------------------------------------------------------
# qr: a = q r

def _qr_tall_grad(grad_q, grad_r, q, r):
    """The gradient of the reduced QR of a matrix with at least as many rows as columns."""
    m = r @ _mT(grad_r) - _mT(grad_q) @ q
    symmetric = np.tril(m) + _mT(np.tril(m, -1))
    return _mT(np.linalg.solve(r, _mT(grad_q + q @ symmetric)))


def _qr_tall_tangent(tangent, q, r):
    """The tangent ``(dq, dr)`` of the reduced QR of a matrix with at least as many rows as columns."""
    over_r = _mT(np.linalg.solve(_mT(r), _mT(tangent)))   # tangent r^-1
    c = _mT(q) @ over_r
    lower = np.tril(c, -1)
    omega = lower - _mT(lower)
    return q @ omega + over_r - q @ c, (c - omega) @ r


def require_qr_mode(mode):
    """Raise ValueError unless srcad differentiates ``np.linalg.qr`` in ``mode``.

    Example: ``require_qr_mode("reduced")`` returns None.
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"srcad differentiates np.linalg.qr in the modes 'reduced', 'complete' and 'r', not {mode!r}")


def _qr_factors(result, a, mode):
    """(q, r) of ``a`` with as many columns of ``q`` as ``min(m, n)``, whatever ``mode`` returned."""
    require_qr_mode(mode)
    if mode == "r":
        return np.linalg.qr(a)
    k = min(np.shape(a)[-2:])
    return result[0][..., :, :k], result[1][..., :k, :]


def require_no_extra_columns(grad_q, k):
    """Raise ValueError when ``grad_q`` is nonzero beyond the first ``k`` columns of ``q``.

    Example: ``require_no_extra_columns(np.zeros((3, 3)), 2)`` returns None.
    """
    if np.any(grad_q[..., :, k:] != 0):
        raise ValueError("the derivative through the extra columns of q that np.linalg.qr(a, 'complete') "
                         "returns for a matrix with more rows than columns is not defined; use mode 'reduced'")


def qr_grad(grad, result, a, mode="reduced"):
    """The gradient of ``np.linalg.qr(a, mode)`` with respect to ``a``; ``grad`` is ``[dq, dr]`` (``dr`` for 'r').

    Example: ``qr_grad([np.zeros((1, 1)), np.ones((1, 1))], np.linalg.qr(np.full((1, 1), 2.0)), np.full((1, 1), 2.0))``
    is ``array([[1.]])``.
    """
    q, r = _qr_factors(result, a, mode)
    k = np.shape(q)[-1]
    if mode == "r":
        grad_q, grad_r = np.zeros(np.shape(q)), np.broadcast_to(grad, np.shape(r))
    else:
        grad_q = np.broadcast_to(grad[0], np.shape(result[0]))
        grad_r = np.broadcast_to(grad[1], np.shape(result[1]))
        require_no_extra_columns(grad_q, k)
        grad_q, grad_r = grad_q[..., :, :k], grad_r[..., :k, :]
    if np.shape(a)[-2] >= np.shape(a)[-1]:
        return _qr_tall_grad(grad_q, grad_r, q, r)
    rest = a[..., :, k:]   # a = [x | rest] with x square: q r[:, :k] = x and q^T rest = r[:, k:]
    grad_rest = q @ grad_r[..., :, k:]
    grad_x = _qr_tall_grad(grad_q + rest @ _mT(grad_r[..., :, k:]), grad_r[..., :, :k], q, r[..., :, :k])
    return np.concatenate([grad_x, grad_rest], axis=-1)


def qr_tangent(tangent, result, a, mode="reduced"):
    """The tangent of ``np.linalg.qr(a, mode)``: ``(dq, dr)``, or ``dr`` for mode 'r'.

    Example: ``qr_tangent(np.ones((1, 1)), np.linalg.qr(np.full((1, 1), 2.0)), np.full((1, 1), 2.0))[1]``
    is ``array([[1.]])``.
    """
    q, r = _qr_factors(result, a, mode)
    k = np.shape(q)[-1]
    if np.shape(a)[-2] >= np.shape(a)[-1]:
        tangent_q, tangent_r = _qr_tall_tangent(tangent, q, r)
    else:
        tangent_q, tangent_x = _qr_tall_tangent(tangent[..., :, :k], q, r[..., :, :k])
        tangent_r = np.concatenate([tangent_x, _mT(tangent_q) @ a[..., :, k:] + _mT(q) @ tangent[..., :, k:]],
                                   axis=-1)
    if mode == "r":
        return tangent_r
    full_q, full_r = result
    if np.shape(full_q)[-1] > k:   # 'complete' with more rows than columns
        tangent_q = np.concatenate([tangent_q, np.full(np.shape(full_q)[:-1] + (np.shape(full_q)[-1] - k,), np.nan)],
                                   axis=-1)
        tangent_r = np.concatenate([tangent_r, np.zeros(np.shape(full_r)[:-2] + (np.shape(full_r)[-2] - k,
                                                                                  np.shape(full_r)[-1]))], axis=-2)
    return tangent_q, tangent_r


# --------------------------------------------------------------------------
# lstsq: x = pinv(a) b, residuals |b - a x|^2, rank, singular values

def _lstsq_pinv(a, rcond=None):
    """``pinv(a)`` with ``np.linalg.lstsq``'s cutoff of small singular values."""
    cutoff = np.finfo(float).eps * max(np.shape(a)) if rcond is None else rcond
    return np.linalg.pinv(a, rcond=cutoff)


def _columns(value, b):
    """``value`` as a matrix of columns when ``b`` (a right-hand side of lstsq) is a vector."""
    return np.reshape(value, (-1, 1)) if np.ndim(b) == 1 else value


def lstsq_grads(grad, result, a, b, rcond=None):
    """The gradients ``(da, db)`` of ``np.linalg.lstsq(a, b, rcond)``; ``grad`` has one entry per output.

    One helper gives both, so the result and its gradient are each read once (their adjoints, when this
    code is differentiated again, are then never sums of tuples).

    Example: ``lstsq_grads([np.ones(1), np.zeros(0), 0, np.zeros(1)], np.linalg.lstsq(np.full((1, 1), 2.0),
    np.ones(1)), np.full((1, 1), 2.0), np.ones(1))`` is ``(array([[-0.25]]), array([0.5]))``.
    """
    x, residuals = result[0], result[1]
    p = _lstsq_pinv(a, rcond)
    grad_x = np.broadcast_to(grad[0], np.shape(x))
    grad_a = pinv_grad(_columns(grad_x, b) @ _mT(_columns(b, b)), a, p)
    grad_b = _mT(p) @ grad_x
    if np.any(grad[3] != 0):   # the singular values are used
        grad_a = grad_a + singular_values_grad(grad[3], a)
    if np.size(residuals):   # full column rank, more rows than columns
        scaled = (b - a @ x) * np.broadcast_to(grad[1], np.shape(residuals))
        grad_a = grad_a - 2.0 * _columns(scaled, b) @ _mT(_columns(x, b))
        grad_b = grad_b + 2.0 * scaled
    return grad_a, grad_b


def lstsq_x_tangent(tangent, result, a, b, rcond=None):
    """The tangent of lstsq's solution ``pinv(a) b`` for the tangent ``tangent`` of ``a``.

    Example: ``lstsq_x_tangent(np.ones((1, 1)), np.linalg.lstsq(np.full((1, 1), 2.0), np.ones(1)),
    np.full((1, 1), 2.0), np.ones(1))`` is ``array([-0.25])``.
    """
    return pinv_tangent(tangent, a, _lstsq_pinv(a, rcond)) @ b


def lstsq_x_tangent_rhs(tangent, a, rcond=None):
    """The tangent of lstsq's solution ``pinv(a) b`` for the tangent ``tangent`` of ``b``.

    Example: ``lstsq_x_tangent_rhs(np.ones(1), np.full((1, 1), 2.0))`` is ``array([0.5])``.
    """
    return _lstsq_pinv(a, rcond) @ tangent


def lstsq_residuals_tangent(tangent, result, a, b):
    """The tangent of lstsq's residuals for the tangent ``tangent`` of ``a``: ``-2 sum(r * (da x))``.

    Example: with ``a = np.array([[1.0], [1.0]])`` and ``b = np.array([0.0, 2.0])``,
    ``lstsq_residuals_tangent(np.ones((2, 1)), np.linalg.lstsq(a, b), a, b)`` is ``array([0.])``.
    """
    x, residuals = result[0], result[1]
    if not np.size(residuals):
        return np.zeros(np.shape(residuals))
    return np.reshape(-2.0 * np.sum((b - a @ x) * (tangent @ x), axis=0), np.shape(residuals))


def lstsq_residuals_tangent_rhs(tangent, result, a, b):
    """The tangent of lstsq's residuals for the tangent ``tangent`` of ``b``: ``2 sum(r * db)``.

    Example: with ``a = np.array([[1.0], [1.0]])`` and ``b = np.array([0.0, 2.0])``,
    ``lstsq_residuals_tangent_rhs(np.array([0.0, 1.0]), np.linalg.lstsq(a, b), a, b)`` is ``array([2.])``.
    """
    x, residuals = result[0], result[1]
    if not np.size(residuals):
        return np.zeros(np.shape(residuals))
    return np.reshape(2.0 * np.sum((b - a @ x) * tangent, axis=0), np.shape(residuals))


def lstsq_singular_values_tangent(tangent, a):
    """The tangent of lstsq's singular values of ``a``.

    Example: ``lstsq_singular_values_tangent(np.eye(2), np.diag([3.0, 2.0]))`` is ``array([1., 1.])``.
    """
    return singular_values_tangent(tangent, a)


# --------------------------------------------------------------------------
# matrix_power: a^n, through inv(a) for n < 0

def matrix_power_grad(grad, a, n):
    """The gradient of ``np.linalg.matrix_power(a, n)`` with respect to ``a``.

    With ``b = a`` (``inv(a)`` for ``n < 0``) and ``m = |n|`` it is
    ``sum_k (b^k)^T grad (b^(m-1-k))^T``, built by the recurrence
    ``s_1 = grad``, ``s_(j+1) = b^T s_j + grad (b^T)^j`` (plain loops and
    products, so srcad differentiates this helper again).

    Example: ``matrix_power_grad(np.ones((1, 1)), np.full((1, 1), 3.0), 2)`` is ``array([[6.]])``.
    """
    if n == 0:
        return np.zeros(np.shape(a))
    base = np.linalg.inv(a) if n < 0 else a
    base_t = _mT(base)
    total = grad
    power_t = base_t
    for _ in range(1, abs(n)):
        total = base_t @ total + grad @ power_t
        power_t = power_t @ base_t
    if n < 0:
        return -base_t @ total @ base_t
    return total


def matrix_power_tangent(tangent, a, n):
    """The tangent of ``np.linalg.matrix_power(a, n)`` for the input tangent ``tangent``.

    With ``b = a`` (``inv(a)``, whose tangent is ``-b tangent b``, for
    ``n < 0``) it is ``sum_k b^k t b^(m-1-k)``: ``t_1 = t``,
    ``t_(j+1) = b t_j + t b^j``.

    Example: ``matrix_power_tangent(np.ones((1, 1)), np.full((1, 1), 3.0), 2)`` is ``array([[6.]])``.
    """
    if n == 0:
        return np.zeros(np.shape(a))
    base = np.linalg.inv(a) if n < 0 else a
    step = -base @ tangent @ base if n < 0 else tangent
    total = step
    power = base
    for _ in range(1, abs(n)):
        total = base @ total + step @ power
        power = power @ base
    return total


# --------------------------------------------------------------------------
# pinv(a, hermitian=True) reads the lower triangle of a

def pinv_hermitian_grad(grad, a, p):
    """The gradient of ``p = np.linalg.pinv(a, hermitian=True)``, which reads the lower triangle of ``a``.

    Example: ``pinv_hermitian_grad(np.ones((1, 1)), np.full((1, 1), 2.0), np.full((1, 1), 0.5))``
    is ``array([[-0.25]])``.
    """
    return _onto_triangle(pinv_grad(grad, _read_triangle(a), p))


def pinv_hermitian_tangent(tangent, a, p):
    """The tangent of ``p = np.linalg.pinv(a, hermitian=True)`` (only the lower triangle of ``tangent`` counts).

    Example: ``pinv_hermitian_tangent(np.ones((1, 1)), np.full((1, 1), 2.0), np.full((1, 1), 0.5))``
    is ``array([[-0.25]])``.
    """
    return pinv_tangent(_read_triangle(tangent), _read_triangle(a), p)
