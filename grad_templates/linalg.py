"""Rules for products: ``@``/np.matmul (with batch broadcasting) and np.dot."""
import operator

import numpy as np

from srcad.runtime import dot_lhs_grad, dot_rhs_grad, matmul_lhs_grad, matmul_rhs_grad
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
