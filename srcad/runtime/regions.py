"""Markers for ``try`` and ``with`` while a derivative is built, and the check a ``with`` needs at run time.

Contract: ``attempted``, ``attempt_end``, ``no_exception``, ``entered``,
``entered_value`` and ``exited`` stand in the code srcad transforms for the
parts of a ``try`` or ``with`` statement the mode transforms do not know
(``passes/exceptions.py``, ``passes/contexts.py``); the last pass,
``passes/regions.py``, replaces every one of them by real ``try`` and
``with`` statements, so generated code never calls them (each raises
``SrcadError`` if it is called).  ``unsuppressed(manager)`` wraps a context
manager srcad does not know: it enters and exits it as ``with`` would, and
raises ``SrcadError`` if it swallows an exception, since the derivative
cannot follow a block that stopped half way.

Example::

    >>> with unsuppressed(open(__file__)) as handle:
    ...     first = handle.readline()
"""
from __future__ import annotations

from ..errors import SrcadError


def _marker(*args, **kwargs):
    raise SrcadError("a srcad marker reached generated code; please report this as a bug")


def attempted():
    """``ok = attempted()``: whether the statement in ``if ok:`` after it ran to its end (marker)."""
    return _marker()


def attempt_end(value=None):
    """Ends the statement ``attempted`` protects; keeps the value it computed in use (marker)."""
    return _marker(value)


def no_exception():
    """The value a ``try``'s caught exception has before any is caught: None (marker)."""
    return _marker()


def entered(manager, region):
    """``with manager:`` starts here, for the statements up to ``exited(region)`` (marker)."""
    return _marker(manager, region)


def entered_value(region):
    """What ``manager.__enter__()`` returned, for ``with manager as name`` (marker)."""
    return _marker(region)


def exited(region):
    """The ``with`` block ``region`` ends here (marker)."""
    return _marker(region)


class unsuppressed:
    """``with unsuppressed(manager) as value:`` is ``with manager as value:``, refusing to swallow an exception."""

    def __init__(self, manager):
        self.manager = manager

    def __enter__(self):
        return self.manager.__enter__()

    def __exit__(self, kind, error, trace):
        if self.manager.__exit__(kind, error, trace) and kind is not None:
            raise SrcadError(f"the context manager {self.manager!r} swallowed {kind.__name__}: {error}; srcad's "
                             f"derivative cannot carry on from the middle of a `with` block: catch the exception "
                             f"with try/except inside the block instead") from error
        return False
