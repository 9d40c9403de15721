"""Arguments that share memory, passed to a function that changes one of them in place.

Contract: srcad differentiates each argument as its own array.  When ``f``
changes a parameter in place (``x[0] = ...``, ``x *= 2``, ``x.sort()``, a
call that does, found by ``analysis.mutation.mutated_parameters``) and the
caller passes one array for two parameters (``f(a, a)``, ``f(A, A[0])``),
the change reaches the other parameter in Python but not in the derivative:
its value and derivative would be those of another function.
``shared_arguments_check(func, offset)`` returns None when ``func`` changes
no parameter in place (the common case: nothing to check on a call), else a
function of the call's positional arguments that raises ``AliasingError``
when an array argument ``func`` changes may share memory
(``np.may_share_memory``) with another array argument.  ``offset`` is 1 for a
bound method (its object is not among the arguments).

Example::

    >>> import numpy as np
    >>> def f(x, y):
    ...     x[0] = 0.0
    ...     return np.sum(x * y)
    >>> check = shared_arguments_check(f, 0)
    >>> a = np.ones(2)
    >>> check((a, a.copy()))   # distinct arrays: fine
    >>> check((a, a))          # doctest: +SKIP
    Traceback (most recent call last):
    AliasingError: ... pass a copy: f(a, a.copy()) ...
"""
from __future__ import annotations

import inspect
from typing import Callable, Optional, Sequence

import numpy as np

from .analysis.mutation import mutated_parameters
from .errors import AliasingError


def shared_arguments_check(func: Callable, offset: int = 0) -> Optional[Callable[[Sequence], None]]:
    """The check of a call's arguments, or None when ``func`` changes no parameter in place."""
    try:
        mutated = mutated_parameters(func)
    except Exception:   # noqa: BLE001 -- no readable source: the derivative's build reports that
        return None
    if not mutated:
        return None
    names = [p.name for p in inspect.signature(func).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][offset:]
    changed = [(position, name) for position, name in enumerate(names) if name in mutated]
    label = getattr(func, "__name__", "f")
    filename = func.__code__.co_filename

    def check(args: Sequence) -> None:
        args = args[:len(names)]   # f's own arguments: seeds and tangents are never changed
        for position, name in changed:
            if position >= len(args) or args[position].__class__ is not np.ndarray:
                continue
            for other, value in enumerate(args):
                if other != position and value.__class__ is np.ndarray \
                        and np.may_share_memory(args[position], value):
                    other_name = names[other]
                    line, text = mutated[name]
                    shown = ", ".join("a.copy()" if i == max(position, other) else "a" if i in (position, other)
                                      else names[i] for i in range(len(args)))
                    raise AliasingError(
                        f"{filename}:{line}: the arguments `{name}` and `{other_name}` of {label} share memory, and {label} changes "
                        f"`{name}` in place (`{text.split('#')[0].strip()}`): in Python the change reaches `{other_name}` "
                        f"too, while srcad differentiates each argument as its own array; pass a copy: "
                        f"{label}({shown})")
    return check
