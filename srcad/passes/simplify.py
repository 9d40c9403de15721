"""Transformation: algebraic simplification of generated straight-line code.

Contract: rewrites expressions to equal, simpler ones and says whether it
changed anything:
- arithmetic on two number constants is folded (``2 * 3.0`` becomes ``6.0``),
  and the constants of a product are multiplied once (``100.0 * e * 2 * t``
  becomes ``200.0 * e * t``);
- ``e ** 1``, ``e * 1``, ``1 * e``, ``e / 1``, ``e + 0``, ``0 + e``, ``e - 0``
  become ``e``, and ``-(-e)`` becomes ``e``;
- a negation under a sum moves into its operator: ``a + -b`` and
  ``a + b * -c`` become ``a - b`` and ``a - b * c``, and ``-a + b`` becomes
  ``b - a``, ``x += -e`` becomes ``x -= e``, and ``-unbroadcast(-e, x)``
  becomes ``unbroadcast(e, x)`` (all exact in IEEE arithmetic);
- a sum of two like terms becomes one term doubled: ``e * d + d * e`` and
  ``unbroadcast(e * d, x) + unbroadcast(d * e, x)`` become ``2 * (e * d)`` and
  ``2 * unbroadcast(e * d, x)`` (``t + t`` and ``2 * t`` round alike, and ``2``
  keeps an int an int and a float32 a float32);
- ``unbroadcast(e, x)`` and ``broadcast_like(e, x)`` become ``e`` where ``e``
  provably has ``x``'s shape (see ``shapes.ShapeTable``), and ``unreduce(g, p)``
  becomes ``g`` in a product or quotient with an operand of ``p``'s shape;
- the gradient helpers of ``@`` and ``np.dot`` become the expression for the
  operands' ranks when they are known (``product_gradients``).
It never changes what a statement computes, only how, and it never touches
the user's own (primal) statements: ``y = x * 1.0`` must stay a new array.

Example: ``dy = unbroadcast(dz * 2 * y ** 1, y)`` becomes ``dy = dz * 2 * y``.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Dict

import gast
import numpy as np

from .. import runtime
from ..frontend import syntax
from ..frontend.syntax import annotate, annotation, is_check
from ..analysis.blocks import SCALAR_ELEMENT, MemorySharing
from .frame import PAIR
from ..analysis.expressions import callee_object, is_fresh, range_indices, same_value
from ..analysis.shapes import ELEMENTWISE, SCALAR, ShapeTable
from . import Transformation
from .product_gradients import written_out


def _is_number(node, value) -> bool:
    return (isinstance(node, gast.Constant) and not isinstance(node.value, bool)
            and isinstance(node.value, (int, float)) and node.value == value)


_LINEAR_HELPERS = (runtime.unbroadcast, runtime.unreduce, runtime.broadcast_like)


_FOLDABLE = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b, gast.Mult: lambda a, b: a * b,
             gast.Div: lambda a, b: a / b}


def _number(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    return None


def _fold(node):
    """``2 * 3.0`` -> ``6.0``: arithmetic on two number constants, when exact and finite."""
    left, right = _number(node.left), _number(node.right)
    operation = _FOLDABLE.get(type(node.op))
    if left is None or right is None or operation is None or (isinstance(node.op, gast.Div) and right == 0):
        return None
    value = operation(left, right)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    folded = syntax.constant(abs(value))
    return gast.UnaryOp(op=gast.USub(), operand=folded) if value < 0 else folded


def _factors(node):
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _gather_constants(node):
    """``100.0 * e * 2 * t`` -> ``200.0 * e * t``: the number constants of a product multiplied once."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)):
        return None
    factors = _factors(node)
    numbers = [_number(f) for f in factors]
    if sum(n is not None for n in numbers) < 2:
        return None
    product = math.prod(n for n in numbers if n is not None)
    rest = [f for f, n in zip(factors, numbers) if n is None]
    if not rest or not math.isfinite(product):
        return None
    constant = syntax.constant(abs(product))
    result = constant if product >= 0 else gast.UnaryOp(op=gast.USub(), operand=constant)
    if product == 1:
        result = rest.pop(0)
    for factor in rest:
        result = gast.BinOp(left=result, op=gast.Mult(), right=factor)
    return result


def _operands(node):
    """The operands of a tree of ``*`` and ``/``."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        return _operands(node.left) + _operands(node.right)
    return [node]


def _is_negation(node) -> bool:
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)


def without_negation(node, objects=None):
    """The positive form of a negative expression, or None: ``e`` for ``-e``, ``a * e`` for
    ``a * -e`` (through products and quotients), ``unbroadcast(e, x)`` for
    ``unbroadcast(-e, x)`` (the broadcast helpers are linear), and ``e[i]`` for ``(-e)[i]``."""
    if _is_negation(node):
        return node.operand
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
        left = without_negation(node.left, objects)
        if left is not None:
            return gast.BinOp(left=left, op=node.op, right=node.right)
        right = without_negation(node.right, objects)
        if right is not None:
            return gast.BinOp(left=node.left, op=node.op, right=right)
    if (objects is not None and isinstance(node, gast.Call) and node.args
            and any(callee_object(node.func, objects) is f for f in _LINEAR_HELPERS)):
        first = without_negation(node.args[0], objects)
        if first is not None:
            return gast.Call(func=node.func, args=[first] + node.args[1:], keywords=node.keywords)
    if isinstance(node, gast.Subscript):   # (-e)[i] is -(e[i])
        value = without_negation(node.value, objects)
        if value is not None:
            return gast.Subscript(value=value, slice=node.slice, ctx=node.ctx)
    return None


class _Rewrite(gast.NodeTransformer):
    def __init__(self, shapes: ShapeTable):
        self.shapes = shapes
        self.changed = False

    def visit(self, node):
        if annotation(node, "primal"):   # the user's own computation is never rewritten
            return node
        return super().visit(node)

    def _replace(self, node):
        self.changed = True
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right, op = node.left, node.right, node.op
        folded = _fold(node) or _gather_constants(node)
        if folded is not None:
            return self._replace(folded)
        if isinstance(op, (gast.Mult, gast.Div)) and self._drop_spread(node, node):
            return self._replace(node)
        if isinstance(op, gast.Pow) and _is_number(right, 1):
            return self._replace(left)
        if isinstance(op, (gast.Mult, gast.Div)) and _is_number(right, 1):
            return self._replace(left)
        if isinstance(op, gast.Mult) and _is_number(left, 1):
            return self._replace(right)
        if isinstance(op, (gast.Add, gast.Sub)) and _is_number(right, 0):
            return self._replace(left)
        if isinstance(op, gast.Add) and _is_number(left, 0):
            return self._replace(right)
        if isinstance(op, gast.Add) and isinstance(left, (gast.BinOp, gast.Call)) \
                and same_value(left, right, self.shapes.objects):   # a * b + b * a -> 2 * (a * b), exact
            return self._replace(gast.BinOp(left=syntax.constant(2), op=gast.Mult(), right=left))
        if isinstance(op, gast.Add) and _is_negation(left):   # -a + b -> b - a
            node.left, node.op, node.right = right, gast.Sub(), left.operand
            return self._replace(node)
        if isinstance(op, (gast.Add, gast.Sub)):
            positive = without_negation(right, self.shapes.objects)
            if positive is not None:   # a + -b -> a - b,  a - b * -c -> a + b * c
                node.op = gast.Sub() if isinstance(op, gast.Add) else gast.Add()
                node.right = positive
                return self._replace(node)
        return node

    def _drop_spread(self, node, product) -> bool:
        """Replace, in the ``*``/``/`` tree ``product``, an ``unreduce(g, p)`` by ``g`` when another operand has
        ``p``'s shape: broadcasting spreads ``g`` the same way (``unreduce(g, p) * 2 * d`` -> ``g * 2 * d``)."""
        for side in ("left", "right"):
            operand = getattr(node, side)
            if isinstance(operand, gast.BinOp) and isinstance(operand.op, (gast.Mult, gast.Div)):
                if self._drop_spread(operand, product):
                    return True
            elif (isinstance(operand, gast.Call) and len(operand.args) == 2 and not operand.keywords
                  and callee_object(operand.func, self.shapes.objects) is runtime.unreduce):
                token = self.shapes.of(operand.args[1])
                if token is not None and token != SCALAR and any(
                        leaf is not operand and self.shapes.of(leaf) == token for leaf in _operands(product)):
                    setattr(node, side, operand.args[0])
                    return True
        return False

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        inner = node.operand
        if isinstance(node.op, gast.USub) and isinstance(inner, gast.UnaryOp) and isinstance(inner.op, gast.USub):
            return self._replace(inner.operand)
        if isinstance(node.op, gast.USub) and isinstance(inner, (gast.Call, gast.BinOp)):
            positive = without_negation(inner, self.shapes.objects)   # -unbroadcast(-e, x), -(-a * b)
            if positive is not None:
                return self._replace(positive)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        positive = without_negation(node.value, self.shapes.objects) \
            if isinstance(node.op, (gast.Add, gast.Sub)) else None
        if positive is not None:   # x += -e -> x -= e
            node.op = gast.Sub() if isinstance(node.op, gast.Add) else gast.Add()
            node.value = positive
            return self._replace(node)
        return node

    def _within(self, node, outer: str):
        """``node`` without the inner ``broadcast_like(e, x)`` that the outer broadcast to ``outer`` makes moot.

        ``broadcast_like(broadcast_like(e, x) + f, y)`` is ``broadcast_like(e + f, y)`` when ``x``'s
        shape broadcasts to ``y``'s: elementwise arithmetic gives the same values either way.
        """
        if isinstance(node, gast.BinOp) and isinstance(node.op, ELEMENTWISE):
            node.left, node.right = self._within(node.left, outer), self._within(node.right, outer)
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            node.operand = self._within(node.operand, outer)
        elif isinstance(node, gast.Call) and len(node.args) == 2 and isinstance(node.args[1], gast.Name) \
                and callee_object(node.func, self.shapes.objects) is runtime.broadcast_like \
                and self.shapes.broadcasts_into(node.args[1].id, outer):
            return self._replace(self._within(node.args[0], outer))
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        product = written_out(node, self.shapes)   # matmul_lhs_grad(g, W, h) -> g[:, None] * h, ranks known
        if product is not None:
            return self._replace(product)
        function = callee_object(node.func, self.shapes.objects)
        if any(function is f for f in (runtime.unbroadcast, runtime.broadcast_like)) and len(node.args) == 2:
            grad_shape = self.shapes.of(node.args[0])
            if grad_shape is not None and grad_shape == self.shapes.of(node.args[1]):
                return self._replace(node.args[0])
        if function is runtime.broadcast_like and len(node.args) == 2:
            if self.shapes.of(node.args[1]) == SCALAR:   # a tangent has at most its primal's dimensions
                return self._replace(node.args[0])
            if isinstance(node.args[1], gast.Name):
                node.args[0] = self._within(node.args[0], node.args[1].id)
        if function is np.sum and len(node.args) == 1 and isinstance(node.args[0], gast.BinOp) \
                and isinstance(node.args[0].op, gast.Mult) and all(k.arg in ("axis", "keepdims") for k in node.keywords):
            factors = _factors(node.args[0])
            numbers = [_number(f) for f in factors]
            rest = [f for f, n in zip(factors, numbers) if n is None]
            if rest and sum(n is not None for n in numbers) == 1:   # np.sum(a * 2 * b) -> 2 * np.sum(a * b)
                constant = factors[[n is not None for n in numbers].index(True)]
                product = rest[0]
                for factor in rest[1:]:
                    product = gast.BinOp(left=product, op=gast.Mult(), right=factor)
                node.args = [product]   # one pass over a whole array fewer
                return self._replace(gast.BinOp(left=constant, op=gast.Mult(), right=node))
        if function is runtime.copied and len(node.args) == 1 and self.shapes.of(node.args[0]) == SCALAR:
            return self._replace(node.args[0])   # a scalar is never changed in place: no copy needed
        return node




def parameter_ranks(unit) -> Dict[str, int]:
    """Ranks of the parameters, when the derivative is specialised for them (option ``param_ranks``)."""
    ranks = unit.options.get("param_ranks")
    if not ranks:
        return {}
    names = [arg.id for arg in unit.tree.args.args]
    return {name: rank for name, rank in zip(names, ranks) if rank is not None}


class Simplify(Transformation):
    """Algebraic identities and shape-aware removal of broadcast reductions."""

    name = "simplify"

    def transform(self, unit):
        tree = unit.tree
        parameters = [arg.id for arg in tree.args.args + tree.args.kwonlyargs]
        derivative_of = unit.namer.derivatives()
        mutated = _mutated_in_place(tree.body)
        self.sharing = MemorySharing(tree)
        # definitions per name: parameters count once; a tape pop restores a value, it defines none
        counts = Counter(stmt.targets[0].id for stmt in syntax.iter_statements(tree.body)
                         if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                         and annotation(stmt, PAIR) is None)
        counts.update(parameters)
        # A reassigned name (a loop-carried value) is assumed to keep its shape; the assumption is
        # dropped for any name one of whose assignments does not provably keep it, until none fails.
        steady = {n: n for n, c in counts.items() if c > 1 and n not in derivative_of}
        int_names = range_indices(tree.body)
        if "math_arguments" not in unit.facts:   # primal code, never rewritten: look once
            unit.facts["math_arguments"] = _math_arguments(unit, parameters)
        scalars = unit.facts["math_arguments"]
        for _ in range(4 * len(steady) + 2):
            shapes = self._table(parameters, steady, unit, derivative_of, int_names, scalars)
            seen: Dict[str, set] = {}
            self._block(tree.body, None, shapes, mutated, counts, seen)
            # a name all of whose assignments agree on one shape keeps that shape; an assignment
            # that keeps the name's own shape (``loss = loss + e``) agrees with any other
            revised = {}
            for name in steady:
                tokens = seen.get(name, set())
                if name not in parameters and len(tokens) == 2 and steady[name] in tokens:
                    tokens = tokens - {steady[name]}
                if len(tokens) == 1 and None not in tokens:
                    revised[name] = next(iter(tokens))
            if revised == steady:
                break
            steady = revised
        rewrite = _Rewrite(self._table(parameters, steady, unit, derivative_of, int_names, scalars))
        self._block(tree.body, rewrite, rewrite.shapes, mutated, counts, {})
        return rewrite.changed

    @staticmethod
    def _table(parameters, steady, unit, derivative_of, int_names, scalars):
        shapes = ShapeTable(parameters, unit.bindings.objects, derivative_of, int_names, parameter_ranks(unit))
        shapes.tokens.update(steady)
        if unit.options.get("scalar_params"):   # a variant for calls whose arguments are all scalars
            shapes.tokens.update({name: SCALAR for name in parameters})
        shapes.tokens.update({name: SCALAR for name in scalars if name not in steady})
        return shapes

    def _block(self, block, rewrite, shapes, mutated, counts, seen):
        """Walk ``block`` recording shapes (rewriting when ``rewrite`` is given).

        ``seen`` collects, per reassigned name, the shape tokens its assignments produce.
        """
        for stmt in block:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                target = stmt.targets[0].id
                if rewrite is None:
                    pass
                elif (target in mutated or self.sharing.reachable(syntax.loaded_names(stmt.value)) & mutated) \
                        and not annotation(stmt, "primal"):
                    # keep a fresh array fresh: `dx = dy * 1.0` must not become an alias of dy
                    # when either is later changed in place
                    changed_before = rewrite.changed
                    whole = rewrite.visit(syntax.clone(stmt.value))
                    if not is_fresh(whole, shapes.objects):   # the operands alone, rewritten, may stay fresh
                        inner = rewrite.generic_visit(syntax.clone(stmt.value))
                        if is_fresh(inner, shapes.objects):
                            whole = inner
                        elif is_fresh(stmt.value, shapes.objects) and shapes.of(whole) != SCALAR:
                            whole = stmt.value   # `unbroadcast(dy * 1.0, y)`: no rewrite keeps it fresh
                            rewrite.changed = changed_before
                    stmt.value = whole
                else:
                    rewrite.visit(stmt)
                if rewrite is not None and isinstance(stmt.value, gast.Subscript) \
                        and shapes.of(stmt.value) == SCALAR:
                    annotate(stmt, SCALAR_ELEMENT, True)   # a copy of one element, never a view
                if annotation(stmt, PAIR) is not None:
                    pass                  # a tape pop restores an earlier value of the same name
                elif counts[target] == 1:   # a name assigned once: its shape relation holds
                    shapes.record(target, stmt.value)
                else:
                    seen.setdefault(target, set()).add(shapes.of(stmt.value))
            elif isinstance(stmt, (gast.If, gast.For, gast.While)):
                if rewrite is not None and not isinstance(stmt, gast.For):
                    stmt.test = rewrite.visit(stmt.test)
                self._block(stmt.body, rewrite, shapes, mutated, counts, seen)
                self._block(stmt.orelse, rewrite, shapes, mutated, counts, seen)
            elif rewrite is not None:
                rewrite.visit(stmt)


def _math_arguments(unit, parameters) -> set:
    """Parameters passed to a math-module function: they are scalars."""
    found = set()
    for node in syntax.walk(unit.tree):
        if node.__class__ is gast.Call and node.args:
            function = callee_object(node.func, unit.bindings.objects)
            if getattr(function, "__module__", None) == "math" or getattr(function, "__self__", None) is math:
                found |= {arg.id for arg in node.args if isinstance(arg, gast.Name) and arg.id in parameters}
    return found


def _mutated_in_place(body):
    """Names whose array some statement changes in place (``x += e``, ``x[i] = e``, ``add_at(x, ...)``)."""
    names = set()
    for stmt in syntax.iter_statements(body):
        target = None
        if isinstance(stmt, gast.AugAssign):
            target = stmt.target
        elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
            target = stmt.targets[0]
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and stmt.value.args \
                and not is_check(stmt):
            target = stmt.value.args[0]
        while isinstance(target, gast.Subscript):
            target = target.value
        if isinstance(target, gast.Name):
            names.add(target.id)
    return names
