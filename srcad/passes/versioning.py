"""Transformation: give each value assigned in straight-line code its own name.

Contract: in the top-level statements of the body, a name assigned a second
time (or a parameter that is reassigned) gets a fresh versioned name
(``x_2``), and later reads are renamed to match, so every name in straight-line
code is assigned once.  The reverse sweep can then read any earlier value
without saving it.  Names assigned inside compound statements are left alone
(their old values are kept on the tape instead).

Inside branch and loop bodies a name keeps its name (its old values go on the
tape), but an assignment that reads its own target, ``x = f(x)``, is split
into ``x_2 = f(x)`` and ``x = x_2``, so no statement's result overwrites one
of its own operands.

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
                if isinstance(target, gast.Subscript):   # an element store writes the current version
                    syntax.rename(target, {k: v for k, v in current.items() if k not in compound_targets})
                if isinstance(target, gast.Name) and target.id not in compound_targets:
                    original = target.id
                    if original in defined:
                        target.id = unit.namer.fresh(original)
                        current[original] = target.id
                        changed = True
                    defined.add(original)
            else:
                syntax.rename(stmt, {k: v for k, v in current.items() if k not in compound_targets})
        self.compound_targets = compound_targets
        return self._split_self_updates(unit, tree.body, top=True) or changed

    def _split_self_updates(self, unit, block, top) -> bool:
        """In branch and loop bodies, ``x = f(x)`` becomes ``x_2 = f(x)`` then ``x = x_2``."""
        changed = False
        index = 0
        while index < len(block):
            stmt = block[index]
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    changed |= self._split_self_updates(unit, getattr(stmt, field), top=False)
            # (at top level only names a loop or branch also assigns keep their name and need the split)
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and (not top or stmt.targets[0].id in self.compound_targets)
                    and stmt.targets[0].id in syntax.loaded_names(stmt.value)):
                original = stmt.targets[0].id
                version = unit.namer.fresh(original)
                stmt.targets[0].id = version
                copy = syntax.set_location(syntax.assign(original, syntax.name(version)), stmt.lineno)
                block.insert(index + 1, copy)
                changed = True
                index += 1
            index += 1
        return changed
