"""Transformation: ``with`` blocks, for context managers that touch no derivative.

Contract: each ``with A as a, B: body`` (``srcad.insert_grad_of`` blocks
excepted: ``grad_hooks`` made them markers) becomes the marked region
``entered(A, 1)``, ``a = entered_value(1)``, ``entered(B, 2)``, ``body``,
``exited(2)``, ``exited(1)`` (``srcad.runtime.regions``).  The mode
transforms see ``body`` as straight-line code; the last pass, ``regions``,
puts the statements that end up between the markers of one block (the
forward sweep in reverse mode: the primal and its tape pushes; the primal and
its tangents in forward mode) back inside ``with A as a:``.  There it also
refuses a manager whose expression reads a value being differentiated, and
wraps one it does not know in ``unsuppressed(...)``, which raises if the
manager swallows an exception.  A body ending in ``return e`` keeps its value
in a new name and returns after the region.  ``with
contextlib.suppress(E): body`` is the ``try: body except E: pass`` it means.  Raises
``UnsupportedSyntaxError`` for an ``as`` target that is not a name and for
``return`` elsewhere in the body.  A ``break`` or ``continue`` of the loop
around the block sets a flag (``with_break = True``), the statements after
one that may run it go under ``if not with_break:``, and after the region
``if with_break: break`` leaves as Python would, after the manager's exit;
one inside a ``try`` or a loop's ``else`` there is refused.

Example: ``with np.errstate(divide="ignore"): y = np.log(x)`` becomes
``entered(np.errstate(divide="ignore"), 1)``, ``y = np.log(x)``, ``exited(1)``.
"""
from __future__ import annotations

import contextlib
from typing import List

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..runtime import regions
from .numpy_forms import callee
from . import Transformation


class Contexts(Transformation):
    """Replace ``with`` statements by marked regions."""

    name = "contexts"

    def transform(self, unit):
        self.unit = unit
        self.regions = 0
        unit.tree.body = self._block(unit.tree.body)
        return self.regions > 0

    def _block(self, block) -> List:
        result = []
        for stmt in block:
            for field in ("body", "orelse", "finalbody"):
                if getattr(stmt, field, None) and not isinstance(stmt, gast.With):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            for handler in getattr(stmt, "handlers", []):
                handler.body = self._block(handler.body)
            result += self._region(stmt) if isinstance(stmt, gast.With) else [stmt]
        return result

    def _region(self, stmt) -> List:
        body = self._block(stmt.body)
        manager = stmt.items[0].context_expr
        if len(stmt.items) == 1 and isinstance(manager, gast.Call) and \
                annotation(manager.func, "ref") is contextlib.suppress and stmt.items[0].optional_vars is None:
            # `with suppress(E): body` is `try: body except E: pass` (for ``exceptions``)
            caught = manager.args[0] if len(manager.args) == 1 else gast.Tuple(elts=manager.args, ctx=gast.Load())
            handler = gast.copy_location(gast.ExceptHandler(type=caught, name=None, body=[gast.Pass()]), stmt)
            return [gast.copy_location(gast.Try(body=body, handlers=[handler], orelse=[], finalbody=[]), stmt)]
        after = []
        if body and isinstance(body[-1], gast.Return):   # the value is computed inside, returned after
            value = self.unit.namer.fresh("result")
            returned = body.pop()
            body.append(syntax.set_location(syntax.assign(value, returned.value or syntax.constant(None)),
                                            returned.lineno))
            after.append(syntax.set_location(gast.Return(value=syntax.name(value)), returned.lineno))
        for inner in syntax.iter_statements(body):
            if isinstance(inner, gast.Return):
                raise self.unit.error(inner, UnsupportedSyntaxError, "`return` inside a `with` block",
                                      "set a variable in the block and `return` after it")
        flags = {}
        body = self._lift_exits(body, flags)
        before = [syntax.set_location(syntax.assign(flag, syntax.constant(False)), stmt.lineno)
                  for flag in flags.values()]
        after = [syntax.set_location(gast.If(test=syntax.name(flag), body=[exit_type()], orelse=[]), stmt.lineno)
                 for exit_type, flag in ((gast.Break, flags.get("break")), (gast.Continue, flags.get("continue")))
                 if flag] + after
        opening, closing = [], []
        for item in stmt.items:
            self.regions += 1
            region = syntax.constant(self.regions)
            opening.append(syntax.expr_stmt(syntax.call(callee(self.unit, regions.entered),
                                                        [item.context_expr, region])))
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, gast.Name):
                    raise self.unit.error(item.optional_vars, UnsupportedSyntaxError,
                                          "a `with ... as` target that is not a name",
                                          "bind it to a name (`as value`) and unpack it inside the block")
                opening.append(syntax.assign(item.optional_vars.id, syntax.call(
                    callee(self.unit, regions.entered_value), [syntax.constant(self.regions)])))
            closing.insert(0, syntax.expr_stmt(syntax.call(callee(self.unit, regions.exited),
                                                           [syntax.constant(self.regions)])))
        for new in opening + closing:
            gast.copy_location(new, stmt)   # an error about the manager points at the `with`
            syntax.set_location(new, stmt.lineno)
        return before + opening + body + closing + after

    def _lift_exits(self, block, flags) -> List:
        """``block`` with each ``break``/``continue`` of the enclosing loop made ``with_break = True`` (or
        ``with_continue``), and the statements after one that may run it guarded by ``if not with_break:``."""
        result = []
        for index, stmt in enumerate(block):
            if isinstance(stmt, (gast.Break, gast.Continue)):
                word = type(stmt).__name__.lower()
                if word not in flags:
                    flags[word] = self.unit.namer.fresh(f"with_{word}")
                result.append(syntax.set_location(syntax.assign(flags[word], syntax.constant(True)), stmt.lineno))
                return result   # what follows cannot run
            if not _leaves(stmt):
                result.append(stmt)
                continue
            if not isinstance(stmt, gast.If):
                word = type(next(node for node in _own_statements([stmt])
                                 if isinstance(node, (gast.Break, gast.Continue)))).__name__.lower()
                raise self.unit.error(stmt, UnsupportedSyntaxError,
                                      f"`{word}` inside a `with` block, in a `{type(stmt).__name__.lower()}` "
                                      f"statement there", f"set a variable in the block and `{word}` after it")
            stmt.body, stmt.orelse = self._lift_exits(stmt.body, flags), self._lift_exits(stmt.orelse, flags)
            result.append(stmt)
            set_flags = [syntax.name(flag) for flag in flags.values()]   # those the statements so far may set
            rest = self._lift_exits(block[index + 1:], flags)
            if rest:
                test = gast.UnaryOp(op=gast.Not(), operand=set_flags[0] if len(set_flags) == 1 else
                                    gast.BoolOp(op=gast.Or(), values=set_flags))
                result.append(syntax.set_location(gast.If(test=test, body=rest, orelse=[]), rest[0].lineno))
            return result
        return result


def _own_statements(block) -> List:
    """The statements of ``block`` and of the compound statements in it, but not inside loops or functions
    (a ``break`` there belongs to them)."""
    found = []
    for stmt in block:
        found.append(stmt)
        if isinstance(stmt, (gast.For, gast.While)):
            found += _own_statements(stmt.orelse)
        elif not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                found += _own_statements(getattr(stmt, field, None) or [])
            for handler in getattr(stmt, "handlers", []):
                found += _own_statements(handler.body)
    return found


def _leaves(stmt) -> bool:
    """Whether ``stmt`` may run a ``break`` or ``continue`` of the loop around its ``with`` block."""
    return any(isinstance(node, (gast.Break, gast.Continue)) for node in _own_statements([stmt]))
