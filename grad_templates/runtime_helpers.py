"""Rules for srcad's own runtime helpers, so generated derivatives can be differentiated again.

Generated code calls helpers from ``srcad.runtime`` (this module),
``srcad.runtime.linalg`` and ``srcad.runtime.decompositions``
(``runtime_helpers_linalg``), ``srcad.runtime.reductions`` and
``srcad.runtime.shapes`` (``runtime_helpers_reductions``); ``srcad.runtime.limits``
(here, and shared with ``scipy.special.xlogy``).  With their rules
``srcad.grad(srcad.grad(f))``, ``srcad.hessian`` and ``srcad.hvp``
differentiate that code like any other.

Most helpers are linear in the derivative they move (``unbroadcast``,
``untake``...) and the adjoint of a linear map is its transpose, which is
usually the primal operation itself: the adjoint of ``unconcatenate`` is
``np.concatenate``.  The product helpers (``matmul_lhs_grad``...) are
bilinear in the output gradient and the other operand, so their rules call
the product and its other gradient helper.  A rule for a helper may call
other helpers: the set of helpers and rules is closed.  Helpers that compute
masks, counts, shares of a gradient at a kink or zeros are piecewise constant
and declared non-differentiable.
"""
import numpy as np

from srcad import runtime
from srcad.runtime import limits as runtime_limits
from srcad.runtime import (add_at, broadcast_like, cast_gate, copied, dot_lhs_grad, dot_rhs_grad, filled_like,
                           keep_last, matmul_lhs_grad, matmul_rhs_grad, polygamma, sinc_slope, unbroadcast, unreduce,
                           zeros_like)
from srcad.runtime.containers import add_structures
from srcad.runtime.limits import xdivy, xlogy
from srcad.templates import adjoint, d, nondifferentiable, tangent


@adjoint(runtime.check_seed)
def check_seed_adjoint(y, out, seed):
    d[seed] = d[y]


@tangent(runtime.check_seed)
def check_seed_tangent(y, out, seed):
    d[y] = d[seed]


@adjoint(runtime.unbroadcast)
def unbroadcast_adjoint(y, grad, like):
    d[grad] = broadcast_like(d[y], grad)


@tangent(runtime.unbroadcast)
def unbroadcast_tangent(y, grad, like):
    d[y] = unbroadcast(d[grad], like)


@adjoint(runtime.broadcast_like)
def broadcast_like_adjoint(y, tangent, like):
    d[tangent] = unbroadcast(d[y], tangent)


@tangent(runtime.broadcast_like)
def broadcast_like_tangent(y, tangent, like):
    d[y] = broadcast_like(d[tangent], like)


@adjoint(runtime.unreduce)
def unreduce_adjoint(y, grad, like, axis=None, keepdims=False):
    if axis is None:
        d[grad] = unbroadcast(d[y], grad)
    else:
        d[grad] = np.sum(d[y], axis=axis, keepdims=keepdims)


@tangent(runtime.unreduce)
def unreduce_tangent(y, grad, like, axis=None, keepdims=False):
    d[y] = unreduce(d[grad], like, axis=axis, keepdims=keepdims)


@adjoint(runtime.copied)
def copied_adjoint(y, value):
    d[value] = d[y]


@tangent(runtime.copied)
def copied_tangent(y, value):   # a copy too: d[value] may be a view of a tangent changed later
    d[y] = copied(d[value])


@adjoint(runtime.keep_last)
def keep_last_adjoint(y, values, index, like):   # a 0/1 mask: linear in values, its own adjoint
    d[values] = keep_last(d[y], index, like)


@tangent(runtime.keep_last)
def keep_last_tangent(y, values, index, like):
    d[y] = keep_last(d[values], index, like)


@adjoint(runtime.cast_gate)
def cast_gate_adjoint(y, grad, dtype=None):   # linear in grad, and its own adjoint
    d[grad] = cast_gate(d[y], dtype)


@tangent(runtime.cast_gate)
def cast_gate_tangent(y, grad, dtype=None):
    d[y] = cast_gate(d[grad], dtype)


# ``y = filled_like(g, like)`` is ``g``, broadcast to ``like``'s shape when ``g`` is a float: linear in ``g``.

@adjoint(runtime.filled_like)
def filled_like_adjoint(y, g, like):
    d[g] = unbroadcast(d[y], g)


@tangent(runtime.filled_like)
def filled_like_tangent(y, g, like):
    d[y] = filled_like(d[g], like)


# ``y = add_at(target, index, grad)`` is ``target`` with ``grad`` added at ``index`` (repeats add up).

@adjoint(runtime.add_at)
def add_at_adjoint(y, target, index, grad):
    d[target] = d[y]
    d[grad] = unbroadcast(copied(d[y][index]), grad)   # a copy: d[target] is d[y], and may be zeroed later


@tangent(runtime.add_at)
def add_at_tangent(y, target, index, grad):
    d[y] = add_structures(d[target], add_at(zeros_like(target), index, d[grad]))   # for lists, + would join


# The gradients of ``a @ b`` are bilinear: ``matmul_lhs_grad(g, a, b)`` in ``g`` and ``b`` (``a`` only
# gives the shape), and the transpose of ``g -> matmul_lhs_grad(g, a, b)`` is ``t -> t @ b``.

@adjoint(runtime.matmul_lhs_grad)
def matmul_lhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.matmul(d[y], b)
    d[b] = matmul_rhs_grad(grad, d[y], b)


@tangent(runtime.matmul_lhs_grad)
def matmul_lhs_grad_tangent(y, grad, a, b):
    d[y] = matmul_lhs_grad(d[grad], a, b) + matmul_lhs_grad(grad, a, d[b])


@adjoint(runtime.matmul_rhs_grad)
def matmul_rhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.matmul(a, d[y])
    d[a] = matmul_lhs_grad(grad, a, d[y])


@tangent(runtime.matmul_rhs_grad)
def matmul_rhs_grad_tangent(y, grad, a, b):
    d[y] = matmul_rhs_grad(d[grad], a, b) + matmul_rhs_grad(grad, d[a], b)


@adjoint(runtime.dot_lhs_grad)
def dot_lhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.dot(d[y], b)
    d[b] = dot_rhs_grad(grad, d[y], b)


@tangent(runtime.dot_lhs_grad)
def dot_lhs_grad_tangent(y, grad, a, b):
    d[y] = dot_lhs_grad(d[grad], a, b) + dot_lhs_grad(grad, a, d[b])


@adjoint(runtime.dot_rhs_grad)
def dot_rhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.dot(a, d[y])
    d[a] = dot_lhs_grad(grad, a, d[y])


@tangent(runtime.dot_rhs_grad)
def dot_rhs_grad_tangent(y, grad, a, b):
    d[y] = dot_rhs_grad(d[grad], a, b) + dot_rhs_grad(grad, d[a], b)


# Derivatives of special functions: digamma's derivatives are the polygamma functions, and the
# derivative of sinc's slope is -pi^2 sinc(x) - 2 sinc'(x) / x (-pi^2 / 3 at 0).

@adjoint(runtime.digamma)
def digamma_adjoint(y, x):
    d[x] = d[y] * polygamma(1, x)


@tangent(runtime.digamma)
def digamma_tangent(y, x):
    d[y] = d[x] * polygamma(1, x)


@adjoint(runtime.polygamma)
def polygamma_adjoint(y, n, x):
    d[x] = d[y] * polygamma(n + 1, x)


@tangent(runtime.polygamma)
def polygamma_tangent(y, n, x):
    d[y] = d[x] * polygamma(n + 1, x)


@adjoint(runtime.sinc_slope)
def sinc_slope_adjoint(y, x):
    d[x] = d[y] * np.where(x == 0, -np.pi ** 2 / 3.0,
                           -np.pi ** 2 * np.sinc(x) - 2.0 * sinc_slope(x) / np.where(x == 0, 1.0, x))


@tangent(runtime.sinc_slope)
def sinc_slope_tangent(y, x):
    d[y] = d[x] * np.where(x == 0, -np.pi ** 2 / 3.0,
                           -np.pi ** 2 * np.sinc(x) - 2.0 * sinc_slope(x) / np.where(x == 0, 1.0, x))


# ``xdivy(x, y)`` and ``xlogy(x, y)`` are ``x / y`` and ``x log y`` with 0 where ``x == 0``.  Their rules
# keep that zero: a term whose factor from ``x`` (or from the derivative of ``x``) is exactly 0 is 0,
# so a gradient that is 0 because ``x`` vanishes identically has a second derivative of 0 (``std`` of
# one element, ``0.0 ** y``).  Where ``y`` is 0 and that factor is not, the terms stay infinite.

@adjoint(runtime_limits.xdivy)
def xdivy_adjoint(z, x, y):
    d[x] = unbroadcast(xdivy(d[z], y), x)
    d[y] = unbroadcast(-d[z] * xdivy(z, y), y)


@tangent(runtime_limits.xdivy)
def xdivy_tangent(z, x, y):
    d[z] = xdivy(d[x] - d[y] * z, y)


@adjoint(runtime_limits.xlogy)
def xlogy_adjoint(z, x, y):
    d[x] = unbroadcast(xlogy(d[z], y), x)
    d[y] = unbroadcast(d[z] * xdivy(x, y), y)


@tangent(runtime_limits.xlogy)
def xlogy_tangent(z, x, y):
    d[z] = xlogy(d[x], y) + d[y] * xdivy(x, y)


nondifferentiable(runtime.zeros_like, runtime.reduced_count, runtime.maximum_share, runtime.fmax_share,
                  runtime.fmin_share, runtime.clip_share, runtime.transpose_axes_inverse,
                  reason="it computes zeros, counts or masks")


# the products and quotients of derivatives recomputed after a NaN (srcad/runtime/guards.py): away from the
# exact zeros where they differ, they are ``a * b`` and ``a / b``, and so are their rules

@adjoint(runtime.strong_product)
def strong_product_adjoint(y, a, b):
    d[a] = unbroadcast(d[y] * b, a)
    d[b] = unbroadcast(a * d[y], b)


@tangent(runtime.strong_product)
def strong_product_tangent(y, a, b):
    d[y] = d[a] * b + a * d[b]


@adjoint(runtime.strong_quotient)
def strong_quotient_adjoint(y, a, b):
    d[a] = unbroadcast(d[y] / b, a)
    d[b] = unbroadcast(-d[y] * y / b, b)


@tangent(runtime.strong_quotient)
def strong_quotient_tangent(y, a, b):
    d[y] = (d[a] - y * d[b]) / b
