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


def is_library(kind) -> bool:
    """Whether ``kind`` (a class) comes from a library srcad has rules for (NumPy, SciPy, math...)."""
    return (getattr(kind, "__module__", None) or "").partition(".")[0] in LIBRARIES


def is_user_object(value) -> bool:
    """An instance of a class of the user's (see the module's contract)."""
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          functools.partial, numbers.Number, np.ndarray, np.generic, str, bytes, list, tuple, dict,
                          set, frozenset, type(None))):
        return False
    return not is_library(type(value))


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

