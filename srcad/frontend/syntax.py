"""Small helpers to build and inspect gast nodes.

Contract: pure functions; they never mutate the nodes they are given, except
``set_location`` and the annotation helpers, which write attributes on the node
they return.

Example::

    >>> import gast
    >>> assign("y", name("x")).targets[0].id
    'y'
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Iterator, List, Optional, Set

import gast

ANNOTATION = "_srcad"


def name(identifier: str, ctx=None) -> gast.Name:
    """A ``Name`` node that loads ``identifier`` (or uses ``ctx``)."""
    return gast.Name(id=identifier, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def store(identifier: str) -> gast.Name:
    """A ``Name`` node that stores to ``identifier``."""
    return name(identifier, gast.Store())


def constant(value: Any) -> gast.Constant:
    """A ``Constant`` node."""
    return gast.Constant(value=value, kind=None)


def assign(target: str, value) -> gast.Assign:
    """``target = value``."""
    return gast.Assign(targets=[store(target)], value=value, type_comment=None)


def call(func, args: Iterable = (), keywords: Iterable = ()) -> gast.Call:
    """``func(*args, **keywords)``; ``func`` may be a node or a dotted string."""
    if isinstance(func, str):
        func = dotted(func)
    return gast.Call(func=func, args=list(args), keywords=list(keywords))


def dotted(path: str):
    """``a.b.c`` as a chain of Attribute nodes."""
    parts = path.split(".")
    node = name(parts[0])
    for part in parts[1:]:
        node = gast.Attribute(value=node, attr=part, ctx=gast.Load())
    return node


def expr_stmt(value) -> gast.Expr:
    """An expression statement."""
    return gast.Expr(value=value)


COMMENT_CALL = "__srcad_comment__"


def comment(text: str) -> gast.Expr:
    """A statement the emitter prints as ``# text``."""
    return expr_stmt(call(name(COMMENT_CALL), [constant(text)]))


CHECK_CALLS = frozenset({"check_unpacking", "check_starred_unpacking", "check_reduce_items"})   # generated checks: they read their arguments, never change them


def is_check(stmt) -> bool:
    """Whether ``stmt`` is a generated check (``check_unpacking(x, 3)``), which changes nothing."""
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in CHECK_CALLS)


def is_comment(stmt) -> bool:
    """Whether ``stmt`` was made by ``comment``."""
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == COMMENT_CALL)


def is_number(node) -> bool:
    """Whether ``node`` is a number literal, with or without a sign (``2``, ``-1.5``, ``+3j``)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, gast.Constant) and isinstance(node.value, (int, float, complex))


def is_atom(node) -> bool:
    """A Name or a Constant: what A-normal form allows as an operand."""
    return isinstance(node, (gast.Name, gast.Constant))


def name_nodes(nodes) -> List:
    """Every ``Name`` below ``nodes`` (a node or a list of them), in no particular order.

    Its own stack rather than a filter over ``walk``: it is the hottest traversal of the optimiser,
    and not listing every node keeps a transformation about 10% faster.
    """
    found, stack, name_class, ast_class = [], list(nodes) if nodes.__class__ is list else [nodes], gast.Name, gast.AST
    while stack:   # a plain stack over the nodes' attributes: several times faster than gast.walk
        current = stack.pop()
        if current.__class__ is name_class:
            found.append(current)
            continue
        for value in current.__dict__.values():
            if isinstance(value, ast_class):
                stack.append(value)
            elif value.__class__ is list:
                stack.extend(item for item in value if isinstance(item, ast_class))
    return found


def names_in(node, ctx_type=None) -> Set[str]:
    """Identifiers of every Name below ``node`` (optionally only Load or Store ones)."""
    if ctx_type is None:
        return {name.id for name in name_nodes(node)}
    return {name.id for name in name_nodes(node) if isinstance(name.ctx, ctx_type)}


def walk(node) -> List:
    """Every node below ``node``, itself included, in no particular order (a fast ``gast.walk``)."""
    found, stack, ast_class = [], [node], gast.AST
    while stack:
        current = stack.pop()
        found.append(current)
        for value in current.__dict__.values():
            if isinstance(value, ast_class):
                stack.append(value)
            elif value.__class__ is list:
                stack.extend(item for item in value if isinstance(item, ast_class))
    return found


def load_counts(nodes) -> Counter:
    """How often each name is read in ``nodes`` (a node or a list of them)."""
    load_class = gast.Load
    return Counter(name.id for name in name_nodes(nodes) if name.ctx.__class__ is load_class)


def loaded_names(node) -> Set[str]:
    """Identifiers read below ``node``."""
    return names_in(node, gast.Load)


def stored_names(node) -> Set[str]:
    """Identifiers written below ``node``."""
    return names_in(node, gast.Store)


def annotate(node, key: str, value) -> None:
    """Attach ``value`` under ``key`` to ``node``."""
    data = node.__dict__.setdefault(ANNOTATION, {})
    data[key] = value


def annotation(node, key: str, default=None):
    """The value attached to ``node`` under ``key``."""
    return node.__dict__.get(ANNOTATION, {}).get(key, default)


def with_annotations(new, old):
    """``new``, given (a copy of) the annotations of ``old``, which it replaces."""
    if ANNOTATION in old.__dict__:
        new.__dict__[ANNOTATION] = dict(old.__dict__[ANNOTATION])
    return new


def set_location(node, lineno: Optional[int]):
    """Give ``node`` and its children without a line number the line ``lineno``."""
    if lineno is None:
        return node
    for sub in walk(node):
        if getattr(sub, "lineno", None) is None and "lineno" in getattr(sub, "_attributes", ()):
            sub.lineno = lineno
            sub.col_offset = getattr(sub, "col_offset", None) or 0
    return node


def clone(node):
    """A deep copy of ``node``; annotations are copied shallowly (they may hold modules)."""
    if isinstance(node, list):
        return [clone(item) for item in node]
    if not isinstance(node, gast.AST):
        return node   # str, int, float, None, ...: immutable
    copied = node.__class__.__new__(node.__class__)
    for key, value in node.__dict__.items():
        if key == ANNOTATION:
            copied.__dict__[key] = dict(value)
        elif isinstance(value, (gast.AST, list)):
            copied.__dict__[key] = clone(value)
        else:
            copied.__dict__[key] = value
    return copied


def clone_list(statements):
    """Deep copies of a list of statements."""
    return [clone(stmt) for stmt in statements]


def rename(node, mapping):
    """Replace Name ids in ``node`` according to ``mapping`` (in place); returns node."""
    for sub in walk(node):
        if isinstance(sub, gast.Name) and sub.id in mapping:
            sub.id = mapping[sub.id]
    return node


def iter_statements(body: List) -> Iterator:
    """Every statement in ``body``, recursing into compound statements."""
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from iter_statements(getattr(stmt, field, []) or [])


def rewrite_statements(body: List, rewrite: Callable[[Any], List]) -> List:
    """``body`` with each statement replaced by ``rewrite(stmt)`` (a list), inner blocks first; nested ``def``
    and ``class`` bodies are left alone.

    Example: ``rewrite_statements(tree.body, lambda s: [] if isinstance(s, gast.Pass) else [s])`` drops the
    ``pass`` statements of every block (an emptied block needs one back).
    """
    result = []
    for stmt in body:
        if not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                if getattr(stmt, field, None):
                    setattr(stmt, field, rewrite_statements(getattr(stmt, field), rewrite))
            for handler in getattr(stmt, "handlers", None) or []:
                handler.body = rewrite_statements(handler.body, rewrite)
        result += rewrite(stmt)
    return result
