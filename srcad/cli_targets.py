"""What a ``srcad`` command line TARGET names: the function, loaded from a file or a module.

Contract:
- TARGET is ``path/to/file.py:name`` or ``package.module:name``; ``name`` may
  be a dotted qualified name such as ``Class.method`` (a method named through
  its class differentiates from the parameter after ``self`` or ``cls``).
- A file target is imported as a module (with its directory on ``sys.path``,
  under its file name unless that module name is taken); whatever the import
  prints goes to stderr, so stdout holds only what the command prints.
- A target that cannot be loaded (missing file or module, syntax error, no
  such name, not a function) raises ``TargetError`` with a one-line message.

Example::

    >>> parse_wrt("x,1")
    ('x', 1)
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from types import ModuleType
from typing import Callable, List, Tuple, Union

from .errors import SrcadError

TARGET_FORM = "path/to/file.py:function or package.module:function"


class TargetError(Exception):
    """A TARGET that cannot be loaded; its message is a single line."""


def parse_wrt(text: str) -> Union[int, str, Tuple[Union[int, str], ...]]:
    """Turn a ``--wrt`` value into what ``srcad.grad``'s ``wrt`` accepts.

    Integers become positions, other entries parameter names; a comma makes
    a tuple.

    Example::

        >>> parse_wrt("0"), parse_wrt("x,y"), parse_wrt("1, b")
        (0, ('x', 'y'), (1, 'b'))
    """
    entries: List[Union[int, str]] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise SrcadError(f"--wrt {text!r} has an empty entry; write e.g. --wrt 0,1 or --wrt x,y")
        entries.append(int(part) if re.fullmatch(r"[+-]?\d+", part) else part)
    return entries[0] if len(entries) == 1 else tuple(entries)


def _split_target(target: str) -> Tuple[str, str]:
    where, colon, name = target.rpartition(":")
    if not colon or not where or not name:
        raise TargetError(f"target {target!r} is not of the form {TARGET_FORM}")
    if not all(part.isidentifier() for part in name.split(".")):
        raise TargetError(f"{name!r} in target {target!r} is not a (dotted) Python name")
    return where, name


def _looks_like_path(where: str) -> bool:
    return where.endswith(".py") or os.sep in where or "/" in where or os.path.isfile(where)


def _module_name_for(path: str) -> str:
    """A stable module name for the file at ``path``: its stem, unless that is taken."""
    stem = os.path.splitext(os.path.basename(path))[0]
    existing = sys.modules.get(stem)
    if stem.isidentifier() and (existing is None or getattr(existing, "__file__", None) == path):
        return stem
    safe = re.sub(r"\W", "_", stem)
    return f"_srcad_target_{safe}"


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else f"line {exc.lineno}"
        return f"SyntaxError: {exc.msg} ({where})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def load_module_from_file(path: str) -> ModuleType:
    """Import the Python file at ``path`` as a module, with its directory on ``sys.path``.

    Example::

        >>> module = load_module_from_file("examples/quickstart.py")   # doctest: +SKIP
        >>> module.loss                                                 # doctest: +SKIP
        <function loss at 0x...>
    """
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = _module_name_for(path)
    if getattr(sys.modules.get(name), "__file__", None) == path:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep stdout for the derivative
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # the user's module failed at import time
        del sys.modules[name]
        raise TargetError(f"cannot import {path}: {_one_line(exc)}") from None
    return module


def _import_module(dotted: str) -> ModuleType:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep stdout for the derivative
            return importlib.import_module(dotted)
    except ModuleNotFoundError as exc:
        raise TargetError(f"no module named {exc.name or dotted!r} (while importing {dotted!r})") from None
    except (Exception, SystemExit) as exc:
        raise TargetError(f"cannot import {dotted}: {_one_line(exc)}") from None


def load_target(target: str) -> Callable:
    """The function that ``target`` (``file.py:name`` or ``package.module:name``) names.

    Example::

        >>> load_target("examples/quickstart.py:loss").__name__   # doctest: +SKIP
        'loss'
    """
    return resolve_target(target)[0]


def resolve_target(target: str) -> Tuple[Callable, int]:
    """``target``'s function and the position of its first parameter a user differentiates.

    That is 1 for a method named through its class (``Model.loss``: ``self`` comes first) or a
    classmethod (``cls``), and 0 otherwise.

    Example::

        >>> resolve_target("mypackage.model:Model.loss")   # doctest: +SKIP
        (<function Model.loss at 0x...>, 1)
    """
    where, qualname = _split_target(target)
    module = load_module_from_file(where) if _looks_like_path(where) else _import_module(where)
    value: object = module
    walked = []
    first_parameter = 0
    for part in qualname.split("."):
        owner_is_class = inspect.isclass(value)
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            owner = f"{where}:{'.'.join(walked)}" if walked else where
            found = [n for n, v in vars(module).items() if inspect.isfunction(v)
                     and getattr(v, "__module__", None) == module.__name__] if not walked else []
            shown = ", ".join(sorted(found)[:10]) + (", ..." if len(found) > 10 else "")
            known = f" (functions defined there: {shown})" if found else ""
            raise TargetError(f"{owner} has no attribute {part!r}{known}") from None
        first_parameter = 1 if owner_is_class and not isinstance(value, staticmethod) else 0
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        walked.append(part)
    if not inspect.isfunction(value) and not inspect.ismethod(value):
        kind = "a class" if inspect.isclass(value) else f"a {type(value).__name__}"
        raise TargetError(f"{where}:{qualname} is {kind}, not a Python function")
    return value, first_parameter


