"""A derivative's usual call, written out for the arguments it usually gets.

Contract:
- ``entry_for(derivative, args, kwargs, function, current, examine)`` returns
  a function ``entry(derivative, args, kwargs)`` compiled for one kind of
  call: the number of positional arguments of ``args`` and each one's class
  (and, for an array, its dtype and rank), and the names of the keyword
  arguments, of plain values.  So the arguments bind to ``function`` as
  they did in the call that found it, and a ``TypeError`` it raises comes
  from inside.  ``Derivative.__call__`` calls it first.
- It runs ``function`` (the generated function the dispatch table found for
  that call) only when the call is of exactly those kinds, no keyword
  argument is other than a plain value (``plain_keywords``),
  ``config.verify`` is off and the guard ``current`` still holds; anything
  else goes to ``examine`` (the general call, which decides the same way
  from the table).  So it never runs what the general call would not.
- It checks shared memory and the result's NaNs as the general call does:
  a float, or a float64 array of at most 16 elements summed, inline; any
  other result by ``overflow.clean``, then ``overflow.settled``.
- A derivative drops its entry whenever it loads (its table and guard are
  replaced then), so an entry never outlives the code it runs.

Example::

    >>> df = srcad.grad(f); df(x)            # doctest: +SKIP
    >>> df._entry.__name__                    # doctest: +SKIP
    'entry'
"""
from __future__ import annotations

import keyword
from typing import Any, Callable, Dict

import numpy as np

from .config import config
from .frontend.tracebacks import annotate
from .overflow import clean, settled

_ABSENT = object()   # a keyword the call does not pass
_COMPILED: Dict[str, Any] = {}   # entry text -> its code: a derivative loaded again writes the same entry
_TEXT = '''\
def entry(self, args, kwargs):
    if len(args) != {count} or len(kwargs) != {keywords} or config.verify:
        return examine(self, args, kwargs)
    {unpack}
    if not ({kinds}) or not current():
        return examine(self, args, kwargs)
    {shared}
    try:
        result = function({call})
    except Exception as error:   # the arguments bind as they did: raised inside the derivative
        annotate(error)
        raise
{check}
    return result if clean(result) else settled(self, result, args, kwargs)
'''


def entry_for(derivative, args: tuple, kwargs: Dict[str, Any], function: Callable, current: Callable[[], bool],
              examine: Callable, result: Any) -> Callable:
    """The entry of ``derivative`` for calls of the kinds of ``args`` and the names of ``kwargs`` (plain values):
    ``function`` runs them while ``current()`` holds; others go to ``examine``.  ``result`` is what the call
    of ``args`` returned: results of its form are checked for NaNs inline.

    Example::

        entry = entry_for(df, (x,), {}, table[key], df._current, examine, result)
    """
    namespace: Dict[str, Any] = {
        "config": config, "examine": examine, "current": current, "function": function, "annotate": annotate,
        "clean": clean, "settled": settled, "shared": derivative._shared_check, "absent": _ABSENT,
        "ARRAY": np.ndarray, "FLOAT64": np.dtype(np.float64), "F64": np.float64, "vdot": np.vdot}
    if not all(name.isidentifier() and not keyword.iskeyword(name) for name in kwargs):
        return examine   # keywords only ** can pass: always the general call
    names, kinds, unpack = [], [], []
    for position, value in enumerate(args):
        names.append(f"a{position}")
        kinds.append(_kind_test(f"a{position}", value, namespace))
    if names:
        unpack.append(f"{', '.join(names)}, = args")
    for position, (name, value) in enumerate(sorted(kwargs.items())):   # of the same names: absent fails its test
        unpack.append(f"w{position} = kwargs.get({name!r}, absent)")
        kinds.append(_kind_test(f"w{position}", value, namespace))
        names.append(f"{name}=w{position}")
    text = _TEXT.format(
        count=len(args), keywords=len(kwargs), unpack="\n    ".join(unpack) or "pass",
        kinds=" and ".join(kinds) or "True", shared="shared(args)" if derivative._shared_check is not None else "pass",
        call=", ".join(names), check=_result_check(result))
    code = _COMPILED.get(text)
    if code is None:
        if len(_COMPILED) >= 512:
            _COMPILED.clear()
        code = _COMPILED[text] = compile(text, "<srcad call entry>", "exec")
    exec(code, namespace)
    return namespace["entry"]


def _kind_test(name: str, value: Any, namespace: Dict[str, Any]) -> str:
    """The test that the local ``name`` is of ``value``'s class, and for an array of its dtype and rank."""
    namespace[f"{name}_class"] = value.__class__
    test = f"{name}.__class__ is {name}_class"
    if isinstance(value, np.ndarray):
        namespace[f"{name}_dtype"] = value.dtype
        test += f" and {name}.dtype is {name}_dtype and {name}.ndim == {value.ndim}"
    return test


def _result_check(result: Any) -> str:
    """Lines returning a result of ``result``'s form (a float64 array, a float, a tuple of them) that holds no NaN;
    nothing for other forms (``clean`` checks them)."""
    parts = list(result) if result.__class__ is tuple else [result]
    if not parts or not all(_summable(part) for part in parts):
        return ""
    items = [f"r{number}" for number in range(len(parts))] if result.__class__ is tuple else ["result"]
    tests = " and ".join(_summable(part).format(item) for part, item in zip(parts, items))
    total = " + ".join(_sum(part).format(item) for part, item in zip(parts, items))
    lines = [f"if {tests}:", f"    total = {total}   # NaN when an element is NaN (or from inf - inf)",
             "    if total == total:", "        return result"]
    if result.__class__ is tuple:
        lines = [f"if result.__class__ is tuple and len(result) == {len(parts)}:",
                 f"    {', '.join(items)}, = result"] + ["    " + line for line in lines]
    return "\n".join("    " + line for line in lines)


def _summable(value: Any) -> str:
    """The test (of ``{0}``) that a value is of ``value``'s kind; '' for kinds not checked inline."""
    if value.__class__ is float:
        return "{0}.__class__ is float"
    if value.__class__ is np.float64:
        return "{0}.__class__ is F64"
    if value.__class__ is np.ndarray and value.dtype == np.float64:
        size = "<= 16" if value.size <= 16 else "> 16"
        return f"{{0}}.__class__ is ARRAY and {{0}}.dtype is FLOAT64 and {{0}}.ndim == {value.ndim} and {{0}}.size {size}"
    return ""


def _sum(value: Any) -> str:
    """A number that is NaN when ``{0}``, of ``value``'s kind, holds a NaN: the sum of a few elements (the square
    sum of many: an infinity cannot make that NaN), the value itself."""
    if value.__class__ is not np.ndarray:
        return "{0}"
    if value.size > 16:
        return "vdot({0}, {0})"
    return "sum({0}.tolist())" if value.ndim == 1 else "sum({0}.ravel().tolist())"
