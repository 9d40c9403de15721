"""Transformation: changes made in place through one name reach every name sharing that memory.

Contract: srcad gives every name its own value and derivative, but NumPy
lets two names share memory (``B = A.reshape(3)``, ``r = A[i]``, ``z = y``,
``acc = [y]``), so a change made in place through one (``B[0] = v``,
``B += v``, ``xs.append(v)``) changes what the other holds.  For each such
change, with ``Sharing`` (``srcad/analysis/sharing.py``), this pass finds the
names that may share memory with the changed one and are read later, and
either
- makes the program say what NumPy does: where the two names were joined it
  records whether they really share (``B_views_A = shares(B, A)``, false when
  ``reshape`` copied, or the value was a number) and gives the viewer its own
  copy (``B = copied(B)``); after the change it writes the new value back
  (``if B_views_A: A[...] = np.reshape(B, np.shape(A))``, ``A[i] = r``,
  ``acc[0] = y``) or brings a view up to date (``if B_views_A: B = copied(A.reshape(3))``),
  along every chain of such links; or
- raises ``AliasingError`` naming the change, both names, the line that made
  them share and a fix, when the link is one it cannot follow (an unknown
  function's result, ``.real``, a view made in a branch or an earlier loop
  pass, a view whose index changed since).
Programs with no such change are left exactly as they are.  Says whether it
changed the tree.

Example: ``B = A.reshape(3); B[0] = 10.0; return np.sum(A * x)`` becomes
``B = A.reshape(3); B_views_A = shares(B, A); B = copied(B); B[0] = 10.0;
if B_views_A: A[...] = np.reshape(B, np.shape(A)); return np.sum(A * x)``.
"""
from __future__ import annotations

from typing import Dict, List

import copy
import re

import gast

from .. import runtime
from ..errors import AliasingError
from ..frontend import syntax
from ..frontend.emit import to_source
from ..analysis.relations import bind_wanted, call_of
from ..analysis.sharing import Link, Sharing
from .simplify import parameter_ranks
from . import Transformation


def changed_name(stmt):
    """The name whose memory ``stmt`` changes in place (``A`` for ``A[i] = v``, ``A += v``,
    ``A.append(v)``), or None."""
    if isinstance(stmt, gast.Assign):
        for target in stmt.targets:
            if isinstance(target, gast.Subscript):
                while isinstance(target, gast.Subscript):
                    target = target.value
                return target.id if isinstance(target, gast.Name) else None
        return None
    if isinstance(stmt, gast.AugAssign):
        target = stmt.target
        while isinstance(target, gast.Subscript):
            target = target.value
        return target.id if isinstance(target, gast.Name) else None
    if (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append"
            and isinstance(stmt.value.func.value, gast.Name)):
        return stmt.value.func.value.id
    return None


class Views(Transformation):
    """Follow changes made in place through names that share memory, or refuse them clearly."""

    name = "views"

    def transform(self, unit):
        self.unit = unit
        if not any(changed_name(s) for s in syntax.iter_statements(unit.tree.body)):
            return False
        self.sharing = Sharing(unit.tree, unit.bindings.objects, parameter_ranks(unit))
        self.after: Dict[int, List] = {}     # id(stmt) -> statements to insert right after it
        self.flagged: Dict[int, Link] = {}   # id(link) -> link whose run-time test is needed
        for stmt in self.sharing.statements:
            name = changed_name(stmt)
            if name is not None:
                code = self._follow(stmt, name)
                if code:
                    self.after.setdefault(id(stmt), []).extend(code)
        if not self.after:
            return False
        for link in self.flagged.values():
            tests = [(link.flag, runtime.holds if link.held else runtime.shares)]
            if link.may_hold:
                tests.append((link.hold_flag, runtime.holds))
            self.after.setdefault(id(link.stmt), [])[:0] = [
                syntax.assign(flag, call_of(test, [syntax.name(a) for a in (
                    [link.base, link.viewer] if test is runtime.holds else [link.viewer, link.base])]))
                for flag, test in tests] + [
                syntax.assign(link.viewer, call_of(runtime.copied, [syntax.name(link.viewer)]))]
        unit.tree.body = self._insert(unit.tree.body)
        return True

    # planning -----------------------------------------------------------------------
    def _follow(self, stmt, name) -> List:
        """Statements after the change ``stmt`` of ``name`` that carry it to every live sharer."""
        self.elements = isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Subscript)
        partners = self.sharing.partners(name, stmt, self.elements)
        if not partners:
            return []
        tree = self._explore(stmt, name, {name})
        reached = set()
        for node in tree:
            reached |= _names(node)
        for partner, link in partners.items():
            if partner not in reached:
                raise self._refusal(stmt, name, partner, link, "that sharing is not one srcad can follow")
        return [code for node in tree for code in self._emit(stmt, name, node, set(partners))]

    def _explore(self, stmt, name, seen) -> List:
        """The current links from ``name`` onwards: (link, towards_base, other name, subtree)."""
        found = []
        for link in self.sharing.links:
            if link.viewer == link.base or not self.sharing.current(link, stmt):
                continue
            if link.viewer == name and link.base not in seen:
                other, up = link.base, True
            elif link.base == name and link.viewer not in seen and (self.elements or not link.held):
                other, up = link.viewer, False
            else:
                continue
            seen.add(other)
            found.append((link, up, other, self._explore(stmt, other, seen)))
        return found

    def _emit(self, stmt, name, node, partners) -> List:
        link, up, other, children = node
        if not _names(node) & partners:
            return []   # nobody reads what lies this way
        if up and link.writeback is None or not up and (link.refresh is None or self.elements and link.held):
            partner = other if other in partners else sorted(_names(node) & partners)[0]
            raise self._refusal(stmt, name, partner, link, "srcad cannot carry the change across it")
        if not link.flag:
            link.flag = self.unit.namer.fresh(f"{link.base}_holds_{link.viewer}" if link.held
                                              else f"{link.viewer}_views_{link.base}")
            if link.may_hold:
                link.hold_flag = self.unit.namer.fresh(f"{link.base}_holds_{link.viewer}")
        self.flagged[id(link)] = link
        test = syntax.name(link.flag)
        if link.may_hold:   # `v = h[0]` of a list h: v may be the very array h holds, which no view test sees
            test = gast.BoolOp(op=gast.Or(), values=[test, syntax.name(link.hold_flag)])
        if up:
            body = link.writeback(link.viewer, link.base, link.value)
        else:
            body = [syntax.assign(link.viewer, call_of(runtime.copied, [syntax.clone(link.refresh)]))]
        for child in children:
            body += self._emit(stmt, other, child, partners)
        bind_wanted(body, self.unit.bindings)
        return [gast.If(test=test, body=body, orelse=[])]

    def _refusal(self, stmt, name, partner, link, why):
        origin = link.stmt if link is not None else stmt
        line = self.unit.parsed.location(origin).lineno
        text = self.unit.parsed.line_text(origin.lineno).strip()
        construct = syntax.annotation(stmt, "construct") or _construct(stmt, name)
        spelled = {written for written in (partner, getattr(link, "viewer", None), getattr(link, "base", None))
                   if written and re.search(rf"\b{re.escape(written)}\b", text)}
        if partner not in spelled:   # a value srcad named (a loop's hoisted iterable): the line that makes it
            message = (f"{construct} changes `{name}` in place, and a value made on line {line} (`{text}`) "
                       f"shares its memory and is read afterwards; {why}")
        else:
            message = (f"{construct} changes `{name}` in place, and `{partner}` shares its memory "
                       f"(line {line}: `{text}`) and is read afterwards; {why}")
        fix = _fix(name, partner, link) if link is None or {link.viewer, link.base} <= spelled else (
            f"make a copy on line {line} (`{name}.copy()` where that line reads `{name}`), or change a copy "
            f"of `{name}`")
        return self.unit.error(stmt, AliasingError, message, fix)

    # rewriting ----------------------------------------------------------------------
    def _insert(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                stmt.body, stmt.orelse = self._insert(stmt.body), self._insert(stmt.orelse)
            result.append(stmt)
            extra = self.after.get(id(stmt), [])
            bind_wanted(extra, self.unit.bindings)
            result += [syntax.set_location(new, stmt.lineno) for new in extra]
        return result


def _names(node) -> set:
    link, up, other, children = node
    found = {other}
    for child in children:
        found |= _names(child)
    return found


def _construct(stmt, name) -> str:
    if isinstance(stmt, gast.AugAssign):
        return f"`{to_source(stmt).strip()}`"
    if isinstance(stmt, gast.Expr):
        return f"`{name}.append(...)`"
    target = next(t for t in stmt.targets if isinstance(t, gast.Subscript))
    return f"the element store `{to_source(target).strip()} = ...`"


def _fix(name, partner, link) -> str:
    """What to write instead: valid Python."""
    if link is None:
        return f"give `{name}` its own array first (`{name} = {name}.copy()`)"
    value = to_source(link.value).strip()
    if not isinstance(link.value, (gast.Name, gast.Call, gast.Subscript, gast.Attribute)):
        value = f"({value})"
    if link.held:
        return (f"put a copy there (`{link.viewer}.copy()` instead of `{link.viewer}` on that line), or "
                f"write `{link.viewer} = {link.viewer} * ...` to make a new array instead of changing it in place")
    if _shallow_copy(link.value):
        return (f"copy the arrays it holds too (`{link.viewer} = [item.copy() for item in {link.base}]`), or "
                f"change `{link.base}` directly")
    return (f"make `{link.viewer}` its own array (`{link.viewer} = {value}.copy()`), or change "
            f"`{link.base}` directly")


def _shallow_copy(value) -> bool:
    """``xs.copy()``, ``copy.copy(xs)``, ``list(xs)``, ``dict(d)``: a new container holding the same arrays."""
    if not isinstance(value, gast.Call):
        return False
    if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" and not value.args:
        return True
    function = syntax.annotation(value.func, "ref")
    return function is copy.copy or function in (list, dict, tuple)
