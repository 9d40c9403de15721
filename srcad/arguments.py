"""What a derivative is taken with respect to, and the shape its gradients come back in.

Contract:
- ``Wrt`` is what ``wrt=`` accepts: a parameter position, a parameter name,
  the name of a global or closure variable the function reads, or a tuple or
  list of those.
- ``resolve_wrt(func, wrt)`` returns ``(names, as_tuple)``: the parameter
  names in the order given, and whether the caller asked for a tuple.  Any
  other entry (a bool, a float, a name the function neither takes nor reads,
  a position out of range, a name given twice) raises ``WrtError``.
- ``like_structure(gradient, argument)`` gives a gradient the container kinds
  of its argument (a tuple or named tuple argument gets one back).

Example::

    >>> def f(x, w, *, scale=1.0): return x * w * scale
    >>> resolve_wrt(f, ("w", 0))
    (('w', 'x'), True)
"""
from __future__ import annotations

import inspect
from typing import Callable, Sequence, Tuple, Union

from .errors import WrtError
from .frontend.source import unwrap

Wrt = Union[int, str, Sequence[Union[int, str]]]


def parameter_names(func: Callable) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(positional parameter names, keyword-only names) of ``func``."""
    signature = inspect.signature(func)
    positional = tuple(p.name for p in signature.parameters.values()
                       if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    keyword = tuple(p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY)
    return positional, keyword


def resolve_wrt(func: Callable, wrt: Wrt) -> Tuple[Tuple[str, ...], bool]:
    """The parameter names ``wrt`` denotes, and whether the result is a tuple."""
    positional, keyword = parameter_names(func)
    label = f"{getattr(func, '__name__', 'f')}({', '.join(positional + keyword)})"
    as_tuple = isinstance(wrt, (tuple, list))
    entries = list(wrt) if as_tuple else [wrt]
    if as_tuple and not entries:
        raise WrtError(f"wrt=() names no parameter of {label}; pass a position or a name")
    names = []
    for entry in entries:
        if isinstance(entry, bool) or not isinstance(entry, (int, str)):
            raise WrtError(f"wrt entries are parameter positions or names, not {entry!r}; {label}")
        if isinstance(entry, int):
            if not -len(positional) <= entry < len(positional):
                raise WrtError(f"wrt={entry} is out of range: {label} has {len(positional)} positional "
                               f"parameter(s), so use 0..{len(positional) - 1} or a name")
            name = positional[entry]
        else:
            if entry not in positional + keyword and not _reads_from_outside(func, entry):
                raise WrtError(f"wrt={entry!r} is neither a parameter of {label} nor a global or closure "
                               f"variable it reads")
            name = entry
        if name in names:
            raise WrtError(f"wrt names {name!r} twice")
        names.append(name)
    return tuple(names), as_tuple


def _reads_from_outside(func: Callable, name: str) -> bool:
    """Whether ``func`` reads ``name`` as a global or closure variable (never assigning it)."""
    code = getattr(unwrap(func), "__code__", None)
    if code is None or name in code.co_varnames:
        return False
    return name in code.co_freevars or (name in code.co_names and name in unwrap(func).__globals__)


def like_structure(gradient, argument):
    """``gradient`` with the container kinds of ``argument`` (a tuple argument gets a tuple)."""
    if isinstance(argument, tuple) and isinstance(gradient, (list, tuple)):
        items = tuple(like_structure(g, a) for g, a in zip(gradient, argument))
        return type(argument)(*items) if hasattr(argument, "_fields") else items
    if isinstance(argument, list) and isinstance(gradient, list):
        return [like_structure(g, a) for g, a in zip(gradient, argument)]
    if isinstance(argument, dict) and isinstance(gradient, dict):
        return {key: like_structure(value, argument[key]) if key in argument else value
                for key, value in gradient.items()}
    return gradient
