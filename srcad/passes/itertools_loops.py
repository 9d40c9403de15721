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
append loop).

A call ``functools.reduce(fn, items)`` or ``functools.reduce(fn, items,
initial)`` in a statement that evaluates it once and whole (an assignment,
an expression, a ``return``, an ``if`` test or a ``for`` loop's iterable;
not under ``and``/``or``, a conditional expression or a lambda) becomes the
loop it runs, before the statement, whose value it then reads by name:
``total = initial`` and ``for item in items: total = fn(total, item)``;
without ``initial``, ``items`` is listed first, ``check_reduce_items``
raises Python's ``TypeError`` when it is empty, ``total = items[0]`` and the
loop goes over the positions from 1.  ``fn`` other than a name or a dotted
name (a lambda) is bound to a name first; of ``functools.partial(g, a,
k=v)`` the loop calls ``g(a, total, item, k=v)``, ``a`` and ``v`` bound to
names first unless they are names or constants.  The
arguments are evaluated once, in order, and what Python evaluates before the
call in the statement is bound to names first where the loop running first
would change it (``comprehensions.bind_earlier_operands``); with an initial
value that may change state (``xs.pop()``) and lazy items (``map``,
``reversed``...), which Python makes before it, the call is refused.  Any other call of an ``itertools``
function, or of ``functools.reduce``, raises ``UnsupportedSyntaxError``
naming it and the loop to write.  Returns whether anything changed.

Example: ``for i, j in itertools.combinations(range(n), 2):`` becomes
``pool = range(n)``, ``combos = []``, ``for i_0 in range(len(pool)):
for i_1 in range(i_0 + 1, len(pool)): combos.append((pool[i_0], pool[i_1]))``,
then ``for i, j in combos:``; ``return reduce(np.maximum, xs)`` becomes ``pool = []``, ``for item in xs:
pool.append(item)``, ``check_reduce_items(pool)``, ``total = pool[0]``, ``for position in range(1,
len(pool)): total = np.maximum(total, pool[position])``, then ``return total``.
"""
from __future__ import annotations

import builtins
import functools
import itertools
from typing import List, Optional

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..runtime.containers import check_reduce_items
from .comprehensions import bind_earlier_operands, may_change_state
from .iteration import LAZY_CALLS
from .numpy_forms import callee
from . import Transformation


class ItertoolsLoops(Transformation):
    """Loops over ``itertools.product``/``combinations`` as loops over the list of their tuples."""

    name = "itertools_loops"

    def transform(self, unit) -> bool:
        self.unit = unit
        self.changed = False
        for function in [node for node in syntax.walk(unit.tree) if isinstance(node, gast.FunctionDef)]:
            function.body = syntax.rewrite_statements(function.body, self._statement)
        for node in syntax.walk(unit.tree):
            function = syntax.annotation(node.func, "ref") if isinstance(node, gast.Call) else None
            if function is functools.reduce:
                raise unit.error(node, UnsupportedSyntaxError, "`functools.reduce(...)` evaluated only sometimes "
                                 "(under `and`/`or`, `a if c else b`, a `while` test, a lambda), with `*` arguments, "
                                 "or with items made lazily (`map`, `reversed`...) and an initial value that changes "
                                 "state", "assign its arguments and then it on lines of their own first: "
                                 "`start = ...`, `total = functools.reduce(fn, items, start)`, then use `total`")
            if getattr(function, "__module__", None) == "itertools" or type(function).__module__ == "itertools":
                raise unit.error(node, UnsupportedSyntaxError, f"`itertools.{function.__name__}(...)` is not supported here",
                                 "srcad writes out `itertools.product(...)` and `itertools.combinations(xs, 2)` "
                                 "iterated directly by a `for` loop or a comprehension; otherwise build the "
                                 "list with loops and `append`, or loop over each part in turn")
        return self.changed

    def _statement(self, stmt) -> List:
        statements = self._reductions(stmt)
        if statements and isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Name) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == stmt.value.id:
            return [syntax.set_location(new, getattr(stmt, "lineno", None)) for new in statements]   # `t = t`
        built = self._listed(stmt.iter) if isinstance(stmt, gast.For) else None
        if built is not None:
            statements += built[0]
            stmt.iter = syntax.name(built[1])
        if not statements:
            return [stmt]
        self.changed = True
        return [syntax.set_location(new, getattr(stmt, "lineno", None)) for new in statements] + [stmt]

    def _reductions(self, stmt) -> List:
        """The loops of the ``functools.reduce`` calls ``stmt`` evaluates once and whole, each call replaced by
        the name of its result (innermost first: an argument's reduction runs before its caller's)."""
        fields = {gast.Assign: "value", gast.AugAssign: "value", gast.Expr: "value", gast.Return: "value",
                  gast.If: "test", gast.For: "iter"}
        field = fields.get(type(stmt))
        if field is None or getattr(stmt, field) is None:
            return []
        statements: List = []

        def visit(node):
            if isinstance(node, (gast.IfExp, gast.BoolOp, gast.Lambda)):
                return node   # evaluated only sometimes, or later: left to raise below
            for name, value in gast.iter_fields(node):
                if isinstance(value, gast.AST):
                    setattr(node, name, visit(value))
                elif isinstance(value, list):
                    setattr(node, name, [visit(item) if isinstance(item, gast.AST) else item for item in value])
            if isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") is functools.reduce \
                    and len(node.args) in (2, 3) and not node.keywords \
                    and not any(isinstance(arg, gast.Starred) for arg in node.args) \
                    and not (len(node.args) == 3 and _lazy(node.args[1]) and may_change_state(node.args[2])):
                for bound in bind_earlier_operands(self.unit, stmt, node):   # what Python evaluates first
                    statements.extend(self._reductions(bound) + [bound])
                return self._reduction(node, statements, _accumulator(stmt, node))
            return node
        setattr(stmt, field, visit(getattr(stmt, field)))
        return statements

    def _reduction(self, call, statements: List, accumulator: Optional[str] = None):
        """Append to ``statements`` the loop ``call`` (``functools.reduce``) runs; the name of its result."""
        function, items = call.args[0], call.args[1]
        if _partial(function):   # partial(g, a, k=v): g(a, total, item, k=v), its arguments evaluated once
            for holder in function.args[1:] + function.keywords:
                if not (_plain_reference(holder.value if isinstance(holder, gast.keyword) else holder)
                        or isinstance(holder, gast.Constant)):
                    name = self.unit.namer.fresh("bound")
                    value = holder.value if isinstance(holder, gast.keyword) else holder
                    statements.append(syntax.assign(name, value))
                    if isinstance(holder, gast.keyword):
                        holder.value = syntax.name(name)
                    else:
                        function.args[function.args.index(holder)] = syntax.name(name)
        elif not _plain_reference(function):   # a lambda: made once, as reduce receives it
            name = self.unit.namer.fresh("fn")
            statements.append(syntax.assign(name, function))
            function = syntax.name(name)
        total = accumulator or self.unit.namer.fresh("total")
        if len(call.args) == 3:   # items evaluated before the initial value, as the call's arguments are
            item = self.unit.namer.fresh("item")
            if not (isinstance(items, gast.Name) or _lazy(items)):
                pool = self.unit.namer.fresh("pool")
                statements.append(syntax.assign(pool, items))
                items = syntax.name(pool)
            statements.append(syntax.assign(total, call.args[2]))
            loop = gast.For(target=syntax.store(item), iter=items, orelse=[], type_comment=None,
                            body=[syntax.assign(total, _call(function, [syntax.name(total), syntax.name(item)]))])
        else:
            listed, (pool,) = self._pools([items], reread=True)
            statements += listed
            statements.append(syntax.expr_stmt(gast.Call(func=callee(self.unit, check_reduce_items),
                                                         args=[syntax.name(pool)], keywords=[])))
            statements.append(syntax.assign(total, gast.Subscript(value=syntax.name(pool), slice=syntax.constant(0),
                                                                  ctx=gast.Load())))
            position = self.unit.namer.fresh("position")
            element = gast.Subscript(value=syntax.name(pool), slice=syntax.name(position), ctx=gast.Load())
            loop = gast.For(target=syntax.store(position), orelse=[], type_comment=None,
                            iter=_builtin_call("range", [syntax.constant(1), _builtin_call("len", [syntax.name(pool)])]),
                            body=[syntax.assign(total, _call(function, [syntax.name(total), element]))])
        statements.append(loop)
        return syntax.name(total)

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




def _accumulator(stmt, call) -> Optional[str]:
    """The name ``stmt`` assigns ``call`` to (``product = functools.reduce(...)``), which the loop can carry its
    value in, when the call does not read that name; else None (a new name)."""
    if isinstance(stmt, gast.Assign) and stmt.value is call and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], gast.Name) \
            and not any(isinstance(node, gast.Name) and node.id == stmt.targets[0].id for node in syntax.walk(call)):
        return stmt.targets[0].id
    return None


def _lazy(node) -> bool:
    """Whether ``node`` is a call of ``map``, ``filter``, ``zip``, ``enumerate`` or ``reversed``."""
    return isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") in LAZY_CALLS


def _plain_reference(node) -> bool:
    """Whether ``node`` is a name or a dotted name (``np.add``): reading it again gives the same function."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _partial(node) -> bool:
    """Whether ``node`` is ``functools.partial(g, ...)`` of a function ``g`` named, without ``*`` or ``**``."""
    return isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") is functools.partial \
        and bool(node.args) and _plain_reference(node.args[0]) \
        and not any(isinstance(arg, gast.Starred) for arg in node.args) \
        and all(keyword.arg is not None for keyword in node.keywords)


def _call(function, arguments) -> gast.Call:
    """``function(*arguments)``, a copy of ``function`` (read on every pass of a loop); of a ``partial``,
    the call of its function with the partial's arguments first and its keywords."""
    if _partial(function):
        return gast.Call(func=syntax.clone(function.args[0]), args=syntax.clone(function.args[1:]) + arguments,
                         keywords=syntax.clone(function.keywords))
    return gast.Call(func=syntax.clone(function), args=arguments, keywords=[])


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
