"""Transformation: give each value assigned in straight-line code its own name.

Contract: in the top-level statements of the body, a name assigned a second
time (or a parameter that is reassigned) gets a fresh versioned name
(``x_2``), and later reads are renamed to match, so every name in straight-line
code is assigned once.  The reverse sweep can then read any earlier value
without saving it.  Names assigned inside compound statements are left alone
(their old values are kept on the tape instead).

Example: ``x = x * w`` then ``return x`` becomes ``x_2 = x * w`` then ``return x_2``.
"""
from __future__ import annotations

import gast

from .. import syntax
from . import Transformation


class Versioning(Transformation):
    """Rename reassigned names in straight-line code to single-assignment form."""

    name = "versioning"

    def transform(self, unit):
        tree = unit.tree
        compound_targets = set()
        for stmt in tree.body:
            if not isinstance(stmt, (gast.Assign, gast.Return, gast.Expr, gast.Assert)):
                compound_targets |= syntax.stored_names(stmt)
        defined = {arg.id for arg in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
        current = {}
        changed = False
        for stmt in tree.body:
            if isinstance(stmt, gast.Assign):
                syntax.rename(stmt.value, current)
                target = stmt.targets[0]
                if isinstance(target, gast.Name) and target.id not in compound_targets:
                    original = target.id
                    if original in defined:
                        target.id = unit.namer.fresh(original)
                        current[original] = target.id
                        changed = True
                    defined.add(original)
            else:
                syntax.rename(stmt, {k: v for k, v in current.items() if k not in compound_targets})
        return changed
