"""Colour for generated code on a terminal: Pygments when it is installed, plain text otherwise.

Contract:
- ``wants_color(choice, stream)`` decides: ``"always"`` and ``"never"`` are
  obeyed; ``"auto"`` colours only a terminal (``stream.isatty()``), never
  when the ``NO_COLOR`` environment variable is set to anything non-empty
  (https://no-color.org) or ``TERM`` is ``dumb``.
- ``highlight_python(text)`` returns ``text`` with ANSI colour codes when
  Pygments is importable (the ``srcad[color]`` extra), else ``text`` as it is;
  removing the escape codes always gives ``text`` back.
- ``highlight_diff(text)`` colours a unified diff (added lines green, removed
  red, hunk headers cyan) with plain ANSI codes, so it needs no Pygments.
- Pygments is imported on first use, never by ``import srcad``.

Example::

    >>> import io
    >>> wants_color("auto", io.StringIO())
    False
    >>> strip_ansi(highlight_diff("+y = x\\n")) == "+y = x\\n"
    True
"""
from __future__ import annotations

import os
import re
from typing import Optional, TextIO

COLOR_CHOICES = ("auto", "always", "never")
_RESET = "\x1b[0m"
_DIFF_COLORS = (("+++", "\x1b[1m"), ("---", "\x1b[1m"), ("@@", "\x1b[36m"), ("+", "\x1b[32m"), ("-", "\x1b[31m"))
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def wants_color(choice: str, stream: TextIO) -> bool:
    """Whether to colour what is written to ``stream`` for ``--color choice``.

    Example::

        >>> import sys
        >>> wants_color("never", sys.stdout), wants_color("always", sys.stdout)
        (False, True)
    """
    if choice not in COLOR_CHOICES:
        raise ValueError(f"--color {choice!r}: choose one of {', '.join(COLOR_CHOICES)}")
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def pygments_version() -> Optional[str]:
    """The installed Pygments version, or None when it is not importable.

    Example::

        >>> pygments_version() is None or pygments_version()[0].isdigit()
        True
    """
    try:
        import pygments
    except ImportError:
        return None
    return str(pygments.__version__)


def highlight_python(text: str) -> str:
    """``text`` (Python source) with terminal colours, or unchanged without Pygments.

    Example::

        >>> strip_ansi(highlight_python("y = x  # a comment\\n"))
        'y = x  # a comment\\n'
    """
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return text
    return str(highlight(text, PythonLexer(stripnl=False, ensurenl=False), TerminalFormatter()))


def highlight_diff(text: str) -> str:
    """A unified diff with added lines green, removed lines red and hunk headers cyan.

    Example::

        >>> highlight_diff("-a\\n+b\\n").splitlines()[1] == "\\x1b[32m+b\\x1b[0m"
        True
    """
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        color = next((code for prefix, code in _DIFF_COLORS if body.startswith(prefix)), None)
        lines.append(f"{color}{body}{_RESET}{line[len(body):]}" if color else line)
    return "".join(lines)


def strip_ansi(text: str) -> str:
    """``text`` without ANSI colour codes.

    Example::

        >>> strip_ansi("\\x1b[32m+b\\x1b[0m")
        '+b'
    """
    return _ANSI.sub("", text)
