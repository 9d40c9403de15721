"""Warnings that point at the user's code, not at the line of srcad that noticed the problem.

Contract:
- ``warn(message, category)`` issues ``message`` attributed to the innermost
  frame outside srcad's own packages (``srcad/``, ``grad_templates/``) and
  outside the import machinery and the derivative modules srcad generated, so ``warnings`` shows the user's call (the
  line that called the derivative, or that imported SciPy) whatever the depth
  of srcad's frames in between.
- Every message says what to do about it; this module only places it.

Example::

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("srcad: something to fix; do this", RuntimeWarning)
    >>> caught[0].filename.endswith("user_warnings.py")
    False
"""
from __future__ import annotations

import linecache
import os
import sys
import warnings
from types import FrameType
from typing import Optional, Tuple, Type

_OWN_DIRECTORIES: Tuple[str, ...] = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), package) + os.sep
    for package in ("srcad", "grad_templates"))
_GENERATED_FIRST_LINE = "# srcad-key: "   # a generated module kept in the disk cache (``cache.KEY_LINE``)


def _is_internal(filename: str) -> bool:
    """Whether a frame of ``filename`` is srcad's (its packages, or code it generated) or the import machinery's."""
    if filename.startswith("<"):
        return filename.startswith(("<frozen importlib", "<srcad "))
    return (os.path.abspath(filename).startswith(_OWN_DIRECTORIES)
            or linecache.getline(filename, 1).startswith(_GENERATED_FIRST_LINE))


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by this function's caller name the user's frame.

    Example::

        >>> user_stacklevel() >= 1
        True
    """
    frame: Optional[FrameType] = sys._getframe(1)   # the caller of user_stacklevel: level 1 of its warnings.warn
    level = 1
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 1


def warn(message: str, category: Type[Warning] = UserWarning) -> None:
    """Issue ``message`` as a ``category`` warning placed at the user's frame.

    Example::

        >>> warn("srcad: the cache directory is shared; set SRCAD_CACHE_DIR")   # doctest: +SKIP
    """
    warnings.warn(message, category, stacklevel=user_stacklevel())
