"""Transformation: drop statements the derivative does not need.

Contract: works on the generated derivative function, branches and loops
included (liveness through a loop is iterated to a fixed point).  A statement
is kept when it has an effect (``check_seed``, ``print``, ``assert``,
``break``; of a dead assignment, the calls that may raise, as f would: the
user's own functions and ``math``'s), writes an array a kept statement reads later (``dx[i] += e``,
``add_at(dx, ...)``, an element store), or assigns a name that a kept
statement or the return reads (a dead ``v = xs.pop()`` or ``dv += dxs.pop()``
still takes the item off: only the call is kept).  A tape pop whose value nobody reads is
dropped together with every push of the same pair (annotation ``tape_pair``),
so the tape holds only what the backward pass reads.  Empty branches and
loops go, and comments that head nothing.  Returns whether anything changed.

Example: in the gradient of ``return np.sum(x * w)`` with respect to ``x``,
no statement computes ``dw``.
"""
from __future__ import annotations

import types
from typing import List, Set, Tuple

import gast

from ..frontend import syntax
from ..operators import METADATA_ATTRIBUTES
from ..analysis.blocks import SCALAR_ELEMENT, MemorySharing
from ..analysis.expressions import callee_object
from .frame import PAIR
from . import Transformation

# Annotation of f's own dead assignments that may raise (``unused_statements``): f runs them, so they are kept.
UNUSED_IN_F = "unused_in_f"

# Annotation of f's element reads that may raise and that no derivative code repeats (``raising_reads``):
# kept where the statement holding one is dropped.
RAISING_READ = "raising_read"

# Helpers that change their first argument in place instead of returning a value.
_MUTATORS = frozenset({"add_at"})


def _reads(node) -> Set[str]:
    """Names ``node`` reads; a name read only for its metadata (``A.shape``) counts as ``meta:A``.

    Restoring elements of ``A`` from the tape matters only to reads of ``A``'s contents.
    """
    nodes = syntax.walk(node)
    metadata_bases = {id(sub.value) for sub in nodes if sub.__class__ is gast.Attribute
                      and sub.attr in METADATA_ATTRIBUTES and sub.value.__class__ is gast.Name}
    names = {f"meta:{sub.id}" if id(sub) in metadata_bases else sub.id for sub in nodes
             if sub.__class__ is gast.Name and isinstance(sub.ctx, gast.Load)}
    if "locals" in names:   # tape.append(locals().get('x')) saves x when it is bound: a read of x
        names |= {sub.args[0].value for sub in nodes if sub.__class__ is gast.Call and sub.args
                  and sub.func.__class__ is gast.Attribute and sub.func.attr == "get"
                  and sub.func.value.__class__ is gast.Call and getattr(sub.func.value.func, "id", None) == "locals"
                  and sub.args[0].__class__ is gast.Constant}
    return names


def _pops_in(stmt) -> List:
    """The ``xs.pop()`` calls in an assignment's value, in the order they run (``dv += dxs.pop()``)."""
    if not isinstance(stmt, (gast.Assign, gast.AugAssign)) or isinstance(stmt.value, (gast.Name, gast.Constant)):
        return []
    return [node for node in syntax.walk(stmt.value) if node.__class__ is gast.Call and not node.args
            and node.func.__class__ is gast.Attribute and node.func.attr == "pop"
            and node.func.value.__class__ is gast.Name]


def _is_live(name, live) -> bool:
    return name in live or f"meta:{name}" in live


def _base_name(target) -> str:
    while isinstance(target, gast.Subscript):
        target = target.value
    return getattr(target, "id", "")


class Cleanup(Transformation):
    """Dead-code elimination, tape pairs included."""

    name = "cleanup"

    def transform(self, unit):
        self._prepare(unit, dry=False)
        body, _ = self._block(unit.tree.body, set())
        body = _drop_orphan_comments(body)
        if len(body) != len(unit.tree.body):
            self.changed = True
        unit.tree.body = body
        return self.changed

    def _prepare(self, unit, dry: bool) -> None:
        """The state a walk over ``unit.tree`` needs; ``dry`` decides without changing anything."""
        # arrays read through subscripts may have views alive: their element restores always matter
        self.viewed = {s.value.value.id for s in syntax.iter_statements(unit.tree.body)
                       if isinstance(s, gast.Assign) and isinstance(s.value, gast.Subscript)
                       and isinstance(s.value.value, gast.Name) and not syntax.annotation(s, SCALAR_ELEMENT)}
        self.sharing = MemorySharing(unit.tree)
        self.dead_pairs: Set[int] = set()
        self.changed = False
        self.dry = dry              # True while iterating loop liveness: decide, change nothing
        self.read_cache = {}        # id(node) -> (node, names it reads)
        self.objects = unit.bindings.objects

    def _block(self, block, live_after: Set[str]) -> Tuple[List, Set[str]]:
        live = set(live_after)
        kept = []
        for stmt in reversed(block):
            if syntax.is_comment(stmt):
                kept.append(stmt)
                continue
            result = self._statement(stmt, live)
            if result is None:
                self.changed = True
                continue
            stmt, live = result
            kept += reversed(stmt) if isinstance(stmt, list) else [stmt]
        return list(reversed(kept)), live

    def _statement(self, stmt, live):
        pair = syntax.annotation(stmt, PAIR)
        if isinstance(stmt, gast.If):
            body, live_body = self._block(stmt.body, live)
            orelse, live_else = self._block(stmt.orelse, live)
            if not _has_code(body) and not _has_code(orelse):
                return None
            if not self.dry:
                stmt.body, stmt.orelse = body or [gast.Pass()], orelse if _has_code(orelse) else []
            return stmt, live_body | live_else | self._reads(stmt.test)
        if isinstance(stmt, (gast.For, gast.While)):
            return self._loop(stmt, live)
        if pair is not None and isinstance(stmt, gast.Assign):   # a pop
            target = stmt.targets[0]
            restored = _base_name(target)
            if isinstance(target, gast.Subscript):
                dead = not any(name in live or name in self.viewed for name in self.sharing.connected(restored))
            else:
                dead = not _is_live(restored, live)
            if dead or pair in self.dead_pairs:
                self.dead_pairs.add(pair)
                return None
        elif pair is not None:   # a push
            if pair in self.dead_pairs:
                return None
        elif not self._needed(stmt, live) and not syntax.annotation(stmt, UNUSED_IN_F):
            taken = _pops_in(stmt)   # items taken off a list: still taken, their values unread
            taken += self._raising_parts(stmt)   # a call or an element read that may raise still runs, as in f
            if not taken:
                return None
            self.changed = True
            return ([syntax.set_location(gast.Expr(value=part), getattr(stmt, "lineno", None)) for part in taken],
                    live | self._reads(stmt.value))   # all it reads: what computes them may raise as well
            return None
        live = set(live)
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], (gast.Name, gast.Tuple)):
            written = syntax.names_in(stmt.targets[0])
            live -= written | {f"meta:{name}" for name in written}
        live |= self._reads(stmt)
        if isinstance(stmt, (gast.AugAssign, gast.Assign)):
            target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
            if isinstance(target, gast.Subscript) or isinstance(stmt, gast.AugAssign):
                live.add(_base_name(target))
        return stmt, live

    def _reads(self, node) -> Set[str]:
        cached = self.read_cache.get(id(node))
        if cached is None:
            cached = self.read_cache[id(node)] = (node, frozenset(_reads(node)))
        return cached[1]

    def _loop(self, loop, live_after):
        header = self._reads(loop.test) if isinstance(loop, gast.While) else self._reads(loop.iter)
        if isinstance(loop, gast.While):   # the test runs again after every iteration
            live_after = live_after | header
        live_in = set(live_after)
        for _ in range(100):   # liveness around the back edge; decisions are taken after it settles
            saved = set(self.dead_pairs), self.changed, self.dry
            self.dry = True
            _, live_body = self._block(loop.body, live_in | live_after)
            self.dead_pairs, self.changed, self.dry = saved
            new_live = live_in | live_body
            if new_live == live_in:
                break
            live_in = new_live
        body, live_body = self._block(loop.body, live_in | live_after)
        if not _has_code(body, ignore_counters=True):
            return None
        if not self.dry:
            loop.body = body
        return loop, live_after | live_body | header

    def _raising_parts(self, stmt) -> List:
        """The outermost parts of a dead assignment's value that may raise where f raises: calls of the user's
        functions (an exception of their own) and of ``math`` (domain and overflow errors; NumPy warns
        instead), and element reads ``raising_reads`` annotated (an index out of range, a missing key)."""
        if not isinstance(stmt, (gast.Assign, gast.AugAssign)):
            return []
        found = []

        def visit(node):   # left to right, the outermost first: in the order f evaluates them
            if node.__class__ is gast.Call and _may_raise(callee_object(node.func, self.objects)) \
                    or node.__class__ is gast.Subscript and syntax.annotation(node, RAISING_READ):
                found.append(node)
                return
            for child in gast.iter_child_nodes(node):
                visit(child)
        visit(stmt.value)
        return found

    @staticmethod
    def _needed(stmt, live) -> bool:
        if isinstance(stmt, gast.Assign):
            target = stmt.targets[0]
            if isinstance(target, (gast.Name, gast.Tuple)):
                return any(_is_live(name, live) for name in syntax.names_in(target))
            return _base_name(target) in live
        if isinstance(stmt, gast.AugAssign):
            return _is_live(_base_name(stmt.target), live)
        if isinstance(stmt, gast.Pass):
            return False
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            func = stmt.value.func
            if isinstance(func, gast.Name) and func.id in _MUTATORS:
                return any(name in live for name in syntax.loaded_names(stmt.value.args[0]))
        return True


def _may_raise(function) -> bool:
    """Whether calling ``function`` may raise for some argument values where NumPy would warn: the user's own
    Python functions and those of ``math``; not NumPy, srcad's runtime or rules."""
    if isinstance(function, types.BuiltinFunctionType):
        return getattr(function, "__module__", None) == "math"
    if isinstance(function, types.FunctionType):
        module = function.__module__ or ""
        return not module.startswith(_OWN_MODULES)
    return False


_OWN_MODULES = ("srcad.", "grad_templates", "numpy", "scipy")


def _has_code(block, ignore_counters=False) -> bool:
    for stmt in block:
        if syntax.is_comment(stmt) or isinstance(stmt, gast.Pass):
            continue
        if ignore_counters and isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            continue
        return True
    return False


def _drop_orphan_comments(body) -> List:
    result = []
    for index, stmt in enumerate(body):
        if isinstance(stmt, (gast.If, gast.For, gast.While)):
            stmt.body = _drop_orphan_comments(stmt.body) or [gast.Pass()]   # a body may not be empty
            stmt.orelse = _drop_orphan_comments(stmt.orelse)
        if syntax.is_comment(stmt):
            following = body[index + 1] if index + 1 < len(body) else None
            if following is None or syntax.is_comment(following):
                continue
        result.append(stmt)
    return result
