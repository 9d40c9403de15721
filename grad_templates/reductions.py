"""Rules for reductions: sum and mean, with ``axis`` and ``keepdims``."""
import numpy as np

from srcad.runtime import reduced_count, unreduce
from srcad.templates import adjoint, d, tangent


@adjoint(np.sum)
def sum_adjoint(y, x, axis=None, dtype=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims)


@tangent(np.sum)
def sum_tangent(y, x, axis=None, dtype=None, keepdims=False):
    d[y] = np.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(np.mean)
def mean_adjoint(y, x, axis=None, dtype=None, keepdims=False):
    if axis is None:
        d[x] = unreduce(d[y] / np.size(x), x, keepdims=keepdims)
    else:
        d[x] = unreduce(d[y] / reduced_count(x, axis), x, axis=axis, keepdims=keepdims)


@tangent(np.mean)
def mean_tangent(y, x, axis=None, dtype=None, keepdims=False):
    d[y] = np.mean(d[x], axis=axis, keepdims=keepdims)
