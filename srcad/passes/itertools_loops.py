"""Transformation: ``for`` loops over ``itertools.product`` and ``itertools.combinations``, as loops over lists.

Contract: runs after ``iteration``, so comprehensions are loops already.  A
``for`` loop (anywhere in the function but nested defs) whose iterable is
- ``itertools.product(a, b, ...)``, with ``repeat=`` an int constant or absent, or
- ``itertools.combinations(a, r)`` with ``r`` an int constant,
called by its module or imported name, is preceded by statements that build the
list of tuples the call yields, and the loop iterates over that list:
``combos = []``, then nested loops appending ``(v0, v1, ...)``.  Both calls read
their iterables whole before yielding anything (they make tuples of them), so
building the list first gives the same items, in the same order, as the same
objects (a row of an array is the same view).  Each iterable is evaluated once,
in order, as Python does (a ``range`` as it is, anything else listed by an
append loop).  Any other call of an ``itertools`` function, and
``functools.reduce``, raises ``UnsupportedSyntaxError`` naming it and the loop to write.  Returns whether
anything changed.

Example: ``for i, j in itertools.combinations(range(n), 2):`` becomes
``pool = range(n)``, ``combos = []``, ``for i_0 in range(len(pool)):
for i_1 in range(i_0 + 1, len(pool)): combos.append((pool[i_0], pool[i_1]))``,
then ``for i, j in combos:``.
"""
from __future__ import annotations

import builtins
import functools
import itertools
from typing import List, Optional

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from . import Transformation


class ItertoolsLoops(Transformation):
    """Loops over ``itertools.product``/``combinations`` as loops over the list of their tuples."""

    name = "itertools_loops"

    def transform(self, unit) -> bool:
        self.unit = unit
        self.changed = False
        unit.tree.body = syntax.rewrite_statements(unit.tree.body, self._statement)
        for node in syntax.walk(unit.tree):
            function = syntax.annotation(node.func, "ref") if isinstance(node, gast.Call) else None
            if function is functools.reduce:
                raise unit.error(node, UnsupportedSyntaxError, "`functools.reduce(...)` is not supported",
                                 "write the loop: `total = items[0]`, then `for item in items[1:]: "
                                 "total = fn(total, item)`")
            if getattr(function, "__module__", None) == "itertools" or type(function).__module__ == "itertools":
                raise unit.error(node, UnsupportedSyntaxError, f"`itertools.{function.__name__}(...)` is not supported here",
                                 "srcad writes out `itertools.product(...)` and `itertools.combinations(xs, 2)` "
                                 "iterated directly by a `for` loop or a comprehension; otherwise build the "
                                 "list with loops and `append`, or loop over each part in turn")
        return self.changed

    def _statement(self, stmt) -> List:
        built = self._listed(stmt.iter) if isinstance(stmt, gast.For) else None
        if built is None:
            return [stmt]
        statements, items = built
        stmt.iter = syntax.name(items)
        self.changed = True
        return [syntax.set_location(new, getattr(stmt, "lineno", None)) for new in statements] + [stmt]

    def _listed(self, call):
        """(statements that build the list ``call`` yields, its name), or None for another iterable."""
        function = syntax.annotation(call.func, "ref") if isinstance(call, gast.Call) else None
        if function is itertools.product:
            repeat = _int_keyword(call, "repeat", 1)
            if repeat is None or any(isinstance(arg, gast.Starred) for arg in call.args):
                return None
            statements, pools = self._pools(call.args, reread=repeat > 1)
            return self._nested(statements, [("all", pool) for pool in pools * repeat], "products")
        if function is itertools.combinations and len(call.args) == 2 and not call.keywords:
            size = call.args[1]
            if not (isinstance(size, gast.Constant) and type(size.value) is int and size.value >= 0):
                return None
            statements, (pool,) = self._pools(call.args[:1], reread=True)
            return self._nested(statements, [("after", pool)] * size.value, "combos")
        return None

    def _pools(self, arguments, reread: bool):
        """Each iterable bound to a name once, in order: a ``range`` as it is, a name as it is unless it is read
        again or by position (``reread``: a dict or a generator would not do), else listed by an append loop."""
        statements, names = [], []
        for argument in arguments:
            if isinstance(argument, gast.Name) and not reread:
                names.append(argument.id)
                continue
            reusable = isinstance(argument, gast.Call) and syntax.annotation(argument.func, "ref") is builtins.range
            name = self.unit.namer.fresh("pool")
            if reusable:
                statements.append(syntax.assign(name, argument))
            else:   # pool = [], for item in <argument>: pool.append(item)
                item = self.unit.namer.fresh("item")
                statements += [syntax.assign(name, gast.List(elts=[], ctx=gast.Load())),
                               gast.For(target=syntax.store(item), iter=argument, body=[_append(name, item)],
                                        orelse=[], type_comment=None)]
            names.append(name)
        return statements, names

    def _nested(self, statements, levels, preferred):
        """``items = []`` and one loop per level appending the tuple; a level ``("all", pool)`` iterates over
        ``pool``, ``("after", pool)`` over the positions after the previous level's."""
        items = self.unit.namer.fresh(preferred)
        statements.append(syntax.assign(items, gast.List(elts=[], ctx=gast.Load())))
        loop_names = [self.unit.namer.fresh("item") for _ in levels]
        elements = []
        for (kind, pool), name in zip(levels, loop_names):
            elements.append(syntax.name(name) if kind == "all" else
                            gast.Subscript(value=syntax.name(pool), slice=syntax.name(name), ctx=gast.Load()))
        body = [_append(items, gast.Tuple(elts=elements, ctx=gast.Load()))]
        for depth in reversed(range(len(levels))):
            kind, pool = levels[depth]
            if kind == "all":
                iterable = syntax.name(pool)
            else:
                start = syntax.constant(0) if depth == 0 or levels[depth - 1][0] != "after" else gast.BinOp(
                    left=syntax.name(loop_names[depth - 1]), op=gast.Add(), right=syntax.constant(1))
                iterable = _builtin_call("range", [start, _builtin_call("len", [syntax.name(pool)])])
            body = [gast.For(target=syntax.store(loop_names[depth]), iter=iterable, body=body, orelse=[],
                             type_comment=None)]
        return statements + body, items


def _append(items: str, value) -> gast.Expr:
    """``items.append(value)`` (``value`` a name or a node)."""
    element = syntax.name(value) if isinstance(value, str) else value
    append = gast.Attribute(value=syntax.name(items), attr="append", ctx=gast.Load())
    return syntax.expr_stmt(gast.Call(func=append, args=[element], keywords=[]))


def _int_keyword(call, keyword: str, default: int) -> Optional[int]:
    """The int constant given as ``keyword``, ``default`` when absent, None for anything else."""
    others = [kw for kw in call.keywords if kw.arg != keyword]
    given = [kw.value for kw in call.keywords if kw.arg == keyword]
    if others:
        return None
    if not given:
        return default
    value = given[0]
    return value.value if isinstance(value, gast.Constant) and type(value.value) is int and value.value >= 0 \
        else None


def _builtin_call(name: str, args) -> gast.Call:
    """``name(*args)`` for a builtin, resolved as ``resolve`` resolves the user's own calls."""
    func = syntax.name(name)
    syntax.annotate(func, "ref", getattr(builtins, name))
    return gast.Call(func=func, args=list(args), keywords=[])
