"""Analysis: reject constructs srcad cannot differentiate, before any rewriting.

Contract: raises ``UnsupportedSyntaxError`` at the first unsupported node, with
``file:line:col``, the line with a caret, and what to write instead.  Stores
nothing useful in ``facts`` (the supported set is the contract).  What is
refused here has no derivative meaning or belongs outside the function:
``yield``, ``async``, ``await``, ``global``/``nonlocal`` writes, classes and
imports inside the function, ``*`` unpacking (but for ``zip(*rows)``) and
``del`` of an element or attribute.  Later passes refuse the forms of
supported constructs they cannot make exact (``exceptions``, ``contexts``).

Example: ``def f(x): yield x`` fails with "`yield` is not supported; ...".
"""
from __future__ import annotations

import gast

from ..errors import UnsupportedSyntaxError
from .grad_hooks import is_hook_block
from .starred_targets import starred_position
from . import Analysis

_STATEMENT_HINTS = {
    gast.Global: "pass the value as an argument instead of writing a global",
    gast.Nonlocal: "pass the value as an argument instead of writing an enclosing variable",
    gast.ClassDef: "define the class outside the differentiated function",
    gast.AsyncFunctionDef: "differentiate a plain (non-async) function",
    gast.AsyncFor: "differentiate a plain (non-async) function",
    gast.AsyncWith: "differentiate a plain (non-async) function",
    gast.Import: "import at module level",
    gast.ImportFrom: "import at module level",
}
_EXPRESSION_HINTS = {
    gast.Yield: "return a value instead of yielding",
    gast.YieldFrom: "return a value instead of yielding",
    gast.Await: "differentiate a plain (non-async) function",
    gast.Starred: "pass arguments explicitly instead of unpacking with *",
}
_NAMES = {
    gast.If: "`if` statement", gast.For: "`for` loop", gast.While: "`while` loop",
    gast.Try: "`try` statement", gast.With: "`with` statement", gast.Delete: "`del` statement",
    gast.Global: "`global` statement", gast.Nonlocal: "`nonlocal` statement",
    gast.ClassDef: "a class defined inside the function", gast.FunctionDef: "a nested def",
    gast.AsyncFunctionDef: "an async def", gast.AsyncFor: "`async for`",
    gast.AsyncWith: "`async with`", gast.Raise: "`raise` statement", gast.Import: "`import` statement",
    gast.ImportFrom: "`import` statement", gast.Lambda: "a lambda", gast.ListComp: "a list comprehension",
    gast.SetComp: "a set comprehension", gast.DictComp: "a dict comprehension",
    gast.GeneratorExp: "a generator expression", gast.Yield: "`yield`", gast.YieldFrom: "`yield from`",
    gast.Await: "`await`", gast.NamedExpr: "the walrus operator `:=`",
    gast.IfExp: "a conditional expression (`a if c else b`)", gast.BoolOp: "`and`/`or`",
    gast.Starred: "`*` unpacking", gast.JoinedStr: "an f-string", gast.Set: "a set literal",
}


class SyntaxCheck(Analysis):
    """Fail early, at the user's line, on anything the transforms do not handle."""

    name = "syntax_check"

    def analyse(self, unit):
        args = unit.tree.args
        if args.vararg is not None or args.kwarg is not None:
            raise unit.error(unit.tree, UnsupportedSyntaxError,
                             f"`*{(args.vararg or args.kwarg).id}` parameters are not supported",
                             "name each parameter explicitly")
        _check_deletes(unit)
        unpacked = set()   # `*rows` in zip(*rows): the loop lowering reads rows' length
        for stmt in unit.tree.body:
            for node in _walk_outside_local_defs(stmt):
                if is_hook_block(node):   # its body is user code for the backward pass, not differentiated
                    continue
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "zip":
                    unpacked.update(id(arg) for arg in node.args if isinstance(arg, gast.Starred))
                if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                        and starred_position(node.targets[0]) is not None:   # a, *rest = items: starred_targets
                    unpacked.add(id(node.targets[0].elts[starred_position(node.targets[0])]))
                if isinstance(node, gast.Starred) and isinstance(node.ctx, gast.Store) and id(node) not in unpacked:
                    raise unit.error(node, UnsupportedSyntaxError, "this starred target is not supported",
                                     "unpack into plain names with one `*name` in an assignment of its own, "
                                     "e.g. `for row in rows: first, *rest = row`")
                hint = _STATEMENT_HINTS.get(type(node)) or _EXPRESSION_HINTS.get(type(node))
                if hint is not None and id(node) not in unpacked:
                    raise unit.error(node, UnsupportedSyntaxError,
                                     f"{_NAMES[type(node)]} is not supported", hint)
        return True


def _check_deletes(unit) -> None:
    """``del name`` only (deleting an element or attribute changes a container in place), and never followed
    by a read of the name before it is bound again: srcad drops the ``del``, so such a read would not fail."""
    for stmt, loops in _with_loops(unit.tree.body, ()):
        if not isinstance(stmt, gast.Delete):
            continue
        for target in stmt.targets:
            if not isinstance(target, gast.Name):
                raise unit.error(stmt, UnsupportedSyntaxError, "`del` of an element or attribute is not supported",
                                 "build a new container without the item (`ys = ys[:i] + ys[i + 1:]`)")
            scopes = [unit.tree.body] + [loop.body for loop in loops]
            for scope, after in zip(scopes, [target] + [None] * len(loops)):
                first = _first_use(scope, target.id, after)
                if first is not None and isinstance(first.ctx, gast.Load):
                    raise unit.error(first, UnsupportedSyntaxError, f"reading `{target.id}` after `del {target.id}`",
                                     f"bind `{target.id}` again before reading it, or drop the `del`")


def _with_loops(block, loops):
    """Every statement below ``block`` with the loops around it (innermost last)."""
    for stmt in block:
        yield stmt, loops
        inner = loops + (stmt,) if isinstance(stmt, (gast.For, gast.While)) else loops
        for field in ("body", "orelse", "finalbody"):
            yield from _with_loops(getattr(stmt, field, None) or [], inner)
        for handler in getattr(stmt, "handlers", []):
            yield from _with_loops(handler.body, inner)


def _first_use(block, name, after):
    """The first ``Name`` node of ``name`` in ``block``'s source order (after the node ``after``, if given)."""
    start = (after.lineno, after.col_offset + 1) if after is not None else (0, -1)
    uses = [node for stmt in block for node in gast.walk(stmt) if isinstance(node, gast.Name) and node.id == name
            and (node.lineno, node.col_offset) >= start]
    return min(uses, key=lambda node: (node.lineno, node.col_offset), default=None)


def _walk_outside_local_defs(stmt):
    """Every node below ``stmt``, except the defining parts of local functions (checked inside only)."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda):
        yield from gast.walk(stmt.value.body)
        return
    if isinstance(stmt, gast.FunctionDef):
        for inner in stmt.body:
            yield from _walk_outside_local_defs(inner)
        return
    if is_hook_block(stmt):
        yield stmt
        yield from gast.walk(stmt.items[0].context_expr)
        return
    if isinstance(stmt, (gast.If, gast.For, gast.While)):
        yield stmt
        for part in (getattr(stmt, "test", None), getattr(stmt, "iter", None), getattr(stmt, "target", None)):
            if part is not None:
                yield from gast.walk(part)
        for inner in stmt.body + stmt.orelse:
            yield from _walk_outside_local_defs(inner)
        return
    yield from gast.walk(stmt)
