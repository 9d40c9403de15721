"""A test-only duck array: NumPy data behind NumPy's dispatch protocols, which refuses to become an ndarray.

Contract:
- ``Duck(data)`` wraps a NumPy array.  Every NumPy function reaches it
  through ``__array_function__`` and every ufunc through ``__array_ufunc__``:
  both unwrap their arguments (nested in lists, tuples and dicts), call NumPy,
  and wrap each array or NumPy scalar of the result back into a ``Duck`` (a
  reduction gives a 0-d ``Duck``, as Dask gives a 0-d Dask array).
- Anything that would turn it into a NumPy array or a Python number on the
  way (``np.asarray``, ``float``, ``int``, ``bool``, ``.item()``,
  ``.tolist()``, ``.tobytes()``) is a coercion: it raises ``Coercion`` and
  is appended to ``COERCIONS``, so a test can both fail on the first one and
  report where it came from.  A Dask array would compute at that point, a
  CuPy array would copy to the host.
- Methods and attributes of the wrapped array (``.shape``, ``.T``,
  ``.reshape``, ``.sum``...) are read through, with arrays wrapped.
- ``wrap(value)`` and ``unwrap(value)`` convert whole structures.

Example::

    >>> import numpy as np
    >>> x = Duck(np.arange(3.0))
    >>> type(np.sum(np.sin(x) * 2.0)).__name__
    'Duck'
    >>> float(x[0])
    Traceback (most recent call last):
    ...
    duck_array.Coercion: float() of a Duck array
"""
from __future__ import annotations

import traceback
from typing import Any, List

import numpy as np

COERCIONS: List[str] = []


class Coercion(Exception):
    """A ``Duck`` was turned into a NumPy array or a Python number (not a TypeError: NumPy would catch that
    one in ``np.asarray`` and build the array element by element instead)."""


def _coerced(what: str):
    COERCIONS.append(f"{what}\n{''.join(traceback.format_stack(limit=8)[:-2])}")
    raise Coercion(f"{what} of a Duck array")


def unwrap(value: Any) -> Any:
    """``value`` with every ``Duck`` replaced by its NumPy data (lists, tuples and dicts looked into)."""
    if isinstance(value, Duck):
        return value.data
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(unwrap(item) for item in value)
    if isinstance(value, dict):
        return {key: unwrap(item) for key, item in value.items()}
    return value


def wrap(value: Any) -> Any:
    """``value`` with every NumPy array or NumPy scalar replaced by a ``Duck`` (named tuples kept)."""
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, Duck):
        return Duck(np.asarray(value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(wrap(item) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(wrap(item) for item in value)
    return value


class Duck(np.lib.mixins.NDArrayOperatorsMixin):
    """An ndarray-like value that NumPy dispatches to and that refuses coercion (see the module's contract)."""

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray):
        self.data = data

    # the two protocols
    def __array_function__(self, func, types, args, kwargs):
        return wrap(func(*unwrap(args), **unwrap(kwargs)))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        result = getattr(ufunc, method)(*unwrap(inputs), **unwrap(kwargs))
        if out is not None:   # written in place: the Duck(s) given as out are the result
            return out[0] if len(out) == 1 else out
        return None if method == "at" else wrap(result)

    # coercions
    def __array__(self, dtype=None, copy=None):
        _coerced("np.asarray()")

    def __float__(self):
        _coerced("float()")

    def __int__(self):
        _coerced("int()")

    def __index__(self):
        _coerced("operator.index()")

    def __complex__(self):
        _coerced("complex()")

    def __bool__(self):
        _coerced("bool()")

    def item(self, *args):
        _coerced(".item()")

    def tolist(self):
        _coerced(".tolist()")

    def tobytes(self, *args, **kwargs):
        _coerced(".tobytes()")

    # the array's own attributes, read through
    def __getattr__(self, name: str):
        if name == "data":   # not yet set (while copying): no recursion into the wrapped array
            raise AttributeError(name)
        attribute = getattr(self.data, name)
        if callable(attribute):
            def method(*args, **kwargs):
                return wrap(attribute(*unwrap(args), **unwrap(kwargs)))
            return method
        return wrap(attribute)

    def __getitem__(self, index):
        return wrap(self.data[unwrap(index)])

    def __setitem__(self, index, value):
        self.data[unwrap(index)] = unwrap(value)

    def __len__(self):
        return len(self.data)

    def __iter__(self):
        return (wrap(row) for row in self.data)

    def __copy__(self):
        return Duck(self.data.copy())

    def __deepcopy__(self, memo):
        return Duck(self.data.copy())

    def __repr__(self):
        return f"Duck({self.data!r})"
