"""Helpers that generated derivative code calls for rearranging, choosing and cleaning array elements.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name.  They serve the rules of ``np.rollaxis``
(``rollaxis_position``), ``np.partition`` (``matching_order``),
``np.select`` (``unselect``, ``select_rest``).  The index and mask helpers return integers or
booleans and carry no derivative; ``unselect`` is linear in the gradient it
moves.

Example::

    >>> import numpy as np
    >>> rollaxis_position(2, 0, 3)
    0
"""
from __future__ import annotations

import numpy as np

from .core import unbroadcast


def rollaxis_position(axis, start, ndim):
    """Where ``np.rollaxis(a, axis, start)`` puts axis ``axis`` of an ``ndim``-dimensional ``a``.

    Example: ``rollaxis_position(0, 3, 3)`` is ``2`` (``np.rollaxis`` moves
    axis 0 to the end, before position 3).
    """
    axis = axis % ndim
    start = start + ndim if start < 0 else start
    return start - 1 if axis < start else start


def _inverse_order(order, axis):
    """The permutation that undoes ``order`` (indices along ``axis``), in linear time."""
    inverse = np.empty_like(order)
    positions = np.arange(np.shape(order)[axis]).reshape([-1 if k == axis % np.ndim(order) else 1
                                                          for k in range(np.ndim(order))])
    np.put_along_axis(inverse, order, np.broadcast_to(positions, np.shape(order)), axis=axis)
    return inverse


def matching_order(y, a, axis=-1):
    """Indices ``i`` along ``axis`` with ``np.take_along_axis(a, i, axis) == y``, where ``y`` rearranges ``a``.

    ``y`` holds the elements of ``a`` in another order along ``axis`` (the
    result of ``np.partition``, whose order NumPy leaves open).  Both are
    sorted and matched value for value; equal values are matched in the
    order the sort leaves them, which the input fixes, so both modes make
    the same choice.  With ``axis=None`` both are read flattened.

    Example: ``matching_order(np.array([1.0, 3.0, 2.0]), np.array([3.0, 2.0, 1.0]))`` is ``array([2, 0, 1])``.
    """
    if axis is None:
        y, a, axis = np.ravel(y), np.ravel(a), 0
    order_a = np.argsort(a, axis=axis)
    return np.take_along_axis(order_a, _inverse_order(np.argsort(y, axis=axis), axis), axis=axis)


def _chosen_masks(condlist):
    """For ``np.select(condlist, ...)``: where each choice is taken (its condition is the first true one),
    and where none is."""
    taken, rest = [], np.ones(np.broadcast_shapes(*[np.shape(c) for c in condlist]), dtype=bool)
    for condition in condlist:
        taken.append(rest & condition)
        rest = rest & ~np.asarray(condition, dtype=bool)
    return taken, rest


def select_rest(condlist):
    """Where no condition of ``np.select(condlist, ...)`` holds (its ``default`` is taken there).

    Example: ``select_rest([np.array([True, False])])`` is ``array([False,  True])``.
    """
    return _chosen_masks(condlist)[1]


def unselect(grad, condlist, choicelist):
    """The gradient of ``np.select(condlist, choicelist, default)`` with respect to each choice, as a list.

    Each choice gets the gradient where its condition is the first one that
    holds, and 0 elsewhere, summed over the axes it was broadcast along.

    Example: ``unselect(np.array([1.0, 2.0]), [np.array([True, False])], [np.zeros(2)])``
    is ``[array([1., 0.])]``.
    """
    taken, _ = _chosen_masks(condlist)
    return [unbroadcast(np.where(mask, grad, 0.0), choice) for mask, choice in zip(taken, choicelist)]

