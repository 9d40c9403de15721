"""Rules for ``scipy.stats``' continuous distributions, registered when ``scipy.stats`` is imported.

Covered: ``norm``, ``t``, ``gamma``, ``beta`` and ``chi2``: ``pdf``,
``logpdf``, ``cdf`` and ``logcdf``, in ``x``, ``loc``, ``scale`` and every
shape parameter (``df``, ``a``, ``b``).  With ``z = (x - loc) / scale``
and ``s = d logpdf / dz``, ``logpdf``'s derivatives are ``s / scale`` in
``x``, ``-s / scale`` in ``loc`` and ``-(z s + 1) / scale`` in ``scale``;
``pdf``'s are ``pdf`` times those; ``cdf``'s are ``pdf``, ``-pdf`` and
``-pdf z``, and ``logcdf``'s ``pdf / cdf`` times those
(``exp_difference(logpdf, logcdf)``, finite far in the tails).  The cdfs'
derivatives in a shape parameter have no closed form: they are series sums
(``special_incomplete.py``: ``gammainc_da``, ``betainc_dab``; ``t`` through
``I_w(df/2, 1/2)`` with ``w = df / (df + z^2)``).

Outside the support (``x < loc`` for ``gamma`` and ``chi2``; ``z`` outside
(0, 1) for ``beta``) ``pdf`` and ``cdf`` are constant, and every derivative
is 0; ``logpdf`` is ``-inf`` there and its derivatives are 0 too (the
derivative of a constant; logarithms of ``z`` are taken only inside, as
``xlogy(z > 0, z)``).  Parameters outside their domain (``scale <= 0``...)
give NaN values, as SciPy does, and derivatives that mean nothing.
"""
import types

import numpy as np
from scipy import special, stats

from srcad.runtime import unbroadcast, xdivy
from srcad.runtime.distributions import exp_difference
from srcad.templates import adjoint, d, tangent

from .special_incomplete import betainc_dab, gammainc_da


def bound_methods(distribution, names=("pdf", "logpdf", "cdf", "logcdf")):
    """The methods ``names`` of a ``scipy.stats`` distribution, each held once: an attribute access makes a new
    bound method each time, and the rules of both modes must be keyed by the same object.

    Example: ``bound_methods(stats.norm).pdf(0.0)`` is ``0.3989...``.
    """
    return types.SimpleNamespace(**{name: getattr(distribution, name) for name in names})


norm, t, gamma = bound_methods(stats.norm), bound_methods(stats.t), bound_methods(stats.gamma)

# --------------------------------------------------------------------------
# norm: s = -z


@adjoint(norm.logpdf)
def norm_logpdf_adjoint(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = unbroadcast(-d[y] * z / scale, x)
    d[loc] = unbroadcast(d[y] * z / scale, loc)
    d[scale] = unbroadcast(d[y] * (z * z - 1.0) / scale, scale)


@tangent(norm.logpdf)
def norm_logpdf_tangent(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = (-z * (d[x] - d[loc]) + (z * z - 1.0) * d[scale]) / scale


@adjoint(norm.pdf)
def norm_pdf_adjoint(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[x] = unbroadcast(-d[y] * y * z / scale, x)
    d[loc] = unbroadcast(d[y] * y * z / scale, loc)
    d[scale] = unbroadcast(d[y] * y * (z * z - 1.0) / scale, scale)


@tangent(norm.pdf)
def norm_pdf_tangent(y, x, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = y * (-z * (d[x] - d[loc]) + (z * z - 1.0) * d[scale]) / scale


@adjoint(norm.cdf)
def norm_cdf_adjoint(y, x, loc=0, scale=1):
    density = stats.norm.pdf(x, loc=loc, scale=scale)
    d[x] = unbroadcast(d[y] * density, x)
    d[loc] = -unbroadcast(d[y] * density, loc)
    d[scale] = -unbroadcast(d[y] * density * (x - loc) / scale, scale)


@tangent(norm.cdf)
def norm_cdf_tangent(y, x, loc=0, scale=1):
    d[y] = stats.norm.pdf(x, loc=loc, scale=scale) * (d[x] - d[loc] - (x - loc) / scale * d[scale])


@adjoint(norm.logcdf)
def norm_logcdf_adjoint(y, x, loc=0, scale=1):
    weight = exp_difference(stats.norm.logpdf(x, loc=loc, scale=scale), y)
    d[x] = unbroadcast(d[y] * weight, x)
    d[loc] = -unbroadcast(d[y] * weight, loc)
    d[scale] = -unbroadcast(d[y] * weight * (x - loc) / scale, scale)


@tangent(norm.logcdf)
def norm_logcdf_tangent(y, x, loc=0, scale=1):
    d[y] = exp_difference(stats.norm.logpdf(x, loc=loc, scale=scale), y) * (d[x] - d[loc]
                                                                            - (x - loc) / scale * d[scale])


# --------------------------------------------------------------------------
# t: s = -(df + 1) z / (df + z^2)

@adjoint(t.logpdf)
def t_logpdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = -(df + 1.0) * z / (df + z * z)
    d[x] = unbroadcast(d[y] * s / scale, x)
    d[loc] = -unbroadcast(d[y] * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * (z * s + 1.0) / scale, scale)
    d[df] = unbroadcast(d[y] * 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
                                      - np.log1p(z * z / df) - z * s / df), df)


@tangent(t.logpdf)
def t_logpdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = -(df + 1.0) * z / (df + z * z)
    d[y] = ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
            + 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
                     - np.log1p(z * z / df) - z * s / df) * d[df])


@adjoint(t.pdf)
def t_pdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = -(df + 1.0) * z / (df + z * z)
    d[x] = unbroadcast(d[y] * y * s / scale, x)
    d[loc] = -unbroadcast(d[y] * y * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * y * (z * s + 1.0) / scale, scale)
    d[df] = unbroadcast(d[y] * y * 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
                                          - np.log1p(z * z / df) - z * s / df), df)


@tangent(t.pdf)
def t_pdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    s = -(df + 1.0) * z / (df + z * z)
    d[y] = y * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                + 0.5 * (special.digamma(0.5 * (df + 1.0)) - special.digamma(0.5 * df) - 1.0 / df
                         - np.log1p(z * z / df) - z * s / df) * d[df])


# d cdf / d df = -sign(z) / 4 * dI_w/da (df/2, 1/2) - z t.pdf(z, df) / (2 df), with w = df / (df + z^2)

@adjoint(t.cdf)
def t_cdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    density = stats.t.pdf(z, df) / scale
    d[x] = unbroadcast(d[y] * density, x)
    d[loc] = -unbroadcast(d[y] * density, loc)
    d[scale] = -unbroadcast(d[y] * density * z, scale)
    d[df] = unbroadcast(d[y] * (-0.25 * np.sign(z) * betainc_dab(0.5 * df, 0.5, df / (df + z * z), 1, 0)
                                - 0.5 * z * scale * density / df), df)


@tangent(t.cdf)
def t_cdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    density = stats.t.pdf(z, df) / scale
    d[y] = (density * (d[x] - d[loc] - z * d[scale])
            + (-0.25 * np.sign(z) * betainc_dab(0.5 * df, 0.5, df / (df + z * z), 1, 0)
               - 0.5 * z * scale * density / df) * d[df])


@adjoint(t.logcdf)
def t_logcdf_adjoint(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    weight = exp_difference(stats.t.logpdf(x, df, loc=loc, scale=scale), y)
    d[x] = unbroadcast(d[y] * weight, x)
    d[loc] = -unbroadcast(d[y] * weight, loc)
    d[scale] = -unbroadcast(d[y] * weight * z, scale)
    d[df] = unbroadcast(d[y] * xdivy(-0.25 * np.sign(z) * betainc_dab(0.5 * df, 0.5, df / (df + z * z), 1, 0)
                                     - 0.5 * z * stats.t.pdf(z, df) / df, np.exp(y)), df)


@tangent(t.logcdf)
def t_logcdf_tangent(y, x, df, loc=0, scale=1):
    z = (x - loc) / scale
    d[y] = (exp_difference(stats.t.logpdf(x, df, loc=loc, scale=scale), y) * (d[x] - d[loc] - z * d[scale])
            + xdivy(-0.25 * np.sign(z) * betainc_dab(0.5 * df, 0.5, df / (df + z * z), 1, 0)
                    - 0.5 * z * stats.t.pdf(z, df) / df, np.exp(y)) * d[df])


# --------------------------------------------------------------------------
# gamma: s = (a - 1) / z - 1 on z > 0

@adjoint(gamma.logpdf)
def gamma_logpdf_adjoint(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((a - 1.0) / z - 1.0)
    d[x] = unbroadcast(d[y] * s / scale, x)
    d[loc] = -unbroadcast(d[y] * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * inside * (z * s + 1.0) / scale, scale)
    d[a] = unbroadcast(d[y] * inside * (special.xlogy(inside, z) - special.digamma(a)), a)


@tangent(gamma.logpdf)
def gamma_logpdf_tangent(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    inside = y > -np.inf
    s = inside * ((a - 1.0) / z - 1.0)
    d[y] = inside * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                     + (special.xlogy(inside, z) - special.digamma(a)) * d[a])


@adjoint(gamma.pdf)
def gamma_pdf_adjoint(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    s = (a - 1.0) / z - 1.0
    d[x] = unbroadcast(d[y] * y * s / scale, x)
    d[loc] = -unbroadcast(d[y] * y * s / scale, loc)
    d[scale] = -unbroadcast(d[y] * y * (z * s + 1.0) / scale, scale)
    d[a] = unbroadcast(d[y] * y * (special.xlogy(y > 0, z) - special.digamma(a)), a)


@tangent(gamma.pdf)
def gamma_pdf_tangent(y, x, a, loc=0, scale=1):
    z = (x - loc) / scale
    s = (a - 1.0) / z - 1.0
    d[y] = y * ((s * (d[x] - d[loc]) - (z * s + 1.0) * d[scale]) / scale
                + (special.xlogy(y > 0, z) - special.digamma(a)) * d[a])


@adjoint(gamma.cdf)
def gamma_cdf_adjoint(y, x, a, loc=0, scale=1):
    density = stats.gamma.pdf(x, a, loc=loc, scale=scale)
    d[x] = unbroadcast(d[y] * density, x)
    d[loc] = -unbroadcast(d[y] * density, loc)
    d[scale] = -unbroadcast(d[y] * density * (x - loc) / scale, scale)
    d[a] = unbroadcast(d[y] * gammainc_da(a, (x - loc) / scale, 1), a)


@tangent(gamma.cdf)
def gamma_cdf_tangent(y, x, a, loc=0, scale=1):
    d[y] = (stats.gamma.pdf(x, a, loc=loc, scale=scale) * (d[x] - d[loc] - (x - loc) / scale * d[scale])
            + gammainc_da(a, (x - loc) / scale, 1) * d[a])


@adjoint(gamma.logcdf)
def gamma_logcdf_adjoint(y, x, a, loc=0, scale=1):
    weight = exp_difference(stats.gamma.logpdf(x, a, loc=loc, scale=scale), y)
    d[x] = unbroadcast(d[y] * weight, x)
    d[loc] = -unbroadcast(d[y] * weight, loc)
    d[scale] = -unbroadcast(d[y] * weight * (x - loc) / scale, scale)
    d[a] = unbroadcast(d[y] * xdivy(gammainc_da(a, (x - loc) / scale, 1), np.exp(y)), a)


@tangent(gamma.logcdf)
def gamma_logcdf_tangent(y, x, a, loc=0, scale=1):
    d[y] = (exp_difference(stats.gamma.logpdf(x, a, loc=loc, scale=scale), y) * (d[x] - d[loc]
                                                                                  - (x - loc) / scale * d[scale])
            + xdivy(gammainc_da(a, (x - loc) / scale, 1), np.exp(y)) * d[a])
