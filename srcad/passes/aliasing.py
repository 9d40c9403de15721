"""Analysis: refuse in-place changes made through a second name for the same array (a last check).

``views`` runs first and follows the changes it can, giving the names their
own copies; this check catches what remains.

Contract: srcad gives every name its own derivative, so when two names hold
one array (``z = y``, ``r = A[0]``, ``for row in Y``, a local function's
parameter), a change made in place through one of them (``z += 1``,
``r[1] = v``) would silently escape the other's derivative.  This analysis
raises ``AliasingError`` at such a change, saying which name it
shares memory with and how to write it instead.  It never changes the tree;
it stores the set of flagged pairs it checked (empty when all is well).

Flagged: a plain copy ``z = y`` followed by an augmented assignment to, or an
element store into, either name; a store into ``r`` where ``r = A[...]``; an
augmented assignment to a loop variable (``for row in A: row *= 2``: a row
of a 2-D ``A`` is a view, so Python changes ``A``).
Not flagged: ``s = x[i]; s += 1`` (an element of a 1-D array is a new scalar);
a change that cannot run after the copy (earlier in the text and in no loop
around both); a change after which the other name is never read (it is dead:
an inlined helper's parameter, say); a change made after the changed name
was bound again to a new array (``t = np.zeros(3)`` then ``t[0] = v`` in a
loop whose previous pass copied ``t``); the copy a ``return`` makes (the
function leaves right after).

Example: ``z = y; z += 1.0`` fails with "... `z` shares its array with `y`
(z = y); write z = y.copy() ...".
"""
from __future__ import annotations

import gast

from ..errors import AliasingError
from ..frontend import syntax
from .desugar import LOOP_ITEM, RETURN_VALUE
from . import Analysis


class Aliasing(Analysis):
    """Find in-place updates through names that share an array."""

    name = "aliasing"

    def analyse(self, unit):
        copies, views = {}, {}
        statements, self.places, self.ancestors = [], {}, {}
        _number(unit.tree.body, (), statements, self.places, (), self.ancestors)
        self.statements = statements
        for stmt in statements:
            if syntax.annotation(stmt, RETURN_VALUE):
                continue   # `return z` leaves the function: nothing changes z while the copy lives
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
            if shared is None and base.id in views and (
                    changed is not base or syntax.annotation(views[base.id][1], LOOP_ITEM)):
                shared = views[base.id]   # `for row in A: row *= 2` changes A when A has rows
            if shared is not None and self._may_follow(stmt, shared[1]) and self._read_after(shared[0], stmt) \
                    and not self._rebound_between(base.id, shared[1], stmt):
                other, origin = shared
                if syntax.annotation(origin, LOOP_ITEM) and changed is base:
                    raise unit.error(stmt, AliasingError,
                                     f"changing the loop variable `{base.id}` in place: when `{other}` has "
                                     f"rows, `{base.id}` is one of them and the update changes `{other}`",
                                     f"write `{base.id} = {base.id} {_SYMBOLS.get(type(stmt.op), '+')} ...` "
                                     f"for a new value, or loop over `range(len({other}))` and store into "
                                     f"`{other}[i]`")
                raise unit.error(stmt, AliasingError,
                                 f"changing `{base.id}` in place while `{other}` holds the same array "
                                 f"(line {unit.parsed.location(origin).lineno}: "
                                 f"`{unit.parsed.line_text(origin.lineno)}`)",
                                 f"make a copy first ({base.id} = {other}.copy()), or write "
                                 f"`{base.id} = {base.id} + ...` instead of an in-place update")
        return frozenset()

    def _read_after(self, name, change) -> bool:
        """Whether some statement that can run after ``change`` reads ``name`` (else the sharing is harmless:
        the other name is dead, as a returned helper's parameter or local is)."""
        for stmt in self.statements:
            if isinstance(stmt, (gast.If, gast.While)):
                own = stmt.test
            elif isinstance(stmt, gast.For):
                own = stmt.iter
            else:
                own = stmt
            if name in syntax.loaded_names(own) and self._may_follow(stmt, change):
                return True
        return False

    def _rebound_between(self, name, start, end) -> bool:
        """Whether every way from ``start`` to ``end`` passes a plain assignment to ``name``: one that
        stands before ``end`` in a block holding ``end`` and runs after ``start`` (later in the text, or,
        when ``start`` comes after ``end``, inside the innermost loop around both)."""
        (start_at, start_loops), (end_at, end_loops) = self.places[id(start)], self.places[id(end)]
        common = 0
        while common < min(len(start_loops), len(end_loops)) and start_loops[common] == end_loops[common]:
            common += 1
        innermost = end_loops[common - 1] if common else None
        for block, index in self.ancestors[id(end)]:
            for candidate in block[:index]:
                if not (isinstance(candidate, gast.Assign) and isinstance(candidate.targets[0], gast.Name)
                        and candidate.targets[0].id == name):
                    continue
                at, loops = self.places[id(candidate)]
                if start_at < at or start_at > end_at and innermost is not None and innermost in loops:
                    return True
        if start_at > end_at and innermost is not None:   # back round the loop: what follows start in its body
            chain = self.ancestors[id(start)]
            level = next(level for level, (block, index) in enumerate(chain) if id(block[index]) == innermost)
            return any(_binds_on_every_path(later, name) for block, index in chain[level + 1:]
                       for later in block[index + 1:])
        return False

    def _may_follow(self, change, copy) -> bool:
        """Whether ``change`` can run after ``copy``: later in the text, or in a loop around both."""
        (change_at, change_loops), (copy_at, copy_loops) = self.places[id(change)], self.places[id(copy)]
        return change_at > copy_at or bool(set(change_loops) & set(copy_loops))


_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**", gast.MatMult: "@",
            gast.FloorDiv: "//", gast.Mod: "%"}


def _binds_on_every_path(stmt, name) -> bool:
    """Whether running ``stmt`` surely binds ``name`` again (a plain assignment, or both arms of an ``if``)."""
    if isinstance(stmt, gast.Assign):
        return isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name
    if isinstance(stmt, gast.If):
        return all(any(_binds_on_every_path(inner, name) for inner in arm) for arm in (stmt.body, stmt.orelse))
    return False


def _number(block, loops, statements, places, chain, ancestors) -> None:
    """Statements in text order, each with its position, the loops around it, and the blocks holding it
    (with its own or its ancestor's index in each)."""
    for index, stmt in enumerate(block):
        places[id(stmt)] = (len(statements), loops)
        ancestors[id(stmt)] = chain + ((block, index),)
        statements.append(stmt)
        inner = loops + (id(stmt),) if isinstance(stmt, (gast.For, gast.While)) else loops
        for field in ("body", "orelse"):
            _number(getattr(stmt, field, []) if isinstance(stmt, (gast.If, gast.For, gast.While)) else [],
                    inner, statements, places, ancestors[id(stmt)], ancestors)
