"""Rules for functions that build arrays from values: array, asarray, copy, full, full_like.

``np.array([x, y])`` turns a (nested) list into an array; its adjoint gives
the list a (nested) list of gradients, one per item.  ``np.full`` and
``np.full_like`` are differentiated with respect to the fill value (the
gradient sums over every element filled); the shape and the template array
carry no derivative.
"""
import numpy as np

from srcad.runtime import broadcast_like, unbroadcast
from srcad.runtime.shapes import unarray
from srcad.templates import adjoint, d, tangent


@adjoint(np.array)
def array_adjoint(y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    d[object] = unarray(d[y], object)


@tangent(np.array)
def array_tangent(y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    d[y] = np.array(d[object], dtype=dtype, ndmin=ndmin)


@adjoint(np.asarray, np.asanyarray)
def asarray_adjoint(y, a, dtype=None, order=None):
    d[a] = unarray(d[y], a)


@tangent(np.asarray, np.asanyarray)
def asarray_tangent(y, a, dtype=None, order=None):
    d[y] = np.asarray(d[a], dtype=dtype)


@adjoint(np.ascontiguousarray)
def ascontiguousarray_adjoint(y, a, dtype=None):
    d[a] = unarray(d[y], a)


@tangent(np.ascontiguousarray)
def ascontiguousarray_tangent(y, a, dtype=None):
    d[y] = np.ascontiguousarray(d[a], dtype=dtype)


@adjoint(np.copy)
def copy_adjoint(y, a, order="K", subok=False):
    d[a] = d[y]


@tangent(np.copy)
def copy_tangent(y, a, order="K", subok=False):
    d[y] = d[a]


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
