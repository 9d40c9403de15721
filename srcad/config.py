"""srcad's run-time settings, one object: ``srcad.config``.

Contract:
- ``config.verify`` (bool): when true, every derivative checks itself against
  central finite differences the first time it runs on each argument
  signature (see ``srcad.verify``).  It starts true when the environment
  variable ``SRCAD_VERIFY`` is ``1``, ``true``, ``yes`` or ``on`` (any case)
  at import, and may be set at any time.
- Reading a setting costs one attribute lookup: derivatives read them on
  every call.

Example::

    >>> from srcad.config import config
    >>> config.verify = True
    >>> config.verify = False
"""
from __future__ import annotations

import os

_TRUE = ("1", "true", "yes", "on")


class Config:
    """The settings; ``srcad.config`` is the one instance."""

    __slots__ = ("verify",)

    def __init__(self) -> None:
        self.verify: bool = os.environ.get("SRCAD_VERIFY", "").strip().lower() in _TRUE

    def __repr__(self) -> str:
        return f"srcad.config(verify={self.verify})"


config = Config()
