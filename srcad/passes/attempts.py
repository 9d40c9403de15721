"""Transformation: the statements of a ``try`` body, one attempt per operation.

Contract: input is the normalized tree, in which ``exceptions`` left each
statement of a ``try`` body as a group ``if ok: <its operations>``.  The
consecutive groups of one ``try`` become one chain in which every operation
that may raise what the handlers catch (``_may_raise``) is an attempt with a
flag of its own: ``ok_2 = attempted()`` then ``if ok_2: <operation>;
attempt_end(<what it wrote>); <the operations after it that need none>``
(``srcad.runtime.regions``), the marker annotated with the ``Caught`` of the
``try``, and the whole under ``if ok: ... else: ok_2 = False`` when an
earlier attempt may have failed.  ``attempted`` says whether the operation
ran to its end; the mode transforms take its flag for a branch decision like
any other (saved in reverse mode), so the backward sweep undoes exactly the
operations that ran.  A branch or loop holding attempts gets one flag for
its outcome (a loop leaves when it turns false).  The last flag takes the
``try``'s own name, which the handlers test; when the last attempt is not
guarded, its branch takes the handlers as its ``else`` arm (one branch, no
value saved twice).  ``regions`` later wraps the operation, and only it, in
the real ``try``/``except`` (derivative code runs after it, outside: an
exception in a derivative is never taken for one of f's).  A ``with``
region inside a ``try`` body must have a manager known never to swallow an
exception (``PLAIN_MANAGERS``), else ``UnsupportedSyntaxError``.  The
operation of an attempt is annotated ``ALONE``: forward mode then runs a
call of a function it does not inline alone first (``y = g(x)``, in the
real ``try``) before the call of its derivative (``y, dy = dg(x, dx)``, after it).

Example: the group ``if ok: L = np.linalg.cholesky(K)`` followed by the
handlers ``if ok: pass else: L = ...`` becomes ``ok = attempted()``, ``if ok:
L = np.linalg.cholesky(K); attempt_end(L) else: L = ...``.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import List, Optional, Tuple

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..runtime import regions
from .exceptions import DECISION, GROUP
from .numpy_forms import callee
from . import Transformation

ATTEMPT = "attempt"           # annotation of ``ok = attempted(...)``: the ``Caught`` of its ``try``
ALONE = "attempted_alone"     # annotation of the operation of an attempt: f's statement must run alone
# context managers known never to swallow an exception: they need no run-time check
PLAIN_MANAGERS = (np.errstate, np.printoptions, warnings.catch_warnings, contextlib.nullcontext)


class Attempts(Transformation):
    """Split the groups of ``exceptions`` into attempts (see the module docstring)."""

    name = "attempts"

    def transform(self, unit):
        self.unit = unit
        self.changed = False
        unit.tree.body = self._block(unit.tree.body)
        return self.changed

    def _block(self, block) -> List:
        result, index = [], 0
        while index < len(block):
            stmt = block[index]
            info = annotation(stmt, GROUP) if isinstance(stmt, gast.If) else None
            if info is None:
                for field in ("body", "orelse"):
                    if isinstance(stmt, (gast.If, gast.For, gast.While)):
                        setattr(stmt, field, self._block(getattr(stmt, field)))
                result.append(stmt)
                index += 1
                continue
            statements = []
            while index < len(block) and isinstance(block[index], gast.If) \
                    and annotation(block[index], GROUP) is info:
                statements += block[index].body
                index += 1
            self.changed = True
            self.info = info
            chain, final = self._chain(statements, None)
            if final is not None:   # the last outcome is the one the handlers test: give it the try's flag
                chain = [syntax.rename(stmt, {final: info.flag}) for stmt in chain]
                initial = next((k for k in (-1, -2) if len(result) >= -k and _sets_true(result[k], info.flag)), None)
                if initial is not None:
                    del result[initial]   # no longer read: every path through the chain sets the flag
                decision = block[index] if index < len(block) else None
                if annotation(decision, DECISION) is info and _last_attempt(chain, info):
                    # one branch on the last attempt's outcome: what runs after it or instead of it, as its arms
                    chain[-1].body += self._block(decision.body)
                    chain[-1].orelse = self._block(decision.orelse)
                    index += 1
            result += chain
        return result

    def _chain(self, block, current) -> Tuple[List, Optional[str]]:
        """``block`` as attempts, after the outcome ``current`` (None: surely no exception so far); the
        statements, and the flag saying whether no exception was caught by its end (None: surely none)."""
        out, arm, index = [], None, 0
        while index < len(block):
            stmt = block[index]
            index += 1
            if _cannot_raise(stmt) or (isinstance(stmt, (gast.Assign, gast.Expr))
                                       and not _may_raise(stmt.value, self.info.types)):
                (arm if arm is not None else out).append(stmt)
                continue
            if isinstance(stmt, (gast.If, gast.For, gast.While)) or _region(stmt, regions.entered):
                if isinstance(stmt, gast.Expr):   # a `with` region: from its entering to its exit, as one
                    end = _region_end(block, index - 1)
                    (code, final), index = self._with_region(block[index - 1:end + 1]), end + 1
                else:
                    code, final = self._compound(stmt)
                if final is None:   # nothing inside may raise what is caught
                    (arm if arm is not None else out).extend(code)
                    continue
                out += self._guarded(current, code, final, stmt.lineno)
                current, arm = final, None
                continue
            flag = self.unit.namer.fresh(self.info.flag)
            marker = syntax.assign(flag, syntax.call(callee(self.unit, regions.attempted)))
            syntax.annotate(marker, ATTEMPT, self.info)
            end = syntax.expr_stmt(syntax.call(callee(self.unit, regions.attempt_end), _written(stmt)))
            syntax.annotate(stmt, ALONE, True)
            arm = [stmt, end]
            attempt = gast.If(test=syntax.name(flag), body=arm, orelse=[])
            out += self._guarded(current, [marker, attempt], flag, stmt.lineno)
            current = flag
        return out, current

    def _guarded(self, current, code, outcome, lineno) -> List:
        """``code``, run only when ``current`` (no exception so far) is true: ``outcome`` is false otherwise."""
        if current is None:
            return [syntax.set_location(node, lineno) for node in code]
        skipped = syntax.assign(outcome, syntax.constant(False))
        return [syntax.set_location(gast.If(test=syntax.name(current), body=code, orelse=[skipped]), lineno)]

    def _compound(self, stmt) -> Tuple[List, Optional[str]]:
        """A branch or loop with its blocks chained; the flag of its outcome (None: nothing in it may raise)."""
        finals = []
        for field in ("body", "orelse"):
            chained, final = self._chain(getattr(stmt, field), None)
            setattr(stmt, field, chained)
            finals.append(final)
        if finals == [None, None]:
            return [stmt], None
        outcome = self.unit.namer.fresh(self.info.flag)
        if isinstance(stmt, gast.If):
            for field, final in zip(("body", "orelse"), finals):
                getattr(stmt, field).append(syntax.assign(outcome, syntax.name(final) if final
                                                          else syntax.constant(True)))
            return [stmt], outcome
        leave = gast.If(test=syntax.name(outcome), body=[], orelse=[gast.Break()])   # an exception leaves the loop
        stmt.body += [syntax.assign(outcome, syntax.name(finals[0])), syntax.set_location(leave, stmt.lineno)]
        return [syntax.assign(outcome, syntax.constant(True)), stmt], outcome

    def _with_region(self, region) -> Tuple[List, Optional[str]]:
        opening = region[0]
        manager = opening.value.args[0]
        if not plain_manager(manager):
            raise self.unit.error(opening, UnsupportedSyntaxError,
                                  "a `with` block inside a `try` body, for a context manager srcad does not know",
                                  "put the `try` inside the `with` block, or use np.errstate or "
                                  "warnings.catch_warnings there")
        inner_start = 2 if len(region) > 2 and _region(region[1], regions.entered_value) else 1
        chained, final = self._chain(region[inner_start:-1], None)
        return region[:inner_start] + chained + region[-1:], final


def _last_attempt(chain, info) -> bool:
    """Whether ``chain`` ends with an attempt that no earlier one guards: its marker, then its branch."""
    return (len(chain) >= 2 and annotation(chain[-2], ATTEMPT) is info and isinstance(chain[-1], gast.If)
            and isinstance(chain[-1].test, gast.Name) and chain[-1].test.id == info.flag and not chain[-1].orelse)


def _sets_true(stmt, flag) -> bool:
    return (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == flag
            and isinstance(stmt.value, gast.Constant) and stmt.value.value is True)


def _cannot_raise(stmt) -> bool:
    """A copy, a constant or a literal of names, or ``break``: nothing that can raise."""
    if isinstance(stmt, gast.Break):
        return True
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
        return False
    value = stmt.value
    atoms = value.elts if isinstance(value, (gast.Tuple, gast.List)) else [value]
    return all(isinstance(atom, (gast.Name, gast.Constant)) for atom in atoms)


# what an operation may raise, besides srcad's knowledge of LinAlgError and ZeroDivisionError (below)
_ARITHMETIC = (ValueError, TypeError, ArithmeticError, MemoryError)   # shapes, types, floating point errors
_LOOKUP = (LookupError, TypeError)                                    # x[i], d[key]


def _may_raise(value, types) -> bool:
    """Whether evaluating ``value`` may raise one of ``types`` (None: any exception).

    Only a call of ``np.linalg`` or of anything outside NumPy raises ``LinAlgError``; only such a call or
    ``/``, ``//``, ``%``, ``**`` raise ``ZeroDivisionError``; a subscript raises only lookup and type errors,
    an operator or a NumPy function only value, type, arithmetic and memory errors (NumPy's also index
    errors); any other call anything."""
    if types is None:
        return True
    for exception in (annotation(t, "ref") for t in types):
        for node in gast.walk(value):
            if isinstance(node, gast.Call):
                function = annotation(node.func, "ref")
                if _foreign(function) or issubclass(exception, np.linalg.LinAlgError):
                    if _foreign(function) or "linalg" in _module(function):
                        return True
                    continue
                raised = _ARITHMETIC + (IndexError,)
            elif isinstance(node, gast.BinOp):
                if issubclass(exception, np.linalg.LinAlgError):
                    continue
                if isinstance(node.op, (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)):
                    raised = _ARITHMETIC + (ZeroDivisionError,)
                else:
                    raised = tuple(r for r in _ARITHMETIC if r is not ArithmeticError) + (
                        FloatingPointError, OverflowError)
            elif isinstance(node, gast.UnaryOp):
                raised = (TypeError, FloatingPointError)
            elif isinstance(node, gast.Subscript):
                raised = _LOOKUP
            else:
                continue
            if issubclass(exception, np.linalg.LinAlgError):
                continue
            if any(issubclass(r, exception) or issubclass(exception, r) and not
                   issubclass(exception, (np.linalg.LinAlgError, ZeroDivisionError)) for r in raised):
                return True
    return False


def _module(function) -> str:
    return getattr(function, "__module__", None) or getattr(type(function), "__module__", "") or ""


def _foreign(function) -> bool:
    """Whether ``function`` may be anything but a NumPy function (outside ``np.linalg`` or not)."""
    if isinstance(function, np.ufunc):
        return False
    return function is None or _module(function).split(".")[0] != "numpy"


def _written(stmt) -> List:
    """The name a statement writes (kept in use by ``attempt_end``), if any."""
    if isinstance(stmt, gast.Assign):
        target = stmt.targets[0]
        while isinstance(target, gast.Subscript):
            target = target.value
        if isinstance(target, gast.Name):
            return [syntax.name(target.id)]
    return []


def _region(stmt, marker) -> bool:
    """Whether ``stmt`` is a call of the region marker ``marker`` (an expression statement or assignment)."""
    value = stmt.value if isinstance(stmt, (gast.Expr, gast.Assign)) else None
    return isinstance(value, gast.Call) and annotation(value.func, "ref") is marker


def _region_end(block, start) -> int:
    """The position of the ``exited`` marker closing the ``with`` region opened at ``block[start]``."""
    number = block[start].value.args[1].value
    for position in range(start + 1, len(block)):
        stmt = block[position]
        if _region(stmt, regions.exited) and stmt.value.args[0].value == number:
            return position
    raise AssertionError("a `with` region without its end")


def plain_manager(manager) -> bool:
    """Whether ``manager`` is a call of a context manager known never to swallow an exception."""
    return isinstance(manager, gast.Call) and any(annotation(manager.func, "ref") is known for known in PLAIN_MANAGERS)
