"""Rules for elementwise functions of NumPy and of the math module.

Choices at kinks: ``abs`` has derivative ``sign(x)``, so 0 at 0; ``maximum``
and ``minimum`` split the gradient equally between the operands where they
tie.
"""
import math

import numpy as np

from srcad.runtime import maximum_share, unbroadcast
from srcad.templates import adjoint, d, tangent


@adjoint(np.sin)
def sin_adjoint(y, x):
    d[x] = d[y] * np.cos(x)


@tangent(np.sin)
def sin_tangent(y, x):
    d[y] = d[x] * np.cos(x)


@adjoint(np.cos)
def cos_adjoint(y, x):
    d[x] = -d[y] * np.sin(x)


@tangent(np.cos)
def cos_tangent(y, x):
    d[y] = -d[x] * np.sin(x)


@adjoint(np.tan)
def tan_adjoint(y, x):
    d[x] = d[y] * (1.0 + y * y)


@tangent(np.tan)
def tan_tangent(y, x):
    d[y] = d[x] * (1.0 + y * y)


@adjoint(np.exp)
def exp_adjoint(y, x):
    d[x] = d[y] * y


@tangent(np.exp)
def exp_tangent(y, x):
    d[y] = d[x] * y


@adjoint(np.log)
def log_adjoint(y, x):
    d[x] = d[y] / x


@tangent(np.log)
def log_tangent(y, x):
    d[y] = d[x] / x


@adjoint(np.sqrt)
def sqrt_adjoint(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(np.sqrt)
def sqrt_tangent(y, x):
    d[y] = d[x] / (2.0 * y)


@adjoint(np.tanh)
def tanh_adjoint(y, x):
    d[x] = d[y] * (1.0 - y * y)


@tangent(np.tanh)
def tanh_tangent(y, x):
    d[y] = d[x] * (1.0 - y * y)


@adjoint(np.abs, np.absolute, abs)
def abs_adjoint(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(np.abs, np.absolute, abs)
def abs_tangent(y, x):
    d[y] = d[x] * np.sign(x)


@adjoint(np.maximum)
def maximum_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * maximum_share(x, y), x)
    d[y] = unbroadcast(d[z] * maximum_share(y, x), y)


@tangent(np.maximum)
def maximum_tangent(z, x, y):
    d[z] = d[x] * maximum_share(x, y) + d[y] * maximum_share(y, x)


@adjoint(np.minimum)
def minimum_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * maximum_share(y, x), x)
    d[y] = unbroadcast(d[z] * maximum_share(x, y), y)


@tangent(np.minimum)
def minimum_tangent(z, x, y):
    d[z] = d[x] * maximum_share(y, x) + d[y] * maximum_share(x, y)


# The math module: scalar rules written with math, so scalar code stays scalar.

@adjoint(math.sin)
def math_sin_adjoint(y, x):
    d[x] = d[y] * math.cos(x)


@tangent(math.sin)
def math_sin_tangent(y, x):
    d[y] = d[x] * math.cos(x)


@adjoint(math.cos)
def math_cos_adjoint(y, x):
    d[x] = -d[y] * math.sin(x)


@tangent(math.cos)
def math_cos_tangent(y, x):
    d[y] = -d[x] * math.sin(x)


@adjoint(math.exp)
def math_exp_adjoint(y, x):
    d[x] = d[y] * y


@tangent(math.exp)
def math_exp_tangent(y, x):
    d[y] = d[x] * y


@adjoint(math.log)
def math_log_adjoint(y, x):
    d[x] = d[y] / x


@tangent(math.log)
def math_log_tangent(y, x):
    d[y] = d[x] / x


@adjoint(math.sqrt)
def math_sqrt_adjoint(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(math.sqrt)
def math_sqrt_tangent(y, x):
    d[y] = d[x] / (2.0 * y)
