"""Rules for reductions (with ``axis`` and ``keepdims``) and cumulative sums and products.

``unreduce`` spreads an output gradient back over the reduced axes.  Each
rule's keyword defaults match NumPy's, so keywords the user left out stay out
of the generated code.

Choices at kinks: ``max``/``min``/``amax``/``amin``/``nanmax``/``nanmin``
split the gradient equally among tied extreme elements (``k`` ties get
``1/k`` each), and so does ``ptp`` for each of its two ends.  ``prod`` and
``cumprod`` are exact where the input has zeros (no division by the input).
``nansum``/``nanmean``/``nanvar``/``nanstd``/``nancumsum``/``nancumprod`` give NaN elements a zero
gradient (they count as 0 or 1, constants).

Zero spread (``docs/singularities.md``): the gradient of ``var`` is
``2 (x - mean) / (n - ddof)``, exact everywhere; NumPy divides by
``max(n - ddof, 0)`` and so does the rule (``reduced_count(x, axis, ddof)``),
so where ``ddof >= n`` both the value and the gradient are inf or NaN.  The
gradient of ``std`` is ``(x - mean) / ((n - ddof) std)``, taken as 0 where
``x - mean`` is exactly 0 (``xdivy``): along an axis of one element ``std``
is identically 0 and 0 is its derivative; along a longer constant axis
``std`` has a kink (it is a norm of ``x - mean``) and 0 is its smallest
subgradient, the convention of ``np.linalg.norm`` at 0.
"""
import numpy as np

from srcad.runtime import reduced_count, unreduce
from srcad.runtime.limits import xdivy
from srcad.runtime.reductions import (cumprod_grad, cumprod_tangent, extreme_share, nan_centered, nan_count,
                                      nanmean_weights, prod_others, ptp_share, uncumsum)
from srcad.templates import adjoint, d, tangent


@adjoint(np.sum)
def sum_adjoint(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims)


@tangent(np.sum)
def sum_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(np.mean)
def mean_adjoint(y, x, axis=None, dtype=None, out=None, keepdims=False):
    if axis is None:
        d[x] = unreduce(d[y] / np.size(x), x, keepdims=keepdims)
    else:
        d[x] = unreduce(d[y] / reduced_count(x, axis), x, axis=axis, keepdims=keepdims)


@tangent(np.mean)
def mean_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.mean(d[x], axis=axis, keepdims=keepdims)


@adjoint(np.prod)
def prod_adjoint(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * prod_others(x, axis=axis)


@tangent(np.prod)
def prod_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[x] * prod_others(x, axis=axis), axis=axis, keepdims=keepdims)


@adjoint(np.var)
def var_adjoint(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = (unreduce(d[y], x, axis=axis, keepdims=keepdims) * 2.0 * (x - np.mean(x, axis=axis, keepdims=True))
            / reduced_count(x, axis=axis, ddof=ddof))


@tangent(np.var)
def var_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = (np.sum(d[x] * (x - np.mean(x, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims) * 2.0
            / reduced_count(x, axis=axis, ddof=ddof))


@adjoint(np.std)
def std_adjoint(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * xdivy(
        x - np.mean(x, axis=axis, keepdims=True),
        unreduce(y, x, axis=axis, keepdims=keepdims) * reduced_count(x, axis=axis, ddof=ddof))


@tangent(np.std)
def std_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = xdivy(np.sum(d[x] * (x - np.mean(x, axis=axis, keepdims=True)), axis=axis, keepdims=keepdims),
                 y * reduced_count(x, axis=axis, ddof=ddof))


@adjoint(np.nanvar)
def nanvar_adjoint(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = (unreduce(d[y], x, axis=axis, keepdims=keepdims) * 2.0 * nan_centered(x, x, axis=axis)
            / nan_count(x, axis=axis, ddof=ddof))


@tangent(np.nanvar)
def nanvar_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = 2.0 * np.sum(d[x] * nan_centered(x, x, axis=axis) / nan_count(x, axis=axis, ddof=ddof), axis=axis,
                        keepdims=keepdims)


@adjoint(np.nanstd)
def nanstd_adjoint(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * xdivy(
        nan_centered(x, x, axis=axis),
        unreduce(y, x, axis=axis, keepdims=keepdims) * nan_count(x, axis=axis, ddof=ddof))


@tangent(np.nanstd)
def nanstd_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = np.sum(d[x] * xdivy(nan_centered(x, x, axis=axis), unreduce(y, x, axis=axis, keepdims=keepdims)
                               * nan_count(x, axis=axis, ddof=ddof)), axis=axis, keepdims=keepdims)


@adjoint(np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin)
def extreme_adjoint(y, x, axis=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * extreme_share(x, y, axis=axis, keepdims=keepdims)


@tangent(np.max, np.min, np.amax, np.amin, np.nanmax, np.nanmin)
def extreme_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = np.sum(d[x] * extreme_share(x, y, axis=axis, keepdims=keepdims), axis=axis, keepdims=keepdims)


@adjoint(np.ptp)
def ptp_adjoint(y, x, axis=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * ptp_share(x, axis=axis)


@tangent(np.ptp)
def ptp_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = np.sum(d[x] * ptp_share(x, axis=axis), axis=axis, keepdims=keepdims)


@adjoint(np.nansum)
def nansum_adjoint(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * ~np.isnan(x)


@tangent(np.nansum)
def nansum_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[x] * ~np.isnan(x), axis=axis, keepdims=keepdims)


@adjoint(np.nanmean)
def nanmean_adjoint(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * nanmean_weights(x, axis=axis)


@tangent(np.nanmean)
def nanmean_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(d[x] * nanmean_weights(x, axis=axis), axis=axis, keepdims=keepdims)


@adjoint(np.cumsum)
def cumsum_adjoint(y, x, axis=None, dtype=None, out=None):
    d[x] = uncumsum(d[y], x, axis=axis)


@tangent(np.cumsum)
def cumsum_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = np.cumsum(d[x], axis=axis)


@adjoint(np.cumprod)
def cumprod_adjoint(y, x, axis=None, dtype=None, out=None):
    d[x] = cumprod_grad(d[y], x, axis=axis)


@tangent(np.cumprod)
def cumprod_tangent_rule(y, x, axis=None, dtype=None, out=None):
    d[y] = cumprod_tangent(d[x], x, axis=axis)


@adjoint(np.nancumsum)
def nancumsum_adjoint(y, x, axis=None, dtype=None, out=None):
    d[x] = np.where(np.isnan(x), 0.0, uncumsum(d[y], x, axis=axis))


@tangent(np.nancumsum)
def nancumsum_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = np.cumsum(np.where(np.isnan(x), 0.0, d[x]), axis=axis)


@adjoint(np.nancumprod)
def nancumprod_adjoint(y, x, axis=None, dtype=None, out=None):
    d[x] = np.where(np.isnan(x), 0.0, cumprod_grad(d[y], np.where(np.isnan(x), 1.0, x), axis=axis))


@tangent(np.nancumprod)
def nancumprod_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = cumprod_tangent(np.where(np.isnan(x), 0.0, d[x]), np.where(np.isnan(x), 1.0, x), axis=axis)
