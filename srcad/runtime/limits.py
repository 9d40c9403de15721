"""Helpers for derivatives with a removable singularity: the formula is 0/0 or 0*inf at a point where
the true derivative is finite.

Contract (the one of ``srcad.runtime``): small pure functions of NumPy values
or Python floats, called by generated code by name.  Each one computes the
ordinary formula and differs from it only where the formula has no value
(NaN) and a factor is exactly 0: there it returns 0, the limit or the value
of the function's own definition.  They never hide a genuine singularity: a
nonzero numerator over a zero denominator stays infinite.  ``docs/singularities.md``
lists every rule that uses them and why.

Example::

    >>> xdivy(0.0, 0.0), xlogy(0.0, 0.0)
    (0.0, 0.0)
"""
from __future__ import annotations

import numpy as np

from .dispatch import as_array

_SCALARS = (float, int, np.float64)


def xdivy(x, y):
    """``x / y``, and 0 where ``x == 0`` (also where ``y == 0``; a NaN ``y`` stays NaN).

    The derivative of ``std`` is ``(x - mean) / (n std)``, and at zero spread
    every ``x - mean`` is exactly 0: the gradient there is 0, not 0/0.

    Example: ``xdivy(np.array([0.0, 1.0]), 0.0)`` is ``array([ 0., inf])``.
    """
    if x.__class__ in _SCALARS and y.__class__ in _SCALARS:
        if x == 0 and y == y:
            return 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.float64(x) / y   # a nonzero x over 0 is inf, as in NumPy
    x, y = as_array(x), as_array(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = x / np.where((x == 0) & (y == 0), 1.0, y)
    return quotient[()] if quotient.ndim == 0 else quotient


def xlogy(x, y):
    """``x * log(y)``, and 0 where ``x == 0`` (a NaN ``y`` stays NaN), like ``scipy.special.xlogy``.

    The derivative of ``x ** y`` with respect to ``y`` is ``xlogy(x ** y, x)``:
    0 at ``x == 0`` for ``y > 0``, where ``0 ** y`` is 0 for every ``y``.

    Example: ``xlogy(np.array([0.0, 2.0]), 0.0)`` is ``array([  0., -inf])``.
    """
    if x.__class__ in _SCALARS and y.__class__ in _SCALARS:
        if x == 0 and y == y:
            return 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            return x * np.log(np.float64(y))
    x, y = as_array(x), as_array(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        product = x * np.log(np.where((x == 0) & ~np.isnan(y), 1.0, y))
    return product[()] if product.ndim == 0 else product
