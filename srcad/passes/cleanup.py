"""Transformation: drop statements the derivative does not need.

Contract: works on the generated derivative function.  A statement is kept
when it has an effect (``check_seed``, ``print``, ``assert``), writes an array
a kept statement reads later (``dx[i] += e``, ``add_at(dx, ...)``), or assigns
a name that a kept statement or the return reads.  Comments that no longer
head any statement are dropped.  Returns whether anything was removed.

Example: in the gradient of ``return np.sum(x * w)`` with respect to ``x``,
no statement computes ``dw``.
"""
from __future__ import annotations

from typing import List, Set

import gast

from .. import syntax
from . import Transformation

# Helpers that change their first argument in place instead of returning a value.
_MUTATORS = frozenset({"add_at"})


class Cleanup(Transformation):
    """Dead-code elimination for straight-line derivative code."""

    name = "cleanup"

    def transform(self, unit):
        before = len(unit.tree.body)
        unit.tree.body = _drop_orphan_comments(self._live_statements(unit.tree.body))
        return len(unit.tree.body) != before

    def _live_statements(self, body) -> List:
        live: Set[str] = set()
        kept = []
        for stmt in reversed(body):
            if syntax.is_comment(stmt):
                kept.append(stmt)
                continue
            if not self._needed(stmt, live):
                continue
            if isinstance(stmt, gast.Assign):
                live -= syntax.stored_names(stmt.targets[0])
            live |= syntax.loaded_names(stmt)
            if isinstance(stmt, gast.AugAssign):
                live.add(_base_name(stmt.target))
            kept.append(stmt)
        return list(reversed(kept))

    @staticmethod
    def _needed(stmt, live) -> bool:
        if isinstance(stmt, gast.Assign):
            return bool(syntax.stored_names(stmt.targets[0]) & live)
        if isinstance(stmt, gast.AugAssign):
            return _base_name(stmt.target) in live
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            func = stmt.value.func
            if isinstance(func, gast.Name) and func.id in _MUTATORS:
                return bool(syntax.loaded_names(stmt.value.args[0]) & live)
        return True


def _base_name(target) -> str:
    while isinstance(target, gast.Subscript):
        target = target.value
    return getattr(target, "id", "")


def _drop_orphan_comments(body) -> List:
    result = []
    for index, stmt in enumerate(body):
        if syntax.is_comment(stmt):
            following = body[index + 1] if index + 1 < len(body) else None
            if following is None or syntax.is_comment(following):
                continue
        result.append(stmt)
    return result
