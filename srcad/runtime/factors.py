"""Helpers that generated code calls for ``scipy.linalg``: triangles, packed Cholesky and LU factors, Fréchet blocks.

Contract: like ``srcad.runtime``: small pure functions of NumPy values
(NumPy only; the SciPy calls stay in the rules of
``grad_templates/scipy_linalg.py``).  Matrices may be stacked (the last two
axes are the matrix).  Real inputs only.

- ``triangle(m, lower, unit_diagonal)`` is the part of ``m`` a triangular
  routine reads: ``tril(m)`` or ``triu(m)``, without the diagonal when it is
  taken to be ones.  It is a projection, so it is its own adjoint.
- ``as_columns(v, b)`` / ``from_columns(v, b)`` turn a right-hand side read
  as vectors (``b`` is 1-D, as ``scipy.linalg.solve_triangular`` reads it)
  into one column matrix and back, so a solve with a stack of matrices reads
  a derivative the way it read ``b``.
- Factorisations return a tuple, a matrix and a flag (``lower``) or pivots
  (``piv``); the helpers take them as separate arrays: ``*_grad(grad, c,
  lower)`` takes the matrix's gradient and returns the input's,
  ``*_tangent(tangent, c, lower)`` the matrix's tangent.  ``cho_factor``'s ``c`` holds
  the factor ``F`` in one triangle and ``a``'s own entries in the other, and
  ``cho_solve`` solves with ``A = F F^T`` (lower) or ``F^T F`` (upper).
  ``lu_factor``'s ``lu = L + U - I`` with ``a[perm] = L U`` (``lu_rows(piv)``
  turns LAPACK's row interchanges into ``perm``, which the LU helpers take),
  and ``lu_solve`` solves with ``A = P L U``.
- ``cho_solve_grad`` / ``lu_solve_grad`` take ``solved``, the solve of the
  output gradient with the transposed system, and return the gradient of the
  packed factor; ``cho_solve_moved`` / ``lu_solve_moved`` return ``dA @ x``
  (``dA^T @ x`` for ``trans``) for a tangent of the factors: the tangent of
  ``x`` is the solve of ``db`` minus it.
- ``band_to_dense(l_and_u, ab)`` / ``dense_to_band(l_and_u, a)`` move between
  ``scipy.linalg.solve_banded``'s band storage and the square matrix (each
  the other's transpose); ``transposed_band`` stores the transpose's band.
- ``real_root(root)`` is ``root``, the result of ``scipy.linalg.sqrtm``, and
  raises ``ComplexError`` when it is complex (its argument had an eigenvalue
  on the negative real axis), so a complex root never reaches a derivative.
- ``sylvester_rhs(value, q)`` is ``value``, and raises ``SrcadError`` when
  ``q``, the right-hand side of ``scipy.linalg.solve_sylvester``, is not a
  matrix (SciPy reads a number ``q`` as ``q`` times a product of Schur
  vectors, which has no derivative srcad can give).
- ``frechet_block(a, e)`` is the block matrix ``[[a, e], [0, a]]`` and
  ``upper_right(m)`` its top-right quarter: a matrix function ``f`` (``expm``)
  has the directional derivative ``upper_right(f(frechet_block(a, e)))``.

Example::

    >>> import numpy as np
    >>> triangle(np.ones((2, 2)), lower=True)
    array([[1., 0.],
           [1., 1.]])
"""
from __future__ import annotations

import numpy as np

from ..errors import ComplexError, SrcadError
from .dispatch import as_array
from .decompositions import cholesky_grad, cholesky_tangent


def _mT(a):
    return np.swapaxes(a, -1, -2)


def triangle(m, lower, unit_diagonal=False):
    """The lower (or upper) triangle of ``m``, without the diagonal when ``unit_diagonal``.

    Example: ``triangle(np.ones((2, 2)), False, unit_diagonal=True)`` is ``array([[0., 1.], [0., 0.]])``.
    """
    if lower:
        return np.tril(m, -1 if unit_diagonal else 0)
    return np.triu(m, 1 if unit_diagonal else 0)


def as_columns(v, b):
    """``v`` with a trailing axis of length 1 when ``b`` is a vector (1-D), else ``v`` itself.

    Example: ``as_columns(np.ones(2), np.ones(2)).shape`` is ``(2, 1)``.
    """
    return as_array(v)[..., None] if np.ndim(b) == 1 else v


def from_columns(v, b):
    """``v`` without its trailing axis of length 1 when ``b`` is a vector (1-D): undoes ``as_columns``.

    Example: ``from_columns(np.ones((2, 1)), np.ones(2)).shape`` is ``(2,)``.
    """
    return as_array(v)[..., 0] if np.ndim(b) == 1 else v


# --------------------------------------------------------------------------
# Cholesky factors packed in one triangle of c: A = F F^T (lower) or F^T F (upper)

def _cholesky_product_grad(grad, c, lower):
    """The gradient, on the triangle of ``c``, of a function of ``A = F F^T`` (``F^T F``) with gradient ``grad``."""
    factor, both = triangle(c, lower), grad + _mT(grad)
    return triangle(both @ factor if lower else factor @ both, lower)


def cho_factor_grad(grad, c, lower):
    """The gradient of ``a`` for the gradient ``grad`` of ``c`` in ``(c, lower) = cho_factor(a)``.

    ``c`` holds the factor in one triangle and ``a``'s entries in the other
    strict triangle (LAPACK leaves them there), so those pass through.

    Example: ``cho_factor_grad(np.ones((1, 1)), np.full((1, 1), 2.0), False)`` is ``array([[0.25]])``.
    """
    factor = triangle(c, lower)
    return cholesky_grad(triangle(grad, lower), factor, upper=not lower) + triangle(grad, not lower, True)


def cho_factor_tangent(tangent, c, lower):
    """The tangent of ``c`` in ``(c, lower) = cho_factor(a)`` for the tangent ``tangent`` of ``a``.

    Example: ``cho_factor_tangent(np.ones((1, 1)), np.full((1, 1), 2.0), False)`` is ``array([[0.25]])``.
    """
    factor = triangle(c, lower)
    return cholesky_tangent(tangent, factor, upper=not lower) + triangle(tangent, not lower, True)


def cho_solve_grad(solved, x, c, lower):
    """The gradient of ``c`` for ``x = cho_solve((c, lower), b)``, given ``solved = cho_solve((c, lower), dx)``.

    Example: ``cho_solve_grad(np.ones(1), np.ones(1), np.full((1, 1), 2.0), False)`` is ``array([[-4.]])``.
    """
    return -_cholesky_product_grad(as_columns(solved, x) @ _mT(as_columns(x, x)), c, lower)


def cho_solve_moved(tangent, x, c, lower):
    """``dA @ x`` for ``x = cho_solve((c, lower), b)``, with ``dA`` the tangent of ``A`` for the tangent
    ``tangent`` of ``c``.

    Example: ``cho_solve_moved(np.ones((1, 1)), np.ones(1), np.full((1, 1), 2.0), False)`` is ``array([4.])``.
    """
    factor, moved = triangle(c, lower), triangle(tangent, lower)
    half = moved @ _mT(factor) if lower else _mT(factor) @ moved
    return from_columns((half + _mT(half)) @ as_columns(x, x), x)


# --------------------------------------------------------------------------
# LU factors: a[perm] = L U, packed as lu = L + U - I

def _unit_lower(lu):
    return np.tril(lu, -1) + np.eye(np.shape(lu)[-1])


def _transposed(trans) -> bool:
    return trans not in (0, "N")


def lu_rows(piv):
    """The row order ``perm`` with ``a[perm] = L @ U``, from the row interchanges ``piv`` of ``lu_factor``.

    Example: ``lu_rows(np.array([1, 1]))`` is ``array([1, 0])``.
    """
    perm = np.arange(np.shape(piv)[-1])
    for i, j in enumerate(np.asarray(piv)):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def lu_factor_grad(grad, lu, perm):
    """The gradient of ``a`` for the gradient ``grad`` of ``lu`` in ``(lu, piv) = lu_factor(a)``.

    With ``F = L^-1 a[perm] U^-1``, ``dL = L tril(dF, -1)`` and ``dU = triu(dF) U``;
    this is the transpose of that map.

    Example: ``lu_factor_grad(np.eye(2), np.eye(2), np.array([0, 1]))`` is ``np.eye(2)``.
    """
    low, up = _unit_lower(lu), np.triu(lu)
    scaled = np.tril(_mT(low) @ np.tril(grad, -1), -1) + np.triu(np.triu(grad) @ _mT(up))
    rows = _mT(np.linalg.solve(up, _mT(np.linalg.solve(_mT(low), scaled))))   # L^-T scaled U^-T
    return rows[np.argsort(perm)]


def lu_factor_tangent(tangent, lu, perm):
    """The tangent of ``lu`` in ``(lu, piv) = lu_factor(a)`` for the tangent ``tangent`` of ``a``.

    Example: ``lu_factor_tangent(np.eye(2), np.eye(2), np.array([0, 1]))`` is ``np.eye(2)``.
    """
    low, up = _unit_lower(lu), np.triu(lu)
    scaled = _mT(np.linalg.solve(_mT(up), _mT(np.linalg.solve(low, tangent[perm]))))   # L^-1 da U^-1
    return low @ np.tril(scaled, -1) + np.triu(scaled) @ up


def lu_solve_grad(solved, x, lu, perm, trans=0):
    """The gradient of ``lu`` for ``x = lu_solve((lu, piv), b, trans)``, given ``solved``, the solve of ``dx``
    with the transposed system.

    Example: ``lu_solve_grad(np.ones(1), np.ones(1), np.full((1, 1), 2.0), np.array([0]))`` is
    ``array([[-1.]])``.
    """
    left, right = (x, solved) if _transposed(trans) else (solved, x)
    rows = -(as_columns(left, x) @ _mT(as_columns(right, x)))[perm]
    return np.tril(rows @ _mT(np.triu(lu)), -1) + np.triu(_mT(_unit_lower(lu)) @ rows)


def lu_solve_moved(tangent, x, lu, perm, trans=0):
    """``dA @ x`` (``dA^T @ x`` when ``trans``) for ``x = lu_solve((lu, piv), b, trans)``, with ``dA`` the
    tangent of ``A = P L U`` for the tangent ``tangent`` of ``lu``.

    Example: ``lu_solve_moved(np.ones((1, 1)), np.ones(1), np.full((1, 1), 2.0), np.array([0]))`` is
    ``array([1.])``.
    """
    rows = np.tril(tangent, -1) @ np.triu(lu) + _unit_lower(lu) @ np.triu(tangent)
    moved = rows[np.argsort(perm)]
    return from_columns((_mT(moved) if _transposed(trans) else moved) @ as_columns(x, x), x)


# --------------------------------------------------------------------------
# Fréchet derivatives of matrix functions

def frechet_block(a, e):
    """The block matrix ``[[a, e], [0, a]]`` (``a`` and ``e`` of one shape, maybe stacked).

    Example: ``frechet_block(np.ones((1, 1)), np.zeros((1, 1)))`` is ``array([[1., 0.], [0., 1.]])``.
    """
    return np.concatenate([np.concatenate([a, e], axis=-1),
                           np.concatenate([np.zeros_like(a), a], axis=-1)], axis=-2)


def upper_right(m):
    """The top-right quarter of the (stacked) square matrix ``m`` of even size.

    Example: ``upper_right(np.arange(4.0).reshape(2, 2))`` is ``array([[1.]])``.
    """
    n = np.shape(m)[-1] // 2
    return m[..., :n, n:]


def real_root(root):
    """``root`` (a result of ``scipy.linalg.sqrtm``) itself; ``ComplexError`` when it is complex.

    Example: ``real_root(np.eye(2))`` is ``np.eye(2)``.
    """
    if np.iscomplexobj(root):
        raise ComplexError("scipy.linalg.sqrtm returned a complex matrix (its argument has an eigenvalue on the "
                           "negative real axis), and its derivative was asked for; srcad's rule for sqrtm is checked "
                           "for real roots only. Differentiate the square root of a matrix whose eigenvalues are not "
                           "negative reals, e.g. a symmetric positive definite one")
    return root


def sylvester_rhs(value, q):
    """``value`` itself, once ``q`` (the right-hand side of ``scipy.linalg.solve_sylvester``) is checked to be a
    matrix; ``SrcadError`` when it is not.

    Example: ``sylvester_rhs(np.ones((2, 2)), np.eye(2))`` is ``np.ones((2, 2))``.
    """
    if np.ndim(q) < 2:
        raise SrcadError(f"scipy.linalg.solve_sylvester got a right-hand side q of shape {np.shape(q)}, which SciPy "
                         f"multiplies by its Schur vectors instead of reading it as a matrix; srcad differentiates "
                         f"it for a matrix q only: pass q * np.ones((m, n)) or the matrix you mean")
    return value


def band_to_dense(l_and_u, ab):
    """The square matrix ``scipy.linalg.solve_banded(l_and_u, ab, b)`` solves with: ``a[i, j] = ab[u + i - j, j]``
    on the band, 0 off it (the corners of ``ab`` outside the band are not read).  Linear in ``ab``; its
    transpose is ``dense_to_band``.

    Example: ``band_to_dense((1, 0), np.array([[2.0, 3.0], [1.0, 0.0]]))`` is ``array([[2., 0.], [1., 3.]])``.
    """
    lower, upper = l_and_u
    n = np.shape(ab)[-1]
    dense = np.zeros((n, n), dtype=np.result_type(ab, 0.0))
    for row in range(lower + upper + 1):
        offset = upper - row   # the diagonal j - i = offset
        dense = dense + np.diag(ab[row, max(0, offset):n + min(0, offset)], offset)
    return dense


def dense_to_band(l_and_u, a):
    """The band storage of ``a``'s band for ``scipy.linalg.solve_banded``, zero in the corners it does not
    read: the transpose of ``band_to_dense``.

    Example: ``dense_to_band((1, 0), np.array([[2.0, 5.0], [1.0, 3.0]]))`` is ``array([[2., 3.], [1., 0.]])``.
    """
    lower, upper = l_and_u
    n = np.shape(a)[-1]
    rows = []
    for row in range(lower + upper + 1):
        offset = upper - row
        band = np.diagonal(a, offset)
        rows.append(np.concatenate([np.zeros(max(0, offset)), band, np.zeros(max(0, -offset))]))
    return np.stack(rows) if n else np.zeros((lower + upper + 1, 0))


def transposed_band(l_and_u, ab):
    """The band storage, for bands ``l_and_u[::-1]``, of the transpose of the matrix ``ab`` stores.

    Example: ``transposed_band((1, 0), np.array([[2.0, 3.0], [1.0, 0.0]]))`` is ``array([[0., 1.], [2., 3.]])``.
    """
    return dense_to_band(tuple(l_and_u)[::-1], band_to_dense(l_and_u, ab).T)
