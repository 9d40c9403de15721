"""Runtime helpers for code that changes arrays in place through a second name.

Contract: ``shares(part, whole)`` tells whether a change made through one of
two names is seen through the other: ``part`` is ``whole`` itself (an array,
list or dict) or a view of its memory; ``holds(whole, part)`` whether the
list, tuple or dict ``whole`` holds the array (list, dict) ``part`` itself,
so that changing ``part`` in place changes what ``whole`` holds.  The generated code computes it once, where the second name is bound,
and replays a change through one name on the other only when it is true
(``passes/views.py``).  ``diagonal_index(a)`` and ``put_index(a, indices,
values)`` turn ``np.fill_diagonal`` and ``np.put`` into element stores.  All
three return integers or booleans and are declared non-differentiable (so is ``holds``); none
writes its arguments.

Example::

    >>> import numpy as np
    >>> a = np.zeros((2, 3))
    >>> shares(a.reshape(6), a), shares(a.copy(), a), holds([a], a), holds([a], a[0])
    (True, False, True, False)
"""
from __future__ import annotations

import numpy as np

_MUTABLE = (np.ndarray, list, dict)


def shares(part, whole) -> bool:
    """Whether changing ``part`` in place changes what ``whole`` holds, and the other way round."""
    if part is whole:
        return isinstance(part, _MUTABLE)
    return isinstance(whole, np.ndarray) and isinstance(part, np.ndarray) and part.size > 0 \
        and bool(np.may_share_memory(part, whole))


def holds(whole, part) -> bool:
    """Whether the list, tuple or dict ``whole`` holds the array (list, dict) ``part`` itself."""
    if isinstance(whole, (list, tuple)):
        items = whole
    elif isinstance(whole, dict):
        items = whole.values()
    else:
        return False
    return isinstance(part, _MUTABLE) and any(item is part for item in items)


def diagonal_index(a):
    """The index ``np.fill_diagonal(a, v)`` (``wrap=False``) stores at: ``a[diagonal_index(a)] = v``."""
    a = np.asarray(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    steps = np.arange(min(a.shape))
    return (steps,) * a.ndim


def put_index(a, indices, values):
    """``(target, source)`` so that ``a[target] = np.ravel(values)[source]`` is ``np.put(a, indices, values)``.

    Like ``np.put``, negative indices count from the end, ``values`` repeat when
    shorter than ``indices``, and of repeated indices the last one wins; the
    target holds each position once.
    """
    a = np.asarray(a)
    flat = np.ravel(np.asarray(indices, dtype=np.intp))
    if np.any(flat >= a.size) or np.any(flat < -a.size):
        raise IndexError(f"index out of range for an array of size {a.size}")
    flat = np.where(flat < 0, flat + a.size, flat)
    last = {}
    for position, index in enumerate(flat.tolist()):
        last[index] = position
    targets = np.array(sorted(last), dtype=np.intp)
    sources = np.array([last[index] for index in sorted(last)], dtype=np.intp) % max(np.size(values), 1)
    return np.unravel_index(targets, a.shape), sources
