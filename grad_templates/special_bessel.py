"""Rules for ``scipy.special``'s Bessel functions, in their argument ``x``; registered with ``special``.

Covered: ``j0``, ``j1``, ``y0``, ``y1``, ``jv`` (``jn`` is the same
function), ``yv``, ``yn``, ``iv``, ``ive``, ``kv``, ``kve``, ``k0``, ``k1``,
``i0e``, ``i1e``, ``k0e``, ``k1e`` (``i0`` and ``i1`` are in ``special.py``).
Each derivative comes from the recurrences ``C'_v = (C_{v-1} - C_{v+1}) / 2``
(``J``, ``Y``), ``I'_v = (I_{v-1} + I_{v+1}) / 2`` and
``K'_v = -(K_{v-1} + K_{v+1}) / 2``, so it is built from the same functions
and every order of derivative follows.  The exponentially scaled ones add
the scale's derivative (``ive(v, x) = iv(v, x) exp(-|x|)``: ``- sign(x) ive``).

The order ``v`` of ``jv``, ``yv``, ``iv``, ``ive``, ``kv`` and ``kve`` is a
real number, and srcad has no derivative with respect to it: a call whose
order carries a derivative is an error at its line.  ``yn`` truncates its
order to an integer, so its derivative in ``n`` is 0 wherever it exists.
Domains as SciPy's: ``y*`` and ``k*`` need ``x > 0``.
"""
import numpy as np
from scipy import special

from srcad.templates import adjoint, d, not_differentiated_in, tangent

not_differentiated_in(special.jv, special.yv, special.iv, special.ive, special.kv, special.kve, arguments=("v",),
                      hint="srcad has no derivative of a Bessel function with respect to its order: pass the order "
                           "as a constant, or srcad.stop_gradient(v) if no derivative should flow through it")


@adjoint(special.j0)
def j0_adjoint(y, x):
    d[x] = -d[y] * special.j1(x)


@tangent(special.j0)
def j0_tangent(y, x):
    d[y] = -d[x] * special.j1(x)


@adjoint(special.j1)
def j1_adjoint(y, x):
    d[x] = d[y] * (special.j0(x) - special.jv(2, x)) / 2.0


@tangent(special.j1)
def j1_tangent(y, x):
    d[y] = d[x] * (special.j0(x) - special.jv(2, x)) / 2.0


@adjoint(special.y0)
def y0_adjoint(y, x):
    d[x] = -d[y] * special.y1(x)


@tangent(special.y0)
def y0_tangent(y, x):
    d[y] = -d[x] * special.y1(x)


@adjoint(special.y1)
def y1_adjoint(y, x):
    d[x] = d[y] * (special.y0(x) - special.yn(2, x)) / 2.0


@tangent(special.y1)
def y1_tangent(y, x):
    d[y] = d[x] * (special.y0(x) - special.yn(2, x)) / 2.0


@adjoint(special.jv)
def jv_adjoint(y, v, x):
    d[x] = d[y] * (special.jv(v - 1, x) - special.jv(v + 1, x)) / 2.0


@tangent(special.jv)
def jv_tangent(y, v, x):
    d[y] = d[x] * (special.jv(v - 1, x) - special.jv(v + 1, x)) / 2.0


@adjoint(special.yv)
def yv_adjoint(y, v, x):
    d[x] = d[y] * (special.yv(v - 1, x) - special.yv(v + 1, x)) / 2.0


@tangent(special.yv)
def yv_tangent(y, v, x):
    d[y] = d[x] * (special.yv(v - 1, x) - special.yv(v + 1, x)) / 2.0


@adjoint(special.yn)
def yn_adjoint(y, n, x):
    d[x] = d[y] * (special.yn(n - 1, x) - special.yn(n + 1, x)) / 2.0


@tangent(special.yn)
def yn_tangent(y, n, x):
    d[y] = d[x] * (special.yn(n - 1, x) - special.yn(n + 1, x)) / 2.0


@adjoint(special.iv)
def iv_adjoint(y, v, x):
    d[x] = d[y] * (special.iv(v - 1, x) + special.iv(v + 1, x)) / 2.0


@tangent(special.iv)
def iv_tangent(y, v, x):
    d[y] = d[x] * (special.iv(v - 1, x) + special.iv(v + 1, x)) / 2.0


@adjoint(special.ive)
def ive_adjoint(y, v, x):
    d[x] = d[y] * ((special.ive(v - 1, x) + special.ive(v + 1, x)) / 2.0 - np.sign(x) * y)


@tangent(special.ive)
def ive_tangent(y, v, x):
    d[y] = d[x] * ((special.ive(v - 1, x) + special.ive(v + 1, x)) / 2.0 - np.sign(x) * y)


@adjoint(special.kv)
def kv_adjoint(y, v, x):
    d[x] = -d[y] * (special.kv(v - 1, x) + special.kv(v + 1, x)) / 2.0


@tangent(special.kv)
def kv_tangent(y, v, x):
    d[y] = -d[x] * (special.kv(v - 1, x) + special.kv(v + 1, x)) / 2.0


@adjoint(special.kve)
def kve_adjoint(y, v, x):
    d[x] = d[y] * (y - (special.kve(v - 1, x) + special.kve(v + 1, x)) / 2.0)


@tangent(special.kve)
def kve_tangent(y, v, x):
    d[y] = d[x] * (y - (special.kve(v - 1, x) + special.kve(v + 1, x)) / 2.0)


@adjoint(special.k0)
def k0_adjoint(y, x):
    d[x] = -d[y] * special.k1(x)


@tangent(special.k0)
def k0_tangent(y, x):
    d[y] = -d[x] * special.k1(x)


@adjoint(special.k1)
def k1_adjoint(y, x):
    d[x] = -d[y] * (special.k0(x) + special.kv(2, x)) / 2.0


@tangent(special.k1)
def k1_tangent(y, x):
    d[y] = -d[x] * (special.k0(x) + special.kv(2, x)) / 2.0


@adjoint(special.i0e)
def i0e_adjoint(y, x):
    d[x] = d[y] * (special.i1e(x) - np.sign(x) * y)


@tangent(special.i0e)
def i0e_tangent(y, x):
    d[y] = d[x] * (special.i1e(x) - np.sign(x) * y)


@adjoint(special.i1e)
def i1e_adjoint(y, x):
    d[x] = d[y] * ((special.i0e(x) + special.ive(2, x)) / 2.0 - np.sign(x) * y)


@tangent(special.i1e)
def i1e_tangent(y, x):
    d[y] = d[x] * ((special.i0e(x) + special.ive(2, x)) / 2.0 - np.sign(x) * y)


@adjoint(special.k0e)
def k0e_adjoint(y, x):
    d[x] = d[y] * (y - special.k1e(x))


@tangent(special.k0e)
def k0e_tangent(y, x):
    d[y] = d[x] * (y - special.k1e(x))


@adjoint(special.k1e)
def k1e_adjoint(y, x):
    d[x] = d[y] * (y - (special.k0e(x) + special.kve(2, x)) / 2.0)


@tangent(special.k1e)
def k1e_tangent(y, x):
    d[y] = d[x] * (y - (special.k0e(x) + special.kve(2, x)) / 2.0)
