"""Rules for piecewise functions: abs, maximum/minimum, fmax/fmin, clip, where, mod, heaviside, nan_to_num,
angle.

Binary rules reduce each operand's gradient to its shape with ``unbroadcast``.

Choices at kinks (where the derivative is undefined, srcad picks one value
of the subdifferential and always the same one, in both modes):

- ``abs(x)`` (``np.abs``, ``np.absolute``, ``np.fabs``, builtin ``abs``):
  derivative ``sign(x)``, so 0 at ``x == 0``.
- ``np.maximum(x, y)``/``np.minimum(x, y)``: where ``x == y`` each operand
  gets half the gradient.  ``np.fmax``/``np.fmin`` do the same, and a NaN
  operand gets nothing (the other is taken).
- ``np.clip(a, lo, hi)``: the gradient goes to ``a`` on the closed interval
  ``lo <= a <= hi`` (bounds included) and to the bound outside it.
- ``np.mod``/``np.remainder``/``%`` and ``np.fmod``: derivative 1 with respect
  to ``x`` and ``-floor(x / y)`` (``-trunc(x / y)`` for fmod) with respect to
  ``y``, the one-sided value at the jumps.
- ``np.where(c, x, y)``: the condition carries no derivative.
- ``np.copysign(x, y)``: derivative ``sign(x) sign(z)`` with respect to ``x``
  (``z`` the result: its sign is ``y``'s; 0 at ``x == 0``), 0 with respect to
  ``y``.
- ``np.heaviside(x1, x2)``: derivative 0 with respect to ``x1`` (a step), and
  with respect to ``x2`` 1 where ``x1 == 0`` (the result is ``x2`` there), 0
  elsewhere.
- ``np.nan_to_num(x, nan=..., posinf=..., neginf=...)``: derivative 1 with
  respect to ``x`` where ``x`` is finite and 0 at NaN and infinities (the
  result is a replacement value there); each replacement value gets the
  gradient of the entries it replaced.  ``copy=`` is not taken:
  ``copy=False`` overwrites ``x``, and the rule reads ``x`` afterwards.
- ``np.angle`` of a real number is 0 or pi (a step at 0): derivative 0,
  like ``np.sign``, and so is ``np.imag`` of a real
  number (always 0).  srcad differentiates real numbers only
  (``srcad/passes/complex_values.py`` refuses complex ones), so these are
  the derivatives, not a choice.
"""
import operator

import numpy as np

from srcad.runtime import (broadcast_like, clip_share, fmax_share, fmin_share, maximum_share,
                           unbroadcast)
from srcad.templates import adjoint, d, nondifferentiable, tangent


@adjoint(np.abs, np.absolute, np.fabs, abs)
def abs_adjoint(y, x):
    d[x] = d[y] * np.sign(x)


@tangent(np.abs, np.absolute, np.fabs, abs)
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


@adjoint(np.fmax)
def fmax_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * fmax_share(x, y), x)
    d[y] = unbroadcast(d[z] * fmax_share(y, x), y)


@tangent(np.fmax)
def fmax_tangent(z, x, y):
    d[z] = d[x] * fmax_share(x, y) + d[y] * fmax_share(y, x)


@adjoint(np.fmin)
def fmin_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * fmin_share(x, y), x)
    d[y] = unbroadcast(d[z] * fmin_share(y, x), y)


@tangent(np.fmin)
def fmin_tangent(z, x, y):
    d[z] = d[x] * fmin_share(x, y) + d[y] * fmin_share(y, x)


@adjoint(np.clip)
def clip_adjoint(y, a, a_min=None, a_max=None, out=None):
    d[a] = unbroadcast(d[y] * clip_share(a, a_min, a_max), a)
    d[a_min] = unbroadcast(d[y] * (a < a_min), a_min)
    d[a_max] = unbroadcast(d[y] * (a > a_max), a_max)


@tangent(np.clip)
def clip_tangent(y, a, a_min=None, a_max=None, out=None):
    d[y] = broadcast_like(d[a] * clip_share(a, a_min, a_max) + d[a_min] * (a < a_min)
                          + d[a_max] * (a > a_max), y)


@adjoint(np.where)
def where_adjoint(z, condition, x, y):
    d[x] = unbroadcast(np.where(condition, d[z], 0.0), x)
    d[y] = unbroadcast(np.where(condition, 0.0, d[z]), y)


@tangent(np.where)
def where_tangent(z, condition, x, y):
    d[z] = broadcast_like(np.where(condition, d[x], 0.0) + np.where(condition, 0.0, d[y]), z)


@adjoint(operator.mod, np.remainder)
def mod_adjoint(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(-d[z] * np.floor_divide(x, y), y)


@tangent(operator.mod, np.remainder)
def mod_tangent(z, x, y):
    d[z] = broadcast_like(d[x] - d[y] * np.floor_divide(x, y), z)


@adjoint(np.fmod)
def fmod_adjoint(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(-d[z] * np.trunc(x / y), y)


@tangent(np.fmod)
def fmod_tangent(z, x, y):
    d[z] = broadcast_like(d[x] - d[y] * np.trunc(x / y), z)


@adjoint(np.copysign)
def copysign_adjoint(z, x, y):
    d[x] = unbroadcast(d[z] * np.sign(x) * np.sign(z), x)


@tangent(np.copysign)
def copysign_tangent(z, x, y):
    d[z] = broadcast_like(d[x] * np.sign(x) * np.sign(z), z)


@adjoint(np.heaviside)
def heaviside_adjoint(y, x1, x2):
    d[x2] = unbroadcast(d[y] * (x1 == 0), x2)


@tangent(np.heaviside)
def heaviside_tangent(y, x1, x2):
    d[y] = broadcast_like(d[x2] * (x1 == 0), y)


@adjoint(np.nan_to_num)
def nan_to_num_adjoint(y, x, *, nan=0.0, posinf=None, neginf=None):   # copy=False would change x: refused
    d[x] = np.where(np.isfinite(x), d[y], 0.0)
    d[nan] = unbroadcast(np.where(np.isnan(x), d[y], 0.0), nan)
    d[posinf] = unbroadcast(np.where(np.isposinf(x), d[y], 0.0), posinf)
    d[neginf] = unbroadcast(np.where(np.isneginf(x), d[y], 0.0), neginf)


@tangent(np.nan_to_num)
def nan_to_num_tangent(y, x, *, nan=0.0, posinf=None, neginf=None):
    d[y] = (np.where(np.isfinite(x), d[x], 0.0) + np.where(np.isnan(x), d[nan], 0.0)
            + np.where(np.isposinf(x), d[posinf], 0.0) + np.where(np.isneginf(x), d[neginf], 0.0))


# ``np.imag`` of a real number is 0 and ``np.angle`` of one is 0 or pi: derivative 0.  They get rules, not a
# non-differentiable declaration, so a complex value reaching them from a differentiated one is still seen
# (and refused, with ComplexError) rather than dropped as if it carried no derivative.

@adjoint(np.imag)
def imag_adjoint(y, x):
    d[x] = d[y] * 0.0


@tangent(np.imag)
def imag_tangent(y, x):
    d[y] = d[x] * 0.0


@adjoint(np.angle)
def angle_adjoint(y, x):
    d[x] = d[y] * 0.0


@tangent(np.angle)
def angle_tangent(y, x):
    d[y] = d[x] * 0.0
