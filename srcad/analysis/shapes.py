"""Analysis helper: which names provably share a shape, in straight-line generated code.

Contract: ``ShapeTable`` assigns each name a shape token: equal tokens mean
equal shapes, ``SCALAR`` means shape ``()``, and None means unknown.  It never
changes the tree.  The derivative of a variable has the variable's shape, so
``dx`` gets the token of ``x``.  Used by ``simplify`` to drop ``unbroadcast``
where it provably does nothing.

Each name must be assigned once (true of the generated straight-line code
after ``versioning``); a name whose shape cannot be derived is its own token.

Ranks (numbers of dimensions) are tracked too, per token: from ``ranks`` given
for parameters (a derivative specialised for arguments of known ranks), from
``np.zeros((m, n))`` and friends, through elementwise operations, and through
``@``, ``np.dot`` and ``np.matmul`` of vectors and matrices (the product of two
vectors is a scalar: its token is ``SCALAR``).  An
index of integers only, as many as the array's rank (``A[i, j + 1]`` of a 2-D
``A`` with loop indices ``i, j``), selects a scalar: its token is ``SCALAR``.

Example: after ``y = np.sin(x)`` and ``z = y * 2.0``, ``z``, ``y`` and ``x``
share one token.
"""
from __future__ import annotations

import types
from typing import Dict, Optional

import gast
import numpy as np

from .. import runtime
from .expressions import callee_object, constant_index, int_index

SCALAR = "()"
_REDUCTIONS = (np.sum, np.mean, np.prod, np.max, np.min, np.var, np.std)
_SAME_AS_SECOND = (runtime.unbroadcast, runtime.unreduce, runtime.broadcast_like)
_CREATORS = (np.zeros, np.ones, np.empty, np.full)
_LIKE_CREATORS = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


class ShapeTable:
    """Shape tokens of names, filled in statement order."""

    def __init__(self, parameters, objects: Dict, derivative_of: Dict[str, str], int_names=None,
                 ranks: Optional[Dict[str, int]] = None):
        self.int_names = int_names
        self.ranks: Dict[str, int] = {p: r for p, r in (ranks or {}).items() if r is not None}   # token -> rank
        self.tuple_lengths: Dict[str, int] = {}
        # A parameter that is a derivative (a seed or a tangent) takes its variable's token lazily.
        self.tokens: Dict[str, Optional[str]] = {p: SCALAR if (ranks or {}).get(p) == 0 else p
                                                 for p in parameters if p not in derivative_of}
        self.objects = objects
        self.derivative_of = derivative_of
        self.definitions: Dict[str, object] = {}   # name assigned once -> its value

    def token(self, name: str) -> Optional[str]:
        if name in self.tokens:
            return self.tokens[name]
        primal = self.derivative_of.get(name)
        return self.tokens.get(primal) if primal is not None else None

    def record(self, name: str, value) -> None:
        primal = self.derivative_of.get(name)
        known = self.tokens.get(primal) if primal is not None else None
        if known is None:
            known = self.of(value)
        # An unknown shape still equals itself: the name becomes its own token.
        self.tokens[name] = known if known is not None else name
        self.definitions[name] = value
        if isinstance(value, gast.Tuple):
            self.tuple_lengths[name] = len(value.elts)
        elif known is None or known not in self.ranks and known != SCALAR:
            rank = self.rank(value)
            if rank is not None:
                self.ranks[self.tokens[name]] = rank

    def broadcasts_into(self, inner: str, outer: str, depth: int = 4) -> bool:
        """Whether name ``inner``'s shape provably broadcasts to name ``outer``'s shape.

        True when the two share a token, or ``outer`` was computed elementwise
        (``+ - * /``, negation) from something ``inner`` broadcasts into.
        """
        token = self.token(inner)
        if token is not None and token == self.token(outer):
            return True
        value = self.definitions.get(outer)
        return depth > 0 and value is not None and any(
            self.broadcasts_into(inner, leaf, depth - 1) for leaf in elementwise_leaves(value))

    def rank(self, node) -> Optional[int]:
        """The number of dimensions of expression ``node``'s value, when known."""
        if isinstance(node, gast.Name):
            token = self.token(node.id)
            return 0 if token == SCALAR else self.ranks.get(token)
        if isinstance(node, gast.Constant):
            return 0 if isinstance(node.value, (int, float, complex)) else None
        if isinstance(node, gast.UnaryOp):
            return self.rank(node.operand)
        if isinstance(node, gast.BinOp):
            left, right = self.rank(node.left), self.rank(node.right)
            if isinstance(node.op, gast.MatMult):
                return product_rank(left, right)
            return max(left, right) if left is not None and right is not None else None
        if isinstance(node, gast.Subscript) and self.int_names is not None:
            base = self.rank(node.value)
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            if base is None or len(parts) > base:
                return None
            if all(isinstance(p, gast.Slice) or int_index(p, self.int_names) for p in parts):
                return base - sum(1 for p in parts if not isinstance(p, gast.Slice))
            return None
        if isinstance(node, gast.Call):
            return self._call_rank(node)
        return None

    def _int_expression(self, node) -> bool:
        """An expression that is an int: ``len(x)``, ``x.shape[0]``, loop indices, ints, and arithmetic."""
        if int_index(node, self.int_names or frozenset()):
            return True
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv)):
            return self._int_expression(node.left) and self._int_expression(node.right)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
                and node.value.attr == "shape" and _is_int(node.slice):
            return True
        return isinstance(node, gast.Call) and callee_object(node.func, self.objects) is len

    def _call_rank(self, node) -> Optional[int]:
        function = callee_object(node.func, self.objects)
        args = node.args
        if function is None or not args:
            return None
        if any(function is f for f in _CREATORS):
            shape = args[0]
            if isinstance(shape, (gast.Tuple, gast.List)):
                return len(shape.elts)
            if isinstance(shape, gast.Name) and shape.id in self.tuple_lengths:
                return self.tuple_lengths[shape.id]
            if isinstance(shape, gast.Attribute) and shape.attr == "shape":   # np.zeros(B.shape)
                return self.rank(shape.value)
            return 1 if self._int_expression(shape) else None
        if any(function is f for f in _LIKE_CREATORS):
            return self.rank(args[0])
        if isinstance(function, np.ufunc) and not node.keywords and function.nin == len(args):
            ranks = [self.rank(arg) for arg in args]
            return max(ranks) if None not in ranks else None
        if isinstance(function, types.BuiltinFunctionType) and getattr(function, "__module__", "") == "math":
            return 0
        if any(function is r for r in _REDUCTIONS) and len(args) == 1 and not node.keywords:
            return 0
        if (function is np.dot or function is np.matmul) and len(args) == 2 and not node.keywords:
            return product_rank(self.rank(args[0]), self.rank(args[1]))
        if any(function is f for f in _SAME_AS_SECOND) and len(args) >= 2:
            return self.rank(args[1])
        if function in (runtime.zeros_like, runtime.copied, runtime.array_copy, np.copy):
            return self.rank(args[0])
        return None

    def of(self, node) -> Optional[str]:
        """The shape token of expression ``node``."""
        if isinstance(node, gast.Name):
            return self.token(node.id)
        if isinstance(node, gast.Constant):
            return SCALAR if isinstance(node.value, (int, float, complex)) else None
        if isinstance(node, gast.UnaryOp):
            return self.of(node.operand)
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            return _combine(self.of(node.left), self.of(node.right))
        if isinstance(node, gast.BinOp) or isinstance(node, gast.Call) and any(
                callee_object(node.func, self.objects) is f for f in (np.dot, np.matmul)):
            return SCALAR if self.rank(node) == 0 else None   # the product of two vectors is a scalar
        if isinstance(node, gast.Call):
            return self._call(node)
        if isinstance(node, gast.Subscript) and self.int_names is not None:
            base = self.of(node.value)
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            # same array, same count of integer indices: same shape.  Only a tuple index proves an
            # array: entries of a list, tuple or dict (``p[0]``, ``p["w"]``) may differ in shape.
            if self.ranks and self.rank(node) == 0:
                return SCALAR
            if base is not None and len(parts) > 1 and all(
                    constant_index(p, self.int_names) and not isinstance(p, (gast.Slice, gast.Constant))
                    or _is_int(p) for p in parts):
                return f"{base}[{len(parts)}]"
        return None

    def _call(self, node) -> Optional[str]:
        function = callee_object(node.func, self.objects)
        args = node.args
        if function is None or not args:
            return None
        if isinstance(function, np.ufunc) and not node.keywords:
            if function.nin == 1 and len(args) == 1:
                return self.of(args[0])
            if function.nin == 2 and len(args) == 2:
                return _combine(self.of(args[0]), self.of(args[1]))
        if isinstance(function, types.BuiltinFunctionType) and getattr(function, "__module__", "") == "math":
            return SCALAR
        if any(function is r for r in _REDUCTIONS) and len(args) == 1 and not node.keywords:
            return SCALAR
        if any(function is f for f in _SAME_AS_SECOND) and len(args) >= 2:
            return self.of(args[1])
        if function in (runtime.zeros_like, runtime.copied, runtime.array_copy, np.copy):
            return self.of(args[0])
        if function is runtime.maximum_share and len(args) == 2:
            return _combine(self.of(args[0]), self.of(args[1]))
        return None


ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def elementwise_leaves(node):
    """The names ``node`` combines through elementwise ``+ - * /`` and negation (``a`` and ``b`` of ``-a * b``)."""
    if isinstance(node, gast.Name):
        return [node.id]
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return elementwise_leaves(node.operand)
    if isinstance(node, gast.BinOp) and isinstance(node.op, ELEMENTWISE):
        return elementwise_leaves(node.left) + elementwise_leaves(node.right)
    return []


def product_rank(left: Optional[int], right: Optional[int]) -> Optional[int]:
    """The rank of ``a @ b`` (and of ``np.dot(a, b)``) for operands of ranks 1 and 2, else None.

    Example: ``product_rank(2, 1)`` is 1 (a matrix times a vector).
    """
    if left not in (1, 2) or right not in (1, 2):
        return None
    return left + right - 2


def _is_int(node) -> bool:
    return isinstance(node, gast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _is_none(node) -> bool:
    return isinstance(node, gast.Constant) and (node.value is None or node.value is Ellipsis)


def _combine(left: Optional[str], right: Optional[str]) -> Optional[str]:
    if left is None or right is None:
        return None
    if left == right or right == SCALAR:
        return left
    if left == SCALAR:
        return right
    return None

