"""What the objects a function calls through denote when its derivative is built.

Contract:
- ``static_attribute(obj, name)`` is ``obj.name`` read the way Python reads
  it, without running user code: an instance's own attribute, else its
  class's (a function gives the bound method, a ``staticmethod`` its function,
  a ``classmethod`` the method bound to the class, a ``property`` a
  ``Property`` holding its getter); ``UNKNOWN`` when reading it would run code
  srcad cannot see (``__getattr__``, other descriptors).
- ``is_user_object(value)`` says whether ``value`` is an instance of a class
  of the user's (not a module, class, function, number, array or an object
  of the libraries srcad has rules for).
- ``plan_of(value)`` says how a call to ``value`` is differentiated: ``Plan``
  with ``kind`` ``"rule"`` (a function with a rule, or declared
  non-differentiable), ``"function"`` (a plain Python function srcad
  transforms), ``"method"`` (a plain function called with a receiver: a bound
  method, or an object whose class defines ``__call__``), ``"partial"`` (a
  ``functools.partial``) or ``"other"``.
- ``Scope(func, tree, receivers)`` evaluates expressions of ``tree`` (the
  code of ``func``) to the tuple of objects they may denote: ``receivers``
  gives the objects of some parameters (``self`` of a bound method), other
  names are ``func``'s closure, globals and builtins, or locals that every
  assignment (and loop) binds to known objects; attribute chains and
  constant subscripts of known objects follow.  ``None`` means unknown.

Example::

    >>> class Box:
    ...     def grow(self, x):
    ...         return 2.0 * x
    >>> static_attribute(Box(), "grow").__func__ is Box.grow
    True
"""
from __future__ import annotations

import builtins
import functools
import inspect
import numbers
import types
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import gast
import numpy as np

from ..frontend import syntax
from ..templates import is_nondifferentiable, lookup

UNKNOWN = object()
LIBRARIES = frozenset({"numpy", "scipy", "math", "cmath", "builtins", "operator", "srcad", "grad_templates",
                       "functools", "_operator", "_functools"})


@dataclass(frozen=True)
class Property:
    """A ``property`` read from an object: its getter and the object."""

    getter: object
    owner: object


@dataclass(frozen=True)
class Super:
    """``super()`` in a method of ``cls`` called on ``obj``: attributes are looked up after ``cls``."""

    cls: type
    obj: object


@dataclass(frozen=True)
class Plan:
    """How a call to one object is differentiated (see the module's contract)."""

    kind: str
    function: object          # the rule's primal, the plain function, the partial
    receiver: object = None   # the object a method is called on


def _library(kind) -> bool:
    return (getattr(kind, "__module__", None) or "").partition(".")[0] in LIBRARIES


def is_user_object(value) -> bool:
    """An instance of a class of the user's (see the module's contract)."""
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          functools.partial, numbers.Number, np.ndarray, np.generic, str, bytes, list, tuple, dict,
                          set, frozenset, type(None))):
        return False
    return not _library(type(value))


def static_attribute(obj, name: str):
    """``obj.name`` as Python reads it, without running user code (see the module's contract)."""
    if isinstance(obj, types.ModuleType):
        return getattr(obj, name, UNKNOWN)
    if isinstance(obj, Super):   # super().name: the classes after cls in the object's order
        order = (obj.obj if isinstance(obj.obj, type) else type(obj.obj)).__mro__
        after = order[order.index(obj.cls) + 1:] if obj.cls in order else ()
        raw = next((klass.__dict__[name] for klass in after if name in klass.__dict__), UNKNOWN)
        return UNKNOWN if raw is UNKNOWN else _descriptor(raw, obj.obj)
    owner = obj if isinstance(obj, type) else type(obj)
    try:
        raw = inspect.getattr_static(owner, name)
    except AttributeError:
        raw = UNKNOWN
    own = getattr(obj, "__dict__", None) if not isinstance(obj, type) else None
    data_descriptor = raw is not UNKNOWN and hasattr(type(raw), "__set__")
    if isinstance(own, dict) and name in own and not data_descriptor:
        return own[name]
    if raw is UNKNOWN:
        return UNKNOWN   # nowhere, or only ``__getattr__`` would find it
    return _descriptor(raw, obj)


def _descriptor(raw, obj):
    """What reading a class attribute ``raw`` through ``obj`` (an instance, or a class) gives."""
    owner = obj if isinstance(obj, type) else type(obj)
    if isinstance(raw, staticmethod):
        return raw.__func__
    if isinstance(raw, classmethod):
        return types.MethodType(raw.__func__, owner)
    if isinstance(raw, types.FunctionType):
        return raw if isinstance(obj, type) else types.MethodType(raw, obj)
    if isinstance(raw, property):
        return raw if isinstance(obj, type) else Property(raw.fget, obj)
    if isinstance(raw, types.MemberDescriptorType) and not isinstance(obj, type):   # a __slots__ entry
        return raw.__get__(obj, owner) if hasattr(obj, raw.__name__) else UNKNOWN
    if hasattr(type(raw), "__get__") and not callable(raw):
        return UNKNOWN   # some other descriptor: reading it runs code
    return raw


def _has_attributes(value) -> bool:
    """Whether srcad reads attributes of ``value`` when it builds: a module, a class, a user object, super()."""
    return isinstance(value, (types.ModuleType, type, Super, functools.partial)) or is_user_object(value)


def has_rule(value) -> bool:
    """Whether srcad differentiates a call to ``value`` by a rule (or knows it has no derivative)."""
    try:
        return (lookup(value, "reverse") is not None or lookup(value, "forward") is not None
                or is_nondifferentiable(value))
    except TypeError:   # unhashable
        return False


def plan_of(value) -> Plan:
    """How a call to ``value`` is differentiated (see the module's contract)."""
    if isinstance(value, functools.partial):
        return Plan("partial", value)
    if has_rule(value):
        return Plan("rule", value)
    if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType) \
            and not has_rule(value.__func__):
        return Plan("method", value.__func__, value.__self__)
    if isinstance(value, types.FunctionType):
        return Plan("function", value)
    call = inspect.getattr_static(type(value), "__call__", None) if is_user_object(value) else None
    if isinstance(call, types.FunctionType) and not has_rule(call):
        return Plan("method", call, value)
    return Plan("other", value)


def outer_scope(func) -> Dict[str, object]:
    """``func``'s closure values by name (its globals and builtins are looked up after them)."""
    closure = {}
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:   # not bound yet
            pass
    return closure


class Scope:
    """The objects expressions of ``tree`` denote when the derivative is built (see the module's contract)."""

    def __init__(self, func, tree, receivers: Optional[Dict[str, Tuple]] = None):
        self.func, self.tree = func, tree
        self.closure = outer_scope(func)
        self.local = syntax.names_in(tree, gast.Store) | syntax.names_in(tree, gast.Param) | {
            arg.id for arg in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
        self.local |= {node.name for node in syntax.walk(tree) if isinstance(node, gast.FunctionDef)
                       and node is not tree}
        self.known: Dict[str, Tuple] = dict(receivers or {})
        self._bind_locals()

    def _bind_locals(self) -> None:
        """Locals every binding of which gives known objects: ``layer = self.dense``, ``for layer in self.layers``."""
        sources: Dict[str, list] = {}
        self.sources = sources   # name -> [("value", expression) or ("element", iterable)]
        for node in syntax.walk(self.tree):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
                sources.setdefault(node.targets[0].id, []).append(("value", node.value))
            elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                sources.setdefault(node.target.id, []).append(("element", node.iter))
        opaque = {name for name in self.local if name not in sources or name in self.known}
        stored = [node for node in syntax.walk(self.tree) if isinstance(node, gast.Name)
                  and isinstance(node.ctx, gast.Store)]
        counted: Dict[str, int] = {}
        for node in stored:
            counted[node.id] = counted.get(node.id, 0) + 1
        for name, found in sources.items():
            if counted.get(name, 0) != len(found) or name in self.known:
                opaque.add(name)   # also bound another way (tuple unpacking, augmented assignment...)
        changed = True
        while changed:
            changed = False
            for name, found in sources.items():
                if name in opaque or name in self.known:
                    continue
                values = []
                for how, node in found:
                    got = self.values(node) if how == "value" else self.elements(node)
                    if got is None:
                        break
                    values.extend(got)
                else:
                    self.known[name] = tuple(values)
                    changed = True

    def is_local(self, name: str) -> bool:
        return name in self.local

    def lookup(self, name: str):
        """What a name that is not local denotes: closure, globals, builtins; ``UNKNOWN`` if none."""
        if name in self.closure:
            return self.closure[name]
        if name in self.func.__globals__:
            return self.func.__globals__[name]
        return getattr(builtins, name, UNKNOWN)

    def values(self, node) -> Optional[Tuple]:
        """The objects ``node`` may denote, or None when srcad does not know them when it builds."""
        if isinstance(node, gast.Name):
            if node.id in self.known:
                return self.known[node.id]
            if node.id in self.local:
                return None
            value = self.lookup(node.id)
            return None if value is UNKNOWN else (value,)
        if isinstance(node, gast.Attribute):
            bases = self.values(node.value)
            if bases is None or not all(_has_attributes(base) for base in bases):
                return None   # an array's, a number's methods are the business of the later passes
            found = tuple(static_attribute(base, node.attr) for base in bases)
            return None if any(value is UNKNOWN for value in found) else found
        if self._is_super(node):
            cls = self.closure.get("__class__")
            args = self.tree.args.posonlyargs + self.tree.args.args
            objects = self.known.get(args[0].id) if args else None
            return None if cls is None or objects is None else tuple(Super(cls, obj) for obj in objects)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant):
            bases = self.values(node.value)
            if bases is None or not all(isinstance(base, (list, tuple, dict)) for base in bases):
                return None
            try:
                return tuple(base[node.slice.value] for base in bases)
            except (LookupError, TypeError):
                return None
        return None

    def _is_super(self, node) -> bool:
        """Whether ``node`` is ``super()`` (the builtin, with no arguments)."""
        return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "super"
                and not node.args and not node.keywords and not self.is_local("super")
                and self.lookup("super") is builtins.super)

    def elements(self, node) -> Optional[Tuple]:
        """The items a ``for`` loop over ``node`` may bind, or None."""
        containers = self.values(node)
        if containers is None or not all(isinstance(c, (list, tuple)) for c in containers):
            return None
        return tuple(item for container in containers for item in container)

    def rooted_outside(self, node) -> bool:
        """Whether the chain ``node`` starts at a name that is not local (a global, closure or builtin)."""
        while isinstance(node, (gast.Attribute, gast.Subscript)):
            node = node.value
        return isinstance(node, gast.Name) and node.id not in self.local and node.id not in self.known


def holds_code(value, depth: int = 3) -> bool:
    """Whether a call can run through ``value``: a callable, a user object, or a list, tuple or dict of them."""
    if callable(value) or is_user_object(value):
        return not isinstance(value, type) or not _library(value)
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
