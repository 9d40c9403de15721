"""Transformation: forward mode.  Replaces the tree with the Jacobian-vector product.

Contract: input is the A-normal, versioned tree with ``activity`` facts.
Output is ``def d<f>(<f's parameters>, d<p> for each wrt parameter p)`` that
runs each primal statement followed at once by its tangent statements (under
a comment quoting the user's line) and returns the tangent of the output
(a tuple of tangents for a tuple output).  With the option
``with_value=True`` it returns ``(output, output_tangent)`` instead.

Tangents follow the naming convention of adjoints: ``dx`` is the tangent of
``x``.  Only active variables get a tangent (activity analysis); ``d[v]`` of
an inactive ``v`` is a symbolic zero that is pruned from the rule's
expression, which is valid because a tangent rule is linear in its ``d[...]``
terms.  A tangent that prunes to zero makes its variable's tangent zero too.

Symmetry with ``reverse``: both walk the body with one method per construct,
in the same order (atom copy, tuple, rule); add a construct to both.

Example: for ``def f(x): return np.sum(np.sin(x))`` the body reads
``sin_x = np.sin(x)``, ``dsin_x = dx * np.cos(x)``, ``out = np.sum(sin_x)``,
``dout = np.sum(dsin_x)``, ``return dout``.
"""
from __future__ import annotations

from typing import List, Optional, Set

import gast

from ..errors import SrcadError
from ..frontend import syntax
from ..templates import FORWARD
from .activity import carries_derivative
from .attempts import ALONE
from .grad_hooks import HOOK
from ..analysis.blocks import (array_names, definitely_bound, is_append, is_pop, is_store, loop_carried,
                               target_name)
from .derivatives import Differentiator, is_derivative_ref, with_comments
from .calls import active_arguments, forward_statement, is_user_call
from .frame import Frame, announced, split_output, split_return, with_extras
from ..analysis.expressions import is_fresh
from .normalize import is_static
from . import Transformation


class ForwardMode(Transformation):
    """Build the Jacobian-vector-product function of the normalized tree."""

    name = "forward"

    def transform(self, unit):
        self.unit = unit
        self.frame = Frame(unit)
        self.activity = unit.facts["activity"]
        self.rules = Differentiator(unit, FORWARD)
        self.zero: Set[str] = set()          # active names whose tangent is statically zero here
        self.materialized: Set[str] = set()  # names whose tangent variable must always hold its value
        self.defined: Set[str] = set(unit.wrt)
        self.owned: Set[str] = set()         # tangents holding arrays only we hold
        tree = unit.tree
        body, returned = split_return(unit, tree.body)
        returned, aux = split_output(unit, returned)
        self.arrays = array_names(body)
        copies = self.frame.copy_stored_parameters(body)
        copies += [syntax.assign(self.unit.namer.derivative(s.targets[0].id),
                                 syntax.call(self.frame.helper("copied"),
                                             [syntax.name(self.unit.namer.derivative(s.targets[0].id))]))
                   for s in copies if s.targets[0].id in unit.wrt]
        with announced(unit, [self.unit.namer.derivative(p) for p in unit.wrt]):   # recursion: see frame.py
            new_body = copies + self._block(body, set(self.frame.parameters) | set(unit.wrt))
        new_body.append(gast.Return(value=with_extras(unit, self._return(returned).value, returned, aux)))
        unit.tree = self.frame.forward_signature(tree, new_body)
        unit.facts["forward"] = {"tangents": [self.unit.namer.derivative(p) for p in unit.wrt]}
        return True

    # blocks --------------------------------------------------------------------
    def _block(self, block, bound) -> List:
        groups, bound = [], set(bound)
        for stmt in block:
            groups.append((stmt.lineno, self._construct(stmt, bound)))
            bound = definitely_bound([stmt], bound)
        return with_comments(self.unit, groups)

    def _construct(self, stmt, bound) -> List:
        if syntax.annotation(stmt, HOOK) is not None:
            return []   # gradient hooks act in the backward pass only
        if is_store(stmt):
            return self._store(stmt)
        if isinstance(stmt, (gast.Assign, gast.Expr, gast.Assert)):
            syntax.annotate(stmt, "primal", True)
        if is_pop(stmt):
            return [stmt] + self._popped(stmt)
        if isinstance(stmt, gast.Assign):
            if (self.activity.is_active(stmt.targets[0]) and is_user_call(stmt.value, FORWARD)
                    and active_arguments(stmt.value, self.activity) == ([], [])):
                return [stmt] + self._statement_of_constant(stmt.targets[0].id)   # no tangent flows in
            if self.activity.is_active(stmt.targets[0]) and is_user_call(stmt.value, FORWARD):
                self.defined.add(stmt.targets[0].id)
                self.zero.discard(stmt.targets[0].id)
                self.owned.discard(stmt.targets[0].id)
                pair = forward_statement(self.unit, stmt, self.activity, self._tangent_of)
                if not syntax.annotation(stmt, ALONE):
                    return [pair]
                alone = syntax.expr_stmt(syntax.clone(stmt.value))   # in a try: f's call alone, in the real try
                syntax.annotate(alone, "primal", True)
                return [syntax.set_location(alone, stmt.lineno), pair]
            tangent = self._statement(stmt) if self.activity.is_active(stmt.targets[0]) else []
            target = stmt.targets[0].id
            if target in bound and tangent and not any(target in syntax.loaded_names(t) for t in tangent):
                return tangent + [stmt]   # an update `x = a * b`: the tangent first, while x is still the old x
            return [stmt] + tangent
        if is_append(stmt):
            array = stmt.value.func.value.id
            if not self.activity.is_active(syntax.name(array)):
                return [stmt]
            element = stmt.value.args[0]
            tangent = self._read(element) or syntax.call(self.frame.helper("zeros_like"), [syntax.clone(element)])
            appended = syntax.call(syntax.dotted(f"{self.unit.namer.derivative(array)}.append"), [tangent])
            syntax.annotate(appended, "append", True)
            code = []
            if array in self.zero or not self._has_tangent(array):   # every item's tangent was zero so far
                code.append(self._zeros(array))
                self.zero.discard(array)
                self.defined.add(array)
            return code + [stmt, syntax.expr_stmt(appended)]
        if isinstance(stmt, gast.If):
            return self._if(stmt, bound)
        if isinstance(stmt, (gast.For, gast.While)):
            return self._loop(stmt, bound)
        return [stmt]

    def _if(self, stmt, bound) -> List:
        pre = self._materialize(stmt, bound)
        entry, entry_owned = set(self.zero), set(self.owned)
        arms, ends, owned = [], [], []
        for arm in (stmt.body, stmt.orelse):
            self.zero, self.owned = set(entry), set(entry_owned)   # a copy made in one arm is not made in the other
            arms.append(self._block(arm, bound))
            ends.append(self.zero)
            owned.append(self.owned)
        self.owned = owned[0] & owned[1]
        for index, other in ((0, 1), (1, 0)):   # a tangent zero on one path only is written out
            for name in sorted(ends[index] - ends[other]):
                if name in syntax.stored_names(gast.Module(body=stmt.body + stmt.orelse, type_ignores=[])):
                    arm = arms[index]   # before a closing break or continue, where it still runs
                    end = len(arm) - 1 if arm and isinstance(arm[-1], (gast.Break, gast.Continue)) else len(arm)
                    arm.insert(end, self._zeros(name))
        self.zero = ends[0] & ends[1]
        return pre + [gast.If(test=stmt.test, body=arms[0] or [gast.Pass()], orelse=arms[1])]

    def _loop(self, loop, bound) -> List:
        pre = self._materialize(loop, bound)
        for name in sorted(loop_carried(loop) - bound):   # first bound in the loop, or on some paths before it:
            if self.activity.is_active(syntax.name(name)):   # a later pass reads the earlier one's tangent
                self.materialized.add(name)
        entry, entry_owned = set(self.zero), set(self.owned)
        body = self._block(loop.body, bound)
        self.zero = entry & self.zero
        self.owned = entry_owned & self.owned   # the body may not run
        if isinstance(loop, gast.For):
            return pre + [gast.For(target=loop.target, iter=loop.iter, body=body or [gast.Pass()], orelse=[],
                                   type_comment=None)]
        return pre + [gast.While(test=loop.test, body=body or [gast.Pass()], orelse=[])]

    @staticmethod
    def _written(stmt) -> Set[str]:
        """The names the compound ``stmt`` assigns, and the lists it appends to or pops from."""
        written = {target_name(s.targets[0]) for s in syntax.iter_statements(stmt.body + stmt.orelse)
                   if isinstance(s, gast.Assign)}
        return written | {s.value.func.value.id for s in syntax.iter_statements(stmt.body + stmt.orelse)
                          if is_append(s) or is_pop(s)}

    def _materialize(self, stmt, bound) -> List:
        """Give a real tangent variable to every active name the compound writes and that exists before it."""
        code = []
        for name in sorted(self._written(stmt) & bound):
            if self.activity.is_active(syntax.name(name)):
                if name in self.zero or not self._has_tangent(name):   # zero so far: give it a variable
                    code.append(self._zeros(name))
                    self.zero.discard(name)
                self.materialized.add(name)
        return code

    def _zeros(self, name):
        self.owned.add(name)
        return syntax.assign(self.unit.namer.derivative(name),
                             syntax.call(self.frame.helper("zeros_like"), [syntax.name(name)]))

    def _store(self, stmt) -> List:
        """``A[i] = v``: the tangent of ``A`` takes ``v``'s tangent at ``i``."""
        syntax.annotate(stmt, "primal", True)
        array = target_name(stmt.targets[0])
        if not self.activity.is_active(syntax.name(array)):
            return [stmt]
        code = []
        if array in self.zero or not self._has_tangent(array):
            code.append(self._zeros(array))
            self.zero.discard(array)
            self.defined.add(array)
        elif array not in self.owned:   # never write into an array the caller or another tangent holds
            adjoint = self.unit.namer.derivative(array)
            code.append(syntax.assign(adjoint, syntax.call(self.frame.helper("copied"), [syntax.name(adjoint)])))
            self.owned.add(array)
        value = self._read(stmt.value) if isinstance(stmt.value, gast.Name) else None
        target = gast.Subscript(value=syntax.name(self.unit.namer.derivative(array)),
                                slice=syntax.clone(stmt.targets[0].slice), ctx=gast.Store())
        if value is None:   # a zero tangent: 0.0 fills array elements; a list or dict entry gets a zero like it
            value = syntax.constant(0.0) if array in self.arrays or not isinstance(stmt.value, gast.Name) \
                else syntax.call(self.frame.helper("zeros_like"), [syntax.clone(stmt.value)])
        tangent = gast.Assign(targets=[target], value=value, type_comment=None)
        return code + [stmt, tangent]

    def _popped(self, stmt) -> List:
        """``v = xs.pop()``: the tangent of ``v`` is the last entry of ``dxs``, taken off with it."""
        target, array = stmt.targets[0].id, stmt.value.func.value.id
        tangents = self._read(syntax.name(array))
        if tangents is None:   # the list holds no tangents: v's is zero
            return self._statement_of_constant(target)
        popped = syntax.call(syntax.dotted(f"{tangents.id}.pop"))
        syntax.annotate(popped, "pop", True)
        if not self.activity.is_active(stmt.targets[0]):
            return [syntax.expr_stmt(popped)]
        return self._define(target, popped)

    def _has_tangent(self, name) -> bool:
        return name in self.unit.wrt or name in self.materialized or name in self.defined

    # the function's frame -------------------------------------------------
    def _return(self, value):
        if isinstance(value, gast.Tuple):
            tangent = gast.Tuple(elts=[self._tangent_of(elt) for elt in value.elts], ctx=gast.Load())
        else:
            tangent = self._tangent_of(value)
        return gast.Return(value=tangent)

    def _tangent_of(self, atom):
        if self.activity.is_active(atom) and atom.id not in self.zero and self._has_tangent(atom.id):
            return syntax.name(self.unit.namer.derivative(atom.id))
        return syntax.call(self.frame.helper("zeros_like"), [syntax.clone(atom)])

    # one method per construct (mirrored in reverse.py) ---------------------
    def _statement(self, stmt) -> List:
        target, value = stmt.targets[0].id, stmt.value
        if not carries_derivative(value) or (is_static(value) and not isinstance(value, gast.Name)):
            return self._statement_of_constant(target)
        if isinstance(value, gast.Name):
            return self._define(target, self._read(value))
        if isinstance(value, (gast.Tuple, gast.List, gast.Dict)):
            return self._tuple(target, value)
        template_body = self.rules.rule_statements(stmt, syntax.name(target))
        return self._resolve(template_body, target)

    def _statement_of_constant(self, target) -> List:
        """``target`` now holds a value with no derivative: its tangent is zero."""
        if target in self.materialized:   # inside a branch or loop the variable must say zero itself
            return [self._zeros(target)]
        self.zero.add(target)
        return []

    def _tuple(self, target, value) -> List:
        """A tuple, list or dict literal: its tangent holds the elements' tangents."""
        elements = value.values if isinstance(value, gast.Dict) else value.elts
        tangents = [self._read(elt) or syntax.call(self.frame.helper("zeros_like"), [syntax.clone(elt)])
                    for elt in elements]
        if isinstance(value, gast.Dict):
            return self._define(target, gast.Dict(keys=[syntax.clone(k) for k in value.keys], values=tangents))
        return self._define(target, type(value)(elts=tangents, ctx=gast.Load()))

    # resolving d[...] ------------------------------------------------------
    def _resolve(self, template_body, target) -> List:
        statements = []
        for stmt in template_body:
            if isinstance(stmt, gast.Assign) and is_derivative_ref(stmt.targets[0]):
                statements += self._define(target, _prune(self._substitute(stmt.value)))
            else:
                pruned = _prune(self._substitute(stmt.value)) if isinstance(stmt, gast.Assign) else stmt
                if pruned is not None:
                    stmt.value = pruned
                    statements.append(stmt)
        return statements

    def _read(self, atom) -> Optional[gast.AST]:
        """The tangent of ``atom``, or None when it is zero."""
        if self.activity.is_active(atom) and atom.id not in self.zero and self._has_tangent(atom.id):
            return syntax.name(self.unit.namer.derivative(atom.id))
        return None

    def _substitute(self, node):
        forward = self

        class ReadTangents(gast.NodeTransformer):
            def visit_Subscript(self, sub):
                self.generic_visit(sub)
                if not is_derivative_ref(sub):
                    return sub
                return forward._read(sub.slice) or _ZERO()

        return ReadTangents().visit(node)

    def _define(self, target, value) -> List:
        if value is None:
            if target in self.materialized:
                return [self._zeros(target)]
            self.zero.add(target)
            return []
        self.zero.discard(target)
        self.defined.add(target)
        if is_fresh(value, self.unit.bindings.objects):
            self.owned.add(target)
        else:   # it may be (a view of) a tangent it reads: a store into either must copy first
            self.owned.discard(target)
            read = _maybe_aliased(value)
            self.owned -= {name for name in self.owned if self.unit.namer.derivative(name) in read}
        return [syntax.assign(self.unit.namer.derivative(target), value)]


def _maybe_aliased(value) -> Set[str]:
    """Tangents ``value`` may be the very array of when its primal is a new array: a bare tangent, or one
    passed through ``broadcast_like`` (a view's tangent, ``dA[i]``, is a view as its primal is)."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, gast.Call) and value.args and getattr(value.func, "id", "") == "broadcast_like":
        return _maybe_aliased(value.args[0])
    return set()


class _ZERO(gast.Name):
    """A symbolic zero tangent while a rule's expression is pruned."""

    def __init__(self):
        super().__init__(id="__zero__", ctx=gast.Load(), annotation=None, type_comment=None)


_SUMS = ("add_structures", "add_lists")   # runtime helpers adding two derivatives leaf by leaf


def _prune(node):
    """``node`` with zero terms removed (rules are linear in tangents), or None if it is zero.

    ``add_structures(a, b)`` and ``add_lists(a, b)``, sums of two derivatives of one list or dict, are sums
    like ``a + b``: a zero term drops out, not the whole call.
    """
    if isinstance(node, _ZERO):
        return None
    if isinstance(node, gast.BinOp):
        left, right = _prune(node.left), _prune(node.right)
        if isinstance(node.op, gast.Add):
            if left is None or right is None:
                return left if right is None else right
        elif isinstance(node.op, gast.Sub):
            if right is None:
                return left
            if left is None:
                return gast.UnaryOp(op=gast.USub(), operand=right)
        elif left is None or right is None:  # *, /, @: a product with a zero factor
            return None
        node.left, node.right = left, right
        return node
    for node_type, field in ((gast.UnaryOp, "operand"), (gast.Subscript, "value")):
        if isinstance(node, node_type):   # -t, t[i]: zero exactly when t is
            child = _prune(getattr(node, field))
            if child is None:
                return None
            setattr(node, field, child)
            return node
    if isinstance(node, gast.Call) and getattr(node.func, "id", "") in _SUMS and len(node.args) == 2:
        total, more = _prune(node.args[0]), _prune(node.args[1])   # a sum, leaf by leaf: zero terms drop out
        if total is None or more is None:
            return total if more is None else more
        node.args = [total, more]
        return node
    if isinstance(node, gast.Call):
        args = [_prune(arg) for arg in node.args]
        keywords = [(kw, _prune(kw.value)) for kw in node.keywords]
        if any(arg is None for arg in args) or any(value is None for _, value in keywords):
            return None
        node.args = args
        for kw, value in keywords:
            kw.value = value
        return node
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [_prune(elt) for elt in node.elts]
        if any(elt is None for elt in node.elts):
            raise SrcadError("a tangent rule builds a tuple holding a zero tangent; "
                             "write the rule with zeros_like for that element")
        return node
    return node
