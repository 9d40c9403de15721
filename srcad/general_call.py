"""The general call of a derivative: current or loaded, the dispatch table, the checks on every call.

Contract:
- ``general_call(derivative, *args, **kwargs)`` is what calling a
  ``Derivative`` does until it has an entry for the kinds of its arguments
  (``srcad.call_entry``), and whenever the entry hands a call back:
  - under ``config.verify`` the verifier checks the call;
  - a derivative whose guard fails is loaded again (or, for a container where
    it was built for fields, called field by field);
  - a call of floats, ints and float arrays (and keywords of plain values)
    runs the generated function the dispatch table maps its kinds to,
    finding and recording it on the first such call; every other call is
    examined argument by argument (``srcad.examined_call``);
  - shared memory is checked, a result holding a NaN goes to
    ``overflow.settled``, an exception gets notes naming the user's lines;
  - a call that does not bind to the generated function is fitted to it
    (the seed after f's defaults) or refused with the call that fits.
- The second call of the same kinds since the last load writes out the entry.

Example::

    >>> general_call(srcad.grad(f), x)   # doctest: +SKIP
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .arguments import bind_arguments, rebound_call
from .call_entry import MAX_KINDS, entry_class, kind_of
from .config import config
from .derivative_hooks import SPECIAL, VERIFYING, verifier
from .errors import SrcadError
from .examined_call import examined_call, refuse_complex_fields
from .frontend import tracebacks
from .overflow import clean, settled
from .trees import is_container


def general_call(self, *args, **kwargs):
    """The general call of a derivative: check it is current (else load), find the function for the arguments' kinds
    in the dispatch table (else examine them), run it; then write out the entry for calls of the same kinds."""
    if config.verify and not VERIFYING.active and verifier() is not None:
        return verifier()(self, args, kwargs)
    try:
        if not self._current():
            if any(p < len(args) and is_container(args[p]) for p in self._wrt_positions):
                refuse_complex_fields(self, args)
                return SPECIAL["objects"](self, args, kwargs)   # not built for the whole object: by field
            self._load()
        # the dispatch table: a call of floats, ints and float arrays (and keywords of plain numbers) runs
        # the function found for a call of the same kinds and ranks; any other goes to examined_call
        table, key, current = self._table, 0, self._current
        for arg in args:
            kind = arg.__class__
            if kind is _ARRAY:
                if arg.dtype is not _FLOAT64 and arg.dtype.kind != "f":
                    break
                key = key * 128 + arg.ndim + 3   # a digit per argument: its rank, or the kind of scalar
            elif kind in _FLOATS:
                key = key * 128 + 2
            elif kind is int:
                key = key * 128 + 1
            else:
                break
        else:
            if kwargs:
                if not _plain_keywords(kwargs):
                    return examined_call(self, args, kwargs)
                key = -1 - key
            function = found = table.get(key)
            if function is None:
                function = self._plain_function(args, kwargs, key, table)
                if function is None:
                    return examined_call(self, args, kwargs)
            if self._shared_check is not None:
                self._shared_check(args)
            result = function(*args, **kwargs) if kwargs else function(*args)
            # the second call of these kinds since the last load (a loop rebinding a global loads every time),
            # and no load since the table was read: write out the entry for calls of these kinds
            if found is not None and self._table is table and not config.verify:
                _write_entry(self, args, kwargs, function, result, current)
            # a NaN from 0 * inf (a zero adjoint times an overflowed partial) is computed again
            return result if clean(result) else settled(self, result, args, kwargs)
        return examined_call(self, args, kwargs)
    except Exception as error:   # raised inside the derivative: note the generated and user lines
        if error.__class__ is not TypeError or not _raised_binding(error):
            tracebacks.annotate(error)
            raise
    # the call does not fit the generated function: fit it (the seed after f's defaults), or say how
    try:
        args, kwargs = rebound_call(self.func, self._generated, self._offset, self._fixed, self.mode, args, kwargs)
    except SrcadError as refusal:
        raise refusal from None
    return self(*args, **kwargs)


def _write_entry(self, args, kwargs, function, result, current) -> None:
    """Give the derivative an entry for this call's kind (a hit of the table: its second call since the last load),
    beside the kinds its entry takes already, up to ``MAX_KINDS``; a derivative of a class with its own call
    (``SPECIAL``) gets none."""
    kinds = getattr(self, "entry_kinds", ())
    if len(kinds) >= MAX_KINDS or getattr(self.__class__, "entry_of", self.__class__).__call__ is not general_call:
        return
    kind = kind_of(args, kwargs, function, result)
    if kind is not None and not any(kind.same_call(other) for other in kinds):
        self.entry_kinds = kinds + (kind,)
        self.__class__ = entry_class(self, self.entry_kinds, current, general_call)


_FLOATS = frozenset({float, np.float64, np.float32})
_ARRAY, _FLOAT64 = np.ndarray, np.dtype(np.float64)


def _raised_binding(error: TypeError) -> bool:
    """Whether ``error`` was raised binding the arguments of the generated function, not inside it."""
    frame = error.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    return frame.tb_frame.f_code in _CALLING_CODES


_CALLING_CODES = (general_call.__code__, examined_call.__code__,
                  bind_arguments(lambda x, *, scale: x, (), {"scale": 1.0}, lambda x, scale: x).__code__)


def _plain_keywords(kwargs: Dict[str, Any]) -> bool:
    """Whether every keyword argument is a plain number, str, None or a real array: nothing to examine
    (the examined call looks at keywords only for complex numbers)."""
    for value in kwargs.values():
        kind = value.__class__
        if kind is _ARRAY:
            if value.dtype.kind not in "fiub":
                return False
        elif kind not in _PLAIN_KEYWORDS:
            return False
    return True


_PLAIN_KEYWORDS = frozenset({float, int, bool, str, type(None), np.float64, np.float32, np.int64, np.int32, np.bool_})
