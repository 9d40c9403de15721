"""Transformation: ``*args`` and ``**kwargs``, written out where srcad knows their structure.

Contract:
- f's own ``*xs`` and ``**kw`` parameters become plain parameters for the
  call at hand: the option ``variadic``, ``(count, keywords)`` (how many
  positional arguments ``*xs`` took, the keywords ``**kw`` took), gives the
  variant, its parameters are named by ``variadic_names`` (``xs_0``,
  ``xs_1``, and each keyword under its own name unless f uses that name),
  and the body starts with ``xs = (xs_0, xs_1)`` and ``kw = {'alpha':
  alpha}``.  Without those options, such a parameter raises
  ``UnsupportedSyntaxError`` (``srcad.api`` always gives them).
- At a call, ``g(*parts)`` becomes ``g(parts[0], parts[1])`` and
  ``g(**cfg)`` becomes ``g(a=cfg['a'])`` when the structure is known when the
  derivative is built: a tuple or list literal, a local that one statement
  binds to such a literal (or ``dict(a=...)``) and nothing changes (no
  store, no ``append``...), f's own ``*xs`` and ``**kw``, or a global or
  closure tuple or dict of str keys.  Any other ``*``/``**`` argument raises
  ``UnsupportedSyntaxError`` naming the line and how to write it out.

Example: with ``parts = (x, y)``, ``np.add(*parts)`` becomes
``np.add(parts[0], parts[1])``.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from .receivers import Scope
from . import Transformation


def variadic_names(taken: Sequence[str], star: Optional[str], count: int, keywords: Sequence[str]
                   ) -> Tuple[Tuple[str, ...], Dict[str, str]]:
    """The parameters a variant of ``f(*star, **kw)`` takes: ``star_0``... for the positional arguments, and
    for each keyword its own name (``name_`` when f already uses it); ``taken`` are f's names.

    Example::

        >>> variadic_names(["x", "xs"], "xs", 2, ["alpha"])
        (('xs_0', 'xs_1'), {'alpha': 'alpha'})
    """
    used = set(taken)

    def free(name: str) -> str:
        while name in used:
            name += "_"
        used.add(name)
        return name

    positional = tuple(free(f"{star}_{index}") for index in range(count)) if star else ()
    return positional, {keyword: free(keyword) for keyword in keywords}


class StarArguments(Transformation):
    """Write ``*args`` and ``**kwargs`` out (see the module's contract)."""

    name = "star_arguments"

    def transform(self, unit):
        changed = _expand_parameters(unit)
        scope = Scope(unit.parsed.func, unit.tree)
        expander = _Expander(unit, scope)
        unit.tree.body = [expander.visit(stmt) for stmt in unit.tree.body]
        return changed or expander.changed


def _expand_parameters(unit) -> bool:
    args = unit.tree.args
    if args.vararg is None and args.kwarg is None:
        return False
    variadic = unit.options.get("variadic")
    count, keywords = variadic if variadic else (None, None)
    star, double = args.vararg, args.kwarg
    if variadic is None:
        raise unit.error(unit.tree, UnsupportedSyntaxError,
                         f"the parameter `*{(star or double).id}` without a call to take its structure from",
                         "differentiate the function through srcad.grad, srcad.autodiff, srcad.vjp or "
                         "srcad.jvp, which make a derivative per number of arguments")
    taken = syntax.names_in(unit.tree)
    positional, named = variadic_names(sorted(taken), star.id if star else None, count or 0, keywords or ())
    first = []
    if star is not None:
        args.args = args.args + [syntax.name(name, gast.Param()) for name in positional]
        first.append(syntax.assign(star.id, gast.Tuple(elts=[syntax.name(name) for name in positional],
                                                       ctx=gast.Load())))
    if double is not None:
        args.kwonlyargs = args.kwonlyargs + [syntax.name(name, gast.Param()) for name in named.values()]
        args.kw_defaults = args.kw_defaults + [None] * len(named)
        first.append(syntax.assign(double.id, gast.Dict(keys=[syntax.constant(k) for k in named],
                                                        values=[syntax.name(v) for v in named.values()])))
    args.vararg = args.kwarg = None
    body = unit.tree.body
    start = 1 if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) else 0
    unit.tree.body = body[:start] + [syntax.set_location(stmt, unit.tree.lineno) for stmt in first] + body[start:]
    return True


class _Expander(gast.NodeTransformer):
    def __init__(self, unit, scope: Scope):
        self.unit, self.scope = unit, scope
        self.changed = False
        self.literals = _unchanged_literals(unit.tree)

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if not any(isinstance(arg, gast.Starred) for arg in node.args) and all(k.arg for k in node.keywords):
            return node
        args = []
        for arg in node.args:
            args += self._items(arg.value) if isinstance(arg, gast.Starred) else [arg]
        keywords = []
        for keyword in node.keywords:
            keywords += self._entries(keyword.value) if keyword.arg is None else [keyword]
        self.changed = True
        return gast.copy_location(gast.Call(func=node.func, args=args, keywords=keywords), node)

    def _items(self, value):
        """The items ``*value`` unpacks, as expressions."""
        if isinstance(value, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in value.elts):
            return value.elts
        length = self._length(value)
        if length is None:
            raise self._unknown(value, "*", "g(parts[0], parts[1])")
        return [gast.copy_location(gast.Subscript(value=syntax.clone(value), slice=syntax.constant(index),
                                                  ctx=gast.Load()), value) for index in range(length)]

    def _entries(self, value):
        """The keywords ``**value`` unpacks."""
        if isinstance(value, gast.Dict) and all(isinstance(k, gast.Constant) and isinstance(k.value, str)
                                                for k in value.keys):
            return [gast.keyword(arg=k.value, value=v) for k, v in zip(value.keys, value.values)]
        keys = self._keys(value)
        if keys is None:
            raise self._unknown(value, "**", "g(a=cfg['a'], b=cfg['b'])")
        return [gast.keyword(arg=key, value=gast.copy_location(gast.Subscript(
            value=syntax.clone(value), slice=syntax.constant(key), ctx=gast.Load()), value)) for key in keys]

    def _length(self, value) -> Optional[int]:
        if isinstance(value, gast.Name) and value.id in self.literals:
            literal = self.literals[value.id]
            if isinstance(literal, (gast.Tuple, gast.List)):
                return len(literal.elts)
            return None
        known = None if self.scope.rooted_outside(value) is False else self.scope.values(value)
        if known and len(known) == 1 and isinstance(known[0], tuple):
            return len(known[0])
        return None

    def _keys(self, value) -> Optional[Sequence[str]]:
        if isinstance(value, gast.Name) and value.id in self.literals:
            literal = self.literals[value.id]
            if isinstance(literal, gast.Dict) and all(isinstance(k, gast.Constant) and isinstance(k.value, str)
                                                      for k in literal.keys):
                return [k.value for k in literal.keys]
            if isinstance(literal, gast.Call) and isinstance(literal.func, gast.Name) and literal.func.id == "dict" \
                    and not literal.args and all(k.arg for k in literal.keywords) \
                    and self.scope.lookup("dict") is dict and not self.scope.is_local("dict"):
                self._as_literal(literal)
                return [k.arg for k in literal.keywords]
            return None
        return None   # a global dict's keys may change after the derivative is built

    def _as_literal(self, call) -> None:
        """``cfg = dict(a=e)`` unpacked with ``**cfg``: made the literal ``{'a': e}`` it builds, which srcad
        differentiates (read entry by entry)."""
        keys, values = [syntax.constant(k.arg) for k in call.keywords], [k.value for k in call.keywords]
        literal = gast.copy_location(gast.Dict(keys=keys, values=values), call)
        for statement in syntax.walk(self.unit.tree):
            if isinstance(statement, gast.Assign) and statement.value is call:
                statement.value = literal

    def _unknown(self, value, star: str, example: str):
        spelled = value.id if isinstance(value, gast.Name) else "this value"
        return self.unit.error(value, UnsupportedSyntaxError,
                               f"`{star}{spelled}` unpacks a value whose {'length' if star == '*' else 'keys'} "
                               f"srcad does not know when it builds the derivative",
                               f"write the arguments out ({example}), or build `{spelled}` as a "
                               f"{'tuple' if star == '*' else 'dict'} literal in this function")


def _unchanged_literals(tree) -> Dict[str, object]:
    """Locals bound once, to a tuple, list or dict literal or ``dict(...)``, and never changed after."""
    stores: Dict[str, int] = {}
    literals: Dict[str, object] = {}
    changed = set()
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) \
                and isinstance(node.value, (gast.Tuple, gast.List, gast.Dict, gast.Call)):
            literals[node.targets[0].id] = node.value
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for target in targets:
            while isinstance(target, (gast.Subscript, gast.Attribute)):
                target = target.value
                if isinstance(target, gast.Name):
                    changed.add(target.id)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and isinstance(node.func.value, gast.Name):
            changed.add(node.func.value.id)   # xs.append(v), d.update(...): may change it
    for node in syntax.walk(tree):
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            changed.add(node.target.id)
    read = _read_only_names(tree)
    return {name: value for name, value in literals.items()
            if stores.get(name) == 1 and name not in changed
            and (isinstance(value, gast.Tuple) or name in read)   # a list or dict passed on may change
            and not (isinstance(value, gast.Call) and not (isinstance(value.func, gast.Name)
                                                           and value.func.id == "dict"))}


def _read_only_names(tree) -> set:
    """Names every load of which is unpacked (``*xs``, ``**kw``) or indexed (``xs[0]``): nothing can change
    them through another name."""
    parents = {}
    for node in syntax.walk(tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    loads: Dict[str, bool] = {}
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            parent = parents.get(id(node))
            safe = isinstance(parent, gast.Starred) or (isinstance(parent, gast.keyword) and parent.arg is None) \
                or (isinstance(parent, gast.Subscript) and parent.value is node)
            loads[node.id] = loads.get(node.id, True) and safe
    return {name for name, safe in loads.items() if safe}
