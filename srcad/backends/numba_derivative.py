"""Derivatives compiled by numba: ``srcad.grad(f, backend="numba")``.

Contract:
- ``numba_derivative(func, wrt, mode, optimize, with_value)`` is the shared
  ``NumbaDerivative`` of ``func`` (one per function and options).  Called
  like ``func`` with floats and float arrays, it takes the derivative srcad
  generates for the arguments' ranks (the all-scalar or the rank variant of
  the NumPy backend), lowers it for numba (``numba_lowering``), writes it to
  a module file in srcad's disk cache (``<cache>/numba/``, named by a hash
  of its text) and compiles it with ``numba.njit(cache=True)``: a new
  process loads the machine code numba cached beside that file.
- It returns what the NumPy backend returns for the same call.  A result
  holding a NaN is computed again by the NumPy backend, which tells an
  overflow artefact from a true NaN (``srcad.overflow``).
- numba is imported with this module, which only ``backend="numba"`` imports.
- Whatever numba cannot compile, every argument that is not a float, an int
  or a float array, and a differentiated argument that is not a float or a
  float array of one or more dimensions, raises ``NumbaBackendError`` naming the user's
  ``file:line`` and construct where the generated line says it, with
  ``backend="numpy"`` as the fix: never a numba traceback.
- A global the derivative reads is compiled in as a constant (numba's
  rule): modules, and numbers, which are checked on every call and compiled
  again when one was rebound.  Global arrays and functions are refused.

Example::

    >>> import srcad
    >>> def f(x, r):
    ...     for _ in range(10):
    ...         x = r * x * (1.0 - x)
    ...     return x
    >>> srcad.grad(f, wrt=1, backend="numba")(0.3, 2.9)   # doctest: +SKIP
    0.03...
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import importlib.util
import inspect
import math
import os
import re
import sys
import tempfile
import types
import weakref
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

import numba
import numpy as np

from .. import cache
from ..arguments import parameter_names, resolve_wrt
from ..derivative import _derivative
from ..errors import SrcadError
from ..variants import float_ranks
from .numba_lowering import LoweringRefused, lower
from .numba_runtime import holds_nan


class NumbaBackendError(SrcadError):
    """numba cannot compile this derivative (or these arguments); ``backend="numpy"`` runs it."""


_SHARED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_MODULE_PREFIX = "srcad_numba_"


def numba_derivative(func: Callable, wrt, mode: str, optimize: bool = True, with_value: bool = False):
    """The shared numba-compiled derivative of ``func``.

    Example::

        >>> df = numba_derivative(f, (0, 1), "reverse")   # doctest: +SKIP
        >>> df(x, r)                                       # doctest: +SKIP
    """
    func = _python_function(func)
    key = (repr(wrt), mode, bool(optimize), bool(with_value))
    per_function = _SHARED.setdefault(func, {})
    if key not in per_function:
        per_function[key] = NumbaDerivative(func, wrt, mode, optimize, with_value)
    return per_function[key]


def _python_function(func: Callable) -> Callable:
    """The Python function behind ``func`` (a ``@numba.njit`` function's ``py_func``)."""
    inner = getattr(func, "py_func", None)
    if inner is not None and type(func).__module__.startswith("numba"):
        return inner
    if not inspect.isfunction(func):
        raise NumbaBackendError(f"backend=\"numba\" differentiates Python functions, and {func!r} is not one; "
                                f"use backend=\"numpy\"")
    return func


class _Compiled:
    """One compiled variant: the numba dispatcher, its source, and the globals it baked in."""

    def __init__(self, dispatcher, source: str, path: str, constants: Dict[str, Any], variant):
        self.dispatcher, self.source, self.path, self.constants, self.variant = \
            dispatcher, source, path, constants, variant


class NumbaDerivative:
    """A derivative of ``func`` compiled by numba, one variant per tuple of argument ranks.

    Call it like ``func`` (then the seed or the tangents, as the NumPy backend's).
    """

    def __init__(self, func: Callable, wrt, mode: str, optimize: bool, with_value: bool):
        self.func, self.wrt, self.mode, self.optimize = func, wrt, mode, optimize
        self._options = {"with_value": True} if with_value else {}
        self._arity = self.arity = len([p for p in inspect.signature(func).parameters.values()
                                        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        positional = parameter_names(func)[0]
        self._wrt_positions = tuple(positional.index(name) for name in resolve_wrt(func, wrt)[0]
                                    if name in positional)
        self._variants: Dict[Tuple[int, ...], _Compiled] = {}
        self.__name__ = f"d{func.__name__}"
        self.__doc__ = f"{mode}-mode derivative of {func.__qualname__}, compiled by numba"

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise NumbaBackendError(f"backend=\"numba\" takes positional arguments only; call "
                                    f"{self.__name__}({', '.join(kwargs)} passed by position) or use backend=\"numpy\"")
        compiled = self.compiled_for(args)
        try:
            result = compiled.dispatcher(*args)
        except Exception as error:
            if _is_numba_error(error):
                raise self._refusal(compiled, error) from None
            raise
        if not holds_nan(result):
            return result
        return self._reference()(*args)   # a NaN: the NumPy backend tells overflow from a true NaN

    def compiled_for(self, args) -> _Compiled:
        """The compiled variant for ``args``' ranks, built or loaded (again when what it baked in changed)."""
        ranks = float_ranks(args[:self._arity])
        if ranks is None:
            kinds = ", ".join(type(arg).__name__ for arg in args[:self._arity])
            raise NumbaBackendError(f"backend=\"numba\" compiles for floats, ints and float arrays, and "
                                    f"{self.func.__name__} got ({kinds}); use backend=\"numpy\"")
        for position in self._wrt_positions:
            kind = args[position].__class__ if position < len(args) else float
            if kind is not float and kind is not np.ndarray and not issubclass(kind, np.floating) \
                    or kind is np.ndarray and args[position].ndim == 0:
                raise NumbaBackendError(f"backend=\"numba\" differentiates floats and float arrays of one or "
                                        f"more dimensions, and argument {position} of {self.func.__name__} is "
                                        f"{args[position]!r}; pass float({args[position]!r}), or use "
                                        f"backend=\"numpy\"")
        compiled = self._variants.get(ranks)
        if compiled is None or not compiled.variant._current() or compiled.constants and \
                not self._constants_hold(compiled):
            compiled = self._variants[ranks] = self._build(ranks, args)
        return compiled

    def source(self, ranks: Tuple[int, ...]) -> str:
        """The numba module compiled for arguments of these ranks."""
        return self.compiled_for(tuple(0.0 if rank == 0 else _example(rank) for rank in ranks)).source

    def _reference(self):
        """The NumPy backend's derivative of the same function and options."""
        return _derivative(self.func, self.wrt, self.mode, self.optimize, **self._options)

    def _constants_hold(self, compiled: _Compiled) -> bool:
        namespace = self.func.__globals__
        return all(namespace.get(name) is value for name, value in compiled.constants.items())

    def _build(self, ranks: Tuple[int, ...], args) -> _Compiled:
        options = dict(self._options)
        options.update({"scalar_params": True} if not any(ranks) else {"param_ranks": ranks})
        variant = _derivative(self.func, self.wrt, self.mode, self.optimize, **options)
        generic = variant.source
        name = self.__name__
        lists = _known_lists(generic)
        while True:
            try:
                lowered = lower(generic, name, lists)
            except LoweringRefused as refusal:
                raise self._refusal_at(generic.splitlines(), refusal.line, str(refusal)) from None
            prelude, constants = self._globals_of(lowered, name)
            text = _with_decorator(lowered, name, prelude)
            path = _module_file(text, name)
            compiled = _Compiled(getattr(_import_file(path), name), text, path, constants, variant)
            refused = self._refused_stack(compiled, args)
            if refused is None:
                _remember_lists(generic, lists)
                return compiled
            lists = lists | {refused}

    def _refused_stack(self, compiled: _Compiled, args) -> Optional[str]:
        """The stack numba refused to keep as floats when compiling for ``args`` (it holds arrays or ints),
        or None when it compiles (or fails for another reason, reported when it is called)."""
        try:
            parameters = list(inspect.signature(compiled.dispatcher.py_func).parameters.values())
            given = [numba.typeof(arg) for arg in args]
            compiled.dispatcher.compile(tuple(given + [numba.types.Omitted(p.default)
                                                       for p in parameters[len(given):]]))
        except Exception as error:
            if not _is_numba_error(error) or "as_float" not in str(error):
                return None
            lines = compiled.source.splitlines()
            for path, number in re.findall(r'File "([^"]+)", line (\d+)', str(error)):
                if os.path.basename(path) == os.path.basename(compiled.path) and int(number) <= len(lines):
                    found = re.search(r"(\w+)\[\w+\] = as_float\(", lines[int(number) - 1])
                    if found:
                        return found.group(1)
        return None

    def _globals_of(self, lowered: str, name: str):
        """The lines binding the user's globals the derivative reads, and the numbers among them."""
        tree = ast.parse(lowered)
        bound = {alias.asname or alias.name.split(".")[0] for node in tree.body
                 if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
        local = {arg.arg for arg in ast.walk(function) if isinstance(arg, ast.arg)} | \
            {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        free = sorted({node.id for node in ast.walk(function) if isinstance(node, ast.Name)
                       and isinstance(node.ctx, ast.Load)} - local - bound - set(dir(builtins)))
        values = inspect.getclosurevars(self.func)
        scope = dict(self.func.__globals__, **values.nonlocals)
        lines, constants = [], {}
        for free_name in free:
            if free_name not in scope:
                raise NumbaBackendError(f"the derivative of {self.func.__name__} reads `{free_name}`, which its "
                                        f"scope does not hold; use backend=\"numpy\"")
            value = scope[free_name]
            if isinstance(value, types.ModuleType):
                lines.append(f"import {value.__name__} as {free_name}")
            elif isinstance(value, (bool, int, float)) and free_name not in values.nonlocals:
                number = value if isinstance(value, (bool, int)) else float(value)
                lines.append(f"{free_name} = {number!r}" if math.isfinite(number) else
                             f"{free_name} = float({repr(number)!r})")
                constants[free_name] = value
            else:
                raise NumbaBackendError(
                    f"{_where(self.func)}: {self.func.__name__} reads `{free_name}` "
                    f"({type(value).__name__}), which numba would freeze into the compiled code; pass it as an "
                    f"argument, or use backend=\"numpy\"")
        return lines, constants

    def _refusal(self, compiled: _Compiled, error: Exception) -> NumbaBackendError:
        """The error for what numba refused to compile, at the user's line when numba names the generated one."""
        message = str(error)
        reason = next((line.strip() for line in message.splitlines()
                       if line.strip() and not line.startswith("Failed in")), "numba refused it")
        lines = compiled.source.splitlines()
        found = re.findall(r'File "([^"]+)", line (\d+)', message)
        generated = [int(number) for path, number in found if os.path.basename(path) == os.path.basename(compiled.path)]
        return self._refusal_at(lines, generated[-1] if generated else 0, reason)

    def _refusal_at(self, lines, line: int, reason: str) -> NumbaBackendError:
        statement = _commented_statement(lines, line)
        where = _where(self.func, statement)
        construct = f"`{statement}`" if statement else f"the derivative of {self.func.__name__}"
        return NumbaBackendError(
            f"{where}: numba cannot compile {construct} in nopython mode ({reason}); use "
            f"srcad.grad({self.func.__name__}, backend=\"numpy\") (the NumPy backend differentiates it)")


def _is_numba_error(error: Exception) -> bool:
    return type(error).__module__.startswith("numba.core.errors")


def _commented_statement(lines, line: int) -> str:
    """The user's statement the generated line ``line`` (1-based) differentiates: the comment above it."""
    for index in range(min(line, len(lines)) - 1, -1, -1):
        text = lines[index].strip()
        if text.startswith("# ") and not text.startswith("# srcad") and not text.startswith("# the variant") \
                and not text.startswith("# compiled"):
            return text[2:]
        if text.startswith("def ") or text.startswith("@"):
            break
    return ""


def _where(func: Callable, statement: str = "") -> str:
    """``file:line`` of ``statement`` in ``func`` (of its ``def`` when not found)."""
    code = func.__code__
    number = code.co_firstlineno
    try:
        source, first = inspect.getsourcelines(func)
        for offset, text in enumerate(source):
            if statement and text.strip() == statement:
                number = first + offset
                break
    except (OSError, TypeError):
        pass
    return f"{os.path.basename(code.co_filename)}:{number}"


def _example(rank: int):
    import numpy as np
    return np.zeros((1,) * rank)


def _with_decorator(lowered: str, name: str, prelude) -> str:
    """The module text: the lowered source with the user's globals bound and the function under ``njit``."""
    lines = lowered.splitlines()
    definition = next(index for index, text in enumerate(lines) if text.startswith(f"def {name}("))
    header = ["# compiled by numba in nopython mode (backend=\"numba\")", "import numba"] + list(prelude)
    first_import = next((index for index, text in enumerate(lines) if text.startswith(("import ", "from "))),
                        definition)
    body = lines[:first_import] + header + lines[first_import:definition] + ["@numba.njit(cache=True)"] + \
        lines[definition:]
    return "\n".join(body) + "\n"


def _module_file(text: str, name: str) -> str:
    """The path of a module file holding ``text``: in srcad's disk cache, written once (numba keys its cache
    on the file's time stamp, so an existing file is never rewritten)."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:20]
    directory = _numba_directory()
    path = directory / f"{name}_{digest}.py"
    if not path.exists() or path.read_text() != text:
        partial = directory / f".{path.name}.{os.getpid()}"
        partial.write_text(text)
        os.replace(partial, path)
    return str(path)


def _numba_directory() -> Path:
    """``<srcad's cache>/numba`` (a per-user temporary directory when the disk cache is off), made if missing."""
    directory = cache.cache_dir()
    directory = Path(directory) / "numba" if directory is not None else Path(tempfile.gettempdir()) / \
        f"srcad-numba-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _lists_file(generic: str) -> Path:
    """Where the stacks that stay lists for the generated source ``generic`` are noted."""
    return _numba_directory() / f"lists_{hashlib.sha256(generic.encode()).hexdigest()[:20]}.txt"


def _known_lists(generic: str) -> FrozenSet[str]:
    """The stacks an earlier process found must stay lists for this generated source (none when unknown)."""
    try:
        return frozenset(_lists_file(generic).read_text().split())
    except OSError:
        return frozenset()


def _remember_lists(generic: str, lists: FrozenSet[str]) -> None:
    path = _lists_file(generic)
    if lists and not path.exists():
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text("\n".join(sorted(lists)))
        os.replace(partial, path)


def _import_file(path: str):
    """The module of ``path``, imported once per process."""
    module_name = _MODULE_PREFIX + Path(path).stem
    module = sys.modules.get(module_name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module
