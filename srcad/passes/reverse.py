"""Transformation: reverse mode.  Replaces the tree with the derivative function.

Contract: input is the desugared, A-normal, versioned tree with ``activity``
facts.  Output is ``def d<f>(<f's parameters>, <seed>=1.0)`` that runs the
forward sweep (the primal, plus tape pushes), checks the seed with
``check_seed``, runs the backward sweep (adjoints in reverse order, each
block under a comment quoting the user's line) and returns the adjoint of each
``wrt`` parameter.  The seed is ``d<name>`` when f returns a variable and
``dout`` otherwise; adjoints follow the same convention.

The tape (one list, ``tape``):
- straight-line code needs none: ``versioning`` gave every value its own name;
- a statement that overwrites a bound variable pushes the old value first
  (``tape.append(x)``); the backward sweep pops it back right after that
  statement's adjoint, so every adjoint sees the values it saw going forward.
  An element store ``A[i] = v`` saves ``A[i]`` the same way;
- inside a loop, a variable a block binds for the first time is pushed once
  at the block's end (and before a ``break``) and popped at the start of the
  block's backward pass, unless it is a scalar temporary cheap to recompute
  (``recompute``): then the backward pass evaluates it again where needed;
- a restoring pop moves before the statement's adjoint when that adjoint
  does not read the statement's result;
- branch decisions are hoisted booleans, saved like any other value; loops
  with ``break`` and ``while`` loops count their trips.
Pushes whose pops are never read are removed by ``cleanup``, so the tape
holds only what the backward pass reads.

Loop nests of element stores (``A[i, j] = e``, ``A[i, j] += B[i, k] * C[k, j]``)
need no tape in the variant for known argument ranks (option ``param_ranks``,
built by ``api.Derivative`` when a function whose loops store element by
element gets float arrays): ``shapes`` then knows ``B[i, k]`` is a scalar, so
``simplify`` drops the broadcast helpers and copies whose operands the tape
held, ``recompute`` reads elements of read-only parameters again instead of
saving them, and ``cleanup`` drops every push left unread.

Accumulation (``adjoints.AdjointState``, mixed in).  The first contribution
to ``dx`` is assigned, later ones are added: in place (``dx += e``) only when
``dx`` holds an array the derivative created and nothing else holds;
otherwise ``dx = dx + e``.  ``dx`` is "consumed" once the statement defining
``x`` has been differentiated.  Before a branch or loop, adjoints it touches
are made defined (``zeros_like``) and at the end of each arm or iteration
brought back to the same state, so the code is right whichever way control
went.

The forward sweep (pushes, checkpoints, trip counts) is the ``Taping`` mixin
of ``taping.py``; this module holds the backward sweep.

Symmetry with ``forward``: both walk blocks with one method per construct in
the same order (assignment of an atom, of a tuple, of an operation through a
rule, element store, ``if``, loop); add a construct to both.
"""
from __future__ import annotations

from typing import Dict, List

import gast

from .. import runtime
from ..frontend import syntax
from ..templates import REVERSE
from .activity import carries_derivative
from .adjoints import AdjointState, bindings_in
from ..analysis.blocks import (array_names, closed_under, is_append, is_pop, is_store, list_names, target_name,
                               written_names)
from .calls import is_user_call
from .derivatives import Differentiator, with_comments
from .frame import Frame, announced, split_output, split_return, with_extras
from ..analysis.expressions import constant_index, range_indices
from .grad_hooks import HOOK
from .normalize import is_static
from .recompute import scalar_names
from .simplify import parameter_ranks
from . import Transformation
from .taping import Taping


class ReverseMode(Taping, AdjointState, Transformation):
    """Build the vector-Jacobian-product function of the normalized tree."""

    name = "reverse"

    def transform(self, unit):
        self.unit = unit
        self.frame = Frame(unit)
        self.activity = unit.facts["activity"]
        self.rules = Differentiator(unit, REVERSE)
        self.state: Dict[str, bool] = {}       # adjoint defined here -> owned by us alone
        self.tape = unit.namer.fresh("tape")
        self.pops: Dict[int, List] = {}       # id(stmt or block) -> pop statements
        self.trips: Dict[int, str] = {}
        self.bound_before: Dict[int, set] = {}
        self.locals_stack: List = []           # (primal block, names it binds first) from outermost in
        self.checkpoint_pairs: Dict[int, List] = {}   # id(primal block) -> [(name, pair)]
        self.loop_depth_start = 0                     # index in locals_stack of the innermost loop body
        self.scalars = scalar_names(unit.tree, bool(unit.options.get("scalar_params")), parameter_ranks(unit))
        self.recompute_at: Dict[int, List] = {}       # id(stmt) -> definitions to recompute before its adjoint
        self.recompute_names: Dict[int, Dict] = {}    # id(block) -> {temporary: its name in the backward pass}
        tree = unit.tree
        body, returned = split_return(unit, tree.body)
        returned, aux = split_output(unit, returned)
        self.lists = list_names(body)
        self.containers = self.lists | _container_names(body)
        self.dicts = _structure_names(body, self.lists)
        self.item_lists = set()   # names whose adjoint a helper giving one entry per item (maybe a list) started
        self.placeholders = set()   # names whose adjoint starts as 0.0 because they may be unbound
        self.maybe_bound = set()    # names some statement the forward sweep has passed assigns
        self.maybe_bound_at_loop: List[set] = []   # the same, when each enclosing loop began
        self.bound_this_iteration: List[set] = []  # names an earlier statement of the current iteration may bind
        self.unsure_checkpoints = set()   # (id(block), name): a checkpointed name that may be unbound at a push
        self.bindings = bindings_in(body)
        self.arrays = array_names(body) | {name for name, rank in parameter_ranks(unit).items() if rank}
        self.int_names = range_indices(body)
        params = self.frame.parameters
        forward = self.frame.copy_stored_parameters(body) + self._forward(body, set(params) | set(unit.wrt), False)
        seed = self.frame.seed_name(returned)
        if isinstance(returned, gast.Name):
            self.state[returned.id] = False
        backward = []
        if isinstance(returned, gast.Tuple):
            backward.append((returned.lineno, self._tuple(returned, seed)))
        with announced(unit, [seed]):   # a call of f itself (recursion) calls the derivative being built
            backward = with_comments(unit, backward) + self._backward(body)
        check = syntax.assign(seed, syntax.call(self.frame.helper("check_seed"),
                                                [syntax.clone(returned), syntax.name(seed)]))
        uses_tape = any(self.pops.values())
        tape_init = [syntax.assign(self.tape, gast.List(elts=[], ctx=gast.Load()))] if uses_tape else []
        kept, returned_value, aux_value = self._keep_value(backward, returned, aux)
        new_body = tape_init + forward + [check] + kept + backward + [
            gast.Return(value=with_extras(unit, self.frame.gradients(self.state), returned_value, aux_value))]
        unit.tree = self.frame.reverse_signature(tree, seed, new_body, scalar=not isinstance(returned, gast.Tuple))
        unit.facts["reverse"] = {"seed": seed, "tape": self.tape}
        return True

    def _keep_value(self, backward, returned, aux):
        """With ``with_value`` or an aux output, the value f returns must survive the backward sweep, which
        restores names (``out = tape.pop()``) and elements: keep it under a name of its own when a restore
        touches it."""
        if not self.unit.options.get("with_value") and aux is None:
            return [], returned, aux
        touched = set().union(set(), *[written_names(s) for s in syntax.iter_statements(backward)])
        shown = (syntax.loaded_names(returned) | (syntax.loaded_names(aux) if aux is not None else set())) & touched
        kept, renames = [], {}
        for name in sorted(shown):
            renames[name] = self.unit.namer.fresh(f"{name}_value")
            kept.append(syntax.assign(renames[name], syntax.call(self.frame.helper("copied"), [syntax.name(name)])))
        rename = lambda node: node if node is None else syntax.rename(syntax.clone(node), renames)  # noqa: E731
        return kept, rename(returned), rename(aux)

    # backward sweep ------------------------------------------------------------
    def _backward(self, block) -> List:
        groups = [(getattr(block[0], "lineno", None) if block else None, list(self.pops.get(id(block), [])))]
        for stmt in reversed(block):
            groups.append((stmt.lineno, self._backward_statement(stmt)))
        code = with_comments(self.unit, groups)
        renamed = self.recompute_names.get(id(block))
        return [syntax.rename(statement, renamed) for statement in code] if renamed else code

    def _backward_statement(self, stmt) -> List:
        if is_store(stmt):   # temporaries recomputed for it read no element of the array it stores into
            code = self._recomputed(stmt) + self._store(stmt)
            return code + [self._restoring_adjoint(pop) for pop in self.pops.get(id(stmt), [])]
        if is_pop(stmt):
            return self._recomputed(stmt) + self._popped(stmt) + self.pops.get(id(stmt), [])
        if isinstance(stmt, gast.Assign):
            # an adjoint nothing contributed to is zero: the statement then needs no adjoint code
            target = stmt.targets[0]
            code = self._statement(stmt) if self.activity.is_active(target) and target.id in self.state else []
            self.state.pop(stmt.targets[0].id, None)
            recomputed = self._recomputed(stmt)
            pops = self.pops.get(id(stmt), [])
            if any(target.id in syntax.loaded_names(s) for s in code):
                assert not recomputed or not any(target.id in syntax.loaded_names(d) for d in recomputed), \
                    "recomputing needs a value this adjoint reads after it is restored"
                return recomputed + code + pops
            return pops + recomputed + code   # the adjoint reads no new value: restore first
        if isinstance(stmt, gast.If):
            return self._if(stmt)
        if isinstance(stmt, (gast.For, gast.While)):
            return self._loop(stmt)
        if is_append(stmt):
            return self._append(stmt)
        if syntax.annotation(stmt, HOOK) is not None:
            return self._hook(stmt)
        return []

    def _append(self, stmt) -> List:
        """``xs.append(v)``: ``v`` takes the last element of ``dxs``; ``xs`` gets its element back off."""
        array = stmt.value.func.value.id
        element = stmt.value.args[0]
        code = []
        if array in self.state and self.activity.is_active(syntax.name(array)):
            popped = syntax.call(syntax.dotted(f"{self.unit.namer.derivative(array)}.pop"))
            self.aliased_from = {}
            if not self.activity.is_active(element):
                code = [syntax.expr_stmt(popped)]
            elif element.id in self.state and element.id in self.containers:   # a tuple's adjoint is a list
                adjoint = self.unit.namer.derivative(element.id)
                total = self._filled(element.id) if element.id in self.placeholders else syntax.name(adjoint)
                code = [syntax.assign(adjoint, syntax.call(self.frame.helper("add_structures"), [total, popped]))]
                self.state[element.id] = False
            else:
                code = self._accumulate(element, popped)
        return code + [syntax.expr_stmt(syntax.call(syntax.dotted(f"{array}.pop")))]

    def _restoring_adjoint(self, pop):
        """``restore_item(d, key, saved)`` gets ``d``'s adjoint too when it has one: a key the store added
        leaves both."""
        call = pop.value if isinstance(pop, gast.Expr) else None
        if call is None or syntax.annotation(call.func, "ref") is not runtime.restore_item:
            return pop
        container = call.args[0]
        if isinstance(container, gast.Name) and container.id in self.state:
            call.args.append(syntax.name(self.unit.namer.derivative(container.id)))
        return pop

    def _popped(self, stmt) -> List:
        """``v = xs.pop()``: ``dv`` goes back on ``dxs`` as its last entry, ``v`` back on ``xs``.

        ``dxs`` holds one entry per item of ``xs`` once defined (``zeros_like(xs)`` of the list as it is
        here), so the backward pass of each append takes the right one off.
        """
        target, array = stmt.targets[0].id, stmt.value.func.value.id
        code = []
        active = self.activity.is_active(syntax.name(target)) and target in self.state
        if self.activity.is_active(syntax.name(array)) and (active or array in self.state):
            adjoint = self.unit.namer.derivative(array)
            if array not in self.state:
                code.append(syntax.assign(adjoint, syntax.call(self.frame.helper("zeros_like"),
                                                               [syntax.name(array)])))
                self.state[array] = True
            code += self._make_owned(array)
            # the list gets its own copy: the code that follows may add to the adjoint's array in place
            entry = syntax.call(self.frame.helper("copied"), [
                self._filled(target) if target in self.placeholders
                else syntax.name(self.unit.namer.derivative(target))]) if active \
                else syntax.call(self.frame.helper("zeros_like"), [syntax.name(target)])
            code.append(_appended(adjoint, entry))
        self.state.pop(target, None)
        return code + [_appended(array, syntax.name(target))]

    def _hook(self, stmt) -> List:
        """``with insert_grad_of(x) as dx: body``: run ``body`` on x's adjoint as it stands here."""
        atom = stmt.value.args[0]
        as_name, body = syntax.annotation(stmt, HOOK)
        if not self.activity.is_active(atom):
            return []   # no derivative flows through x
        adjoint = self.unit.namer.derivative(atom.id)
        code = [] if atom.id in self.state else [
            syntax.assign(adjoint, syntax.call(self.frame.helper("zeros_like"), [syntax.clone(atom)]))]
        user = syntax.clone_list(body)
        if as_name is not None:
            user = [syntax.assign(as_name, syntax.name(adjoint))] + user + [
                syntax.assign(adjoint, syntax.name(as_name))]
        for line in user:
            syntax.annotate(line, "primal", True)   # the user's code: never rewritten
        self.state[atom.id] = False   # the block may have left an alias in the adjoint
        return code + user

    # one method per construct (mirrored in forward.py) -------------------------
    def _statement(self, stmt) -> List:
        target, value = stmt.targets[0].id, stmt.value
        output_adjoint = syntax.name(self.unit.namer.derivative(target))
        if not carries_derivative(value) or (is_static(value) and not isinstance(value, gast.Name)):
            return []
        self.aliased_from = {}
        if isinstance(value, gast.Name):
            return self._accumulate(value, output_adjoint)
        if isinstance(value, (gast.Tuple, gast.List)):
            return self._tuple(value, output_adjoint.id)
        if isinstance(value, gast.Dict):
            return self._tuple(value, output_adjoint.id)
        template_body = self.rules.rule_statements(stmt, syntax.name(target))
        return self._resolve(template_body, target)

    def _tuple(self, value, adjoint_name) -> List:
        """A tuple, list or dict literal: each element takes its entry of the container's adjoint."""
        keyed = (zip(value.keys, value.values) if isinstance(value, gast.Dict)
                 else ((syntax.constant(i), elt) for i, elt in enumerate(value.elts)))
        statements = []
        for key, element in keyed:
            read = gast.Subscript(value=syntax.name(adjoint_name), slice=syntax.clone(key), ctx=gast.Load())
            statements += self._accumulate(element, read)
        return statements

    def _store(self, stmt) -> List:
        """``A[i] = v``: ``v`` takes the adjoint of the overwritten elements, which then become zero."""
        target = stmt.targets[0]
        array = target_name(target)
        if array not in self.state or not self.activity.is_active(syntax.name(array)):
            return []
        adjoint = self.unit.namer.derivative(array)
        filled = [syntax.assign(adjoint, self._filled(array))] if array in self.placeholders else []
        element = gast.Subscript(value=syntax.name(adjoint), slice=syntax.clone(target.slice), ctx=gast.Load())
        copied = syntax.call(self.frame.helper("copied"), [element])   # a view would see the zeroing
        if not constant_index(target.slice, self.int_names):   # repeated indices: the last write is kept
            index = gast.Subscript(value=syntax.dotted(f"{self.frame.numpy}.s_"), slice=syntax.clone(target.slice),
                                   ctx=gast.Load())   # np.s_[:, rows, cols]: the index as a value
            copied = syntax.call(self.frame.helper("keep_last"), [copied, index, syntax.name(adjoint)])
        value = syntax.call(self.frame.helper("unbroadcast"), [copied, syntax.clone(stmt.value)])
        self.aliased_from = {}
        zero = gast.Subscript(value=syntax.name(adjoint), slice=syntax.clone(target.slice), ctx=gast.Store())
        zeroing = [gast.Assign(targets=[zero], value=syntax.constant(0.0), type_comment=None)]
        if isinstance(stmt.value, gast.Name) and stmt.value.id == array:
            # `A[i] = A`: take the elements' adjoint, zero them, then add it back to A's adjoint
            taken = self.unit.namer.fresh(f"d_{array}_part")
            return (filled + [syntax.assign(taken, value)] + self._make_owned(array) + zeroing
                    + self._accumulate(stmt.value, syntax.name(taken)))
        code = self._accumulate(stmt.value, value) if isinstance(stmt.value, gast.Name) else []
        return filled + code + self._make_owned(array) + zeroing

    def _if(self, stmt) -> List:
        touched = self._touched(stmt, stmt.body + stmt.orelse)
        pre = self._define(touched, stmt)
        entry = dict(self.state)
        arms, ends = [], []
        for arm in (stmt.body, stmt.orelse):
            self.state = dict(entry)
            code = self._backward(arm)
            code += self._reconcile(touched, entry, require_owned=False)
            arms.append(code)
            ends.append(self.state)
        self.state = dict(entry)
        for name in touched:
            self.state[name] = ends[0].get(name, False) and ends[1].get(name, False)
        return pre + [gast.If(test=stmt.test, body=arms[0] or [gast.Pass()], orelse=arms[1])]

    def _loop(self, loop) -> List:
        touched = self._touched(loop, loop.body)
        pre = self._define(touched, loop) + self._own_before_loop(touched, loop.body)
        entry = dict(self.state)
        body = self._backward(loop.body) + self._reconcile(touched, entry, require_owned=True)
        self.state = entry
        trips = self.trips.get(id(loop))
        if isinstance(loop, gast.While):
            counter = self.unit.namer.fresh("_")
            header = gast.For(target=syntax.store(counter), iter=syntax.call("range", [syntax.name(trips)]),
                              body=body or [gast.Pass()], orelse=[], type_comment=None)
        else:
            iterations = syntax.clone(loop.iter)
            if trips:
                iterations = gast.Subscript(value=iterations, slice=gast.Slice(
                    lower=None, upper=syntax.name(trips), step=None), ctx=gast.Load())
            header = gast.For(target=syntax.clone(loop.target), iter=syntax.call("reversed", [iterations]),
                              body=body or [gast.Pass()], orelse=[], type_comment=None)
        return pre + [header]


def _appended(list_name: str, value):
    """``list_name.append(value)``, marked as an append so that this code can be differentiated again."""
    call = syntax.call(syntax.dotted(f"{list_name}.append"), [value])
    syntax.annotate(call, "append", True)
    return syntax.expr_stmt(call)


def _container_names(body) -> set:
    """Names some statement binds to a tuple, list or dict: a literal, or what a call of a user's function or
    of a derivative gives (``value, tangent = dg(x, dz=dx)``)."""
    return {stmt.targets[0].id for stmt in syntax.iter_statements(body)
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
            and (isinstance(stmt.value, (gast.Tuple, gast.List, gast.Dict)) or is_user_call(stmt.value, REVERSE))}


_SAME_KIND = ("zeros_like", "copied", "add_at", "add_structures", "add_lists")   # give what their first argument is
_LIST_GIVING = tuple(helper.__name__ for helper in runtime.LIST_ADJOINTS)   # always give a list (``unconcatenate``)


def _structure_names(body, lists) -> set:
    """Names that hold dicts or lists: bound to a dict literal or to what a helper always giving a list gives
    (``unconcatenate``: ``runtime.LIST_ADJOINTS``), in ``lists``, or bound to one of those names or to what
    ``zeros_like``, ``copied``, ``add_at``, ``add_structures`` or ``add_lists`` give for one (the adjoints in a
    derivative srcad differentiates again).  ``+=`` cannot add their adjoints: it would join two lists."""
    names, derived = set(lists), []
    for stmt in syntax.iter_statements(body):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            continue
        value, target = stmt.value, stmt.targets[0].id
        if isinstance(value, gast.Dict) or isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
                and value.func.id in _LIST_GIVING:
            names.add(target)
        elif isinstance(value, gast.Name):
            derived.append((target, value.id))
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id in _SAME_KIND \
                and value.args and isinstance(value.args[0], gast.Name):
            derived.append((target, value.args[0].id))
    return closed_under(names, derived)
