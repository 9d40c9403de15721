"""Functions whose outputs carry no derivative, and those srcad refuses to differentiate.

Calls to them run as written and produce no derivative code: their outputs
are constants for srcad.  They are constructors of constant arrays
(``zeros``, ``eye``...), shape queries (``shape``, ``ndim``, ``len``),
index-valued functions (``argmax``, ``argsort``, ``searchsorted``),
comparisons and predicates, and rounding and ``sign`` (piecewise constant:
their derivative is zero wherever it exists, and srcad takes it as zero
everywhere).

Some functions do depend differentiably on an argument, and srcad has no
rule for them (``not_differentiated``): a differentiated value flowing into
one is an error, never a silent zero.  ``np.arange(start, stop, step)`` is
``start + step * [0, 1, ...]``; a random draw depends on its distribution's
parameters (``np.random.normal(loc, scale)``) or on the population it draws
from (``np.random.permutation(x)``); ``np.mgrid[a:b:5j]`` and ``np.ogrid``
depend on their bounds.  (``linspace``, ``logspace``, ``geomspace`` and
``heaviside`` have rules.)
"""
import builtins
import math
import operator

import numpy as np

from srcad.runtime import diagonal_index, holds, put_index, shares, stop_gradient
from srcad.templates import nondifferentiable, not_differentiated

_RANDOM = [getattr(np.random, name) for name in np.random.__all__]

nondifferentiable(
    # constant arrays and shape queries
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye,
    np.identity, np.tri, np.indices, np.shape, np.ndim, np.size,
    np.tril_indices, np.triu_indices, np.diag_indices, np.unravel_index, np.ravel_multi_index,
    np.broadcast_shapes, np.result_type, builtins.len, builtins.range,
    # index-valued
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition, np.lexsort, np.nonzero,
    np.flatnonzero, np.argwhere, np.searchsorted, np.digitize, np.count_nonzero,
    # piecewise constant
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix, np.sign, np.signbit,
    np.floor_divide, operator.floordiv, math.floor, math.ceil, math.trunc,
    # predicates and comparisons
    np.isfinite, np.isnan, np.isinf, np.isclose, np.allclose, np.array_equal, np.all, np.any,
    np.isposinf, np.isneginf, np.array_equiv, np.iscomplexobj, np.iscomplex, np.isreal, np.isscalar,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.greater, np.less, np.equal, np.not_equal, np.greater_equal, np.less_equal,
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.not_,
    math.isnan, math.isinf, math.isfinite, math.isclose,
    # integers and other builtins
    builtins.int, builtins.bool, builtins.round, builtins.isinstance, builtins.print,
    math.factorial, math.comb, math.perm, math.gcd,
    reason="its output is constant, integer-valued or piecewise constant",
)

not_differentiated(np.arange, hint="write start + step * np.arange(n) with n computed from values that are not "
                                   "differentiated, or np.linspace(start, stop, n) (a slice a:b:s in np.r_[...] "
                                   "is np.arange(a, b, s))")
not_differentiated(np.mgrid, np.ogrid, hint="write np.linspace(start, stop, n) for each axis (np.meshgrid "
                                            "combines them), or pass srcad.stop_gradient(bound)")
not_differentiated(*_RANDOM, hint="draw from a fixed distribution and transform the draw (loc + scale * "
                                  "np.random.standard_normal(shape); x[np.random.permutation(len(x))]), or "
                                  "pass srcad.stop_gradient(value) if no derivative should flow through it")


nondifferentiable(stop_gradient, reason="srcad.stop_gradient cuts the derivative on purpose")


nondifferentiable(shares, holds, diagonal_index, put_index,
                  reason="srcad's memory helpers return booleans and indices")
