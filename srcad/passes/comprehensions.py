"""Part of ``desugar``: list comprehensions become append loops.

Contract: ``lower_comprehensions(unit, block)`` returns ``block`` with every
list comprehension in a statement's own expressions (nested blocks
included) replaced by a name, built just before the statement:
``ys = [f(x) for x in xs if c]`` becomes ``items = []``, ``for x_2 in xs:
if c: items.append(f(x_2))``, ``ys = items``.  The comprehension's targets
get fresh names (they are local to it in Python).  A comprehension in a
``while`` test raises ``UnsupportedSyntaxError`` (the test runs on every
iteration, so nothing can be built before it).

Example: ``return np.sum([v * 3 for v in a])`` becomes ``items = []``, ``for
v_2 in a: items.append(v_2 * 3)``, ``return np.sum(items)``.
"""
from __future__ import annotations

from typing import List

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..analysis.blocks import hoist_from_expressions


def lower_comprehensions(unit, block) -> List:
    """``block`` with its list comprehensions lowered to append loops (see the module docstring)."""
    result = []
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(stmt, field, lower_comprehensions(unit, getattr(stmt, field)))
        before = []
        stmt = hoist_from_expressions(stmt, _ComprehensionLowering(unit, before), before,
                                      lambda test: _refuse_comprehension(unit, test))
        result += before + [stmt]
    return result


def _refuse_comprehension(unit, test):
    for node in gast.walk(test):
        if isinstance(node, gast.ListComp):
            raise unit.error(node, UnsupportedSyntaxError, "a comprehension in a while test",
                             "build the list before the loop")


class _ComprehensionLowering(gast.NodeTransformer):
    """Replace list comprehensions by a name, appending the loop that builds it to ``before``."""

    def __init__(self, unit, before):
        self.unit = unit
        self.before = before

    def visit_ListComp(self, node):
        self.generic_visit(node)
        result = self.unit.namer.fresh("items")
        renames = {}
        for generator in node.generators:
            for target in gast.walk(generator.target):
                if isinstance(target, gast.Name):
                    renames[target.id] = self.unit.namer.fresh(target.id)
        element = syntax.rename(syntax.clone(node.elt), renames)
        innermost = [syntax.expr_stmt(syntax.call(syntax.dotted(f"{result}.append"), [element]))]
        for generator in reversed(node.generators):
            if generator.is_async:
                raise self.unit.error(node, UnsupportedSyntaxError, "an async comprehension",
                                      "use a plain loop")
            for condition in reversed(generator.ifs):
                innermost = [gast.If(test=syntax.rename(syntax.clone(condition), renames), body=innermost,
                                     orelse=[])]
            target = syntax.rename(syntax.clone(generator.target), renames)
            iterator = syntax.rename(syntax.clone(generator.iter), renames)
            innermost = [gast.For(target=target, iter=iterator, body=innermost, orelse=[], type_comment=None)]
        self.before += [syntax.assign(result, gast.List(elts=[], ctx=gast.Load()))] + innermost
        return syntax.name(result)
