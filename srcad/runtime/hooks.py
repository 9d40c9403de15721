"""``srcad.insert_grad_of``: user code that runs on an adjoint in the backward pass.

Contract:
- In a differentiated function, ``with srcad.insert_grad_of(x) as dx: body``
  marks a place in the reverse sweep.  The generated derivative runs ``body``
  there with ``dx`` bound to the adjoint of ``x`` as it stands at that point
  (every use of ``x`` after the ``with`` has contributed), and continues with
  whatever ``body`` leaves in ``dx``: clip it, scale it, print it.  The
  ``grad_hooks`` pass and ``reverse`` do this; forward mode ignores the block.
- Called directly, the function skips the block: ``__enter__`` arranges for
  the block's first line to raise ``_SkipBlock``, which ``__exit__`` swallows,
  so the body never runs and the primal result is unchanged.  Any trace
  function already installed (a debugger, coverage) is restored on exit.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     y = 3.0 * x
    ...     with srcad.insert_grad_of(y) as dy:
    ...         dy = np.clip(dy, -1.0, 1.0)
    ...     return np.sum(y * y)
    >>> f(np.ones(2))   # the block does not run here
    np.float64(18.0)
"""
from __future__ import annotations

import sys
from typing import Any


class _SkipBlock(Exception):
    """Raised at the first line of an ``insert_grad_of`` block run outside a derivative."""


def _no_global_trace(frame, event, arg):   # line tracing needs some global trace function
    return None


class insert_grad_of:  # noqa: N801 -- reads as a statement: ``with srcad.insert_grad_of(x) as dx``
    """Edit the adjoint of ``value`` in the backward pass; a no-op when the function runs normally.

    Example::

        with srcad.insert_grad_of(h) as dh:
            dh = dh / max(1.0, float(np.linalg.norm(dh)))   # gradient clipping
    """

    def __init__(self, value: Any):
        self.value = value

    def __enter__(self) -> Any:
        frame = sys._getframe(1)
        self._frame, self._outer_trace, self._frame_trace = frame, sys.gettrace(), frame.f_trace
        if self._outer_trace is None:
            sys.settrace(_no_global_trace)
        frame.f_trace = self._skip
        return None

    def _skip(self, frame, event, arg):
        if event == "line":
            raise _SkipBlock()
        return self._skip

    def __exit__(self, kind, error, traceback) -> bool:
        self._frame.f_trace = self._frame_trace
        sys.settrace(self._outer_trace)
        self._frame = None
        return kind is _SkipBlock
