"""Rules for operations that rearrange, repeat or broadcast elements without changing their values.

Each adjoint applies the inverse rearrangement to the gradient (``reshape``
back, transpose back, roll back, ``rollaxis`` undone by ``moveaxis``) or
adds up the copies an operation made (``repeat``, ``tile``,
``broadcast_to``).  Tangents apply the operation itself to the input's
tangent, since these operations are linear.
"""
import numpy as np

from srcad.runtime import transpose_axes_inverse, unbroadcast
from srcad.runtime.arrays import rollaxis_position
from srcad.runtime.shapes import unrepeat, untile
from srcad.templates import adjoint, d, given, tangent


@adjoint(np.reshape)
def reshape_adjoint(y, x, newshape=None, order="C", shape=None):
    d[x] = np.reshape(d[y], np.shape(x), order=order)


@tangent(np.reshape)
def reshape_tangent(y, x, newshape=None, order="C", shape=None):
    d[y] = np.reshape(d[x], np.shape(y), order=order)


@adjoint(np.ravel)
def ravel_adjoint(y, x, order="C"):
    d[x] = np.reshape(d[y], np.shape(x), order=order)


@tangent(np.ravel)
def ravel_tangent(y, x, order="C"):
    d[y] = np.ravel(d[x], order=order)


@adjoint(np.squeeze, np.expand_dims)
def reshaping_adjoint(y, x, axis=None):
    d[x] = np.reshape(d[y], np.shape(x))


@tangent(np.squeeze, np.expand_dims)
def reshaping_tangent(y, x, axis=None):
    d[y] = np.reshape(d[x], np.shape(y))


@adjoint(np.atleast_1d, np.atleast_2d, np.atleast_3d)
def atleast_adjoint(y, x):
    d[x] = np.reshape(d[y], np.shape(x))


@tangent(np.atleast_1d, np.atleast_2d, np.atleast_3d)
def atleast_tangent(y, x):
    d[y] = np.reshape(d[x], np.shape(y))


@adjoint(np.transpose)
def transpose_adjoint(y, x, axes=None):
    if not given(axes):   # a derivative's code passes the axes as a variable: decided by `given`, not its value
        d[x] = np.transpose(d[y])
    else:
        d[x] = np.transpose(d[y], transpose_axes_inverse(axes, np.ndim(x)))


@tangent(np.transpose)
def transpose_tangent(y, x, axes=None):
    d[y] = np.transpose(d[x], axes=axes)


@adjoint(np.swapaxes)
def swapaxes_adjoint(y, x, axis1, axis2):
    d[x] = np.swapaxes(d[y], axis1, axis2)


@tangent(np.swapaxes)
def swapaxes_tangent(y, x, axis1, axis2):
    d[y] = np.swapaxes(d[x], axis1, axis2)


@adjoint(np.moveaxis)
def moveaxis_adjoint(y, x, source, destination):
    d[x] = np.moveaxis(d[y], destination, source)


@tangent(np.moveaxis)
def moveaxis_tangent(y, x, source, destination):
    d[y] = np.moveaxis(d[x], source, destination)


@adjoint(np.rollaxis)
def rollaxis_adjoint(y, a, axis, start=0):
    d[a] = np.moveaxis(d[y], rollaxis_position(axis, start, np.ndim(a)), axis)


@tangent(np.rollaxis)
def rollaxis_tangent(y, a, axis, start=0):
    d[y] = np.rollaxis(d[a], axis, start=start)


@adjoint(np.flip)
def flip_adjoint(y, m, axis=None):
    d[m] = np.flip(d[y], axis=axis)


@tangent(np.flip)
def flip_tangent(y, m, axis=None):
    d[y] = np.flip(d[m], axis=axis)


@adjoint(np.fliplr)
def fliplr_adjoint(y, m):
    d[m] = np.fliplr(d[y])


@tangent(np.fliplr)
def fliplr_tangent(y, m):
    d[y] = np.fliplr(d[m])


@adjoint(np.flipud)
def flipud_adjoint(y, m):
    d[m] = np.flipud(d[y])


@tangent(np.flipud)
def flipud_tangent(y, m):
    d[y] = np.flipud(d[m])


@adjoint(np.roll)
def roll_adjoint(y, a, shift, axis=None):
    d[a] = np.roll(d[y], np.negative(shift), axis=axis)


@tangent(np.roll)
def roll_tangent(y, a, shift, axis=None):
    d[y] = np.roll(d[a], shift, axis=axis)


@adjoint(np.rot90)
def rot90_adjoint(y, m, k=1, axes=(0, 1)):
    d[m] = np.rot90(d[y], -k, axes=axes)


@tangent(np.rot90)
def rot90_tangent(y, m, k=1, axes=(0, 1)):
    d[y] = np.rot90(d[m], k, axes=axes)


@adjoint(np.repeat)
def repeat_adjoint(y, a, repeats, axis=None):
    d[a] = unrepeat(d[y], a, repeats, axis=axis)


@tangent(np.repeat)
def repeat_tangent(y, a, repeats, axis=None):
    d[y] = np.repeat(d[a], repeats, axis=axis)


@adjoint(np.tile)
def tile_adjoint(y, A, reps):
    d[A] = untile(d[y], A, reps)


@tangent(np.tile)
def tile_tangent(y, A, reps):
    d[y] = np.tile(d[A], reps)


@adjoint(np.broadcast_to)
def broadcast_to_adjoint(y, array, shape, subok=False):
    d[array] = unbroadcast(d[y], array)


@tangent(np.broadcast_to)
def broadcast_to_tangent(y, array, shape, subok=False):
    d[y] = np.broadcast_to(d[array], shape)
