"""Reading a user function's source and parsing it with gast.

Contract: ``parse_function(func)`` returns a ``ParsedFunction`` whose ``tree``
is the gast ``FunctionDef`` of ``func`` (dedented, decorators removed) and
which maps any node back to a ``Location`` in the user's file.  It raises
``SourceUnavailableError`` with a fix when the source cannot be read.

Example::

    >>> def f(x):
    ...     return x * 2.0
    >>> parse_function(f).tree.name   # doctest: +SKIP
    'f'
"""
from __future__ import annotations

import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass, field
from typing import Callable, List, Tuple

import gast

from ..errors import Location, SourceUnavailableError

_NO_SOURCE_HINT = (
    "srcad reads a function's source code to differentiate it. Define the function "
    "in a .py file (or a notebook cell) and import it; functions typed at the "
    "interactive prompt, passed to `python -c`, or written in C have no source "
    "to read. For a function without source, register its derivative with "
    "@srcad.adjoint / @srcad.tangent."
)


@dataclass
class ParsedFunction:
    """A function's gast tree plus what is needed to point back into its file."""

    func: Callable
    tree: gast.FunctionDef
    filename: str
    first_line: int        # line number, in the file, of the tree's line 1
    indent: int            # columns removed by dedenting
    lines: List[str]       # the dedented source lines
    included: List[Tuple[int, "ParsedFunction"]] = field(default_factory=list)   # (line offset, callee)

    def include(self, other: "ParsedFunction") -> int:
        """Give ``other``'s lines numbers after this function's; returns the offset to add to them.

        Inlined callees keep pointing into their own source: ``location`` and
        ``line_text`` of a shifted line number answer for ``other``.
        """
        offset = len(self.lines) + sum(len(parsed.lines) for _, parsed in self.included)
        self.included.append((offset, other))
        return offset

    def _owner(self, lineno: int) -> Tuple["ParsedFunction", int]:
        for offset, parsed in self.included:
            if offset < lineno <= offset + len(parsed.lines):
                return parsed, lineno - offset
        return self, lineno

    def location(self, node) -> Location:
        """Where ``node`` stands in the user's file."""
        lineno = getattr(node, "lineno", None) or 1
        col = getattr(node, "col_offset", None) or 0
        owner, lineno = self._owner(lineno)
        text = owner.lines[lineno - 1] if 0 < lineno <= len(owner.lines) else ""
        return Location(owner.filename, owner.first_line + lineno - 1, col + owner.indent, text)

    def line_text(self, lineno: int) -> str:
        """The stripped source text of dedented line ``lineno``; an inlined callee's line names the callee."""
        owner, lineno = self._owner(lineno)
        text = owner.lines[lineno - 1].strip() if 0 < lineno <= len(owner.lines) else ""
        return f"{owner.tree.name}: {text}" if owner is not self and text else text


def unwrap(func: Callable) -> Callable:
    """The plain Python function behind methods, ``functools.wraps`` and srcad derivatives."""
    if hasattr(func, "_load") and hasattr(func, "_compiled"):   # a srcad derivative: its generated function
        if func._compiled is None:
            func._load()
        func = func._compiled
    func = inspect.unwrap(func)
    return getattr(func, "__func__", func)


def parse_function(func: Callable) -> ParsedFunction:
    """Read ``func``'s source with ``inspect`` and parse it with gast."""
    func = unwrap(func)
    name = getattr(func, "__qualname__", repr(func))
    if not inspect.isfunction(func):
        raise SourceUnavailableError(f"cannot read the source of {name!r}: it is not a Python function. {_NO_SOURCE_HINT}")
    filename = func.__code__.co_filename
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(f"cannot read the source of {name!r} ({exc}). {_NO_SOURCE_HINT}") from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    first = next((ln for ln in raw.splitlines() if ln.strip()), "")
    indent = len(first) - len(first.lstrip())
    try:
        module = gast.parse(dedented)
    except SyntaxError as exc:  # e.g. source edited on disk after import
        raise SourceUnavailableError(
            f"the source of {name!r} in {filename} no longer parses ({exc.msg}); "
            f"was the file edited after it was imported? Reload it.") from None
    tree = module.body[0]
    if isinstance(tree, gast.AsyncFunctionDef):
        from ..errors import UnsupportedSyntaxError, located
        parsed = ParsedFunction(func, tree, filename, first_line, indent, dedented.splitlines())
        raise located(UnsupportedSyntaxError, "an async def is not supported", "differentiate a plain def",
                      parsed.location(tree))
    if func.__name__ == "<lambda>":
        tree = _lambda_as_def(module, func, name)
    if not isinstance(tree, gast.FunctionDef):
        raise SourceUnavailableError(f"the source of {name!r} is not a def statement. {_NO_SOURCE_HINT}")
    tree.decorator_list = []
    return ParsedFunction(func, tree, filename, first_line, indent, dedented.splitlines())


def _lambda_as_def(module, func, name):
    """The lambda ``func`` found in its source lines, as ``def <bound name>(...): return <body>``."""
    code = func.__code__
    params = list(code.co_varnames[:code.co_argcount])
    bound_name, found = "lambda_", []
    for node in gast.walk(module):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda) \
                and isinstance(node.targets[0], gast.Name):
            node.value.bound_name = node.targets[0].id
        if isinstance(node, gast.Lambda) and [a.id for a in node.args.args] == params:
            found.append(node)
    if len(found) != 1:
        raise SourceUnavailableError(
            f"cannot tell which lambda on its line is {name!r}; bind it to a def instead. {_NO_SOURCE_HINT}")
    lam = found[0]
    body = [gast.Return(value=lam.body)]
    gast.copy_location(body[0], lam)
    tree = gast.FunctionDef(name=getattr(lam, "bound_name", bound_name), args=lam.args, body=body,
                            decorator_list=[], returns=None, type_comment=None, type_params=[])
    return gast.copy_location(tree, lam)


def source_fingerprint(func: Callable) -> str:
    """The current source text of ``func``, as linecache holds it (for cache keys)."""
    func = unwrap(func)
    filename = func.__code__.co_filename
    linecache.checkcache(filename)
    try:
        return "".join(inspect.getsourcelines(func)[0])
    except (OSError, TypeError):
        return ""


def callee_sources(func) -> str:
    """The text of ``func``'s file when ``func`` calls a function of its own module (one it may
    inline), else ``""``: a cache key part that changes whenever an inlined helper's source does."""
    func = unwrap(func)
    for name in _code_names(func.__code__):
        value = func.__globals__.get(name)
        if isinstance(value, types.FunctionType) and value is not func and value.__globals__ is func.__globals__:
            filename = func.__code__.co_filename
            linecache.checkcache(filename)
            return "".join(linecache.getlines(filename, func.__globals__))
    return ""


def _code_names(code) -> set:
    """Global names a code object and the code objects nested in it (comprehensions, lambdas) read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names
