"""What the modules above ``srcad.derivative`` plug into every derivative when srcad is imported.

A derivative is called, loaded and checked by code that lives higher up
(``srcad.api`` builds modules, ``srcad.calling`` calls derivatives other
than with f's plain arguments, ``srcad.verify`` checks them against finite
differences).  Those modules import ``srcad.derivative``, so it cannot
import them: they hand their functions down through these setters instead.

Contract:
- ``use_loader(load)``: ``LOADER[0](derivative)`` records what the
  derivative depends on, finds or builds the module that fits, and binds it.
- ``use_special_calls(kinds)``: ``SPECIAL`` maps ``"method"``, ``"objects"``,
  ``"whole object"`` and ``"variadic"`` to the classes or functions that
  handle those calls.
- ``use_verifier(verified_call)``: ``verifier()`` returns it (None until
  set); with ``config.verify`` on, every call goes through it unless
  ``VERIFYING.active`` says a check is already running on this thread.
Nothing here runs a derivative: it only holds what others set.

Example::

    >>> from srcad import derivative_hooks
    >>> derivative_hooks.verifier() is not None   # srcad.verify set it on import
    True
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional

SPECIAL: Dict[str, Any] = {}   # srcad.calling's derivatives called other than with f's arguments
LOADER: List[Callable[[Any], None]] = []   # srcad.api.load
_VERIFIER: List[Callable[[Any, tuple, dict], Any]] = []   # srcad.verify.verified_call


def use_special_calls(kinds: Dict[str, Any]) -> None:
    """Give the derivatives called other than with f's plain arguments (``srcad.calling`` sets them when srcad
    is imported): ``"method"`` (per object), ``"objects"`` (containers field by field), ``"whole object"``
    (``wrt='self'``) and ``"variadic"`` (``f(*xs, **kw)``).

    Example::

        >>> from srcad import api, calling
        >>> api.use_special_calls(calling.KINDS)
    """
    SPECIAL.update(kinds)


def use_verifier(verified_call: Callable[[Any, tuple, dict], Any]) -> None:
    """With ``config.verify`` on, derivatives are called through ``verified_call(derivative, args, kwargs)``.

    ``srcad.verify`` sets it when srcad is imported: it checks each new argument signature against
    finite differences, and calls the derivative again with the check off (``VERIFYING``).

    Example::

        >>> from srcad import api, verify
        >>> api.use_verifier(verify.verified_call)
    """
    _VERIFIER[:] = [verified_call]


def verifier() -> Optional[Callable[[Any, tuple, dict], Any]]:
    """The function ``use_verifier`` set, or None.

    Example::

        >>> verifier() is None or callable(verifier())
        True
    """
    return _VERIFIER[0] if _VERIFIER else None


class _Verifying(threading.local):
    active = False   # a check is running on this thread: its own derivatives are not checked again


VERIFYING = _Verifying()


def use_loader(load: Callable[[Any], None]) -> None:
    """Have derivatives loaded by ``load(derivative)`` (``srcad.api`` sets it when srcad is imported): it
    records what the derivative depends on, finds or builds the module that fits, and binds it.

    Example::

        >>> from srcad import api, derivative
        >>> derivative.use_loader(api.load)
    """
    LOADER[:] = [load]
