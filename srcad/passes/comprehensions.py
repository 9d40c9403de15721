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

Whatever Python evaluates before a lowered comprehension in the same
statement and that could give another value once the comprehension has run
first, or that could change what it reads, is bound to a name first, in
Python's order (``bind_earlier_operands``): ``xs.pop() + sum([v for v in
xs])`` pops before the loop runs, as in Python.

Example: ``return np.sum([v * 3 for v in a])`` becomes ``items = []``, ``for
v_2 in a: items.append(v_2 * 3)``, ``return np.sum(items)``; ``if (n :=
len(x)) > 2:`` becomes ``n = len(x)`` then ``if n > 2:``.
"""
from __future__ import annotations

import functools
from typing import List, Optional

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.naming import describe
from ..frontend.syntax import annotation
from ..analysis.blocks import hoist_from_expressions
from ..analysis.mutation import MUTATING_METHODS

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
        for part in own_expressions(stmt):
            for node in _outermost(part, lambda node: isinstance(node, gast.ListComp)):
                before += lower_comprehensions(unit, bind_earlier_operands(unit, stmt, node))
        stmt = _own_expressions(stmt, _ComprehensionLowering(unit, before), before,
                                lambda test: _refuse_in_while_test(unit, test, gast.ListComp, "a comprehension"))
        result += before + [stmt]
    return result


def own_expressions(stmt) -> List:
    """The expressions ``stmt`` evaluates once, before anything else it does (not its blocks, not a ``while``
    test, which runs again and again)."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
        return [stmt.value] if stmt.value is not None else []
    if isinstance(stmt, gast.If):
        return [stmt.test]
    if isinstance(stmt, gast.For):
        return [stmt.iter]
    return []


def _outermost(root, wanted) -> List:
    """The nodes below ``root`` for which ``wanted`` holds, none inside another or inside a lambda."""
    found = []

    def visit(node):
        if wanted(node):
            found.append(node)
        elif not isinstance(node, gast.Lambda):
            for child in gast.iter_child_nodes(node):
                visit(child)
    visit(root)
    return found


def bind_earlier_operands(unit, stmt, node) -> List:
    """The assignments that bind to new names the operands of ``stmt`` Python evaluates before ``node``, each
    replaced by its name, when ``node``'s work is to run before the statement and that would change what
    one of them gives or does: when ``node`` or one of them calls something that may change state (a method
    such as ``pop``, the user's function, ``np.random``), every operand before ``node`` that is more than a
    constant or a name is bound, in Python's order.  Nothing is bound through ``and``/``or`` or a
    conditional expression (their operands may not run).  The caller lowers what the assignments hold."""
    path = _path_to(stmt, node)
    if path is None:
        return []
    earlier = []   # (holder, field, position or None, operand), in the order Python evaluates them
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, (gast.BoolOp, gast.IfExp, gast.Lambda)):
            return []
        for field, value in gast.iter_fields(parent):
            items = value if isinstance(value, list) else [value]
            for position, item in enumerate(items):
                if item is child:
                    break
                if isinstance(item, gast.expr) and not isinstance(item, (gast.Constant, gast.Name)) \
                        and not (isinstance(parent, gast.Call) and field == "func"):   # a callee stays in place
                    earlier.append((parent, field, position if isinstance(value, list) else None, item))
            else:
                continue
            break
    if not (may_change_state(node) or any(may_change_state(item) for *_, item in earlier)):
        return []
    bound = []
    for parent, field, position, item in earlier:
        name = unit.namer.fresh(describe(item))
        bound.append(syntax.set_location(syntax.assign(name, item), getattr(stmt, "lineno", None)))
        if position is None:
            setattr(parent, field, syntax.name(name))
        else:
            getattr(parent, field)[position] = syntax.name(name)
    return bound


def _path_to(root, node) -> Optional[List]:
    """The nodes from ``root`` down to ``node``, both included; None when ``node`` is not below ``root``."""
    if root is node:
        return [root]
    for child in gast.iter_child_nodes(root):
        path = _path_to(child, node)
        if path is not None:
            return [root] + path
    return None


def may_change_state(node) -> bool:
    """Whether evaluating ``node`` may change what other code reads: a call other than of NumPy (not
    ``np.random``), ``math``, ``operator`` or a builtin that changes nothing, or a method that changes its
    object (``pop``, ``append``, ``sort``...); ``functools.partial`` makes an object and changes nothing,
    ``functools.reduce`` changes what its function does."""
    for part in syntax.walk(node):
        if isinstance(part, gast.Call):
            function = annotation(part.func, "ref")
            if function is None:
                if not (isinstance(part.func, gast.Attribute) and part.func.attr not in MUTATING_METHODS):
                    return True
            elif function is functools.reduce:
                if not (part.args and pure_function(part.args[0])):
                    return True
            elif function is not functools.partial and not _pure(function):
                return True
    return False


def pure_function(node) -> bool:
    """Whether the function expression ``node`` changes nothing when called: a NumPy (not ``np.random``),
    ``math`` or ``operator`` function or a builtin that changes nothing, named or in a ``functools.partial``
    of such arguments, or a lambda whose body calls only such functions."""
    if isinstance(node, gast.Lambda):
        return not may_change_state(node.body)
    if isinstance(node, gast.Call) and annotation(node.func, "ref") is functools.partial and node.args:
        return pure_function(node.args[0]) and not any(may_change_state(part) for part in node.args[1:]
                                                       + [keyword.value for keyword in node.keywords])
    function = annotation(node, "ref")
    return function is not None and _pure(function)


def _pure(function) -> bool:
    """Whether calling ``function`` changes nothing another expression reads."""
    if isinstance(function, np.ufunc) or function in _PURE_BUILTINS:
        return True
    module = getattr(function, "__module__", None) or ""
    return (module == "numpy" or module.startswith("numpy.")) and not module.startswith("numpy.random") \
        or module in ("math", "_operator", "operator")


_PURE_BUILTINS = frozenset({abs, len, range, min, max, sum, float, int, bool, round, pow, divmod, isinstance, zip,
                            enumerate, reversed, sorted, list, tuple, dict, set, frozenset, any, all, complex, str,
                            map, filter})


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
