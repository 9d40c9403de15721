"""Rules for the helpers generated code keeps lists with, so derivatives of loops can be differentiated again.

A reverse-mode derivative of a loop saves values on a list, ``tape``
(``tape.append(x)`` in the forward sweep, ``x = tape.pop()`` in the backward
one), and the adjoint of a list the user's code builds is a list too, added
up with ``add_lists``.  Appends and pops are statements the mode transforms
differentiate themselves (``passes/reverse.py``, ``passes/forward.py``: the
tangent of a list is the list of its items' tangents, pushed and popped with
it; the adjoint of ``v = xs.pop()`` goes back on ``dxs``); the helpers get
rules here.  ``add_lists`` and ``add_structures`` add two derivatives of one
list, item by item: linear in both, so each passes its output's adjoint to
both operands, as copies (adjoint lists are changed in place, and ``copied``
keeps a list's adjoint a list, one entry per item).

Example: the adjoint of ``total = add_lists(a, b)`` is ``d[a] = copied(d[total])``
and ``d[b] = copied(d[total])``.
"""
from srcad.runtime import add_lists, add_structures, copied
from srcad.templates import adjoint, d, tangent


@adjoint(add_lists)
def add_lists_adjoint(y, total, more):
    d[total] = copied(d[y])
    d[more] = copied(d[y])


@tangent(add_lists)
def add_lists_tangent(y, total, more):
    d[y] = add_lists(d[total], d[more])


@adjoint(add_structures)
def add_structures_adjoint(y, total, more):
    d[total] = copied(d[y])
    d[more] = copied(d[y])


@tangent(add_structures)
def add_structures_tangent(y, total, more):
    d[y] = add_structures(d[total], d[more])
