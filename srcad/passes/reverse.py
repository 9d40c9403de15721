"""Transformation: reverse mode.  Replaces the tree with the derivative function.

Contract: input is the A-normal, versioned tree with ``activity`` facts.
Output is ``def d<f>(<f's parameters>, <seed>=1.0)`` that
1. runs the primal statements (cleanup later drops those nothing reads),
2. checks the seed against the output with ``check_seed``,
3. runs the adjoint statements in reverse order, each block under a comment
   quoting the user's line, and
4. returns the adjoint of each ``wrt`` parameter (a tuple when several).
The seed is named ``d<name>`` when f returns a variable and ``dout`` when it
returns an expression; adjoints follow the same convention (``dx`` for ``x``).

Accumulation.  The first contribution to ``dx`` is assigned (``dx = e``);
later ones are added.  Adding is in place (``dx += e``) only when ``dx`` holds
an array the derivative itself created (the result of arithmetic or of
``zeros_like``); otherwise ``dx = dx + e``, so no array the caller passed in,
and no view of one, is ever written.  ``d[x][i] = e`` (indexed reads) becomes
``dx[i] += e`` when the index is built from constants and slices, and
``add_at(dx, i, e)`` (which also adds repeated fancy indices) otherwise.

Symmetry with ``forward``: both walk the body with one method per construct,
in the same order (atom copy, tuple, rule); add a construct to both.

Example: for ``def f(x): return np.sum(np.sin(x))`` the adjoint block reads
``dsin_x = unreduce(dout, sin_x, None, False)`` then ``dx = dsin_x * np.cos(x)``.
"""
from __future__ import annotations

from typing import Dict, List

import gast
import numpy as np

from ..errors import SrcadError, UnsupportedSyntaxError
from .. import runtime, syntax
from ..templates import REVERSE
from .activity import carries_derivative
from .derivatives import Differentiator, is_derivative_ref, with_comments
from .normalize import is_static
from . import Transformation

_FRESH_VALUES = (gast.BinOp, gast.UnaryOp)


class ReverseMode(Transformation):
    """Build the vector-Jacobian-product function of the normalized tree."""

    name = "reverse"

    def transform(self, unit):
        self.unit = unit
        self.activity = unit.facts["activity"]
        self.rules = Differentiator(unit, REVERSE)
        self.owned: Dict[str, bool] = {}      # adjoint defined so far -> created by us?
        tree = unit.tree
        body, returned = _split_return(unit, tree.body)
        seed = self._seed_name(returned)
        for name in syntax.loaded_names(returned) if isinstance(returned, gast.Name) else ():
            self.owned[name] = False
        adjoint_groups = []
        if isinstance(returned, gast.Tuple):
            adjoint_groups.append((returned.lineno, self._tuple(returned, seed)))
        for stmt in reversed(body):
            if isinstance(stmt, gast.Assign) and self.activity.is_active(stmt.targets[0]):
                adjoint_groups.append((stmt.lineno, self._statement(stmt)))
        primal_groups = [(stmt.lineno, [stmt]) for stmt in body]
        check = syntax.expr_stmt(syntax.call(self._helper("check_seed"), [syntax.clone(returned),
                                                                           syntax.name(seed)]))
        new_body = (with_comments(unit, primal_groups) + [check]
                    + with_comments(unit, adjoint_groups) + [self._gradients()])
        unit.tree = self._signature(tree, seed, new_body, scalar=not isinstance(returned, gast.Tuple))
        unit.facts["reverse"] = {"seed": seed}
        return True

    # the function's frame -------------------------------------------------
    def _seed_name(self, returned) -> str:
        if isinstance(returned, gast.Name):
            return self.unit.namer.derivative(returned.id)
        return self.unit.namer.fresh("dout")

    def _signature(self, tree, seed, body, scalar):
        args = syntax.clone(tree.args)
        args.args.append(syntax.name(seed, gast.Param()))
        if scalar:
            args.defaults = list(args.defaults) + [syntax.constant(1.0)]
        elif args.defaults:
            args.defaults = list(args.defaults) + [syntax.constant(None)]
        name = self.unit.namer.fresh("d" + tree.name)
        return gast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                                type_comment=None, type_params=[])

    def _gradients(self):
        values = []
        for param in self.unit.wrt:
            if param not in self.owned:
                values.append(syntax.call(self._helper("zeros_like"), [syntax.name(param)]))
            elif self.owned[param]:
                values.append(syntax.name(self.unit.namer.derivative(param)))
            else:  # a view or alias: never hand the caller a read-only broadcast
                values.append(syntax.call(self._helper("writable"),
                                          [syntax.name(self.unit.namer.derivative(param))]))
        if len(values) == 1 and not self.unit.options.get("tuple_result"):
            return gast.Return(value=values[0])
        return gast.Return(value=gast.Tuple(elts=values, ctx=gast.Load()))

    def _helper(self, helper_name):
        return syntax.name(self.unit.bindings.bind(helper_name, getattr(runtime, helper_name)))

    # one method per construct (mirrored in forward.py) ---------------------
    def _statement(self, stmt) -> List:
        target, value = stmt.targets[0].id, stmt.value
        output_adjoint = syntax.name(self.unit.namer.derivative(target))
        if not carries_derivative(value) or (is_static(value) and not isinstance(value, gast.Name)):
            return []
        if isinstance(value, gast.Name):
            return self._accumulate(value, output_adjoint)
        if isinstance(value, (gast.Tuple, gast.List)):
            return self._tuple(value, output_adjoint.id)
        template_body = self.rules.rule_statements(stmt, syntax.name(target))
        return self._resolve(template_body, target)

    def _tuple(self, value, adjoint_name) -> List:
        statements = []
        for index, element in enumerate(value.elts):
            read = gast.Subscript(value=syntax.name(adjoint_name), slice=syntax.constant(index),
                                  ctx=gast.Load())
            statements += self._accumulate(element, read)
        return statements

    # resolving d[...] ------------------------------------------------------
    def _resolve(self, template_body, target) -> List:
        statements = []
        for stmt in template_body:
            if isinstance(stmt, gast.Assign) and is_derivative_ref(stmt.targets[0]):
                statements += self._accumulate(stmt.targets[0].slice, self._reads(stmt.value, target))
            elif (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)
                  and is_derivative_ref(stmt.targets[0].value)):
                ref = stmt.targets[0]
                statements += self._accumulate_at(ref.value.slice, ref.slice,
                                                  self._reads(stmt.value, target))
            else:
                statements.append(self._reads(stmt, target))
        return statements

    def _reads(self, node, target):
        """Replace ``d[v]`` reads in ``node`` by adjoint names (zero for inactive ``v``)."""
        unit, owned = self.unit, self.owned

        class ReadAdjoints(gast.NodeTransformer):
            def visit_Subscript(self, sub):
                self.generic_visit(sub)
                if not is_derivative_ref(sub):
                    return sub
                atom = sub.slice
                if isinstance(atom, gast.Name) and (atom.id == target or atom.id in owned):
                    return syntax.name(unit.namer.derivative(atom.id))
                return syntax.constant(0.0)

        return ReadAdjoints().visit(node)

    def _accumulate(self, atom, value) -> List:
        if not self.activity.is_active(atom):
            return []
        name = atom.id
        adjoint = self.unit.namer.derivative(name)
        if name not in self.owned:
            self.owned[name] = _is_fresh(value)
            return [syntax.assign(adjoint, value)]
        if self.owned[name]:
            return [gast.AugAssign(target=syntax.store(adjoint), op=gast.Add(), value=value)]
        self.owned[name] = True
        return [syntax.assign(adjoint, gast.BinOp(left=syntax.name(adjoint), op=gast.Add(), right=value))]

    def _accumulate_at(self, atom, index, value) -> List:
        if not self.activity.is_active(atom):
            return []
        name = atom.id
        adjoint = self.unit.namer.derivative(name)
        statements = []
        if name not in self.owned:
            statements.append(syntax.assign(adjoint, syntax.call(self._helper("zeros_like"), [atom])))
        elif not self.owned[name]:
            numpy_name = self.unit.bindings.bind("np", np)
            statements.append(syntax.assign(adjoint, syntax.call(f"{numpy_name}.copy",
                                                                 [syntax.name(adjoint)])))
        self.owned[name] = True
        if _constant_index(index):
            target = gast.Subscript(value=syntax.name(adjoint), slice=index, ctx=gast.Store())
            statements.append(gast.AugAssign(target=target, op=gast.Add(), value=value))
        else:
            statements.append(syntax.expr_stmt(
                syntax.call(self._helper("add_at"), [syntax.name(adjoint), index, value])))
        return statements


def _is_fresh(value) -> bool:
    """Whether ``value`` is certainly a new array (or an immutable scalar) nobody else holds."""
    if isinstance(value, _FRESH_VALUES):
        return True
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.args:
        return value.func.id.startswith("unbroadcast") and _is_fresh(value.args[0])
    return False


def _constant_index(index) -> bool:
    """An index made of constants, slices, ``None`` and ``...``: never fancy indexing."""
    if isinstance(index, gast.Constant):
        return index.value is None or index.value is Ellipsis or isinstance(index.value, int)
    if isinstance(index, gast.Slice):
        return True
    if isinstance(index, gast.Tuple):
        return all(_constant_index(elt) for elt in index.elts)
    if isinstance(index, gast.UnaryOp) and isinstance(index.operand, gast.Constant):
        return isinstance(index.operand.value, int)
    return False


def _split_return(unit, body):
    returns = [i for i, stmt in enumerate(body) if isinstance(stmt, gast.Return)]
    if not returns:
        raise unit.error(unit.tree, SrcadError, f"{unit.tree.name} returns nothing",
                         "return the value to differentiate")
    if returns != [len(body) - 1]:
        raise unit.error(body[returns[0]], UnsupportedSyntaxError, "an early return",
                         "return once, at the end of the function")
    returned = body[-1].value
    returned.lineno = body[-1].lineno
    return body[:-1], returned
