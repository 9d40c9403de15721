"""Helpers that generated derivative code calls for operations that move elements around.

Contract: like ``srcad.runtime``: every helper is a small pure function of
NumPy values (it never writes into an argument) and generated code imports it
by name.  Each ``un<op>`` helper takes the gradient of ``<op>``'s output and
the input(s) ``<op>`` was called with, and returns the gradient of those
inputs: an array shaped like the input, or a list with one gradient per item
when the input was a list or tuple of arrays.  The module also holds the
pieces srcad rewrites ``np.r_[...]``/``np.c_[...]`` into (``concat_item``,
``index_range``) and the weights of evenly spaced samples (``np.linspace``,
``np.logspace``, ``np.geomspace``: ``linspace_weights``, ``sample_axis``).

Example::

    >>> import numpy as np
    >>> untile(np.ones(6), np.zeros(3), 2)
    array([2., 2., 2.])
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import SrcadError
from .containers import joined_lists_error
from .dispatch import array_like, as_array, is_duck_array


def _per_item(pieces, items):
    """``pieces`` reshaped like ``items``: a list for a list/tuple, a stacked array for an array."""
    shaped = [np.reshape(piece, np.shape(item)) for piece, item in zip(pieces, items)]
    if isinstance(items, (list, tuple)):
        return shaped
    return np.stack(shaped) if shaped else np.zeros(np.shape(items))


def _split_back(grad, items, joined_shapes, axis):
    """``grad`` of a join along ``axis`` split into one piece per item (each item had ``joined_shapes[i]``)."""
    sizes = [shape[axis] for shape in joined_shapes]
    return _per_item(np.split(grad, np.cumsum(sizes)[:-1], axis=axis), items)


def unconcatenate(grad, arrays, axis=0):
    """The gradient of ``np.concatenate(arrays, axis)`` with respect to ``arrays``.

    Example: ``unconcatenate(np.arange(5.0), [np.zeros(2), np.zeros(3)])``
    is ``[array([0., 1.]), array([2., 3., 4.])]``.
    """
    if axis is None:
        return _split_back(np.ravel(grad), arrays, [(np.size(item),) for item in arrays], 0)
    if axis == 0 and grad.__class__ is np.ndarray and isinstance(arrays, (list, tuple)) \
            and all(item.__class__ is np.ndarray and item.ndim == grad.ndim for item in arrays):
        pieces, start = [], 0   # the common case: arrays of the gradient's rank, joined along axis 0
        for item in arrays:
            stop = start + item.shape[0]
            pieces.append(grad[start:stop])
            start = stop
        return pieces
    return _split_back(grad, arrays, [np.shape(item) for item in arrays], axis)


def unstack(grad, arrays, axis=0):
    """The gradient of ``np.stack(arrays, axis)`` with respect to ``arrays``.

    Example: ``unstack(np.array([[1.0, 2.0], [3.0, 4.0]]), [np.zeros(2), np.zeros(2)], axis=1)``
    is ``[array([1., 3.]), array([2., 4.])]``.
    """
    if axis == 0 and grad.__class__ is np.ndarray and isinstance(arrays, (list, tuple)):
        return [grad[i] for i in range(len(arrays))]   # rows of the gradient: each shaped like its item
    return _per_item([np.take(grad, i, axis=axis) for i in range(len(arrays))], arrays)


def unhstack(grad, arrays):
    """The gradient of ``np.hstack(arrays)``: 1-d items were joined along axis 0, others along axis 1.

    Example: ``unhstack(np.arange(3.0), [0.0, np.zeros(2)])`` is ``[array(0.), array([1., 2.])]``.
    """
    shapes = [np.shape(np.atleast_1d(item)) for item in arrays]
    return _split_back(grad, arrays, shapes, 0 if len(shapes[0]) == 1 else 1)


def unvstack(grad, arrays):
    """The gradient of ``np.vstack(arrays)``: items were made 2-d and joined along axis 0.

    Example: ``unvstack(np.arange(4.0).reshape(2, 2), [np.zeros(2), np.zeros(2)])``
    is ``[array([0., 1.]), array([2., 3.])]``.
    """
    return _split_back(grad, arrays, [np.shape(np.atleast_2d(item)) for item in arrays], 0)


def undstack(grad, arrays):
    """The gradient of ``np.dstack(arrays)``: items were made 3-d and joined along axis 2.

    Example: ``undstack(np.arange(2.0).reshape(1, 1, 2), [0.0, 0.0])`` is ``[array(0.), array(1.)]``.
    """
    return _split_back(grad, arrays, [np.shape(np.atleast_3d(item)) for item in arrays], 2)


def uncolumn_stack(grad, arrays):
    """The gradient of ``np.column_stack(arrays)``: 1-d items became columns, all joined along axis 1.

    Example: ``uncolumn_stack(np.arange(4.0).reshape(2, 2), [np.zeros(2), np.zeros(2)])``
    is ``[array([0., 2.]), array([1., 3.])]``.
    """
    shapes = [(np.size(item), 1) if np.ndim(item) < 2 else np.shape(item) for item in arrays]
    return _split_back(grad, arrays, shapes, 1)


def unrepeat(grad, like, repeats, axis=None):
    """The gradient of ``np.repeat(like, repeats, axis)``: each element gets the sum over its copies.

    Example: ``unrepeat(np.arange(4.0), np.zeros(2), 2)`` is ``array([1., 5.])``.
    """
    shape = np.shape(like)
    if axis is None:
        owner = np.repeat(np.arange(int(np.prod(shape))), repeats)
        flat, size = np.ravel(grad), int(np.prod(shape))
        summed = np.bincount(owner, weights=np.real(flat), minlength=size)
        if np.iscomplexobj(flat):   # bincount adds floats only: the imaginary parts on their own
            summed = summed + 1j * np.bincount(owner, weights=np.imag(flat), minlength=size)
        return np.reshape(summed, shape)
    axis = axis % len(shape)
    owner = np.repeat(np.arange(shape[axis]), repeats)
    moved = np.moveaxis(as_array(grad), axis, 0)
    result = np.zeros((shape[axis],) + moved.shape[1:], dtype=moved.dtype)
    np.add.at(result, owner, moved)
    return np.moveaxis(result, 0, axis)


def untile(grad, like, reps):
    """The gradient of ``np.tile(like, reps)``: each element gets the sum over its tiles.

    Example: ``untile(np.ones(6), np.zeros(3), 2)`` is ``array([2., 2., 2.])``.
    """
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    shape = np.shape(like)
    ndim = max(len(reps), len(shape))
    padded = (1,) * (ndim - len(shape)) + tuple(shape)
    reps = (1,) * (ndim - len(reps)) + reps
    tiled = np.reshape(grad, [n for pair in zip(reps, padded) for n in pair])
    return np.reshape(np.sum(tiled, axis=tuple(range(0, 2 * ndim, 2))), shape)


def _pad_widths(pad_width, ndim):
    return np.broadcast_to(np.asarray(pad_width, dtype=int), (ndim, 2))


def unpad(grad, like, pad_width, mode="constant"):
    """The gradient of ``np.pad(like, pad_width, mode)`` with respect to ``like``.

    ``mode='constant'`` keeps the interior; ``'edge'``, ``'reflect'``,
    ``'symmetric'`` and ``'wrap'`` also add each padded copy back to the
    element it copies.  Other modes compute new values and are not supported.

    Example: ``unpad(np.arange(4.0), np.zeros(2), 1)`` is ``array([1., 2.])``.
    """
    shape = np.shape(like)
    if mode == "constant":
        widths = _pad_widths(pad_width, len(shape))
        return grad[tuple(slice(before, before + n) for (before, _), n in zip(widths, shape))]
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise ValueError(f"srcad differentiates np.pad with mode 'constant', 'edge', 'reflect', 'symmetric' or "
                         f"'wrap', not {mode!r}")
    size = int(np.prod(shape))
    source = np.pad(np.arange(size).reshape(shape), pad_width, mode=mode)
    return np.reshape(np.bincount(np.ravel(source), weights=np.ravel(grad), minlength=size), shape)


def padding_mask(like, pad_width):
    """1 where ``np.pad(like, pad_width)`` holds the constant value, 0 where it holds ``like``.

    Example: ``padding_mask(np.zeros(2), 1)`` is ``array([1., 0., 0., 1.])``.
    """
    return np.pad(np.zeros(np.shape(like)), pad_width, constant_values=1.0)


def untake(grad, like, indices, axis=None, mode="raise"):
    """The gradient of ``np.take(like, indices, axis, mode=mode)``; repeated indices add up.

    Example: ``untake(np.array([1.0, 2.0]), np.zeros(3), [2, 2])`` is ``array([0., 0., 3.])``.
    """
    shape = np.shape(like)
    grad = as_array(grad)
    indices = as_array(indices)
    length = int(np.prod(shape)) if axis is None else shape[axis]
    if mode == "wrap":
        indices = indices % length
    elif mode == "clip":
        indices = np.clip(indices, 0, length - 1)
    if axis is None:
        result = np.zeros(length, dtype=grad.dtype)
        np.add.at(result, indices, grad)
        return np.reshape(result, shape)
    axis = axis % len(shape)
    result = np.zeros(shape, dtype=grad.dtype)
    moved_grad = np.moveaxis(grad, tuple(range(axis, axis + indices.ndim)), tuple(range(indices.ndim)))
    np.add.at(np.moveaxis(result, axis, 0), indices, moved_grad)
    return result


def untake_along_axis(grad, like, indices, axis=-1):
    """The gradient of ``np.take_along_axis(like, indices, axis)``; repeated indices add up.

    Example: ``untake_along_axis(np.array([1.0, 2.0]), np.zeros(3), np.array([0, 0]))``
    is ``array([3., 0., 0.])``.
    """
    grad = as_array(grad)
    if axis is None:
        result = np.zeros(np.size(like), dtype=grad.dtype)
        np.add.at(result, indices, grad)
        return np.reshape(result, np.shape(like))
    shape = np.shape(like)
    axis = axis % len(shape)
    index = [np.arange(n).reshape([n if k == i else 1 for k in range(len(shape))]) for i, n in enumerate(shape)]
    index[axis] = indices
    result = np.zeros(shape, dtype=grad.dtype)
    np.add.at(result, tuple(index), grad)
    return result


def undiag(grad, v, k=0):
    """The gradient of ``np.diag(v, k)``: the k-th diagonal of ``grad`` for a 1-d ``v``, else ``v`` with it placed.

    Example: ``undiag(np.arange(4.0).reshape(2, 2), np.zeros(2))`` is ``array([0., 3.])``.
    """
    if np.ndim(v) == 1:
        return np.diagonal(grad, k).copy()
    return undiagonal(grad, v, offset=k)


def undiagonal(grad, a, offset=0, axis1=0, axis2=1):
    """The gradient of ``np.diagonal(a, offset, axis1, axis2)``: zeros with ``grad`` on that diagonal.

    Example: ``undiagonal(np.array([1.0, 2.0]), np.zeros((2, 2)))`` is ``array([[1., 0.], [0., 2.]])``.
    """
    grad = as_array(grad)
    if is_duck_array(grad):
        return _placed_on_diagonal(grad, np.shape(a), offset, axis1, axis2)
    result = np.zeros(np.shape(a), dtype=grad.dtype if grad.dtype.kind in "fc" else float)
    view = np.moveaxis(result, (axis1, axis2), (-2, -1))
    rows, columns = view.shape[-2:]
    count = max(0, min(rows, columns - offset) if offset >= 0 else min(rows + offset, columns))
    i = np.arange(count) + max(0, -offset)
    view[..., i, i + offset] = grad
    return result


def _placed_on_diagonal(grad, shape, offset, axis1, axis2):
    """``undiagonal`` for a duck array ``grad`` (Dask, CuPy): a product with a constant 0/1 placement, since
    such an array cannot be written through a view of its diagonal."""
    rows, columns = shape[axis1], shape[axis2]
    count = np.shape(grad)[-1]
    placement = np.zeros((count, rows, columns), dtype=grad.dtype if grad.dtype.kind in "fc" else float)
    i = np.arange(count) + max(0, -offset)
    placement[np.arange(count), i, i + offset] = 1.0
    placed = np.tensordot(grad, array_like(placement, grad), axes=([-1], [0]))
    return np.moveaxis(placed, (-2, -1), (axis1 % len(shape), axis2 % len(shape)))


def untrace(grad, a, offset=0, axis1=0, axis2=1):
    """The gradient of ``np.trace(a, offset, axis1, axis2)``: ``grad`` on that diagonal, zeros elsewhere.

    Example: ``untrace(3.0, np.zeros((2, 2)))`` is ``array([[3., 0.], [0., 3.]])``.
    """
    diagonal_shape = np.shape(np.diagonal(np.empty(np.shape(a), dtype=bool), offset, axis1, axis2))
    return undiagonal(np.broadcast_to(as_array(grad)[..., None], diagonal_shape), a, offset, axis1, axis2)


def _natural_shape(obj):
    """The shape of ``np.array(obj)`` without ``ndmin``: nested lists add leading axes."""
    if isinstance(obj, (list, tuple)):
        return (len(obj),) + (_natural_shape(obj[0]) if len(obj) else ())
    return np.shape(obj)


def unarray(grad, obj):
    """The gradient of ``np.array(obj)`` (or ``np.asarray``) with respect to ``obj``: nested lists for nested lists.

    Example: ``unarray(np.array([[1.0, 2.0]]), [x])`` is ``[array([1., 2.])]`` for ``x`` of shape (2,).
    """
    if isinstance(grad, (list, tuple)) and isinstance(obj, (list, tuple)) and len(grad) != len(obj):
        raise joined_lists_error()   # ``[x] * 2``: the adjoint of a repeated list
    grad = np.reshape(grad, _natural_shape(obj))
    if isinstance(obj, (list, tuple)):
        return [unarray(piece, item) for piece, item in zip(grad, obj)]
    return grad


# --------------------------------------------------------------------------
# np.r_[...] and np.c_[...], as srcad rewrites them: np.concatenate of concat_items

def concat_item(item, ndmin=1, trans1d=-1, alone=False):
    """``item`` as ``np.r_``/``np.c_`` make each of their items before joining them.

    An array with at least ``ndmin`` axes: the axes it lacks (of length 1) go
    before its own, or, when ``trans1d`` is not -1, its own axes start at axis
    ``trans1d`` (``np.c_`` makes a 1-d item a column).  Errors, for what NumPy
    reads at run time and srcad cannot see: a string (a directive), and a
    tuple that is the whole index (``alone``: NumPy joins its items).

    Example: ``concat_item(np.ones(3), ndmin=2, trans1d=0).shape`` is ``(3, 1)``.
    """
    if isinstance(item, str):
        raise SrcadError(f"np.r_/np.c_ got the directive {item!r} from a variable; srcad reads a directive "
                         f"only when it is written in the brackets, e.g. np.r_['0,2', a, b]")
    if alone and isinstance(item, tuple):
        raise SrcadError("np.r_/np.c_ got its items as one tuple from a variable; write them in the brackets, "
                         "np.r_[a, b], or join them with np.concatenate")
    value = np.asanyarray(item)
    missing = ndmin - value.ndim
    if missing <= 0:
        return value
    front = trans1d + missing + 1 if trans1d < 0 else trans1d
    if not 0 <= front <= missing:
        raise ValueError(f"np.r_/np.c_: the directive's trans1d {trans1d} does not fit a {value.ndim}-d item "
                         f"made {ndmin}-d")
    return np.reshape(value, (1,) * front + value.shape + (1,) * (missing - front))


def index_range(start, stop, step):
    """``np.r_[start:stop:step]``: ``np.arange(start, stop, step)``, or ``np.linspace(start, stop, n)`` for an
    imaginary ``step`` ``nj``.  srcad calls it for a slice whose step it cannot see in the source.

    Example: ``index_range(0.0, 1.0, 3j)`` is ``array([0. , 0.5, 1. ])``.
    """
    return np.r_[start:stop:step]


# --------------------------------------------------------------------------
# evenly spaced samples: np.linspace, np.logspace, np.geomspace

def linspace_weights(samples, endpoint=True, axis=0):
    """The weight of ``stop`` in each of ``samples = np.linspace(start, stop, num, endpoint, axis=axis)``.

    Sample ``i`` is ``(1 - w) * start + w * stop`` with ``w = i / (num - 1)``
    (``i / num`` without the endpoint; 0 for a single sample, which is
    ``start``).  The weights lie along ``axis``; the other axes have length 1.

    Example: ``linspace_weights(np.linspace(0.0, 1.0, 3))`` is ``array([0. , 0.5, 1. ])``.
    """
    num = np.shape(samples)[axis]
    shape = [1] * np.ndim(samples)
    shape[axis] = num
    return np.reshape(np.arange(num) * linspace_step_weight(num, endpoint), shape)


def linspace_step_weight(num, endpoint=True):
    """The derivative of ``np.linspace(start, stop, num, endpoint, retstep=True)``'s step with respect to ``stop``
    (minus that with respect to ``start``): ``1 / (num - 1)``, or ``1 / num`` without the endpoint; 0 when
    there is no step (NumPy then gives a NaN step).

    Example: ``linspace_step_weight(5)`` is ``0.25``.
    """
    div = num - 1 if endpoint else num
    return 1.0 / div if div > 0 else 0.0


def sample_axis(value, samples, axis=0):
    """``value`` (a start, stop or base of ``samples = np.linspace(...)``) reshaped to broadcast against the samples.

    It gets leading axes of length 1 up to one sample's dimensions, then an
    axis of length 1 at ``axis``, where the samples lie.

    Example: ``sample_axis(np.zeros(2), np.zeros((2, 5)), axis=1).shape`` is ``(2, 1)``.
    """
    padded = np.reshape(value, (1,) * (np.ndim(samples) - 1 - np.ndim(value)) + np.shape(value))
    return np.expand_dims(padded, axis)
