"""The runtime helpers of derivatives compiled by numba: ``srcad.runtime``'s, for floats and float arrays.

Contract: each helper has the name and the meaning of its ``srcad.runtime``
namesake for the values numba derivatives see (Python floats and float
arrays); numba compiles the overload registered here.  Called from plain
Python they run the ``srcad.runtime`` helper.  Where the NumPy helper would
broadcast between shapes known only when it runs (``unbroadcast`` of two
arrays of the same rank but different shapes) the compiled helper raises
``ValueError`` naming ``backend="numpy"`` rather than guess.  Importing this
module imports numba.

Example::

    >>> import numba
    >>> from srcad.backends.numba_runtime import zeros_like
    >>> numba.njit(lambda x: zeros_like(x))(2.0)
    0.0
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..runtime import containers, core, limits

__all__ = ["check_seed", "zeros_like", "unbroadcast", "unreduce", "copied", "check_unpacking", "array_copy",
           "holds_nan", "float_stack",
           "grown", "as_float", "xlogy", "xdivy",
           "reserved", "trip_count"]

_SHAPES_DIFFER = "the gradient's shape differs from its variable's; use backend=\"numpy\""
_SEED_SHAPE = "the seed's shape differs from f's output; pass a seed shaped like f(...)"


def check_seed(out, seed):
    """``seed`` checked against the output ``out`` (compiled: floats and float arrays)."""
    return core.check_seed(out, seed)


def zeros_like(value):
    """A zero derivative shaped like ``value`` (compiled: a float or a float array)."""
    return core.zeros_like(value)


def unbroadcast(grad, like):
    """``grad`` summed back to ``like``'s shape (compiled: equal shapes, or a scalar on either side)."""
    return core.unbroadcast(grad, like)


def unreduce(grad, like):
    """The gradient of a whole-array reduction spread back over ``like``."""
    return core.unreduce(grad, like)


def copied(value):
    """A copy of an array; a scalar as it is."""
    return core.copied(value)


@njit(cache=True)
def float_stack():
    """An empty stack of floats: ``(storage, top)``, storage doubling when full (a tape of numbers)."""
    return np.empty(64), 0


@njit(cache=True)
def grown(stack):
    """``stack``'s values in storage twice as long."""
    larger = np.empty(2 * len(stack))
    larger[:len(stack)] = stack
    return larger


@njit(cache=True)
def reserved(stack, needed):
    """``stack``, or its values in storage long enough for ``needed`` (at least twice as long)."""
    if needed <= len(stack):
        return stack
    larger = np.empty(max(needed, 2 * len(stack)))
    larger[:len(stack)] = stack
    return larger


@njit(cache=True)
def trip_count(start, stop, step):
    """How many times ``range(start, stop, step)`` runs."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def as_float(value):
    """``value``, a float (compiled for floats only: a tape of other values stays a list)."""
    return float(value)


def xlogy(x, y):
    """``x * log(y)``, and 0 where ``x == 0`` (compiled: floats)."""
    return limits.xlogy(x, y)


def xdivy(x, y):
    """``x / y``, and 0 where ``x == 0``; a nonzero ``x`` over 0 is an infinity, as in NumPy (compiled: floats)."""
    return limits.xdivy(x, y)


def _is_array(kind) -> bool:
    return isinstance(kind, types.Array)


def _is_number(kind) -> bool:
    return isinstance(kind, (types.Float, types.Integer, types.Boolean))


@overload(check_seed)
def _check_seed(out, seed):
    if _is_number(out) and _is_number(seed):
        return lambda out, seed: float(seed)
    if _is_number(out) and _is_array(seed) and seed.ndim == 0:
        return lambda out, seed: float(seed[()])
    if _is_array(out) and _is_array(seed) and out.ndim == seed.ndim:
        def checked(out, seed):
            if out.shape != seed.shape:
                raise ValueError(_SEED_SHAPE)
            return seed.astype(np.float64)
        return checked
    if _is_array(out) and _is_number(seed):
        return lambda out, seed: np.full(out.shape, float(seed))
    return None


@overload(zeros_like)
def _zeros_like(value):
    if _is_number(value):
        return lambda value: 0.0
    if _is_array(value):
        return lambda value: np.zeros(value.shape)
    return None


@overload(unbroadcast)
def _unbroadcast(grad, like):
    if _is_number(grad) and _is_number(like):
        return lambda grad, like: grad
    if _is_array(grad) and _is_number(like):
        return lambda grad, like: np.sum(grad)
    if _is_number(grad) and _is_array(like):
        return lambda grad, like: np.full(like.shape, grad)
    if _is_array(grad) and _is_array(like) and grad.ndim == like.ndim:
        def same_shape(grad, like):
            if grad.shape != like.shape:
                raise ValueError(_SHAPES_DIFFER)
            return grad
        return same_shape
    return None


@overload(unreduce)
def _unreduce(grad, like):
    if _is_number(grad) and _is_array(like):
        return lambda grad, like: np.full(like.shape, grad)
    if _is_number(grad) and _is_number(like):
        return lambda grad, like: grad
    return None


@overload(copied)
def _copied(value):
    if _is_number(value):
        return lambda value: value
    if _is_array(value):
        return lambda value: value.copy()
    return None


def check_unpacking(items, count):
    """Python's check of ``a, b, ... = items`` (compiled: a tuple or array of ``count`` items passes)."""
    containers.check_unpacking(items, count)


@overload(check_unpacking)
def _check_unpacking(items, count):
    def check(items, count):
        if len(items) != count:
            raise ValueError("the wrong number of values to unpack")
    return check


def array_copy(value):
    """``value.copy()`` of an array (compiled: an array or a number)."""
    return core.array_copy(value)


@overload(array_copy)
def _array_copy(value):
    if _is_number(value):
        return lambda value: value
    if _is_array(value):
        return lambda value: value.copy()
    return None


@njit(cache=True)
def _array_holds_nan(values) -> bool:
    for value in values.flat:
        if value != value:
            return True
    return False


def holds_nan(result) -> bool:
    """Whether a derivative's result (a number, a float array, or tuples of them) holds a NaN.

    Example::

        >>> holds_nan((1.0, np.array([0.0, np.nan])))
        True
    """
    kind = result.__class__
    if kind is float:
        return result != result
    if kind is tuple:
        for item in result:
            if holds_nan(item):
                return True
        return False
    if kind is np.ndarray:
        return result.dtype.kind == "f" and _array_holds_nan(result)
    return result != result


@overload(as_float)
def _as_float(value):
    if isinstance(value, types.Float):
        return lambda value: value
    return None   # numba refuses the call: the compiler keeps this stack a list


@overload(xlogy)
def _xlogy(x, y):
    if _is_number(x) and _is_number(y):
        def scalar(x, y):
            if x == 0 and y == y:
                return 0.0
            return x * np.log(float(y))   # NumPy's log: -inf at 0, NaN below
        return scalar
    return None


@overload(xdivy)
def _xdivy(x, y):
    if _is_number(x) and _is_number(y):
        def scalar(x, y):
            if x == 0 and y == y:
                return 0.0
            if y == 0:
                return x * math.copysign(np.inf, y)   # NumPy's x / 0.0, where numba would raise
            return x / y
        return scalar
    return None
