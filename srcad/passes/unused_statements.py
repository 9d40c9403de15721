"""Analysis: the statements of f whose results f itself never uses, and that may raise.

Contract: ``unit.facts['unused_statements']`` is the number of assignments
annotated ``UNUSED_IN_F``: each assignment of the (normalised, versioned) function that dead-code elimination
would drop from f itself (nothing f returns or does reads what it assigns)
and whose value may raise: anything but a constant, a name, a metadata read
(``x.shape``), a tuple of those, or a one-operand NumPy ufunc of one (``np.exp(y)``
warns, it does not raise).  ``cleanup`` keeps these statements in the
derivative even though the derivative does not need their values: f runs them,
so where one raises (``a[::-1]`` of a scalar, an index out of range, shapes that
do not broadcast) the derivative raises the same error instead of returning a
number for a function that has none.  A statement that f uses is not listed:
its derivative code fails where it fails (``dx[5]`` where ``x[5]``), or, for
calls of the user's own functions and of ``math``, ``cleanup`` keeps the call.

The analysis changes no statement: it runs ``cleanup``'s liveness without
applying it, and annotates what that would drop (copies of a statement keep
the annotation).

Example: in ``n = x[::-1]; return np.sum(x)``, ``n = x[::-1]`` is listed;
so is ``n = len(x)``; ``n = 3`` and ``e = np.exp(x)`` are not.
"""
from __future__ import annotations

import gast
import numpy as np

from ..frontend import syntax
from ..analysis.expressions import callee_object
from .cleanup import UNUSED_IN_F, Cleanup
from . import Analysis


class UnusedStatements(Analysis):
    """The user's own dead assignments that may raise, which the derivative must still run."""

    name = "unused_statements"

    def analyse(self, unit) -> int:
        liveness = _Liveness(unit)
        liveness._block(unit.tree.body, set())
        objects = unit.bindings.objects
        unused = [stmt for key, stmt in liveness.assignments.items()
                  if key not in liveness.kept and not _cannot_raise(stmt, objects)]
        for stmt in unused:
            syntax.annotate(stmt, UNUSED_IN_F, True)
        return len(unused)


class _Liveness(Cleanup):
    """``cleanup``'s liveness on f itself, dry: records what it keeps and changes nothing.

    Liveness only grows while a loop's fixed point is sought, so a statement kept once is kept at the end."""

    def __init__(self, unit):
        self._prepare(unit, dry=True)
        self.kept = set()
        self.assignments = {}

    def _statement(self, stmt, live):
        result = super()._statement(stmt, live)
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            self.assignments[id(stmt)] = stmt
            if result is not None and result[0] is stmt:
                self.kept.add(id(stmt))
        return result


def _cannot_raise(stmt, objects) -> bool:
    """An assignment of a name (not an element store, which may not fit) from a value that cannot raise."""
    return isinstance(stmt, gast.Assign) and all(isinstance(target, gast.Name) for target in stmt.targets) \
        and _safe_value(stmt.value, objects)


def _safe_value(value, objects) -> bool:
    if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords:
        function = callee_object(value.func, objects)   # np.exp(y): a one-operand ufunc warns, never raises
        return isinstance(function, np.ufunc) and function.nin == 1 and _safe_value(value.args[0], objects)
    if isinstance(value, (gast.Constant, gast.Name)):
        return True
    if isinstance(value, gast.Attribute):
        return value.attr in ("shape", "ndim", "dtype", "size") and isinstance(value.value, gast.Name)
    if isinstance(value, gast.Tuple):
        return all(_safe_value(element, objects) for element in value.elts)
    return False
