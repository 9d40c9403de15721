"""Transformation: algebraic simplification of generated straight-line code.

Contract: rewrites expressions to equal, simpler ones and says whether it
changed anything:
- ``e ** 1``, ``e * 1``, ``1 * e``, ``e / 1``, ``e + 0``, ``0 + e``, ``e - 0``
  become ``e``, and ``-(-e)`` becomes ``e``;
- ``unbroadcast(e, x)`` and ``broadcast_like(e, x)`` become ``e`` where ``e``
  provably has ``x``'s shape (see ``shapes.ShapeTable``).
It never changes what a statement computes, only how.

Example: ``dy = unbroadcast(dz * 2 * y ** 1, y)`` becomes ``dy = dz * 2 * y``.
"""
from __future__ import annotations

import gast

from .. import runtime
from .shapes import ShapeTable, callee_object
from . import Transformation


def _is_number(node, value) -> bool:
    return (isinstance(node, gast.Constant) and not isinstance(node.value, bool)
            and isinstance(node.value, (int, float)) and node.value == value)


class _Rewrite(gast.NodeTransformer):
    def __init__(self, shapes: ShapeTable):
        self.shapes = shapes
        self.changed = False

    def _replace(self, node):
        self.changed = True
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        if isinstance(op, gast.Pow) and _is_number(right, 1):
            return self._replace(left)
        if isinstance(op, (gast.Mult, gast.Div)) and _is_number(right, 1):
            return self._replace(left)
        if isinstance(op, gast.Mult) and _is_number(left, 1):
            return self._replace(right)
        if isinstance(op, (gast.Add, gast.Sub)) and _is_number(right, 0):
            return self._replace(left)
        if isinstance(op, gast.Add) and _is_number(left, 0):
            return self._replace(right)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        inner = node.operand
        if isinstance(node.op, gast.USub) and isinstance(inner, gast.UnaryOp) and isinstance(inner.op, gast.USub):
            return self._replace(inner.operand)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        function = callee_object(node.func, self.shapes.objects)
        if any(function is f for f in (runtime.unbroadcast, runtime.broadcast_like)) and len(node.args) == 2:
            grad_shape = self.shapes.of(node.args[0])
            if grad_shape is not None and grad_shape == self.shapes.of(node.args[1]):
                return self._replace(node.args[0])
        return node


class Simplify(Transformation):
    """Algebraic identities and shape-aware removal of broadcast reductions."""

    name = "simplify"

    def transform(self, unit):
        tree = unit.tree
        parameters = [arg.id for arg in tree.args.args + tree.args.kwonlyargs]
        shapes = ShapeTable(parameters, unit.bindings.objects, unit.namer.derivatives())
        rewrite = _Rewrite(shapes)
        for stmt in tree.body:
            rewrite.visit(stmt)
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                shapes.record(stmt.targets[0].id, stmt.value)
        return rewrite.changed
