"""Rules for products and norms: ``@``/matmul, dot, vdot, inner, outer, tensordot, einsum, kron, cross,
the 1-d ``convolve`` and ``correlate``, ``np.linalg.norm`` and ``np.linalg.matrix_power``.

Products are bilinear, so each tangent is a sum of two products with one
tangent each (a zero tangent drops its term).  ``cross`` takes ``axisa``/``axisb``/``axisc``/``axis``;
``tensordot`` every form of ``axes``; ``convolve``/``correlate`` every ``mode``
(the gradient of the ``'full'`` result, cut to the mode's window, is a
``'valid'`` correlation).  ``einsum``'s rules take the
subscripts-string form with one to three operands; ``normalize`` rewrites
every other form into it (operand sublists into subscripts, more operands
into a chain of einsums, see ``srcad.passes.numpy_forms``).  ``out=`` is
refused (it writes into another array).  Choices at kinks: ``norm`` with
``ord=inf``/``-inf`` (and the matrix 1/inf norms) splits the gradient equally
among tied extreme entries (rows, columns).  At 0 a norm has a kink: the
vector norms and the Frobenius norm take the subgradient 0
(``norm_direction``; the only choice that keeps the gradient of an even
function odd), see ``docs/singularities.md``.
"""
import operator

import numpy as np

from srcad.runtime import dot_lhs_grad, dot_rhs_grad, filled_like, matmul_lhs_grad, matmul_rhs_grad, unreduce
from srcad.runtime.numerical import convolve_grad, correlate_grad
from srcad.runtime.factorizations import matrix_power_grad, matrix_power_tangent
from srcad.runtime.linalg import (cross_lhs_grad, cross_rhs_grad, einsum_grad, einsum_of, inner_lhs_grad,
                                  inner_rhs_grad, kron_lhs_grad, kron_rhs_grad, norm_direction, tensordot_lhs_grad,
                                  tensordot_rhs_grad)
from srcad.templates import adjoint, d, tangent


@adjoint(operator.matmul, np.matmul)
def matmul_adjoint(z, x, y):
    d[x] = matmul_lhs_grad(d[z], x, y)
    d[y] = matmul_rhs_grad(d[z], x, y)


@tangent(operator.matmul, np.matmul)
def matmul_tangent(z, x, y):
    d[z] = d[x] @ y + x @ d[y]


@adjoint(np.dot)
def dot_adjoint(z, x, y):
    d[x] = dot_lhs_grad(d[z], x, y)
    d[y] = dot_rhs_grad(d[z], x, y)


@tangent(np.dot)
def dot_tangent(z, x, y):
    d[z] = np.dot(d[x], y) + np.dot(x, d[y])


@adjoint(np.vdot)
def vdot_adjoint(z, a, b):
    d[a] = np.reshape(d[z] * b, np.shape(a))
    d[b] = np.reshape(d[z] * a, np.shape(b))


@tangent(np.vdot)
def vdot_tangent(z, a, b):
    d[z] = np.vdot(d[a], b) + np.vdot(a, d[b])


@adjoint(np.inner)
def inner_adjoint(z, a, b):
    d[a] = inner_lhs_grad(d[z], a, b)
    d[b] = inner_rhs_grad(d[z], a, b)


@tangent(np.inner)
def inner_tangent(z, a, b):
    d[z] = np.inner(d[a], b) + np.inner(a, d[b])


@adjoint(np.outer)
def outer_adjoint(z, a, b, out=None):   # d[z] may still be the 0.0 an adjoint starts from: @ takes no scalar
    d[a] = np.reshape(filled_like(d[z], z) @ np.ravel(b), np.shape(a))
    d[b] = np.reshape(np.ravel(a) @ filled_like(d[z], z), np.shape(b))


@tangent(np.outer)
def outer_tangent(z, a, b, out=None):
    d[z] = np.outer(d[a], b) + np.outer(a, d[b])


@adjoint(np.tensordot)
def tensordot_adjoint(z, a, b, axes=2):
    d[a] = tensordot_lhs_grad(d[z], a, b, axes=axes)
    d[b] = tensordot_rhs_grad(d[z], a, b, axes=axes)


@tangent(np.tensordot)
def tensordot_tangent(z, a, b, axes=2):
    d[z] = np.tensordot(d[a], b, axes=axes) + np.tensordot(a, d[b], axes=axes)


@adjoint(np.einsum)
def einsum_adjoint(z, subscripts, a, b=None, c=None, *, optimize=False):
    d[a] = einsum_grad(subscripts, d[z], 0, a, b=b, c=c)
    d[b] = einsum_grad(subscripts, d[z], 1, a, b=b, c=c)
    d[c] = einsum_grad(subscripts, d[z], 2, a, b=b, c=c)


@tangent(np.einsum)
def einsum_tangent(z, subscripts, a, b=None, c=None, *, optimize=False):
    d[z] = (einsum_of(subscripts, d[a], b=b, c=c) + einsum_of(subscripts, a, b=d[b], c=c)
            + einsum_of(subscripts, a, b=b, c=d[c]))


@adjoint(np.kron)
def kron_adjoint(z, a, b):
    d[a] = kron_lhs_grad(d[z], a, b)
    d[b] = kron_rhs_grad(d[z], a, b)


@tangent(np.kron)
def kron_tangent(z, a, b):
    d[z] = np.kron(d[a], b) + np.kron(a, d[b])


@adjoint(np.cross)
def cross_adjoint(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[a] = cross_lhs_grad(d[z], a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)
    d[b] = cross_rhs_grad(d[z], a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@tangent(np.cross)
def cross_tangent(z, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[z] = (np.cross(d[a], b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)
            + np.cross(a, d[b], axisa=axisa, axisb=axisb, axisc=axisc, axis=axis))


@adjoint(np.convolve)
def convolve_adjoint(y, a, v, mode="full"):
    d[a] = convolve_grad(d[y], a, v, mode=mode)
    d[v] = convolve_grad(d[y], a, v, mode=mode, which=1)


@tangent(np.convolve)
def convolve_tangent(y, a, v, mode="full"):
    d[y] = np.convolve(d[a], v, mode=mode) + np.convolve(a, d[v], mode=mode)


@adjoint(np.correlate)
def correlate_adjoint(y, a, v, mode="valid"):
    d[a] = correlate_grad(d[y], a, v, mode=mode)
    d[v] = correlate_grad(d[y], a, v, mode=mode, which=1)


@tangent(np.correlate)
def correlate_tangent(y, a, v, mode="valid"):
    d[y] = np.correlate(d[a], v, mode=mode) + np.correlate(a, d[v], mode=mode)


@adjoint(np.linalg.norm)
def norm_adjoint(y, x, ord=None, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis=axis, keepdims=keepdims) * norm_direction(x, ord=ord, axis=axis)


@tangent(np.linalg.norm)
def norm_tangent(y, x, ord=None, axis=None, keepdims=False):
    d[y] = np.sum(d[x] * norm_direction(x, ord=ord, axis=axis), axis=axis, keepdims=keepdims)


@adjoint(np.linalg.matrix_power)
def matrix_power_adjoint(y, a, n):
    d[a] = matrix_power_grad(d[y], a, n)


@tangent(np.linalg.matrix_power)
def matrix_power_tangent_rule(y, a, n):
    d[y] = matrix_power_tangent(d[a], a, n)
