"""Helpers that generated code calls for ``scipy.stats``: ratios of densities, Dirichlet and normal densities.

Contract: like ``srcad.runtime``: small pure functions of NumPy values
(NumPy only).  Their rules are in ``grad_templates/scipy_stats_other.py``.

- ``exp_difference(p, q)`` is ``exp(p - q)``, and 0 where ``p`` is ``-inf``
  (so a density 0 over a probability 0 gives 0, not NaN): the weight
  ``pdf / cdf`` of a ``logcdf``'s derivative, from ``logpdf`` and ``logcdf``.
- ``dirichlet_components(x, alpha)``: ``x`` with the last component
  ``1 - sum(x)`` appended when it has one fewer than ``alpha`` (as
  ``scipy.stats.dirichlet`` reads it); components are the first axis.
- ``normal_*`` helpers differentiate ``scipy.stats.multivariate_normal``'s
  ``logpdf(x, mean, cov)``: ``x`` has the dimension on its last axis (a 1-d
  ``x`` of a one-dimensional normal is a list of samples), ``mean`` is None
  or a vector, ``cov`` a number (``cov * I``), a vector (a diagonal) or a
  matrix of which SciPy reads the lower triangle.  ``g`` is the gradient of
  the output (one number per sample).

Example::

    >>> import numpy as np
    >>> exp_difference(np.array([-np.inf, 0.0]), np.array([-np.inf, 0.0]))
    array([0., 1.])
"""
from __future__ import annotations

import numpy as np


def exp_difference(p, q):
    """``exp(p - q)``, 0 where ``p == -inf`` (whatever ``q`` is).

    Example: ``exp_difference(np.log(0.5), 0.0)`` is ``0.5``.
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    empty = p == -np.inf
    return np.where(empty, 0.0, np.exp(p - np.where(empty, 0.0, q)))[()]


def dirichlet_components(x, alpha):
    """``x`` with its last component ``1 - sum(x, axis=0)`` appended when it has one fewer than ``alpha``.

    Example: ``dirichlet_components(np.array([0.25]), np.ones(2))`` is ``array([0.25, 0.75])``.
    """
    x = np.asarray(x, dtype=float)
    if x.shape[0] + 1 == np.shape(alpha)[0]:
        return np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)], axis=0)
    return x


# --------------------------------------------------------------------------
# the multivariate normal's logpdf

def _dimension(mean, cov) -> int:
    """The dimension as SciPy infers it: the size of ``mean``, else 1 or the order of the matrix ``cov``."""
    if mean is not None:
        return int(np.size(mean))
    return np.shape(cov)[0] if np.ndim(cov) >= 2 else 1


def _samples(value, dim):
    """``value`` (shaped like ``x``) as samples on the last axis, the way SciPy reads ``x``."""
    value = np.asarray(value, dtype=float)
    if value.ndim == 0 or (value.ndim == 1 and dim == 1):
        return value.reshape(-1, 1)
    return value


def _matrix(cov, dim):
    """The covariance matrix SciPy builds from ``cov``: ``cov * I``, ``diag(cov)``, or the symmetric matrix of
    ``cov``'s lower triangle."""
    cov = np.asarray(cov, dtype=float)
    if cov.ndim == 0:
        return cov * np.eye(dim)
    if cov.ndim == 1:
        return np.diag(cov)
    return np.tril(cov) + np.tril(cov, -1).T


def _onto_cov(grad, cov):
    """The gradient of ``cov`` for the gradient ``grad`` (symmetric) of the matrix ``_matrix`` builds."""
    if np.ndim(cov) == 0:
        return np.trace(grad)
    if np.ndim(cov) == 1:
        return np.diagonal(grad).copy()
    return np.tril(grad + grad.T) - np.diag(np.diagonal(grad))


def _scaled_residual(x, mean, cov):
    """``cov^-1 (x - mean)`` for every sample (samples on the leading axes), and the covariance matrix."""
    dim = _dimension(mean, cov)
    matrix = _matrix(cov, dim)
    residual = _samples(x, dim) - (0.0 if mean is None else np.asarray(mean, dtype=float))
    return np.linalg.solve(matrix, residual.reshape(-1, dim).T).T.reshape(residual.shape), matrix


def _output(per_sample):
    """One number per sample, shaped as SciPy shapes the output (every axis of length 1 squeezed)."""
    return np.squeeze(per_sample)[()]


def normal_x_grad(g, x, mean, cov):
    """The gradient of ``x`` for the gradient ``g`` of ``multivariate_normal.logpdf(x, mean, cov)``.

    Example: ``normal_x_grad(1.0, np.ones(2), None, 1.0)`` is ``array([-1., -1.])``.
    """
    scaled, _ = _scaled_residual(x, mean, cov)
    return np.reshape(-np.reshape(g, scaled.shape[:-1] + (1,)) * scaled, np.shape(x))


def normal_mean_grad(g, x, mean, cov):
    """The gradient of ``mean`` for the gradient ``g`` of ``multivariate_normal.logpdf(x, mean, cov)``.

    Example: ``normal_mean_grad(1.0, np.ones(2), np.zeros(2), 1.0)`` is ``array([1., 1.])``.
    """
    scaled, _ = _scaled_residual(x, mean, cov)
    weighted = np.reshape(g, scaled.shape[:-1] + (1,)) * scaled
    return np.reshape(np.sum(weighted.reshape(-1, scaled.shape[-1]), axis=0), np.shape(mean))


def normal_cov_grad(g, x, mean, cov):
    """The gradient of ``cov`` for the gradient ``g`` of ``multivariate_normal.logpdf(x, mean, cov)``.

    Each sample gives ``(s s^T - cov^-1) / 2`` with ``s = cov^-1 (x - mean)``.

    Example: ``normal_cov_grad(1.0, np.ones(2), None, 1.0)`` is ``0.0``.
    """
    scaled, matrix = _scaled_residual(x, mean, cov)
    flat = scaled.reshape(-1, scaled.shape[-1])
    weights = np.reshape(g, -1)
    outer = (flat * weights[:, None]).T @ flat
    return _onto_cov(0.5 * (outer - np.sum(weights) * np.linalg.inv(matrix)), cov)


def normal_x_tangent(tangent, x, mean, cov):
    """The tangent of ``multivariate_normal.logpdf(x, mean, cov)`` for the tangent ``tangent`` of ``x`` (minus
    it for one of ``mean``, whose tangent is shaped like ``mean``).

    Example: ``normal_x_tangent(np.ones(2), np.ones(2), None, 1.0)`` is ``-2.0``.
    """
    scaled, matrix = _scaled_residual(x, mean, cov)
    return _output(-np.sum(scaled * _samples(tangent, matrix.shape[-1]), axis=-1))


def normal_cov_tangent(tangent, x, mean, cov):
    """The tangent of ``multivariate_normal.logpdf(x, mean, cov)`` for the tangent ``tangent`` of ``cov``.

    Example: ``normal_cov_tangent(1.0, np.ones(2), None, 1.0)`` is ``0.0``.
    """
    scaled, matrix = _scaled_residual(x, mean, cov)
    change = _matrix(tangent, matrix.shape[-1])
    return _output(0.5 * (np.einsum("...i,ij,...j->...", scaled, change, scaled)
                          - np.trace(np.linalg.solve(matrix, change))))


def normal_entropy_grad(g, mean, cov):
    """The gradient of ``cov`` for the gradient ``g`` of ``multivariate_normal.entropy(mean, cov)``:
    ``cov^-1 / 2``, on what SciPy reads of ``cov`` (a number, a diagonal, or the lower triangle).

    Example: ``normal_entropy_grad(1.0, np.zeros(2), 2.0)`` is ``0.5``.
    """
    matrix = _matrix(cov, _dimension(mean, cov))
    return _onto_cov(0.5 * g * np.linalg.inv(matrix), cov)


def normal_entropy_tangent(tangent, mean, cov):
    """The tangent of ``multivariate_normal.entropy(mean, cov)`` for the tangent ``tangent`` of ``cov``:
    ``tr(cov^-1 dcov) / 2``.

    Example: ``normal_entropy_tangent(1.0, np.zeros(2), 2.0)`` is ``0.5``.
    """
    matrix = _matrix(cov, _dimension(mean, cov))
    return 0.5 * np.trace(np.linalg.solve(matrix, _matrix(tangent, matrix.shape[-1])))
