"""Rules for ``scipy.special``'s regularized incomplete gamma and beta functions, in every argument.

Registered with ``special`` when ``scipy.special`` is imported.  Covered:
``gammainc(a, x)``, ``gammaincc(a, x)`` and ``betainc(a, b, x)``; the
``scipy.stats`` rules for the cdfs of ``gamma``, ``chi2``, ``beta`` and ``t``
use the same helpers for their shape parameters.

The derivative in ``x`` is the density.  The derivatives in the shape
parameters have no closed form; the helpers here sum them from the series
with positive terms (DLMF 8.7.1 and 8.17.8, after 8.17.4 on ``x`` beyond the
mean so the series converge fast)::

    P(a, x)    = sum_n exp((a + n) log x - x - lgamma(a + n + 1))
    I_x(a, b)  = sum_n exp(lgamma(a + b + n) - lgamma(a + n + 1) - lgamma(b)
                           + (a + n) log x + b log(1 - x))

each term's derivatives being the term times a polynomial in the
derivatives of its logarithm (polygammas): ``gammainc_da(a, x, k)`` is
``d^k P / da^k`` and ``betainc_dab(a, b, x, i, j)`` is
``d^(i+j) I / da^i db^j``; ``gamma_density_da`` and ``beta_density_dab`` do
the same for the densities (the ``x``-derivatives).  The family is closed
under differentiation (its rules call its own members with one order more),
so derivatives of every order exist.  Sums stop when the terms left are
below 1e-17 of the sum; the result is accurate to about 1e-15 relative, or
absolute when ``P`` or ``I`` is close to 1 and their derivatives are tiny.
Outside the support (``x <= 0``; ``x >= 1`` for ``betainc``) the
derivatives are 0.
"""
from math import comb

import numpy as np
from scipy import special

from srcad.runtime import unbroadcast
from srcad.templates import adjoint, d, tangent

_BLOCK = 64          # series terms summed at a time
_SMALL = 1e-17       # relative size of the terms left when a sum stops


def _exp_derivative(log_partials, i, j):
    """``e^-L d^(i+j) e^L / da^i db^j`` from the partials ``log_partials[(p, q)]`` of ``L``."""
    values = {(0, 0): 1.0}
    for p in range(i + 1):
        for q in range(j + 1):
            if (p, q) == (0, 0):
                continue
            if p:   # d/da of the (p - 1, q) derivative, by Leibniz on e^L * L_a
                values[p, q] = sum(comb(p - 1, r) * comb(q, s) * values[r, s] * log_partials[p - r, q - s]
                                   for r in range(p) for s in range(q + 1))
            else:
                values[p, q] = sum(comb(q - 1, s) * values[0, s] * log_partials[0, q - s] for s in range(q))
    return values[i, j]


def _polygamma(order, x):
    return special.digamma(x) if order == 0 else special.polygamma(order, x)


def _mixed_partial(r, s, whole, first, second):
    """``d^(r+s) / da^r db^s`` (``r + s >= 2``) of ``lgamma(whole) - lgamma(first) - lgamma(second)``, where
    ``whole`` moves with ``a`` and ``b``, ``first`` with ``a`` only and ``second`` with ``b`` only."""
    value = _polygamma(r + s - 1, whole)
    if s == 0:
        value = value - _polygamma(r - 1, first)
    if r == 0:
        value = value - _polygamma(s - 1, second)
    return value


def _series(log_term, x_large, i, j, shape):
    """``sum_n e^L_n Y_n`` over n = 0, 1, ... where ``log_term(n)`` gives ``(L_n, partials)``."""
    total, start = np.zeros(shape), 0
    while True:
        n = np.arange(start, start + _BLOCK).reshape((-1,) + (1,) * len(shape))
        log_value, partials = log_term(n)
        terms = np.exp(log_value) * _exp_derivative(partials, i, j)
        total = total + np.sum(terms, axis=0)
        start += _BLOCK
        last = np.abs(terms[-1])
        if np.all((last <= _SMALL * np.abs(total)) | (last == 0) | np.isnan(total)) and start > x_large:
            return total


def gammainc_da(a, x, order=1):
    """``d^order / da^order`` of ``scipy.special.gammainc(a, x)`` (``order >= 1``), 0 for ``x <= 0``.

    Example: ``gammainc_da(1.0, 1.0)`` is ``-0.43172971...`` (``d/da P(a, 1)`` at ``a = 1``).
    """
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    inside = x > 0
    safe = np.where(inside, x, 1.0)
    log_x = np.log(safe)

    def log_term(n):
        shifted = a + n + 1.0
        partials = {(k, 0): _polygamma(k - 1, shifted) * -1.0 for k in range(2, order + 1)}
        partials[1, 0] = log_x - special.digamma(shifted)
        return (a + n) * log_x - safe - special.gammaln(shifted), partials

    bound = float(np.max(safe + 12.0 * np.sqrt(safe), initial=0.0))
    return np.where(inside, _series(log_term, bound, order, 0, a.shape), 0.0)[()]


def gamma_density_da(a, x, order=0):
    """``d^order / da^order`` of the gamma density ``x^(a-1) e^-x / Gamma(a)``, 0 for ``x <= 0``.

    Example: ``gamma_density_da(1.0, 1.0, 0)`` is ``exp(-1)``.
    """
    a, x = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(x, dtype=float))
    inside = x > 0
    safe = np.where(inside, x, 1.0)
    partials = {(k, 0): -_polygamma(k - 1, a) for k in range(2, order + 1)}
    partials[1, 0] = np.log(safe) - special.digamma(a)
    value = np.exp(special.xlogy(a - 1.0, safe) - safe - special.gammaln(a)) * _exp_derivative(partials, order, 0)
    return np.where(inside, value, 0.0)[()]


def _beta_orders(a, b, x):
    """Broadcast float arrays, where ``x`` is inside (0, 1), and where the series runs on ``1 - x``."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    inside = (x > 0) & (x < 1)
    flipped = x > (a + 1.0) / (a + b + 2.0)
    return a, b, x, inside, flipped


def betainc_dab(a, b, x, da=1, db=0):
    """``d^(da+db) / da^da db^db`` of ``scipy.special.betainc(a, b, x)`` (``da + db >= 1``); 0 outside (0, 1).

    Example: ``betainc_dab(1.0, 1.0, 0.5, 1, 0)`` is ``0.5 * log(0.5)``.
    """
    a, b, x, inside, flipped = _beta_orders(a, b, x)
    p, q, y = np.where(flipped, b, a), np.where(flipped, a, b), np.where(inside, np.where(flipped, 1.0 - x, x), 0.5)
    i, j, top = da, db, max(da, db)   # the flipped series takes the orders the other way round
    log_y, log_rest = np.log(y), np.log1p(-y)

    def log_term(n):
        whole, first = p + q + n, p + n + 1.0
        partials = {}
        for r in range(top + 1):
            for s in range(top + 1):
                if r + s >= 2:
                    partials[r, s] = _mixed_partial(r, s, whole, first, q)
        partials[1, 0] = special.digamma(whole) - special.digamma(first) + log_y
        partials[0, 1] = special.digamma(whole) - special.digamma(q) + log_rest
        value = special.gammaln(whole) - special.gammaln(first) - special.gammaln(q) + (p + n) * log_y + q * log_rest
        return value, partials

    direct = _series(log_term, 0.0, i, j, a.shape)
    swapped = _series(log_term, 0.0, j, i, a.shape) if np.any(flipped) else direct
    return np.where(inside, np.where(flipped, -swapped, direct), 0.0)[()]


def beta_density_dab(a, b, x, da=0, db=0):
    """``d^(da+db) / da^da db^db`` of the beta density ``x^(a-1) (1-x)^(b-1) / B(a, b)``; 0 outside (0, 1).

    Example: ``beta_density_dab(2.0, 1.0, 0.5)`` is ``1.0``.
    """
    a, b, x, inside, _ = _beta_orders(a, b, x)
    y = np.where(inside, x, 0.5)
    partials = {}
    for r in range(da + 1):
        for s in range(db + 1):
            if r + s >= 2:
                partials[r, s] = _mixed_partial(r, s, a + b, a, b)
    partials[1, 0] = np.log(y) - special.digamma(a) + special.digamma(a + b)
    partials[0, 1] = np.log1p(-y) - special.digamma(b) + special.digamma(a + b)
    log_density = special.xlogy(a - 1.0, y) + special.xlog1py(b - 1.0, -y) - special.betaln(a, b)
    return np.where(inside, np.exp(log_density) * _exp_derivative(partials, da, db), 0.0)[()]


# --------------------------------------------------------------------------
# the functions

@adjoint(special.gammainc)
def gammainc_adjoint(y, a, x):
    d[a] = unbroadcast(d[y] * gammainc_da(a, x, 1), a)
    d[x] = unbroadcast(d[y] * gamma_density_da(a, x, 0), x)


@tangent(special.gammainc)
def gammainc_tangent(y, a, x):
    d[y] = d[a] * gammainc_da(a, x, 1) + d[x] * gamma_density_da(a, x, 0)


@adjoint(special.gammaincc)
def gammaincc_adjoint(y, a, x):
    d[a] = -unbroadcast(d[y] * gammainc_da(a, x, 1), a)
    d[x] = -unbroadcast(d[y] * gamma_density_da(a, x, 0), x)


@tangent(special.gammaincc)
def gammaincc_tangent(y, a, x):
    d[y] = -(d[a] * gammainc_da(a, x, 1) + d[x] * gamma_density_da(a, x, 0))


@adjoint(special.betainc)
def betainc_adjoint(y, a, b, x):
    d[a] = unbroadcast(d[y] * betainc_dab(a, b, x, 1, 0), a)
    d[b] = unbroadcast(d[y] * betainc_dab(a, b, x, 0, 1), b)
    d[x] = unbroadcast(d[y] * beta_density_dab(a, b, x, 0, 0), x)


@tangent(special.betainc)
def betainc_tangent(y, a, b, x):
    d[y] = (d[a] * betainc_dab(a, b, x, 1, 0) + d[b] * betainc_dab(a, b, x, 0, 1)
            + d[x] * beta_density_dab(a, b, x, 0, 0))


# --------------------------------------------------------------------------
# the helpers: each derivative is a member of the family with one order more

@adjoint(gammainc_da)
def gammainc_da_adjoint(y, a, x, order=1):
    d[a] = unbroadcast(d[y] * gammainc_da(a, x, order + 1), a)
    d[x] = unbroadcast(d[y] * gamma_density_da(a, x, order), x)


@tangent(gammainc_da)
def gammainc_da_tangent(y, a, x, order=1):
    d[y] = d[a] * gammainc_da(a, x, order + 1) + d[x] * gamma_density_da(a, x, order)


@adjoint(gamma_density_da)
def gamma_density_da_adjoint(y, a, x, order=0):
    d[a] = unbroadcast(d[y] * gamma_density_da(a, x, order + 1), a)
    if order == 0:
        d[x] = unbroadcast(d[y] * y * ((a - 1.0) / x - 1.0), x)
    else:
        d[x] = unbroadcast(d[y] * (y * ((a - 1.0) / x - 1.0) + order * gamma_density_da(a, x, order - 1) / x), x)


@tangent(gamma_density_da)
def gamma_density_da_tangent(y, a, x, order=0):
    if order == 0:
        d[y] = d[a] * gamma_density_da(a, x, order + 1) + d[x] * y * ((a - 1.0) / x - 1.0)
    else:
        d[y] = (d[a] * gamma_density_da(a, x, order + 1)
                + d[x] * (y * ((a - 1.0) / x - 1.0) + order * gamma_density_da(a, x, order - 1) / x))


@adjoint(betainc_dab)
def betainc_dab_adjoint(y, a, b, x, da=1, db=0):
    d[a] = unbroadcast(d[y] * betainc_dab(a, b, x, da + 1, db), a)
    d[b] = unbroadcast(d[y] * betainc_dab(a, b, x, da, db + 1), b)
    d[x] = unbroadcast(d[y] * beta_density_dab(a, b, x, da, db), x)


@tangent(betainc_dab)
def betainc_dab_tangent(y, a, b, x, da=1, db=0):
    d[y] = (d[a] * betainc_dab(a, b, x, da + 1, db) + d[b] * betainc_dab(a, b, x, da, db + 1)
            + d[x] * beta_density_dab(a, b, x, da, db))


@adjoint(beta_density_dab)
def beta_density_dab_adjoint(y, a, b, x, da=0, db=0):
    d[a] = unbroadcast(d[y] * beta_density_dab(a, b, x, da + 1, db), a)
    d[b] = unbroadcast(d[y] * beta_density_dab(a, b, x, da, db + 1), b)
    d[x] = unbroadcast(d[y] * beta_density_dx(a, b, x, da, db), x)


@tangent(beta_density_dab)
def beta_density_dab_tangent(y, a, b, x, da=0, db=0):
    d[y] = (d[a] * beta_density_dab(a, b, x, da + 1, db) + d[b] * beta_density_dab(a, b, x, da, db + 1)
            + d[x] * beta_density_dx(a, b, x, da, db))


def beta_density_dx(a, b, x, da=0, db=0):
    """``d/dx`` of ``beta_density_dab(a, b, x, da, db)`` (Leibniz on the density times its log-slope in ``x``).

    Example: ``beta_density_dx(2.0, 1.0, 0.5)`` is ``2.0``.
    """
    slope = (a - 1.0) / x - (b - 1.0) / (1.0 - x)
    value = beta_density_dab(a, b, x, da, db) * slope
    if da:
        value = value + da * beta_density_dab(a, b, x, da - 1, db) / x
    if db:
        value = value - db * beta_density_dab(a, b, x, da, db - 1) / (1.0 - x)
    return value
