"""Rules for trigonometric and hyperbolic functions of NumPy, their inverses, and angle conversions.

All are ufuncs (elementwise).  Inverse functions have their usual domains
(``arcsin``/``arccos``/``arctanh`` on (-1, 1), ``arccosh`` on (1, inf)); at
the ends of a domain the derivative is infinite, as the formulas give.
``np.sinc``'s derivative at 0 is 0 (its limit; the second derivative is
``-pi**2 / 3``).  ``np.hypot`` at ``(0, 0)`` is a cone, ``|(x, y)|``: its
derivative there takes the subgradient 0, like ``np.linalg.norm`` at 0.
``np.arctan2`` at ``(0, 0)`` is not even continuous, so its derivative is
undefined and stays NaN (``docs/singularities.md``).
Its partial derivatives are written with its output and ``np.hypot``, so
they are 0, not NaN, where an argument is infinite.
"""
import numpy as np

from srcad.runtime import sinc_slope, unbroadcast
from srcad.runtime.limits import xdivy
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


@adjoint(np.arcsin)
def arcsin_adjoint(y, x):
    d[x] = d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arcsin)
def arcsin_tangent(y, x):
    d[y] = d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arccos)
def arccos_adjoint(y, x):
    d[x] = -d[y] / np.sqrt(1.0 - x * x)


@tangent(np.arccos)
def arccos_tangent(y, x):
    d[y] = -d[x] / np.sqrt(1.0 - x * x)


@adjoint(np.arctan)
def arctan_adjoint(y, x):
    d[x] = d[y] / (1.0 + x * x)


@tangent(np.arctan)
def arctan_tangent(y, x):
    d[y] = d[x] / (1.0 + x * x)


# x / (x^2 + y^2) and -y / (x^2 + y^2), written as cos(z) / r and -sin(z) / r with r = hypot(x, y): the
# same numbers, but 0 rather than inf / inf = NaN when x or y is infinite, and no underflow of x^2 + y^2

@adjoint(np.arctan2)
def arctan2_adjoint(z, y, x):
    d[y] = unbroadcast(d[z] * np.cos(z) / np.hypot(x, y), y)
    d[x] = unbroadcast(-d[z] * np.sin(z) / np.hypot(x, y), x)


@tangent(np.arctan2)
def arctan2_tangent(z, y, x):
    d[z] = (d[y] * np.cos(z) - d[x] * np.sin(z)) / np.hypot(x, y)


@adjoint(np.hypot)
def hypot_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * xdivy(x, z), x)
    d[y] = unbroadcast(d[z] * xdivy(y, z), y)


@tangent(np.hypot)
def hypot_tangent(z, x, y):
    d[z] = xdivy(d[x] * x + d[y] * y, z)


@adjoint(np.sinh)
def sinh_adjoint(y, x):
    d[x] = d[y] * np.cosh(x)


@tangent(np.sinh)
def sinh_tangent(y, x):
    d[y] = d[x] * np.cosh(x)


@adjoint(np.cosh)
def cosh_adjoint(y, x):
    d[x] = d[y] * np.sinh(x)


@tangent(np.cosh)
def cosh_tangent(y, x):
    d[y] = d[x] * np.sinh(x)


@adjoint(np.tanh)
def tanh_adjoint(y, x):
    d[x] = d[y] * (1.0 - y * y)


@tangent(np.tanh)
def tanh_tangent(y, x):
    d[y] = d[x] * (1.0 - y * y)


@adjoint(np.arcsinh)
def arcsinh_adjoint(y, x):
    d[x] = d[y] / np.sqrt(x * x + 1.0)


@tangent(np.arcsinh)
def arcsinh_tangent(y, x):
    d[y] = d[x] / np.sqrt(x * x + 1.0)


@adjoint(np.arccosh)
def arccosh_adjoint(y, x):
    d[x] = d[y] / np.sqrt(x * x - 1.0)


@tangent(np.arccosh)
def arccosh_tangent(y, x):
    d[y] = d[x] / np.sqrt(x * x - 1.0)


@adjoint(np.arctanh)
def arctanh_adjoint(y, x):
    d[x] = d[y] / (1.0 - x * x)


@tangent(np.arctanh)
def arctanh_tangent(y, x):
    d[y] = d[x] / (1.0 - x * x)


@adjoint(np.deg2rad, np.radians)
def deg2rad_adjoint(y, x):
    d[x] = d[y] * (np.pi / 180.0)


@tangent(np.deg2rad, np.radians)
def deg2rad_tangent(y, x):
    d[y] = d[x] * (np.pi / 180.0)


@adjoint(np.rad2deg, np.degrees)
def rad2deg_adjoint(y, x):
    d[x] = d[y] * (180.0 / np.pi)


@tangent(np.rad2deg, np.degrees)
def rad2deg_tangent(y, x):
    d[y] = d[x] * (180.0 / np.pi)


@adjoint(np.sinc)
def sinc_adjoint(y, x):
    d[x] = d[y] * sinc_slope(x)


@tangent(np.sinc)
def sinc_tangent(y, x):
    d[y] = d[x] * sinc_slope(x)
