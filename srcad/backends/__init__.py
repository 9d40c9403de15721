"""Backends: what compiles and runs a generated derivative.

Contract: ``BACKENDS`` names the backends ``srcad.grad``, ``srcad.autodiff``,
``srcad.value_and_grad`` and ``srcad.source`` accept: ``"numpy"`` (the
default: the generated Python runs as it is) and ``"numba"`` (the generated
derivative lowered for numba and compiled in nopython mode,
``srcad.backends.numba_derivative``).  ``checked_backend(name)`` returns the
name or raises ``SrcadError`` naming the choices.  numba is imported only
when a numba derivative is built, never by ``import srcad``.

Example::

    >>> checked_backend("numba")
    'numba'
"""
from __future__ import annotations

from ..errors import SrcadError

BACKENDS = ("numpy", "numba")


def checked_backend(name: str) -> str:
    """``name`` when it names a backend, else ``SrcadError`` listing them."""
    if name not in BACKENDS:
        raise SrcadError(f"backend={name!r} is no backend; use backend=\"numpy\" or backend=\"numba\"")
    return name


def numba_unavailable() -> SrcadError:
    """The error for backend="numba" without numba installed."""
    return SrcadError("backend=\"numba\" needs numba: pip install 'srcad[numba]', or use backend=\"numpy\"")


def compiled_derivative(backend: str, func, wrt, mode: str, optimize: bool, *, has_aux: bool = False,
                        checkpoints=None, with_value: bool = False):
    """None for ``backend="numpy"`` (the caller builds its own derivative); the numba derivative for "numba".

    Example::

        >>> compiled_derivative("numpy", f, 0, "reverse", True) is None   # doctest: +SKIP
        True
    """
    if checked_backend(backend) == "numpy":
        return None
    if has_aux or checkpoints:
        option = "has_aux=True" if has_aux else f"checkpoints={checkpoints}"
        raise SrcadError(f"backend=\"numba\" does not take {option} yet; drop it, or use backend=\"numpy\"")
    try:
        from .numba_derivative import numba_derivative
    except ImportError:
        raise numba_unavailable() from None
    return numba_derivative(func, wrt, mode, optimize, with_value)


def compiled_source(backend: str, func, wrt, mode: str, optimize: bool, ranks, *, checkpoints=None) -> str:
    """The module ``backend`` compiles for arguments of ``ranks`` (every positional argument a scalar when
    None): ``srcad.source(..., backend="numba")``.

    Example::

        >>> print(compiled_source("numba", pool, 0, "reverse", True, (2,)))   # doctest: +SKIP
    """
    derivative = compiled_derivative(backend, func, wrt, mode, optimize, checkpoints=checkpoints)
    if derivative is None:
        raise SrcadError("compiled_source is for compiled backends; srcad.source(f) shows the NumPy one")
    return derivative.source(tuple(ranks) if ranks is not None else (0,) * derivative.arity)
