"""Compiling generated modules and giving them the user's scope.

Contract: ``compile_text(text, path, label)`` compiles a module's text with a
real file name, so tracebacks and pdb show the derivative's lines; when
``path`` is None the text is registered in ``linecache`` under ``label``
instead.  ``instantiate(code, function_name, names, func, fallback)`` runs the
module in a fresh namespace holding ``names`` looked up in ``func``'s closure,
then its globals, then ``fallback``, and returns the derivative function.
It returns None when a name cannot be found (the caller then rebuilds).
Every module it runs is recorded with ``srcad.tracebacks.remember``, so an
exception raised inside a derivative can be annotated with the user's line.

Example::

    code = compile_text(text, "/cache/df_1234.py", "df")
    df = instantiate(code, "df", ["W"], f, {})
"""
from __future__ import annotations

import builtins
import linecache
from typing import Callable, Dict, Iterable, Optional

from . import tracebacks

_MISSING = object()


def compile_text(text: str, path: Optional[str], label: str):
    """A code object for ``text``, attributed to ``path`` (or to an in-memory ``label``)."""
    filename = path or f"<srcad {label}>"
    if path is None:
        lines = text.splitlines(keepends=True)
        linecache.cache[filename] = (len(text), None, lines, filename)
    return compile(text, filename, "exec", dont_inherit=True)


def scope_value(func, name: str, fallback: Dict):
    """What ``name`` denotes for ``func``: closure, then globals, then ``fallback``."""
    code = func.__code__
    if func.__closure__ and name in code.co_freevars:
        try:
            return func.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:
            pass
    value = func.__globals__.get(name, _MISSING)
    if value is _MISSING:
        value = fallback.get(name, _MISSING)
    return value


def instantiate(code, function_name: str, names: Iterable[str], func, fallback: Dict) -> Optional[Callable]:
    """Run the module ``code`` in a namespace built from ``func``'s scope; its derivative."""
    namespace = {"__builtins__": builtins, "__name__": f"srcad.generated.{function_name}"}
    for name in names:
        value = scope_value(func, name, fallback)
        if value is _MISSING:
            return None
        namespace[name] = value
    exec(code, namespace)
    tracebacks.remember(code, func)
    return namespace[function_name]

