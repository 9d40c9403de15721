"""Helpers that generated derivative code calls for NumPy's numerical routines: differences, integrals,
interpolation, polynomials and 1-d convolutions.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name.  ``*_grad`` helpers take the gradient of an
operation's output and return the gradient of one input, shaped like it;
``*_tangent`` helpers are linear in the tangent they take.  They are written
with NumPy operations srcad has rules for (and srcad's own helpers), so
srcad differentiates their source again for higher derivatives; those that
are linear maps with a simple transpose have rules of their own in
``grad_templates/runtime_helpers_numerical.py``.  Real inputs only.

- ``np.diff(a, n, axis, prepend, append)``: ``undiff`` (the transpose of the
  n-th difference), ``undiff_piece`` and ``diff_piece`` (one of the three
  joined parts).
- ``np.trapezoid(y, x, dx, axis)``: ``trapezoid_weights``, ``trapezoid_x_grad``,
  ``trapezoid_x_tangent``.
- ``np.interp(x, xp, fp, left, right)``: ``interp_slope``, ``interp_xp_grad``,
  ``interp_xp_tangent``, ``interp_fp_grad``, ``interp_fp_tangent``.  The
  derivatives are those of the linear piece to the right of ``x`` (at a knot
  ``x == xp[k]``, the piece starting there; at ``x == xp[-1]``, the constant
  beyond it).
- ``np.polyval(p, x)``: ``polyval_slope``, ``polyval_coefficient_grad``.
- ``np.convolve``/``np.correlate`` with ``mode`` 'full', 'same' or 'valid':
  ``convolve_grad``, ``correlate_grad``.

Example::

    >>> import numpy as np
    >>> undiff(np.array([1.0, 1.0]))
    array([-1.,  0.,  1.])
"""
from __future__ import annotations

import numpy as np

from .core import unbroadcast
from .dispatch import as_array
from .shapes import untake


# --------------------------------------------------------------------------
# np.diff

def _along(ndim, axis, index):
    """An index that applies ``index`` along ``axis`` of an ``ndim``-dimensional array."""
    return (slice(None),) * (axis % ndim) + (index,)


def _zero_border(grad, n, axis):
    """``n`` zeros on each side of ``grad`` along ``axis``."""
    return np.pad(grad, [(n, n) if k == axis % np.ndim(grad) else (0, 0) for k in range(np.ndim(grad))])


def undiff(grad, n=1, axis=-1):
    """The gradient of ``np.diff(a, n, axis)`` with respect to ``a``: ``(-1)^n diff(grad padded by n zeros, n)``.

    Example: ``undiff(np.array([1.0, 1.0]))`` is ``array([-1.,  0.,  1.])``.
    """
    result = np.diff(_zero_border(grad, n, axis), n=n, axis=axis)
    return -result if n % 2 else result


def _diff_parts(a, axis, prepend, append):
    """The shapes of the three parts ``np.diff`` joins along ``axis`` (None for a part not given), and
    the axis made non-negative."""
    shape, axis = list(np.shape(a)), axis % np.ndim(a)
    shapes = []
    for part in (prepend, a, append):
        if part is None:
            shapes.append(None)
        elif np.ndim(part) == 0:   # a number is broadcast to one slice along the axis
            shapes.append(tuple(shape[:axis] + [1] + shape[axis + 1:]))
        else:
            shapes.append(np.shape(part))
    return shapes, axis


def undiff_piece(grad, which, a, n=1, axis=-1, prepend=None, append=None):
    """The gradient of ``np.diff(a, n, axis, prepend=prepend, append=append)`` with respect to part ``which``
    (0 ``prepend``, 1 ``a``, 2 ``append``), shaped like that part.

    Example: ``undiff_piece(np.ones(3), 0, np.zeros(2), prepend=0.0)`` is ``-1.0``.
    """
    shapes, axis = _diff_parts(a, axis, prepend, append)
    full = undiff(grad, n, axis)
    start = sum(shape[axis] for shape in shapes[:which] if shape is not None)
    piece = full[_along(np.ndim(full), axis, slice(start, start + shapes[which][axis]))]
    part = (prepend, a, append)[which]
    return np.sum(piece) if np.ndim(part) == 0 else piece


def diff_piece(tangent, which, a, n=1, axis=-1, prepend=None, append=None):
    """``np.diff`` of the parts ``np.diff(a, n, axis, prepend=prepend, append=append)`` joins, with
    ``tangent`` as part ``which`` and zeros as the others: the tangent one part contributes.

    Example: ``diff_piece(1.0, 0, np.zeros(2), prepend=0.0)`` is ``array([-1.,  0.])``.
    """
    shapes, axis = _diff_parts(a, axis, prepend, append)
    parts = []
    for k, shape in enumerate(shapes):
        if shape is not None:
            parts.append(np.broadcast_to(tangent, shape) if k == which else np.zeros(shape))
    return np.diff(np.concatenate(parts, axis=axis), n=n, axis=axis)


# --------------------------------------------------------------------------
# np.trapezoid

def _spacings(y, x, dx, axis):
    """The widths of the trapezoids along ``axis``, shaped to broadcast against ``y``'s slices."""
    if x is None:
        return dx
    if np.ndim(x) == 1:   # along the axis, before the axes after it
        return np.reshape(np.diff(x), (-1,) + (1,) * (np.ndim(y) - 1 - axis % np.ndim(y)))
    return np.diff(x, axis=axis)


def trapezoid_weights(y, x=None, dx=1.0, axis=-1):
    """The derivative of ``np.trapezoid(y, x, dx, axis)`` with respect to each element of ``y``.

    Example: ``trapezoid_weights(np.zeros(3))`` is ``array([0.5, 1. , 0.5])``.
    """
    widths = _zero_border(np.broadcast_to(_spacings(y, x, dx, axis), np.shape(np.diff(y, axis=axis))), 1, axis)
    return 0.5 * (widths[_along(np.ndim(widths), axis, slice(1, None))]
                  + widths[_along(np.ndim(widths), axis, slice(None, -1))])


def trapezoid_x_grad(grad, y, x, axis=-1):
    """The gradient of ``np.trapezoid(y, x, axis=axis)`` with respect to the sample points ``x``.

    ``x`` is 1-d (the points along ``axis``) or shaped like ``y``.

    Example: ``trapezoid_x_grad(1.0, np.ones(3), np.zeros(3))`` is ``array([-1.,  0.,  1.])``.
    """
    axis = axis % np.ndim(y)
    heights = 0.5 * (y[_along(np.ndim(y), axis, slice(1, None))] + y[_along(np.ndim(y), axis, slice(None, -1))])
    spread = undiff(np.expand_dims(grad, axis) * heights, 1, axis)
    if np.ndim(x) == 1:
        return np.sum(np.moveaxis(spread, axis, -1), axis=tuple(range(np.ndim(y) - 1)))
    return unbroadcast(spread, x)   # x may broadcast against y


def trapezoid_x_tangent(tangent, y, x, axis=-1):
    """The tangent of ``np.trapezoid(y, x, axis=axis)`` for the tangent ``tangent`` of ``x``.

    Example: ``trapezoid_x_tangent(np.array([0.0, 0.0, 1.0]), np.ones(3), np.arange(3.0))`` is ``1.0``.
    """
    axis = axis % np.ndim(y)
    heights = 0.5 * (y[_along(np.ndim(y), axis, slice(1, None))] + y[_along(np.ndim(y), axis, slice(None, -1))])
    return np.sum(heights * _spacings(y, tangent, 1.0, axis), axis=axis)


# --------------------------------------------------------------------------
# np.interp

def _pieces(x, xp):
    """For each ``x``: the index ``k`` of the piece ``[xp[k], xp[k+1]]`` it reads, its position ``t`` in it,
    and whether ``xp[0] <= x < xp[-1]`` (inside)."""
    x, xp = as_array(x), as_array(xp)   # lists are points and knots too, as np.interp takes them
    k = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, np.size(xp) - 2)
    low, high = xp[k], xp[k + 1]
    inside = (x >= xp[0]) & (x < xp[-1])
    return k, (x - low) / (high - low), inside


def interp_slope(x, xp, fp):
    """The derivative of ``np.interp(x, xp, fp)`` with respect to ``x``: the slope of the piece ``x`` is on,
    0 outside ``[xp[0], xp[-1])``.

    Example: ``interp_slope(0.5, np.array([0.0, 1.0]), np.array([0.0, 2.0]))`` is ``2.0``.
    """
    k, _, inside = _pieces(x, xp)
    xp, fp = as_array(xp), as_array(fp)
    return np.where(inside, (fp[k + 1] - fp[k]) / (xp[k + 1] - xp[k]), 0.0)


def interp_fp_tangent(tangent, x, xp, left=None, right=None):
    """The tangent of ``np.interp(x, xp, fp, left, right)`` for the tangent ``tangent`` of ``fp``.

    Example: ``interp_fp_tangent(np.array([0.0, 1.0]), 0.25, np.array([0.0, 1.0]))`` is ``0.25``.
    """
    return np.interp(x, xp, tangent, left=None if left is None else 0.0, right=None if right is None else 0.0)


def interp_fp_grad(grad, x, xp, left=None, right=None):
    """The gradient of ``np.interp(x, xp, fp, left, right)`` with respect to ``fp``.

    Example: ``interp_fp_grad(1.0, 0.25, np.array([0.0, 1.0]))`` is ``array([0.75, 0.25])``.
    """
    k, t, inside = _pieces(x, xp)
    x, xp = as_array(x), as_array(xp)
    grad = np.broadcast_to(grad, np.shape(t))
    below = np.where((x < xp[0]) & (left is None), grad, 0.0)   # fp[0] is taken left of the knots
    above = np.where((x == xp[-1]) | ((x > xp[-1]) & (right is None)), grad, 0.0)
    last = np.full(np.shape(k), np.size(xp) - 1)
    return (untake(np.where(inside, grad * (1.0 - t), 0.0) + below, xp, k)
            + untake(np.where(inside, grad * t, 0.0), xp, k + 1) + untake(above, xp, last))


def interp_xp_grad(grad, x, xp, fp):
    """The gradient of ``np.interp(x, xp, fp)`` with respect to the knots ``xp``.

    Moving the knots of the piece ``x`` is on changes the value by
    ``-slope (1 - t)`` (left knot) and ``-slope t`` (right knot).

    Example: ``interp_xp_grad(1.0, 0.25, np.array([0.0, 1.0]), np.array([0.0, 2.0]))`` is ``array([-1.5, -0.5])``.
    """
    k, t, inside = _pieces(x, xp)
    scaled = np.where(inside, -np.broadcast_to(grad, np.shape(t)) * interp_slope(x, xp, fp), 0.0)
    return untake(scaled * (1.0 - t), xp, k) + untake(scaled * t, xp, k + 1)


def interp_xp_tangent(tangent, x, xp, fp):
    """The tangent of ``np.interp(x, xp, fp)`` for the tangent ``tangent`` of the knots ``xp``.

    Example: ``interp_xp_tangent(np.array([1.0, 1.0]), 0.25, np.array([0.0, 1.0]), np.array([0.0, 2.0]))``
    is ``-2.0``.
    """
    k, t, inside = _pieces(x, xp)
    tangent = as_array(tangent)
    return np.where(inside, -interp_slope(x, xp, fp) * ((1.0 - t) * tangent[k] + t * tangent[k + 1]), 0.0)


# --------------------------------------------------------------------------
# np.polyval

def polyval_slope(p, x):
    """The derivative of ``np.polyval(p, x)`` with respect to ``x``.

    Example: ``polyval_slope(np.array([1.0, 0.0, 0.0]), 3.0)`` is ``6.0``.
    """
    degree = np.size(p) - 1
    if degree < 1:
        return np.zeros(np.shape(x))
    return np.polyval(p[:-1] * np.arange(degree, 0, -1), x)


def polyval_coefficient_grad(grad, p, x):
    """The gradient of ``np.polyval(p, x)`` with respect to the coefficients ``p``.

    Example: ``polyval_coefficient_grad(1.0, np.zeros(3), 2.0)`` is ``array([4., 2., 1.])``.
    """
    grad = np.broadcast_to(grad, np.shape(x))
    powers = np.arange(np.size(p) - 1, -1, -1)
    return np.sum(np.reshape(grad, (-1, 1)) * np.reshape(x, (-1, 1)) ** powers, axis=0)


# --------------------------------------------------------------------------
# np.convolve and np.correlate (1-d)

def _window(length_a, length_v, mode, correlate):
    """(start, stop) of the ``mode`` result inside the full result of length ``length_a + length_v - 1``."""
    full = length_a + length_v - 1
    size = {"full": full, "same": max(length_a, length_v),
            "valid": max(length_a, length_v) - min(length_a, length_v) + 1}[mode]
    start = (full - size) // 2
    if correlate and length_a < length_v:   # np.correlate swaps its operands and reverses the result
        start = full - size - start
    return start, start + size


def convolve_grad(grad, a, v, mode="full", which=0):
    """The gradient of ``np.convolve(a, v, mode)`` with respect to ``a`` (``which`` 0) or ``v`` (1).

    Example: ``convolve_grad(np.ones(3), np.zeros(2), np.array([1.0, 2.0]))`` is ``array([3., 3.])``.
    """
    start, stop = _window(np.size(a), np.size(v), mode, False)
    full = np.pad(grad, (start, np.size(a) + np.size(v) - 1 - stop))
    return np.reshape(np.correlate(full, np.ravel(v if which == 0 else a), "valid"), np.shape(a if which == 0 else v))


def correlate_grad(grad, a, v, mode="valid", which=0):
    """The gradient of ``np.correlate(a, v, mode)`` with respect to ``a`` (``which`` 0) or ``v`` (1).

    Example: ``correlate_grad(np.ones(2), np.zeros(3), np.array([1.0, 2.0]))`` is ``array([2., 3., 1.])``.
    """
    start, stop = _window(np.size(a), np.size(v), mode, True)
    full = np.pad(grad, (start, np.size(a) + np.size(v) - 1 - stop))
    if which == 0:
        return np.reshape(np.correlate(full, np.ravel(v)[::-1], "valid"), np.shape(a))
    return np.reshape(np.correlate(full, np.ravel(a), "valid")[::-1], np.shape(v))
