"""Rules for exponentials, logarithms, roots and powers of NumPy (ufuncs, so elementwise).

Outputs are reused where they make the derivative cheaper and exact:
``d exp(x) = exp(x) dx``, ``d sqrt(x) = dx / (2 sqrt(x))``.  ``logaddexp``
uses ``exp(x - z)`` with ``z = logaddexp(x, y) >= x``, so it never overflows.

At the edges of their domains (``docs/singularities.md``): ``sqrt``, ``cbrt``
at 0 and ``log``, ``log1p`` at 0 and -1 have genuinely infinite derivatives
and return them; ``float_power`` is exact at 0 like ``**`` (``arithmetic.py``).
"""
import numpy as np

from srcad.runtime import broadcast_like, unbroadcast, zeros_like
from srcad.runtime.limits import xlogy
from srcad.templates import adjoint, d, literal, tangent


@adjoint(np.exp)
def exp_adjoint(y, x):
    d[x] = d[y] * y


@tangent(np.exp)
def exp_tangent(y, x):
    d[y] = d[x] * y


@adjoint(np.expm1)
def expm1_adjoint(y, x):
    d[x] = d[y] * (y + 1.0)


@tangent(np.expm1)
def expm1_tangent(y, x):
    d[y] = d[x] * (y + 1.0)


@adjoint(np.exp2)
def exp2_adjoint(y, x):
    d[x] = d[y] * y * np.log(2.0)


@tangent(np.exp2)
def exp2_tangent(y, x):
    d[y] = d[x] * y * np.log(2.0)


@adjoint(np.log)
def log_adjoint(y, x):
    d[x] = d[y] / x


@tangent(np.log)
def log_tangent(y, x):
    d[y] = d[x] / x


@adjoint(np.log1p)
def log1p_adjoint(y, x):
    d[x] = d[y] / (1.0 + x)


@tangent(np.log1p)
def log1p_tangent(y, x):
    d[y] = d[x] / (1.0 + x)


@adjoint(np.log2)
def log2_adjoint(y, x):
    d[x] = d[y] / (x * np.log(2.0))


@tangent(np.log2)
def log2_tangent(y, x):
    d[y] = d[x] / (x * np.log(2.0))


@adjoint(np.log10)
def log10_adjoint(y, x):
    d[x] = d[y] / (x * np.log(10.0))


@tangent(np.log10)
def log10_tangent(y, x):
    d[y] = d[x] / (x * np.log(10.0))


@adjoint(np.logaddexp)
def logaddexp_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * np.exp(x - z), x)
    d[y] = unbroadcast(d[z] * np.exp(y - z), y)


@tangent(np.logaddexp)
def logaddexp_tangent(z, x, y):
    d[z] = d[x] * np.exp(x - z) + d[y] * np.exp(y - z)


@adjoint(np.logaddexp2)
def logaddexp2_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * np.exp2(x - z), x)
    d[y] = unbroadcast(d[z] * np.exp2(y - z), y)


@tangent(np.logaddexp2)
def logaddexp2_tangent(z, x, y):
    d[z] = d[x] * np.exp2(x - z) + d[y] * np.exp2(y - z)


@adjoint(np.sqrt)
def sqrt_adjoint(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(np.sqrt)
def sqrt_tangent(y, x):
    d[y] = d[x] / (2.0 * y)


@adjoint(np.cbrt)
def cbrt_adjoint(y, x):
    d[x] = d[y] / (3.0 * y * y)


@tangent(np.cbrt)
def cbrt_tangent(y, x):
    d[y] = d[x] / (3.0 * y * y)


@adjoint(np.reciprocal)
def reciprocal_adjoint(y, x):
    d[x] = -d[y] * y * y


@tangent(np.reciprocal)
def reciprocal_tangent(y, x):
    d[y] = -d[x] * y * y


@adjoint(np.float_power)
def float_power_adjoint(z, x, y):
    if literal(y):
        if y != 0:
            d[x] = unbroadcast(d[z] * y * np.float_power(x, y - 1), x)
    else:
        d[x] = unbroadcast(d[z] * y * np.float_power(x, np.where(y == 0, 1, y - 1)), x)
        d[y] = unbroadcast(xlogy(d[z] * z, x), y)


@tangent(np.float_power)
def float_power_tangent(z, x, y):
    if literal(y):
        if y == 0:
            d[z] = zeros_like(z)
        else:
            d[z] = broadcast_like(d[x] * y * np.float_power(x, y - 1), z)
    else:
        d[z] = broadcast_like(d[x] * y * np.float_power(x, np.where(y == 0, 1, y - 1)) + xlogy(d[y] * z, x), z)
