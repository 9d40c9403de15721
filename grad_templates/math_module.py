"""Rules for the math module's float functions and Python's numeric builtins.

math rules are written with math, so scalar code stays scalar.  Builtins:
``sum(iterable, start)`` (an iterable list or array), ``min``/``max`` of two
values or of one iterable, ``float``; ``abs`` and ``pow`` share the NumPy
rules (``piecewise.py``, ``arithmetic.py``).

Choices at kinks: ``math.fabs`` has derivative ``sign(x)`` (0 at 0); the
builtin ``max(a, b)``/``min(a, b)`` give each operand half the gradient at a
tie, and ``max(iterable)`` splits it equally among the items equal to the
result.  ``math.log(x, base)`` needs ``base`` as a literal (or left out).
``math.pow`` is exact at 0 like ``**`` (``arithmetic.py``), and
``math.hypot`` has the subgradient 0 at ``(0, 0)`` like ``np.hypot``
(``docs/singularities.md``).
"""
import math

import numpy as np

from srcad.runtime import broadcast_like, digamma, unbroadcast
from srcad.runtime.reductions import extremum_grad, extremum_tangent, unsum
from srcad.runtime.limits import xdivy, xlogy
from srcad.templates import adjoint, d, literal, tangent


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


@adjoint(math.tan)
def math_tan_adjoint(y, x):
    d[x] = d[y] * (1.0 + y * y)


@tangent(math.tan)
def math_tan_tangent(y, x):
    d[y] = d[x] * (1.0 + y * y)


@adjoint(math.asin)
def math_asin_adjoint(y, x):
    d[x] = d[y] / math.sqrt(1.0 - x * x)


@tangent(math.asin)
def math_asin_tangent(y, x):
    d[y] = d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.acos)
def math_acos_adjoint(y, x):
    d[x] = -d[y] / math.sqrt(1.0 - x * x)


@tangent(math.acos)
def math_acos_tangent(y, x):
    d[y] = -d[x] / math.sqrt(1.0 - x * x)


@adjoint(math.atan)
def math_atan_adjoint(y, x):
    d[x] = d[y] / (1.0 + x * x)


@tangent(math.atan)
def math_atan_tangent(y, x):
    d[y] = d[x] / (1.0 + x * x)


@adjoint(math.atan2)   # as np.arctan2's (grad_templates/trig.py): finite when x or y is infinite
def math_atan2_adjoint(z, y, x):
    d[y] = d[z] * math.cos(z) / math.hypot(x, y)
    d[x] = -d[z] * math.sin(z) / math.hypot(x, y)


@tangent(math.atan2)
def math_atan2_tangent(z, y, x):
    d[z] = (d[y] * math.cos(z) - d[x] * math.sin(z)) / math.hypot(x, y)


@adjoint(math.sinh)
def math_sinh_adjoint(y, x):
    d[x] = d[y] * math.cosh(x)


@tangent(math.sinh)
def math_sinh_tangent(y, x):
    d[y] = d[x] * math.cosh(x)


@adjoint(math.cosh)
def math_cosh_adjoint(y, x):
    d[x] = d[y] * math.sinh(x)


@tangent(math.cosh)
def math_cosh_tangent(y, x):
    d[y] = d[x] * math.sinh(x)


@adjoint(math.tanh)
def math_tanh_adjoint(y, x):
    d[x] = d[y] * (1.0 - y * y)


@tangent(math.tanh)
def math_tanh_tangent(y, x):
    d[y] = d[x] * (1.0 - y * y)


@adjoint(math.asinh)
def math_asinh_adjoint(y, x):
    d[x] = d[y] / math.sqrt(x * x + 1.0)


@tangent(math.asinh)
def math_asinh_tangent(y, x):
    d[y] = d[x] / math.sqrt(x * x + 1.0)


@adjoint(math.acosh)
def math_acosh_adjoint(y, x):
    d[x] = d[y] / math.sqrt(x * x - 1.0)


@tangent(math.acosh)
def math_acosh_tangent(y, x):
    d[y] = d[x] / math.sqrt(x * x - 1.0)


@adjoint(math.atanh)
def math_atanh_adjoint(y, x):
    d[x] = d[y] / (1.0 - x * x)


@tangent(math.atanh)
def math_atanh_tangent(y, x):
    d[y] = d[x] / (1.0 - x * x)


@adjoint(math.exp)
def math_exp_adjoint(y, x):
    d[x] = d[y] * y


@tangent(math.exp)
def math_exp_tangent(y, x):
    d[y] = d[x] * y


@adjoint(math.expm1)
def math_expm1_adjoint(y, x):
    d[x] = d[y] * (y + 1.0)


@tangent(math.expm1)
def math_expm1_tangent(y, x):
    d[y] = d[x] * (y + 1.0)


@adjoint(math.log)
def math_log_adjoint(y, x, base=None):
    if base is None:
        d[x] = d[y] / x
    else:
        d[x] = d[y] / (x * math.log(base))
        d[base] = -d[y] * y / (base * math.log(base))


@tangent(math.log)
def math_log_tangent(y, x, base=None):
    if base is None:
        d[y] = d[x] / x
    else:
        d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


@adjoint(math.log1p)
def math_log1p_adjoint(y, x):
    d[x] = d[y] / (1.0 + x)


@tangent(math.log1p)
def math_log1p_tangent(y, x):
    d[y] = d[x] / (1.0 + x)


@adjoint(math.log2)
def math_log2_adjoint(y, x):
    d[x] = d[y] / (x * math.log(2.0))


@tangent(math.log2)
def math_log2_tangent(y, x):
    d[y] = d[x] / (x * math.log(2.0))


@adjoint(math.log10)
def math_log10_adjoint(y, x):
    d[x] = d[y] / (x * math.log(10.0))


@tangent(math.log10)
def math_log10_tangent(y, x):
    d[y] = d[x] / (x * math.log(10.0))


@adjoint(math.sqrt)
def math_sqrt_adjoint(y, x):
    d[x] = d[y] / (2.0 * y)


@tangent(math.sqrt)
def math_sqrt_tangent(y, x):
    d[y] = d[x] / (2.0 * y)


@adjoint(math.pow)
def math_pow_adjoint(z, x, y):
    if literal(y):
        if y != 0:
            d[x] = d[z] * y * math.pow(x, y - 1.0)
    else:
        d[x] = d[z] * y * math.pow(x, np.where(y == 0, 1.0, y - 1.0))
        d[y] = xlogy(d[z] * z, x)


@tangent(math.pow)
def math_pow_tangent(z, x, y):
    if literal(y):
        if y == 0:
            d[z] = 0.0
        else:
            d[z] = d[x] * y * math.pow(x, y - 1.0)
    else:
        d[z] = d[x] * y * math.pow(x, np.where(y == 0, 1.0, y - 1.0)) + xlogy(d[y] * z, x)


@adjoint(math.hypot)
def math_hypot_adjoint(z, x, y):
    d[x] = d[z] * xdivy(x, z)
    d[y] = d[z] * xdivy(y, z)


@tangent(math.hypot)
def math_hypot_tangent(z, x, y):
    d[z] = xdivy(d[x] * x + d[y] * y, z)


@adjoint(math.fabs)
def math_fabs_adjoint(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(math.fabs)
def math_fabs_tangent(y, x):
    d[y] = d[x] * np.sign(x)


@adjoint(math.erf)
def math_erf_adjoint(y, x):
    d[x] = d[y] * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@tangent(math.erf)
def math_erf_tangent(y, x):
    d[y] = d[x] * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@adjoint(math.erfc)
def math_erfc_adjoint(y, x):
    d[x] = -d[y] * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@tangent(math.erfc)
def math_erfc_tangent(y, x):
    d[y] = -d[x] * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@adjoint(math.gamma)
def math_gamma_adjoint(y, x):
    d[x] = d[y] * y * digamma(x)


@tangent(math.gamma)
def math_gamma_tangent(y, x):
    d[y] = d[x] * y * digamma(x)


@adjoint(math.lgamma)
def math_lgamma_adjoint(y, x):
    d[x] = d[y] * digamma(x)


@tangent(math.lgamma)
def math_lgamma_tangent(y, x):
    d[y] = d[x] * digamma(x)


@adjoint(math.degrees)
def math_degrees_adjoint(y, x):
    d[x] = d[y] * (180.0 / math.pi)


@tangent(math.degrees)
def math_degrees_tangent(y, x):
    d[y] = d[x] * (180.0 / math.pi)


@adjoint(math.radians)
def math_radians_adjoint(y, x):
    d[x] = d[y] * (math.pi / 180.0)


@tangent(math.radians)
def math_radians_tangent(y, x):
    d[y] = d[x] * (math.pi / 180.0)


if hasattr(math, "cbrt"):   # Python 3.11+
    @adjoint(math.cbrt)
    def math_cbrt_adjoint(y, x):
        d[x] = d[y] / (3.0 * y * y)

    @tangent(math.cbrt)
    def math_cbrt_tangent(y, x):
        d[y] = d[x] / (3.0 * y * y)

    @adjoint(math.exp2)
    def math_exp2_adjoint(y, x):
        d[x] = d[y] * y * math.log(2.0)

    @tangent(math.exp2)
    def math_exp2_tangent(y, x):
        d[y] = d[x] * y * math.log(2.0)


# Python's builtins ------------------------------------------------------------

@adjoint(sum)
def sum_builtin_adjoint(y, iterable, start=0):
    d[iterable] = unsum(d[y], iterable)
    d[start] = unbroadcast(d[y], start)


@adjoint(math.fsum)
def fsum_adjoint(y, iterable):
    d[iterable] = unsum(d[y], iterable)


@tangent(sum)
def sum_builtin_tangent(y, iterable, start=0):
    d[y] = broadcast_like(sum(d[iterable]) + d[start], y)


@tangent(math.fsum)
def fsum_tangent(y, iterable):
    d[y] = math.fsum(d[iterable])


@adjoint(max, min)
def extremum_adjoint(y, a, b=None):
    d[a] = extremum_grad(d[y], a, y, other=b)
    d[b] = extremum_grad(d[y], b, y, other=a)


@tangent(max, min)
def extremum_tangent_rule(y, a, b=None):
    d[y] = extremum_tangent(d[a], a, y, other=b) + extremum_tangent(d[b], b, y, other=a)


@adjoint(float)
def float_adjoint(y, x):
    d[x] = d[y]


@tangent(float)
def float_tangent(y, x):
    d[y] = float(d[x])
