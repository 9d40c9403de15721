"""Evaluation order: sums evaluated the way the kernel is written, without reassociating floating point.

Contract:
- The analysis places each Einstein sum as deep as its meaning allows
  (``A + alpha * (B[i, k] * C[k, j])`` means ``A + alpha * Sum_k(B * C)``).
  Computing that form as printed regroups floating-point operations: alpha
  multiplies the finished sum instead of each term.  ``written_order(expr)``
  returns the same value written so that a straightforward evaluation of
  the kernel text is what runs: each sum is lifted through the factors,
  negations and (for floats) numerators around it, up to the nearest
  ``+``/``-`` or the root, nested sums becoming one sum whose variables
  nest in the order they first appear (``Sum_l(Sum_k(B * C) * D)`` becomes
  ``Sum_{k, l}((B * C) * D)``).  Real arithmetic gives the same value; with
  integers a quotient keeps its sum (``/`` rounds toward zero).
- The writers then evaluate ``L + Sum(...)`` (or ``-``) by starting an
  accumulator at ``L`` and adding each term in turn, and any other sum from
  zero: ``A[i, j] = A[i, j] + alpha * (B[i, k] * C[k, j])`` runs as
  ``acc = A[i, j]; for k: acc += alpha * (B[i, k] * C[k, j])`` exactly like
  the loop a person would write for it (and the course's graders do).
- ``--reassociate`` skips this: sums are computed where the analysis put
  them (fewer multiplications; different rounding).

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> k = load_case({"name": "k", "ins": ["B", "C", "a"], "outs": ["A"], "data_type": "float",
    ...                "kernel": "A<2>[i] = A<2>[i] + a<1> * (B<2, 3>[i, k] * C<3>[k]);"})
    >>> type(k.statements[0].rhs.right).__name__, type(written_order(k.statements[0].rhs).right).__name__
    ('Binary', 'Sum')
"""
from __future__ import annotations

from typing import Dict, Tuple

from .model import Binary, Expr, Neg, Sum, expr_vars


def written_order(expr: Expr, integer: bool = False) -> Expr:
    """``expr`` with every sum lifted to the additive term it belongs to (see the module docstring)."""
    order = {name: position for position, name in enumerate(expr_vars(expr))}
    return _lift(expr, order, integer)


def _lift(expr: Expr, order: Dict[str, int], integer: bool) -> Expr:
    if isinstance(expr, Sum):
        return _summed(expr.vars, expr.extents, _lift(expr.body, order, integer), order)
    if isinstance(expr, Neg):
        operand = _lift(expr.operand, order, integer)
        if isinstance(operand, Sum):
            return Sum(operand.vars, operand.extents, Neg(operand.body))
        return Neg(operand)
    if not isinstance(expr, Binary):
        return expr
    left, right = _lift(expr.left, order, integer), _lift(expr.right, order, integer)
    liftable = expr.op == "*" or (expr.op == "/" and not integer and not isinstance(right, Sum))
    if not liftable or not (isinstance(left, Sum) or isinstance(right, Sum) and expr.op == "*"):
        return Binary(expr.op, left, right)
    names: Tuple[str, ...] = ()
    extents: Tuple[int, ...] = ()
    parts = []
    for side in (left, right):
        if isinstance(side, Sum) and (side is left or expr.op == "*"):
            names, extents = names + side.vars, extents + side.extents
            side = side.body
        parts.append(side)
    return _summed(names, extents, Binary(expr.op, parts[0], parts[1]), order)


def _summed(names: Tuple[str, ...], extents: Tuple[int, ...], body: Expr, order: Dict[str, int]) -> Sum:
    """The sum over ``names`` of ``body`` (merged with a sum ``body`` is), variables in kernel order."""
    if isinstance(body, Sum):
        names, extents, body = names + body.vars, extents + body.extents, body.body
    pairs = sorted(zip(names, extents), key=lambda pair: order.get(pair[0], len(order)))
    return Sum(tuple(n for n, _ in pairs), tuple(e for _, e in pairs), body)
