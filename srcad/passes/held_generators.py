"""A generator expression kept in a variable and consumed once, put back where it is consumed (for ``iteration``).

Contract: ``inline_held_generators(function)`` rewrites, in every block of
``function`` (nested ``def`` bodies included), each ``g = (e for v in it ...)``
whose name is read exactly once in the whole function, by a later statement
of the same block, as the iterable argument of an eager consumer (``sum``,
``min``, ``max``, ``any``, ``all``, ``sorted``, ``list``, ``tuple``, ``set``,
``frozenset``, ``dict``, ``math.fsum``, the items of ``functools.reduce``),
and assigned nowhere else: the assignment goes and the generator expression
stands in the consumer's argument, which ``iteration`` then makes a list
comprehension.  A generator computes its items when it is consumed, reading
its names then, so the one that stands at the consumer computes the same
items; only its first iterable is evaluated where the generator is made, so
the move is made only when that iterable is a name (its iterator reads the
list, array or dict as it runs) or ``range`` of names and constants, and the
statements in between neither read nor assign those names, call nothing
that may change state (``comprehensions.may_change_state``: a method such
as ``append``, the user's functions, ``np.random``) and cannot leave the
block (``return``, ``raise``, ``break``, ``continue``); or, for any other
first iterable (``range(len(x))``, ``x[1:]``), when the consuming statement
is the next one and neither it nor the iterable may change state.  The path from the consuming
statement to the consumer must not go through ``and``/``or``, a conditional
expression, a lambda or a comprehension (which would consume it sometimes or
more than once).  Anything else is left as it is, for ``iteration`` to refuse
at the user's line.  Returns whether anything changed.

Example: ``squares = (x[i] ** 2 for i in range(n))`` then ``return sum(squares)``
becomes ``return sum(x[i] ** 2 for i in range(n))``.
"""
from __future__ import annotations

import builtins
import functools
import math
from typing import List, Optional

import gast

from ..frontend import syntax
from .comprehensions import may_change_state, own_expressions

_EAGER = (builtins.sum, builtins.min, builtins.max, builtins.any, builtins.all, builtins.sorted, builtins.list,
          builtins.tuple, builtins.set, builtins.frozenset, builtins.dict, math.fsum)
_OPAQUE = (gast.IfExp, gast.BoolOp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def inline_held_generators(function) -> bool:
    """Put each generator expression ``function`` keeps in a variable and consumes once where it is consumed."""
    changed = False
    for definition in [node for node in syntax.walk(function) if isinstance(node, gast.FunctionDef)]:
        for block in _blocks(definition.body):
            index = 0
            while index < len(block):
                if _moved(definition, block, index):
                    del block[index]
                    changed = True
                else:
                    index += 1
    return changed


def _blocks(body: List):
    """``body`` and every block below it, not those of nested definitions."""
    yield body
    for stmt in body:
        if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner:
                yield from _blocks(inner)
        for handler in getattr(stmt, "handlers", None) or []:
            yield from _blocks(handler.body)


def _moved(definition, block: List, index: int) -> bool:
    """Whether ``block[index]`` keeps a generator that could be put where it is consumed (then it is put there)."""
    stmt = block[index]
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.GeneratorExp)):
        return False
    name = stmt.targets[0].id
    uses = [node for node in syntax.walk(definition) if isinstance(node, gast.Name) and node.id == name
            and node is not stmt.targets[0]]
    if len(uses) != 1 or not isinstance(uses[0].ctx, gast.Load):
        return False
    later = next((position for position in range(index + 1, len(block))
                  if any(node is uses[0] for node in syntax.walk(block[position]))), None)
    if later is None:
        return False
    consumer = _consumer(block[later], uses[0])
    first = stmt.value.generators[0].iter
    if consumer is None:
        return False
    read = {node.id for node in syntax.walk(first) if isinstance(node, gast.Name)}
    if _plain_iterable(first):
        if not all(_passes_by(between, read) for between in block[index + 1:later]) \
                or read & syntax.stored_names(block[later]):
            return False
    elif not (later == index + 1 and not may_change_state(first) and not may_change_state(block[later])):
        return False   # a copy or a length taken where the generator is made: only nothing in between keeps it
    consumer.args = [stmt.value if argument is uses[0] else argument for argument in consumer.args]
    return True


def _consumer(stmt, use) -> Optional[gast.Call]:
    """The eager consumer call of ``stmt`` whose iterable argument is ``use``, reached through no node that
    evaluates its operands only sometimes or more than once; None if there is none."""
    found = []

    def visit(node, parent):
        if node is use:
            found.append(parent)
            return
        if isinstance(node, _OPAQUE):
            return
        for child in gast.iter_child_nodes(node):
            visit(child, node)
    for part in own_expressions(stmt):
        visit(part, None)
    if len(found) != 1 or not isinstance(found[0], gast.Call):
        return None
    call = found[0]
    function = syntax.annotation(call.func, "ref")
    if function in _EAGER and call.args and call.args[0] is use:
        return call
    if function is functools.reduce and len(call.args) >= 2 and call.args[1] is use:
        return call
    return None


def _plain_iterable(node) -> bool:
    """Whether ``node`` iterates over what it names when it is iterated, not over a copy made where the
    generator is made: a name (a list, an array, a dict: the iterator reads it as it runs), or ``range`` of
    names and constants (numbers, which nothing changes in place)."""
    if isinstance(node, gast.Name):
        return True
    return isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") is builtins.range \
        and not node.keywords and all(isinstance(arg, (gast.Name, gast.Constant)) for arg in node.args)


def _passes_by(stmt, names) -> bool:
    """Whether ``stmt`` neither reads nor changes ``names``, changes nothing else anything may read (no call
    that may change state), and cannot leave the block (no ``return``, ``raise``, ``break``, ``continue``)."""
    for node in syntax.walk(stmt):
        if isinstance(node, gast.Name) and node.id in names:
            return False
        if isinstance(node, (gast.Return, gast.Raise, gast.Break, gast.Continue, gast.Yield, gast.Try)):
            return False
    return not may_change_state(stmt)
