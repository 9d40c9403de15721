"""Rules for ``scipy.special``, registered when ``scipy.special`` is imported (``optional.py``).

Numerical care: ``expit``, ``log_expit``, ``softmax``, ``log_softmax`` and
``logsumexp`` are differentiated through their (stable) outputs:
``d expit = y (1 - y)``, ``d log_softmax = dy - exp(y) sum(dy)`` with
``y <= 0``, ``d logsumexp = exp(x - y)`` with ``x <= y``.  None of them
forms ``exp`` of a large positive number, so inputs of +-1e3 give finite
gradients.  ``log_ndtr`` uses ``exp(-x^2/2 - log_ndtr(x))`` for the same
reason.  ``logsumexp`` is differentiated with respect to ``a`` and the
weights ``b``; ``return_sign`` is not supported.

Removable singularities (``docs/singularities.md``): ``xlogy(x, y)`` is 0
for every ``y`` when ``x == 0``, so its derivative with respect to ``y`` is
0 there (``xdivy(x, y)``, also at ``y == 0``); the same holds for
``xlog1py`` at ``y == -1`` and for ``rel_entr``/``kl_div`` at ``x == y == 0``
(the derivative on their domain ``y >= 0``).  The derivatives with respect to
``x`` at those points (``log(0)``) and ``entr``'s at 0 are genuinely
infinite and stay so.
"""
import numpy as np
from scipy import special

from srcad.runtime import unbroadcast, unreduce
from srcad.runtime.limits import xdivy
from srcad.runtime.reductions import logsumexp_weights
from srcad.templates import adjoint, d, tangent

from .runtime_helpers import xlogy_adjoint, xlogy_tangent


@adjoint(special.expit)
def expit_adjoint(y, x):
    d[x] = d[y] * y * (1.0 - y)


@tangent(special.expit)
def expit_tangent(y, x):
    d[y] = d[x] * y * (1.0 - y)


@adjoint(special.log_expit)
def log_expit_adjoint(y, x):
    d[x] = d[y] * special.expit(-x)


@tangent(special.log_expit)
def log_expit_tangent(y, x):
    d[y] = d[x] * special.expit(-x)


@adjoint(special.logit)
def logit_adjoint(y, x):
    d[x] = d[y] / (x * (1.0 - x))


@tangent(special.logit)
def logit_tangent(y, x):
    d[y] = d[x] / (x * (1.0 - x))


@adjoint(special.logsumexp)
def logsumexp_adjoint(y, a, axis=None, b=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis=axis, keepdims=keepdims) * logsumexp_weights(a, y, b=b, axis=axis,
                                                                                 keepdims=keepdims)
    d[b] = unbroadcast(unreduce(d[y], a, axis=axis, keepdims=keepdims)
                       * logsumexp_weights(a, y, axis=axis, keepdims=keepdims), b)


@tangent(special.logsumexp)
def logsumexp_tangent(y, a, axis=None, b=None, keepdims=False):
    d[y] = (np.sum(d[a] * logsumexp_weights(a, y, b=b, axis=axis, keepdims=keepdims), axis=axis,
                   keepdims=keepdims)
            + np.sum(d[b] * logsumexp_weights(a, y, axis=axis, keepdims=keepdims), axis=axis,
                     keepdims=keepdims))


@adjoint(special.softmax)
def softmax_adjoint(y, x, axis=None):
    d[x] = y * (d[y] - np.sum(d[y] * y, axis=axis, keepdims=True))


@tangent(special.softmax)
def softmax_tangent(y, x, axis=None):
    d[y] = y * (d[x] - np.sum(d[x] * y, axis=axis, keepdims=True))


@adjoint(special.log_softmax)
def log_softmax_adjoint(y, x, axis=None):
    d[x] = d[y] - np.exp(y) * np.sum(d[y], axis=axis, keepdims=True)


@tangent(special.log_softmax)
def log_softmax_tangent(y, x, axis=None):
    d[y] = d[x] - np.sum(d[x] * np.exp(y), axis=axis, keepdims=True)


@adjoint(special.erf)
def erf_adjoint(y, x):
    d[x] = d[y] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@tangent(special.erf)
def erf_tangent(y, x):
    d[y] = d[x] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@adjoint(special.erfc)
def erfc_adjoint(y, x):
    d[x] = -d[y] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@tangent(special.erfc)
def erfc_tangent(y, x):
    d[y] = -d[x] * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@adjoint(special.erfinv)
def erfinv_adjoint(y, x):
    d[x] = d[y] * np.sqrt(np.pi) / 2.0 * np.exp(y * y)


@tangent(special.erfinv)
def erfinv_tangent(y, x):
    d[y] = d[x] * np.sqrt(np.pi) / 2.0 * np.exp(y * y)


@adjoint(special.erfcinv)
def erfcinv_adjoint(y, x):
    d[x] = -d[y] * np.sqrt(np.pi) / 2.0 * np.exp(y * y)


@tangent(special.erfcinv)
def erfcinv_tangent(y, x):
    d[y] = -d[x] * np.sqrt(np.pi) / 2.0 * np.exp(y * y)


@adjoint(special.ndtr)
def ndtr_adjoint(y, x):
    d[x] = d[y] * np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)


@tangent(special.ndtr)
def ndtr_tangent(y, x):
    d[y] = d[x] * np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)


@adjoint(special.log_ndtr)
def log_ndtr_adjoint(y, x):
    d[x] = d[y] * np.exp(-0.5 * x * x - y) / np.sqrt(2.0 * np.pi)


@tangent(special.log_ndtr)
def log_ndtr_tangent(y, x):
    d[y] = d[x] * np.exp(-0.5 * x * x - y) / np.sqrt(2.0 * np.pi)


@adjoint(special.ndtri)
def ndtri_adjoint(y, x):
    d[x] = d[y] * np.sqrt(2.0 * np.pi) * np.exp(0.5 * y * y)


@tangent(special.ndtri)
def ndtri_tangent(y, x):
    d[y] = d[x] * np.sqrt(2.0 * np.pi) * np.exp(0.5 * y * y)


@adjoint(special.gammaln)
def gammaln_adjoint(y, x):
    d[x] = d[y] * special.digamma(x)


@tangent(special.gammaln)
def gammaln_tangent(y, x):
    d[y] = d[x] * special.digamma(x)


@adjoint(special.gamma)
def gamma_adjoint(y, x):
    d[x] = d[y] * y * special.digamma(x)


@tangent(special.gamma)
def gamma_tangent(y, x):
    d[y] = d[x] * y * special.digamma(x)


@adjoint(special.digamma)
def digamma_adjoint(y, x):
    d[x] = d[y] * special.polygamma(1, x)


@tangent(special.digamma)
def digamma_tangent(y, x):
    d[y] = d[x] * special.polygamma(1, x)


@adjoint(special.polygamma)
def polygamma_adjoint(y, n, x):
    d[x] = d[y] * special.polygamma(n + 1, x)


@tangent(special.polygamma)
def polygamma_tangent(y, n, x):
    d[y] = d[x] * special.polygamma(n + 1, x)


@adjoint(special.betaln)
def betaln_adjoint(z, a, b):
    d[a] = unbroadcast(d[z] * (special.digamma(a) - special.digamma(a + b)), a)
    d[b] = unbroadcast(d[z] * (special.digamma(b) - special.digamma(a + b)), b)


@tangent(special.betaln)
def betaln_tangent(z, a, b):
    d[z] = (d[a] * (special.digamma(a) - special.digamma(a + b))
            + d[b] * (special.digamma(b) - special.digamma(a + b)))


adjoint(special.xlogy)(xlogy_adjoint)   # the rules of srcad's own xlogy (runtime_helpers.py)
tangent(special.xlogy)(xlogy_tangent)


@adjoint(special.xlog1py)
def xlog1py_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * np.log1p(y), x)
    d[y] = unbroadcast(d[z] * xdivy(x, 1.0 + y), y)


@tangent(special.xlog1py)
def xlog1py_tangent(z, x, y):
    d[z] = d[x] * np.log1p(y) + d[y] * xdivy(x, 1.0 + y)


@adjoint(special.entr)
def entr_adjoint(y, x):
    d[x] = -d[y] * (np.log(x) + 1.0)


@tangent(special.entr)
def entr_tangent(y, x):
    d[y] = -d[x] * (np.log(x) + 1.0)


@adjoint(special.rel_entr)
def rel_entr_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * (np.log(x / y) + 1.0), x)
    d[y] = unbroadcast(-d[z] * xdivy(x, y), y)


@tangent(special.rel_entr)
def rel_entr_tangent(z, x, y):
    d[z] = d[x] * (np.log(x / y) + 1.0) - d[y] * xdivy(x, y)


@adjoint(special.kl_div)
def kl_div_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * np.log(x / y), x)
    d[y] = unbroadcast(d[z] * (1.0 - xdivy(x, y)), y)


@tangent(special.kl_div)
def kl_div_tangent(z, x, y):
    d[z] = d[x] * np.log(x / y) + d[y] * (1.0 - xdivy(x, y))


@adjoint(special.i0)
def i0_adjoint(y, x):
    d[x] = d[y] * special.i1(x)


@tangent(special.i0)
def i0_tangent(y, x):
    d[y] = d[x] * special.i1(x)


@adjoint(special.i1)
def i1_adjoint(y, x):
    d[x] = d[y] * (special.i0(x) + special.iv(2, x)) / 2.0


@tangent(special.i1)
def i1_tangent(y, x):
    d[y] = d[x] * (special.i0(x) + special.iv(2, x)) / 2.0


if hasattr(special, "softplus"):   # SciPy 1.15+
    @adjoint(special.softplus)
    def softplus_adjoint(y, x):
        d[x] = d[y] * special.expit(x)

    @tangent(special.softplus)
    def softplus_tangent(y, x):
        d[y] = d[x] * special.expit(x)
