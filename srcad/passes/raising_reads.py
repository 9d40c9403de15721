"""Analysis: the element reads of f that may raise and that no derivative code repeats.

Contract: ``unit.facts['raising_reads']`` is the number of subscripts (reads,
not stores) of the versioned function annotated ``RAISING_READ``: each
``a[k]`` of a name ``a`` whose index is not a single slice (an integer, a
key, a tuple of indices: ``IndexError``, ``KeyError`` where f raises; not a
metadata read such as ``x.shape[0]``, which derivative code reads as f
does, nor one a pass wrote: only those the user wrote, ``USER_READ``)
and whose element no
derivative code reads again, because the container ``a`` has no derivative
(a constant, a list of data, what a starred target gathered) or the value
read is assigned to a name without one.  Where the derivative reads an
element of an active container it reads the same element of its derivative
(``dx[5]`` where ``x[5]``), which raises where f raises.  ``cleanup`` keeps
an annotated read of a statement it drops as a statement of its own, so the
derivative raises f's error instead of returning a number for a function
that has none.  The analysis changes no statement.

Example: in ``u, *rest = np.ones((2, 3)); return np.sum(x ** 2) + np.sum(rest[0])``
with wrt ``x``, ``rest[0]`` (an empty list) is annotated: the forward-mode
derivative, which does not compute f's value, still reads it and raises
``IndexError`` as f does.
"""
from __future__ import annotations

import gast

from ..frontend import syntax
from ..frontend.source import USER_READ
from .cleanup import RAISING_READ
from . import Analysis


class RaisingReads(Analysis):
    """Subscripts of f that may raise and that the derivative's own reads do not repeat."""

    name = "raising_reads"

    def analyse(self, unit) -> int:
        activity = unit.facts["activity"]
        count = 0
        for stmt in syntax.iter_statements(unit.tree.body):
            # the whole value of an assignment to a name with a derivative: its derivative reads the element too
            repeated = getattr(stmt, "value", None) if _assigns_active(stmt, activity) else None
            for node in _statement_parts(stmt):
                if node.__class__ is gast.Subscript and isinstance(node.ctx, gast.Load) \
                        and node.value.__class__ is gast.Name and node.slice.__class__ is not gast.Slice \
                        and syntax.annotation(node, USER_READ) \
                        and not (node is repeated and activity.is_active(node.value)):
                    syntax.annotate(node, RAISING_READ, True)
                    count += 1
        return count


def _assigns_active(stmt, activity) -> bool:
    """Whether ``stmt`` assigns (or updates) one name that has a derivative."""
    if isinstance(stmt, gast.Assign):
        return len(stmt.targets) == 1 and activity.is_active(stmt.targets[0])
    return isinstance(stmt, gast.AugAssign) and activity.is_active(stmt.target)


def _statement_parts(stmt):
    """The nodes of ``stmt``'s own expressions (not of the statements nested in it)."""
    for field in ("value", "test", "iter", "targets", "target"):
        part = getattr(stmt, field, None)
        for node in part if isinstance(part, list) else [part] if part is not None else []:
            yield from syntax.walk(node)
