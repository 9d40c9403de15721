"""Reading a user function's source and parsing it with gast.

Contract: ``parse_function(func)`` returns a ``ParsedFunction`` whose ``tree``
is the gast ``FunctionDef`` of ``func`` (dedented, decorators removed) and
which maps any node back to a ``Location`` in the user's file.  The text it
parses is the code that runs (``codecheck.verified_source``: compiled and
compared with ``func.__code__``; a def that moved in its file is found at its
new place).  It raises ``SourceUnavailableError`` with a fix when the source
cannot be read, and ``StaleSourceError`` (one of those) when the file changed
so that no text in it is the code that runs.  ``source_fingerprint(func)`` is
the text as linecache holds it now, for cache keys.  Every element read
(``a[k]``, not a store) of the tree is annotated ``USER_READ``: one the user
wrote, which may raise, unlike those passes write later.

Example::

    >>> def f(x):
    ...     return x * 2.0
    >>> parse_function(f).tree.name   # doctest: +SKIP
    'f'
"""
from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import textwrap
import tokenize
import weakref
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import gast

from ..errors import Location, SourceUnavailableError, StaleSourceError, located
from . import codecheck, syntax

# Annotation of the element reads the user wrote (``raising_reads`` keeps those that may raise).
USER_READ = "user_read"

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
    """The plain Python function behind methods, ``functools.wraps``, ``functools.partial`` and srcad
    derivatives."""
    if hasattr(func, "_load") and hasattr(func, "_current"):   # a srcad derivative: its generated function
        if not func._current():   # as it is now: what it was built from may have changed since
            func._load()
        func = getattr(func, "_generated", None) or func._compiled
    while isinstance(func, functools.partial):
        func = func.func
    func = inspect.unwrap(func)
    return getattr(func, "__func__", func)


def _drop_annotations(arguments) -> None:
    """Remove the parameters' annotations (``x: Array``): the generated module may not know those names."""
    for parameter in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg,
                                                                                      arguments.kwarg]:
        if parameter is not None:
            parameter.annotation = None


def parse_function(func: Callable) -> ParsedFunction:
    """Read ``func``'s source with ``inspect`` and parse it with gast."""
    func = unwrap(func)
    name = getattr(func, "__qualname__", repr(func))
    if not inspect.isfunction(func):
        raise SourceUnavailableError(f"cannot read the source of {name!r}: it is not a Python function. {_NO_SOURCE_HINT}")
    filename = func.__code__.co_filename
    try:   # the block of the file that compiles to the code that runs (else StaleSourceError)
        lines, first_line, syntax_tree, node = verified_source(func)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(f"cannot read the source of {name!r} ({exc}). {_NO_SOURCE_HINT}") from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    first = next((ln for ln in raw.splitlines() if ln.strip()), "")
    indent = len(first) - len(first.lstrip())
    module = gast.ast_to_gast(syntax_tree)
    tree = module.body[0]
    if isinstance(tree, gast.AsyncFunctionDef):
        from ..errors import UnsupportedSyntaxError
        parsed = ParsedFunction(func, tree, filename, first_line, indent, dedented.splitlines())
        raise located(UnsupportedSyntaxError, "an async def is not supported", "differentiate a plain def",
                      parsed.location(tree))
    if func.__name__ == "<lambda>":
        tree = _lambda_as_def(module, node)
    if not isinstance(tree, gast.FunctionDef):
        raise SourceUnavailableError(f"the source of {name!r} is not a def statement. {_NO_SOURCE_HINT}")
    tree.decorator_list = []
    for node in syntax.walk(tree):   # the element reads the user wrote (not those passes write, always in range)
        if node.__class__ is gast.Subscript and node.ctx.__class__ is gast.Load:
            syntax.annotate(node, USER_READ, True)
    _drop_annotations(tree.args)   # the derivative's module need not resolve the user's type names
    tree.returns = None
    return ParsedFunction(func, tree, filename, first_line, indent, dedented.splitlines())


_SOURCES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # code -> (file's lines, verified_source)


def verified_source(func: Callable) -> Tuple[List[str], int, ast.Module, ast.AST]:
    """``func``'s source lines, the number of the first, their ``ast`` and its node that is ``func``
    (a def, or a lambda): a block of its file that compiles to the code that runs
    (``codecheck.same_code``).

    The block ``inspect`` finds at ``co_firstlineno`` is checked first; when
    it is not ``func``'s code, the file's other defs of the same qualified
    name are (nearest first): the def may have moved when lines were added
    above it, or its code been replaced by one compiled on its own (IPython's
    autoreload does that).  Raises ``StaleSourceError`` when no block is the
    code that runs, and the ``OSError`` or ``TypeError`` of ``inspect`` when
    there is no source.  Remembered per code object while the file's text is
    the same.

    Example::

        >>> def f(x):
        ...     return x * 2.0
        >>> verified_source(f)[0][0].strip()   # doctest: +SKIP
        'def f(x):'
    """
    code = func.__code__
    linecache.checkcache(code.co_filename)
    text = linecache.getlines(code.co_filename, func.__globals__)
    known = _SOURCES.get(code)
    if known is not None and known[0] is text and text:
        return known[1]
    unreadable = None
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (tokenize.TokenError, SyntaxError) as exc:   # the file no longer tokenizes: edited since
        problem = f"no longer parses ({exc.args[0]})"
        lines, first_line = [linecache.getline(code.co_filename, code.co_firstlineno)], code.co_firstlineno
    except OSError as exc:   # no source where inspect looks: the def may have moved
        lines, first_line, problem, unreadable = None, code.co_firstlineno, "", exc
    else:
        tree, node, problem = _checked(func, lines, first_line)
        if tree is not None:
            _SOURCES[code] = (text, (lines, first_line, tree, node))
            return lines, first_line, tree, node
    others = _same_names(func, text)
    for block, start in others:
        tree, node, _ = _checked(func, block, start)
        if tree is not None:
            _SOURCES[code] = (text, (block, start, tree, node))
            return block, start, tree, node
    if unreadable is not None:
        raise unreadable
    if others:   # point at the def the user would look at
        lines, first_line = others[0]
    shown = next((line for line in lines if line.strip()), "")
    raise _stale_source(func, Location(code.co_filename, first_line, len(shown) - len(shown.lstrip()), shown),
                        problem)


def _checked(func, lines: List[str], first_line: int) -> Tuple[Optional[ast.Module], Optional[ast.AST], str]:
    """The ast of ``lines`` and its node that compiles to ``func``'s code, or None, None and what is
    wrong with them."""
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError as exc:
        return None, None, f"no longer parses ({exc.msg})"
    code = func.__code__
    if code.co_name == "<lambda>":   # any of the block's lambdas with its parameters (parse_function picks one)
        nodes = codecheck.find_lambdas(tree, list(code.co_varnames[:code.co_argcount]))
    else:
        nodes = tree.body[:1] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else []
    for node in nodes:
        if codecheck.same_code(func, node, first_line):
            return tree, node, ""
    return None, None, "is not the code that runs"


def _same_names(func, text: List[str]) -> List[Tuple[List[str], int]]:
    """The blocks of ``text`` (``func``'s file) that may hold ``func``, nearest first: (lines, first
    line).  For a def, the defs with its qualified name; for a lambda, the innermost statement around
    each lambda with its parameters (``inspect`` gives only a lambda's first line)."""
    code = func.__code__
    try:
        tree = ast.parse("".join(text))
    except (SyntaxError, ValueError):
        return []
    if code.co_name == "<lambda>":
        params = list(code.co_varnames[:code.co_argcount])
        innermost = {}
        for statement in ast.walk(tree):
            if isinstance(statement, ast.stmt):
                for node in codecheck.find_lambdas(statement, params):
                    span = statement.end_lineno - statement.lineno
                    if id(node) not in innermost or span < innermost[id(node)][0]:
                        innermost[id(node)] = (span, node.lineno, statement)
        found = sorted((abs(line - code.co_firstlineno), statement.lineno, statement.end_lineno)
                       for _, line, statement in innermost.values())
    else:
        found = sorted((abs(node.lineno - code.co_firstlineno), start, node.end_lineno)
                       for node, qualname in _definitions(tree, "")
                       if qualname == func.__qualname__ and node.name == code.co_name
                       for start in [min([node.lineno] + [d.lineno for d in node.decorator_list])])
    return [(text[start - 1:end], start) for _, start, end in dict.fromkeys(found)]


def _definitions(node, prefix: str):
    """Every def below ``node``, with its qualified name."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield child, prefix + child.name
            yield from _definitions(child, prefix + child.name + ".<locals>.")
        elif isinstance(child, ast.ClassDef):
            yield from _definitions(child, prefix + child.name + ".")
        else:
            yield from _definitions(child, prefix)


def _stale_source(func, where: Location, problem: str) -> StaleSourceError:
    """The error for a function whose file changed after it was defined, with how to start again."""
    name = func.__name__
    module = getattr(func, "__module__", None) or ""
    reload = ""
    if module != "__main__" and module and all(part.isidentifier() for part in module.split(".")):
        reload = (f"reload the module and use the reloaded function (import importlib, {module}; "
                  f"importlib.reload({module}); then {module}.{name}), or ")
    return located(StaleSourceError,
                   f"the source of `{name}` in {os.path.basename(where.filename)} {problem}: the file was "
                   f"changed after `{name}` was defined (or an import hook rewrote it), and srcad "
                   f"differentiates only the code that runs",
                   f"{reload}re-run the cell or script that defines `{name}`", where)


def _lambda_as_def(module, node):
    """The lambda at ``node``'s place in ``module``, as ``def <bound name>(...): return <body>``."""
    bound_name, lam = "lambda_", None
    for candidate in gast.walk(module):
        if isinstance(candidate, gast.Assign) and isinstance(candidate.value, gast.Lambda) \
                and isinstance(candidate.targets[0], gast.Name):
            candidate.value.bound_name = candidate.targets[0].id
        if isinstance(candidate, gast.Lambda) and (candidate.lineno, candidate.col_offset) == \
                (node.lineno, node.col_offset):
            lam = candidate
    body = [gast.Return(value=lam.body)]
    gast.copy_location(body[0], lam)
    tree = gast.FunctionDef(name=getattr(lam, "bound_name", bound_name), args=lam.args, body=body,
                            decorator_list=[], returns=None, type_comment=None, type_params=[])
    return gast.copy_location(tree, lam)


def source_fingerprint(func: Callable) -> str:
    """The text srcad parses for ``func`` now (``verified_source``), for cache keys; when no text in
    its file is the code that runs, the text at its first line, marked unverified (the build fails).

    Example::

        >>> source_fingerprint(unwrap).startswith("def unwrap(")
        True
    """
    func = unwrap(func)
    try:
        return "".join(verified_source(func)[0])
    except StaleSourceError:
        code = func.__code__
        return "unverified: " + linecache.getline(code.co_filename, code.co_firstlineno)
    except (OSError, TypeError):
        return ""
