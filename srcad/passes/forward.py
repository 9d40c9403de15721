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
from .. import runtime, syntax
from ..templates import FORWARD
from .activity import carries_derivative
from .derivatives import Differentiator, is_derivative_ref, with_comments
from .normalize import is_static
from . import Transformation


class ForwardMode(Transformation):
    """Build the Jacobian-vector-product function of the normalized tree."""

    name = "forward"

    def transform(self, unit):
        self.unit = unit
        self.activity = unit.facts["activity"]
        self.rules = Differentiator(unit, FORWARD)
        self.zero: Set[str] = set()   # active names whose tangent pruned to zero
        tree = unit.tree
        groups = []
        returned = None
        for stmt in tree.body:
            if isinstance(stmt, gast.Return):
                returned = stmt
                break
            tangent = []
            if isinstance(stmt, gast.Assign) and self.activity.is_active(stmt.targets[0]):
                tangent = self._statement(stmt)
            groups.append((stmt.lineno, [stmt] + tangent))
        if returned is None:
            raise unit.error(tree, SrcadError, f"{tree.name} returns nothing", "return the value to differentiate")
        if any(isinstance(s, gast.Return) for s in tree.body[tree.body.index(returned) + 1:]):
            raise unit.error(returned, SrcadError, "an early return", "return once, at the end of the function")
        body = with_comments(unit, groups) + [self._return(returned.value)]
        unit.tree = self._signature(tree, body)
        unit.facts["forward"] = {"tangents": [self.unit.namer.derivative(p) for p in unit.wrt]}
        return True

    # the function's frame -------------------------------------------------
    def _signature(self, tree, body):
        args = syntax.clone(tree.args)
        args.defaults = []
        for param in self.unit.wrt:
            args.args.append(syntax.name(self.unit.namer.derivative(param), gast.Param()))
        name = self.unit.namer.fresh("d" + tree.name)
        return gast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                                type_comment=None, type_params=[])

    def _return(self, value):
        if isinstance(value, gast.Tuple):
            tangent = gast.Tuple(elts=[self._tangent_of(elt) for elt in value.elts], ctx=gast.Load())
        else:
            tangent = self._tangent_of(value)
        if self.unit.options.get("with_value"):
            tangent = gast.Tuple(elts=[syntax.clone(value), tangent], ctx=gast.Load())
        return gast.Return(value=tangent)

    def _tangent_of(self, atom):
        if self.activity.is_active(atom) and atom.id not in self.zero:
            return syntax.name(self.unit.namer.derivative(atom.id))
        return syntax.call(self._helper("zeros_like"), [syntax.clone(atom)])

    def _helper(self, helper_name):
        return syntax.name(self.unit.bindings.bind(helper_name, getattr(runtime, helper_name)))

    # one method per construct (mirrored in reverse.py) ---------------------
    def _statement(self, stmt) -> List:
        target, value = stmt.targets[0].id, stmt.value
        if not carries_derivative(value) or (is_static(value) and not isinstance(value, gast.Name)):
            self.zero.add(target)
            return []
        if isinstance(value, gast.Name):
            return self._define(target, self._read(value))
        if isinstance(value, (gast.Tuple, gast.List)):
            return self._tuple(target, value)
        template_body = self.rules.rule_statements(stmt, syntax.name(target))
        return self._resolve(template_body, target)

    def _tuple(self, target, value) -> List:
        elements = [self._read(elt) or syntax.call(self._helper("zeros_like"), [syntax.clone(elt)])
                    for elt in value.elts]
        return self._define(target, type(value)(elts=elements, ctx=gast.Load()))

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
        if self.activity.is_active(atom) and atom.id not in self.zero:
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
            self.zero.add(target)
            return []
        return [syntax.assign(self.unit.namer.derivative(target), value)]


class _ZERO(gast.Name):
    """A symbolic zero tangent while a rule's expression is pruned."""

    def __init__(self):
        super().__init__(id="__zero__", ctx=gast.Load(), annotation=None, type_comment=None)


def _prune(node):
    """``node`` with zero terms removed (rules are linear in tangents), or None if it is zero."""
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
    if isinstance(node, gast.UnaryOp):
        operand = _prune(node.operand)
        if operand is None:
            return None
        node.operand = operand
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
    if isinstance(node, gast.Subscript):
        value = _prune(node.value)
        if value is None:
            return None
        node.value = value
        return node
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [_prune(elt) for elt in node.elts]
        if any(elt is None for elt in node.elts):
            raise SrcadError("a tangent rule builds a tuple holding a zero tangent; "
                             "write the rule with zeros_like for that element")
        return node
    return node
