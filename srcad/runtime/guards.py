"""Products and quotients in which an exact zero wins, for derivatives recomputed after a NaN.

Contract: ``strong_product(a, b)`` is ``a * b`` (NumPy broadcasting) except
that it is 0 wherever ``a`` or ``b`` is exactly 0, even where the other is
infinite or NaN; ``strong_quotient(a, b)`` is ``a / b`` except that it is 0
wherever ``a`` is exactly 0.  A derivative multiplies zero adjoints (a branch
``np.where`` discarded, a saturated ``tanh``) by partial derivatives that
overflowed to infinity in the same code, and ``0 * inf`` is NaN where the
true contribution is 0.  Generated code never calls these helpers on its
normal path: a ``Derivative`` whose result holds a NaN computes it again
with a variant built with the option ``strong_zeros``, in which the
derivative statements' products and quotients are these.

Example::

    >>> import numpy as np
    >>> strong_product(0.0, np.inf), strong_quotient(0.0, 0.0)
    (0.0, 0.0)
"""
from __future__ import annotations

import numpy as np

from .core import zeros_like
from .dispatch import as_array


def strong_product(a, b):
    """``a * b``, and 0 wherever a factor is exactly 0 (``0 * inf`` included)."""
    with np.errstate(invalid="ignore", over="ignore"):
        product = a * b
    if np.ndim(product) == 0:
        return zeros_like(product) if a == 0 or b == 0 else product
    return np.where((as_array(a) == 0) | (as_array(b) == 0), np.zeros_like(product), product)


def strong_quotient(a, b):
    """``a / b``, and 0 wherever ``a`` is exactly 0 (``0 / 0`` included)."""
    if np.ndim(a) == 0 and np.ndim(b) == 0 and a == 0:
        return zeros_like(a * 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        quotient = a / b
    if np.ndim(quotient) == 0:
        return quotient
    return np.where(as_array(a) == 0, np.zeros_like(quotient), quotient)

