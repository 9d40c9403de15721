"""Transformation: the ``try`` and ``with`` statements of the derivative, from the markers that stood for them.

Contract: runs last, on the derivative function.  It replaces every marker of
``srcad.runtime.regions`` (so none is left in generated code):
- ``ok_2 = attempted()`` and the ``if ok_2:`` after it become ``try: <the
  operation>`` ``except <types> [as error]: ok_2 = False [; caught = error]``
  ``else: ok_2 = True; <the rest of the branch>``.  Only f's own statement
  and the tape pushes before it run inside ``try``: derivative statements
  (tangents) move to the ``else`` part, so an exception a derivative raises
  is never taken for one of f's, and pushes an exception interrupts are taken
  off the tape again (``del tape[mark:]``).  ``attempt_end(v)`` goes, and
  ``caught = no_exception()`` becomes ``caught = None``;
- ``entered(manager, k)``, the statements after it and ``exited(k)`` of one
  block become ``with manager [as name]:`` around those statements (``name``
  from ``name = entered_value(k)``).  A manager reading a value being
  differentiated raises ``UnsupportedSyntaxError``; one not known never to
  swallow an exception is wrapped in ``unsuppressed(...)``.
Returns whether it replaced anything.

Example: in reverse mode the forward sweep's ``ok = attempted()``, ``if
ok: L = np.linalg.cholesky(K); attempt_end(L)`` becomes ``try: L =
np.linalg.cholesky(K)`` ``except np.linalg.LinAlgError: ok = False`` ``else:
ok = True``.
"""
from __future__ import annotations

from typing import List

import gast

from ..analysis.blocks import closed_under
from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotate, annotation
from ..runtime import regions
from .attempts import ATTEMPT, plain_manager
from .frame import PAIR
from .numpy_forms import callee
from . import Transformation

def _flags(tree, found):
    """The attempts' flags ``found`` and the names copied from them (``ok = ok_4``: a loop's or a branch's outcome)."""
    copies = [(node.targets[0].id, node.value.id) for node in gast.walk(tree) if isinstance(node, gast.Assign)
              and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Name)]
    return closed_under(found, copies)


def _text(comment) -> str:
    return comment.value.args[0].value


def _handlers_only(stmt, flags) -> bool:
    """``if ok: pass else: <handlers>``: a branch on an attempt's outcome that acts only when it failed."""
    return (isinstance(stmt, gast.If) and isinstance(stmt.test, gast.Name) and stmt.test.id in flags
            and stmt.orelse and all(isinstance(s, gast.Pass) or syntax.is_comment(s) for s in stmt.body))


def _negated(stmt) -> gast.If:
    return gast.copy_location(gast.If(test=gast.UnaryOp(op=gast.Not(), operand=stmt.test), body=stmt.orelse,
                                      orelse=[]), stmt)


_MARKERS = (regions.attempted, regions.attempt_end, regions.no_exception, regions.entered, regions.entered_value,
            regions.exited)


class Regions(Transformation):
    """Turn region markers into ``try`` and ``with`` statements (see the module docstring)."""

    name = "regions"

    def transform(self, unit):
        self.unit = unit
        objects = unit.bindings.objects
        self.names = {name: obj for name, obj in objects.items() if any(obj is marker for marker in _MARKERS)}
        if not self.names:
            return False
        self.tape = (unit.facts.get("reverse") or {}).get("tape")
        self.flags = _flags(unit.tree, {node.targets[0].id for node in gast.walk(unit.tree)
                                        if isinstance(node, gast.Assign) and self._marker(node.value)
                                        is regions.attempted})
        unit.tree.body = self._block(unit.tree.body)
        for name in self.names:   # the markers are gone: their names need no binding
            objects.pop(name, None)
        return True

    def _marker(self, node):
        """The marker ``node`` calls, or None."""
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            return self.names.get(node.func.id)
        return None

    def _block(self, block) -> List:
        result, index = [], 0
        while index < len(block):
            stmt = block[index]
            index += 1
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            value = getattr(stmt, "value", None)
            marker = self._marker(value) if isinstance(stmt, (gast.Assign, gast.Expr)) else None
            if marker is regions.no_exception:
                stmt.value = syntax.constant(None)
            elif marker is regions.attempted:
                position = next((p for p in range(index, len(block)) if isinstance(block[p], gast.If)
                                 and isinstance(block[p].test, gast.Name)
                                 and block[p].test.id == stmt.targets[0].id), None)
                if position is None:   # the branch went as dead code: its flag is read no more
                    continue
                result += block[index:position]
                heading = result[-1] if result and syntax.is_comment(result[-1]) else None
                result += self._attempt(stmt, block[position], heading)
                index = position + 1
                continue
            elif marker is regions.entered:
                end = next(p for p in range(index, len(block)) if self._marker(getattr(block[p], "value", None))
                           is regions.exited and block[p].value.args[0].value == value.args[1].value)
                body = self._block(block[index:end])
                while body and syntax.is_comment(body[-1]):   # the comment that headed the end marker
                    body.pop()
                result.append(self._with(stmt, body))
                index = end + 1
                continue
            result.append(_negated(stmt) if _handlers_only(stmt, self.flags) else stmt)
        return result

    # try ------------------------------------------------------------------------------
    def _attempt(self, marker, branch, heading) -> List:
        info = annotation(marker, ATTEMPT)
        flag = marker.targets[0].id
        body = self._block(branch.body)
        if heading is not None and body and syntax.is_comment(body[0]) and _text(body[0]) == _text(heading):
            body.pop(0)   # the line is quoted just above
        end = next((p for p, s in enumerate(body) if self._marker(getattr(s, "value", None)) is regions.attempt_end),
                   None)
        assert end is not None, "an attempt lost its end marker"
        guarded, rest = [], []
        for stmt in body[:end]:   # f's statement and the pushes before it; derivative code runs after
            derivative = isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Expr)) and not syntax.is_comment(stmt) \
                and not syntax.annotation(stmt, "primal") and annotation(stmt, PAIR) is None
            (rest if derivative else guarded).append(stmt)
        if not any(syntax.annotation(stmt, "primal") for stmt in guarded):
            raise self.unit.error(marker, UnsupportedSyntaxError,
                                  "a call of a function srcad does not inline, inside a `try` body: in forward "
                                  "mode it runs together with its derivative, so an exception of the derivative "
                                  "could be taken for one of f's",
                                  "use reverse mode (`srcad.grad(f)`), which calls the function alone, or make "
                                  "the call before the `try` statement")
        closing = body[end].value.args
        if closing and not isinstance(closing[0], gast.Name):   # its value was folded into the marker
            guarded.append(syntax.expr_stmt(closing[0]))
        rest += body[end + 1:]
        error = self.unit.namer.fresh("error") if info.caught else None
        on_error = [syntax.assign(flag, syntax.constant(False))]
        if info.caught:
            on_error.append(syntax.assign(info.caught, syntax.name(error)))
        setup = []
        if self.tape and any(annotation(s, PAIR) is not None for s in guarded):
            mark = self.unit.namer.fresh("tape_length")
            setup.append(syntax.assign(mark, syntax.call(syntax.name("len"), [syntax.name(self.tape)])))
            on_error.append(gast.Delete(targets=[gast.Subscript(
                value=syntax.name(self.tape), slice=gast.Slice(lower=syntax.name(mark), upper=None, step=None),
                ctx=gast.Del())]))
        types = None if info.types is None else (
            syntax.clone(info.types[0]) if len(info.types) == 1 else gast.Tuple(elts=syntax.clone(info.types),
                                                                               ctx=gast.Load()))
        if types is None and error:   # a bare `except` binds no name
            types = syntax.name("BaseException")
            annotate(types, "ref", BaseException)
        handler = gast.ExceptHandler(type=types, name=syntax.store(error) if error else None, body=on_error)
        tail = branch.orelse
        done = [syntax.assign(flag, syntax.constant(True))] + ([] if tail else rest)
        code = setup + [gast.Try(body=guarded or [gast.Pass()], handlers=[handler], orelse=done, finalbody=[])]
        if tail:   # the other arm does something (the handlers, a tangent made zero): a branch on the outcome
            outcome = gast.If(test=syntax.name(flag), body=rest or [gast.Pass()], orelse=self._block(tail))
            code.append(outcome if rest else _negated(outcome))
        return [syntax.set_location(node, marker.lineno) for node in code]

    # with -----------------------------------------------------------------------------
    def _with(self, opening, body) -> gast.With:
        manager = opening.value.args[0]
        activity = self.unit.facts.get("activity")
        varied = sorted(syntax.loaded_names(manager) & set(activity.varied)) if activity is not None else []
        if varied:
            raise self.unit.error(manager, UnsupportedSyntaxError,
                                  f"a context manager made from `{varied[0]}`, a value being differentiated",
                                  "make the manager from values that are not differentiated, or pass "
                                  f"srcad.stop_gradient({varied[0]})")
        name = None
        for position, stmt in enumerate(body):
            if isinstance(stmt, gast.Assign) and self._marker(stmt.value) is regions.entered_value:
                name = body.pop(position).targets[0].id
                break
        if not plain_manager(manager):
            manager = syntax.call(callee(self.unit, regions.unsuppressed), [manager])
        item = gast.withitem(context_expr=manager, optional_vars=syntax.store(name) if name else None)
        return syntax.set_location(gast.With(items=[item], body=body or [gast.Pass()], type_comment=None),
                                   opening.lineno)
