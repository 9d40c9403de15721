"""``srcad.stop_gradient``: the user's way to cut a derivative.

Contract: ``stop_gradient(value)`` returns ``value`` unchanged when the
function runs; the rule registry declares it non-differentiable, so no
derivative flows through it in either mode.

Example::

    >>> import srcad
    >>> def f(x):
    ...     return x * srcad.stop_gradient(x)
    >>> srcad.grad(f)(3.0)   # doctest: +SKIP
    3.0
"""
from typing import TypeVar

Value = TypeVar("Value")


def stop_gradient(value: Value) -> Value:
    """``value`` itself; no derivative flows through it, in either mode.

    Example::

        >>> stop_gradient(2.0)
        2.0
    """
    return value
