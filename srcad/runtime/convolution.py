"""Helpers that generated code calls for ``scipy.signal``'s convolutions.

Contract: like ``srcad.runtime``: small pure functions of NumPy values
(NumPy only; the rules are in ``grad_templates/scipy_signal.py``).  A
convolution in mode ``same`` or ``valid`` is the centred part of the full
one (SciPy cuts ``(full - out) // 2`` entries before it on each axis), so
its gradient is the full convolution's, given the output gradient padded
with zeros back to the full shape: ``full_padding`` gives those widths.

Example::

    >>> import numpy as np
    >>> full_padding(np.zeros(3), np.zeros(5), np.zeros(3))
    [(1, 1)]
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np


def full_padding(out, in1, in2) -> List[Tuple[int, int]]:
    """The widths ``np.pad`` needs to put the convolution output ``out`` of ``in1`` and ``in2`` back in the full
    output's place.

    Example: ``full_padding(np.zeros(1), np.zeros(4), np.zeros(4))`` is ``[(3, 3)]``.
    """
    widths = []
    for out_n, n1, n2 in zip(np.shape(out), np.shape(in1), np.shape(in2)):
        extra = n1 + n2 - 1 - out_n
        widths.append((extra // 2, extra - extra // 2))
    return widths
