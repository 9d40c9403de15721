"""The core runtime helpers: broadcasting, seeds, products and element shares.

Contract: every helper is a small pure function of NumPy values (``add_at``
excepted: it accumulates into an array the generated code owns).  None of them
reads or writes a user's argument in place.  Generated code imports them by
name from ``srcad.runtime``, so their names are part of the readable output:
keep them short and plain.  Helpers of other families live beside this module
(``reductions``, ``shapes``, ``linalg``, ``decompositions``), with the same
contract.

Example::

    >>> import numpy as np
    >>> unbroadcast(np.ones((2, 3)), np.zeros(3))
    array([2., 2., 2.])
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import SeedError, UnsupportedValueError
from .containers import add_structures, joined_lists_error
from .dispatch import as_array, is_duck_array


_SCALARS = frozenset({float, int, np.float64, np.float32, np.int64})


def unbroadcast(grad, like):
    """Sum ``grad`` over the axes NumPy broadcasting added to ``like``'s shape.

    Returns ``grad`` itself when the shapes already match, else a new array.
    """
    like_class, grad_class = like.__class__, grad.__class__
    if like_class in _SCALARS and grad_class in _SCALARS:   # the common scalar case, without np.shape
        return grad
    if like_class is list or like_class is tuple or grad_class is list or grad_class is tuple:
        return _sequence_operand_grad(grad, like)
    if like_class is np.ndarray and grad_class is np.ndarray:
        shape = like.shape
        if grad.shape == shape:
            return grad
    else:
        shape = np.shape(like)
        if np.shape(grad) == shape:
            return grad
    grad = as_array(grad)   # a Dask or CuPy array stays what it is
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad[()] if not shape or not grad.ndim else grad   # 0-d: a scalar, never changed in place


def array_copy(value):
    """``value.copy()`` of an array (or a NumPy scalar): what generated code runs for the method.

    The rules of ``np.copy`` hold for it.  A list's, tuple's, dict's or set's ``.copy()`` is a
    container of the same kind holding the same items, not an array, so it is refused: srcad would
    otherwise compute ``ys + ys`` of ``ys = xs.copy()`` as an array sum where Python joins two lists.

    Example::

        >>> array_copy(np.ones(2))
        array([1., 1.])
    """
    if value.__class__ in (list, tuple, dict, set):
        kind = value.__class__.__name__
        raise UnsupportedValueError(
            f"`.copy()` of a {kind}: srcad differentiates `.copy()` of arrays; write `{kind}(...)` of it "
            f"instead (`ys = {kind}(xs)`), which makes the same shallow copy")
    return np.copy(value)


def _sequence_operand_grad(grad, like):
    """``unbroadcast`` for a list or tuple operand: only a derivative of the same length fits it.

    Python's ``+`` and ``*`` join and repeat lists and tuples, where NumPy's add and multiply
    element by element; the rules of ``+`` and ``*`` are NumPy's, so a derivative of another
    length (``xs + [v]``, ``t + (v,)``, ``xs * 2``, or a list broadcast against an array) is refused
    rather than summed into a wrong one.
    """
    if grad.__class__ in (list, tuple) and like.__class__ in (list, tuple) and len(grad) == len(like):
        return grad
    try:
        if np.shape(grad) == np.shape(like):
            return grad
    except ValueError:   # ragged
        pass
    raise joined_lists_error()


def broadcast_like(tangent, like):
    """``tangent`` broadcast to the shape of ``like`` (forward mode's dual of ``unbroadcast``)."""
    shape = np.shape(like)
    if np.shape(tangent) == shape:
        return tangent
    if isinstance(like, (list, tuple)):
        raise joined_lists_error()
    if is_duck_array(like):   # like's own chunks or device: a product, not a view of one block
        return tangent * np.ones_like(like, dtype=_float_dtype(like))
    return np.broadcast_to(tangent, shape)


def _float_dtype(like):
    """``like``'s dtype when it is floating or complex, else float64: the dtype of a derivative shaped like it."""
    return like.dtype if like.dtype.kind in "fc" else np.float64


_SMALL = 4096   # elements: below this, a filled array is cheaper than a broadcast view


def unreduce(grad, like, axis=None, keepdims=False):
    """Spread the gradient of a reduction over ``axis`` back to ``like``'s shape."""
    if axis is None and like.__class__ is np.ndarray and like.size <= _SMALL:
        return np.full(like.shape, grad)   # for a small array, filling beats np.broadcast_to's overhead
    shape = np.shape(like)
    if axis is not None and not keepdims:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        grad = np.expand_dims(grad, tuple(a % len(shape) for a in axes))
    if is_duck_array(like):
        return grad * np.ones_like(like, dtype=_float_dtype(like))
    return np.broadcast_to(grad, shape)


def reduced_count(like, axis=None, ddof=0):
    """How many elements a reduction over ``axis`` combines, less ``ddof`` and never below 0
    (the divisor of ``np.var(like, axis, ddof=ddof)``)."""
    shape = np.shape(like)
    if axis is None:
        count = int(np.prod(shape)) if shape else 1
    else:
        axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
        count = int(np.prod([shape[a] for a in axes]))
    return max(count - ddof, 0) if ddof else count


def cast_gate(grad, dtype=None):
    """The derivative through a cast to ``dtype``: ``grad`` itself for a float or complex dtype, zero for an
    integer or bool one (rounding is piecewise constant, so its derivative is zero where it exists).

    Example: ``cast_gate(np.ones(2), int)`` is ``array([0., 0.])``; ``cast_gate(g, np.float32)`` is ``g``.
    """
    if dtype is None or np.dtype(dtype).kind not in "biu":
        return grad
    return zeros_like(grad)


def zeros_like(value):
    """A zero derivative shaped like ``value``: an array, a float, or a list/tuple/dict of them.

    A NumPy scalar (``np.float64(x)``) gets a NumPy scalar zero: immutable, so ``dx += g`` rebinds
    ``dx`` (generated code stores into the whole of ``dx`` that way, ``dx += g[..., 0]`` for the adjoint
    of ``x[..., None]``), even where ``dx``'s name held a value of another shape before.

    Example:
        >>> zeros_like(np.ones(2)), zeros_like(np.float64(3.0)), zeros_like(3.0)
        (array([0., 0.]), np.float64(0.0), 0.0)
    """
    if isinstance(value, np.ndarray):
        return np.zeros(value.shape, dtype=value.dtype if value.dtype.kind in "fc" else float)
    if is_duck_array(value):   # a Dask or CuPy array: its own zeros, lazily or on its device
        return np.zeros_like(value, dtype=value.dtype if value.dtype.kind in "fc" else float)
    if isinstance(value, (list, tuple)):
        return [zeros_like(item) for item in value]
    if isinstance(value, dict):
        return {key: zeros_like(item) for key, item in value.items()}
    if isinstance(value, (np.floating, np.complexfloating)):
        return value.dtype.type(0)
    return 0.0


def filled_like(adjoint, like):
    """``adjoint`` itself, or, when it is a plain float (the 0.0 a derivative starts from for a
    variable that may be unbound) and ``like`` is not, or has fewer dimensions than the array
    ``like``, a new array of ``like``'s shape holding it.

    Generated code calls it before storing into an adjoint element by element.
    """
    if adjoint.__class__ is float and like.__class__ is not float:
        zeros = zeros_like(like)
        return zeros if adjoint == 0.0 else zeros + adjoint
    if like.__class__ is np.ndarray and isinstance(adjoint, (np.ndarray, np.generic)) and adjoint.ndim < like.ndim:
        return zeros_like(like) + adjoint   # a zero that went through arithmetic is 0-d
    if is_duck_array(like) and hasattr(adjoint, "ndim") and adjoint.ndim < like.ndim:
        return zeros_like(like) + adjoint
    return adjoint


def _basic_index(index) -> bool:
    if isinstance(index, tuple):
        return all(_basic_index(i) for i in index)
    return index is None or index is Ellipsis or isinstance(index, (numbers.Integral, slice))


def add_at(target, index, grad):
    """``target[index] += grad`` that also adds repeated fancy indices; ``target`` is owned."""
    if target.__class__ is np.ndarray and index.__class__ is int:
        target[index] += grad
    elif isinstance(target, dict) and index not in target:
        target[index] = grad   # a key f's store added after the adjoint dict was made
    elif isinstance(target, (list, dict)):
        target[index] = add_structures(target[index], grad)
    elif _basic_index(index):
        target[index] += grad
    else:
        np.add.at(target, index, grad)
    return target


def keep_last(values, index, like):
    """``values`` (the adjoint ``like[index]`` passes to a store ``A[index] = v``) with zeros where a later
    position of ``index`` names the same element: a store with repeated indices keeps the last write only.

    Example: ``keep_last(np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1]), np.zeros(2))`` is
    ``array([0., 2., 3.])``.
    """
    if _basic_index(index) or not hasattr(like, "shape"):
        return values   # plain indices name each element once (the mask needs only like's shape)
    if index.__class__ is np.ndarray and index.ndim == 1 and index.dtype.kind in "iu" and like.ndim:
        positions = index % like.shape[0]   # the common case: cost grows with the index, not the array
        shape = positions.shape             # one entry per row the index names
    else:
        positions = np.arange(like.size).reshape(like.shape)[index].ravel()
        shape = np.shape(values)
    last = np.zeros(positions.size, dtype=bool)
    _, first_from_end = np.unique(positions[::-1], return_index=True)
    last[positions.size - 1 - first_from_end] = True
    if last.all():
        return values
    mask = last.reshape(shape)
    return np.where(mask.reshape(mask.shape + (1,) * (np.ndim(values) - mask.ndim)), values, 0.0)


def copied(value):
    """A copy of an array, or of a list/tuple/dict of them (scalars are immutable and come back as they are)."""
    if isinstance(value, np.ndarray) or is_duck_array(value):
        return value.copy()
    if isinstance(value, (list, tuple)):
        return [copied(item) for item in value]
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    return value


def check_seed(out, seed):
    """``seed``, checked against the output ``out`` (shape and structure).

    A Python-float seed takes the floating dtype of ``out`` (so float32 code
    stays float32).  Raises SeedError on a mismatch.
    """
    if isinstance(out, (tuple, list)):
        kind = type(out).__name__
        if not isinstance(seed, (tuple, list)) or len(seed) != len(out):
            raise SeedError(f"f returns a {kind} of {len(out)} values, so the seed must be a {kind} of "
                            f"{len(out)} values shaped like them")
        checked = [check_seed(item, item_seed) for item, item_seed in zip(out, seed)]
        return tuple(checked) if isinstance(out, tuple) else checked
    if isinstance(out, dict):
        if not isinstance(seed, dict) or set(seed) != set(out):
            raise SeedError(f"f returns a dict with keys {sorted(map(str, out))}, so the seed must be a dict "
                            f"with the same keys, each shaped like its value")
        return {key: check_seed(value, seed[key]) for key, value in out.items()}
    if seed.__class__ is float and out.__class__ in (float, np.float64):
        return seed
    if np.shape(out) != np.shape(seed):
        if np.shape(seed) == () and np.ndim(out):
            raise SeedError(
                f"grad needs f to return a scalar, but it returned an array of shape {np.shape(out)}; "
                f"reduce it (e.g. with np.sum) or use srcad.autodiff(f) and pass a seed of that shape")
        raise SeedError(f"the seed has shape {np.shape(seed)} but f's output has shape {np.shape(out)}; "
                        f"pass a seed shaped like the output")
    dtype = getattr(out, "dtype", None)
    if isinstance(seed, float) and dtype is not None and dtype.kind == "f" and dtype != np.float64:
        return dtype.type(seed)
    return seed


def transpose_axes_inverse(axes, ndim):
    """The axes that undo ``np.transpose(x, axes)`` on an ``ndim``-dimensional array."""
    if axes is None:
        return None
    return tuple(np.argsort([a % ndim for a in axes]))


def _duck_operands(*values) -> bool:
    """Whether ``values`` are all arrays (NumPy or duck) and one is a duck array: a product of them may take the
    two-dimensional shortcuts (``grad @ a``), which a chunked Dask array runs as one reduction."""
    return all(hasattr(value, "ndim") for value in values) and any(is_duck_array(value) for value in values)


def matmul_lhs_grad(grad, a, b):
    """The gradient of ``a @ b`` with respect to ``a``."""
    if (a.__class__ is np.ndarray and b.__class__ is np.ndarray and grad.__class__ is np.ndarray
            or _duck_operands(grad, a, b)) and a.ndim == 2 and grad.ndim == b.ndim:   # the common matrix cases
        if b.ndim == 1:
            return grad[:, None] * b
        if b.ndim == 2:
            return grad @ b.T
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if b_nd == 1:
        result = np.multiply.outer(grad, b) if a_nd > 1 else grad * b
    elif a_nd == 1:
        result = np.matmul(b, grad[..., None])[..., 0] if np.ndim(grad) > 1 else np.matmul(b, grad)
        return unbroadcast(result, a)
    else:
        result = np.matmul(grad, np.swapaxes(b, -1, -2))
    return unbroadcast(result, a)


def matmul_rhs_grad(grad, a, b):
    """The gradient of ``a @ b`` with respect to ``b``."""
    if (a.__class__ is np.ndarray and b.__class__ is np.ndarray and grad.__class__ is np.ndarray
            or _duck_operands(grad, a, b)) and a.ndim == 2 and grad.ndim == b.ndim:   # matrix @ vector, matrix
        if b.ndim == 1:
            return grad @ a
        if b.ndim == 2:
            return a.T @ grad
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 1:
        result = np.multiply.outer(a, grad) if b_nd > 1 else a * grad
        if b_nd > 2:
            result = np.moveaxis(result, 0, -2)
    elif b_nd == 1:
        result = np.matmul(grad[..., None, :], a)[..., 0, :]
    else:
        result = np.matmul(np.swapaxes(a, -1, -2), grad)
    return unbroadcast(result, b)


def dot_lhs_grad(grad, a, b):
    """The gradient of ``np.dot(a, b)`` with respect to ``a`` (any dimensions)."""
    if a.__class__ is np.ndarray and b.__class__ is np.ndarray and 0 < a.ndim <= 2 and 0 < b.ndim <= 2 \
            and (a.ndim == 1 and b.ndim == 1 or grad.__class__ is np.ndarray):   # as matmul: no tensordot
        if b.ndim == 1:
            return grad * b if a.ndim == 1 else grad[:, None] * b
        return b @ grad if a.ndim == 1 else grad @ b.T
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return unbroadcast(grad * b, a)
    if b_nd == 1:
        return np.multiply.outer(grad, b)
    contract = [i for i in range(b_nd) if i != b_nd - 2]
    grad_axes = list(range(a_nd - 1, a_nd - 1 + b_nd - 1))
    return np.tensordot(grad, b, axes=(grad_axes, contract))


def dot_rhs_grad(grad, a, b):
    """The gradient of ``np.dot(a, b)`` with respect to ``b`` (any dimensions)."""
    if a.__class__ is np.ndarray and b.__class__ is np.ndarray and 0 < a.ndim <= 2 and 0 < b.ndim <= 2 \
            and (a.ndim == 1 and b.ndim == 1 or grad.__class__ is np.ndarray):   # as matmul: no tensordot
        if a.ndim == 1:
            return grad * a if b.ndim == 1 else a[:, None] * grad
        return grad @ a if b.ndim == 1 else a.T @ grad
    a_nd, b_nd = np.ndim(a), np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        return unbroadcast(grad * a, b)
    lead = list(range(a_nd - 1))
    result = np.tensordot(a, grad, axes=(lead, lead))
    if b_nd >= 2:
        result = np.moveaxis(result, 0, -2)
    return result


def maximum_share(x, y):
    """Where ``maximum(x, y)`` takes ``x``: 1, 0, or 0.5 at ties (the gradient is split)."""
    return (x > y) + 0.5 * (x == y)


# --------------------------------------------------------------------------
# elementwise shares (where a piecewise function takes which operand)

def _float_like(value, like):
    """``value`` in ``like``'s floating dtype when ``like`` is a float32/float16 array, else as is."""
    dtype = getattr(like, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype != np.float64:
        return value.astype(dtype) if is_duck_array(value) else np.asarray(value, dtype=dtype)
    return value


def fmax_share(x, y):
    """Where ``np.fmax(x, y)`` takes ``x``: like ``maximum_share``, and 1 where ``y`` is NaN, 0 where ``x`` is.

    Example: ``fmax_share(np.array([1.0, np.nan]), np.array([1.0, 2.0]))`` is ``array([0.5, 0. ])``.
    """
    return np.where(np.isnan(y), 1.0, np.where(np.isnan(x), 0.0, maximum_share(x, y)))


def fmin_share(x, y):
    """Where ``np.fmin(x, y)`` takes ``x``: like ``maximum_share(y, x)``, and 1 where ``y`` is NaN, 0 where ``x`` is.

    Example: ``fmin_share(np.array([1.0, 3.0]), np.array([2.0, np.nan]))`` is ``array([1., 1.])``.
    """
    return np.where(np.isnan(y), 1.0, np.where(np.isnan(x), 0.0, maximum_share(y, x)))


def clip_share(a, a_min=None, a_max=None):
    """Where ``np.clip(a, a_min, a_max)`` takes ``a``: 1 inside the closed interval (bounds included), else 0.

    Example: ``clip_share(np.array([-2.0, 0.0, 2.0]), 0.0, 1.0)`` is ``[0., 1., 0.]``.
    """
    inside = np.ones_like(a, dtype=bool) if is_duck_array(a) else np.ones(np.shape(a), dtype=bool)
    if a_min is not None:
        inside = inside & (a >= a_min)
    if a_max is not None:
        inside = inside & (a <= a_max)
    return _float_like(inside * 1.0, a)


def digamma(x):
    """The digamma function ``psi(x) = d/dx log(gamma(x))`` of a float, without SciPy (for ``math.gamma``).

    Example: ``digamma(1.0)`` is ``-0.5772156649015...`` (minus Euler's constant).
    """
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.5:   # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    shift = 0.0
    while x < 10.0:   # psi(x) = psi(x + 1) - 1/x, until the asymptotic series is accurate
        shift -= 1.0 / x
        x += 1.0
    inv = 1.0 / (x * x)
    series = inv * (1 / 12 - inv * (1 / 120 - inv * (1 / 252 - inv * (1 / 240 - inv / 132))))
    return shift + math.log(x) - 0.5 / x - series


def polygamma(n, x):
    """The ``n``-th derivative (``n >= 1``) of ``digamma`` at the float ``x``, without SciPy.

    Example: ``polygamma(1, 1.0)`` is ``1.6449340668...`` (pi**2 / 6).
    """
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    sign = 1.0 if n % 2 else -1.0          # (-1) ** (n + 1)
    total = 0.0
    while x < 20.0:   # psi_n(x) = psi_n(x + 1) + (-1)**(n+1) n! / x**(n+1), until the series is accurate
        total += sign * math.factorial(n) / x ** (n + 1)
        x += 1.0
    series = math.factorial(n - 1) / x ** n + math.factorial(n) / (2.0 * x ** (n + 1))
    for k, bernoulli in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730), start=1):
        series += bernoulli * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
    return total + sign * series


def sinc_slope(x):
    """The derivative of ``np.sinc`` at ``x``: ``(cos(pi x) - sinc(x)) / x``, and 0 at 0.

    Example: ``sinc_slope(0.0)`` is ``array(0.)``.
    """
    x = as_array(x)
    safe = np.where(x == 0, 1.0, x)
    return np.where(x == 0, 0.0, (np.cos(np.pi * safe) - np.sinc(safe)) / safe)
