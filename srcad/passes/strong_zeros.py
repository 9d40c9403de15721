"""Transformation: products and quotients of the derivative code in which an exact zero wins.

Contract: with the option ``strong_zeros`` (and only then), every ``a * b``
in a statement of derivative code (one not annotated ``primal``: f's own
computation is never touched) becomes ``strong_product(a, b)``, and every
``a / b`` becomes ``strong_quotient(a, b)`` (``srcad/runtime/guards.py``): a
zero adjoint or tangent times a partial derivative that overflowed gives 0,
not ``0 * inf = NaN``.  ``Derivative`` builds this variant only to compute
again a result that holds a NaN, so the derivatives that normally run keep
their plain arithmetic.  Without the option the pass changes nothing.

Example: ``dx = dy * exp_x`` becomes ``dx = strong_product(dy, exp_x)``.
"""
from __future__ import annotations

import gast

from .. import runtime
from ..frontend import syntax
from . import Transformation

_HELPERS = {gast.Mult: "strong_product", gast.Div: "strong_quotient"}


class StrongZeros(Transformation):
    """Rewrite the derivative code's ``*`` and ``/`` into helpers for which 0 times anything is 0."""

    name = "strong_zeros"

    def transform(self, unit):
        if not unit.options.get("strong_zeros"):
            return False
        rewriter = _Rewriter(unit)
        for stmt in syntax.iter_statements(unit.tree.body):
            if syntax.annotation(stmt, "primal"):
                continue
            if isinstance(stmt, gast.AugAssign) and type(stmt.op) in _HELPERS:
                load = syntax.clone(stmt.target)
                for node in gast.walk(load):
                    if hasattr(node, "ctx"):
                        node.ctx = gast.Load()
                stmt.value = rewriter.visit(gast.BinOp(left=load, op=stmt.op, right=stmt.value))
                stmt.op = None
            elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)) and stmt.value is not None:
                stmt.value = rewriter.visit(stmt.value)
        unit.tree.body = [_plain(stmt) for stmt in unit.tree.body]
        return rewriter.changed


class _Rewriter(gast.NodeTransformer):
    def __init__(self, unit):
        self.unit = unit
        self.changed = False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        helper = _HELPERS.get(type(node.op))
        if helper is None:
            return node
        self.changed = True
        name = self.unit.bindings.bind(helper, getattr(runtime, helper))
        return gast.copy_location(syntax.call(syntax.name(name), [node.left, node.right]), node)

    def visit_Lambda(self, node):   # never in generated derivative code; left alone if it is
        return node


def _plain(stmt):
    """An ``x *= e`` rewritten above (op cleared) as ``x = strong_product(x, e)``; others unchanged."""
    for field in ("body", "orelse"):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            setattr(stmt, field, [_plain(inner) for inner in getattr(stmt, field)])
    if isinstance(stmt, gast.AugAssign) and stmt.op is None:
        assignment = gast.Assign(targets=[stmt.target], value=stmt.value, type_comment=None)
        return gast.copy_location(assignment, stmt)
    return stmt
