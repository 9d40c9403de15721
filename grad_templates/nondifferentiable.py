"""Functions whose outputs carry no derivative: constructors, shape queries,
index-valued functions, rounding and sign (whose derivative is zero almost
everywhere).  Calls to them pass through the primal and produce no derivative
code."""
import builtins

import numpy as np

from srcad.templates import nondifferentiable

nondifferentiable(
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.arange, np.eye,
    np.identity, np.linspace, np.shape, np.ndim, np.size, builtins.len, builtins.range,
    np.argmax, np.argmin, np.argsort, np.nonzero, np.floor, np.ceil, np.round, np.rint, np.trunc, np.sign,
    np.isfinite, np.isnan, np.isinf, np.logical_and, np.logical_or, np.logical_not,
    np.greater, np.less, np.equal, np.not_equal, np.greater_equal, np.less_equal,
    builtins.int, builtins.bool, builtins.round, builtins.isinstance, builtins.print,
    reason="its output is constant, integer-valued or piecewise constant",
)
