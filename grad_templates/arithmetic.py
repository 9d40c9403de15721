"""Rules for Python's arithmetic operators and the NumPy ufuncs that spell them, and the identities
``np.real``, ``np.conj``, ``np.conjugate`` and ``np.real_if_close`` of real numbers.

Operators are keyed by the ``operator`` module function (``operator.mul`` for
``*``); the builtin ``pow`` shares the rules of ``**``.  Binary rules reduce
each operand's gradient back to that operand's shape with ``unbroadcast``, so
NumPy broadcasting is differentiated exactly.

Powers at 0 (``docs/singularities.md``): ``x ** 0`` is 1 for every ``x``, 0
included, so its derivative is 0; ``x ** 1`` has derivative 1 and
``x ** 2`` 0 at ``x == 0``.  A literal exponent keeps the plain formula
``y * x ** (y - 1)`` (exact at 0 for ``y == 1`` and ``y >= 2``) and ``x ** 0``
gets no derivative at all; any other exponent uses ``x ** (y - 1)`` only
where ``y != 0`` (JAX's and autograd's choice).  With respect to ``y`` the
derivative is ``z log(x)``, computed as ``xlogy(dz * z, x)``: 0 where
``dz * z`` is 0, so at ``x == 0`` for ``y > 0``, where ``0 ** y`` is 0 for
every ``y``.  At ``x == y == 0`` (where ``0 ** y`` jumps
from 1 to 0) it stays ``-inf``, and ``x ** 0.5`` at 0 is infinite: those are
genuine singularities.
"""
import operator

import numpy as np

from srcad.runtime import broadcast_like, unbroadcast, zeros_like
from srcad.runtime.limits import xlogy
from srcad.templates import adjoint, d, literal, tangent


@adjoint(operator.add, np.add)
def add_adjoint(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(d[z], y)


@tangent(operator.add, np.add)
def add_tangent(z, x, y):
    d[z] = broadcast_like(d[x] + d[y], z)


@adjoint(operator.sub, np.subtract)
def sub_adjoint(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(-d[z], y)


@tangent(operator.sub, np.subtract)
def sub_tangent(z, x, y):
    d[z] = broadcast_like(d[x] - d[y], z)


@adjoint(operator.mul, np.multiply)
def mul_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * y, x)
    d[y] = unbroadcast(x * d[z], y)


@tangent(operator.mul, np.multiply)
def mul_tangent(z, x, y):
    d[z] = d[x] * y + x * d[y]


@adjoint(operator.truediv, np.divide, np.true_divide)
def div_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] / y, x)
    d[y] = unbroadcast(-d[z] * z / y, y)


@tangent(operator.truediv, np.divide, np.true_divide)
def div_tangent(z, x, y):
    d[z] = (d[x] - z * d[y]) / y


@adjoint(operator.pow, np.power, pow)
def pow_adjoint(z, x, y):
    if literal(y):
        if y != 0:
            d[x] = unbroadcast(d[z] * y * x ** (y - 1), x)
    else:
        d[x] = unbroadcast(d[z] * y * x ** np.where(y == 0, 1, y - 1), x)
        d[y] = unbroadcast(xlogy(d[z] * z, x), y)


@tangent(operator.pow, np.power, pow)
def pow_tangent(z, x, y):
    if literal(y):
        if y == 0:
            d[z] = zeros_like(z)
        else:
            d[z] = d[x] * y * x ** (y - 1)
    else:
        d[z] = d[x] * y * x ** np.where(y == 0, 1, y - 1) + xlogy(d[y] * z, x)


@adjoint(operator.neg, np.negative)
def neg_adjoint(y, x):
    d[x] = -d[y]


@tangent(operator.neg, np.negative)
def neg_tangent(y, x):
    d[y] = -d[x]


@adjoint(operator.pos, np.positive)
def pos_adjoint(y, x):
    d[x] = d[y]


@tangent(operator.pos, np.positive)
def pos_tangent(y, x):
    d[y] = d[x]


@adjoint(np.square)
def square_adjoint(y, x):
    d[x] = d[y] * 2.0 * x


@tangent(np.square)
def square_tangent(y, x):
    d[y] = d[x] * 2.0 * x


@adjoint(np.real, np.conjugate)
def real_part_adjoint(y, x):   # identities on the real numbers srcad differentiates
    d[x] = d[y]


@tangent(np.real, np.conjugate)
def real_part_tangent(y, x):
    d[y] = d[x]


@adjoint(np.real_if_close)
def real_if_close_adjoint(y, a, tol=100):
    d[a] = d[y]


@tangent(np.real_if_close)
def real_if_close_tangent(y, a, tol=100):
    d[y] = d[a]
