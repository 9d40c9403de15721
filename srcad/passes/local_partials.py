"""Part of ``methods``: a ``functools.partial`` made in the function and called there.

Contract: ``expand_local_partials(unit, parsed, tree)`` rewrites, in ``tree``
(the code of ``parsed.func``), every name ``p`` bound exactly once, to
``functools.partial(fn, a, k=c)`` with ``fn`` a name (or ``module.name``)
the function never rebinds and no ``*``/``**`` arguments: each call
``p(x, ...)`` becomes ``fn(a, x, ..., k=c)`` (a keyword given at the call
replaces the partial's own, as ``functools.partial`` does), and the binding
becomes one assignment per argument that is not a constant or a name the
function never rebinds (``p_a = a``), evaluated where the partial was made,
as Python evaluates them.  The calls are then resolved, inlined or
differentiated like calls written out.  A partial bound so and used other
than by calling it (passed on, returned, stored) raises
``UnsupportedSyntaxError`` naming the line, with a fix.  A partial made any
other way stays as written (and a call of it is refused later as a call of a
computed function).  Returns whether the tree changed.

Example: ``p = functools.partial(scale, 2.0)`` then ``y = p(x)`` becomes
``y = scale(2.0, x)``; ``p = partial(scale, a)`` with ``a`` rebound later
becomes ``p_a = a`` and ``y = scale(p_a, x)``.
"""
from __future__ import annotations

import builtins
import functools
import inspect
from typing import Dict, List, Optional

import gast

from ..errors import UnsupportedSyntaxError, located
from ..frontend import syntax


def expand_local_partials(unit, parsed, tree) -> bool:
    """Rewrite the calls of partials ``tree`` makes and calls (see the module's contract)."""
    stored = syntax.names_in(tree, gast.Store)
    store_counts: Dict[str, int] = {}
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            store_counts[node.id] = store_counts.get(node.id, 0) + 1
    made = {}
    for node in syntax.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) \
                and store_counts.get(node.targets[0].id) == 1 and _is_partial_call(node.value, parsed.func, stored):
            made[node.targets[0].id] = node
    if not made:
        return False
    _refuse_other_uses(parsed, tree, made)
    bound = {name: _bind(unit, parsed.func, name, assign.value, stored) for name, assign in made.items()}
    replacements = {id(assign): bound[name][1] for name, assign in made.items()}
    _CallRewriter({name: entry[0] for name, entry in bound.items()}).visit(tree)
    _replace_statements(tree, replacements)
    return True


def _is_partial_call(value, func, stored) -> bool:
    if not isinstance(value, gast.Call) or _resolved(value.func, func) is not functools.partial:
        return False
    if not value.args or any(isinstance(a, gast.Starred) for a in value.args) \
            or any(k.arg is None for k in value.keywords):
        return False
    root = value.args[0]
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(root, gast.Name) and root.id not in stored


def _resolved(node, func) -> Optional[object]:
    """The object a name or ``module.name`` denotes in ``func``'s globals (None if unknown)."""
    if isinstance(node, gast.Name):
        namespace = func.__globals__
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, gast.Attribute):
        owner = _resolved(node.value, func)
        return getattr(owner, node.attr, None) if inspect.ismodule(owner) else None
    return None


def _refuse_other_uses(parsed, tree, made) -> None:
    called = {id(node.func) for node in syntax.walk(tree) if isinstance(node, gast.Call)}
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in made \
                and id(node) not in called:
            function = syntax.clone(made[node.id].value.args[0])
            raise located(UnsupportedSyntaxError,
                          f"the functools.partial `{node.id}` made in this function is used other than by "
                          f"calling it (srcad writes out each call of a partial made here)",
                          f"call it where you need it (`{node.id}(...)`), or call `{_source(function)}` with "
                          f"all its arguments", parsed.location(node))


def _source(node) -> str:
    if isinstance(node, gast.Attribute):
        return f"{_source(node.value)}.{node.attr}"
    return node.id


def _bind(unit, func, name, call, stored):
    """(the call's fixed parts, the statements replacing ``name = functools.partial(...)``)."""
    function, statements = call.args[0], []
    try:
        parameters = list(inspect.signature(_resolved(function, func)).parameters)
    except (TypeError, ValueError):
        parameters = []

    def fixed(value, label):
        if isinstance(value, gast.Constant) or isinstance(value, gast.Name) and value.id not in stored:
            return value
        temporary = unit.namer.fresh(f"{name}_{label}")
        statements.append(syntax.set_location(syntax.assign(temporary, value), call.lineno))
        return syntax.name(temporary)
    arguments = [fixed(value, parameters[index] if index < len(parameters) else f"arg{index}")
                 for index, value in enumerate(call.args[1:])]
    keywords = {keyword.arg: fixed(keyword.value, keyword.arg) for keyword in call.keywords}
    return (function, arguments, keywords), statements


class _CallRewriter(gast.NodeTransformer):
    """``p(x, k=v)`` as ``fn(a, x, k=v, ...)`` for each partial ``p``."""

    def __init__(self, partials):
        self.partials = partials

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and node.func.id in self.partials):
            return node
        function, arguments, keywords = self.partials[node.func.id]
        given = {keyword.arg for keyword in node.keywords}
        kept = [gast.keyword(arg=key, value=syntax.clone(value)) for key, value in keywords.items()
                if key not in given]
        call = gast.Call(func=syntax.clone(function), args=[syntax.clone(a) for a in arguments] + node.args,
                         keywords=kept + node.keywords)
        for new in syntax.walk(call):
            if not hasattr(new, "lineno") or getattr(new, "lineno", None) is None:
                gast.copy_location(new, node)
        return gast.copy_location(call, node)


def _replace_statements(tree, replacements) -> None:
    def block(statements: List) -> List:
        result = []
        for stmt in statements:
            if id(stmt) in replacements:
                result += replacements[id(stmt)]
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, block(getattr(stmt, field)))
            for handler in getattr(stmt, "handlers", []):
                handler.body = block(handler.body)
            result.append(stmt)
        return result
    tree.body = block(tree.body)
