"""Transformation: calls and arithmetic on number literals computed once, when the derivative is built.

Contract: after ``resolve``, in the user's code (primal and, through it, the
derivative), these become the float literal of their value:
- a float constant of the ``math`` or ``numpy`` module (``math.pi``,
  ``np.e``): both are Python floats, so the literal is the same object kind;
- a call of a ``math`` function on number literals (``math.sqrt(2.0)``,
  ``math.log(2.0 * math.pi)``) that returns a finite float; a call that
  raises stays, to raise when the derivative runs, as ``f`` does;
- ``+ - * / **`` and negation of number literals, one of them a float, when
  the result is finite (Python computes these the same way at run time).
Only names ``resolve`` bound to the modules ``math`` and ``numpy`` count (a
local ``math`` is not the module).  NumPy functions are not folded:
``np.sqrt(2.0)`` is a ``np.float64``, which NumPy's promotion treats unlike
a Python float (``float32_array * np.sqrt(2.0)`` is float64), so its literal
would change the derivative's dtypes.

A folded literal keeps the name of what it replaces for the temporaries
named after it (``frontend.naming.DESCRIBED``): ``sqrt_8_times_bx``.

Example: ``s = math.sqrt(8.0) * x`` becomes ``s = 2.8284271247461903 * x``.
"""
from __future__ import annotations

import math
import operator
import types

import gast

from ..frontend import syntax
from ..frontend.naming import DESCRIBED, describe
from ..frontend.syntax import annotate, annotation
from . import Transformation

_MODULES = frozenset({"math", "numpy"})
_OPERATORS = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
              gast.Div: operator.truediv, gast.Pow: operator.pow}
_MISSING = object()


class FoldConstants(Transformation):
    """Replace constant subexpressions of the user's code by their values."""

    name = "fold_constants"

    def transform(self, unit):
        folder = _Folder()
        folder.visit(unit.tree)
        return folder.changed


def literal_value(node):
    """The int or float a number literal (or its negation) holds, else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = literal_value(node.operand)
        return None if inner is None else -inner
    if isinstance(node, gast.Constant) and node.value.__class__ in (int, float):
        return node.value
    return None


def _literal(value: float, like):
    """A node holding ``value``: a constant, under a negation when negative (``-0.0`` too)."""
    node = syntax.constant(abs(value))
    if math.copysign(1.0, value) < 0:
        node = gast.UnaryOp(op=gast.USub(), operand=node)
    return gast.copy_location(node, like)


def _finite_float(value) -> bool:
    return value.__class__ is float and math.isfinite(value)


class _Folder(gast.NodeTransformer):
    def __init__(self):
        self.changed = False

    def _folded(self, value, node):
        self.changed = True
        folded = _literal(value, node)
        annotate(folded, DESCRIBED, annotation(node, DESCRIBED) or describe(node))   # still named sqrt_8
        return folded

    def visit_Attribute(self, node):
        self.generic_visit(node)
        owner = annotation(node.value, "ref", _MISSING)
        value = annotation(node, "ref", _MISSING)
        if isinstance(node.ctx, gast.Load) and isinstance(owner, types.ModuleType) \
                and owner.__name__ in _MODULES and _finite_float(value):
            return self._folded(value, node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        function = annotation(node.func, "ref", _MISSING)
        if not (isinstance(function, types.BuiltinFunctionType) and getattr(function, "__module__", None) == "math"):
            return node
        values = [literal_value(arg) for arg in node.args]
        if node.keywords or not values or None in values:
            return node
        try:
            result = function(*values)
        except (ValueError, OverflowError, TypeError):   # raised again when the derivative runs, as f raises
            return node
        return self._folded(result, node) if _finite_float(result) else node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left, right = literal_value(node.left), literal_value(node.right)
        operation = _OPERATORS.get(type(node.op))
        if operation is None or left is None or right is None or float not in (left.__class__, right.__class__):
            return node
        try:
            result = operation(left, right)
        except (ZeroDivisionError, OverflowError):
            return node
        return self._folded(result, node) if _finite_float(result) else node
