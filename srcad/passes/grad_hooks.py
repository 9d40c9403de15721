"""Transformation: turn ``with srcad.insert_grad_of(x) as dx:`` blocks into hook markers.

Contract: each such ``with`` statement (after ``resolve``, so the context
manager is known to be ``srcad.insert_grad_of``) is replaced by the statement
``insert_grad_of(x)``, annotated ``grad_hook`` with ``(as_name, body)``: the
name the block binds the adjoint to and the block's statements, untouched.
Later passes treat the marker as an expression statement with no effect on
values; ``reverse`` runs the block on ``d<x>`` where the marker stands in the
backward sweep, and the forward sweep and forward mode drop it.  Says
whether it replaced anything.  Other ``with`` statements are left to
``contexts``.

Example: ``with srcad.insert_grad_of(y) as dy: dy = dy * 0.5`` becomes the
marker ``insert_grad_of(y)`` carrying ``("dy", [dy = dy * 0.5])``.
"""
from __future__ import annotations

import gast

from ..frontend import syntax
from ..runtime.hooks import insert_grad_of
from . import Transformation

HOOK = "grad_hook"


def is_hook_block(stmt) -> bool:
    """Whether ``stmt`` has the shape ``with <...>.insert_grad_of(name) [as name]:`` (before resolving)."""
    if not isinstance(stmt, gast.With) or len(stmt.items) != 1:
        return False
    item = stmt.items[0]
    call = item.context_expr
    func = getattr(call, "func", None)
    named = getattr(func, "attr", None) or getattr(func, "id", None)
    return (isinstance(call, gast.Call) and named == "insert_grad_of" and len(call.args) == 1
            and not call.keywords and isinstance(call.args[0], gast.Name)
            and (item.optional_vars is None or isinstance(item.optional_vars, gast.Name)))


class GradHooks(Transformation):
    """Replace gradient-hook ``with`` blocks by markers carrying their bodies."""

    name = "grad_hooks"

    def transform(self, unit):
        self.unit = unit
        return self._block(unit.tree.body)

    def _block(self, block) -> bool:
        changed = False
        for index, stmt in enumerate(block):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(stmt, (gast.If, gast.For, gast.While, gast.Try)):
                    changed |= self._block(getattr(stmt, field, None) or [])
            for handler in stmt.handlers if isinstance(stmt, gast.Try) else []:
                changed |= self._block(handler.body)
            if isinstance(stmt, gast.With):
                item = stmt.items[0]
                if not is_hook_block(stmt) or syntax.annotation(item.context_expr.func, "ref") is not insert_grad_of:
                    changed |= self._block(stmt.body)   # another context manager: ``contexts`` takes it
                    continue
                marker = syntax.set_location(syntax.expr_stmt(item.context_expr), stmt.lineno)
                as_name = item.optional_vars.id if item.optional_vars is not None else None
                syntax.annotate(marker, HOOK, (as_name, stmt.body))
                block[index] = marker
                changed = True
        return changed
