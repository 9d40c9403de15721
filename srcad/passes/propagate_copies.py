"""Transformation: remove copies between generated names.

Contract: in every block, a statement ``a = b`` between plain names is removed, and later
reads of ``a`` read ``b``, when ``a`` is assigned only there, is not a
parameter, is not a name from the user's own function, and is not the
derivative of a parameter, and ``b`` is never written after it (neither
assigned nor updated in place).  Says whether it removed anything.

The user's own (primal) statements are never removed.  An alias followed by
an accumulation, ``v = a`` then ``v = v + e``, is fused into ``v = a + e``.

Example: ``dx_part = db`` then ``dx[1:] += dx_part`` becomes ``dx[1:] += db``.
"""
from __future__ import annotations

from collections import Counter

import gast

from .. import syntax
from . import Transformation


def _load_counts(statements) -> Counter:
    """How often each name is read in ``statements``."""
    reads = Counter()
    for stmt in statements:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                reads[node.id] += 1
    return reads


def _written(stmt):
    """Names a statement assigns or updates in place."""
    if isinstance(stmt, gast.Assign):
        return syntax.stored_names(stmt.targets[0])
    if isinstance(stmt, gast.AugAssign):
        target = stmt.target
        while isinstance(target, gast.Subscript):
            target = target.value
        return {target.id} if isinstance(target, gast.Name) else set()
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and stmt.value.args:
        first = stmt.value.args[0]
        return {first.id} if isinstance(first, gast.Name) else set()
    return set()


class PropagateCopies(Transformation):
    """Forward-substitute single copies between generated names."""

    name = "propagate_copies"

    def transform(self, unit):
        tree = unit.tree
        self.protected = set(unit.facts.get("resolve", ()))
        self.protected |= {arg.id for arg in tree.args.args + tree.args.kwonlyargs}
        self.protected |= {unit.namer.derivative(name) for name in unit.wrt}
        self.counts = Counter(name for stmt in syntax.iter_statements(tree.body) for name in _written(stmt))
        self.reads = _load_counts(tree.body)
        return self._block(tree.body, top=True)

    def _block(self, body, top) -> bool:
        changed = False
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    changed |= self._block(getattr(stmt, field), top=False)
        index = 0
        while index < len(body):
            stmt = body[index]
            if self._fuse_accumulation(body, index):
                changed = True
                continue
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Name) and not syntax.annotation(stmt, "primal")):
                target, source = stmt.targets[0].id, stmt.value.id
                later = body[index + 1:]
                if (source not in self.protected and self.counts[source] == 1 and self.reads[source] == 1
                        and self.counts[target] == 1 and index > 0 and source in _written(body[index - 1])
                        and target not in syntax.names_in(body[index - 1])):
                    # `t = e` then `dx = t`, t read nowhere else: name the value dx at once
                    syntax.rename(body[index - 1], {source: target})
                    del body[index]
                    changed = True
                    continue
                # inside a branch or loop, every read of the copy must follow it in this block
                local = top or _load_counts(later)[target] == self.reads[target]
                if (target not in self.protected and self.counts[target] == 1 and local
                        and not any(source in _written(s) for s in syntax.iter_statements(later))):
                    for following in later:
                        syntax.rename(following, {target: source})
                    del body[index]
                    changed = True
                    continue
            index += 1
        return changed

    @staticmethod
    def _fuse_accumulation(body, index) -> bool:
        """``v = a`` then ``v = v + e`` (or ``v += e``) becomes ``v = a + e``."""
        if index + 1 >= len(body):
            return False
        first, second = body[index], body[index + 1]
        if not (isinstance(first, gast.Assign) and isinstance(first.targets[0], gast.Name)
                and isinstance(first.value, gast.Name) and not syntax.annotation(first, "primal")):
            return False
        name = first.targets[0].id
        if isinstance(second, gast.AugAssign) and isinstance(second.target, gast.Name) \
                and second.target.id == name and isinstance(second.op, gast.Add):
            added = second.value
        elif (isinstance(second, gast.Assign) and isinstance(second.targets[0], gast.Name)
              and second.targets[0].id == name and isinstance(second.value, gast.BinOp)
              and isinstance(second.value.op, gast.Add) and isinstance(second.value.left, gast.Name)
              and second.value.left.id == name):
            added = second.value.right
        else:
            return False
        if name in syntax.loaded_names(added):
            return False
        first.value = gast.BinOp(left=first.value, op=gast.Add(), right=added)
        del body[index + 1]
        return True
