"""Helpers that generated derivative code calls for reductions, cumulative operations and Python's builtins.

Contract: like ``srcad.runtime``: small pure functions of NumPy values that
generated code imports by name.  ``*_share``/``*_weights``/``*_others``
helpers return, for each input element, the derivative of the reduction's
result with respect to that element (shaped like the input); ``un*`` and
``*_grad`` helpers turn an output gradient into the input's gradient;
``*_tangent`` helpers are linear in the tangent they take.

Example::

    >>> import numpy as np
    >>> extreme_share(np.array([1.0, 3.0, 3.0]), 3.0)
    array([0. , 0.5, 0.5])
"""
from __future__ import annotations

import numbers

import numpy as np

from .core import _float_like, unbroadcast, unreduce
from .dispatch import as_array


def extreme_share(x, result, axis=None, keepdims=False):
    """Where a max/min reduction of ``x`` over ``axis`` is attained: ``1/k`` at each of ``k`` tied extremes, else 0.

    Example: ``extreme_share(np.array([1.0, 3.0, 3.0]), 3.0)`` is ``[0., 0.5, 0.5]``.
    """
    hit = x == unreduce(result, x, axis=axis, keepdims=keepdims)
    return _float_like(hit / np.sum(hit, axis=axis, keepdims=True), x)


def ptp_share(x, axis=None):
    """The derivative of ``np.ptp(x, axis)`` with respect to each element: max share minus min share.

    Example: ``ptp_share(np.array([1.0, 5.0, 3.0]))`` is ``array([-1., 1., 0.])``.
    """
    highest = np.max(x, axis=axis, keepdims=True)
    lowest = np.min(x, axis=axis, keepdims=True)
    return extreme_share(x, highest, axis=axis, keepdims=True) - extreme_share(x, lowest, axis=axis, keepdims=True)


def _axes(axis, ndim):
    """``axis`` (None, an int or a tuple) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):   # a branch of its own: srcad differentiates prod's helpers again
        return (axis % ndim,)
    return tuple(a % ndim for a in axis)


def prod_others(x, axis=None):
    """For each element, the product of the others it is reduced with by ``np.prod(x, axis)``.

    That is the derivative of the product with respect to the element; it is
    computed without dividing, so it is exact where ``x`` has zeros.
    Example: ``prod_others(np.array([2.0, 0.0, 5.0]))`` is ``[0., 10., 0.]``.
    """
    x = as_array(x)
    if x.ndim == 0:
        return np.ones_like(x)
    axes = _axes(axis, x.ndim)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, last)
    flat = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
    ones = np.ones_like(flat[..., :1])
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.moveaxis((before * after).reshape(moved.shape), last, axes)


def _prod_others_multilinear(x, directions, axis):
    """For each element ``i``: the sum, over distinct other elements ``j1, ..., jm`` of its group, of
    ``t1[j1] ... tm[jm]`` times the product of the group's remaining elements.

    That is the ``m``-th derivative of ``prod_others`` along ``directions``; it
    is the coefficient of ``e1 ... em`` in the product of ``x + e1 t1 + ... +
    em tm`` over the others (with ``e * e = 0``), formed by running products,
    so it is exact where ``x`` has zeros.
    """
    x = as_array(x)
    m = len(directions)
    if x.ndim == 0:
        return np.zeros_like(x * 1.0)
    axes = _axes(axis, x.ndim)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    layout = np.moveaxis(x, axes, last).shape

    def grouped(value):
        moved = np.moveaxis(np.broadcast_to(value, x.shape), axes, last)
        return moved.reshape(layout[:x.ndim - len(axes)] + (-1,))

    factors = [grouped(x)] + [grouped(t) for t in directions]   # the coefficients of 1, e1, ..., em
    batch, length = factors[0].shape[:-1], factors[0].shape[-1]
    dtype = np.result_type(*factors, 1.0)

    def running(order):
        """Exclusive running products, in the algebra of ``e1..em`` (one coefficient per subset)."""
        product = np.zeros((2 ** m,) + batch, dtype=dtype)
        product[0] = 1.0
        result = np.zeros((2 ** m,) + batch + (length,), dtype=dtype)
        for k in order:
            result[..., k] = product
            grown = product * factors[0][..., k]
            for subset in range(1, 2 ** m):
                for l in range(m):
                    if subset >> l & 1:
                        grown[subset] += product[subset ^ (1 << l)] * factors[l + 1][..., k]
            product = grown
        return result

    before, after = running(range(length)), running(range(length - 1, -1, -1))
    full = 2 ** m - 1
    total = sum(before[subset] * after[full ^ subset] for subset in range(2 ** m) if subset & full == subset)
    return np.moveaxis(total.reshape(layout), last, axes)


def prod_others_tangent(t, x, axis=None):
    """The tangent of ``prod_others(x, axis)`` along ``t``: for each element, the sum over the
    others ``j`` of ``t[j]`` times the product of the rest; exact where ``x`` has zeros.

    Example: ``prod_others_tangent(np.array([1.0, 0.0, 0.0]), np.array([2.0, 3.0, 5.0]))``
    is ``array([0., 5., 3.])``.
    """
    return _prod_others_multilinear(x, [t], axis)


def prod_others_tangent2(t1, t2, x, axis=None):
    """The second derivative of ``prod_others(x, axis)`` along ``t1`` and ``t2`` (see ``prod_others_tangent``).

    Example: ``prod_others_tangent2(np.ones(3), np.ones(3), np.array([2.0, 3.0, 5.0]))``
    is ``array([2., 2., 2.])``.
    """
    return _prod_others_multilinear(x, [t1, t2], axis)


def prod_others_tangent3(t1, t2, t3, x, axis=None):
    """The third derivative of ``prod_others(x, axis)`` along ``t1``, ``t2`` and ``t3``.

    Example: ``prod_others_tangent3(np.ones(4), np.ones(4), np.ones(4), np.arange(4.0))``
    is ``array([6., 6., 6., 6.])``.
    """
    return _prod_others_multilinear(x, [t1, t2, t3], axis)


def prod_others_tangent4(t1, t2, t3, t4, x, axis=None):
    """The fourth derivative of ``prod_others(x, axis)`` along ``t1`` to ``t4`` (see ``prod_others_tangent``).

    It is written with products, sums, flips and stacks only (no stores, no
    lists that grow), so srcad differentiates its source, and the source of
    that derivative, again: ``np.prod``'s derivatives beyond the fifth come
    from here, to any order, exact where ``x`` has zeros.  Its running
    products gather their columns by a sum of one-hot columns, which is
    quadratic in the length of the reduced axes.

    Example: ``prod_others_tangent4(*[np.ones(5)] * 4, np.arange(5.0))`` is ``array([24., 24., 24., 24., 24.])``.
    """
    x = as_array(x)
    if x.ndim == 0:
        return np.zeros_like(x * 1.0)
    axes = _axes(axis, x.ndim)
    last = tuple(range(x.ndim - len(axes), x.ndim))
    layout = np.moveaxis(x, axes, last).shape
    factors = np.stack([_grouped(x, x, axes, last, layout), _grouped(t1, x, axes, last, layout),
                        _grouped(t2, x, axes, last, layout), _grouped(t3, x, axes, last, layout),
                        _grouped(t4, x, axes, last, layout)])   # the coefficients of 1, e1, ..., e4
    before = _running_products(factors)
    after = np.flip(_running_products(np.flip(factors, -1)), -1)
    total = np.sum(before * after[_complements(4)], axis=0)
    return np.moveaxis(np.reshape(total, layout), last, axes)


def _grouped(value, x, axes, last, layout):
    """``value`` broadcast to ``x``'s shape, its reduced axes moved last and flattened into one."""
    moved = np.moveaxis(np.broadcast_to(value, np.shape(x)), axes, last)
    return np.reshape(moved, layout[:len(layout) - len(axes)] + (-1,))


def _running_products(factors):
    """The exclusive running products along the last axis of ``factors`` (stacked first: the coefficients
    of 1, e1, ..., em of each element), in the algebra of ``e1..em`` with ``e * e = 0``: one coefficient per
    subset of ``e1..em`` (as in ``_complements``), stacked first."""
    count, length = np.shape(factors)[0] - 1, np.shape(factors)[-1]
    smaller, holds = _subset_shifts(count, np.ndim(factors) - 2)
    product = _empty_subset(count, np.shape(factors)[1:-1])
    result = 0.0
    for k in range(length):
        result = result + product[..., None] * _one_hot(length, k)
        grown = product * factors[0][..., k]
        for l in range(count):
            grown = grown + product[smaller[l]] * holds[l] * factors[l + 1][..., k]
        product = grown
    return result


def _complements(count):
    """The complement of each subset of ``e1..em`` (``m = count``), a subset written as the integer whose
    bit ``l`` says whether ``e(l+1)`` is in it.

    Example: ``_complements(2)`` is ``array([3, 2, 1, 0])``.
    """
    return (2 ** count - 1) - np.arange(2 ** count)


def _subset_shifts(count, batch_ndim):
    """``(smaller, holds)``: for each ``e(l+1)`` and subset, the subset with ``e(l+1)`` removed, and 1.0 where
    the subset holds ``e(l+1)``, else 0.0 (with ``batch_ndim`` axes of length 1 to broadcast): multiplying a
    running product by ``e(l+1) t`` moves each coefficient to the subset with ``e(l+1)`` added.

    Example: ``_subset_shifts(1, 0)`` is ``(array([[1, 0]]), array([[0., 1.]]))``.
    """
    subsets = np.arange(2 ** count)
    smaller = np.array([subsets ^ (1 << l) for l in range(count)], dtype=int).reshape(count, 2 ** count)
    holds = np.array([subsets >> l & 1 for l in range(count)], dtype=float).reshape(count, 2 ** count)
    return smaller, np.reshape(holds, holds.shape + (1,) * batch_ndim)


def _empty_subset(count, batch):
    """The running product before any element: 1 on the empty subset, 0 on the others, shaped ``(2 ** count,)
    + batch``.

    Example: ``_empty_subset(1, (2,))`` is ``array([[1., 1.], [0., 0.]])``.
    """
    return np.reshape(np.arange(2 ** count) == 0, (2 ** count,) + (1,) * len(batch)) * np.ones(batch)


def _one_hot(length, k):
    """1.0 at ``k`` and 0.0 elsewhere, of length ``length``.

    Example: ``_one_hot(3, 1)`` is ``array([0., 1., 0.])``.
    """
    return (np.arange(length) == k).astype(float)


def logsumexp_weights(a, result, b=None, axis=None, keepdims=False):
    """The derivative of ``result = scipy.special.logsumexp(a, axis, b, keepdims)`` with respect to each ``a``.

    That is ``b * exp(a - result)``; without ``b``, ``a <= result``, so it
    never overflows.

    Example: ``logsumexp_weights(np.array([0.0, 0.0]), np.log(2.0))`` is ``array([0.5, 0.5])``.
    """
    weights = np.exp(a - unreduce(result, a, axis=axis, keepdims=keepdims))
    return weights if b is None else b * weights


def nanmean_weights(x, axis=None):
    """The weight of each element in ``np.nanmean(x, axis)``: ``1/count`` of the non-NaN elements, 0 at NaN.

    Example: ``nanmean_weights(np.array([1.0, np.nan, 3.0]))`` is ``array([0.5, 0. , 0.5])``.
    """
    present = ~np.isnan(x)
    return _float_like(present / np.sum(present, axis=axis, keepdims=True), x)


def nan_centered(t, x, axis=None):
    """``t`` less its mean over the elements where ``x`` is not NaN (along ``axis``), and 0 where ``x`` is NaN.

    ``nan_centered(x, x)`` is ``x - np.nanmean(x, keepdims=True)`` with zeros at the NaNs; it is linear
    in ``t`` (``x`` only says which elements count), and symmetric, so it is its own adjoint.

    Example: ``nan_centered(np.array([1.0, 2.0, 3.0]), np.array([1.0, np.nan, 3.0]))`` is ``array([-1., 0., 1.])``.
    """
    present = ~np.isnan(x)
    t = np.where(present, t, 0.0)
    count = np.maximum(np.sum(present, axis=axis, keepdims=True), 1)
    return np.where(present, t - np.sum(t, axis=axis, keepdims=True) / count, 0.0)


def nan_count(x, axis=None, ddof=0):
    """How many elements of ``x`` are not NaN along ``axis`` (kept as axes of length 1), less ``ddof``
    and never below 0: the divisor of ``np.nanvar(x, axis, ddof=ddof)``.

    Example: ``nan_count(np.array([[1.0, np.nan], [2.0, 3.0]]), axis=1)`` is ``array([[1], [2]])``.
    """
    return np.maximum(np.sum(~np.isnan(x), axis=axis, keepdims=True) - ddof, 0)


def uncumsum(grad, like, axis=None):
    """The gradient of ``np.cumsum(like, axis)``: the sum of ``grad`` from each position to the end.

    Example: ``uncumsum(np.ones(3), np.zeros(3))`` is ``array([3., 2., 1.])``.
    """
    if axis is None:
        return np.reshape(np.cumsum(np.ravel(grad)[::-1])[::-1], np.shape(like))
    return np.flip(np.cumsum(np.flip(grad, axis), axis=axis), axis)


def _to_last_axis(x, axis):
    """``x`` with ``axis`` last (raveled when ``axis`` is None)."""
    return np.ravel(x) if axis is None else np.moveaxis(as_array(x), axis, -1)


def _cumprod_without(x, i):
    """The running product of ``x`` along its last axis, with element ``i`` taken as 1."""
    others = np.array(x, copy=True)
    others[..., i] = 1
    return np.cumprod(others, axis=-1)


def cumprod_grad(grad, x, axis=None):
    """The gradient of ``np.cumprod(x, axis)``; exact where ``x`` has zeros.

    Without zeros it is ``uncumsum(grad * y) / x``; with zeros every partial
    product is formed explicitly (quadratic in the axis length).

    Example: ``cumprod_grad(np.ones(2), np.array([2.0, 0.0]))`` is ``array([1., 2.])``.
    """
    xs, gs = _to_last_axis(x, axis), _to_last_axis(grad, axis)
    if np.all(xs != 0):
        result = np.flip(np.cumsum(np.flip(gs * np.cumprod(xs, axis=-1), -1), axis=-1), -1) / xs
    else:
        result = np.zeros(np.broadcast_shapes(xs.shape, gs.shape), dtype=np.result_type(xs, gs))
        for i in range(xs.shape[-1]):
            result[..., i] = np.sum(gs[..., i:] * _cumprod_without(xs, i)[..., i:], axis=-1)
    return np.reshape(result, np.shape(x)) if axis is None else np.moveaxis(result, -1, axis)


def cumprod_tangent(tangent, x, axis=None):
    """The tangent of ``np.cumprod(x, axis)`` for the input tangent ``tangent``; exact where ``x`` has zeros.

    Example: ``cumprod_tangent(np.array([1.0, 0.0]), np.array([2.0, 3.0]))`` is ``array([1., 3.])``.
    """
    xs, ts = _to_last_axis(x, axis), _to_last_axis(tangent, axis)
    if np.all(xs != 0):
        result = np.cumprod(xs, axis=-1) * np.cumsum(ts / xs, axis=-1)
    else:
        result = np.zeros(np.broadcast_shapes(xs.shape, ts.shape), dtype=np.result_type(xs, ts))
        for i in range(xs.shape[-1]):
            result[..., i:] += ts[..., i:i + 1] * _cumprod_without(xs, i)[..., i:]
    return result if axis is None else np.moveaxis(result, -1, axis)


# --------------------------------------------------------------------------
# Python's builtins sum, min and max

def unsum(grad, iterable):
    """The gradient of the builtin ``sum(iterable)`` with respect to ``iterable``.

    A list or tuple gets a list with ``grad`` for each item; an array (summed
    over its first axis) gets ``grad`` broadcast to its shape.
    Example: ``unsum(2.0, [1.0, 3.0])`` is ``[2.0, 2.0]``.
    """
    if isinstance(iterable, (list, tuple)):
        return [unbroadcast(grad, item) for item in iterable]
    return np.broadcast_to(grad, np.shape(iterable))


def extremum_share(value, result, other=None):
    """How much of the gradient of the builtin ``max``/``min`` goes to ``value``.

    ``max(a, b)`` (``other`` is ``b``): 1 if ``a`` was taken, 0 if not, 0.5
    at a tie.  ``max(iterable)`` (no ``other``): for each item, 1/k if it is
    one of the k items equal to the result, else 0 (a list for a list).
    Example: ``extremum_share([1.0, 3.0, 3.0], 3.0)`` is ``[0.0, 0.5, 0.5]``.
    """
    if other is not None:
        return (value == result) - 0.5 * (value == other)
    if isinstance(value, (list, tuple)):
        hits = [float(item == result) for item in value]
        return [hit / sum(hits) for hit in hits]
    hit = as_array(value) == result
    return hit / np.sum(hit)


def extremum_grad(grad, value, result, other=None):
    """The gradient of the builtin ``max``/``min`` with respect to ``value`` (see ``extremum_share``).

    Example: ``extremum_grad(1.0, 2.0, 2.0, other=2.0)`` is ``0.5``.
    """
    share = extremum_share(value, result, other)
    if isinstance(share, list):
        return [grad * s for s in share]
    return grad * share


def extremum_tangent(tangent, value, result, other=None):
    """The tangent of the builtin ``max``/``min`` contributed by ``value``'s tangent (see ``extremum_share``).

    Example: ``extremum_tangent(1.0, 3.0, 3.0, other=1.0)`` is ``1.0``.
    """
    share = extremum_share(value, result, other)
    if isinstance(share, list):
        return sum(t * s for t, s in zip(tangent, share))
    if other is None:
        return np.sum(tangent * share)
    return tangent * share
