"""Whether the source text srcad parsed is the code that runs.

srcad reads a function's text from its file (through ``linecache``), but
Python runs the function's code object, compiled when the module was
imported.  The two part ways when the file is edited after the import: the
text then describes another function, or none.

Contract:
- ``code_shape(code)`` is everything in a code object that decides what it
  does: bytecode, exception table, constants (nested code objects by their
  own shape, floats by their bits, sets in a fixed order), names, variable
  names, argument counts and flags; not line numbers, positions, the file
  name or the qualified name.  Equal shapes, same behaviour.  It is the same
  in every process (no ``id``, no hash order).
- ``code_digest(code)`` is a hex digest of that shape, for cache keys.
- ``same_code(func, node)`` compiles ``node`` (a ``def`` or a ``lambda``
  parsed from the text srcad read) inside the classes and functions
  ``func.__qualname__`` names (and, failing that, inside only what its free
  variables need), with ``func``'s free variables bound in the nearest
  enclosing function and its ``from __future__`` flags, alone and then
  after ``import`` statements for the names module-level imports bind in its
  file (``imported_names``), each also as an import hook rewrote it (pytest
  rewrites the asserts of test modules); and says whether a code object it
  yields has ``func.__code__``'s shape.  Decorators are left out (they are
  not part of the function's code).

Example::

    >>> def f(x):
    ...     return x * 2.0
    >>> code_shape(f.__code__) == code_shape(f.__code__)
    True
"""
from __future__ import annotations

import __future__
import ast
import copy
import hashlib
import inspect
import linecache
import symtable
import sys
import types
import weakref
from typing import Dict, Iterator, List, Optional, Tuple

_CO_NESTED = inspect.CO_NESTED
# the flags ``from __future__ import ...`` leaves in co_flags (nested_scopes' flag is CO_NESTED itself)
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
_FUTURE_FLAGS &= ~_CO_NESTED
_DIGESTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def code_shape(code: types.CodeType) -> tuple:
    """What ``code`` does, without where it stands: equal for the same function compiled anywhere.

    Example::

        >>> code_shape(compile("x = 1", "a.py", "exec")) == code_shape(compile("\\nx = 1", "b.py", "exec"))
        True
    """
    return (code.co_name, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags & ~_CO_NESTED, code.co_code, getattr(code, "co_exceptiontable", b""),
            tuple(_constant(value) for value in code.co_consts), code.co_names, code.co_varnames,
            code.co_freevars, code.co_cellvars)


def _constant(value) -> tuple:
    if isinstance(value, types.CodeType):
        return ("code", code_shape(value))
    if isinstance(value, float):
        return ("float", value.hex())                  # -0.0 and 0.0 differ, nan is nan
    if isinstance(value, complex):
        return ("complex", value.real.hex(), value.imag.hex())
    if isinstance(value, tuple):
        return ("tuple",) + tuple(_constant(item) for item in value)
    if isinstance(value, frozenset):                   # iteration order follows string hashes: sort
        return ("frozenset",) + tuple(sorted((_constant(item) for item in value), key=repr))
    return (type(value).__name__, repr(value))


def code_digest(code: types.CodeType) -> str:
    """A hex digest of ``code_shape(code)`` (for cache keys).

    Example::

        >>> len(code_digest(compile("x = 1", "a.py", "exec")))
        64
    """
    try:
        return _DIGESTS[code]
    except (KeyError, TypeError):
        pass
    digest = hashlib.sha256(repr(code_shape(code)).encode()).hexdigest()
    try:
        _DIGESTS[code] = digest
    except TypeError:
        pass
    return digest


def same_code(func: types.FunctionType, node: ast.AST, first_line: int = 1) -> bool:
    """Whether compiling ``node`` (a def or lambda, of a block of text starting at line
    ``first_line`` of its file) where ``func`` was defined gives ``func.__code__``.

    The def is compiled alone, then after the import statements of
    ``func``'s whole file: Python compiles ``np.sum(x)`` differently when
    ``np`` is bound by a module-level import of the same compilation (a
    module file), and when it is not (a notebook cell's def, compiled
    statement by statement).  It is placed at its line in the file, and at
    the line ``func``'s code says it was compiled at (Python 3.13 keeps a
    class body's first line among its constants).

    Example::

        >>> tree = ast.parse("def f(x):\\n    return x * 2.0\\n")
        >>> namespace = {}
        >>> exec(compile(tree, "f.py", "exec"), namespace)
        >>> same_code(namespace["f"], tree.body[0])
        True
    """
    code = func.__code__
    shape = code_shape(code)
    flags = code.co_flags & _FUTURE_FLAGS
    start = min([node.lineno] + [decorator.lineno for decorator in getattr(node, "decorator_list", [])])
    imports = None
    for shift in dict.fromkeys([first_line - 1, code.co_firstlineno - start]):
        if start + shift < 1:
            continue
        placed = ast.increment_lineno(copy.deepcopy(node), shift)
        if _compiles_to(func, placed, [], flags, shape):
            return True
        if imports is None:
            imports = [name for name in imported_names(code.co_filename, func.__globals__) if name != "__future__"]
        if imports and _compiles_to(func, placed, ast.parse("import " + ", ".join(imports)).body, flags, shape):
            return True
    return False


def _compiles_to(func, node, context, flags, shape) -> bool:
    code = func.__code__
    rewrite = _import_rewriter(func)
    for enclosed in _enclosures(func, node, context):
        trees = [enclosed]
        if rewrite is not None:   # the module was compiled from a rewritten tree: rewrite ours too
            trees.append(copy.deepcopy(enclosed))
            rewrite(trees[-1])
        for tree in trees:
            try:
                compiled = compile(ast.fix_missing_locations(tree), code.co_filename, "exec", flags=flags,
                                   dont_inherit=True)
            except (SyntaxError, ValueError, TypeError):
                continue
            if any(found.co_name == code.co_name and code_shape(found) == shape
                   for found in code_objects(compiled)):
                return True
    return False


def _import_rewriter(func):
    """How the import system rewrote ``func``'s module before compiling it, as a function that
    rewrites an ``ast.Module`` in place; None when it did not.  pytest rewrites the asserts of test
    modules (``_pytest.assertion.rewrite``)."""
    module = sys.modules.get(getattr(func, "__module__", None) or "")
    loader = getattr(getattr(module, "__spec__", None), "loader", None) or getattr(module, "__loader__", None)
    rewriting = sys.modules.get("_pytest.assertion.rewrite")
    if rewriting is None or not isinstance(loader, getattr(rewriting, "AssertionRewritingHook", ())):
        return None
    filename = func.__code__.co_filename
    source = "".join(linecache.getlines(filename, func.__globals__)).encode()
    config = getattr(loader, "config", None)
    return lambda tree: rewriting.rewrite_asserts(tree, source, filename, config)


def find_lambdas(tree: ast.AST, params: List[str]) -> List[ast.Lambda]:
    """The lambdas in ``tree`` whose parameters are ``params``.

    Example::

        >>> len(find_lambdas(ast.parse("f = lambda x: x\\ng = lambda y: y"), ["x"]))
        1
    """
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params]


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (functions, lambdas, comprehensions), depth first.

    Example::

        >>> [c.co_name for c in code_objects(compile("def f():\\n    return lambda: 1", "a.py", "exec"))]
        ['<module>', 'f', '<lambda>']
    """
    yield code
    for value in code.co_consts:
        if isinstance(value, types.CodeType):
            yield from code_objects(value)


_IMPORTED: Dict[str, Tuple[List[str], List[str]]] = {}   # file -> (its lines, names imports bind in it)


def imported_names(filename: str, module_globals: Optional[dict] = None) -> List[str]:
    """The names a module-level ``import`` binds in ``filename`` (in ``if`` and ``try`` blocks too),
    as linecache holds it; ``[]`` when it does not compile.  Remembered while the text is the same.

    Example::

        >>> "codecheck" in imported_names(__file__)   # this file imports no such name
        False
    """
    lines = linecache.getlines(filename, module_globals)
    known = _IMPORTED.get(filename)
    if known is not None and known[0] is lines:
        return known[1]
    try:
        table = symtable.symtable("".join(lines), filename, "exec")
        names = sorted(symbol.get_name() for symbol in table.get_symbols() if symbol.is_imported())
    except (SyntaxError, ValueError):
        names = []
    _IMPORTED[filename] = (lines, names)
    return names


def _enclosures(func, node, context) -> Iterator[ast.Module]:
    """``node`` placed in the scopes ``func`` was compiled in: as its qualified name says, then plainly."""
    code = func.__code__
    free = [name for name in code.co_freevars if name != "__class__"]
    named = _scopes_of(getattr(func, "__qualname__", ""))
    seen = []
    for scopes in ([named] if named is not None else []) + [[]]:
        if free and not any(kind == "def" for kind, _ in scopes):
            scopes = [("def", "_enclosing")] + scopes
        if "__class__" in code.co_freevars and not (scopes and scopes[-1][0] == "class"):
            scopes = scopes + [("class", "_Enclosing")]   # super() and __class__ need a class around
        if scopes not in seen:
            seen.append(scopes)
            yield _enclose(node, scopes, free, context)


def _scopes_of(qualname: str) -> Optional[List[Tuple[str, str]]]:
    """``[("def", "outer"), ("class", "Model")]`` for ``outer.<locals>.Model.method``; None if unreadable."""
    parts = qualname.split(".")[:-1]
    scopes, index = [], 0
    while index < len(parts):
        name = parts[index]
        if not name.isidentifier():
            return None
        if index + 1 < len(parts) and parts[index + 1] == "<locals>":
            scopes.append(("def", name))
            index += 2
        else:
            scopes.append(("class", name))
            index += 1
    return scopes


def _enclose(node, scopes, free, context) -> ast.Module:
    target = copy.deepcopy(node)
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        target.decorator_list = []
        body = [target]
    else:
        body = [ast.Expr(value=target)]
    innermost_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=None)
    for index in range(len(scopes) - 1, -1, -1):
        kind, name = scopes[index]
        if index == innermost_def and free:
            body = ast.parse(" = ".join(free) + " = None").body + body
        scope = ast.parse(f"def {name}():\n    pass\n" if kind == "def" else f"class {name}:\n    pass\n").body[0]
        scope.body = body
        body = [scope]
    return ast.fix_missing_locations(ast.Module(body=list(context) + body, type_ignores=[]))
