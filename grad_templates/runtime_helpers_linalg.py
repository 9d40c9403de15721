"""Rules for the helpers of ``srcad.runtime.linalg``, so derivatives of products, norms and linear
solves can be differentiated again.

The gradient helpers of products (``inner``, ``tensordot``, ``kron``,
``cross``, ``einsum``) are bilinear in the output gradient and the other
operand; the operand whose gradient they compute only gives its shape.  So
each tangent is two products with one tangent each, and each adjoint is the
product itself (for the output gradient) and the other operand's gradient
helper (for the other operand).  ``solve_like``, ``apply_like`` and
``outer_like`` follow ``np.linalg.solve``'s reading of vectors and get the
rules of solve, ``@`` and the outer product.  ``norm_direction`` is the
gradient of a norm; its derivative is the norm's Hessian
(``norm_direction_tangent``, which is symmetric, so it is its own adjoint).

Helpers of matrix decompositions (``srcad.runtime.decompositions``), of matrix
powers and of pseudo-inverses have no rules: srcad differentiates their
source like a user's function where it can, and reports what it cannot.
"""
import numpy as np

from srcad.runtime import linalg as runtime_linalg
from srcad.runtime import unbroadcast
from srcad.runtime.linalg import (apply_like, cross_lhs_grad, cross_rhs_grad, einsum_grad, einsum_of,
                                  inner_lhs_grad, inner_rhs_grad, kron_lhs_grad, kron_rhs_grad,
                                  norm_direction_tangent, outer_like, per_matrix, solve_like,
                                  tensordot_lhs_grad, tensordot_rhs_grad)
from srcad.templates import adjoint, d, not_differentiated, tangent


@adjoint(runtime_linalg.per_matrix)
def per_matrix_adjoint(y, value):
    d[value] = np.reshape(d[y], np.shape(value))


@tangent(runtime_linalg.per_matrix)
def per_matrix_tangent(y, value):
    d[y] = per_matrix(d[value])


@adjoint(runtime_linalg.inner_lhs_grad)
def inner_lhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.inner(d[y], b)
    d[b] = inner_rhs_grad(grad, d[y], b)


@tangent(runtime_linalg.inner_lhs_grad)
def inner_lhs_grad_tangent(y, grad, a, b):
    d[y] = inner_lhs_grad(d[grad], a, b) + inner_lhs_grad(grad, a, d[b])


@adjoint(runtime_linalg.inner_rhs_grad)
def inner_rhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.inner(a, d[y])
    d[a] = inner_lhs_grad(grad, a, d[y])


@tangent(runtime_linalg.inner_rhs_grad)
def inner_rhs_grad_tangent(y, grad, a, b):
    d[y] = inner_rhs_grad(d[grad], a, b) + inner_rhs_grad(grad, d[a], b)


@adjoint(runtime_linalg.tensordot_lhs_grad)
def tensordot_lhs_grad_adjoint(y, grad, a, b, axes=2):
    d[grad] = np.tensordot(d[y], b, axes=axes)
    d[b] = tensordot_rhs_grad(grad, d[y], b, axes=axes)


@tangent(runtime_linalg.tensordot_lhs_grad)
def tensordot_lhs_grad_tangent(y, grad, a, b, axes=2):
    d[y] = tensordot_lhs_grad(d[grad], a, b, axes=axes) + tensordot_lhs_grad(grad, a, d[b], axes=axes)


@adjoint(runtime_linalg.tensordot_rhs_grad)
def tensordot_rhs_grad_adjoint(y, grad, a, b, axes=2):
    d[grad] = np.tensordot(a, d[y], axes=axes)
    d[a] = tensordot_lhs_grad(grad, a, d[y], axes=axes)


@tangent(runtime_linalg.tensordot_rhs_grad)
def tensordot_rhs_grad_tangent(y, grad, a, b, axes=2):
    d[y] = tensordot_rhs_grad(d[grad], a, b, axes=axes) + tensordot_rhs_grad(grad, d[a], b, axes=axes)


@adjoint(runtime_linalg.kron_lhs_grad)
def kron_lhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.kron(d[y], b)
    d[b] = kron_rhs_grad(grad, d[y], b)


@tangent(runtime_linalg.kron_lhs_grad)
def kron_lhs_grad_tangent(y, grad, a, b):
    d[y] = kron_lhs_grad(d[grad], a, b) + kron_lhs_grad(grad, a, d[b])


@adjoint(runtime_linalg.kron_rhs_grad)
def kron_rhs_grad_adjoint(y, grad, a, b):
    d[grad] = np.kron(a, d[y])
    d[a] = kron_lhs_grad(grad, a, d[y])


@tangent(runtime_linalg.kron_rhs_grad)
def kron_rhs_grad_tangent(y, grad, a, b):
    d[y] = kron_rhs_grad(d[grad], a, b) + kron_rhs_grad(grad, d[a], b)


@adjoint(runtime_linalg.cross_lhs_grad)
def cross_lhs_grad_adjoint(y, grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[grad] = unbroadcast(np.cross(d[y], b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis), grad)
    d[b] = cross_rhs_grad(grad, d[y], b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@tangent(runtime_linalg.cross_lhs_grad)
def cross_lhs_grad_tangent(y, grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[y] = (cross_lhs_grad(d[grad], a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)
            + cross_lhs_grad(grad, a, d[b], axisa=axisa, axisb=axisb, axisc=axisc, axis=axis))


@adjoint(runtime_linalg.cross_rhs_grad)
def cross_rhs_grad_adjoint(y, grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[grad] = unbroadcast(np.cross(a, d[y], axisa=axisa, axisb=axisb, axisc=axisc, axis=axis), grad)
    d[a] = cross_lhs_grad(grad, a, d[y], axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


@tangent(runtime_linalg.cross_rhs_grad)
def cross_rhs_grad_tangent(y, grad, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[y] = (cross_rhs_grad(d[grad], a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)
            + cross_rhs_grad(grad, d[a], b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis))


# einsum_of is einsum; einsum_grad(s, g, which, a, b, c) is linear in g and in each operand but
# operand number ``which`` (which only gives the shape).

@adjoint(runtime_linalg.einsum_of)
def einsum_of_adjoint(y, subscripts, a, b=None, c=None):
    d[a] = einsum_grad(subscripts, d[y], 0, a, b=b, c=c)
    d[b] = einsum_grad(subscripts, d[y], 1, a, b=b, c=c)
    d[c] = einsum_grad(subscripts, d[y], 2, a, b=b, c=c)


@tangent(runtime_linalg.einsum_of)
def einsum_of_tangent(y, subscripts, a, b=None, c=None):
    d[y] = (einsum_of(subscripts, d[a], b=b, c=c) + einsum_of(subscripts, a, b=d[b], c=c)
            + einsum_of(subscripts, a, b=b, c=d[c]))


@adjoint(runtime_linalg.einsum_grad)
def einsum_grad_adjoint(y, subscripts, grad, which, a, b=None, c=None):
    if which == 0:
        d[grad] = einsum_of(subscripts, d[y], b=b, c=c)
        d[b] = einsum_grad(subscripts, grad, 1, d[y], b=b, c=c)
        d[c] = einsum_grad(subscripts, grad, 2, d[y], b=b, c=c)
    elif which == 1:
        d[grad] = einsum_of(subscripts, a, b=d[y], c=c)
        d[a] = einsum_grad(subscripts, grad, 0, a, b=d[y], c=c)
        d[c] = einsum_grad(subscripts, grad, 2, a, b=d[y], c=c)
    else:
        d[grad] = einsum_of(subscripts, a, b=b, c=d[y])
        d[a] = einsum_grad(subscripts, grad, 0, a, b=b, c=d[y])
        d[b] = einsum_grad(subscripts, grad, 1, a, b=b, c=d[y])


@tangent(runtime_linalg.einsum_grad)
def einsum_grad_tangent(y, subscripts, grad, which, a, b=None, c=None):
    if which == 0:
        d[y] = (einsum_grad(subscripts, d[grad], 0, a, b=b, c=c) + einsum_grad(subscripts, grad, 0, a, b=d[b], c=c)
                + einsum_grad(subscripts, grad, 0, a, b=b, c=d[c]))
    elif which == 1:
        d[y] = (einsum_grad(subscripts, d[grad], 1, a, b=b, c=c) + einsum_grad(subscripts, grad, 1, d[a], b=b, c=c)
                + einsum_grad(subscripts, grad, 1, a, b=b, c=d[c]))
    else:
        d[y] = (einsum_grad(subscripts, d[grad], 2, a, b=b, c=c) + einsum_grad(subscripts, grad, 2, d[a], b=b, c=c)
                + einsum_grad(subscripts, grad, 2, a, b=d[b], c=c))


@adjoint(runtime_linalg.norm_direction)
def norm_direction_adjoint(y, x, ord=None, axis=None):
    d[x] = norm_direction_tangent(d[y], x, ord=ord, axis=axis)


@tangent(runtime_linalg.norm_direction)
def norm_direction_tangent_rule(y, x, ord=None, axis=None):
    d[y] = norm_direction_tangent(d[x], x, ord=ord, axis=axis)


# Linear systems, reading ``b`` of ``np.linalg.solve(a, b)`` as vectors or matrices as solve did.

@adjoint(runtime_linalg.solve_like)
def solve_like_adjoint(y, a, rhs, b):
    d[rhs] = unbroadcast(solve_like(np.swapaxes(a, -1, -2), d[y], b), rhs)
    d[a] = -unbroadcast(outer_like(solve_like(np.swapaxes(a, -1, -2), d[y], b), y, a, b), a)


@tangent(runtime_linalg.solve_like)
def solve_like_tangent(y, a, rhs, b):
    d[y] = solve_like(a, d[rhs], b) - solve_like(a, apply_like(d[a], y, b), b)


@adjoint(runtime_linalg.apply_like)
def apply_like_adjoint(y, m, x, b):
    d[m] = unbroadcast(outer_like(d[y], x, m, b), m)
    d[x] = unbroadcast(apply_like(np.swapaxes(m, -1, -2), d[y], b), x)


@tangent(runtime_linalg.apply_like)
def apply_like_tangent(y, m, x, b):
    d[y] = apply_like(d[m], x, b) + apply_like(m, d[x], b)


@adjoint(runtime_linalg.outer_like)
def outer_like_adjoint(y, g, x, a, b):
    d[g] = unbroadcast(apply_like(d[y], x, b), g)
    d[x] = unbroadcast(apply_like(np.swapaxes(d[y], -1, -2), g, b), x)


@tangent(runtime_linalg.outer_like)
def outer_like_tangent(y, g, x, a, b):
    d[y] = outer_like(d[g], x, a, b) + outer_like(g, d[x], a, b)


not_differentiated(runtime_linalg.einsum_first, hint="np.einsum's first argument is an operand here, with "
                                                     f"sublists srcad cannot see; {runtime_linalg.EINSUM_SUBLISTS_HINT}")
