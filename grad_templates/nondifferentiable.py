"""Functions whose outputs carry no derivative.

Calls to them run as written and produce no derivative code: their outputs
are constants for srcad.  They are constructors of constant arrays
(``zeros``, ``arange``, ``eye``...), shape queries (``shape``, ``ndim``,
``len``), index-valued functions (``argmax``, ``argsort``, ``searchsorted``),
comparisons and predicates, rounding and ``sign`` (piecewise constant: their
derivative is zero wherever it exists, and srcad takes it as zero
everywhere), and random number generation (``np.random``: a draw is a
constant, not a function of the inputs).
"""
import builtins
import math
import operator

import numpy as np

from srcad.runtime import diagonal_index, holds, put_index, shares, stop_gradient
from srcad.templates import nondifferentiable

_RANDOM = [getattr(np.random, name) for name in np.random.__all__]

nondifferentiable(
    # constant arrays and shape queries
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.arange, np.eye,
    np.identity, np.linspace, np.logspace, np.geomspace, np.tri, np.indices, np.shape, np.ndim, np.size,
    np.tril_indices, np.triu_indices, np.diag_indices, np.unravel_index, np.ravel_multi_index,
    np.broadcast_shapes, np.result_type, builtins.len, builtins.range,
    # index-valued
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition, np.lexsort, np.nonzero,
    np.flatnonzero, np.argwhere, np.searchsorted, np.digitize, np.count_nonzero,
    # piecewise constant
    np.floor, np.ceil, np.round, np.around, np.rint, np.trunc, np.fix, np.sign, np.signbit, np.heaviside,
    np.floor_divide, operator.floordiv, math.floor, math.ceil, math.trunc,
    # predicates and comparisons
    np.isfinite, np.isnan, np.isinf, np.isclose, np.allclose, np.array_equal, np.all, np.any,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.greater, np.less, np.equal, np.not_equal, np.greater_equal, np.less_equal,
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.not_,
    math.isnan, math.isinf, math.isfinite, math.isclose,
    # integers and other builtins
    builtins.int, builtins.bool, builtins.round, builtins.isinstance, builtins.print,
    math.factorial, math.comb, math.perm, math.gcd,
    # random numbers
    *_RANDOM,
    reason="its output is constant, integer-valued or piecewise constant",
)


nondifferentiable(stop_gradient, reason="srcad.stop_gradient cuts the derivative on purpose")


nondifferentiable(shares, holds, diagonal_index, put_index,
                  reason="srcad's memory helpers return booleans and indices")
