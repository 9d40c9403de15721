"""Transformation: structured control flow the mode transforms can reverse.

Contract: after this pass
- every ``for`` loop iterates over ``range(...)`` (``loops``): ``for x in xs``
  becomes ``for x_index in range(len(xs)): x = xs[x_index]``, likewise
  ``enumerate`` (``enumerate(xs, start)`` counts ``i = i_index + start``),
  ``zip``, ``reversed``, ``map`` and their nestings (``enumerate(zip(a, b))``,
  ``zip(*rows)``).  What the loop iterates over is evaluated once, before it,
  as in Python: an expression, or a name the body rebinds, is first bound to a
  new name (``items = A`` for ``for row in A: A = A * 2``);
- a loop's ``else`` clause follows the loop, under a flag (``no_break``) its
  ``break`` statements clear, or unguarded when the loop has no ``break``;
- ``continue`` is gone and ``break`` only ends an ``if`` arm: the statements
  after an arm that leaves the iteration move into the other arm;
- list comprehensions are append loops: ``ys = [f(x) for x in xs]`` becomes
  ``items = []``, ``for x_2 in xs: items.append(f(x_2))``, ``ys = items``,
  and assignment expressions are statements (``comprehensions``);
- the function has one ``return``, its last statement: a ``return`` inside a
  loop becomes a flag and a ``break``, and one inside an ``if`` arm moves the
  rest of the block into the other arm; several returns assign one variable.
  A path may end in ``raise`` instead of a return.
Raises ``UnsupportedSyntaxError`` for exits it cannot restructure, with a
suggestion.

Example: ``for i in range(n): if x[i] < 0: continue; s = s + x[i]`` becomes
``for i in range(n): if x[i] < 0: pass else: s = s + x[i]`` (the ``pass`` arm
is left empty).
"""
from __future__ import annotations

from typing import List

import gast

from ..errors import SrcadError
from ..frontend import syntax
from ..analysis.blocks import RETURN_VALUE
from . import Transformation
from .comprehensions import lower_comprehensions
from .loops import LOOP_ITEM, CanonicalLoops
from .normalize import NEGATED_CHECK

__all__ = ["Desugar", "LOOP_ITEM", "RETURN_VALUE"]   # LOOP_ITEM, RETURN_VALUE: read by aliasing

_EXITS = (gast.Break, gast.Continue, gast.Return)


def _always_exits(block) -> bool:
    """Whether every path through ``block`` ends in break/continue/return/raise."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, _EXITS + (gast.Raise,)):
        return True
    if isinstance(last, gast.If):
        return _always_exits(last.body) and _always_exits(last.orelse)
    return False


def _may_exit(block, kinds) -> bool:
    for stmt in block:
        if isinstance(stmt, kinds):
            return True
        if isinstance(stmt, gast.If) and (_may_exit(stmt.body, kinds) or _may_exit(stmt.orelse, kinds)):
            return True
        if isinstance(stmt, (gast.For, gast.While)) and gast.Return in kinds and \
                _may_exit(stmt.body, (gast.Return,)):
            return True
    return False


class Desugar(Transformation):
    """Canonical loops, tail-position exits and a single return."""

    name = "desugar"

    def transform(self, unit):
        self.unit = unit
        self.result_name = None
        self.canonical = CanonicalLoops(unit, lambda block: self._restructure(block, (gast.Break, gast.Continue)))
        body = self._loops(lower_comprehensions(unit, unit.tree.body))
        body = self._lower_loop_returns(body, top=True)
        body = self._restructure(body, (gast.Return,))
        unit.tree.body = _flatten_raising_arms(self._single_return(body))
        return True

    # for loops -------------------------------------------------------------
    def _loops(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, (gast.For, gast.While)):
                before, after = self._loop_else(stmt)
                result += before
                stmt.body = self._loops(stmt.body)
                if isinstance(stmt, gast.For):
                    result += self.canonical.rewrite(stmt)
                else:
                    stmt.body = self._restructure(stmt.body, (gast.Break, gast.Continue))
                    result.append(stmt)
                result += self._loops(after)
            elif isinstance(stmt, gast.If):
                stmt.body, stmt.orelse = self._loops(stmt.body), self._loops(stmt.orelse)
                result.append(stmt)
            else:
                result.append(stmt)
        return result

    def _loop_else(self, loop):
        """A loop's ``else`` as statements (before, after) it: after it, guarded by a flag its ``break``s
        clear, if it has any."""
        if not loop.orelse:
            return [], []
        orelse, loop.orelse = loop.orelse, []
        if not _may_exit(loop.body, (gast.Break,)):
            return [], orelse   # no break: the else clause always runs
        flag = self.unit.namer.fresh("no_break")
        loop.body = _flag_breaks(loop.body, flag)
        return ([syntax.set_location(syntax.assign(flag, syntax.constant(True)), loop.lineno)],
                [syntax.set_location(gast.If(test=syntax.name(flag), body=orelse, orelse=[]), loop.lineno)])

    # exits -------------------------------------------------------------------
    def _restructure(self, block, kinds) -> List:
        """Move what follows an exiting ``if`` arm into the other arm; drop tail ``continue``."""
        result = []
        for index, stmt in enumerate(block):
            rest = block[index + 1:]
            if isinstance(stmt, _EXITS):
                if not isinstance(stmt, gast.Continue):
                    result.append(stmt)
                return result
            if isinstance(stmt, gast.If) and _may_exit([stmt], kinds):
                body_exits, else_exits = _always_exits(stmt.body), _always_exits(stmt.orelse)
                if not (body_exits or else_exits) and rest:
                    # an exit deeper inside must also skip what follows here: leave through flags, seeing
                    # the arms' exits as written (restructuring them first would drop a nested `continue`)
                    return result + self._flagged(stmt, rest, kinds)
                stmt.body = self._restructure(stmt.body, kinds)
                stmt.orelse = self._restructure(stmt.orelse, kinds)
                if not (body_exits or else_exits):
                    result.append(stmt)
                    return result
                if body_exits and not else_exits:
                    stmt.orelse = self._restructure(stmt.orelse + rest, kinds)
                elif else_exits and not body_exits:
                    stmt.body = self._restructure(stmt.body + rest, kinds)
                result.append(stmt)
                return result
            result.append(stmt)
        return result

    def _flagged(self, stmt, rest, kinds) -> List:
        """``if`` arms that exit on some paths only: exits set flags, then one tail exit acts on them."""
        flags = {}
        replaced = self._exits_to_flags([stmt], kinds, flags)
        init = [syntax.set_location(syntax.assign(flag, syntax.constant(False)), stmt.lineno)
                for flag in flags.values()]
        tail = self._restructure(rest, kinds)
        for kind in (gast.Continue, gast.Break, gast.Return):   # innermost arm first
            if kind in flags:
                exit_stmt = {gast.Break: gast.Break(), gast.Continue: gast.Continue(),
                             gast.Return: gast.Return(value=syntax.name(self._result()))}[kind]
                tail = [syntax.set_location(gast.If(test=syntax.name(flags[kind]), body=[exit_stmt],
                                                    orelse=tail), stmt.lineno)]
        return init + replaced + self._restructure(tail, kinds)

    def _exits_to_flags(self, block, kinds, flags) -> List:
        result = []
        for index, stmt in enumerate(block):
            if isinstance(stmt, kinds):
                kind = type(stmt)
                if kind not in flags:
                    flags[kind] = self.unit.namer.fresh({gast.Break: "leaving", gast.Continue: "skipping",
                                                         gast.Return: "returning"}[kind])
                if kind is gast.Return:
                    value = stmt.value if stmt.value is not None else syntax.constant(None)
                    result.append(_return_value(syntax.assign(self._result(), value), stmt.lineno))
                result.append(syntax.set_location(syntax.assign(flags[kind], syntax.constant(True)), stmt.lineno))
                return result
            if isinstance(stmt, gast.If) and _may_exit([stmt], kinds):
                stmt.body = self._exits_to_flags(stmt.body, kinds, flags)
                stmt.orelse = self._exits_to_flags(stmt.orelse, kinds, flags)
                result.append(stmt)
                rest = block[index + 1:]
                if rest:   # what follows runs only if no flag was set
                    still = gast.UnaryOp(op=gast.Not(), operand=_any_of([syntax.name(f) for f in flags.values()]))
                    guard = gast.If(test=still, body=self._exits_to_flags(rest, kinds, flags), orelse=[])
                    result.append(syntax.set_location(guard, stmt.lineno))
                return result
            result.append(stmt)
        return result

    def _result(self) -> str:
        if self.result_name is None:
            self.result_name = self.unit.namer.fresh("result")
        return self.result_name

    def _lower_loop_returns(self, block, top=False) -> List:
        """``return e`` inside loops becomes ``result = e; returned = True; break``."""
        result = []
        for stmt in block:
            if isinstance(stmt, (gast.For, gast.While)) and _may_exit(stmt.body, (gast.Return,)):
                # each loop has its own flag, set False right before it: a later loop's flag must not
                # overwrite the one the backward pass reads to tell whether this loop returned
                self._result()
                self.flag_name = self.unit.namer.fresh("returned")
                result.append(syntax.set_location(syntax.assign(self.flag_name, syntax.constant(False)),
                                                  stmt.lineno))
                endless = (isinstance(stmt, gast.While) and isinstance(stmt.test, gast.Constant)
                           and stmt.test.value is True and not _may_exit(stmt.body, (gast.Break,)))
                stmt.body = self._restructure(self._returns_to_breaks(stmt.body), (gast.Break, gast.Continue))
                result.append(stmt)
                if endless and top:   # `while True` left only by a return: it always returned
                    result.append(syntax.set_location(gast.Return(value=syntax.name(self.result_name)),
                                                      stmt.lineno))
                    return result
                exit_check = gast.If(test=syntax.name(self.flag_name), body=[
                    gast.Return(value=syntax.name(self.result_name)) if top else gast.Break()], orelse=[])
                result.append(syntax.set_location(exit_check, stmt.lineno))
            elif isinstance(stmt, gast.If):
                stmt.body = self._lower_loop_returns(stmt.body, top)
                stmt.orelse = self._lower_loop_returns(stmt.orelse, top)
                result.append(stmt)
            else:
                result.append(stmt)
        return result

    def _returns_to_breaks(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else syntax.constant(None)
                result += [_return_value(syntax.assign(self.result_name, value), stmt.lineno)] + [
                    syntax.set_location(s, stmt.lineno) for s in (
                        syntax.assign(self.flag_name, syntax.constant(True)), gast.Break())]
            elif isinstance(stmt, gast.If):
                stmt.body, stmt.orelse = self._returns_to_breaks(stmt.body), self._returns_to_breaks(stmt.orelse)
                result.append(stmt)
            elif isinstance(stmt, (gast.For, gast.While)) and _may_exit(stmt.body, (gast.Return,)):
                # a return in an inner loop leaves the enclosing loop too
                stmt.body = self._restructure(self._returns_to_breaks(stmt.body), (gast.Break, gast.Continue))
                result.append(stmt)
                leave = gast.If(test=syntax.name(self.flag_name), body=[gast.Break()], orelse=[])
                result.append(syntax.set_location(leave, stmt.lineno))
            else:
                result.append(stmt)
        return result

    def _single_return(self, body) -> List:
        returns = [s for s in syntax.iter_statements(body) if isinstance(s, gast.Return)]
        if not returns:
            raise self.unit.error(self.unit.tree, SrcadError, f"{self.unit.tree.name} returns nothing",
                                  "return the value to differentiate")
        if len(returns) == 1 and body and body[-1] is returns[0]:
            return body
        if not _always_exits(body):
            raise self.unit.error(self.unit.tree, SrcadError,
                                  f"some paths through {self.unit.tree.name} end without a return",
                                  "return a value on every path")
        single = returns[0].value
        name = single.id if (isinstance(single, gast.Name) and all(
            isinstance(r.value, gast.Name) and r.value.id == single.id for r in returns)) else None
        out = name or self.unit.namer.fresh("out")
        body = self._assign_returns(body, out)
        final = gast.Return(value=syntax.name(out))
        syntax.set_location(final, returns[-1].lineno)
        return body + [final]

    def _assign_returns(self, block, out) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, gast.Return):
                if not (isinstance(stmt.value, gast.Name) and stmt.value.id == out):
                    result.append(_return_value(syntax.assign(out, stmt.value), stmt.lineno))
            elif isinstance(stmt, gast.If):
                stmt.body, stmt.orelse = self._assign_returns(stmt.body, out), self._assign_returns(stmt.orelse, out)
                result.append(stmt)
            else:
                result.append(stmt)
        return result




def _return_value(assignment, lineno):
    syntax.annotate(assignment, RETURN_VALUE, True)
    return syntax.set_location(assignment, lineno)


def _always_raises(block) -> bool:
    last = block[-1] if block else None
    return isinstance(last, gast.Raise) or (
        isinstance(last, gast.If) and _always_raises(last.body) and _always_raises(last.orelse))


def _flatten_raising_arms(block) -> List:
    """``if c: raise E`` ``else: rest`` as ``if c: raise E`` then ``rest`` (``if not c:`` for a raising else):
    the code after a check runs unconditionally, so nothing downstream is a branch."""
    result = []
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                setattr(stmt, field, _flatten_raising_arms(getattr(stmt, field)))
        if isinstance(stmt, gast.If) and stmt.orelse and _always_raises(stmt.body) != _always_raises(stmt.orelse):
            if _always_raises(stmt.body):
                rest, stmt.orelse = stmt.orelse, []
            else:
                rest, stmt.body, stmt.orelse = stmt.body, stmt.orelse, []
                stmt.test = gast.UnaryOp(op=gast.Not(), operand=stmt.test)
                syntax.annotate(stmt.test, NEGATED_CHECK, True)
            result += [stmt] + rest
            continue
        result.append(stmt)
    return result


def _flag_breaks(block, flag) -> List:
    """``block`` with each ``break`` of its own loop (not of a loop inside it) preceded by ``flag = False``."""
    result = []
    for stmt in block:
        if isinstance(stmt, gast.Break):
            result.append(syntax.set_location(syntax.assign(flag, syntax.constant(False)), stmt.lineno))
        elif isinstance(stmt, gast.If):
            stmt.body, stmt.orelse = _flag_breaks(stmt.body, flag), _flag_breaks(stmt.orelse, flag)
        result.append(stmt)
    return result


def _any_of(names):
    if len(names) == 1:
        return names[0]
    return gast.BoolOp(op=gast.Or(), values=names)
