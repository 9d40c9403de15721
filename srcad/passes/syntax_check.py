"""Analysis: reject constructs srcad cannot differentiate, before any rewriting.

Contract: raises ``UnsupportedSyntaxError`` at the first unsupported node, with
``file:line:col``, the line with a caret, and what to write instead.  Stores
nothing useful in ``facts`` (the supported set is the contract).

Example: ``def f(x): del x`` fails with "`del` is not supported; ...".
"""
from __future__ import annotations

import gast

from ..errors import UnsupportedSyntaxError
from .grad_hooks import is_hook_block
from . import Analysis

_STATEMENT_HINTS = {
    gast.Try: "move error handling outside the differentiated function",
    gast.With: "move the `with` block outside the differentiated function "
               "(only `with srcad.insert_grad_of(x) as dx:` is allowed inside)",
    gast.Delete: "drop the `del` statement; derivatives keep every value they read",
    gast.Global: "pass the value as an argument instead of writing a global",
    gast.Nonlocal: "pass the value as an argument instead of writing an enclosing variable",
    gast.ClassDef: "define the class outside the differentiated function",
    gast.AsyncFunctionDef: "differentiate a plain (non-async) function",
    gast.AsyncFor: "differentiate a plain (non-async) function",
    gast.AsyncWith: "differentiate a plain (non-async) function",
    gast.Raise: "check inputs before calling the derivative",
    gast.Import: "import at module level",
    gast.ImportFrom: "import at module level",
}
_EXPRESSION_HINTS = {
    gast.Lambda: "bind the lambda to a name first (`g = lambda v: ...`), then call g",
    gast.SetComp: "build the array with NumPy operations instead of a comprehension",
    gast.DictComp: "build the array with NumPy operations instead of a comprehension",
    gast.GeneratorExp: "build the array with NumPy operations instead of a generator",
    gast.Yield: "return a value instead of yielding",
    gast.YieldFrom: "return a value instead of yielding",
    gast.Await: "differentiate a plain (non-async) function",
    gast.NamedExpr: "assign with a separate `=` statement",
    gast.Starred: "pass arguments explicitly instead of unpacking with *",
    gast.JoinedStr: "format strings only outside the differentiated function",
    gast.Set: "use a tuple or list instead of a set",
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
        for stmt in unit.tree.body:
            for node in _walk_outside_local_defs(stmt):
                if is_hook_block(node):   # its body is user code for the backward pass, not differentiated
                    continue
                hint = _STATEMENT_HINTS.get(type(node)) or _EXPRESSION_HINTS.get(type(node))
                if hint is not None:
                    raise unit.error(node, UnsupportedSyntaxError,
                                     f"{_NAMES[type(node)]} is not supported", hint)
        return True


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
