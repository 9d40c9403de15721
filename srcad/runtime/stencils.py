"""Helpers that generated derivative code calls for ``np.gradient``.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name, written with NumPy operations srcad has
rules for, so srcad differentiates their source again.  ``np.gradient(f,
*spacings, axis, edge_order)`` is linear in ``f``: along each axis, entry
``i`` of the result is ``sum_o w_o[i] f[i + o]`` over the offsets
``o = -2..2``, with weights ``w_o`` that depend on the spacing ``dx`` of the
samples (a number, or the differences of coordinates) as NumPy's formulas
say: second-order central differences inside, one-sided differences of
order ``edge_order`` at the two ends.  ``gradient_weights`` gives them,
``gradient_weight_partials`` their derivatives with respect to ``dx``.  The
rules of ``np.gradient`` take at most three spacing arguments, ``h0, h1,
h2`` (None when not given), as the call passed them.

- ``gradient_stack(t, f, h0, h1, h2, axis, edge_order)``: ``np.gradient(t)`` along each axis,
  stacked on a new first axis; ``gradient_unstack`` turns such a stack into
  what ``np.gradient`` returns (a tuple, or one array for one axis).
- ``gradient_transpose``: the gradient with respect to ``f``.
- ``gradient_spacing_grad``/``gradient_spacing_stack``: the gradient with
  respect to spacing argument ``which``, and the stacked tangent it gives.

Example::

    >>> import numpy as np
    >>> gradient_transpose(np.ones(3), np.zeros(3))
    array([-1.5,  0. ,  1.5])
"""
from __future__ import annotations

import numpy as np

from .shapes import untake

OFFSETS = (-2, -1, 0, 1, 2)


def gradient_axes(f, axis=None):
    """The axes ``np.gradient(f, axis=axis)`` differentiates along, non-negative, in order.

    Example: ``gradient_axes(np.zeros((2, 3)))`` is ``[0, 1]``.
    """
    if axis is None:
        return list(range(np.ndim(f)))
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    return [int(a) % np.ndim(f) for a in axes]


def _spacing_of(k, count, h0, h1, h2):
    """The spacing argument used along the ``k``-th of ``count`` axes, and its position (None: the default 1)."""
    given = [h for h in (h0, h1, h2) if h is not None]
    if not given:
        return 1.0, None
    if len(given) == 1:
        return given[0], 0
    return given[k], k   # one per axis (np.gradient itself refuses other counts)


def _dx(spacing, n):
    """The ``n - 1`` distances between the samples: a number repeated, or the differences of coordinates."""
    if np.ndim(spacing) == 0:
        return np.full(n - 1, 1.0) * spacing
    return np.diff(spacing)


def gradient_weights(dx, edge_order=1):
    """The weights ``w_o`` (offsets -2..2, each of length ``len(dx) + 1``) of ``np.gradient`` along one axis.

    Example: ``gradient_weights(np.ones(2))[3]`` (offset +1) is ``array([1. , 0.5, 0. ])``.
    """
    d1, d2 = dx[:-1], dx[1:]
    s = d1 + d2
    zero = np.zeros(1)
    interior = [np.zeros(np.size(d1)), -d2 / (d1 * s), 1.0 / d1 - 1.0 / d2, d1 / (d2 * s), np.zeros(np.size(d1))]
    if edge_order == 1:
        first = [zero, zero, -1.0 / dx[:1], 1.0 / dx[:1], zero]
        last = [zero, -1.0 / dx[-1:], 1.0 / dx[-1:], zero, zero]
    else:
        e1, e2, f1, f2 = dx[:1], dx[1:2], dx[-2:-1], dx[-1:]
        first = [zero, zero, -(2.0 * e1 + e2) / (e1 * (e1 + e2)), (e1 + e2) / (e1 * e2), -e1 / (e2 * (e1 + e2))]
        last = [f2 / (f1 * (f1 + f2)), -(f1 + f2) / (f1 * f2), (2.0 * f2 + f1) / (f2 * (f1 + f2)), zero, zero]
    return [np.concatenate([first[o], interior[o], last[o]]) for o in range(5)]


def _dx_positions(n, edge_order):
    """For each sample: the positions in ``dx`` of the two distances its weights depend on."""
    low = np.concatenate([[0], np.arange(n - 2), [n - 2 if edge_order == 1 else n - 3]])
    return low, np.minimum(low + 1, n - 2)


def gradient_weight_partials(dx, edge_order=1):
    """The derivatives of ``gradient_weights(dx)``: for each offset, (with respect to the first distance a
    sample's weights depend on, with respect to the second), see ``_dx_positions``.

    Example: ``gradient_weight_partials(np.ones(2))[2][0]`` is ``array([ 1., -1.,  0.])``.
    """
    d1, d2 = dx[:-1], dx[1:]
    s = d1 + d2
    zero = np.zeros(1)
    interior = [(np.zeros(np.size(d1)), np.zeros(np.size(d1))),
                (d2 * (s + d1) / (d1 * s) ** 2, -1.0 / s ** 2),
                (-1.0 / d1 ** 2, 1.0 / d2 ** 2),
                (1.0 / s ** 2, -d1 * (s + d2) / (d2 * s) ** 2),
                (np.zeros(np.size(d1)), np.zeros(np.size(d1)))]
    if edge_order == 1:
        first = [(zero, zero), (zero, zero), (1.0 / dx[:1] ** 2, zero), (-1.0 / dx[:1] ** 2, zero), (zero, zero)]
        last = [(zero, zero), (1.0 / dx[-1:] ** 2, zero), (-1.0 / dx[-1:] ** 2, zero), (zero, zero), (zero, zero)]
    else:
        e1, e2, f1, f2 = dx[:1], dx[1:2], dx[-2:-1], dx[-1:]
        top, tail = e1 * (e1 + e2), f2 * (f1 + f2)
        first = [(zero, zero), (zero, zero),
                 (((2.0 * e1 + e2) ** 2 - 2.0 * top) / top ** 2, ((2.0 * e1 + e2) * e1 - top) / top ** 2),
                 (-1.0 / e1 ** 2, -1.0 / e2 ** 2),
                 (-e2 ** 2 / (e2 * (e1 + e2)) ** 2, e1 * (e1 + 2.0 * e2) / (e2 * (e1 + e2)) ** 2)]
        last = [(-f2 * (2.0 * f1 + f2) / (f1 * (f1 + f2)) ** 2, f1 ** 2 / (f1 * (f1 + f2)) ** 2),
                (1.0 / f1 ** 2, 1.0 / f2 ** 2),
                ((tail - (2.0 * f2 + f1) * f2) / tail ** 2, (2.0 * tail - (2.0 * f2 + f1) ** 2) / tail ** 2),
                (zero, zero), (zero, zero)]
    return [(np.concatenate([first[o][0], interior[o][0], last[o][0]]),
             np.concatenate([first[o][1], interior[o][1], last[o][1]])) for o in range(5)]


def _shifted(values, offset):
    """``values`` (axis last) moved so entry ``i`` holds ``values[..., i + offset]``, zeros past the ends."""
    n = np.shape(values)[-1]
    padded = np.pad(values, [(0, 0)] * (np.ndim(values) - 1) + [(2, 2)])
    return padded[..., 2 + offset:2 + offset + n]


def _per_axis(grad, f):
    """The gradient of each axis's result, from what ``np.gradient(f)``'s result got: a list or tuple, one
    array (one axis), or a stack of them (``gradient_restack``)."""
    return grad if isinstance(grad, (list, tuple)) or np.ndim(grad) == np.ndim(f) + 1 else [grad]


def gradient_stack(tangent, f, h0=None, h1=None, h2=None, axis=None, edge_order=1):
    """``np.gradient(tangent, spacings..., axis=axis, edge_order=edge_order)`` along each axis, stacked.

    Example: ``gradient_stack(np.arange(3.0), np.zeros(3))`` is ``array([[1., 1., 1.]])``.
    """
    spacings = [h for h in (h0, h1, h2) if h is not None]
    result = np.gradient(np.broadcast_to(tangent, np.shape(f)), *spacings, axis=axis, edge_order=edge_order)
    return np.stack(_per_axis(result, f))


def gradient_unstack(stacked, f, axis=None):
    """A stack of per-axis results as ``np.gradient(f, axis=axis)`` returns them: a tuple, or one array.

    Example: ``gradient_unstack(np.ones((1, 3)), np.zeros(3))`` is ``array([1., 1., 1.])``.
    """
    if len(gradient_axes(f, axis)) == 1:
        return stacked[0]
    return tuple(stacked[k] for k in range(np.shape(stacked)[0]))


def gradient_restack(grad, f, axis=None):
    """The per-axis gradients ``np.gradient``'s result got, stacked (the transpose of ``gradient_unstack``).

    Example: ``gradient_restack(np.ones(3), np.zeros(3))`` is ``array([[1., 1., 1.]])``.
    """
    return np.stack([np.broadcast_to(g, np.shape(f)) for g in _per_axis(grad, f)])


def gradient_transpose(grad, f, h0=None, h1=None, h2=None, axis=None, edge_order=1):
    """The gradient of ``np.gradient(f, h0, h1, h2, axis=axis, edge_order=edge_order)`` with respect to ``f``.

    Example: ``gradient_transpose(np.ones(3), np.zeros(3))`` is ``array([-1.5,  0. ,  1.5])``.
    """
    axes = gradient_axes(f, axis)
    total = np.zeros(np.shape(f))
    for k, g in enumerate(_per_axis(grad, f)):
        moved = np.moveaxis(np.broadcast_to(g, np.shape(f)), axes[k], -1)
        weights = gradient_weights(_dx(_spacing_of(k, len(axes), h0, h1, h2)[0], np.shape(moved)[-1]), edge_order)
        spread = np.zeros(np.shape(moved))
        for o in range(5):
            spread = spread + _shifted(weights[o] * moved, -OFFSETS[o])
        total = total + np.moveaxis(spread, -1, axes[k])
    return total


def _spacing_from_dx(grad_dx, spacing):
    """The gradient of a spacing argument from the gradient of the distances it gives."""
    if np.ndim(spacing) == 0:
        return np.sum(grad_dx)
    return -np.diff(np.concatenate([np.zeros(1), grad_dx, np.zeros(1)]))


def gradient_spacing_grad(grad, which, f, h0=None, h1=None, h2=None, axis=None, edge_order=1):
    """The gradient of ``np.gradient(f, h0, h1, h2, ...)`` with respect to spacing argument ``which``
    (a number, or coordinates along its axis).

    Example: ``gradient_spacing_grad(np.ones(3), 0, np.arange(3.0), 2.0)`` is ``-0.75``.
    """
    axes = gradient_axes(f, axis)
    spacing = (h0, h1, h2)[which]
    total = 0.0
    for k, g in enumerate(_per_axis(grad, f)):
        used, position = _spacing_of(k, len(axes), h0, h1, h2)
        if position != which:
            continue
        moved_f = np.moveaxis(np.broadcast_to(f, np.shape(f)), axes[k], -1)
        moved_g = np.moveaxis(np.broadcast_to(g, np.shape(f)), axes[k], -1)
        n = np.shape(moved_f)[-1]
        dx = _dx(used, n)
        low, high = _dx_positions(n, edge_order)
        partials = gradient_weight_partials(dx, edge_order)
        grad_dx = np.zeros(n - 1)
        for o in range(5):
            weight_grad = np.reshape(np.sum(moved_g * _shifted(moved_f, OFFSETS[o]), axis=tuple(range(np.ndim(f) - 1))),
                                     (n,))
            grad_dx = grad_dx + untake(weight_grad * partials[o][0], dx, low) + untake(weight_grad * partials[o][1],
                                                                                       dx, high)
        total = total + _spacing_from_dx(grad_dx, spacing)
    return total


def gradient_spacing_stack(tangent, which, f, h0=None, h1=None, h2=None, axis=None, edge_order=1):
    """The tangent of ``np.gradient(f, h0, h1, h2, ...)`` (stacked per axis) for the tangent ``tangent`` of
    spacing argument ``which``.

    Example: ``gradient_spacing_stack(1.0, 0, np.arange(3.0), 2.0)`` is ``array([[-0.25, -0.25, -0.25]])``.
    """
    axes = gradient_axes(f, axis)
    pieces = []
    for k in range(len(axes)):
        used, position = _spacing_of(k, len(axes), h0, h1, h2)
        moved_f = np.moveaxis(np.broadcast_to(f, np.shape(f)), axes[k], -1)
        n = np.shape(moved_f)[-1]
        piece = np.zeros(np.shape(moved_f))
        if position == which:
            dx = _dx(used, n)
            tangent_dx = _dx(tangent, n)
            low, high = _dx_positions(n, edge_order)
            partials = gradient_weight_partials(dx, edge_order)
            for o in range(5):
                weight_tangent = partials[o][0] * tangent_dx[low] + partials[o][1] * tangent_dx[high]
                piece = piece + weight_tangent * _shifted(moved_f, OFFSETS[o])
        pieces.append(np.moveaxis(piece, -1, axes[k]))
    return np.stack(pieces)
