"""Transformation: give each value assigned in straight-line code its own name.

Contract: in the top-level statements of the body, a name assigned a second
time (or a parameter that is reassigned) gets a fresh versioned name
(``x_2``), and later reads are renamed to match, so every name in straight-line
code is assigned once.  The reverse sweep can then read any earlier value
without saving it.  A name that a later loop or branch assigns keeps its name
(its old values are kept on the tape instead); once no later compound
statement assigns it, it is versioned again, so a branch's backward sweep still
reads the value the branch computed (``if c: t = a`` then ``t = b``).

Inside branch and loop bodies a name keeps its name (its old values go on the
tape), but an assignment that reads its own target, ``x = f(x)``, is split
into ``x_2 = f(x)`` and ``x = x_2``, so no statement's result overwrites one
of its own operands.

Example: ``x = x * w`` then ``return x`` becomes ``x_2 = x * w`` then ``return x_2``.
"""
from __future__ import annotations

import gast

from ..frontend import syntax
from . import Transformation


class Versioning(Transformation):
    """Rename reassigned names in straight-line code to single-assignment form."""

    name = "versioning"

    def transform(self, unit):
        tree = unit.tree
        # assigned_later[i]: names a loop or branch at top-level index i or after assigns
        assigned_later = [set() for _ in range(len(tree.body) + 1)]
        for index in reversed(range(len(tree.body))):
            stmt = tree.body[index]
            assigned_later[index] = set(assigned_later[index + 1])
            if not isinstance(stmt, (gast.Assign, gast.Return, gast.Expr, gast.Assert)):
                assigned_later[index] |= syntax.stored_names(stmt)
        defined = {arg.id for arg in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
        current = {}
        changed = False
        for index, stmt in enumerate(tree.body):
            # a name no later loop or branch assigns is straight-line from here on: it can be versioned,
            # even when an earlier branch assigned it (whose backward sweep reads that earlier value)
            settled = {k: v for k, v in current.items() if k not in assigned_later[index]}
            if isinstance(stmt, gast.Assign):
                syntax.rename(stmt.value, current)
                target = stmt.targets[0]
                if isinstance(target, gast.Subscript):   # an element store writes the current version
                    syntax.rename(target, settled)
                if isinstance(target, gast.Name) and target.id not in assigned_later[index + 1]:
                    original = target.id
                    if original in defined:
                        target.id = unit.namer.fresh(original)
                        current[original] = target.id
                        changed = True
                    defined.add(original)
            else:
                syntax.rename(stmt, settled)
                if not isinstance(stmt, (gast.Return, gast.Expr, gast.Assert)):
                    defined |= syntax.stored_names(stmt)
        self.compound_targets = assigned_later[0]
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
