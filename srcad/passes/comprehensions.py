"""Part of ``iteration`` and ``desugar``: list comprehensions become append loops, assignment expressions
become statements.

Contract: ``lower_comprehensions(unit, block)`` returns ``block`` with every
list comprehension in a statement's own expressions (nested blocks and local
``def`` bodies included, lambda bodies not: they run when called, so the
comprehension is lowered once ``inline`` has put the lambda's body in place)
replaced by a name, built just before the statement: ``ys = [f(x) for x in
xs if c]`` becomes ``items = []``, ``for x_2 in xs: if c:
items.append(f(x_2))``, ``ys = items``.  The comprehension's targets get
fresh names (they are local to it in Python).  A comprehension in a
``while`` test raises ``UnsupportedSyntaxError`` (the test runs on every
iteration, so nothing can be built before it).

``lower_assignment_expressions(unit, block)`` returns ``block`` with each
``(y := e)`` replaced by ``y``, after ``y = e`` placed just before the
statement; a ``while`` test holding one becomes ``while True:`` whose body
first assigns, then leaves when the test fails.  It raises
``UnsupportedSyntaxError`` where Python would evaluate ``e`` only
conditionally or after a read of ``y`` in the same expression (inside
``and``/``or`` after their first operand, an ``... if ... else ...``, a
lambda), which moving it first would change.

Example: ``return np.sum([v * 3 for v in a])`` becomes ``items = []``, ``for
v_2 in a: items.append(v_2 * 3)``, ``return np.sum(items)``; ``if (n :=
len(x)) > 2:`` becomes ``n = len(x)`` then ``if n > 2:``.
"""
from __future__ import annotations

from typing import List

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..analysis.blocks import hoist_from_expressions

_NESTED_BODIES = ("body", "orelse", "finalbody")


def _lower_nested(unit, stmt, lower) -> None:
    """Apply ``lower(unit, block)`` to every block nested in ``stmt``."""
    if isinstance(stmt, (gast.If, gast.For, gast.While, gast.Try, gast.With, gast.FunctionDef)):
        for field in _NESTED_BODIES:
            if getattr(stmt, field, None):
                setattr(stmt, field, lower(unit, getattr(stmt, field)))
    if isinstance(stmt, gast.Try):
        for handler in stmt.handlers:
            handler.body = lower(unit, handler.body)


def _own_expressions(stmt, rewriter, before, on_while_test):
    """``hoist_from_expressions``, for compound statements without expressions of their own too."""
    if isinstance(stmt, (gast.Try, gast.FunctionDef)):
        return stmt
    if isinstance(stmt, gast.With):
        for item in stmt.items:
            item.context_expr = rewriter.visit(item.context_expr)
        for new in before:
            syntax.set_location(new, stmt.lineno)
        return stmt
    return hoist_from_expressions(stmt, rewriter, before, on_while_test)


def lower_comprehensions(unit, block) -> List:
    """``block`` with its list comprehensions lowered to append loops (see the module docstring)."""
    result = []
    for stmt in block:
        _lower_nested(unit, stmt, lower_comprehensions)
        before = []
        stmt = _own_expressions(stmt, _ComprehensionLowering(unit, before), before,
                                lambda test: _refuse_in_while_test(unit, test, gast.ListComp, "a comprehension"))
        result += before + [stmt]
    return result


def _refuse_in_while_test(unit, test, kind, what):
    for node in gast.walk(test):
        if isinstance(node, kind):
            raise unit.error(node, UnsupportedSyntaxError, f"{what} in a while test",
                             "build the list before the loop")


class _ComprehensionLowering(gast.NodeTransformer):
    """Replace list comprehensions by a name, appending the loop that builds it to ``before``."""

    def __init__(self, unit, before):
        self.unit = unit
        self.before = before

    def visit_Lambda(self, node):
        return node   # its body runs when it is called

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
        for index, generator in reversed(list(enumerate(node.generators))):
            if generator.is_async:
                raise self.unit.error(node, UnsupportedSyntaxError, "an async comprehension",
                                      "use a plain loop")
            for condition in reversed(generator.ifs):
                innermost = [gast.If(test=syntax.rename(syntax.clone(condition), renames), body=innermost,
                                     orelse=[])]
            target = syntax.rename(syntax.clone(generator.target), renames)
            # the first iterable is read in the enclosing scope, before any target is bound: `x for x in x`
            iterator = syntax.clone(generator.iter) if index == 0 else syntax.rename(syntax.clone(generator.iter),
                                                                                    renames)
            innermost = [gast.For(target=target, iter=iterator, body=innermost, orelse=[], type_comment=None)]
        self.before += [syntax.assign(result, gast.List(elts=[], ctx=gast.Load()))] + innermost
        return syntax.name(result)


# assignment expressions ----------------------------------------------------------

def lower_assignment_expressions(unit, block) -> List:
    """``block`` with every ``(y := e)`` made the statement ``y = e`` (see the module docstring)."""
    result = []
    for stmt in block:
        _lower_nested(unit, stmt, lower_assignment_expressions)
        if isinstance(stmt, gast.While) and _holds_walrus(stmt.test):
            stmt = _while_true(stmt)
            stmt.body = lower_assignment_expressions(unit, stmt.body)
            result.append(stmt)
            continue
        if not _holds_walrus(stmt if not isinstance(stmt, (gast.If, gast.For)) else
                             (stmt.test if isinstance(stmt, gast.If) else stmt.iter)):
            result.append(stmt)
            continue
        before = []
        stmt = _own_expressions(stmt, _WalrusLowering(unit, before, stmt), before, lambda test: None)
        bare = isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name)   # `(y := e)` alone
        result += before + ([] if bare else [stmt])
    return result


def _holds_walrus(node) -> bool:
    return node is not None and any(isinstance(sub, gast.NamedExpr) for sub in gast.walk(node))


def _while_true(loop):
    """``while (y := e) > 0: body`` as ``while True: if not ((y := e) > 0): break`` then ``body``."""
    leave = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=loop.test), body=[gast.Break()], orelse=[])
    syntax.set_location(leave, loop.lineno)
    new = gast.While(test=syntax.constant(True), body=[leave] + loop.body, orelse=loop.orelse)
    return gast.copy_location(new, loop)


class _WalrusLowering(gast.NodeTransformer):
    """Replace ``(y := e)`` by ``y``, appending ``y = e`` to ``before``; refuse conditional evaluation."""

    def __init__(self, unit, before, stmt):
        self.unit, self.before, self.stmt = unit, before, stmt
        self.conditional = 0
        self.read_before = set()   # names read so far, left to right

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.read_before.add(node.id)
        return node

    def visit_BoolOp(self, node):
        node.values[0] = self.visit(node.values[0])
        self.conditional += 1
        node.values[1:] = [self.visit(value) for value in node.values[1:]]
        self.conditional -= 1
        return node

    def _conditional_visit(self, node):
        self.conditional += 1
        node = self.generic_visit(node)
        self.conditional -= 1
        return node

    visit_IfExp = visit_Lambda = visit_ListComp = _conditional_visit

    def visit_NamedExpr(self, node):
        node.value = self.visit(node.value)
        name = node.target.id
        if self.conditional:
            raise self.unit.error(node, UnsupportedSyntaxError,
                                  "the walrus operator `:=` where Python may not evaluate it (after `and`/`or`, "
                                  "in `... if ... else ...`, a lambda or a comprehension)",
                                  f"assign `{name} = ...` in a statement of its own before")
        if name in self.read_before:
            raise self.unit.error(node, UnsupportedSyntaxError,
                                  f"the walrus operator `:=` rebinding `{name}` after the same expression read it",
                                  f"assign `{name} = ...` in a statement of its own")
        self.before.append(gast.Assign(targets=[syntax.store(name)], value=node.value, type_comment=None))
        self.read_before.add(name)
        return syntax.name(name)
