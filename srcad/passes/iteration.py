"""Transformation: generator expressions, set and dict comprehensions, and the builtins that consume iterables,
written with list comprehensions and calls that have rules.

Contract: after this pass the function holds no generator expression, set or
dict comprehension, set literal, or call of ``map``/``filter`` outside a
``for`` loop's own iterable; ``list``, ``tuple``, ``set``, ``frozenset``,
``dict`` and ``sorted`` receive list comprehensions or lists.  In detail:
- a generator expression consumed whole (the argument of ``sum``, ``min``,
  ``max``, ``any``, ``all``, ``sorted``, ``list``, ``tuple``, ``set``,
  ``frozenset``, ``dict``, ``math.fsum``, ``enumerate``, ``zip``, ``map``,
  ``filter``, the items of ``functools.reduce``, or what a loop or
  comprehension iterates over) becomes the list
  comprehension with the same clauses.  Its items are then all computed before
  the consumer runs: the values, and so the derivatives, are the same;
- ``zip``, ``enumerate``, ``reversed``, ``map`` and ``filter`` consumed whole
  become ``[v for v in <the call>]`` (``map(fn, xs)`` is ``[fn(v) for v in
  xs]``, ``filter(fn, xs)`` is ``[v for v in xs if fn(v)]``), which ``desugar``
  turns into a loop over positions;
- ``list(X)`` is a list comprehension; ``tuple(X)``, ``set(X)``,
  ``frozenset(X)``, ``sorted(X)`` and ``dict(X)`` receive one (``dict(d)``
  of a name is left as it is: a dict to copy or a list of pairs) (a literal
  ``tuple([a, b])`` is the tuple ``(a, b)``; ``sorted(xs)`` of a list or
  array made in f is left as it is: sorted makes the new list); ``dict(a=e)`` is ``{'a': e}``;
  ``{k: v for ...}`` is ``dict([(k, v) for ...])``; ``{a, b}`` is
  ``set([a, b])`` and ``{e for ...}`` is ``set([e for ...])``;
- a dict's ``.keys()``, ``.values()`` or ``.items()`` consumed whole (``sum(d.values())``,
  ``list(d.items())``) becomes ``[item for item in d.values()]``, a loop over the dict's keys;
- ``min``, ``max``, ``sum`` and ``math.fsum`` of one iterable receive a list;
  of a name not known to hold a list, tuple or array (a parameter), the
  statement is preceded by ``sequence_length(name)``, which raises
  ``UnsupportedValueError`` at run time for a dict (whose keys they would
  add), a set or another iterable;
- ``xs.insert(i, v)`` on a list no other name holds is a new list built by a
  comprehension (``list_inserts``);
- a generator expression kept in a variable and consumed once by one of those
  later in the same block stands where it is consumed (``held_generators``);
- then list comprehensions become append loops and assignment expressions
  statements (``comprehensions``), before ``inline`` puts local functions'
  bodies in place of their calls (a call in a comprehension's element runs
  once per item).
Raises ``UnsupportedSyntaxError`` for a generator, ``zip``, ``map``,
``filter``, ``enumerate`` or ``reversed`` object that is not consumed where it
is made (kept in a variable, passed to another function), for ``key=`` of
``sorted``, ``min`` and ``max``, and for ``dict`` of both pairs and keywords.

Example: ``sum(x[i] * w[i] for i in range(n))`` becomes ``sum([x[i] * w[i]
for i in range(n)])``; ``tuple(map(np.sin, xs))`` becomes ``tuple([np.sin(v)
for v in xs])``.
"""
from __future__ import annotations

import builtins
import functools
import math

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from . import Transformation
from .comprehensions import lower_assignment_expressions, lower_comprehensions, pure_function
from .held_generators import inline_held_generators
from .list_inserts import rewrite_list_inserts
from ..runtime.containers import sequence_length
from .loops import dict_view, positional, unordered
from .numpy_forms import callee

LAZY_CALLS = (builtins.zip, builtins.enumerate, builtins.reversed, builtins.map, builtins.filter)
_CONSUMERS = (builtins.sum, builtins.min, builtins.max, builtins.any, builtins.all, builtins.sorted, builtins.list,
              builtins.tuple, builtins.set, builtins.frozenset, builtins.dict, math.fsum) + LAZY_CALLS
_BUILDERS = (builtins.list, builtins.tuple, builtins.set, builtins.frozenset, builtins.dict, builtins.sorted)


class Iteration(Transformation):
    """Rewrite iterables consumed by builtins into list comprehensions."""

    name = "iteration"

    def transform(self, unit):
        inserted = any([rewrite_list_inserts(unit, function) for function in syntax.walk(unit.tree)
                        if isinstance(function, gast.FunctionDef)])
        inserted = inline_held_generators(unit.tree) or inserted
        rewriter = _Rewriter(unit)
        rewriter.visit(unit.tree)
        unit.tree.body = _guarded_reductions(unit, unit.tree.body)
        lowered = any(isinstance(node, (gast.ListComp, gast.NamedExpr)) for node in gast.walk(unit.tree))
        unit.tree.body = lower_assignment_expressions(unit, lower_comprehensions(unit, unit.tree.body))
        return rewriter.changed or lowered or inserted


_REDUCTIONS = (builtins.sum, builtins.min, builtins.max, math.fsum)


def _guarded_reductions(unit, block):
    """``block`` with ``sequence_length(xs)`` before each statement that reduces a name ``xs`` not known to be
    read by position (``sum(xs)``, ``max(xs)``): their rules take a list, tuple or array."""
    result = []
    for stmt in block:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _guarded_reductions(unit, getattr(stmt, field)))
        own = [stmt] if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)) else \
            [stmt.test] if isinstance(stmt, gast.If) else []
        names = []
        for part in own:
            for node in gast.walk(part):
                if _ref(node) in _REDUCTIONS and len(node.args) == 1 and isinstance(node.args[0], gast.Name) \
                        and node.args[0].id not in names and not positional(node.args[0], unit.tree.body):
                    names.append(node.args[0].id)
        for name in names:
            check = syntax.expr_stmt(syntax.call(callee(unit, sequence_length), [syntax.name(name)]))
            result.append(syntax.set_location(check, stmt.lineno))
        result.append(stmt)
    return result


def _ref(call):
    return annotation(call.func, "ref") if isinstance(call, gast.Call) else None


def _builtin_name(function) -> gast.Name:
    node = syntax.name(function.__name__)
    syntax.annotate(node, "ref", function)
    return node


class _Rewriter(gast.NodeTransformer):
    def __init__(self, unit):
        self.unit = unit
        self.changed = False
        self.consumed = set()   # ids of nodes consumed whole where they stand

    # where iterables are consumed whole -----------------------------------------
    def visit_For(self, node):
        self.consumed.add(id(node.iter))
        node.iter = self._as_list(node.iter, lazy_ok=True)
        return self.generic_visit(node)

    def visit_comprehension(self, node):
        self.consumed.add(id(node.iter))
        node.iter = self._as_list(node.iter, lazy_ok=True)
        return self.generic_visit(node)

    def visit_Call(self, node):
        function = _ref(node)
        if function is functools.reduce and len(node.args) >= 2:   # its items, consumed whole (itertools_loops)
            items = node.args[1]
            if (isinstance(items, gast.GeneratorExp) or _ref(items) in LAZY_CALLS) and not pure_function(node.args[0]):
                raise self.unit.error(node, UnsupportedSyntaxError, "`functools.reduce` of a function that may "
                                      "change state, over items made one by one as it runs",
                                      "make the list of items first: `items = [...]`, then "
                                      "`functools.reduce(fn, items)`")
            self.consumed.add(id(node.args[1]))
            self.generic_visit(node)
            node.args[1] = self._as_list(node.args[1], lazy_ok=True)
            return node
        if function in _CONSUMERS and node.args:
            self._check_keywords(node, function)
            if function in (builtins.min, builtins.max) and len(node.args) > 1:
                consumed = []   # max(a, b): two values, not an iterable
            elif function in (builtins.sum, math.fsum):
                consumed = node.args[:1]
            elif function in (builtins.map, builtins.filter):
                consumed = node.args[1:]
            else:
                consumed = node.args
            for argument in consumed:
                self.consumed.add(id(argument))
        self.generic_visit(node)
        if function in LAZY_CALLS and id(node) not in self.consumed:
            raise self.unit.error(node, UnsupportedSyntaxError,
                                  f"a {function.__name__} object kept or passed on (it is made lazily, used once)",
                                  f"iterate over `{function.__name__}(...)` where you make it, or make a list: "
                                  f"`list({function.__name__}(...))`")
        if function in _CONSUMERS:
            return self._consumer(node, function)
        return node

    def visit_GeneratorExp(self, node):
        self.generic_visit(node)
        if id(node) not in self.consumed:
            raise self.unit.error(node, UnsupportedSyntaxError,
                                  "a generator expression other than as the argument of sum, min, max, any, all, "
                                  "sorted, list, tuple, set, dict or math.fsum (or kept in a variable that one of "
                                  "them consumes once, later in the same block, with its first iterable unchanged)",
                                  "build a list with a list comprehension `[...]` instead")
        return node   # its consumer makes it a list comprehension

    def visit_SetComp(self, node):
        self.generic_visit(node)
        listed = gast.copy_location(gast.ListComp(elt=node.elt, generators=node.generators), node)
        return gast.copy_location(self._call(builtins.set, [listed]), node)

    def visit_Set(self, node):
        self.generic_visit(node)
        return gast.copy_location(self._call(builtins.set, [gast.List(elts=node.elts, ctx=gast.Load())]), node)

    def visit_DictComp(self, node):
        self.generic_visit(node)
        pair = gast.Tuple(elts=[node.key, node.value], ctx=gast.Load())
        listed = gast.copy_location(gast.ListComp(elt=pair, generators=node.generators), node)
        return gast.copy_location(self._call(builtins.dict, [listed]), node)

    # rewriting ---------------------------------------------------------------------
    def _check_keywords(self, node, function):
        names = {keyword.arg for keyword in node.keywords}
        if "key" in names and function in (builtins.sorted, builtins.min, builtins.max):
            raise self.unit.error(node, UnsupportedSyntaxError, f"{function.__name__}(..., key=...)",
                                  "sort or select positions instead: `order = sorted(range(len(xs)), key=lambda "
                                  "k: ...)`, then `[xs[k] for k in order]`")

    def _consumer(self, node, function):
        if function in (builtins.map, builtins.filter) and id(node) in self.consumed:
            return node   # a loop or another consumer iterates over it
        if function in LAZY_CALLS:   # zip(gen, xs): its generators become lists; a loop reads the rest by position
            first = 1 if function in (builtins.map, builtins.filter) else 0
            node.args[first:] = [self._as_list(a, lazy_ok=True) for a in node.args[first:]]
            return node
        if function is builtins.dict and node.keywords and not node.args:
            self.changed = True
            return gast.Dict(keys=[syntax.constant(k.arg) for k in node.keywords],
                             values=[k.value for k in node.keywords])
        if function is builtins.dict and node.keywords:
            raise self.unit.error(node, UnsupportedSyntaxError, "dict(...) of both pairs and keywords",
                                  "write a dict literal `{'a': ..., **...}` or two steps")
        if not node.args or (function in (builtins.min, builtins.max) and len(node.args) > 1):
            return node
        first = node.args[0]
        if function is builtins.list:
            return self._as_list(first, lazy_ok=False, copy=True)
        if function is builtins.tuple and isinstance(first, (gast.List, gast.Tuple)):
            self.changed = True
            return gast.Tuple(elts=first.elts, ctx=gast.Load())
        if function is builtins.dict and isinstance(first, gast.Name):
            if unordered(first, self.unit.tree.body) != "dict":
                return node   # a list of pairs (or a dict f is given): dict's rules take either
            key = self.unit.namer.fresh("key")   # a dict f made: copied entry by entry, `{k: d[k] for k in d}`
            value = gast.Subscript(value=syntax.clone(first), slice=syntax.name(key), ctx=gast.Load())
            pair = gast.Tuple(elts=[syntax.name(key), value], ctx=gast.Load())
            node.args[0] = self._comprehension(pair, syntax.store(key), first, [])
            return node
        needs_list = function in _BUILDERS or isinstance(first, gast.GeneratorExp) or _ref(first) in LAZY_CALLS \
            or dict_view(first)
        if function is builtins.sorted and isinstance(first, gast.Name) and positional(first, self.unit.tree.body):
            return node   # a list or array made in f: sorted makes the new list itself, no copy first
        if needs_list:
            node.args[0] = self._as_list(first, lazy_ok=False, copy=function in _BUILDERS)
        return node

    def _as_list(self, node, lazy_ok, copy=False):
        """``node`` as a list comprehension (or a list), when it is one of the forms this pass removes."""
        function = _ref(node)
        if isinstance(node, gast.GeneratorExp):
            self.changed = True
            return gast.copy_location(gast.ListComp(elt=node.elt, generators=node.generators), node)
        if function is builtins.map and not lazy_ok:
            return self._map(node)
        if function is builtins.filter:
            return self._filter(node)
        if isinstance(node, (gast.ListComp, gast.List)) or lazy_ok:
            return node
        if dict_view(node):   # sum(d.values()): the items, listed where they are consumed
            self.changed = True
            return self._each(node, lambda item: item)
        if (function in LAZY_CALLS or copy) and function is not builtins.range:
            return self._each(node, lambda item: item)
        return node

    def _map(self, node):
        """``map(fn, a, b)``: ``[fn(a_item, b_item) for a_item, b_item in zip(a, b)]``."""
        sequences = node.args[1:]
        if len(sequences) == 1:
            return self._each(sequences[0], lambda item: syntax.call(syntax.clone(node.args[0]), [item]))
        names = [self.unit.namer.fresh("item") for _ in sequences]
        target = gast.Tuple(elts=[syntax.store(n) for n in names], ctx=gast.Store())
        zipped = self._call(builtins.zip, sequences)
        self.consumed.add(id(zipped))
        element = syntax.call(syntax.clone(node.args[0]), [syntax.name(n) for n in names])
        return self._comprehension(element, target, zipped, [])

    def _filter(self, node):
        """``filter(fn, xs)``: ``[v for v in xs if fn(v)]`` (``filter(None, xs)`` keeps the true items)."""
        function, sequence = node.args
        item = self.unit.namer.fresh("item")
        keep = syntax.name(item) if isinstance(function, gast.Constant) and function.value is None \
            else syntax.call(syntax.clone(function), [syntax.name(item)])
        return self._comprehension(syntax.name(item), syntax.store(item), sequence, [keep])

    def _each(self, sequence, element):
        item = self.unit.namer.fresh("item")
        return self._comprehension(element(syntax.name(item)), syntax.store(item), sequence, [])

    def _comprehension(self, element, target, sequence, conditions):
        self.changed = True
        self.consumed.add(id(sequence))
        generator = gast.comprehension(target=target, iter=sequence, ifs=conditions, is_async=0)
        return gast.copy_location(gast.ListComp(elt=element, generators=[generator]), sequence)

    def _call(self, function, args):
        self.changed = True
        return syntax.call(_builtin_name(function), args)
