"""Rules for ``scipy.stats.dirichlet`` and ``multivariate_normal``, registered when ``scipy.stats`` is imported.

``dirichlet.pdf`` and ``logpdf(x, alpha)`` in ``x`` and ``alpha``: the
components are ``x``'s first axis (its other axes are samples), and an ``x``
with one component fewer than ``alpha`` has the last one, ``1 - sum(x)``,
appended (``dirichlet_components``), so its derivative reaches every given
component.  A derivative with respect to ``x`` moves off the simplex SciPy
checks ``x`` against: it is the derivative of the density's formula.

``multivariate_normal.pdf`` and ``logpdf(x, mean, cov)`` in all three
(helpers in ``srcad/runtime/distributions.py``): ``cov`` a number, a vector
(a diagonal) or a matrix of which SciPy reads the lower triangle (so the
gradient is zero above the diagonal).  ``allow_singular`` is not a rule
parameter: a call that passes it is refused.  ``cdf`` and ``logcdf`` are
computed by randomized quasi-Monte Carlo integration accurate to about 1e-5,
so srcad does not differentiate them (a differentiated value reaching them is
an error).

Also here: the rules of the runtime helper ``exp_difference``.
"""
import numpy as np
from scipy import special, stats

from srcad.runtime import distributions, unbroadcast
from srcad.runtime.distributions import (dirichlet_components, normal_cov_grad, normal_cov_tangent, normal_mean_grad,
                                         normal_x_grad, normal_x_tangent)
from srcad.templates import adjoint, d, not_differentiated, tangent

from .scipy_stats import bound_methods

dirichlet = bound_methods(stats.dirichlet, ("pdf", "logpdf"))
multivariate_normal = bound_methods(stats.multivariate_normal)


def _per_component(alpha, full):
    """``alpha`` with an axis of length 1 for each sample axis of ``full``."""
    return np.reshape(alpha, np.shape(alpha) + (1,) * (np.ndim(full) - 1))


def dirichlet_x_grad(g, x, alpha):
    """The gradient of ``x`` for the gradient ``g`` of ``dirichlet.logpdf(x, alpha)``.

    Example: ``dirichlet_x_grad(1.0, np.array([0.5, 0.5]), np.array([2.0, 3.0]))`` is ``array([2., 4.])``.
    """
    full = dirichlet_components(x, alpha)
    grad = g * (_per_component(alpha, full) - 1.0) / full
    if np.shape(x)[0] < np.shape(full)[0]:   # the last component is 1 - sum(x)
        return grad[:-1] - grad[-1:]
    return grad


def dirichlet_alpha_grad(g, x, alpha):
    """The gradient of ``alpha`` for the gradient ``g`` of ``dirichlet.logpdf(x, alpha)``.

    Example: ``dirichlet_alpha_grad(1.0, np.array([0.5, 0.5]), np.ones(2))`` is ``log(0.5) + 1``, twice.
    """
    full = dirichlet_components(x, alpha)
    terms = g * (np.log(full) - _per_component(special.digamma(alpha) - special.digamma(np.sum(alpha)), full))
    return np.reshape(np.sum(np.reshape(terms, (np.shape(full)[0], -1)), axis=1), np.shape(alpha))


def dirichlet_x_tangent(tangent, x, alpha):
    """The tangent of ``dirichlet.logpdf(x, alpha)`` for the tangent ``tangent`` of ``x``.

    Example: ``dirichlet_x_tangent(np.array([1.0, -1.0]), np.array([0.5, 0.5]), np.array([2.0, 3.0]))``
    is ``-2.0``.
    """
    full = dirichlet_components(x, alpha)
    if np.shape(x)[0] < np.shape(full)[0]:
        tangent = np.concatenate([tangent, -np.sum(tangent, axis=0, keepdims=True)], axis=0)
    return np.sum(tangent * (_per_component(alpha, full) - 1.0) / full, axis=0)


def dirichlet_alpha_tangent(tangent, x, alpha):
    """The tangent of ``dirichlet.logpdf(x, alpha)`` for the tangent ``tangent`` of ``alpha``.

    Example: ``dirichlet_alpha_tangent(np.ones(2), np.array([0.5, 0.5]), np.ones(2))`` is ``2 log(0.5) + 2``.
    """
    full = dirichlet_components(x, alpha)
    slope = np.log(full) - _per_component(special.digamma(alpha) - special.digamma(np.sum(alpha)), full)
    return np.sum(_per_component(tangent, full) * slope, axis=0)


@adjoint(dirichlet.logpdf)
def dirichlet_logpdf_adjoint(y, x, alpha):
    d[x] = dirichlet_x_grad(d[y], x, alpha)
    d[alpha] = dirichlet_alpha_grad(d[y], x, alpha)


@tangent(dirichlet.logpdf)
def dirichlet_logpdf_tangent(y, x, alpha):
    d[y] = dirichlet_x_tangent(d[x], x, alpha) + dirichlet_alpha_tangent(d[alpha], x, alpha)


@adjoint(dirichlet.pdf)
def dirichlet_pdf_adjoint(y, x, alpha):
    d[x] = dirichlet_x_grad(d[y] * y, x, alpha)
    d[alpha] = dirichlet_alpha_grad(d[y] * y, x, alpha)


@tangent(dirichlet.pdf)
def dirichlet_pdf_tangent(y, x, alpha):
    d[y] = y * (dirichlet_x_tangent(d[x], x, alpha) + dirichlet_alpha_tangent(d[alpha], x, alpha))


@adjoint(multivariate_normal.logpdf)
def multivariate_normal_logpdf_adjoint(y, x, mean=None, cov=1):
    d[x] = normal_x_grad(d[y], x, mean, cov)
    d[mean] = normal_mean_grad(d[y], x, mean, cov)
    d[cov] = normal_cov_grad(d[y], x, mean, cov)


@tangent(multivariate_normal.logpdf)
def multivariate_normal_logpdf_tangent(y, x, mean=None, cov=1):
    d[y] = (normal_x_tangent(d[x], x, mean, cov) - normal_x_tangent(d[mean], x, mean, cov)
            + normal_cov_tangent(d[cov], x, mean, cov))


@adjoint(multivariate_normal.pdf)
def multivariate_normal_pdf_adjoint(y, x, mean=None, cov=1):
    d[x] = normal_x_grad(d[y] * y, x, mean, cov)
    d[mean] = normal_mean_grad(d[y] * y, x, mean, cov)
    d[cov] = normal_cov_grad(d[y] * y, x, mean, cov)


@tangent(multivariate_normal.pdf)
def multivariate_normal_pdf_tangent(y, x, mean=None, cov=1):
    d[y] = y * (normal_x_tangent(d[x], x, mean, cov) - normal_x_tangent(d[mean], x, mean, cov)
                + normal_cov_tangent(d[cov], x, mean, cov))


not_differentiated(multivariate_normal.cdf, multivariate_normal.logcdf,
                   hint="multivariate_normal.cdf is a quasi-Monte Carlo estimate (accurate to about 1e-5), too "
                        "rough to differentiate; for one dimension use scipy.stats.norm.cdf, or pass "
                        "srcad.stop_gradient(value) if no derivative should flow through it")


@adjoint(distributions.exp_difference)
def exp_difference_adjoint(y, p, q):
    d[p] = unbroadcast(d[y] * y, p)
    d[q] = -unbroadcast(d[y] * y, q)


@tangent(distributions.exp_difference)
def exp_difference_tangent(y, p, q):
    d[y] = y * (d[p] - d[q])
