"""Rules for ``scipy.stats``' ``chi2``, ``beta`` and ``poisson``, registered when ``scipy.stats`` is imported.

``chi2`` and ``beta`` follow ``scipy_stats.py`` (read its docstring): with
``z = (x - loc) / scale`` and ``s = d logpdf / dz``, derivatives in ``x``,
``loc``, ``scale`` and the shape parameters (``df``; ``a``, ``b``), 0
outside the support.  ``chi2(df)`` is ``gamma(df / 2, scale=2)``, so its cdf's
derivative in ``df`` is ``gammainc_da(df / 2, z / 2) / 2``.

``poisson``'s ``pmf``, ``logpmf``, ``cdf`` and ``logcdf`` are differentiated
in ``mu``: ``d logpmf / dmu = k / mu - 1`` on the support, and
``d cdf(k) / dmu = -pmf(floor(k))``.  They are piecewise constant in ``k``
and ``loc`` (the mass sits on integers), so those derivatives are 0 wherever
they exist, and srcad gives 0 everywhere.
"""
import numpy as np
from scipy import special, stats

from srcad.runtime import unbroadcast, xdivy
from srcad.runtime.distributions import exp_difference
from srcad.templates import adjoint, d, tangent

from .scipy_stats import bound_methods
from .special_incomplete import betainc_dab, gammainc_da

chi2, beta = bound_methods(stats.chi2), bound_methods(stats.beta)
poisson = bound_methods(stats.poisson, ("pmf", "logpmf", "cdf", "logcdf"))

# --------------------------------------------------------------------------
# chi2: s = (df / 2 - 1) / z - 1 / 2 on z > 0


@adjoint(chi2.logpdf)
def chi2_logpdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((0.5 * df - 1.0) / z - 0.5)
    d[x] = unbroadcast(d[y] * s / scale, x)
    d[loc] = -unbroadcast(d[y] * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * inside * (z * s + 1.0) / scale, scale)
    d[df] = unbroadcast(d[y] * inside * 0.5 * (special.xlogy(inside, z) - np.log(2.0) - special.digamma(0.5 * df)), df)


@tangent(chi2.logpdf)
def chi2_logpdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((0.5 * df - 1.0) / z - 0.5)
    d[y] = inside * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                     + 0.5 * (special.xlogy(inside, z) - np.log(2.0) - special.digamma(0.5 * df)) * d[df])


@adjoint(chi2.pdf)
def chi2_pdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = (0.5 * df - 1.0) / z - 0.5
    d[x] = unbroadcast(d[y] * y * s / scale, x)
    d[loc] = -unbroadcast(d[y] * y * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * y * (z * s + 1.0) / scale, scale)
    d[df] = unbroadcast(d[y] * y * 0.5 * (special.xlogy(y > 0, z) - np.log(2.0) - special.digamma(0.5 * df)), df)


@tangent(chi2.pdf)
def chi2_pdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = (0.5 * df - 1.0) / z - 0.5
    d[y] = y * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                + 0.5 * (special.xlogy(y > 0, z) - np.log(2.0) - special.digamma(0.5 * df)) * d[df])


@adjoint(chi2.cdf)
def chi2_cdf_adjoint(y, x, df, loc=0, scale=1):
    density = stats.chi2.pdf(x, df, loc=loc, scale=scale)
    d[x] = unbroadcast(d[y] * density, x)
    d[loc] = -unbroadcast(d[y] * density, loc)
    d[scale] = -unbroadcast(d[y] * density * (x - loc) / scale, scale)
    d[df] = unbroadcast(d[y] * 0.5 * gammainc_da(0.5 * df, 0.5 * (x - loc) / scale, 1), df)


@tangent(chi2.cdf)
def chi2_cdf_tangent(y, x, df, loc=0, scale=1):
    d[y] = (stats.chi2.pdf(x, df, loc=loc, scale=scale) * (d[x] - d[loc] - (x - loc) / scale * d[scale])
            + 0.5 * gammainc_da(0.5 * df, 0.5 * (x - loc) / scale, 1) * d[df])


@adjoint(chi2.logcdf)
def chi2_logcdf_adjoint(y, x, df, loc=0, scale=1):
    weight = exp_difference(stats.chi2.logpdf(x, df, loc=loc, scale=scale), y)
    d[x] = unbroadcast(d[y] * weight, x)
    d[loc] = -unbroadcast(d[y] * weight, loc)
    d[scale] = -unbroadcast(d[y] * weight * (x - loc) / scale, scale)
    d[df] = unbroadcast(d[y] * xdivy(0.5 * gammainc_da(0.5 * df, 0.5 * (x - loc) / scale, 1), np.exp(y)), df)


@tangent(chi2.logcdf)
def chi2_logcdf_tangent(y, x, df, loc=0, scale=1):
    d[y] = (exp_difference(stats.chi2.logpdf(x, df, loc=loc, scale=scale), y) * (d[x] - d[loc]
                                                                                  - (x - loc) / scale * d[scale])
            + xdivy(0.5 * gammainc_da(0.5 * df, 0.5 * (x - loc) / scale, 1), np.exp(y)) * d[df])


# --------------------------------------------------------------------------
# beta: s = (a - 1) / z - (b - 1) / (1 - z) on 0 < z < 1

@adjoint(beta.logpdf)
def beta_logpdf_adjoint(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((a - 1.0) / z - (b - 1.0) / (1.0 - z))
    d[x] = unbroadcast(d[y] * s / scale, x)
    d[loc] = -unbroadcast(d[y] * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * inside * (z * s + 1.0) / scale, scale)
    d[a] = unbroadcast(d[y] * inside * (special.xlogy(inside, z) - special.digamma(a) + special.digamma(a + b)), a)
    d[b] = unbroadcast(d[y] * inside * (special.xlog1py(inside, -z) - special.digamma(b) + special.digamma(a + b)),
                       b)


@tangent(beta.logpdf)
def beta_logpdf_tangent(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((a - 1.0) / z - (b - 1.0) / (1.0 - z))
    d[y] = inside * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                     + (special.xlogy(inside, z) - special.digamma(a) + special.digamma(a + b)) * d[a]
                     + (special.xlog1py(inside, -z) - special.digamma(b) + special.digamma(a + b)) * d[b])


@adjoint(beta.pdf)
def beta_pdf_adjoint(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    s = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[x] = unbroadcast(d[y] * y * s / scale, x)
    d[loc] = -unbroadcast(d[y] * y * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * y * (z * s + 1.0) / scale, scale)
    d[a] = unbroadcast(d[y] * y * (special.xlogy(y > 0, z) - special.digamma(a) + special.digamma(a + b)), a)
    d[b] = unbroadcast(d[y] * y * (special.xlog1py(y > 0, -z) - special.digamma(b) + special.digamma(a + b)), b)


@tangent(beta.pdf)
def beta_pdf_tangent(y, x, a, b, loc=0, scale=1):
    z = (x - loc) / scale
    s = (a - 1.0) / z - (b - 1.0) / (1.0 - z)
    d[y] = y * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                + (special.xlogy(y > 0, z) - special.digamma(a) + special.digamma(a + b)) * d[a]
                + (special.xlog1py(y > 0, -z) - special.digamma(b) + special.digamma(a + b)) * d[b])


@adjoint(beta.cdf)
def beta_cdf_adjoint(y, x, a, b, loc=0, scale=1):
    density = stats.beta.pdf(x, a, b, loc=loc, scale=scale)
    d[x] = unbroadcast(d[y] * density, x)
    d[loc] = -unbroadcast(d[y] * density, loc)
    d[scale] = -unbroadcast(d[y] * density * (x - loc) / scale, scale)
    d[a] = unbroadcast(d[y] * betainc_dab(a, b, (x - loc) / scale, 1, 0), a)
    d[b] = unbroadcast(d[y] * betainc_dab(a, b, (x - loc) / scale, 0, 1), b)


@tangent(beta.cdf)
def beta_cdf_tangent(y, x, a, b, loc=0, scale=1):
    d[y] = (stats.beta.pdf(x, a, b, loc=loc, scale=scale) * (d[x] - d[loc] - (x - loc) / scale * d[scale])
            + betainc_dab(a, b, (x - loc) / scale, 1, 0) * d[a] + betainc_dab(a, b, (x - loc) / scale, 0, 1) * d[b])


@adjoint(beta.logcdf)
def beta_logcdf_adjoint(y, x, a, b, loc=0, scale=1):
    weight = exp_difference(stats.beta.logpdf(x, a, b, loc=loc, scale=scale), y)
    d[x] = unbroadcast(d[y] * weight, x)
    d[loc] = -unbroadcast(d[y] * weight, loc)
    d[scale] = -unbroadcast(d[y] * weight * (x - loc) / scale, scale)
    d[a] = unbroadcast(d[y] * xdivy(betainc_dab(a, b, (x - loc) / scale, 1, 0), np.exp(y)), a)
    d[b] = unbroadcast(d[y] * xdivy(betainc_dab(a, b, (x - loc) / scale, 0, 1), np.exp(y)), b)


@tangent(beta.logcdf)
def beta_logcdf_tangent(y, x, a, b, loc=0, scale=1):
    d[y] = (exp_difference(stats.beta.logpdf(x, a, b, loc=loc, scale=scale), y) * (d[x] - d[loc]
                                                                                    - (x - loc) / scale * d[scale])
            + xdivy(betainc_dab(a, b, (x - loc) / scale, 1, 0), np.exp(y)) * d[a]
            + xdivy(betainc_dab(a, b, (x - loc) / scale, 0, 1), np.exp(y)) * d[b])


# --------------------------------------------------------------------------
# poisson, in mu

@adjoint(poisson.pmf)
def poisson_pmf_adjoint(y, k, mu, loc=0):
    d[mu] = unbroadcast(d[y] * y * (xdivy(k - loc, mu) - 1.0), mu)


@tangent(poisson.pmf)
def poisson_pmf_tangent(y, k, mu, loc=0):
    d[y] = y * (xdivy(k - loc, mu) - 1.0) * d[mu]


@adjoint(poisson.logpmf)
def poisson_logpmf_adjoint(y, k, mu, loc=0):
    d[mu] = unbroadcast(d[y] * (y > -np.inf) * (xdivy(k - loc, mu) - 1.0), mu)


@tangent(poisson.logpmf)
def poisson_logpmf_tangent(y, k, mu, loc=0):
    d[y] = (y > -np.inf) * (xdivy(k - loc, mu) - 1.0) * d[mu]


@adjoint(poisson.cdf)
def poisson_cdf_adjoint(y, k, mu, loc=0):
    d[mu] = -unbroadcast(d[y] * stats.poisson.pmf(np.floor(k - loc), mu), mu)


@tangent(poisson.cdf)
def poisson_cdf_tangent(y, k, mu, loc=0):
    d[y] = -stats.poisson.pmf(np.floor(k - loc), mu) * d[mu]


@adjoint(poisson.logcdf)
def poisson_logcdf_adjoint(y, k, mu, loc=0):
    d[mu] = -unbroadcast(d[y] * exp_difference(stats.poisson.logpmf(np.floor(k - loc), mu), y), mu)


@tangent(poisson.logcdf)
def poisson_logcdf_tangent(y, k, mu, loc=0):
    d[y] = -exp_difference(stats.poisson.logpmf(np.floor(k - loc), mu), y) * d[mu]
