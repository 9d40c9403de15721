"""Rules for joining arrays, splitting them, and padding them.

A join's input is a list or tuple of arrays (or one array whose first axis
is iterated); its adjoint gives that input a list with one gradient per item
(an array for an array).  A split returns a list; its adjoint receives a
list of gradients (zeros for the pieces the function did not use) and joins
them back.  ``np.pad`` is differentiated in the modes that copy elements
(``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``); with
``mode='constant'`` a scalar ``constant_values`` is differentiated too.
"""
import numpy as np

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


@adjoint(np.vstack)
def vstack_adjoint(y, tup):
    d[tup] = unvstack(d[y], tup)


@tangent(np.vstack)
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


@adjoint(np.pad)
def pad_adjoint(y, array, pad_width, mode="constant", constant_values=0):
    d[array] = unpad(d[y], array, pad_width, mode=mode)
    d[constant_values] = np.sum(d[y] * padding_mask(array, pad_width))


@tangent(np.pad)
def pad_tangent(y, array, pad_width, mode="constant", constant_values=0):
    d[y] = np.pad(d[array], pad_width, mode=mode) + d[constant_values] * padding_mask(array, pad_width)
