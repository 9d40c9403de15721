"""Transformation: structured control flow the mode transforms can reverse.

Contract: after this pass
- every ``for`` loop iterates over ``range(...)``: ``for x in xs`` becomes
  ``for x_index in range(len(xs)): x = xs[x_index]``, likewise ``enumerate``
  (``enumerate(xs, start)`` counts ``i = i_index + start``), ``zip`` and
  ``reversed``.  What the loop iterates over is evaluated once, before it, as
  in Python: an expression, or a name the body rebinds, is first bound to a
  new name (``items = A`` for ``for row in A: A = A * 2``);
- ``continue`` is gone and ``break`` only ends an ``if`` arm: the statements
  after an arm that leaves the iteration move into the other arm;
- list comprehensions are append loops: ``ys = [f(x) for x in xs]`` becomes
  ``items = []``, ``for x_2 in xs: items.append(f(x_2))``, ``ys = items``;
- the function has one ``return``, its last statement: a ``return`` inside a
  loop becomes a flag and a ``break``, and one inside an ``if`` arm moves the
  rest of the block into the other arm; several returns assign one variable.
Raises ``UnsupportedSyntaxError`` for ``for``/``while`` ... ``else`` and for
exits it cannot restructure, with a suggestion.

Example: ``for i in range(n): if x[i] < 0: continue; s = s + x[i]`` becomes
``for i in range(n): if x[i] < 0: pass else: s = s + x[i]`` (the ``pass`` arm
is left empty).
"""
from __future__ import annotations

import builtins
from typing import List

import gast

from ..errors import SrcadError, UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..analysis.blocks import RETURN_VALUE
from . import Transformation
from .comprehensions import lower_comprehensions

_EXITS = (gast.Break, gast.Continue, gast.Return)


def _always_exits(block) -> bool:
    """Whether every path through ``block`` ends in break/continue/return."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, _EXITS):
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
        body = self._loops(lower_comprehensions(unit, unit.tree.body))
        body = self._lower_loop_returns(body, top=True)
        body = self._restructure(body, (gast.Return,))
        unit.tree.body = self._single_return(body)
        return True

    # for loops -------------------------------------------------------------
    def _loops(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, (gast.For, gast.While)):
                if stmt.orelse:
                    raise self.unit.error(stmt, UnsupportedSyntaxError, "a loop with an `else` clause",
                                          "set a flag before `break` and test it after the loop")
                stmt.body = self._loops(stmt.body)
                if isinstance(stmt, gast.For):
                    result += self._canonical_for(stmt)
                else:
                    stmt.body = self._restructure(stmt.body, (gast.Break, gast.Continue))
                    result.append(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body, stmt.orelse = self._loops(stmt.body), self._loops(stmt.orelse)
                result.append(stmt)
            else:
                result.append(stmt)
        return result

    def _canonical_for(self, loop) -> List:
        iterator, target = loop.iter, loop.target
        builtin = annotation(iterator.func, "ref") if isinstance(iterator, gast.Call) else None
        before, prologue = [], []
        if builtin is builtins.range:
            if not isinstance(target, gast.Name):
                raise self.unit.error(target, UnsupportedSyntaxError, "unpacking a range loop's index",
                                      "loop over range(...) with a plain name")
            new_iter = iterator
        elif builtin in (builtins.enumerate, builtins.zip, builtins.reversed):
            start = _enumerate_start(iterator) if builtin is builtins.enumerate else None
            arguments = iterator.args[:1] if builtin is builtins.enumerate else iterator.args
            if start is False:
                raise self.unit.error(iterator, UnsupportedSyntaxError, "this form of enumerate",
                                      "write `for i, x in enumerate(xs)` or `for i, x in enumerate(xs, start)`")
            sequences = [self._hoisted(arg, before, loop) for arg in arguments]
            if builtin is builtins.enumerate:
                if len(iterator.args) not in (1, 2) or not (isinstance(target, gast.Tuple) and len(target.elts) == 2
                                                            and isinstance(target.elts[0], gast.Name)):
                    raise self.unit.error(loop, UnsupportedSyntaxError, "this form of enumerate",
                                          "write `for i, x in enumerate(xs)`")
                index = target.elts[0].id
                if start is not None:   # the count is the position plus start, evaluated once
                    index = self.unit.namer.fresh(f"{index}_index")
                    first = self._hoisted(start, before, loop)
                    prologue.append(syntax.assign(target.elts[0].id, gast.BinOp(
                        left=syntax.name(index), op=gast.Add(), right=first)))
                prologue.append(_assign_item(target.elts[1], sequences[0], index))
                new_iter = _range(_len(sequences[0]))
            elif builtin is builtins.zip:
                if not (isinstance(target, gast.Tuple) and len(target.elts) == len(sequences)):
                    raise self.unit.error(loop, UnsupportedSyntaxError, "this form of zip",
                                          "unpack one name per zipped sequence")
                index = self.unit.namer.fresh("index")
                prologue += [_assign_item(t, s, index) for t, s in zip(target.elts, sequences)]
                lengths = [_len(s) for s in sequences]
                shortest = syntax.call(syntax.name("min"), lengths)
                syntax.annotate(shortest.func, "ref", builtins.min)
                new_iter = _range(lengths[0] if len(lengths) == 1 else shortest)
            else:
                index = self.unit.namer.fresh(f"{_label(target)}_index")
                prologue.append(_assign_item(target, sequences[0], index))
                last = gast.BinOp(left=_len(sequences[0]), op=gast.Sub(), right=syntax.constant(1))
                new_iter = syntax.call(syntax.name("range"), [last, syntax.constant(-1), syntax.constant(-1)])
            target = syntax.store(index)
        else:
            sequence = self._hoisted(iterator, before, loop)
            index = self.unit.namer.fresh(f"{_label(target)}_index")
            prologue.append(_assign_item(target, sequence, index))
            new_iter = _range(_len(sequence))
            target = syntax.store(index)
        annotate_range(new_iter)
        body = self._restructure(prologue + loop.body, (gast.Break, gast.Continue))
        new_loop = gast.For(target=target, iter=new_iter, body=body, orelse=[], type_comment=None)
        for node in before + [new_loop] + prologue:
            syntax.set_location(node, loop.lineno)
        return before + [new_loop]

    def _hoisted(self, node, before, loop):
        """``node`` evaluated once, before ``loop``, as Python evaluates a loop's iterable."""
        if isinstance(node, gast.Constant) or isinstance(node, gast.Name) and node.id not in syntax.stored_names(
                gast.Module(body=loop.body, type_ignores=[])):
            return node   # the body does not rebind it: every read sees what the loop iterates over
        name = self.unit.namer.fresh("items")
        before.append(syntax.assign(name, node))
        return syntax.name(name)

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


def annotate_range(call) -> None:
    """Mark a ``range(...)`` call as the builtin (for later passes)."""
    syntax.annotate(call.func, "ref", builtins.range)


def _range(stop):
    return syntax.call(syntax.name("range"), [stop])


def _len(sequence):
    call = syntax.call(syntax.name("len"), [syntax.clone(sequence)])
    syntax.annotate(call.func, "ref", builtins.len)
    return call


def _enumerate_start(call):
    """The ``start`` of ``enumerate(xs, start)`` (None when absent, False when not understood)."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if set(keywords) - {"start"} or len(call.args) > 2 or len(call.args) == 2 and keywords:
        return False
    start = keywords.get("start", call.args[1] if len(call.args) == 2 else None)
    if isinstance(start, gast.Constant) and start.value == 0 and type(start.value) is int:
        return None
    return start


def _label(target) -> str:
    return target.id if isinstance(target, gast.Name) else "item"


LOOP_ITEM = "loop_item"   # annotation of ``x = xs[x_index]`` made from ``for x in xs``


def _assign_item(target, sequence, index):
    item = gast.Subscript(value=syntax.clone(sequence), slice=syntax.name(index), ctx=gast.Load())
    target = syntax.clone(target)
    for node in gast.walk(target):
        if isinstance(node, gast.Name):
            node.ctx = gast.Store()
    assignment = gast.Assign(targets=[target], value=item, type_comment=None)
    syntax.annotate(assignment, LOOP_ITEM, True)
    return assignment


def _any_of(names):
    if len(names) == 1:
        return names[0]
    return gast.BoolOp(op=gast.Or(), values=names)
