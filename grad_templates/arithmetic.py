"""Rules for Python's arithmetic operators and the NumPy ufuncs that spell them.

Operators are keyed by the ``operator`` module function (``operator.mul`` for
``*``); the builtin ``pow`` shares the rules of ``**``.  Binary rules reduce
each operand's gradient back to that operand's shape with ``unbroadcast``, so
NumPy broadcasting is differentiated exactly.
"""
import operator

import numpy as np

from srcad.runtime import broadcast_like, unbroadcast
from srcad.templates import adjoint, d, tangent


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
    d[x] = unbroadcast(d[z] * y * x ** (y - 1), x)
    d[y] = unbroadcast(d[z] * z * np.log(x), y)


@tangent(operator.pow, np.power, pow)
def pow_tangent(z, x, y):
    d[z] = d[x] * y * x ** (y - 1) + d[y] * z * np.log(x)


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
