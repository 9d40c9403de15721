"""Transformation: remove copies between generated names.

Contract: in every block, a statement ``a = b`` between plain names is removed, and later
reads of ``a`` read ``b``, when ``a`` is assigned only there, is not a
parameter, is not a name from the user's own function, and is not the
derivative of a parameter, and ``b`` is never written after it (neither
assigned nor updated in place).  Says whether it removed anything.

The user's own (primal) statements are never removed.  A definition followed
by an accumulation, ``v = a`` then ``v = v + e``, is fused into ``v = a + e``.

Example: ``dx_part = db`` then ``dx[1:] += dx_part`` becomes ``dx[1:] += db``.
"""
from __future__ import annotations

from collections import Counter

import gast

from ..frontend import syntax
from ..analysis.blocks import MemorySharing, written_names
from .inline_temporaries import too_long
from . import Transformation


def _load_counts(statements) -> Counter:
    """How often each name is read in ``statements``."""
    return syntax.load_counts(list(statements))


class PropagateCopies(Transformation):
    """Forward-substitute single copies between generated names."""

    name = "propagate_copies"

    def transform(self, unit):
        tree = unit.tree
        self.protected = set(unit.facts.get("resolve", ()))
        self.protected |= {arg.id for arg in tree.args.args + tree.args.kwonlyargs}
        self.protected |= {unit.namer.derivative(name) for name in unit.wrt}
        self.counts = Counter(name for stmt in syntax.iter_statements(tree.body) for name in written_names(stmt))
        self.reads = _load_counts(tree.body)
        self.sharing = MemorySharing(tree)
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
            if self._fuse_accumulation(body, index) or _cancel_round_trip(body, index):
                changed = True
                continue
            if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Name) and not syntax.annotation(stmt, "primal")):
                target, source = stmt.targets[0].id, stmt.value.id
                later = body[index + 1:]
                if (source not in self.protected and self.counts[source] == 1 and self.reads[source] == 1
                        and self.counts[target] == 1 and index > 0 and source in written_names(body[index - 1])
                        and target not in syntax.names_in(body[index - 1])):
                    # `t = e` then `dx = t`, t read nowhere else: name the value dx at once
                    syntax.rename(body[index - 1], {source: target})
                    del body[index]
                    changed = True
                    continue
                # inside a branch or loop, every read of the copy must follow it in this block
                if (target not in self.protected and self.counts[target] == 1
                        and (top or _load_counts(later)[target] == self.reads[target])
                        and not any(source in written_names(s) for s in syntax.iter_statements(later))):
                    for following in later:
                        syntax.rename(following, {target: source})
                    del body[index]
                    changed = True
                    continue
            index += 1
        return changed

    def _fuse_accumulation(self, body, index) -> bool:
        """``v = a`` then ``v = v + e`` (or ``v += e``) becomes ``v = a + e``; ``v += a`` then ``v += e``
        becomes ``v += a + e``.

        Statements of the same source line may come between when they neither
        touch ``v`` nor change what ``e`` reads.
        """
        first = body[index]
        if isinstance(first, gast.AugAssign) and isinstance(first.op, gast.Add) \
                and isinstance(first.target, gast.Name) and not syntax.annotation(first, "primal"):
            name = first.target.id      # v += a then v += e: one update, v += a + e
        elif (isinstance(first, gast.Assign) and isinstance(first.targets[0], gast.Name)
              and not syntax.annotation(first, "primal")):
            name = first.targets[0].id
        else:
            return False
        for later_index in range(index + 1, len(body)):
            second = body[later_index]
            added = _accumulated(second, name)
            if added is not None:
                break
            if (not isinstance(second, (gast.Assign, gast.AugAssign, gast.Expr)) or syntax.is_comment(second)
                    or name in syntax.names_in(second)):
                return False
        else:
            return False
        read = self.sharing.reachable(syntax.loaded_names(added))   # with views of what it reads
        if name in read or syntax.annotation(second, "primal") or any(
                written_names(s) & read for s in body[index + 1:later_index]):
            return False
        fused = gast.BinOp(left=first.value, op=gast.Add(), right=added)
        if first.value.__class__ is not gast.Name and too_long(syntax.assign(name, fused)):
            return False
        if isinstance(first, gast.AugAssign) and name in syntax.loaded_names(first.value):
            return False
        first.value = fused
        del body[later_index]
        return True


def _cancel_round_trip(body, index) -> bool:
    """``t = dA[i]``, ``dA[i] = 0.0``, ..., ``dA[i] += t``: the element ends as it began, so the
    zeroing and the adding back go (the adjoint of an accumulation ``A[i] += e``).

    Nothing in between may read or write ``dA``, or write ``t`` or a name the index reads.
    """
    zeroing = body[index]
    if not (index > 0 and isinstance(zeroing, gast.Assign) and isinstance(zeroing.targets[0], gast.Subscript)
            and isinstance(zeroing.targets[0].value, gast.Name) and isinstance(zeroing.value, gast.Constant)
            and zeroing.value.value == 0.0 and not syntax.annotation(zeroing, "primal")):
        return False
    target = zeroing.targets[0]
    array, element = target.value.id, gast.dump(target)
    taken = body[index - 1]
    if not (isinstance(taken, gast.Assign) and isinstance(taken.targets[0], gast.Name)
            and isinstance(taken.value, gast.Subscript) and gast.dump(taken.value) == element.replace(
                "ctx=Store()", "ctx=Load()", 1)):
        return False
    temp = taken.targets[0].id
    guarded = syntax.names_in(target.slice) | {temp}
    for later_index in range(index + 1, len(body)):
        later = body[later_index]
        if (isinstance(later, gast.AugAssign) and isinstance(later.op, gast.Add)
                and gast.dump(later.target) == element and isinstance(later.value, gast.Name)
                and later.value.id == temp):
            del body[later_index]
            del body[index]
            return True
        if syntax.is_comment(later):
            continue
        if not isinstance(later, (gast.Assign, gast.AugAssign)) or array in syntax.names_in(later) \
                or written_names(later) & guarded:
            return False
    return False


def _accumulated(stmt, name):
    """``e`` when ``stmt`` is ``name += e`` or ``name = name + e``; None otherwise."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
            and stmt.target.id == name and isinstance(stmt.op, gast.Add):
        return stmt.value
    if (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, gast.Add) and isinstance(stmt.value.left, gast.Name)
            and stmt.value.left.id == name):
        return stmt.value.right
    return None
