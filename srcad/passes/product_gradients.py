"""Rewrite for ``simplify``: the gradient of a matrix product written out for its operands' ranks.

Contract: ``written_out(call, shapes)`` returns the expression that computes
``matmul_lhs_grad(g, a, b)``, ``matmul_rhs_grad(g, a, b)``, ``dot_lhs_grad``
or ``dot_rhs_grad`` (``srcad.runtime``) without the helper's run-time tests,
when ``shapes`` (a ``ShapeTable``) knows that ``a`` and ``b`` are vectors or
matrices (ranks 1 and 2, where ``np.dot`` is ``@``), else None.  The
expressions are the ones the helpers evaluate for those ranks, operation for
operation, so the values are the same bits:

=========  ==================  ==================
a, b       gradient for a      gradient for b
=========  ==================  ==================
1, 1       ``g * b``           ``g * a``
2, 1       ``g[:, None] * b``  ``g @ a``
1, 2       ``b @ g``           ``a[:, None] * g``
2, 2       ``g @ b.T``         ``a.T @ g``
=========  ==================  ==================

Example: in a variant for a 2-D ``W`` and a 1-D ``h``,
``matmul_lhs_grad(dz, W, h)`` becomes ``dz[:, None] * h``.
"""
from __future__ import annotations

from typing import Optional

import gast

from .. import runtime
from ..analysis.expressions import callee_object
from ..frontend import syntax

_LHS = (runtime.matmul_lhs_grad, runtime.dot_lhs_grad)
_RHS = (runtime.matmul_rhs_grad, runtime.dot_rhs_grad)


def written_out(call, shapes) -> Optional[gast.AST]:
    """The rank-specific expression for a product-gradient helper call, or None when ranks are unknown."""
    if not isinstance(call, gast.Call) or len(call.args) != 3 or call.keywords:
        return None
    function = callee_object(call.func, shapes.objects)
    lhs = any(function is f for f in _LHS)
    if not lhs and not any(function is f for f in _RHS):
        return None
    grad, a, b = call.args
    if not all(isinstance(operand, gast.Name) for operand in (a, b)):
        return None   # an operand written twice must be a name, read twice alike
    ranks = (shapes.rank(a), shapes.rank(b))
    if ranks not in ((1, 1), (2, 1), (1, 2), (2, 2)):
        return None
    if ranks != (1, 1) and shapes.rank(grad) != sum(ranks) - 2:
        return None   # the adjoint must have the product's rank to be indexed or multiplied as one
    if lhs:
        forms = {(1, 1): lambda: _times(grad, b), (2, 1): lambda: _times(_column(grad), b),
                 (1, 2): lambda: _matmul(b, grad), (2, 2): lambda: _matmul(grad, _transposed(b))}
    else:
        forms = {(1, 1): lambda: _times(grad, a), (2, 1): lambda: _matmul(grad, a),
                 (1, 2): lambda: _times(_column(a), grad), (2, 2): lambda: _matmul(_transposed(a), grad)}
    return forms[ranks]()


def _load(node):
    return syntax.clone(node)


def _times(left, right):
    return gast.BinOp(left=_load(left), op=gast.Mult(), right=_load(right))


def _matmul(left, right):
    return gast.BinOp(left=_load(left), op=gast.MatMult(), right=_load(right))


def _column(vector):
    """``v[:, None]``."""
    index = gast.Tuple(elts=[gast.Slice(lower=None, upper=None, step=None), syntax.constant(None)], ctx=gast.Load())
    return gast.Subscript(value=_load(vector), slice=index, ctx=gast.Load())


def _transposed(matrix):
    return gast.Attribute(value=_load(matrix), attr="T", ctx=gast.Load())
