"""Transformation: inline single-use temporaries of the derivative code.

Contract: ``t = e`` is removed and its one read replaced by ``e`` when
- ``t`` is a name the generator made (not the user's, not a parameter, not
  the derivative of a parameter or of a user variable), assigned once and
  read once in the whole function;
- the read is in a later assignment of the same block and under the same
  source-line comment, and no statement in between is compound or writes
  (or updates in place) ``t``, any name ``e`` reads, or any array those may
  be views of;
- neither statement is a tape operation, and both are the user's own (primal)
  code or both derivative code: a primal temporary folds back into the user's
  expression it was split from (``prod = a * b`` ... ``y = prod + c`` becomes
  ``y = a * b + c`` when nothing else reads ``prod``), so the forward sweep
  frees it as early as the user's code does;
- the statement that reads ``t`` stays under 100 characters.
Evaluation order is kept: ``e`` is still evaluated once, after the same
values were computed.  Says whether anything changed.  The pipeline runs it in
both modes.

Example: ``d_t1_minus_x = -dx`` ... ``dx = d * t1_minus_x + r * d_t1_minus_x``
becomes ``dx = d * t1_minus_x + r * -dx``.
"""
from __future__ import annotations

from collections import Counter

import gast

from ..frontend import syntax
from ..frontend.emit import to_source
from ..analysis.blocks import MemorySharing, written_names
from ..analysis.expressions import is_fresh
from .frame import PAIR
from .simplify import without_negation
from . import Transformation

MAX_LINE = 100


def too_long(statement) -> bool:
    """Whether ``statement`` would print wider than ``MAX_LINE`` characters."""
    # the names and numbers alone bound the width from below, and with room for every operator,
    # bracket, comma and space, from above: print the statement only when the bounds straddle the limit
    nodes = syntax.walk(statement)
    words = sum(len(node.id) if node.__class__ is gast.Name else len(node.attr) + 1
                if node.__class__ is gast.Attribute else len(repr(node.value)) if node.__class__ is gast.Constant
                else len(node.arg or "") + 2 if node.__class__ is gast.keyword else 0 for node in nodes)
    if words > MAX_LINE:
        return True
    if words + 6 * len(nodes) <= MAX_LINE:
        return False
    return max(len(line) for line in to_source(statement).splitlines()) > MAX_LINE


class InlineTemporaries(Transformation):
    """Fold single-use generated temporaries into the one statement that reads them."""

    name = "inline_temporaries"

    def transform(self, unit):
        tree = unit.tree
        protected = set(unit.facts.get("resolve", ())) | set(unit.wrt)
        protected |= {arg.id for arg in tree.args.args + tree.args.kwonlyargs}
        derivative_of = unit.namer.derivatives()
        self.keep = protected | {d for d, primal in derivative_of.items() if primal in protected}
        statements = list(syntax.iter_statements(tree.body))
        self.assigned = Counter(n for s in statements if isinstance(s, (gast.Assign, gast.AugAssign))
                                for n in written_names(s))
        self.reads = syntax.load_counts(tree.body)
        self.sharing = MemorySharing(tree)
        return self._block(tree.body)

    def _block(self, body) -> bool:
        changed = False
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    changed |= self._block(getattr(stmt, field))
        index = 0
        while index < len(body):
            if self._inline_at(body, index):
                changed = True
                continue
            index += 1
        return changed

    def _inline_at(self, body, index) -> bool:
        stmt = body[index]
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)) \
                or syntax.annotation(stmt, PAIR) is not None:
            return False
        primal = bool(syntax.annotation(stmt, "primal"))
        name = stmt.targets[0].id
        if name in self.keep or self.assigned[name] != 1 or self.reads[name] != 1:
            return False
        reads = syntax.loaded_names(stmt.value)
        for later in body[index + 1:]:
            if (isinstance(later, (gast.If, gast.For, gast.While)) or syntax.annotation(later, PAIR) is not None
                    or syntax.is_comment(later)):   # never across the comment of another source line
                return False
            if name in syntax.loaded_names(later):
                if bool(syntax.annotation(later, "primal")) != primal \
                        or not isinstance(later, (gast.Assign, gast.AugAssign)):
                    return False
                candidate = _Replace(name, stmt.value).visit(syntax.clone(later))
                if too_long(candidate):
                    return False
                body[body.index(later)] = candidate
                del body[index]
                return True
            if written_names(later) & (self.sharing.reachable(reads) | {name}) or isinstance(later, gast.Expr):
                return False
        return False


class _Replace(gast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_UnaryOp(self, node):
        operand = node.operand
        if isinstance(node.op, gast.USub) and isinstance(operand, gast.Name) and operand.id == self.name \
                and isinstance(operand.ctx, gast.Load):
            positive = without_negation(self.value)   # -t with t = -a * b: a * b (what simplify would do next)
            # (only down to a new array: `t = --y` is one, `t = y` would alias y, and `t = broadcast_like(...)`
            # may be a read-only view that later code stores into)
            if positive is not None and is_fresh(positive):
                return syntax.clone(positive)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, gast.Load):
            return syntax.clone(self.value)
        return node
