"""What calls through objects depend on, for ``srcad.dependencies``: the objects walked and the entries that
watch them.

Contract: ``ObjectWalk(follow, describe).visit(roots, names)`` walks each
root (a user object, a class, a ``functools.partial``, a list, tuple or dict
holding such) and, for user objects and classes, the attributes named in
``names`` (the attribute names the reached code reads, ``__call__`` for an
object that is called), again for names added by a later call; it fills
``entries`` (what the guard tests) and ``lines`` (the key text).
``holds_code(value)`` says whether a call can run through ``value``.

Example::

    >>> walk = ObjectWalk(lambda function: "", repr)
    >>> walk.visit([functools.partial(print, "x")], set())
    >>> walk.lines[0].startswith("object 0:")
    True
"""
from __future__ import annotations

import functools
import types
from typing import Dict, Tuple

from .receivers import UNKNOWN, is_library, is_user_object, static_attribute


def holds_code(value, depth: int = 3) -> bool:
    """Whether a call can run through ``value``: a callable, a user object, or a list, tuple or dict of them."""
    if callable(value) or is_user_object(value):
        return not isinstance(value, type) or not is_library(value)
    if depth and isinstance(value, (list, tuple)):
        return any(holds_code(item, depth - 1) for item in value)
    if depth and isinstance(value, dict):
        return any(holds_code(item, depth - 1) for item in value.values())
    return False


class ObjectWalk:
    """What calls through objects depend on: the watched entries and the key text of the objects reached.

    ``visit(roots, names)`` walks each root (a user object, a class, a ``functools.partial``, a list, tuple or
    dict holding such) and, for user objects and classes, the attributes named in ``names`` (the attribute
    names the reached code reads), again for names added since.  It appends ``(kind, holder, name, value)``
    entries to ``entries`` (``entry``: ``holder[name] is value``; ``absent``: ``name not in holder``;
    ``item``: a list's element; ``length``: ``len(holder) == value``; ``attribute``: ``holder.name is
    value``) and lines to ``lines``; ``follow(function)`` is called for each plain function reached and
    returns its number in the key text.
    """

    def __init__(self, follow, describe):
        self.follow, self.describe = follow, describe
        self.entries: list = []
        self.lines: list = []
        self._numbers: Dict[int, int] = {}
        self._walked: Dict[int, set] = {}
        self._kept: list = []   # the objects walked, so their ids stay theirs
        self._objects: list = []   # (user object or class, its label, depth): walked again for new names

    def visit(self, roots, names) -> None:
        for root in list(roots):
            self._visit(root, names, depth=0)
        index = 0
        while index < len(self._objects):   # objects walked before: the names read since
            value, label, depth = self._objects[index]
            self._walk_names(value, label, names, depth)
            index += 1

    def _number(self, value) -> Tuple[int, bool]:
        known = id(value) in self._numbers
        if not known:
            self._numbers[id(value)] = len(self._numbers)
            self._kept.append(value)
        return self._numbers[id(value)], not known

    def _visit(self, value, names, depth: int) -> str:
        """Walk ``value``; the text that describes it in the key."""
        if depth > 8 or not holds_code(value):
            return self.describe(value)
        if isinstance(value, types.FunctionType):
            return self.describe(value) + self.follow(value)
        if isinstance(value, types.MethodType):
            return f"method of {self._visit(value.__self__, names, depth + 1)}: " + \
                self._visit(value.__func__, names, depth + 1)
        number, new = self._number(value)
        label = f"object {number}"
        if new:
            self.lines.append(f"{label}: {self.describe(value) if not isinstance(value, type) else 'class'} "
                              f"{type(value).__module__}.{type(value).__qualname__}")
        if isinstance(value, functools.partial):
            if new:
                parts = [self._visit(value.func, names, depth + 1)] + [
                    self._visit(item, names, depth + 1) for item in value.args + tuple(value.keywords.values())]
                self.lines.append(f"{label} = partial({', '.join(parts)}; keywords {sorted(value.keywords)})")
            return label
        if isinstance(value, (list, tuple, dict)):
            if new:
                self._container(value, label, names, depth)
            return label
        if not is_user_object(value) and not isinstance(value, type):
            return label
        if new:
            self._objects.append((value, label, depth))
            if not isinstance(value, type):
                self.entries.append(("attribute", value, "__class__", type(value)))
        self._walk_names(value, label, names, depth)
        return label

    def _walk_names(self, value, label, names, depth) -> None:
        """Walk the attributes of ``value`` named in ``names`` that were not walked yet."""
        done = self._walked.setdefault(id(value), set())
        wanted = set(names) | ({"__call__"} if callable(value) and not isinstance(value, type) else set())
        for name in sorted(wanted - done):   # an object called as obj(x) runs its class's __call__
            done.add(name)
            self._attribute(value, label, name, names, depth)

    def _container(self, value, label, names, depth) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        if isinstance(value, list):
            self.entries.append(("length", value, "", len(value)))
        for key, item in items:
            if isinstance(value, list):
                self.entries.append(("item", value, key, item))
            elif isinstance(value, dict):
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    continue   # srcad reads dicts by constant str and int keys only
                if holds_code(item):
                    self.entries.append(("entry", value, key, item))
            self.lines.append(f"{label}[{key!r}] = {self._visit(item, names, depth + 1)}")

    def _attribute(self, value, label, name, names, depth) -> None:
        own = getattr(value, "__dict__", None) if not isinstance(value, type) else None
        found = static_attribute(value, name)
        if found is UNKNOWN:
            return
        if isinstance(own, dict) and name in own and own[name] is found:
            if holds_code(found):
                self.entries.append(("entry", own, name, found))
            self.lines.append(f"{label}.{name} = {self._visit(found, names, depth + 1)}")
            return
        owner = value if isinstance(value, type) else type(value)
        if isinstance(own, dict):
            self.entries.append(("absent", own, name, None))   # an instance attribute would hide it
        for klass in owner.__mro__:   # every class's, since super() reaches past the first
            namespace = klass.__dict__
            if name not in namespace:
                self.entries.append(("absent", namespace, name, None))
                continue
            raw = namespace[name]
            self.entries.append(("entry", namespace, name, raw))
            inner = raw.fget if isinstance(raw, property) else getattr(raw, "__func__", raw)
            self.lines.append(f"{label}.{name} = {klass.__qualname__}: {type(raw).__name__} "
                              f"{self._visit(inner, names, depth + 1)}")
