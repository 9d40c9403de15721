"""Error types raised by srcad.

Contract: every problem srcad reports about user input is a ``SrcadError``
subclass carrying one readable message.  When the problem has a place in the
user's source, the message starts with ``file:line:col``, quotes the line with
a caret under the column, and ends with what to do instead.

Example::

    >>> err = located(UnsupportedSyntaxError, "`del` is not supported",
    ...               hint="drop the statement")
    >>> print(err)
    `del` is not supported; drop the statement
"""
from __future__ import annotations

from typing import Optional


class SrcadError(Exception):
    """Base class of every error srcad raises about the user's code or call."""


class SourceUnavailableError(SrcadError):
    """The source code of a function could not be read."""


class StaleSourceError(SourceUnavailableError):
    """The function's source file no longer holds the code that runs (it was edited after the import)."""


class UnsupportedSyntaxError(SrcadError):
    """The function uses a construct srcad cannot differentiate."""


class UnsupportedValueError(UnsupportedSyntaxError):
    """Generated code met, at run time, a value of a type its construct is not differentiated for.

    srcad builds one derivative whatever types f is called with, so where a
    construct means different things for different types (a loop over a dict
    gives its keys, over a list its items) the generated code checks the type
    and raises this; the traceback's note names the user's line.
    """


class AliasingError(UnsupportedSyntaxError):
    """A change made in place that srcad cannot prove it differentiates exactly.

    Raised when an array, list or dict is changed through one name (a store,
    ``+=``, a mutating call) while another name that shares its memory is
    read later, and the sharing is not one srcad can follow.  The message
    names both names, the line that made them share, and a fix.
    """


class MissingTemplateError(SrcadError):
    """A differentiated call has no gradient template."""


class WrtError(SrcadError):
    """A bad ``wrt`` argument, or a differentiated argument of the wrong kind."""


class SeedError(SrcadError):
    """A seed (output cotangent) that does not match the function's output."""


class ComplexError(SrcadError):
    """A complex number reached a function whose derivative srcad does not give for complex numbers
    (README, "Complex numbers", lists those it does)."""




class VerificationError(SrcadError):
    """With ``srcad.config.verify`` on: a derivative disagreed with central finite differences."""


class Location:
    """A place in the user's source: file, 1-based line, 0-based column and the line's text."""

    __slots__ = ("filename", "lineno", "col", "text")

    def __init__(self, filename: str, lineno: int, col: int, text: str):
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.text = text

    def render(self) -> str:
        """``file:line:col`` followed by the source line and a caret under the column."""
        head = f"{self.filename}:{self.lineno}:{self.col + 1}"
        if not self.text:
            return head
        stripped = self.text.rstrip()
        indent = len(stripped) - len(stripped.lstrip())
        caret = " " * (max(self.col, indent) - indent)
        return f"{head}\n    {stripped.lstrip()}\n    {caret}^"


def _compose(message: str, hint: str, where: Optional[Location]) -> str:
    text = message if not hint else f"{message}; {hint}"
    if where is None:
        return text
    return f"{where.render()}\n{text}"


def located(error_type, message: str, hint: str = "", where: Optional[Location] = None) -> SrcadError:
    """Build an error of ``error_type`` whose message carries ``where`` and ``hint``."""
    return error_type(_compose(message, hint, where))
