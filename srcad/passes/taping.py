"""Reverse mode's forward sweep: the primal with the tape pushes, and the pops that restore what they saved.

Contract: ``Taping`` is mixed into ``ReverseMode`` and shares its state
(``unit``, ``frame``, ``tape``, ``pops``...).  ``_forward(block, bound,
in_loop)`` returns the block's forward-sweep statements and records in
``self.pops`` the restoring pops each statement's (or block's) backward pass
uses:
- a statement that overwrites a bound variable pushes the old value first
  (``locals().get`` when it may be unbound: bound by an earlier branch or loop
  of this iteration, or before the loop);
- inside a loop, a name a block binds first is pushed once at the block's end
  (and before a ``break``) and popped at the start of the block's backward
  pass, unless ``recompute`` recomputes it; a name a branch or inner loop
  binds first and a later statement of the block reads is checkpointed by the
  block as well, so those statements' adjoints see this iteration's value;
- loops that can be left early count their trips.

Example: in ``for k in range(n): c = np.exp(x); x = x * c``, ``c`` is pushed at
the end of each iteration and popped first in the backward loop's body.
"""
from __future__ import annotations

from typing import Dict, List

import gast

from .. import runtime
from ..frontend import syntax
from ..analysis.blocks import definitely_bound, has_break, is_store, loop_carried, target_name
from .derivatives import with_comments
from .grad_hooks import HOOK
from .loops import unordered
from .recompute import plan as plan_recomputation


class Taping:
    """The forward sweep of ``ReverseMode`` (a mixin: it uses the pass's state)."""

    def _forward(self, block, bound, in_loop) -> List:
        groups, bound, block_locals = [], set(bound), []
        self.locals_stack.append((block, block_locals))
        recomputed = self._plan_recomputation(block, bound) if in_loop else {}
        for index, stmt in enumerate(block):
            out = []
            groups.append((stmt.lineno, out))
            if syntax.annotation(stmt, HOOK) is not None:
                continue   # a gradient hook acts in the backward sweep only
            if isinstance(stmt, (gast.Assign, gast.Expr, gast.Assert)):
                syntax.annotate(stmt, "primal", True)
            if isinstance(stmt, gast.Assign) and not is_store(stmt):
                name = stmt.targets[0].id
                if _same_array_back(block, index):
                    pass   # `dx_2 = add_at(dx, i, g); dx = dx_2`: dx's array is dx_2's, nothing to restore
                elif name in bound:
                    out.append(self._push(stmt, syntax.name(name), syntax.store(name)))
                elif name in (self.maybe_bound_at_loop[-1] if in_loop else self.maybe_bound) or (
                        in_loop and name in self.bound_this_iteration[-1]):
                    # bound by an earlier branch or loop (of this iteration, or before the loop), or not at all
                    out.append(self._push(stmt, _value_if_bound(name), syntax.store(name)))
                elif in_loop and name not in recomputed:
                    block_locals.append(name)
                out.append(stmt)
                bound.add(name)
                self.maybe_bound.add(name)
                if in_loop:
                    self.bound_this_iteration[-1].add(name)
            elif is_store(stmt) and self._may_add_a_key(stmt.targets[0]):
                out += [self._push_item(stmt), stmt]
            elif is_store(stmt):
                target = stmt.targets[0]
                saved = syntax.call(f"{self.frame.numpy}.copy", [gast.Subscript(
                    value=syntax.clone(target.value), slice=syntax.clone(target.slice), ctx=gast.Load())])
                restore = gast.Subscript(value=syntax.clone(target.value), slice=syntax.clone(target.slice),
                                         ctx=gast.Store())
                out += [self._push(stmt, saved, restore), stmt]
            elif isinstance(stmt, gast.If):
                self.bound_before[id(stmt)] = set(bound)
                before_arms = set(self.bound_this_iteration[-1]) if in_loop else set()
                stmt_body = self._forward(stmt.body, bound, in_loop)
                if in_loop:   # the other arm runs instead of this one, never after it
                    bound_in_body, self.bound_this_iteration[-1] = self.bound_this_iteration[-1], set(before_arms)
                stmt_orelse = self._forward(stmt.orelse, bound, in_loop)
                out.append(gast.If(test=stmt.test, body=stmt_body or [gast.Pass()], orelse=stmt_orelse))
                bound = definitely_bound([stmt], bound)
                if in_loop:
                    self.bound_this_iteration[-1] |= bound_in_body
                    self._checkpoint_later_reads(block, index, before_arms, bound, block_locals)
            elif isinstance(stmt, (gast.For, gast.While)):
                self.bound_before[id(stmt)] = set(bound)
                before_loop = set(self.bound_this_iteration[-1]) if in_loop else set()
                out += self._forward_loop(stmt, bound, in_loop, block_locals)
                if in_loop:
                    self._checkpoint_later_reads(block, index, before_loop, bound, block_locals)
            elif isinstance(stmt, gast.Break):
                for enclosing, names in reversed(self.locals_stack[self.loop_depth_start:]):
                    out += self._checkpoint_pushes(enclosing, names)
                out.append(stmt)
            else:
                out.append(stmt)
        out = with_comments(self.unit, groups)
        if in_loop and not (block and isinstance(block[-1], gast.Break)):
            out += self._checkpoint_pushes(block, block_locals)
        self.locals_stack.pop()
        self.pops[id(block)] = [self._pop(syntax.store(name), pair) for name, pair in
                                reversed(self.checkpoint_pairs.get(id(block), []))]
        return out

    def _forward_loop(self, loop, bound, in_loop, block_locals) -> List:
        out = []
        counted = isinstance(loop, gast.While) or has_break(loop)
        saved_start, self.loop_depth_start = self.loop_depth_start, len(self.locals_stack)
        # a name an earlier pass of this loop bound may be bound too (it is pushed before it is overwritten)
        self.maybe_bound_at_loop.append(set(self.maybe_bound) | (loop_carried(loop, only_earlier_passes=True) - bound))
        self.bound_this_iteration.append(set())
        body = self._forward(loop.body, bound, True)
        bound_inside = self.bound_this_iteration.pop()
        if in_loop:   # after the inner loop, what it bound may be bound in this iteration of the outer one
            self.bound_this_iteration[-1] |= bound_inside
        self.maybe_bound_at_loop.pop()
        self.loop_depth_start = saved_start
        if counted:
            trips = self.unit.namer.fresh("trips")
            self.trips[id(loop)] = trips
            out.append(syntax.set_location(syntax.assign(trips, syntax.constant(0)), loop.lineno))
            if in_loop:
                block_locals.append(trips)
            increment = gast.AugAssign(target=syntax.store(trips), op=gast.Add(), value=syntax.constant(1))
            body = [syntax.set_location(increment, loop.lineno)] + body
        if isinstance(loop, gast.For):
            out.append(gast.For(target=loop.target, iter=loop.iter, body=body, orelse=[], type_comment=None))
        else:
            out.append(gast.While(test=loop.test, body=body, orelse=[]))
        return out

    def _plan_recomputation(self, block, bound) -> Dict:
        """Block-local scalar temporaries the backward pass recomputes instead of saving."""
        if any(isinstance(s, gast.Break) for s in syntax.iter_statements(block)):
            return {}
        first_bound = [s.targets[0].id for s in block if isinstance(s, gast.Assign) and not is_store(s)
                       and s.targets[0].id not in bound]
        chosen = plan_recomputation(block, first_bound, self.scalars)
        for recompute in chosen.values():
            self.recompute_at.setdefault(id(recompute.last_reader), []).append(recompute.definition)
        if chosen:   # the backward pass's copy gets a name of its own: assigned once, it can be inlined
            self.recompute_names[id(block)] = {name: self.unit.namer.fresh(name) for name in sorted(chosen)}
        return chosen

    def _recomputed(self, stmt) -> List:
        """Copies of the temporaries to recompute before ``stmt``'s adjoint: derivative code now, free to
        simplify and inline."""
        definitions = [syntax.clone(d) for d in self.recompute_at.get(id(stmt), [])]
        for definition in definitions:
            syntax.annotate(definition, "primal", False)
        return definitions

    def _checkpoint_pushes(self, block, names) -> List:
        """Pushes of the names ``block`` bound first, one pair per name (shared by every exit)."""
        pairs = self.checkpoint_pairs.setdefault(id(block), [])
        if len(pairs) < len(names):
            pairs += [(name, self.frame.new_pair()) for name in names[len(pairs):]]
        return [self.frame.push(self.tape, _value_if_bound(name) if (id(block), name) in self.unsure_checkpoints
                                else syntax.name(name), pair) for name, pair in pairs]

    def _checkpoint_later_reads(self, block, index, maybe_bound_before, bound, block_locals) -> None:
        """Checkpoint, once per iteration of ``block``, the names the branch or loop at ``index`` binds first
        and a later statement of ``block`` reads.

        The branch or loop restores such a name for its own adjoints only when the backward sweep reaches it,
        after the adjoints of the statements that follow it; those need the value it had after the branch or
        loop, so ``block``'s backward pass restores it first.
        """
        compound = block[index]
        first_bound = {name for inner in syntax.iter_statements(compound.body + compound.orelse)
                       if isinstance(inner, gast.Assign) and not is_store(inner)
                       for name in [inner.targets[0].id]
                       if name not in self.bound_before[id(compound)] and name not in maybe_bound_before
                       and name not in self.maybe_bound_at_loop[-1]}
        read_later = set().union(*(syntax.loaded_names(later) for later in block[index + 1:]))
        for name in sorted(first_bound & read_later):
            if name not in block_locals:
                block_locals.append(name)
                if name not in bound:
                    self.unsure_checkpoints.add((id(block), name))

    def _push(self, stmt, value, restore_target):
        pair = self.frame.new_pair()
        self.pops[id(stmt)] = [self._pop(restore_target, pair)]
        return self.frame.push(self.tape, value, pair)

    def _may_add_a_key(self, target) -> bool:
        """Whether the store ``target = ...`` may add a key to a dict: its key is a string, or its container is
        a dict f makes (an array's or a list's store never adds an element)."""
        key = target.slice
        if isinstance(key, gast.Constant) and isinstance(key.value, str):
            return True
        return isinstance(target.value, gast.Name) and unordered(target.value, self.unit.tree.body) == "dict"

    def _push_item(self, stmt):
        """``tape.append(item_before(d, key))``; its backward pass pops it and calls ``restore_item``, which
        removes the key again when the store added it."""
        target, pair = stmt.targets[0], self.frame.new_pair()
        saved = self.unit.namer.fresh(f"{target_name(target)}_item")
        helper = self.frame.helper("restore_item")
        syntax.annotate(helper, "ref", runtime.restore_item)
        restore = syntax.call(helper, [
            syntax.clone(target.value), syntax.clone(target.slice), syntax.name(saved)])
        self.pops[id(stmt)] = [self._pop(syntax.store(saved), pair), syntax.expr_stmt(restore)]
        return self.frame.push(self.tape, syntax.call(self.frame.helper("item_before"), [
            syntax.clone(target.value), syntax.clone(target.slice)]), pair)

    def _pop(self, target, pair):
        return self.frame.pop(self.tape, target, pair)


def _same_array_back(block, index) -> bool:
    """Whether ``block[index]`` is ``a = b`` right after ``b = add_at(a, ...)``: generated code adding into its
    own array, which ``add_at`` gives back, so ``a`` holds the same array before and after."""
    stmt, before = block[index], block[index - 1] if index else None
    return (isinstance(stmt.value, gast.Name) and isinstance(before, gast.Assign)
            and isinstance(before.targets[0], gast.Name) and before.targets[0].id == stmt.value.id
            and isinstance(before.value, gast.Call) and getattr(before.value.func, "id", None) == "add_at"
            and syntax.annotation(before.value.func, "ref") is runtime.add_at
            and before.value.args and isinstance(before.value.args[0], gast.Name)
            and before.value.args[0].id == stmt.targets[0].id)


def _value_if_bound(name: str):
    """``locals().get('name')``: the value of a name an earlier branch may have left unbound (None if so)."""
    lookup = gast.Attribute(value=syntax.call("locals"), attr="get", ctx=gast.Load())
    return gast.Call(func=lookup, args=[syntax.constant(name)], keywords=[])
