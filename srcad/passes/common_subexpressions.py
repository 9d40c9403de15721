"""Transformation: reuse a value already computed instead of computing it again.

Contract: within each block, once ``n = e`` has run (``e`` arithmetic, or a
call of a NumPy ufunc or a ``math`` function, so the same operands give the
same result), a later occurrence of ``e`` in generated code is replaced by
``n`` as long as neither ``n`` nor anything ``e`` reads (or any array those
may be views of) has been written in between.  The user's own (primal)
statements are never rewritten, but they provide values: the primal
``sin_x = np.sin(x)`` lets the derivative read ``sin_x`` instead of calling
``np.sin(x)`` again.  Values do not flow into or out of branches and loops.
Says whether anything changed.

Example: ``sin_x = np.sin(x)`` ... ``dx = -dout * np.sin(x)`` becomes
``dx = -dout * sin_x``.
"""
from __future__ import annotations

import math
from typing import Dict

import gast
import numpy as np

from ..frontend import syntax
from ..analysis.blocks import MemorySharing, written_names
from ..analysis.expressions import callee_object
from . import Transformation

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult)


class CommonSubexpressions(Transformation):
    """Replace recomputed pure expressions by the name that already holds them."""

    name = "common_subexpressions"

    def transform(self, unit):
        self.objects = unit.bindings.objects
        self.sharing = MemorySharing(unit.tree)
        # names the function never binds (modules, globals); a name bound to a new array is local too
        self.outside = syntax.names_in(unit.tree) - self.sharing.local - syntax.names_in(unit.tree, gast.Store)
        changed_in_place = set()
        for stmt in syntax.iter_statements(unit.tree.body):
            if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
                changed_in_place |= written_names(stmt)
        # `a = e` after `b = e` may become `a = b` only when no store changes a's or b's array later
        self.changed_in_place = self.sharing.reachable(changed_in_place) | changed_in_place
        return self._block(unit.tree.body)

    def _pure(self, node) -> bool:
        if isinstance(node, (gast.Name, gast.Constant)):
            return True
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, _ARITHMETIC) and self._pure(node.left) and self._pure(node.right)
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, gast.USub) and self._pure(node.operand)
        if isinstance(node, gast.Call) and not node.keywords:
            function = callee_object(node.func, self.objects)
            pure = isinstance(function, np.ufunc) or getattr(function, "__self__", None) is math
            return pure and all(self._pure(arg) for arg in node.args)
        return False

    def _block(self, block) -> bool:
        changed = False
        available: Dict[str, tuple] = {}   # key of an expression -> (name holding it, names it reads, head)
        for stmt in block:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                for field in ("body", "orelse"):
                    changed |= self._block(getattr(stmt, field))
                available.clear()
                continue
            if not syntax.annotation(stmt, "primal"):
                replacer = _Replace(available, self.changed_in_place)
                replacer.visit(stmt)
                changed |= replacer.changed
            written = written_names(stmt)
            if written:
                rebinds = isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                # rebinding a name changes no array; an in-place update changes every view of it too
                touched = written if rebinds else (self.sharing.reachable(written) | written) - self.outside
                available = {key: entry for key, entry in available.items()
                             if entry[0] not in written and not (entry[1] & touched)}
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and not isinstance(stmt.value, (gast.Name, gast.Constant)) and self._pure(stmt.value)):
                name = stmt.targets[0].id
                reads = syntax.loaded_names(stmt.value) - self.outside   # modules and globals never change
                if name not in reads:
                    available.setdefault(gast.dump(stmt.value),
                                         (name, self.sharing.reachable(reads) | reads, _head(stmt.value)))
        return changed


def _head(node):
    """A cheap signature: equal expressions have equal heads (the dump is computed only on a match)."""
    if isinstance(node, gast.Call):
        return ("call", getattr(node.func, "attr", None) or getattr(node.func, "id", None), len(node.args))
    if isinstance(node, gast.BinOp):
        return ("binop", type(node.op), type(node.left), type(node.right))
    if isinstance(node, gast.UnaryOp):
        return ("unary", type(node.op), type(node.operand))
    return None


class _Replace(gast.NodeTransformer):
    def __init__(self, available, changed_in_place):
        self.available = available
        self.changed_in_place = changed_in_place
        self.heads = {head for _, _, head in available.values()}
        self.changed = False

    def visit_Assign(self, node):   # never the target
        if isinstance(node.targets[0], gast.Name) and _head(node.value) in self.heads:
            found = self.available.get(gast.dump(node.value))
            if found is not None and {node.targets[0].id, found[0]} & self.changed_in_place:
                # `dz = dw` would make two names of one array, and a store into either changes both
                node.value = super().generic_visit(node.value)
                return node
        node.value = self.visit(node.value)
        return node

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        return node

    def generic_visit(self, node):
        if self.heads and _head(node) in self.heads:
            found = self.available.get(gast.dump(node))
            if found is not None:
                self.changed = True
                return syntax.name(found[0])
        return super().generic_visit(node)
