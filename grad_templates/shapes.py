"""Rules for operations that move elements around: indexing, reshape, transpose."""
import operator

import numpy as np

from srcad.runtime import transpose_axes_inverse
from srcad.templates import adjoint, d, tangent


@adjoint(operator.getitem)
def getitem_adjoint(y, x, index):
    d[x][index] = d[y]


@tangent(operator.getitem)
def getitem_tangent(y, x, index):
    d[y] = d[x][index]


@adjoint(np.reshape)
def reshape_adjoint(y, x, newshape=None, order="C", shape=None):
    if order == "C":
        d[x] = np.reshape(d[y], np.shape(x))
    else:
        d[x] = np.reshape(d[y], np.shape(x), order=order)


@tangent(np.reshape)
def reshape_tangent(y, x, newshape=None, order="C", shape=None):
    if order == "C":
        d[y] = np.reshape(d[x], np.shape(y))
    else:
        d[y] = np.reshape(d[x], np.shape(y), order=order)


@adjoint(np.transpose)
def transpose_adjoint(y, x, axes=None):
    if axes is None:
        d[x] = np.transpose(d[y])
    else:
        d[x] = np.transpose(d[y], transpose_axes_inverse(axes, np.ndim(x)))


@tangent(np.transpose)
def transpose_tangent(y, x, axes=None):
    if axes is None:
        d[y] = np.transpose(d[x])
    else:
        d[y] = np.transpose(d[x], axes)
