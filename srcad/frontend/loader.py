"""Compiling generated modules and giving them the user's scope.

Contract: ``compile_text(text, path, label)`` compiles a module's text with a
real file name, so tracebacks and pdb show the derivative's lines; when
``path`` is None the text is registered in ``linecache`` under ``label``
instead.  ``instantiate(code, function_name, names, func, fallback, own)`` runs the
module in a fresh namespace holding ``names`` looked up in ``func``'s closure,
then its globals, then ``fallback`` (the ``own`` names, which the build made,
in ``fallback`` only), and returns the derivative function.
It returns None when a name cannot be found (the caller then rebuilds).
Every module it runs is recorded with ``srcad.tracebacks.remember``, so an
exception raised inside a derivative can be annotated with the user's line.
``read_meta(source)`` reads the derivative's name and injected names back
from a generated module's text.  ``with_defaults_of(func, function)`` gives
the derivative ``func``'s defaults as they are now, not as its ``def``
statement spells them.

Example::

    code = compile_text(text, "/cache/df_1234.py", "df")
    df = instantiate(code, "df", ["W"], f, {})
"""
from __future__ import annotations

import builtins
import inspect
import linecache
from typing import Callable, Dict, Iterable, Optional, Tuple

from ..errors import SrcadError
from . import tracebacks

_MISSING = object()


def compile_text(text: str, path: Optional[str], label: str):
    """A code object for ``text``, attributed to ``path`` (or to an in-memory ``label``)."""
    filename = path or f"<srcad {label}>"
    if path is None:
        lines = text.splitlines(keepends=True)
        linecache.cache[filename] = (len(text), None, lines, filename)
    return compile(text, filename, "exec", dont_inherit=True)


def read_meta(source: str) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """(function name, injected names) recorded in a generated module's text, or None.

    Example::

        >>> read_meta("# from the scope of f: W, b\\ndef df(x, dout=1.0):\\n    pass\\n")
        ('df', ('W', 'b'))
    """
    injected: Tuple[str, ...] = ()
    for line in source.splitlines():
        if line.startswith("# from the scope of "):
            injected = tuple(part.strip() for part in line.partition(": ")[2].split(","))
        elif line.startswith("def "):
            return line[4:line.index("(")], injected
    return None


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


def instantiate(code, function_name: str, names: Iterable[str], func, fallback: Dict,
                own: Iterable[str] = ()) -> Optional[Callable]:
    """Run the module ``code`` in a namespace built from ``func``'s scope; its derivative.  The ``own`` names
    (made by the build, not read from the scope: a method's function) come from ``fallback`` only."""
    namespace = {"__builtins__": builtins, "__name__": f"srcad.generated.{function_name}"}
    own = set(own)
    for name in names:
        value = fallback.get(name, _MISSING) if name in own else scope_value(func, name, fallback)
        if value is _MISSING:
            return None
        namespace[name] = value
    exec(code, namespace)
    tracebacks.remember(code, func)
    return namespace[function_name]



def with_defaults_of(func: Callable, function: Callable) -> Callable:
    """``function`` (generated from ``func``'s source) given ``func``'s defaults as they are now.

    The ``def`` of a derivative repeats the defaults written in ``func``'s
    ``def``, but ``func`` runs with the values it holds: those evaluated when
    it was defined (``def f(x, k=K)`` keeps the ``K`` of that moment), or
    assigned to ``__defaults__`` / ``__kwdefaults__`` since.  The seed's and
    the tangents' defaults stay.  Raises ``SrcadError`` when ``func`` has
    defaults now where its ``def`` had none (the derivative's seed or
    tangents follow those parameters).

    Example::

        >>> def f(x, k=2.0):
        ...     return x * k
        >>> def df(x, k=2.0, *, dout=1.0):
        ...     return dout * k
        >>> f.__defaults__ = (3.0,)
        >>> with_defaults_of(f, df).__defaults__
        (3.0,)
    """
    if not inspect.isfunction(func) or not inspect.isfunction(function):
        return function
    code, generated = func.__code__, function.__code__
    count = code.co_argcount
    if generated.co_varnames[:count] != code.co_varnames[:count]:
        return function   # not a derivative of func's parameters (a kernel, a test double)
    if generated.co_argcount == count:
        function.__defaults__ = func.__defaults__
    elif func.__defaults__:
        raise SrcadError(f"{func.__qualname__}.__defaults__ was set to {func.__defaults__!r}, but the def "
                         f"statement of {func.__name__} has no defaults, so its derivative takes the seed or "
                         f"tangents after {', '.join(code.co_varnames[:count])}; write the defaults in the def "
                         f"statement (def {func.__name__}(..., name=value)) instead")
    keyword = code.co_varnames[count:count + code.co_kwonlyargcount]
    if keyword:
        defaults = dict(function.__kwdefaults__ or {})
        for name in keyword:
            if func.__kwdefaults__ and name in func.__kwdefaults__:
                defaults[name] = func.__kwdefaults__[name]
            else:
                defaults.pop(name, None)
        function.__kwdefaults__ = defaults or None
    return function
