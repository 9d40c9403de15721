"""Rules for functions that build arrays from values: array, asarray, copy, full, full_like, and the evenly
spaced samples of linspace, logspace and geomspace.

``np.array([x, y])`` turns a (nested) list into an array; its adjoint gives
the list a (nested) list of gradients, one per item.  ``np.full`` and
``np.full_like`` are differentiated with respect to the fill value (the
gradient sums over every element filled); the shape and the template array
carry no derivative.

``np.linspace(start, stop, num)``'s sample ``i`` is ``(1 - w) start + w stop``
with ``w = i / (num - 1)`` (``i / num`` without the endpoint, 0 for one
sample): ``linspace_weights`` gives ``w`` along the samples' ``axis``, and
``sample_axis`` lines a (broadcast) start or stop up with the samples.  With
``retstep=True`` the step ``(stop - start) / (num - 1)`` is differentiated
too.  ``np.logspace`` is ``base ** linspace`` (``base`` is differentiated
too) and ``np.geomspace`` is ``start * (stop / start) ** w``.  A cast to an
integer or bool ``dtype`` (``np.array(x, dtype=int)``, ``x.astype(int)``)
rounds, which is piecewise constant: no derivative flows through it
(``cast_gate``).  ``dtype`` is
not taken (an integer dtype would make the samples piecewise constant).
"""
import numpy as np

from srcad.runtime import array_copy, broadcast_like, cast_gate, copied, unbroadcast
from srcad.runtime.shapes import linspace_step_weight, linspace_weights, sample_axis, unarray
from srcad.templates import adjoint, d, given, tangent


@adjoint(np.array)
def array_adjoint(y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    if given(dtype):   # a cast to an integer or bool dtype rounds: no derivative flows through it
        d[object] = unarray(cast_gate(d[y], dtype), object)
    else:
        d[object] = unarray(d[y], object)


@tangent(np.array)
def array_tangent(y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    if given(dtype):   # the tangent keeps a float dtype
        d[y] = np.array(cast_gate(d[object], dtype), ndmin=ndmin)
    else:
        d[y] = np.array(d[object], ndmin=ndmin)


@adjoint(np.asarray, np.asanyarray)
def asarray_adjoint(y, a, dtype=None, order=None):
    if given(dtype):   # ``x.astype(int)`` is ``np.asarray(x, int)``
        d[a] = unarray(cast_gate(d[y], dtype), a)
    else:
        d[a] = unarray(d[y], a)


@tangent(np.asarray, np.asanyarray)
def asarray_tangent(y, a, dtype=None, order=None):
    if given(dtype):
        d[y] = np.asarray(cast_gate(d[a], dtype))
    else:
        d[y] = np.asarray(d[a])


@adjoint(np.ascontiguousarray)
def ascontiguousarray_adjoint(y, a, dtype=None):
    if given(dtype):
        d[a] = unarray(cast_gate(d[y], dtype), a)
    else:
        d[a] = unarray(d[y], a)


@tangent(np.ascontiguousarray)
def ascontiguousarray_tangent(y, a, dtype=None):
    if given(dtype):
        d[y] = np.ascontiguousarray(cast_gate(d[a], dtype))
    else:
        d[y] = np.ascontiguousarray(d[a])


@adjoint(np.copy)
def copy_adjoint(y, a, order="K", subok=False):
    d[a] = d[y]


@tangent(np.copy)
def copy_tangent(y, a, order="K", subok=False):   # a copy too: d[a] may be a view of a tangent changed later
    d[y] = copied(d[a])


@adjoint(array_copy)   # x.copy() of an array: np.copy's rules
def array_copy_adjoint(y, value):
    d[value] = d[y]


@tangent(array_copy)
def array_copy_tangent(y, value):
    d[y] = copied(d[value])


@adjoint(np.full)
def full_adjoint(y, shape, fill_value, dtype=None, order="C"):
    d[fill_value] = unbroadcast(d[y], fill_value)


@tangent(np.full)
def full_tangent(y, shape, fill_value, dtype=None, order="C"):
    d[y] = broadcast_like(d[fill_value], y)


@adjoint(np.full_like)
def full_like_adjoint(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d[fill_value] = unbroadcast(d[y], fill_value)


@tangent(np.full_like)
def full_like_tangent(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d[y] = broadcast_like(d[fill_value], y)


@adjoint(np.linspace)
def linspace_adjoint(y, start, stop, num=50, endpoint=True, retstep=False, axis=0):
    if retstep:   # y is (samples, step)
        w = linspace_weights(y[0], endpoint=endpoint, axis=axis)
        step_weight = linspace_step_weight(num, endpoint=endpoint)
        d[start] = unbroadcast(np.sum(d[y][0] * (1.0 - w), axis) - d[y][1] * step_weight, start)
        d[stop] = unbroadcast(np.sum(d[y][0] * w, axis) + d[y][1] * step_weight, stop)
    else:
        w = linspace_weights(y, endpoint=endpoint, axis=axis)
        d[start] = unbroadcast(np.sum(d[y] * (1.0 - w), axis), start)
        d[stop] = unbroadcast(np.sum(d[y] * w, axis), stop)


@tangent(np.linspace)
def linspace_tangent(y, start, stop, num=50, endpoint=True, retstep=False, axis=0):
    if retstep:
        w = linspace_weights(y[0], endpoint=endpoint, axis=axis)
        d[y] = (broadcast_like(sample_axis(d[start], y[0], axis=axis) * (1.0 - w)
                               + sample_axis(d[stop], y[0], axis=axis) * w, y[0]),
                broadcast_like((d[stop] - d[start]) * linspace_step_weight(num, endpoint=endpoint), y[1]))
    else:
        w = linspace_weights(y, endpoint=endpoint, axis=axis)
        d[y] = broadcast_like(sample_axis(d[start], y, axis=axis) * (1.0 - w)
                              + sample_axis(d[stop], y, axis=axis) * w, y)


@adjoint(np.logspace)
def logspace_adjoint(y, start, stop, num=50, endpoint=True, base=10.0, axis=0):
    w = linspace_weights(y, endpoint=endpoint, axis=axis)
    b = sample_axis(base, y, axis=axis)
    exponent_grad = d[y] * y * np.log(b)
    d[start] = unbroadcast(np.sum(exponent_grad * (1.0 - w), axis), start)
    d[stop] = unbroadcast(np.sum(exponent_grad * w, axis), stop)
    exponent = sample_axis(start, y, axis=axis) * (1.0 - w) + sample_axis(stop, y, axis=axis) * w
    d[base] = unbroadcast(np.sum(d[y] * y * exponent / b, axis), base)


@tangent(np.logspace)
def logspace_tangent(y, start, stop, num=50, endpoint=True, base=10.0, axis=0):
    w = linspace_weights(y, endpoint=endpoint, axis=axis)
    b = sample_axis(base, y, axis=axis)
    exponent = sample_axis(start, y, axis=axis) * (1.0 - w) + sample_axis(stop, y, axis=axis) * w
    d[y] = y * (np.log(b) * (sample_axis(d[start], y, axis=axis) * (1.0 - w) + sample_axis(d[stop], y, axis=axis) * w)
                + exponent / b * sample_axis(d[base], y, axis=axis))


@adjoint(np.geomspace)
def geomspace_adjoint(y, start, stop, num=50, endpoint=True, axis=0):
    w = linspace_weights(y, endpoint=endpoint, axis=axis)
    d[start] = unbroadcast(np.sum(d[y] * y * (1.0 - w), axis) / start, start)
    d[stop] = unbroadcast(np.sum(d[y] * y * w, axis) / stop, stop)


@tangent(np.geomspace)
def geomspace_tangent(y, start, stop, num=50, endpoint=True, axis=0):
    w = linspace_weights(y, endpoint=endpoint, axis=axis)
    d[y] = y * (sample_axis(d[start] / start, y, axis=axis) * (1.0 - w)
                + sample_axis(d[stop] / stop, y, axis=axis) * w)
