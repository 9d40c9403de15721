"""The derivative service for helpers that differentiate a function they are handed at run time.

Contract: ``odeint(func, y0, t, args)``'s adjoint needs the derivatives of
``func``, a function the generated code only passes along.  The API layer
hands its ``derivative`` to the pipeline, which hands it on here
(``use_derivative_service``); helpers call ``derivative_of(function, wrt,
mode, **options)`` and get the same ``Derivative`` a call in the user's code
would (so a derivative built once is reused).  The runtime stays below the
API: it never imports it.

Example::

    >>> from srcad import api
    >>> use_derivative_service(api.derivative)
"""
from __future__ import annotations

from typing import Any, Callable, List

from ..errors import SrcadError

_service: List[Callable[..., Any]] = []


def use_derivative_service(derive: Callable[..., Any]) -> None:
    """Make ``derive(function, wrt, mode, **options)`` the way helpers differentiate functions."""
    _service[:] = [derive]


def derivative_of(function: Callable, wrt, mode: str, **options):
    """The derivative of ``function`` (``srcad.api.derivative``'s), through the service the API handed down.

    Example: ``derivative_of(rhs, wrt=(0, 2), mode="reverse")`` is ``rhs``'s VJP with respect to its
    parameters 0 and 2.
    """
    if not _service:
        raise SrcadError("a derivative helper needs srcad.api to differentiate the function it was given; import "
                         "srcad (not only srcad.runtime) before running generated code")
    return _service[0](function, wrt, mode, **options)
