"""Analysis: refuse in-place changes made through a second name for the same array.

Contract: srcad gives every name its own derivative, so when two names hold
one array (``z = y``, ``r = A[0]``, ``for row in Y``, a local function's
parameter), a change made in place through one of them (``z += 1``,
``r[1] = v``) would silently escape the other's derivative.  This analysis
raises ``UnsupportedSyntaxError`` at such a change, saying which name it
shares memory with and how to write it instead.  It never changes the tree;
it stores the set of flagged pairs it checked (empty when all is well).

Flagged: a plain copy ``z = y`` followed by an augmented assignment to, or an
element store into, either name; a store into ``r`` where ``r = A[...]``.
Not flagged: ``s = x[i]; s += 1`` (an element of a 1-D array is a new scalar).

Example: ``z = y; z += 1.0`` fails with "... `z` shares its array with `y`
(z = y); write z = y.copy() ...".
"""
from __future__ import annotations

import gast

from ..errors import UnsupportedSyntaxError
from .. import syntax
from . import Analysis


class Aliasing(Analysis):
    """Find in-place updates through names that share an array."""

    name = "aliasing"

    def analyse(self, unit):
        copies, views = {}, {}
        statements = list(syntax.iter_statements(unit.tree.body))
        for stmt in statements:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                target, value = stmt.targets[0].id, stmt.value
                if isinstance(value, gast.Name) and value.id != target:
                    copies.setdefault(target, (value.id, stmt))
                elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
                    views.setdefault(target, (value.value.id, stmt))
        partners = {}
        for alias, (source, stmt) in copies.items():
            partners.setdefault(alias, (source, stmt))
            partners.setdefault(source, (alias, stmt))
        for stmt in statements:
            changed = None
            if isinstance(stmt, gast.AugAssign):
                changed = stmt.target
            elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
                changed = stmt.targets[0]
            if changed is None:
                continue
            base = changed
            while isinstance(base, gast.Subscript):
                base = base.value
            if not isinstance(base, gast.Name):
                continue
            shared = partners.get(base.id)
            if shared is None and changed is not base and base.id in views:
                shared = views[base.id]
            if shared is not None:
                other, origin = shared
                raise unit.error(stmt, UnsupportedSyntaxError,
                                 f"changing `{base.id}` in place while `{other}` holds the same array "
                                 f"(line {unit.parsed.location(origin).lineno}: "
                                 f"`{unit.parsed.line_text(origin.lineno)}`)",
                                 f"make a copy first ({base.id} = {other}.copy()), or write "
                                 f"`{base.id} = {base.id} + ...` instead of an in-place update")
        return frozenset()
