"""Helpers for the derivatives of ODE solutions that need NumPy only (the solves are in
``grad_templates/scipy_integrate.py``).

Contract: ``item_gradients(grads)`` is the list of the gradients of the
items of the tuple ``args`` that ``odeint`` passes on to ``func``; it is one
of ``srcad.runtime.ITEM_ADJOINTS``, so a second contribution to that tuple's
adjoint adds item by item.  ``pack``/``unpack`` lay a list of arrays out in
one flat state vector and back, as an ODE solver needs.

Example::

    >>> import numpy as np
    >>> unpack(pack([np.ones(2), 3.0]), [np.zeros(2), 0.0])
    [array([1., 1.]), 3.0]
"""
from __future__ import annotations

from typing import List, Sequence

import numpy as np


def item_gradients(grads, like=None):
    """``grads`` (one gradient per item of a tuple) as a list, or as an array when ``like`` (the value they
    are the gradient of) is an array.

    Example: ``item_gradients((1.0, 2.0))`` is ``[1.0, 2.0]``.
    """
    if isinstance(like, np.ndarray):
        return np.asarray(grads, dtype=float).reshape(like.shape)
    return list(grads)


def pack(values: Sequence) -> np.ndarray:
    """The arrays of ``values``, flattened and joined into one float vector.

    Example: ``pack([np.ones(2), 3.0])`` is ``array([1., 1., 3.])``.
    """
    if not values:
        return np.zeros(0)
    return np.concatenate([np.ravel(np.asarray(value, dtype=float)) for value in values])


def unpack(flat, likes: Sequence) -> List:
    """``flat`` cut into pieces shaped like ``likes`` (a Python float for a Python float); undoes ``pack``.

    Example: ``unpack(np.arange(3.0), [np.zeros(2), 0.0])`` is ``[array([0., 1.]), 2.0]``.
    """
    pieces, start = [], 0
    for like in likes:
        size = int(np.size(like))
        piece = np.reshape(flat[start:start + size], np.shape(like))
        pieces.append(float(piece) if isinstance(like, float) else piece)
        start += size
    return pieces
