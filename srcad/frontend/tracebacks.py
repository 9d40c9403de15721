"""Notes that tie an exception raised inside a derivative to the user's source line.

Contract:
- ``remember(code, func)`` records that the generated module ``code`` (its
  file name) differentiates ``func``; ``srcad.loader`` calls it for every
  module it runs.  Only a weak reference to ``func`` is kept.
- ``annotate(error)`` adds one note per frame of ``error``'s traceback that
  runs generated code: the generated file and line, and the line of the
  user's function that code comes from (found through the ``# <source
  line>`` comment heading each generated block), e.g.::

      in the derivative of f:
        generated /home/me/.cache/srcad/f_1a2b.py:31: helper_m = helper(m)
        from /home/me/model.py:11: return s + np.sum(helper(m))

  On Python 3.11+ the note is added with ``add_note`` (the traceback prints
  it after the message).  On older versions it is appended to the message
  when the exception's only argument is a message string, so the exception
  keeps its type and ``str(error)`` shows it.
  ``SrcadError`` (srcad's own located messages) is left unchanged, but for
  ``UnsupportedValueError`` (raised by generated code at run time, with no
  place of its own), and so is an error that already carries the same note.

Example::

    try:
        derivative_function(*args)
    except Exception as error:
        annotate(error)
        raise
"""
from __future__ import annotations

import inspect
import linecache
import weakref
from typing import Dict, List, Optional, Tuple

from ..errors import SrcadError, UnsupportedValueError

_ORIGINS: Dict[str, "weakref.ref"] = {}


def remember(code, func) -> None:
    """Record that generated ``code`` differentiates ``func``."""
    try:
        _ORIGINS[code.co_filename] = weakref.ref(func)
    except TypeError:   # not weak-referenceable: no notes for it
        pass


def annotate(error: BaseException) -> None:
    """Add a note to ``error`` for each generated frame its traceback passes through."""
    if isinstance(error, SrcadError) and not isinstance(error, UnsupportedValueError):
        return   # it names its place already
    traceback = error.__traceback__
    while traceback is not None:
        reference = _ORIGINS.get(traceback.tb_frame.f_code.co_filename)
        func = reference() if reference is not None else None
        if func is not None:
            note = describe_frame(func, traceback.tb_frame.f_code.co_filename, traceback.tb_lineno)
            if note not in getattr(error, "__notes__", ()) and note not in getattr(error, "_srcad_notes", ()):
                _add_note(error, note)
        traceback = traceback.tb_next


def describe_frame(func, filename: str, lineno: int) -> str:
    """The note for line ``lineno`` of the generated file ``filename`` differentiating ``func``."""
    generated = linecache.getline(filename, lineno).strip()
    note = [f"in the derivative of {getattr(func, '__qualname__', func)}:",
            f"  generated {filename}:{lineno}: {generated}"]
    original = _original_line(filename, lineno)
    if original is not None:
        place = _user_place(func, original)
        where = f"{place[0]}:{place[1]}" if place else getattr(func.__code__, "co_filename", "?")
        note.append(f"  from {where}: {original}")
    return "\n".join(note)


def user_line(filename: str, lineno: int) -> Optional[Tuple[str, int, str, str]]:
    """For line ``lineno`` of a generated file (srcad differentiating its own code again, maybe several
    times over): ``(file, line, text, function name)`` of the user's line it comes from, or None.

    Example: ``user_line(".../df_1a2b.py", 31)`` is ``("/home/me/model.py", 11, "return ...", "f")``.
    """
    reference = _ORIGINS.get(filename)
    func = reference() if reference is not None else None
    original = _original_line(filename, lineno) if func is not None else None
    place = _user_place(func, original) if original is not None else None
    if place is None:
        return None
    return user_line(*place) or (place[0], place[1], original, getattr(func, "__qualname__", "f"))


def _original_line(filename: str, lineno: int) -> Optional[str]:
    """The user's source line quoted in the comment heading the block that holds ``lineno``."""
    lines = linecache.getlines(filename)
    for index in range(min(lineno, len(lines)) - 1, -1, -1):
        text = lines[index]
        stripped = text.strip()
        if not text.startswith((" ", "\t")):
            return None   # left the function body: no comment heads this line
        if stripped.startswith("# "):
            return stripped[2:]
    return None


def _user_place(func, original: str) -> Optional[Tuple[str, int]]:
    """(file, line) of the first line of ``func``'s source that reads ``original``; a line quoted as
    ``helper: text`` comes from a helper inlined into ``func``, and is looked up in the helper."""
    helper_name, separator, text = original.partition(": ")
    helper = getattr(func, "__globals__", {}).get(helper_name) if separator else None
    if inspect.isfunction(helper) and helper is not func:
        place = _user_place(helper, text)
        if place is not None:
            return place
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return None
    for offset, text in enumerate(lines):
        if text.strip() == original:
            return inspect.getsourcefile(func) or func.__code__.co_filename, first + offset
    return None


def _add_note(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):
        error.add_note(note)
        return
    # Before 3.11 the note goes into the message.  Not into ``__notes__`` as well: the exceptiongroup
    # backport (pulled in by pytest and others) makes older tracebacks print those too, twice over.
    notes: List[str] = list(getattr(error, "_srcad_notes", ()))
    try:
        error._srcad_notes = notes + [note]
    except AttributeError:
        return
    if len(error.args) == 1 and isinstance(error.args[0], str) and not isinstance(error, KeyError):
        error.args = (f"{error.args[0]}\n{note}",)


def is_generated(func) -> bool:
    """Whether ``func`` is a function of a module srcad generated (a derivative, differentiated again)."""
    code = getattr(func, "__code__", None)
    reference = _ORIGINS.get(code.co_filename) if code is not None else None
    return reference is not None and reference() is not None
