"""A derivative's call whose arguments must be examined one by one: the path beside the dispatch table.

``Derivative.__call__`` (``srcad.derivative``) runs a call of plain
arguments (floats, ints and float arrays, keywords of plain numbers) through
its dispatch table.  Every other call comes here.

Contract: ``examined_call(derivative, args, kwargs)`` returns what the
derivative returns for these arguments, after the staleness check and the
load (the caller made them):
- it refuses what has no derivative where one is asked: an int, a bool, an
  integer array (``integer_argument``), a str, None... (``refused_argument``);
- arguments that change in place may not share memory (``shared_arguments``);
- an object holding arrays (a dataclass...) where a derivative is asked is
  differentiated field by field (``srcad.calling``), refused when a field is
  complex;
- a complex number or array anywhere, even in a tuple or a keyword, runs the
  variant built for complex numbers;
- tuples, lists and dicts where a derivative is asked get their gradients in
  the same container type (reverse mode);
- otherwise the variant for the arguments' ranks runs (or the general
  derivative), and a result holding a NaN goes to ``srcad.overflow``.
A Dask or CuPy array of floats passes as it is.  ``refuse_complex_fields(derivative, args)`` raises the
``ComplexError`` for an object with a complex field where a derivative is asked.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(x ** 2)
    >>> examined_call(srcad.grad(f), ((1.0, 2.0),), {})   # doctest: +SKIP
    (2.0, 4.0)
"""
from __future__ import annotations

import numbers

import numpy as np

from .arguments import (complex_argument, complex_fields_error, complex_gradients, holds_complex, integer_argument,
                        mirror_gradients, refused_argument)
from .derivative_hooks import SPECIAL
from .overflow import clean, settled
from .runtime.dispatch import is_duck_array
from .trees import is_container
from .variants import float_ranks

_NOT_DIFFERENTIABLE = frozenset({int, bool, np.int64, np.int32, np.bool_})
_CONTAINERS = (tuple, list, dict)
_FLOATS = frozenset({float, np.float64, np.float32})
_ARRAY, _FLOAT64 = np.ndarray, np.dtype(np.float64)


def examined_call(df, args: tuple, kwargs: dict):
    """``df(*args, **kwargs)`` for arguments the dispatch table does not take (see the module's contract).

    Example::

        >>> examined_call(srcad.grad(f), (np.ones(2, complex),), {})   # doctest: +SKIP
        array([2.-0.j, 2.-0.j])
    """
    if df._shared_check is not None:
        df._shared_check(args)
    containers = complex_seen = False
    for position in df._wrt_positions:   # an int or bool has no derivative: say so
        if position >= len(args):
            continue
        value = args[position]
        kind = value.__class__
        if kind is _ARRAY and value.dtype.kind == "f" or kind in _FLOATS:
            continue
        if kind in _NOT_DIFFERENTIABLE or kind is np.ndarray and value.dtype.kind in "biu":
            raise integer_argument(df.func, position + df._offset, value)
        if is_duck_array(value) and value.dtype.kind == "f":
            continue   # a Dask or CuPy array of floats: NumPy's dispatch protocols carry it
        if isinstance(value, _CONTAINERS):
            containers = True
        elif is_container(value):   # a dataclass, an object holding arrays
            refuse_complex_fields(df, args)
            return SPECIAL["objects"](df, args, kwargs)
        elif complex_argument(value):
            complex_seen = True
        elif not isinstance(value, numbers.Real) or kind is np.ndarray:
            # a str, None, an object array...: no derivative to give
            raise refused_argument(df.func, position + df._offset, value)
    if (complex_seen or containers and holds_complex([args[p] for p in df._wrt_positions if p < len(args)], ())
            or df._other_positions and holds_complex([args[p] for p in df._other_positions if p < len(args)], ())
            or kwargs and holds_complex((), kwargs)) and "complex_params" not in df.options:
        return _complex_variant_call(df, args, kwargs)   # a variant built for complex numbers
    if containers and df.mode == "reverse":   # a tuple's gradient is built as a list: give a tuple back
        result = mirror_gradients(df._compiled(*args, **kwargs), args, df.func, df._offset,
                                  df.wrt, df.as_tuple, df.options)
    else:
        ranks = float_ranks(args[:df._arity]) if df._rank_variants is not False and not kwargs \
            and args else None   # f's own arguments, not seeds or tangents
        result = df._rank_variant(ranks)(*args) if ranks is not None else df._compiled(*args, **kwargs)
    # a NaN from 0 * inf (a zero adjoint times an overflowed partial) is computed again: srcad.overflow
    return result if clean(result) else settled(df, result, args, kwargs)


def refuse_complex_fields(df, args: tuple) -> None:
    """Raise ``ComplexError`` for a differentiated object with a complex field (fields get the real rules).

    Example::

        >>> refuse_complex_fields(srcad.grad(f), (SimpleNamespace(z=np.ones(2, complex)),))   # doctest: +SKIP
        Traceback (most recent call last):
        ComplexError: ...
    """
    for position in df._wrt_positions:
        if position < len(args) and is_container(args[position]):
            refusal = complex_fields_error(df.func, position + df._offset, args[position])
            if refusal is not None:
                raise refusal


def _complex_variant_call(df, args: tuple, kwargs: dict):
    """The result of the variant for complex arguments, with complex gradients for complex arguments."""
    variant = df._complex_variant(args, kwargs)
    if kwargs:   # its tangents may be named apart from this derivative's: pass them by position
        renamed = dict(zip(df.parameters, variant.parameters))
        kwargs = {renamed.get(key, key): value for key, value in kwargs.items()}
    result = variant(*args, **kwargs)
    return result if df.mode != "reverse" else complex_gradients(
        result, args, df.func, df._offset, df.wrt, df.as_tuple, df.options)
