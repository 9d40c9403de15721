"""Transformation: starred assignment targets, ``a, *rest, b = items``, written out with indexing.

Contract: an assignment whose target is a tuple or list of plain names with one
starred name (anywhere in the function but nested defs) becomes, in order,
- ``items = <value>`` when the value is not already a name (named after the targets);
- ``check_starred_unpacking(items, before, after)``: Python's own ``ValueError``
  (``not enough values to unpack (expected at least 2, got 1)``) or ``TypeError``
  where the assignment would raise it;
- ``a = items[0]`` for each name before the star;
- ``rest = []`` and a loop ``for index in range(before, len(items) - after):``
  ``rest.append(items[index])``: the starred name is a new list, as in Python;
- ``b = items[-1]`` for each name after the star.
Later passes differentiate these as any user code written that way (a row of an
array is a view, as in the loop).  Returns whether anything changed.  Any
other starred target (nested, ``*x[1:]``, two stars, in a ``for`` or ``with``
target) raises ``UnsupportedSyntaxError`` at ``syntax_check`` with a
rewrite that works.

Example: ``first, *others = params`` becomes ``check_starred_unpacking(params, 1, 0)``,
``first = params[0]``, ``others = []``, ``for index in range(1, len(params)):
others.append(params[index])``.
"""
from __future__ import annotations

import builtins
from typing import List, Optional

import gast

from ..frontend import syntax
from ..runtime.containers import check_starred_unpacking
from .numpy_forms import callee
from . import Transformation


def starred_position(target) -> Optional[int]:
    """The index of the one ``*name`` in a tuple/list target of plain names, else None.

    Example: for ``a, *rest, b`` it is 1; for ``a, b`` or ``(a, *b), c`` it is None.
    """
    if not isinstance(target, (gast.Tuple, gast.List)):
        return None
    stars = [i for i, elt in enumerate(target.elts) if isinstance(elt, gast.Starred)]
    plain = all(isinstance(elt.value if isinstance(elt, gast.Starred) else elt, gast.Name) for elt in target.elts)
    return stars[0] if len(stars) == 1 and plain else None


class StarredTargets(Transformation):
    """``a, *rest = items`` as indexing, a length check and an append loop."""

    name = "starred_targets"

    def transform(self, unit) -> bool:
        self.unit = unit
        self.changed = False
        unit.tree.body = syntax.rewrite_statements(unit.tree.body, self._statement)
        return self.changed

    def _statement(self, stmt) -> List:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and starred_position(stmt.targets[0]) is not None):
            return [stmt]
        self.changed = True
        return [syntax.set_location(new, getattr(stmt, "lineno", None)) for new in self._written_out(stmt)]

    def _written_out(self, stmt) -> List:
        target = stmt.targets[0]
        star = starred_position(target)
        names = [elt.value.id if isinstance(elt, gast.Starred) else elt.id for elt in target.elts]
        before, after = star, len(names) - star - 1
        statements = []
        if isinstance(stmt.value, gast.Name):
            items = stmt.value.id
        else:
            items = self.unit.namer.fresh("_".join(names))
            statements.append(syntax.assign(items, stmt.value))
        check = callee(self.unit, check_starred_unpacking)
        statements.append(syntax.expr_stmt(syntax.call(check, [syntax.name(items), syntax.constant(before),
                                                                syntax.constant(after)])))
        statements += [_parse(f"{name} = {items}[{i}]") for i, name in enumerate(names[:star])]
        index = self.unit.namer.fresh("index")
        statements.append(_parse(f"{names[star]} = []"))
        end = f"len({items}) - {after}" if after else f"len({items})"
        statements.append(_parse(f"for {index} in range({before}, {end}):\n"
                                 f"    {names[star]}.append({items}[{index}])"))
        statements += [_parse(f"{name} = {items}[{i - after}]") for i, name in enumerate(names[star + 1:])]
        return statements


def _parse(text: str):
    """The statement ``text``, its builtins (``range``, ``len``) resolved as ``resolve`` would have."""
    stmt = gast.parse(text).body[0]
    for node in syntax.walk(stmt):
        for attribute in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            node.__dict__.pop(attribute, None)   # the user's line, given by set_location
        if isinstance(node, gast.Name) and node.id in ("range", "len"):
            syntax.annotate(node, "ref", getattr(builtins, node.id))
    return stmt
