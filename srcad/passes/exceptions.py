"""Transformation: ``try`` statements as branches on whether the protected statements ran.

Contract: each ``try`` becomes, with a new flag ``ok`` (true while no
exception has been caught) and, when a handler needs the exception object,
``caught``:
- ``ok = True``, ``caught = no_exception()``;
- each statement of the ``try`` body ``s``, as the group ``if ok: s``
  (annotated ``GROUP`` with the exception types the handlers catch); after
  normalization ``attempts`` splits each group into one attempt per
  operation, every one of which may clear ``ok``;
- ``if ok: <else clause> else: <handlers>``, the handlers chosen by
  ``isinstance(caught, ...)`` when there are several, ``except E as e``
  binding ``e = caught``, and a bare ``raise`` in a handler raising
  ``caught``; then the ``finally`` clause.  With a ``finally`` clause every
exception of the ``try`` body is caught (a handler-less ``except`` is
added), so the ``finally`` clause runs, and then ``if not ok and not
isinstance(caught, <handled types>): raise caught`` lets an exception no
handler took leave, as Python does.
A ``return``, ``break`` or ``continue`` ending the ``try`` body runs after it,
when ``ok`` (the body's value kept in a new name).  The path taken is then a
branch like any other, recorded in reverse mode, and every statement that
ran before the exception is differentiated (``passes/attempts.py``,
``passes/regions.py``).  A ``finally`` clause runs after the handlers; a
``raise`` of a handler or the ``else`` clause (outside a loop there) keeps
its exception in ``leaving``, the statements after it run only while
``leaving is None``, and ``if leaving is not None: raise leaving`` follows
the ``finally`` clause, as in Python; an exception an operation of a handler
or of the ``else`` clause raises still leaves before the ``finally`` clause
runs (a known difference from Python).  Raises ``UnsupportedSyntaxError`` for forms it cannot make exact: a
``try`` inside a ``try`` body, an exception type that is not a class
reachable from the module (``except errors[0]:``), a ``return``, ``break``
or ``continue`` elsewhere in the ``try`` body or anywhere in a ``try`` with
``finally``.

Example: ``try: L = np.linalg.cholesky(K)`` ``except np.linalg.LinAlgError:
L = np.linalg.cholesky(K + 1e-6 * np.eye(n))`` becomes ``ok = True``, ``if
ok: L = np.linalg.cholesky(K)`` (a group), ``if ok: pass else: L =
np.linalg.cholesky(K + 1e-6 * np.eye(n))``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..runtime import regions
from .numpy_forms import callee
from . import Transformation

GROUP = "attempt_group"   # annotation of ``if ok: s`` made from a statement of a ``try`` body: a ``Caught``
DECISION = "attempt_decision"   # annotation of ``if ok: <else clause> else: <handlers>``: the same ``Caught``
_EXITS = (gast.Return, gast.Break, gast.Continue)


@dataclass
class Caught:
    """What the handlers of one ``try`` catch, and the names its lowering uses."""

    flag: str                       # true while no exception has been caught
    types: Optional[List]           # the exception classes' expressions; None: every exception
    caught: Optional[str]           # the name holding the caught exception, when a handler reads it


class Exceptions(Transformation):
    """Replace ``try`` statements by groups of attempts and a branch on their outcome."""

    name = "exceptions"

    def transform(self, unit):
        self.unit = unit
        self.changed = False
        unit.tree.body = self._block(unit.tree.body)
        return self.changed

    def _block(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, gast.Try):
                result += self._try(stmt)
                continue
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            result.append(stmt)
        return result

    def _try(self, stmt) -> List:
        self.changed = True
        for inner in syntax.iter_statements(stmt.body):
            if isinstance(inner, gast.Try):
                raise self.unit.error(inner, UnsupportedSyntaxError, "a `try` statement inside a `try` body",
                                      "merge the handlers, or move the inner `try` into a module-level function "
                                      "and call it (reverse mode calls its derivative)")
        handlers = [(self._types(handler), handler) for handler in stmt.handlers]
        passing = stmt.finalbody and all(types is not None for types, _ in handlers)
        if passing:   # what no handler catches is caught too, to run the `finally` clause before it leaves
            everything = gast.ExceptHandler(type=None, name=None, body=[gast.Pass()])
            handlers.append((None, syntax.set_location(everything, stmt.lineno)))
        body, tail = self._split_tail_exit(stmt)
        orelse = [] if tail else self._block(stmt.orelse)
        finalbody = self._block(stmt.finalbody)
        needs_object = passing or len(handlers) > 1 or any(h.name is not None or _reraises(h.body)
                                                          for _, h in handlers)
        flag = self.unit.namer.fresh("ok")
        caught = self.unit.namer.fresh("caught") if needs_object else None
        everything = any(types is None for types, _ in handlers)
        info = Caught(flag, None if everything else [t for types, _ in handlers for t in types], caught)
        result = [syntax.assign(flag, syntax.constant(True))]
        if caught:
            result.append(syntax.assign(caught, syntax.call(callee(self.unit, regions.no_exception))))
        for inner in body:
            group = gast.If(test=syntax.name(flag), body=[inner], orelse=[])
            syntax.annotate(group, GROUP, info)
            result.append(syntax.set_location(group, inner.lineno))
        dispatch = self._dispatch(handlers, caught)
        leaving = self.unit.namer.fresh("leaving") if finalbody and _raises(orelse + dispatch) else None
        if leaving:   # an exception the handlers or the `else` clause raise leaves after the `finally` clause
            result.append(syntax.assign(leaving, syntax.constant(None)))
            orelse, dispatch = _deferred(orelse, leaving), _deferred(dispatch, leaving)
            finalbody = finalbody + [syntax.set_location(gast.If(
                test=gast.Compare(left=syntax.name(leaving), ops=[gast.IsNot()], comparators=[syntax.constant(None)]),
                body=[gast.Raise(exc=syntax.name(leaving), cause=None)], orelse=[]), stmt.finalbody[-1].lineno)]
        decision = gast.If(test=syntax.name(flag), body=tail + orelse, orelse=dispatch)
        syntax.annotate(decision, DECISION, info)
        result.append(syntax.set_location(decision, stmt.handlers[0].lineno if stmt.handlers else stmt.lineno))
        for new in result:
            syntax.set_location(new, stmt.lineno)
        if passing:
            finalbody.append(self._passed_on(flag, caught, [types for types, _ in handlers[:-1]], stmt))
        return result + finalbody

    def _passed_on(self, flag, caught, handled, stmt):
        """``if not ok and not isinstance(caught, handled): raise caught``: after the ``finally`` clause, an
        exception no handler took leaves, as Python's ``finally`` lets it."""
        test = gast.UnaryOp(op=gast.Not(), operand=syntax.name(flag))
        if handled:
            check = syntax.call(syntax.name("isinstance"), [syntax.name(caught),
                                                            _tuple([t for types in handled for t in types])])
            syntax.annotate(check.func, "ref", isinstance)
            test = gast.BoolOp(op=gast.And(), values=[test, gast.UnaryOp(op=gast.Not(), operand=check)])
        leave = gast.Raise(exc=syntax.name(caught), cause=None)
        line = stmt.finalbody[-1].lineno
        return syntax.set_location(gast.If(test=test, body=[syntax.set_location(leave, line)], orelse=[]), line)

    def _types(self, handler) -> Optional[List]:
        """The expressions of the classes ``handler`` catches (None: it catches every exception)."""
        if handler.type is None:
            return None
        parts = handler.type.elts if isinstance(handler.type, gast.Tuple) else [handler.type]
        for part in parts:
            value = annotation(part, "ref")
            if not (isinstance(value, type) and issubclass(value, BaseException)):
                raise self.unit.error(part, UnsupportedSyntaxError,
                                      "an exception type srcad cannot read when it builds the derivative",
                                      "name the exception class itself (`except ValueError:`, "
                                      "`except np.linalg.LinAlgError:`)")
            if value is BaseException:
                return None
        return [syntax.clone(part) for part in parts]

    def _split_tail_exit(self, stmt):
        """The ``try`` body without a final ``return``/``break``/``continue``, and that exit (run after)."""
        body = self._block(stmt.body)
        tail = []
        if body and isinstance(body[-1], _EXITS):
            exit_stmt = body.pop()
            if isinstance(exit_stmt, gast.Return):
                value = self.unit.namer.fresh("result")
                body.append(syntax.set_location(
                    syntax.assign(value, exit_stmt.value or syntax.constant(None)), exit_stmt.lineno))
                exit_stmt = syntax.set_location(gast.Return(value=syntax.name(value)), exit_stmt.lineno)
            tail = [exit_stmt]
        for part, where in ((body, "the `try` body"), (stmt.finalbody, "a `finally` clause")):
            self._refuse_exits(part, where)
        if stmt.finalbody:
            for part in [tail, stmt.orelse] + [h.body for h in stmt.handlers]:
                self._refuse_exits(part, "a `try` statement with `finally`")
        return body, tail

    def _refuse_exits(self, block, where) -> None:
        for inner in _exits(block):
            word = type(inner).__name__.lower()
            raise self.unit.error(inner, UnsupportedSyntaxError, f"`{word}` inside {where}",
                                  f"set a variable there and `{word}` after the `try` statement")

    def _dispatch(self, handlers, caught) -> List:
        """The handlers' statements, chosen by the type of ``caught`` when there are several."""
        chain: List = []
        for position in reversed(range(len(handlers))):
            types, handler = handlers[position]
            arm = self._block(handler.body)
            if caught:
                arm = [_reraise(s, caught) for s in arm]
            if handler.name is not None:
                arm = [syntax.set_location(syntax.assign(handler.name.id, syntax.name(caught)), handler.lineno)] + arm
            if position == len(handlers) - 1 or types is None:
                chain = arm
                continue
            test = syntax.call(syntax.name("isinstance"), [syntax.name(caught), _tuple(types)])
            syntax.annotate(test.func, "ref", isinstance)
            chain = [syntax.set_location(gast.If(test=test, body=arm, orelse=chain), handler.lineno)]
        return chain


def _tuple(types):
    return syntax.clone(types[0]) if len(types) == 1 else gast.Tuple(elts=syntax.clone(types), ctx=gast.Load())


def _exits(block):
    """The ``return`` statements in ``block``, and the ``break``/``continue`` statements of its own loop."""
    for stmt in block:
        if isinstance(stmt, _EXITS):
            yield stmt
        elif isinstance(stmt, (gast.For, gast.While)):
            yield from (inner for inner in _exits(stmt.body + stmt.orelse) if isinstance(inner, gast.Return))
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from _exits(getattr(stmt, field, None) or [])
            for handler in getattr(stmt, "handlers", []):
                yield from _exits(handler.body)


def _raises(block) -> bool:
    """Whether ``block`` has a ``raise`` (without ``from``) outside loops, functions and ``try`` statements."""
    for stmt in block:
        if isinstance(stmt, gast.Raise) and stmt.cause is None:
            return True
        if isinstance(stmt, gast.If) and _raises(stmt.body + stmt.orelse):
            return True
    return False


def _deferred(block, leaving) -> List:
    """``block`` with each ``raise e`` (outside loops) made ``leaving = e``, and what follows a statement that
    may run one under ``if leaving is None:``."""
    result = []
    for index, stmt in enumerate(block):
        if isinstance(stmt, gast.Raise) and stmt.cause is None:
            exception = stmt.exc if stmt.exc is not None else syntax.name(leaving)
            result.append(syntax.set_location(syntax.assign(leaving, exception), stmt.lineno))
            return result   # what follows cannot run
        if not (isinstance(stmt, gast.If) and _raises([stmt])):
            result.append(stmt)
            continue
        stmt.body, stmt.orelse = _deferred(stmt.body, leaving), _deferred(stmt.orelse, leaving)
        result.append(stmt)
        rest = _deferred(block[index + 1:], leaving)
        if rest:
            test = gast.Compare(left=syntax.name(leaving), ops=[gast.Is()], comparators=[syntax.constant(None)])
            result.append(syntax.set_location(gast.If(test=test, body=rest, orelse=[]), rest[0].lineno))
        return result
    return result


def _reraises(block) -> bool:
    return any(isinstance(s, gast.Raise) and s.exc is None for s in syntax.iter_statements(block))


def _reraise(stmt, caught):
    """A bare ``raise`` (here and in nested blocks, not in nested ``try`` handlers) raises ``caught``."""
    if isinstance(stmt, gast.Raise) and stmt.exc is None:
        return gast.copy_location(gast.Raise(exc=syntax.name(caught), cause=None), stmt)
    for field in ("body", "orelse"):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            setattr(stmt, field, [_reraise(s, caught) for s in getattr(stmt, field)])
    return stmt
