"""Transformation: in srcad's own derivative code, differentiated again, slices it reads become copies.

Contract: acts only on a function srcad generated (``tracebacks.is_generated``).
Such code reads ``r = A[i]`` and may store into ``A`` afterwards, so that a
slice ``r`` of a matrix is a view whose elements change; but the generator
never reads ``r`` after such a store until the store has been undone
(``A[i] = tape.pop()`` in the backward sweep, where ``r`` may come back off
the tape too), so ``r`` holds what ``A[i]`` held when it was read wherever it
is used.  That reasoning is the generator's, not something ``views`` can
follow (through a tape, say), so here such a read becomes
``r = copied(A[i])``: the same values where the code uses them, and no
memory shared.  Left as they are: a read of one element of an array of known
rank (a new scalar), a read of an array nothing stores into, and a view the
code changes or tests itself (``r[0] = v``, ``shares(r, A)``: what ``views``
wrote for the user's own views).  Says whether it changed anything.

Example: ``y_i = y[i]`` ... ``y[i] = v`` ... ``tape.append(y_i)`` becomes
``y_i = copied(y[i])`` ... when ``y`` is a matrix.
"""
from __future__ import annotations

import gast

from .. import runtime
from ..analysis.elements import ScalarElements
from ..frontend import syntax, tracebacks
from ..frontend.syntax import annotate
from .simplify import parameter_ranks
from . import Transformation


class SavedViews(Transformation):
    """Copy, when read, the slices srcad's own code reads from arrays it then changes."""

    name = "saved_views"

    def transform(self, unit):
        if not tracebacks.is_generated(unit.parsed.func):
            return False
        body = unit.tree.body
        stored = {_root(target) for stmt in syntax.iter_statements(body)
                  for target in (stmt.targets if isinstance(stmt, gast.Assign) else
                                 [stmt.target] if isinstance(stmt, gast.AugAssign) else [])
                  if isinstance(target, gast.Subscript) or isinstance(stmt, gast.AugAssign)}
        tested = {arg.id for node in gast.walk(unit.tree) if isinstance(node, gast.Call)
                  and getattr(node.func, "id", None) in ("shares", "holds")
                  for arg in node.args if isinstance(arg, gast.Name)}
        elements = ScalarElements(unit.tree, parameter_ranks(unit))
        changed = False
        for stmt in syntax.iter_statements(body):
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id not in stored | tested and isinstance(stmt.value, gast.Subscript)
                    and isinstance(stmt.value.value, gast.Name) and stmt.value.value.id in stored
                    and not elements.selects_scalar(stmt.value)):
                helper = syntax.name(unit.bindings.bind("copied", runtime.copied))
                annotate(helper, "ref", runtime.copied)
                stmt.value = gast.Call(func=helper, args=[stmt.value], keywords=[])
                changed = True
        return changed


def _root(target) -> str:
    while isinstance(target, gast.Subscript):
        target = target.value
    return getattr(target, "id", "")
