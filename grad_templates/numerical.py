"""Rules for NumPy's numerical routines: differences, gradients, integrals, interpolation, polynomials.

- ``np.diff(a, n, axis, prepend, append)`` is linear: its adjoint is the
  transpose of the n-th difference (``undiff``), split among ``prepend``,
  ``a`` and ``append`` when they are given (a number given as ``prepend``
  or ``append`` gets the sum of its slice).
- ``np.gradient(f, *spacings, axis, edge_order)`` is linear in ``f``
  (``gradient_transpose``) and differentiated in each spacing, a number or
  coordinates (``gradient_spacing_grad``); at most three spacing arguments.
  With spacings given, the gradient of its result (a tuple for several
  axes) is stacked into one array first, so each helper reads an array.
- ``np.trapezoid(y, x, dx, axis)`` (and ``np.trapz`` where NumPy has it) in
  ``y``, the sample points ``x`` and the spacing ``dx``.
- ``np.interp(x, xp, fp, left, right)`` in all five.  It is piecewise linear
  in ``x``: the derivatives are those of the piece to the right of ``x``
  (at a knot ``x == xp[k]``, the piece that starts there; at
  ``x == xp[-1]``, the constant beyond it), the one-sided derivative from
  the right.  ``period=`` is not taken (the rule's signature refuses it).
- ``np.polyval(p, x)`` in the coefficients and in ``x``.

The helpers live in ``srcad.runtime.numerical`` and ``srcad.runtime.stencils``.
"""
import numpy as np

from srcad.runtime import broadcast_like, unbroadcast, unreduce
from srcad.runtime.numerical import (diff_piece, interp_fp_grad, interp_fp_tangent, interp_slope, interp_xp_grad,
                                     interp_xp_tangent, polyval_coefficient_grad, polyval_slope, trapezoid_weights,
                                     trapezoid_x_grad, trapezoid_x_tangent, undiff, undiff_piece)
from srcad.runtime.stencils import (gradient_restack, gradient_spacing_grad, gradient_spacing_stack, gradient_stack,
                                    gradient_transpose, gradient_unstack)
from srcad.templates import adjoint, d, given, tangent

TRAPEZOIDS = [getattr(np, name) for name in ("trapezoid", "trapz") if hasattr(np, name)]   # trapz: NumPy < 2.4


@adjoint(np.diff)
def diff_adjoint(y, a, n=1, axis=-1, prepend=None, append=None):
    if given(prepend) or given(append):
        d[prepend] = undiff_piece(d[y], 0, a, n, axis, prepend, append)
        d[a] = undiff_piece(d[y], 1, a, n, axis, prepend, append)
        d[append] = undiff_piece(d[y], 2, a, n, axis, prepend, append)
    else:
        d[a] = undiff(d[y], n=n, axis=axis)


@tangent(np.diff)
def diff_tangent(y, a, n=1, axis=-1, prepend=None, append=None):
    if given(prepend) or given(append):
        d[y] = (diff_piece(d[prepend], 0, a, n, axis, prepend, append) + diff_piece(d[a], 1, a, n, axis, prepend, append)
                + diff_piece(d[append], 2, a, n, axis, prepend, append))
    else:
        d[y] = np.diff(d[a], n=n, axis=axis)


@adjoint(np.gradient)
def gradient_adjoint(y, f, h0=None, h1=None, h2=None, *, axis=None, edge_order=1):
    if given(h0):   # the gradient of a tuple result, stacked once for every helper that reads it
        stacked = gradient_restack(d[y], f, axis=axis)
        d[f] = gradient_transpose(stacked, f, h0, h1, h2, axis=axis, edge_order=edge_order)
        d[h0] = gradient_spacing_grad(stacked, 0, f, h0, h1, h2, axis=axis, edge_order=edge_order)
        d[h1] = gradient_spacing_grad(stacked, 1, f, h0, h1, h2, axis=axis, edge_order=edge_order)
        d[h2] = gradient_spacing_grad(stacked, 2, f, h0, h1, h2, axis=axis, edge_order=edge_order)
    else:
        d[f] = gradient_transpose(d[y], f, axis=axis, edge_order=edge_order)


@tangent(np.gradient)
def gradient_tangent(y, f, h0=None, h1=None, h2=None, *, axis=None, edge_order=1):
    if given(h0):   # one term per argument, stacked per axis (a tuple result cannot be added)
        d[y] = gradient_unstack(gradient_stack(d[f], f, h0, h1, h2, axis=axis, edge_order=edge_order)
                                + gradient_spacing_stack(d[h0], 0, f, h0, h1, h2, axis=axis, edge_order=edge_order)
                                + gradient_spacing_stack(d[h1], 1, f, h0, h1, h2, axis=axis, edge_order=edge_order)
                                + gradient_spacing_stack(d[h2], 2, f, h0, h1, h2, axis=axis, edge_order=edge_order),
                                f, axis=axis)
    else:
        d[y] = np.gradient(d[f], axis=axis, edge_order=edge_order)


@adjoint(*TRAPEZOIDS)
def trapezoid_adjoint(out, y, x=None, dx=1.0, axis=-1):
    if given(x):
        d[y] = unreduce(d[out], y, axis) * trapezoid_weights(y, x, axis=axis)
        d[x] = trapezoid_x_grad(d[out], y, x, axis=axis)
    else:
        d[y] = unreduce(d[out], y, axis) * trapezoid_weights(y, dx=dx, axis=axis)
        d[dx] = unbroadcast(d[out] * np.trapezoid(y, axis=axis), dx)


@tangent(*TRAPEZOIDS)
def trapezoid_tangent(out, y, x=None, dx=1.0, axis=-1):
    if given(x):
        d[out] = np.trapezoid(d[y], x, axis=axis) + trapezoid_x_tangent(d[x], y, x, axis=axis)
    else:
        d[out] = np.trapezoid(d[y], dx=dx, axis=axis) + d[dx] * np.trapezoid(y, axis=axis)


@adjoint(np.interp)
def interp_adjoint(y, x, xp, fp, left=None, right=None):
    d[x] = d[y] * interp_slope(x, xp, fp)
    d[xp] = interp_xp_grad(d[y], x, xp, fp)
    d[fp] = interp_fp_grad(d[y], x, xp, left=left, right=right)
    d[left] = unbroadcast(np.where(x < xp[0], d[y], 0.0), left)
    d[right] = unbroadcast(np.where(x > xp[-1], d[y], 0.0), right)


@tangent(np.interp)
def interp_tangent(y, x, xp, fp, left=None, right=None):
    d[y] = broadcast_like(d[x] * interp_slope(x, xp, fp) + interp_xp_tangent(d[xp], x, xp, fp)
                          + interp_fp_tangent(d[fp], x, xp, left=left, right=right)
                          + np.where(x < xp[0], d[left], 0.0) + np.where(x > xp[-1], d[right], 0.0), y)


@adjoint(np.polyval)
def polyval_adjoint(y, p, x):
    d[p] = polyval_coefficient_grad(d[y], p, x)
    d[x] = unbroadcast(d[y] * polyval_slope(p, x), x)


@tangent(np.polyval)
def polyval_tangent(y, p, x):
    d[y] = np.polyval(d[p], x) + d[x] * polyval_slope(p, x)
