"""Rules for ``scipy.stats.norm``'s tails and quantiles (``sf``, ``logsf``, ``ppf``, ``isf``) and
``multivariate_normal.entropy``, registered when ``scipy.stats`` is imported.

With ``z = (x - loc) / scale`` and ``pdf`` the density at ``x``: ``sf = 1 - cdf``
has derivatives ``-pdf``, ``pdf`` and ``pdf z`` in ``x``, ``loc`` and
``scale``; ``logsf``'s are those over ``sf`` (``exp_difference(logpdf, logsf)``,
finite far in the tail).  The quantiles ``y = ppf(q) = loc + scale ndtri(q)``
and ``y = isf(q) = ppf(1 - q)`` have derivatives ``1 / pdf(y)`` (``-1 / pdf(y)``
for ``isf``) in ``q``, 1 in ``loc`` and ``(y - loc) / scale`` in ``scale``;
they are infinite at ``q = 0`` and ``q = 1``, where the quantile is.

``multivariate_normal.entropy(mean, cov)`` is ``(k log(2 pi e) + log det cov) / 2``:
its derivative in ``cov`` is ``cov^-1 / 2`` on what SciPy reads of ``cov``
(a number, a diagonal, or the lower triangle), and 0 in ``mean``.
"""
from scipy import stats

from srcad.runtime import broadcast_like, unbroadcast, zeros_like
from srcad.runtime.distributions import exp_difference, normal_entropy_grad, normal_entropy_tangent
from srcad.templates import adjoint, d, tangent

from .scipy_stats import bound_methods

norm = bound_methods(stats.norm, ("sf", "logsf", "ppf", "isf"))
multivariate_normal = bound_methods(stats.multivariate_normal, ("entropy",))


@adjoint(norm.sf)
def norm_sf_adjoint(y, x, loc=0, scale=1):
    density = stats.norm.pdf(x, loc=loc, scale=scale)
    d[x] = -unbroadcast(d[y] * density, x)
    d[loc] = unbroadcast(d[y] * density, loc)
    d[scale] = unbroadcast(d[y] * density * (x - loc) / scale, scale)


@tangent(norm.sf)
def norm_sf_tangent(y, x, loc=0, scale=1):
    d[y] = stats.norm.pdf(x, loc=loc, scale=scale) * (d[loc] - d[x] + (x - loc) / scale * d[scale])


@adjoint(norm.logsf)
def norm_logsf_adjoint(y, x, loc=0, scale=1):
    weight = exp_difference(stats.norm.logpdf(x, loc=loc, scale=scale), y)
    d[x] = -unbroadcast(d[y] * weight, x)
    d[loc] = unbroadcast(d[y] * weight, loc)
    d[scale] = unbroadcast(d[y] * weight * (x - loc) / scale, scale)


@tangent(norm.logsf)
def norm_logsf_tangent(y, x, loc=0, scale=1):
    d[y] = exp_difference(stats.norm.logpdf(x, loc=loc, scale=scale), y) * (d[loc] - d[x]
                                                                            + (x - loc) / scale * d[scale])


@adjoint(norm.ppf)
def norm_ppf_adjoint(y, q, loc=0, scale=1):
    d[q] = unbroadcast(d[y] / stats.norm.pdf(y, loc=loc, scale=scale), q)
    d[loc] = unbroadcast(d[y], loc)
    d[scale] = unbroadcast(d[y] * (y - loc) / scale, scale)


@tangent(norm.ppf)
def norm_ppf_tangent(y, q, loc=0, scale=1):
    d[y] = d[q] / stats.norm.pdf(y, loc=loc, scale=scale) + broadcast_like(d[loc], y) + (y - loc) / scale * d[scale]


@adjoint(norm.isf)
def norm_isf_adjoint(y, q, loc=0, scale=1):
    d[q] = -unbroadcast(d[y] / stats.norm.pdf(y, loc=loc, scale=scale), q)
    d[loc] = unbroadcast(d[y], loc)
    d[scale] = unbroadcast(d[y] * (y - loc) / scale, scale)


@tangent(norm.isf)
def norm_isf_tangent(y, q, loc=0, scale=1):
    d[y] = -d[q] / stats.norm.pdf(y, loc=loc, scale=scale) + broadcast_like(d[loc], y) + (y - loc) / scale * d[scale]


@adjoint(multivariate_normal.entropy)
def multivariate_normal_entropy_adjoint(y, mean=None, cov=1):
    d[mean] = zeros_like(mean)
    d[cov] = normal_entropy_grad(d[y], mean, cov)


@tangent(multivariate_normal.entropy)
def multivariate_normal_entropy_tangent(y, mean=None, cov=1):
    d[y] = normal_entropy_tangent(d[cov], mean, cov)
