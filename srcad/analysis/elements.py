"""Analysis helper: which subscript reads provably select one element, a new scalar and never a view.

Contract: ``ScalarElements(tree, ranks)`` reads a function (desugared or
normalized) and never changes it.  ``selects_scalar(subscript)`` is True for
``A[i]`` or ``A[i, j + 1]`` when ``A``'s rank is known and the index holds as
many ints as that rank.  Ranks are known for the ``ranks`` given for
parameters (a derivative specialised for arguments of known ranks) and for
names every binding of which makes an array of a known rank:
``np.zeros(n)``, ``np.ones((m, n))``, ``np.empty``/``np.full`` with such a
shape, ``np.zeros_like(B)``, ``np.copy(B)``, ``B.copy()`` or ``copied(B)``
of such a ``B``, a number, and arithmetic and ufuncs of those (broadcasting: the
largest rank), and srcad's helpers shaping a derivative like their second
argument (``unbroadcast(g, B)``).  Ints are int constants, ``len(...)``, ``x.shape[k]``,
targets of ``for`` over ``range`` (or ``reversed(range(...))``), items of a ``range`` bound to a name, and
``+ - * // %`` of those (names every binding of which is one).  A pop from a
tape that gives a name back a value it held (``i = tape.pop()`` after
``tape.append(i)``, in derivative code) binds nothing new.

Example: in ``y = np.zeros(3); for i in range(3): t = y[i]``, ``y[i]`` selects
a scalar: a later store into ``y`` cannot change ``t``.
"""
from __future__ import annotations

from typing import Dict, Optional

import gast
import numpy as np

from ..frontend import syntax
from .expressions import int_index

_CREATORS = frozenset({"zeros", "ones", "empty", "full"})
_SAME_RANK = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "copy", "copied", "array_copy"})
_LIKE_SECOND = frozenset({"unbroadcast", "unreduce", "broadcast_like", "filled_like"})


class ScalarElements:
    """Ranks of arrays and the names holding ints in one function; see the module docstring."""

    def __init__(self, tree, ranks: Optional[Dict[str, int]] = None):
        bindings: Dict[str, list] = {}
        for stmt in syntax.iter_statements(tree.body):
            if isinstance(stmt, gast.Assign):
                for target in stmt.targets:
                    for name in syntax.stored_names(target) if not isinstance(target, gast.Subscript) else ():
                        bindings.setdefault(name, []).append(stmt.value if isinstance(target, gast.Name) else None)
            elif isinstance(stmt, gast.For):
                for name in syntax.stored_names(stmt.target):
                    over = stmt.iter.args[0] if _calls(stmt.iter, "reversed") and stmt.iter.args else stmt.iter
                    over_range = isinstance(stmt.target, gast.Name) and _calls(over, "range")
                    bindings.setdefault(name, []).append("int" if over_range else None)
            elif isinstance(stmt, gast.AugAssign):
                for name in syntax.stored_names(stmt.target) if isinstance(stmt.target, gast.Name) else ():
                    bindings.setdefault(name, []).append(None)
        parameters = {a.id for a in tree.args.args + tree.args.kwonlyargs}
        for name in _restored(tree.body, bindings):
            bindings[name] = [value for value in bindings[name] if not _popped(value)] or [None]
        self.ranges = {name for name, values in bindings.items()
                       if name not in parameters and all(_calls(v, "range") for v in values)}
        self.ints = self._fixed_point(bindings, parameters, lambda value, ints: value == "int" or _is_int(
            value, ints, self.ranges))
        given = {name: rank for name, rank in (ranks or {}).items() if rank is not None}
        self.ranks: Dict[str, int] = {name: rank for name, rank in given.items() if name not in bindings}
        changed = True
        while changed:   # a rank is known once every binding (and the argument, for a parameter) gives one
            changed = False
            for name, values in bindings.items():
                if name in self.ranks or name in parameters and name not in given:
                    continue
                found = {self._rank(value) for value in values} | ({given[name]} if name in given else set())
                if len(found - {None}) != 1:
                    continue
                self.ranks[name] = (found - {None}).pop()   # tentatively: `dy = dy + e` needs dy's own rank
                if None in found and {self._rank(value) for value in values} != {self.ranks[name]}:
                    del self.ranks[name]
                else:
                    changed = True

    @staticmethod
    def _fixed_point(bindings, parameters, holds):
        names = {name for name in bindings if name not in parameters}
        while True:
            kept = {name for name in names if all(value is not None and holds(value, names)
                                                  for value in bindings[name])}
            if kept == names:
                return names
            names = kept

    def _rank(self, value) -> Optional[int]:
        if isinstance(value, gast.Constant) and isinstance(value.value, (int, float)) or _is_int(
                value, self.ints, self.ranges):
            return 0
        if isinstance(value, gast.Name):
            return self.ranks.get(value.id)
        if isinstance(value, gast.BinOp) and not isinstance(value.op, gast.MatMult):   # broadcasting
            sides = (self._rank(value.left), self._rank(value.right))
            return None if None in sides else max(sides)
        if isinstance(value, gast.UnaryOp):
            return self._rank(value.operand)
        if not isinstance(value, gast.Call):
            return None
        func = value.func
        name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", None)
        function = syntax.annotation(func, "ref")
        if isinstance(function, np.ufunc) and function.nout == 1 and value.args and not value.keywords:
            ranks = [self._rank(arg) for arg in value.args]
            return None if None in ranks else max(ranks)
        if name in _LIKE_SECOND and len(value.args) >= 2 and not value.keywords:
            return self._rank(value.args[1])   # srcad's helpers that give a derivative the shape of `like`
        if name in _CREATORS and value.args:
            shape = value.args[0]
            if isinstance(shape, gast.Tuple):
                return len(shape.elts) if all(_is_int(e, self.ints, self.ranges) for e in shape.elts) else None
            return 1 if _is_int(shape, self.ints, self.ranges) else None
        if name in _SAME_RANK:
            source = value.args[0] if value.args else (func.value if isinstance(func, gast.Attribute) else None)
            return self.ranks.get(source.id) if isinstance(source, gast.Name) else None
        return None

    def selects_scalar(self, subscript) -> bool:
        """Whether ``subscript`` (``A[i, j]``) reads one element of an array of known rank."""
        if not (isinstance(subscript, gast.Subscript) and isinstance(subscript.value, gast.Name)):
            return False
        rank = self.ranks.get(subscript.value.id)
        parts = subscript.slice.elts if isinstance(subscript.slice, gast.Tuple) else [subscript.slice]
        return rank is not None and len(parts) == rank and all(_is_int(p, self.ints, self.ranges) for p in parts)


def _restored(body, bindings) -> set:
    """Names ``v = xs.pop()`` gives back a value they held: ``xs`` is a tape, which takes only names (or
    ``locals().get('v')`` of them, or ``np.copy`` of elements), none of them ever an index object, and ``v`` is
    one of them.  Such a pop binds nothing new."""
    appended: Dict[str, set] = {}
    for stmt in syntax.iter_statements(body):
        call = stmt.value if isinstance(stmt, gast.Expr) else None
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, gast.Name) and len(call.args) == 1:
            appended.setdefault(call.func.value.id, []).append(_saved_name(call.args[0]))
    restored = set()
    for tape, names in appended.items():
        if any(name is None or any(_index_object(v) for v in bindings.get(name, ())) for name in names):
            continue
        restored |= {name for name in names if any(_popped(v, tape) for v in bindings.get(name, ()))}
    return restored


def _index_object(value) -> bool:
    """Whether ``value`` may be an index that selects a view (a slice, tuple or list, ``...``).  ``None`` is
    the value derivative code gives a name that may still be unbound (``v = None``, then ``locals().get``)."""
    return isinstance(value, (gast.Slice, gast.Tuple, gast.List)) or _calls(value, "slice") or (
        isinstance(value, gast.Constant) and value.value is Ellipsis)


def _saved_name(value):
    """The name a tape push saves (``x``, ``locals().get('x')``), ``""`` for an element copy, else None."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Call) and value.args and len(value.args) == 1 and not value.keywords:
        func = value.func
        if isinstance(func, gast.Attribute) and func.attr == "get" and isinstance(value.args[0], gast.Constant):
            return value.args[0].value if isinstance(value.args[0].value, str) else None
        if getattr(func, "attr", getattr(func, "id", None)) in ("copy", "array_copy") \
                and isinstance(value.args[0], gast.Subscript):
            return ""
    return None


def _popped(value, tape=None) -> bool:
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
            and isinstance(value.func.value, gast.Name) and not value.args
            and (tape is None or value.func.value.id == tape))


def _calls(value, name: str) -> bool:
    return isinstance(value, gast.Call) and getattr(value.func, "id", None) == name


def _is_int(node, ints, ranges) -> bool:
    """An int: ``int_index`` of ints, ``len(...)``, ``x.shape[k]``, or an item of a ``range`` held by a name."""
    if int_index(node, ints) or _calls(node, "len"):
        return True
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) and node.value.attr == "shape":
        return int_index(node.slice, ints)
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id in ranges:
        return _is_int(node.slice, ints, ranges)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv,
                                                             gast.Mod)):
        return _is_int(node.left, ints, ranges) and _is_int(node.right, ints, ranges)
    return False
