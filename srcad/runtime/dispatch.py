"""Which values are other libraries' arrays (Dask, CuPy), and NumPy conversions that leave those alone.

Contract: a duck array is a value whose class implements NumPy's
``__array_function__`` protocol and has a shape, and that is no NumPy array
(an ndarray subclass such as a masked array is NumPy's own).  NumPy's
functions hand such a value to its library, so generated code and helpers
that call them keep it lazy (Dask) or on its device (CuPy); the helpers here
make the few conversions a helper needs without turning it into an ndarray.
The NumPy path costs one class comparison.

Example::

    >>> import numpy as np
    >>> is_duck_array(np.ones(2)), as_array(2.0)
    (False, array(2.))
"""
from __future__ import annotations

import numpy as np


def is_duck_array(value) -> bool:
    """Whether ``value`` is an array of another library that NumPy's functions dispatch to (a Dask or CuPy
    array: its class implements ``__array_function__``), rather than a NumPy array or scalar.

    Example: ``is_duck_array(np.ones(2))`` is ``False``; ``is_duck_array(dask.array.ones(2))`` is ``True``.
    """
    kind = value.__class__
    return kind is not np.ndarray and hasattr(kind, "__array_function__") and hasattr(value, "shape") \
        and not isinstance(value, np.ndarray)   # a subclass (np.matrix, a masked array) is NumPy's own


def as_array(value):
    """``np.asarray(value)`` for a list, scalar or NumPy array; a duck array (``is_duck_array``) as it is, so a
    Dask array stays lazy and a CuPy array stays on its device.

    Example: ``as_array([1.0, 2.0])`` is ``array([1., 2.])``.
    """
    if value.__class__ is np.ndarray or is_duck_array(value):
        return value
    return np.asarray(value)


def array_like(value, like):
    """``value`` (a scalar or NumPy array) as an array of ``like``'s kind when ``like`` is a duck array
    (``is_duck_array``), else ``value`` itself: what a helper combines with ``like`` stays a Dask or CuPy array.

    Example: ``array_like(0.5, np.ones(2))`` is ``0.5``.
    """
    if like.__class__ is np.ndarray or value.__class__ is like.__class__ or not is_duck_array(like):
        return value
    return np.asarray(value, like=like)
