"""Which calls change their arguments in place: NumPy's mutating functions and the user's own functions.

Contract: pure functions; nothing here changes a tree.
- ``MUTATING_FUNCTIONS``: NumPy functions that change their first argument
  in place (``np.place``, ``np.putmask``, ``np.random.shuffle``...) and that
  srcad has no exact rule for; ``MUTATING_METHODS``: array and list methods
  that change their object (``resize``, ``partition``, ``reverse``...);
- ``mutated_parameters(func)``: for a Python function, the parameters it may
  change in place, each with the line that does it, found in its source:
  element and attribute stores, in-place operators, ``append``/``pop`` and
  other mutating methods, ``out=``, NumPy's mutating functions, and calls
  passing the parameter to another function that changes it (transitively,
  through functions of any module whose source is readable).  A parameter
  bound again first (``s = list(s)``) is no longer the caller's object.

Example: for ``def push(s, v): s.append(v)``, ``mutated_parameters(push)``
is ``{"s": (2, "s.append(v)")}``.
"""
from __future__ import annotations

import textwrap
import types
from typing import Dict, Tuple

import gast
import numpy as np

from ..errors import SrcadError
from ..frontend.source import verified_source

MUTATING_FUNCTIONS = frozenset({np.place, np.putmask, np.random.shuffle, np.copyto, np.fill_diagonal, np.put,
                                np.put_along_axis, np.random.Generator.shuffle})
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort",
                              "resize", "itemset", "partition", "put", "fill", "setfield", "setflags",
                              "byteswap", "update", "setdefault", "popitem", "add", "discard"})

_MEMO: Dict = {}


def mutated_parameters(func) -> Dict[str, Tuple[int, str]]:
    """``{parameter: (line number in its file, line text)}`` for the parameters ``func`` changes in place."""
    code = getattr(func, "__code__", None)
    if not isinstance(func, types.FunctionType) or code is None:
        return {}
    key = (code, id(func.__globals__))
    if key not in _MEMO:
        _MEMO[key] = {}   # a recursive call sees nothing more while its caller is being read
        _MEMO[key] = _analyse(func)
    return _MEMO[key]


def _analyse(func) -> Dict[str, Tuple[int, str]]:
    try:   # the text that is the code that runs, as srcad reads it to differentiate (remembered there)
        lines, first = verified_source(func)[:2]
        tree = gast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError, SrcadError):   # no source, stale: the build says so
        return {}
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return {}
    params = {arg.id for arg in definition.args.args + definition.args.kwonlyargs + definition.args.posonlyargs}
    found: Dict[str, Tuple[int, str]] = {}
    rebound = set()
    for stmt in _statements(definition.body):
        for name in _changed(stmt, func, params - rebound):
            found.setdefault(name, (first + stmt.lineno - 1, lines[stmt.lineno - 1].strip()))
        if isinstance(stmt, gast.Assign):
            rebound |= {t.id for t in stmt.targets if isinstance(t, gast.Name)}
    return found


def _statements(body):
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from _statements(getattr(stmt, field, []) or [])


def _root(node):
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _changed(stmt, func, params):
    """Parameters ``stmt`` changes in place."""
    changed = set()
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target] if isinstance(
        stmt, gast.AugAssign) else []
    for target in targets:
        if isinstance(target, (gast.Subscript, gast.Attribute)) or isinstance(stmt, gast.AugAssign):
            changed.add(_root(target))
    for node in gast.walk(stmt) if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)) else ():
        if not isinstance(node, gast.Call):
            continue
        if isinstance(node.func, gast.Attribute) and node.func.attr in MUTATING_METHODS:
            changed.add(_root(node.func.value))
        if any(k.arg == "out" for k in node.keywords):
            changed |= {_root(k.value) for k in node.keywords if k.arg == "out"}
        callee = _resolve(node.func, func)
        if callee is None:
            continue
        if callee in MUTATING_FUNCTIONS or _is_ufunc_at(callee):
            changed |= {_root(a) for a in node.args[:1]}
        elif isinstance(callee, types.FunctionType):
            inner = mutated_parameters(callee)
            names = callee.__code__.co_varnames[:callee.__code__.co_argcount]
            for position, argument in enumerate(node.args):
                if position < len(names) and names[position] in inner:
                    changed.add(_root(argument))
            for keyword in node.keywords:
                if keyword.arg in inner:
                    changed.add(_root(keyword.value))
    return changed & params


def _is_ufunc_at(callee) -> bool:
    return getattr(callee, "__name__", None) == "at" and isinstance(getattr(callee, "__self__", None), np.ufunc)


def _resolve(node, func):
    """The object a callee expression names in ``func``'s module, or None."""
    if isinstance(node, gast.Name):
        value = func.__globals__.get(node.id, getattr(__import__("builtins"), node.id, None))
        return value
    if isinstance(node, gast.Attribute):
        owner = _resolve(node.value, func)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None
