"""Rules for joining arrays, splitting them, choosing among them, and padding them.

A join's input is a list or tuple of arrays (or one array whose first axis
is iterated); its adjoint gives that input a list with one gradient per item
(an array for an array).  ``np.append(arr, values)`` is a join of two
arrays (flattened without ``axis``).  A split returns a list; its adjoint
receives a list of gradients (zeros for the pieces the function did not
use) and joins them back.  ``np.select(condlist, choicelist, default)``
gives each choice the gradient where its condition is the first that holds
(``unselect``) and ``default`` the rest; the conditions carry no
derivative (where one changes, the result jumps from one choice to another,
and the derivative is that of the choice taken at the point itself).  ``np.pad`` is differentiated in the modes that copy elements
(``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``); with
``mode='constant'`` a scalar ``constant_values`` is differentiated too.
"""
import numpy as np

from srcad.runtime import broadcast_like, unbroadcast, zeros_like
from srcad.runtime.arrays import select_rest, unselect
from srcad.runtime.shapes import (padding_mask, uncolumn_stack, unconcatenate, undstack, unhstack, unpad,
                                  unstack, unvstack)
from srcad.templates import adjoint, d, tangent


@adjoint(np.concatenate)
def concatenate_adjoint(y, arrays, axis=0):
    d[arrays] = unconcatenate(d[y], arrays, axis=axis)


@tangent(np.concatenate)
def concatenate_tangent(y, arrays, axis=0):
    d[y] = np.concatenate(d[arrays], axis=axis)


@adjoint(np.stack)
def stack_adjoint(y, arrays, axis=0):
    d[arrays] = unstack(d[y], arrays, axis=axis)


@tangent(np.stack)
def stack_tangent(y, arrays, axis=0):
    d[y] = np.stack(d[arrays], axis=axis)


@adjoint(np.hstack)
def hstack_adjoint(y, tup):
    d[tup] = unhstack(d[y], tup)


@tangent(np.hstack)
def hstack_tangent(y, tup):
    d[y] = np.hstack(d[tup])


VSTACKS = [np.vstack] + ([np.row_stack] if hasattr(np, "row_stack") else [])   # row_stack: NumPy < 2.5


@adjoint(*VSTACKS)
def vstack_adjoint(y, tup):
    d[tup] = unvstack(d[y], tup)


@tangent(*VSTACKS)
def vstack_tangent(y, tup):
    d[y] = np.vstack(d[tup])


@adjoint(np.dstack)
def dstack_adjoint(y, tup):
    d[tup] = undstack(d[y], tup)


@tangent(np.dstack)
def dstack_tangent(y, tup):
    d[y] = np.dstack(d[tup])


@adjoint(np.column_stack)
def column_stack_adjoint(y, tup):
    d[tup] = uncolumn_stack(d[y], tup)


@tangent(np.column_stack)
def column_stack_tangent(y, tup):
    d[y] = np.column_stack(d[tup])


@adjoint(np.split, np.array_split)
def split_adjoint(pieces, ary, indices_or_sections, axis=0):
    d[ary] = np.concatenate(d[pieces], axis=axis)


@tangent(np.split)
def split_tangent(pieces, ary, indices_or_sections, axis=0):
    d[pieces] = np.split(d[ary], indices_or_sections, axis=axis)


@tangent(np.array_split)
def array_split_tangent(pieces, ary, indices_or_sections, axis=0):
    d[pieces] = np.array_split(d[ary], indices_or_sections, axis=axis)


@adjoint(np.hsplit)
def hsplit_adjoint(pieces, ary, indices_or_sections):
    d[ary] = np.hstack(d[pieces])


@tangent(np.hsplit)
def hsplit_tangent(pieces, ary, indices_or_sections):
    d[pieces] = np.hsplit(d[ary], indices_or_sections)


@adjoint(np.vsplit)
def vsplit_adjoint(pieces, ary, indices_or_sections):
    d[ary] = np.vstack(d[pieces])


@tangent(np.vsplit)
def vsplit_tangent(pieces, ary, indices_or_sections):
    d[pieces] = np.vsplit(d[ary], indices_or_sections)


@adjoint(np.dsplit)
def dsplit_adjoint(pieces, ary, indices_or_sections):
    d[ary] = np.concatenate(d[pieces], axis=2)


@tangent(np.dsplit)
def dsplit_tangent(pieces, ary, indices_or_sections):
    d[pieces] = np.dsplit(d[ary], indices_or_sections)


@adjoint(np.append)
def append_adjoint(y, arr, values, axis=None):
    pieces = unconcatenate(d[y], [arr, values], axis)   # positional: unconcatenate joins along 0 by default
    d[arr] = pieces[0]
    d[values] = pieces[1]


@tangent(np.append)
def append_tangent(y, arr, values, axis=None):
    d[y] = np.append(d[arr], zeros_like(values), axis=axis) + np.append(zeros_like(arr), d[values], axis=axis)


@adjoint(np.select)
def select_adjoint(y, condlist, choicelist, default=0):
    d[choicelist] = unselect(d[y], condlist, choicelist)
    d[default] = unbroadcast(np.where(select_rest(condlist), d[y], 0.0), default)


@tangent(np.select)
def select_tangent(y, condlist, choicelist, default=0):
    d[y] = broadcast_like(np.select(condlist, d[choicelist], 0.0) + np.where(select_rest(condlist), d[default], 0.0),
                          y)


@adjoint(np.pad)
def pad_adjoint(y, array, pad_width, mode="constant", constant_values=0):
    d[array] = unpad(d[y], array, pad_width, mode=mode)
    d[constant_values] = np.sum(d[y] * padding_mask(array, pad_width))


@tangent(np.pad)
def pad_tangent(y, array, pad_width, mode="constant", constant_values=0):
    d[y] = np.pad(d[array], pad_width, mode=mode) + d[constant_values] * padding_mask(array, pad_width)
