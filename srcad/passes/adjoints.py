"""Adjoint bookkeeping for ``reverse``: which adjoints exist, who owns them, how they add up.

Contract: ``AdjointState`` is a mixin of ``ReverseMode``.  It keeps
``self.state`` (adjoint name defined here -> whether the derivative alone
holds its array) and turns template statements ``d[x] = e`` into code:
- the first contribution to ``dx`` is assigned, later ones are added, in
  place only when ``dx`` is owned (``_accumulate``; element stores in
  ``_accumulate_at``, through ``add_at`` when an entry may be a container);
- before a branch or loop, adjoints it touches are defined (``_define``) and
  at the end of each arm or iteration brought back to one state
  (``_reconcile``), so the code is right whichever way control went;
- an adjoint that is zero throughout a branch or loop (nothing whose own
  adjoint may be nonzero passes it anything, ``_may_be_nonzero``) is neither
  defined nor computed there;
- the adjoint of a list f appends to is a list: one a rule gives as an array
  goes through ``unarray`` (one entry per item) unless the rule's helper is
  one of ``runtime.ITEM_ADJOINTS``, which give lists already; a list adjoint
  (a list literal, or a result of ``runtime.LIST_ADJOINTS``) adds to an
  adjoint defined already through ``add_structures``, never ``+`` (which
  would concatenate).
It never reads the primal tree beyond the statements it is handed.

Example: two contributions to ``dx`` give ``dx = e1`` then ``dx += e2``
(``dx`` owned: ``e1`` was a fresh array) or ``dx = dx + e2`` (it was not).
"""
from __future__ import annotations

from collections import Counter
from typing import List

import gast

from ..frontend import syntax
from ..runtime.containers import add_lists, add_structures
from .activity import carries_derivative, differentiable_operands
from ..analysis.blocks import definitely_bound, is_append, is_store, target_name
from .derivatives import is_derivative_ref
from .grad_hooks import HOOK
from ..analysis.expressions import callee_object, constant_index, is_fresh
from ..runtime import ITEM_ADJOINTS, LIST_ADJOINTS


class AdjointState:
    """Accumulation, ownership and definition of adjoints (mixed into ``ReverseMode``)."""

    def _touched(self, stmt, block) -> List[str]:
        """Adjoints defined outside ``block`` that its backward pass reads, adds to or consumes."""
        outer = self.bound_before.get(id(stmt), set()) | set(self.state)
        names, bound_inside = set(), set()
        for inner in syntax.iter_statements(block):
            if is_append(inner):
                names |= {inner.value.func.value.id} | syntax.loaded_names(inner.value.args[0])
            if isinstance(inner, gast.Assign):
                names.add(target_name(inner.targets[0]))
                if isinstance(inner.targets[0], gast.Name):
                    bound_inside.add(inner.targets[0].id)
                if carries_derivative(inner.value):
                    names |= differentiable_operands(inner.value)
        outer |= names - bound_inside   # read but never bound in the block: it comes from outside
        # bound inside and also somewhere outside (maybe only on some paths): its adjoint may flow out
        inside = bindings_in(block)
        outer |= {n for n in names & bound_inside if self.bindings[n] > inside[n]}
        nonzero = self._may_be_nonzero(block)
        return sorted(n for n in names & outer if n in nonzero and self.activity.is_active(syntax.name(n)))

    def _may_be_nonzero(self, block) -> set:
        """Adjoints that can be nonzero somewhere in ``block``'s backward pass.

        Those defined when it starts, and, to a fixed point (a loop's body runs again), whatever a
        statement whose own adjoint may be nonzero passes its adjoint on to.  Any other adjoint is
        zero throughout: it is neither defined nor computed, so no product of a zero adjoint with an
        overflowed value (0 * inf) can make a gradient nan, and the work is saved.  A gradient hook
        may set its adjoint to anything, so it counts as nonzero.
        """
        nonzero, flows = set(self.state), []
        for inner in syntax.iter_statements(block):
            if is_append(inner):
                flows.append((inner.value.func.value.id, syntax.loaded_names(inner.value.args[0])))
            elif isinstance(inner, gast.Assign) and carries_derivative(inner.value):
                flows.append((target_name(inner.targets[0]), differentiable_operands(inner.value)))
            elif syntax.annotation(inner, HOOK) is not None:
                nonzero.add(inner.value.args[0].id)
        grown = True
        while grown:
            grown = False
            for target, operands in flows:
                if target in nonzero and not operands <= nonzero:
                    nonzero |= operands
                    grown = True
        return nonzero

    def _own_before_loop(self, touched, body) -> List:
        """Copy, once before the loop, adjoints the loop changes in place but does not own."""
        changed_in_place = set()
        for inner in syntax.iter_statements(body):
            if is_store(inner):
                changed_in_place.add(target_name(inner.targets[0]))
            elif isinstance(inner, gast.Assign) and isinstance(inner.value, gast.Subscript):
                changed_in_place |= syntax.loaded_names(inner.value.value)
        code = []
        for name in touched:
            if name in changed_in_place and not self.state.get(name, True):
                adjoint = self.unit.namer.derivative(name)
                code.append(syntax.assign(adjoint, syntax.call(self.frame.helper("copied"), [syntax.name(adjoint)])))
                self.state[name] = True
        return code

    def _define(self, names, stmt) -> List:
        """Zero adjoints for ``names`` before compound ``stmt`` (a plain 0.0 for a name it may leave unbound)."""
        code = []
        bound = definitely_bound([stmt], self.bound_before.get(id(stmt), set()))
        for name in names:
            if name not in self.state:
                zero = (syntax.call(self.frame.helper("zeros_like"), [syntax.name(name)]) if name in bound
                        else syntax.constant(0.0))
                if name not in bound:
                    self.placeholders.add(name)
                code.append(syntax.assign(self.unit.namer.derivative(name), zero))
                self.state[name] = True
        return code

    def _reconcile(self, names, entry, require_owned) -> List:
        code = []
        for name in names:
            adjoint = syntax.name(self.unit.namer.derivative(name))
            if name not in self.state:
                # at the end of a backward loop pass: zeros of the value the name held before the pass bound
                # it (the tape has put it back), not of that pass's value (a loop variable shadowing a
                # parameter: a number, then the array); the adjoint's own shape where the name may be unbound
                like = syntax.name(name) if require_owned and name not in self.placeholders else adjoint
                code.append(syntax.assign(adjoint.id, syntax.call(self.frame.helper("zeros_like"), [like])))
                self.state[name] = True
            elif require_owned and entry.get(name) and not self.state[name]:
                code.append(syntax.assign(adjoint.id, syntax.call(self.frame.helper("copied"), [adjoint])))
                self.state[name] = True
        return code

    # resolving d[...] ------------------------------------------------------------
    def _resolve(self, template_body, target) -> List:
        statements = []
        for stmt in template_body:
            if isinstance(stmt, gast.Assign) and is_derivative_ref(stmt.targets[0]):
                atom, value = stmt.targets[0].slice, self._reads(stmt.value, target)
                if isinstance(atom, gast.Name) and atom.id in self.lists and not self._gives_items(value):
                    # a rule made for arrays gave the list an array adjoint: one entry per item, which
                    # the backward pass of its appends pops
                    value = syntax.call(self.frame.helper("unarray"), [value, syntax.name(atom.id)])
                statements += self._accumulate(atom, value)
            elif (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)
                  and is_derivative_ref(stmt.targets[0].value)):
                ref = stmt.targets[0]
                statements += self._accumulate_at(ref.value.slice, ref.slice, self._reads(stmt.value, target))
            else:
                statements.append(self._reads(stmt, target))
        return statements

    def _gives_items(self, value) -> bool:
        """Whether ``value`` is a call of a helper that gives a list's adjoint one entry per item."""
        return isinstance(value, gast.Call) and any(
            callee_object(value.func, self.unit.bindings.objects) is helper for helper in ITEM_ADJOINTS)

    def _list_adjoint(self, value) -> bool:
        """Whether ``value`` is the adjoint of a name that may hold a list (``chosen = grad`` in one branch,
        ``chosen = [grad]`` in the other): added to another adjoint with ``+=`` it would be joined to it."""
        return isinstance(value, gast.Name) and self.unit.namer.derivatives().get(value.id) in self.lists

    def _alias_of_sequence(self, name, value) -> bool:
        """Whether ``value`` is the adjoint of a name whose value reaches ``name`` (``q = parts``; an entry
        ``xs[i] = v``) where both may hold a list or tuple (``parts = np.split(x, 2)``): neither is known to be
        an array, nor ``name`` a number."""
        return isinstance(value, gast.Name) and name not in self.arrays and name not in self.scalars \
            and self.unit.namer.derivatives().get(value.id) not in self.arrays

    def _gives_list(self, value) -> bool:
        """Whether ``value`` is a call of a helper whose result is always a list (``runtime.LIST_ADJOINTS``)."""
        return isinstance(value, gast.Call) and any(
            callee_object(value.func, self.unit.bindings.objects) is helper for helper in LIST_ADJOINTS)

    def _reads(self, node, target):
        """Replace ``d[v]`` reads in ``node`` by adjoint names (zero for inactive ``v``)."""
        unit, state = self.unit, self.state

        placeholders, filled = self.placeholders, self._filled

        class ReadAdjoints(gast.NodeTransformer):
            def visit_Subscript(self, sub):
                self.generic_visit(sub)
                if not is_derivative_ref(sub):
                    return sub
                atom = sub.slice
                if isinstance(atom, gast.Name) and (atom.id == target or atom.id in state):
                    adjoint = syntax.name(unit.namer.derivative(atom.id))
                    return filled(atom.id) if atom.id in placeholders else adjoint
                return syntax.constant(0.0)

        return ReadAdjoints().visit(node)

    def _accumulate(self, atom, value) -> List:
        if not self.activity.is_active(atom):
            return []
        name = atom.id
        adjoint = self.unit.namer.derivative(name)
        if name not in self.state:
            self.state[name] = self._ownership(name, value)
            if self._gives_items(value):
                self.item_lists.add(name)
            return [syntax.assign(adjoint, value)]
        if name in self.lists:   # list adjoints add element by element
            helper = syntax.name(self.unit.bindings.bind("add_lists", add_lists))
            return [syntax.assign(adjoint, syntax.call(helper, [syntax.name(adjoint), value]))]
        if isinstance(value, (gast.List, gast.Tuple)) or self._gives_list(value) or self._alias_of_sequence(
                name, value) or (   # `+` would concatenate
                self._gives_items(value) and name in self.item_lists) or self._list_adjoint(value) or (   # two lists, one entry per item
                name in self.unit.facts.get("structured_adjoints", ()) and name not in self.arrays) \
                or name in self.dicts:
            # (or passed to a function called through its derivative: maybe a tuple)
            helper = syntax.name(self.unit.bindings.bind("add_structures", add_structures))
            return [syntax.assign(adjoint, syntax.call(helper, [syntax.name(adjoint), value]))]
        if self.state[name]:
            return [gast.AugAssign(target=syntax.store(adjoint), op=gast.Add(), value=value)]
        self.state[name] = True
        return [syntax.assign(adjoint, gast.BinOp(left=syntax.name(adjoint), op=gast.Add(), right=value))]

    def _ownership(self, name, value) -> bool:
        """Whether ``d<name> = value`` leaves ``d<name>`` the only holder of a fresh array."""
        if is_fresh(value, self.unit.bindings.objects):
            return True
        if isinstance(value, gast.Name):   # an alias: the source is consumed right after
            source = self.unit.namer.derivatives().get(value.id)
            if source is None:
                return False
            if source in self.aliased_from:   # aliased twice: nobody owns it alone
                self.state[self.aliased_from[source]] = False
                return False
            self.aliased_from[source] = name
            return self.state.get(source, False)
        return False

    def _filled(self, name):
        """``filled_like(d<name>, <name>)``: the adjoint, given ``name``'s shape if it may still be 0.0."""
        return syntax.call(self.frame.helper("filled_like"),
                           [syntax.name(self.unit.namer.derivative(name)), syntax.name(name)])

    def _make_owned(self, name) -> List:
        if self.state.get(name):
            return []
        self.state[name] = True
        adjoint = self.unit.namer.derivative(name)
        return [syntax.assign(adjoint, syntax.call(self.frame.helper("copied"), [syntax.name(adjoint)]))]

    def _accumulate_at(self, atom, index, value) -> List:
        if not self.activity.is_active(atom):
            return []
        name = atom.id
        adjoint = self.unit.namer.derivative(name)
        statements = []
        if name not in self.state:
            statements.append(syntax.assign(adjoint, syntax.call(self.frame.helper("zeros_like"), [atom])))
            self.state[name] = True
        statements += self._make_owned(name)
        if name in self.placeholders:   # still 0.0 if nothing was added yet: an array before storing into it
            statements.append(syntax.assign(adjoint, self._filled(name)))
        # ``dxs[i] += dv`` would concatenate if the entry is a list, and ``dxs[1:] += dys`` if the adjoint is:
        # a plain index or a slice into what may be a list or dict, adding the adjoint of an entry or of a
        # slice (itself maybe a container), goes through add_at
        entry = (isinstance(index, gast.AST) and not isinstance(index, gast.Tuple)
                 and self._alias_of_sequence(name, value))
        if not entry and (constant_index(index, self.int_names) or not isinstance(index, gast.AST)):
            index, value = without_new_axes(index, value)
            target = syntax.store(adjoint) if _whole(index) else \
                gast.Subscript(value=syntax.name(adjoint), slice=index, ctx=gast.Store())
            statements.append(gast.AugAssign(target=target, op=gast.Add(), value=value))
        else:
            # an assignment, not a bare call: differentiating this code again must see dx change
            statements.append(syntax.assign(adjoint, syntax.call(
                self.frame.helper("add_at"), [syntax.name(adjoint), _as_value(index), value])))
        return statements


def _whole(index) -> bool:
    """Whether ``dx[index]`` is all of ``dx`` (``...``, ``:``, ``()``): then ``dx += v`` is the store, and it
    works for an ``np.float64`` adjoint too (an immutable scalar is rebound; an array changes in place)."""
    elements = index.elts if isinstance(index, gast.Tuple) else [index]
    return all(isinstance(e, gast.Constant) and e.value is Ellipsis
               or isinstance(e, gast.Slice) and e.lower is None and e.upper is None and e.step is None
               for e in elements)


def without_new_axes(index, value):
    """``(index, value)`` of ``dx[index] += value`` with the new axes (``None``) taken out of the store.

    ``dx[:, None] += v`` becomes ``dx[:] += v[:, 0]`` (then ``dx += v[:, 0]``): the same sum, and a store Dask arrays (whose
    ``__setitem__`` takes no new axis) can make.  An index without ``None``, or with a dict key, is
    returned as it is.

    Example: index ``None, ..., 0`` and value ``v`` give ``...`` and ``v[0, ...]``.
    """
    elements = index.elts if isinstance(index, gast.Tuple) else [index]
    is_new_axis = [isinstance(e, gast.Constant) and e.value is None for e in elements]
    if not any(is_new_axis) or any(isinstance(e, gast.Constant) and isinstance(e.value, str) for e in elements):
        return index, value
    kept, picks = [], []
    for element, new_axis in zip(elements, is_new_axis):
        if new_axis:
            picks.append(syntax.constant(0))
        elif isinstance(element, gast.Slice) or isinstance(element, gast.Constant) and element.value is Ellipsis:
            kept.append(element)
            picks.append(gast.Slice(lower=None, upper=None, step=None)
                         if isinstance(element, gast.Slice) else syntax.constant(Ellipsis))
        else:   # an int: that axis is not in value
            kept.append(element)
    while kept and isinstance(kept[-1], gast.Slice) and kept[-1].lower is kept[-1].upper is kept[-1].step is None \
            and len(kept) > 1:
        kept.pop()   # dx[:, :] is dx[:]
    stored = kept[0] if len(kept) == 1 else gast.Tuple(elts=kept, ctx=gast.Load()) if kept \
        else syntax.constant(Ellipsis)
    picked = picks[0] if len(picks) == 1 else gast.Tuple(elts=picks, ctx=gast.Load())
    return stored, gast.Subscript(value=value, slice=picked, ctx=gast.Load())


def bindings_in(block) -> Counter:
    """How many plain assignments bind each name in ``block`` (nested blocks included)."""
    return Counter(s.targets[0].id for s in syntax.iter_statements(block)
                   if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name))


def _as_value(index):
    """An index as an ordinary expression: ``a:b`` becomes ``slice(a, b)`` (for passing to add_at)."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else syntax.constant(None) for p in (index.lower, index.upper, index.step)]
        return syntax.call("slice", parts)
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_as_value(elt) for elt in index.elts], ctx=gast.Load())
    return index
