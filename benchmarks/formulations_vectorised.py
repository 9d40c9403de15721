"""Other spellings of the vectorised benchmark problems (Helmholtz, Rosenbrock, MLP, GMM, logistic regression).

Contract: each function computes the same value as the objective of
``benchmarks/problems.py`` it is named after, with the same positional
parameters, spelled differently (see ``formulations.py``, which lists them
with what differs).  They return a scalar and never modify their arguments.

Example::

    >>> import numpy as np
    >>> float(rosenbrock_np(np.array([1.0, 1.0, 1.0])))
    0.0
"""
from __future__ import annotations

import math

import numpy as np


def helmholtz_np(x, b, A):
    """``problems.helmholtz`` with ``np.dot`` for ``@`` and ``np.sqrt``/``np.log`` on the scalar constants."""
    bx = np.dot(b, x)
    s2 = np.sqrt(2.0)
    return (np.sum(x * np.log(x / (1.0 - bx)))
            - np.dot(x, np.dot(A, x)) / (np.sqrt(8.0) * bx)
            * np.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx)))


def helmholtz_einsum(x, b, A):
    """``problems.helmholtz`` with the products as ``np.einsum``."""
    bx = np.einsum("i,i->", b, x)
    s2 = np.sqrt(2.0)
    xAx = np.einsum("i,ij,j->", x, A, x)
    return (np.einsum("i,i->", x, np.log(x / (1.0 - bx)))
            - xAx / (np.sqrt(8.0) * bx) * np.log((1.0 + (1.0 + s2) * bx) / (1.0 + (1.0 - s2) * bx)))


def rosenbrock_np(x):
    """``problems.rosenbrock`` with ``np.square`` and ``np.subtract`` for the operators."""
    head = x[:-1]
    return np.sum(100.0 * np.square(np.subtract(x[1:], np.square(head))) + np.square(np.subtract(1.0, head)))


def mlp_dot(W1, b1, W2, b2, x, y):
    """``problems.mlp`` with ``np.dot`` and ``np.add``, and ``len(x)`` for the batch size."""
    h = np.tanh(np.add(np.dot(x, W1), b1))
    logits = np.add(np.dot(h, W2), b2)
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(y * logp) / len(x)


def mlp_einsum(W1, b1, W2, b2, x, y):
    """``problems.mlp`` with ``np.einsum`` for the products and reductions as array methods."""
    h = np.tanh(np.einsum("bi,ih->bh", x, W1) + b1)
    logits = np.einsum("bh,ho->bo", h, W2) + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.einsum("bo,bo->", y, logp) / x.shape[0]


def _gmm_constants(n, d, k, wishart_gamma, wishart_m):
    """The terms of ``problems.gmm`` that do not depend on the parameters, with ``np`` for ``math`` (not lgamma)."""
    constant = -n * d * 0.5 * np.log(2.0 * np.pi)
    nw = d + wishart_m + 1
    log_gamma = 0.25 * d * (d - 1) * np.log(np.pi)
    for j in range(d):
        log_gamma = log_gamma + math.lgamma(0.5 * nw - 0.5 * j)
    c = nw * d * (np.log(wishart_gamma) - 0.5 * np.log(2.0)) - log_gamma
    return constant, k * c


def gmm_einsum(alphas, means, icf, x, wishart_gamma, wishart_m):
    """``problems.gmm`` with the batched triangular product as ``np.einsum`` and ``np.square`` for ``** 2``."""
    n, d = x.shape
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    cols, rows = np.triu_indices(d, 1)
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    xcentered = x - means[:, None, :]
    Lxcentered = Qdiags[:, None, :] * xcentered + np.einsum("kij,knj->kni", Ls, xcentered)
    sqsum_Lxcentered = np.sum(np.square(Lxcentered), axis=2)
    inner_term = alphas[:, None] + sum_qs[:, None] - 0.5 * sqsum_Lxcentered
    top = np.max(inner_term, axis=0)
    slse = np.sum(np.log(np.sum(np.exp(inner_term - top), axis=0)) + top)
    top_alpha = np.max(alphas)
    lse_alphas = np.log(np.sum(np.exp(alphas - top_alpha))) + top_alpha
    constant, kc = _gmm_constants(n, d, k, wishart_gamma, wishart_m)
    frobenius = np.sum(np.square(Qdiags)) + np.sum(np.square(icf[:, d:]))
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * np.sum(sum_qs)
    return constant + slse - n * lse_alphas + prior - kc


def gmm_np(alphas, means, icf, x, wishart_gamma, wishart_m):
    """``problems.gmm`` with ``np`` for ``math`` on scalars, reductions as array methods, ``len`` for shapes."""
    n = len(x)
    d = x.shape[1]
    k = len(alphas)
    log_q = icf[:, :d]
    Qdiags = np.exp(log_q)
    sum_qs = log_q.sum(axis=1)
    cols, rows = np.triu_indices(d, 1)
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    xcentered = x[None, :, :] - means[:, None, :]
    Lxcentered = Qdiags[:, None, :] * xcentered + np.matmul(xcentered, np.transpose(Ls, (0, 2, 1)))
    inner_term = alphas[:, None] + sum_qs[:, None] - 0.5 * (Lxcentered * Lxcentered).sum(axis=2)
    top = inner_term.max(axis=0)
    slse = (np.log(np.exp(inner_term - top).sum(axis=0)) + top).sum()
    top_alpha = alphas.max()
    lse_alphas = np.log(np.exp(alphas - top_alpha).sum()) + top_alpha
    constant, kc = _gmm_constants(n, d, k, wishart_gamma, wishart_m)
    frobenius = (Qdiags * Qdiags).sum() + (icf[:, d:] * icf[:, d:]).sum()
    prior = 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * sum_qs.sum()
    return constant + slse - n * lse_alphas + prior - kc


def logreg_dot(w, b, X, y):
    """``problems.logreg`` with ``np.dot``, ``np.add`` and ``np.sum(...) / len(y)`` for the mean."""
    margins = np.multiply(y, np.add(np.dot(X, w), b))
    return np.sum(np.log1p(np.exp(-margins))) / len(y)


def logreg_logaddexp(w, b, X, y):
    """``problems.logreg`` with the loss as ``np.logaddexp(0.0, -margins)``."""
    margins = y * (X @ w + b)
    return np.mean(np.logaddexp(0.0, -margins))
