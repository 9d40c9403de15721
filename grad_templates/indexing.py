"""Rules for reading elements: subscripts (basic, fancy and boolean), take, sort, partition, diagonals,
triangles.

An adjoint scatters the gradient back to the positions that were read,
adding where one position was read several times (``x[[0, 0]]``,
``np.take`` with repeated indices).  ``sort`` moves the gradient back through
the sorting permutation; tied elements keep the order ``np.argsort`` gives
them (the same in both modes).  ``partition`` moves it back through the
permutation that matches its result to its input (``matching_order``: the
two sorted and matched value for value), so whatever order NumPy left the
unsorted elements in, each gets its own gradient; among equal elements the
matching is fixed by the input, so both modes make the same choice.  Sorting
and partitioning are continuous and piecewise linear: at a tie between
elements the derivative is the one-sided one of that matching.
``x[np.argsort(x)]`` and the like are ordinary fancy reads.
"""
import operator

import numpy as np

from srcad.runtime.arrays import matching_order
from srcad.runtime.shapes import undiag, undiagonal, untake, untake_along_axis, untrace
from srcad.templates import adjoint, d, tangent


@adjoint(operator.getitem)
def getitem_adjoint(y, x, index):
    d[x][index] = d[y]


@tangent(operator.getitem)
def getitem_tangent(y, x, index):
    d[y] = d[x][index]


@adjoint(np.take)
def take_adjoint(y, a, indices, axis=None, out=None, mode="raise"):
    d[a] = untake(d[y], a, indices, axis=axis, mode=mode)


@tangent(np.take)
def take_tangent(y, a, indices, axis=None, out=None, mode="raise"):
    d[y] = np.take(d[a], indices, axis=axis, mode=mode)


@adjoint(np.take_along_axis)
def take_along_axis_adjoint(y, arr, indices, axis=-1):
    d[arr] = untake_along_axis(d[y], arr, indices, axis=axis)


@tangent(np.take_along_axis)
def take_along_axis_tangent(y, arr, indices, axis=-1):
    d[y] = np.take_along_axis(d[arr], indices, axis)


@adjoint(np.sort)
def sort_adjoint(y, a, axis=-1, kind=None, order=None):
    d[a] = untake_along_axis(d[y], a, np.argsort(a, axis=axis, kind=kind), axis=axis)


@tangent(np.sort)
def sort_tangent(y, a, axis=-1, kind=None, order=None):
    d[y] = np.take_along_axis(d[a], np.argsort(a, axis=axis, kind=kind), axis)


@adjoint(np.partition)
def partition_adjoint(y, a, kth, axis=-1, kind="introselect", order=None):
    d[a] = untake_along_axis(d[y], a, matching_order(y, a, axis=axis), axis=axis)


@tangent(np.partition)
def partition_tangent(y, a, kth, axis=-1, kind="introselect", order=None):
    d[y] = np.take_along_axis(d[a], matching_order(y, a, axis=axis), axis)


@adjoint(np.diag)
def diag_adjoint(y, v, k=0):
    d[v] = undiag(d[y], v, k=k)


@tangent(np.diag)
def diag_tangent(y, v, k=0):
    d[y] = np.diag(d[v], k=k)


@adjoint(np.diagonal)
def diagonal_adjoint(y, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(d[y], a, offset=offset, axis1=axis1, axis2=axis2)


@tangent(np.diagonal)
def diagonal_tangent(y, a, offset=0, axis1=0, axis2=1):
    d[y] = np.diagonal(d[a], offset=offset, axis1=axis1, axis2=axis2)


@adjoint(np.trace)
def trace_adjoint(y, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[a] = untrace(d[y], a, offset=offset, axis1=axis1, axis2=axis2)


@tangent(np.trace)
def trace_tangent(y, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[y] = np.trace(d[a], offset=offset, axis1=axis1, axis2=axis2)


@adjoint(np.triu)
def triu_adjoint(y, m, k=0):
    d[m] = np.triu(d[y], k=k)


@tangent(np.triu)
def triu_tangent(y, m, k=0):
    d[y] = np.triu(d[m], k=k)


@adjoint(np.tril)
def tril_adjoint(y, m, k=0):
    d[m] = np.tril(d[y], k=k)


@tangent(np.tril)
def tril_tangent(y, m, k=0):
    d[y] = np.tril(d[m], k=k)
