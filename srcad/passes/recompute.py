"""Analysis helper of ``reverse``: loop temporaries cheaper to recompute than to save.

Contract: ``plan(block, names, scalars)`` looks at one loop body (after
``versioning``) and the names it binds first (which ``reverse`` would save on
the tape at the end of each iteration), and returns the ones the backward pass
can recompute instead, as ``{name: Recompute}``.  It never changes the tree.

A temporary ``t = e`` qualifies when
- ``e`` is arithmetic (``+ - * /``, unary ``-``) over scalar names and number
  constants, and reads no other recomputed temporary;
- every statement that reads ``t`` is a plain assignment at the top of the
  same block, and every statement between ``t = e`` and the last of them
  (``last_reader``) is an assignment or an expression statement;
- no statement strictly between them rebinds a name ``e`` reads; the last
  reader may rebind one (``x = t * u`` for ``t = r * x``) when its own adjoint
  cannot read its result (an atom, ``+``, ``-``, ``*`` or unary ``-``), so the
  backward pass restores that name before recomputing ``t``.

The backward pass then evaluates ``t = e`` right before the last reader's
adjoint, where every name ``e`` reads holds the value it had when ``t`` was
first computed, so the tape holds one value per iteration fewer per temporary.

``scalar_names(tree, parameters_are_scalars)`` is the set of names provably
bound only to scalars (all parameters, when the derivative is the variant for
all-scalar arguments; then whatever arithmetic computes from scalars).

Example: in ``for _ in range(n): x = r * x * (1.0 - x)`` (all scalars) the
temporaries ``r_times_x`` and ``t1_minus_x`` are recomputed from ``x``, so each
iteration saves only the old ``x``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

import gast

from ..frontend import syntax
from ..analysis.expressions import int_index, range_indices

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div)
# operations whose adjoint never reads their own result
_RESULT_FREE = (gast.Add, gast.Sub, gast.Mult)


MAX_LOADS = 4   # element loads in one recomputed expression


class _Substitute(gast.NodeTransformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return syntax.clone(self.values[node.id])
        return node


def _loads(value) -> int:
    return sum(isinstance(n, gast.Subscript) for n in syntax.walk(value))


@dataclass
class Recompute:
    """How to recompute one temporary: its defining statement and where the backward pass needs it."""

    definition: gast.Assign
    last_reader: gast.Assign


def _is_arithmetic(node, scalars: Set[str]) -> bool:
    if isinstance(node, gast.Name):
        return node.id in scalars
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, _ARITHMETIC) and _is_arithmetic(node.left, scalars) \
            and _is_arithmetic(node.right, scalars)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, gast.USub) and _is_arithmetic(node.operand, scalars)
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):   # B[i, k] of a read-only B
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        return f"{node.value.id}[{len(parts)}]" in scalars and all(int_index(p, scalars) for p in parts)
    return False


def _result_free(value) -> bool:
    """Whether the adjoint of ``y = value`` never reads ``y``."""
    if isinstance(value, gast.Name):
        return True
    if isinstance(value, gast.BinOp):
        return isinstance(value.op, _RESULT_FREE)
    return isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub)


def scalar_names(tree, parameters_are_scalars: bool, ranks: Optional[Dict[str, int]] = None) -> Set[str]:
    """Names every assignment of which binds a scalar (a greatest fixed point).

    With ``ranks`` (parameter ranks of a specialised derivative), an element
    ``B[i, k]`` of a read-only parameter ``B`` indexed by as many loop indices
    and ints as ``B`` has dimensions is a scalar too; the set then holds the
    entry ``"B[2]"`` for such a ``B`` of rank 2, and the loop indices.
    """
    parameters = {arg.id for arg in tree.args.args + tree.args.kwonlyargs}
    elements = {f"{name}[{rank}]" for name, rank in (ranks or {}).items()
                if rank and name in _read_only(tree, parameters)}
    if not parameters_are_scalars and not elements:
        return set()
    assignments: Dict[str, List] = {}
    for stmt in syntax.iter_statements(tree.body):
        for target in (stmt.targets if isinstance(stmt, gast.Assign) else ()):
            if isinstance(target, gast.Name):
                assignments.setdefault(target.id, []).append(stmt.value)
            else:
                for name in syntax.names_in(target):
                    assignments.setdefault(name, []).append(None)
        if isinstance(stmt, (gast.AugAssign, gast.For)):
            for name in syntax.names_in(stmt.target):
                assignments.setdefault(name, []).append(None)
    fixed = elements | (set(range_indices(tree.body)) if elements else set())
    scalars = (parameters if parameters_are_scalars else set()) | set(assignments) | fixed
    while True:
        kept = {n for n in scalars if n in fixed
                or all(v is not None and _is_arithmetic(v, scalars) for v in assignments.get(n, ()))}
        if kept == scalars:
            return scalars
        scalars = kept


def _read_only(tree, parameters) -> Set[str]:
    """The parameters no statement can change in place: every element store goes into a fresh array
    (bound only by ``np.zeros(...)``-like calls, list literals or arithmetic), and none is rebound."""
    fresh_makers = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "copy", "array_copy", "array"}
    assignments: Dict[str, List] = {}
    stored = set()
    for stmt in syntax.iter_statements(tree.body):
        if isinstance(stmt, gast.Assign):
            for target in stmt.targets:
                if isinstance(target, gast.Name):
                    assignments.setdefault(target.id, []).append(stmt.value)
                else:
                    stored |= {_base(target)}
        elif isinstance(stmt, gast.AugAssign):
            stored.add(_base(stmt.target))
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and not syntax.is_check(stmt):
            stored |= {_base(arg) for arg in stmt.value.args}   # a call for its effect may change them
    for name in stored:
        for value in assignments.get(name, [None]):
            call = value.func if isinstance(value, gast.Call) else None
            maker = getattr(call, "attr", getattr(call, "id", None))
            if not (maker in fresh_makers or isinstance(value, (gast.List, gast.BinOp, gast.UnaryOp))):
                return set()
    return {p for p in parameters if p not in stored and p not in assignments}


def _base(target) -> str:
    while isinstance(target, (gast.Subscript, gast.Attribute)):
        target = target.value
    return getattr(target, "id", "")


def plan(block: List, names: List[str], scalars: Set[str]) -> Dict[str, Recompute]:
    """The temporaries among ``names`` (bound first in ``block``) to recompute rather than save."""
    chosen: Dict[str, Recompute] = {}
    if not scalars:
        return chosen
    position = {id(stmt): index for index, stmt in enumerate(block)}
    for index, stmt in enumerate(block):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            continue
        name = stmt.targets[0].id
        if name not in names or not _is_arithmetic(stmt.value, scalars):
            continue
        reads_chosen = syntax.loaded_names(stmt.value) & set(chosen)
        if reads_chosen:   # recompute it from what those are computed from
            if _loads(stmt.value) + sum(_loads(chosen[n].definition.value) for n in reads_chosen) > MAX_LOADS:
                continue
            value = _Substitute({n: chosen[n].definition.value for n in chosen}).visit(syntax.clone(stmt.value))
            stmt = syntax.set_location(gast.Assign(targets=[syntax.clone(stmt.targets[0])], value=value,
                                                   type_comment=None), stmt.lineno)
        operands = syntax.loaded_names(stmt.value)
        readers = [later for later in syntax.iter_statements(block[index + 1:])
                   if name in syntax.loaded_names(later)]
        if not readers or any(id(r) not in position or not isinstance(r, gast.Assign) for r in readers):
            continue
        last = readers[-1]
        between = block[index + 1:position[id(last)]]
        if any(not isinstance(s, (gast.Assign, gast.Expr)) or isinstance(s, gast.Assign)
               and syntax.stored_names(s.targets[0]) & operands for s in between):
            continue
        rebinds = syntax.stored_names(last.targets[0]) & operands
        if rebinds and not (isinstance(last.targets[0], gast.Name) and _result_free(last.value)):
            continue
        chosen[name] = Recompute(stmt, last)
    return chosen
