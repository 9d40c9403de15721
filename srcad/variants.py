"""Which specialised variant of a derivative a call goes to.

Contract: ``all_scalars(args)`` says whether every argument is a Python or
NumPy scalar (the call then goes to the variant generated knowing it, with
no broadcasting helpers); ``float_ranks(args)`` is the tuple of the
arguments' ranks when all are float arrays or scalars, else None (the key of
the variant generated for those ranks); ``indexes_elements(f)`` says whether
a loop of ``f`` stores into arrays element by element, the only functions
for which rank variants pay (elsewhere the general derivative is as good).

Example::

    >>> import numpy as np
    >>> float_ranks((np.ones((2, 3)), 1.5))
    (2, 0)
"""
from __future__ import annotations

from typing import Optional, Tuple

import gast
import numpy as np

from .errors import SrcadError
from .frontend.source import parse_function

_SCALAR_TYPES = frozenset({float, int, np.float64, np.float32})


def float_ranks(args) -> Optional[Tuple[int, ...]]:
    """Each argument's rank when all are float arrays or scalars (else None: no specialisation)."""
    ranks = []
    for arg in args:
        kind = arg.__class__
        if kind is np.ndarray:
            if arg.dtype.kind != "f":
                return None
            ranks.append(arg.ndim)
        elif kind in _SCALAR_TYPES:
            ranks.append(0)
        else:
            return None
    return tuple(ranks)


def indexes_elements(func) -> bool:
    """Whether a loop of ``func`` stores into an array element by element (``A[i, j] = ...``)."""
    try:
        tree = parse_function(func).tree
    except SrcadError:
        return False
    for loop in gast.walk(tree):
        if isinstance(loop, (gast.For, gast.While)):
            for node in gast.walk(loop):
                targets = node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, gast.AugAssign) else []
                if any(isinstance(t, gast.Subscript) for t in targets):
                    return True
    return False


def all_scalars(args) -> bool:
    """Whether every argument is a Python or NumPy scalar."""
    for arg in args:
        if arg.__class__ not in _SCALAR_TYPES:
            return False
    return True
