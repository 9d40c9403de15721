"""Rules for more of ``scipy.special``: beta and gamma relatives, exponentials and error functions.

Registered with ``special`` when ``scipy.special`` is imported.  Covered:
``beta``, ``rgamma``, ``loggamma`` (real ``x > 0``), ``multigammaln`` (in
``a``; ``d`` is an integer), ``expm1``, ``log1p``, ``exp2``, ``exp10``,
``cbrt``, ``cosm1``, ``erfcx``, ``erfi`` and ``dawsn``; ``gammasgn`` is
piecewise constant (non-differentiable).  ``psi`` is ``digamma``
(``special.py``).

Domains: ``rgamma``'s derivative ``-rgamma(x) digamma(x)`` is written for
``x`` away from the poles of ``gamma`` (0, -1, -2...), where ``rgamma`` is 0
and its true slope is finite; ``cbrt``'s is infinite at 0.  ``erfcx``'s
``2 x erfcx(x) - 2 / sqrt(pi)`` stays finite for large ``x`` (no
``exp(x^2)``).
"""
import numpy as np
from scipy import special

from srcad.runtime import unbroadcast
from srcad.templates import adjoint, d, nondifferentiable, tangent

nondifferentiable(special.gammasgn, reason="the sign of gamma is piecewise constant")


@adjoint(special.beta)
def beta_adjoint(y, a, b):
    d[a] = unbroadcast(d[y] * y * (special.digamma(a) - special.digamma(a + b)), a)
    d[b] = unbroadcast(d[y] * y * (special.digamma(b) - special.digamma(a + b)), b)


@tangent(special.beta)
def beta_tangent(y, a, b):
    d[y] = y * (d[a] * (special.digamma(a) - special.digamma(a + b))
                + d[b] * (special.digamma(b) - special.digamma(a + b)))


@adjoint(special.rgamma)
def rgamma_adjoint(y, x):
    d[x] = -d[y] * y * special.digamma(x)


@tangent(special.rgamma)
def rgamma_tangent(y, x):
    d[y] = -d[x] * y * special.digamma(x)


@adjoint(special.loggamma)
def loggamma_adjoint(y, x):
    d[x] = d[y] * special.digamma(x)


@tangent(special.loggamma)
def loggamma_tangent(y, x):
    d[y] = d[x] * special.digamma(x)


@adjoint(special.multigammaln)
def multigammaln_adjoint(y, a, d_):
    d[a] = d[y] * np.sum(special.digamma(np.expand_dims(a, -1) - np.arange(d_) / 2.0), axis=-1)


@tangent(special.multigammaln)
def multigammaln_tangent(y, a, d_):
    d[y] = d[a] * np.sum(special.digamma(np.expand_dims(a, -1) - np.arange(d_) / 2.0), axis=-1)


@adjoint(special.expm1)
def expm1_adjoint(y, x):
    d[x] = d[y] * (y + 1.0)


@tangent(special.expm1)
def expm1_tangent(y, x):
    d[y] = d[x] * (y + 1.0)


@adjoint(special.log1p)
def log1p_adjoint(y, x):
    d[x] = d[y] / (1.0 + x)


@tangent(special.log1p)
def log1p_tangent(y, x):
    d[y] = d[x] / (1.0 + x)


@adjoint(special.exp2)
def exp2_adjoint(y, x):
    d[x] = d[y] * y * np.log(2.0)


@tangent(special.exp2)
def exp2_tangent(y, x):
    d[y] = d[x] * y * np.log(2.0)


@adjoint(special.exp10)
def exp10_adjoint(y, x):
    d[x] = d[y] * y * np.log(10.0)


@tangent(special.exp10)
def exp10_tangent(y, x):
    d[y] = d[x] * y * np.log(10.0)


@adjoint(special.cbrt)
def cbrt_adjoint(y, x):
    d[x] = d[y] / (3.0 * y * y)


@tangent(special.cbrt)
def cbrt_tangent(y, x):
    d[y] = d[x] / (3.0 * y * y)


@adjoint(special.cosm1)
def cosm1_adjoint(y, x):
    d[x] = -d[y] * np.sin(x)


@tangent(special.cosm1)
def cosm1_tangent(y, x):
    d[y] = -d[x] * np.sin(x)


@adjoint(special.erfcx)
def erfcx_adjoint(y, x):
    d[x] = d[y] * (2.0 * x * y - 2.0 / np.sqrt(np.pi))


@tangent(special.erfcx)
def erfcx_tangent(y, x):
    d[y] = d[x] * (2.0 * x * y - 2.0 / np.sqrt(np.pi))


@adjoint(special.erfi)
def erfi_adjoint(y, x):
    d[x] = d[y] * 2.0 / np.sqrt(np.pi) * np.exp(x * x)


@tangent(special.erfi)
def erfi_tangent(y, x):
    d[y] = d[x] * 2.0 / np.sqrt(np.pi) * np.exp(x * x)


@adjoint(special.dawsn)
def dawsn_adjoint(y, x):
    d[x] = d[y] * (1.0 - 2.0 * x * y)


@tangent(special.dawsn)
def dawsn_tangent(y, x):
    d[y] = d[x] * (1.0 - 2.0 * x * y)
