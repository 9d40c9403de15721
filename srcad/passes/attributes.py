"""Transformation: attributes named in ``wrt`` (``'self.W'``, ``'params.W'``) become variables of their own.

Contract: for each ``wrt`` entry ``root.a.b`` (``root`` a parameter), every
read of that attribute in f's tree, after helpers were inlined, becomes the
name ``root_a_b`` (fresh), and the entry in ``unit.wrt`` becomes that name:
the later passes differentiate it like a global named in ``wrt``.  Reads go
through ``root`` itself or through locals every assignment of which binds
them to it or to an attribute on the way (``layer = self.dense``, an inlined
method's ``self``).  ``unit.facts['prologue']`` holds the statements that
read the attributes (``self_W = self.W``), which the pipeline puts first in
the generated function.

An attribute that holds no float when the derivative is built (objects,
functions, ints) raises ``WrtError``.  Anything else that reaches an object
holding a differentiated attribute
raises ``UnsupportedSyntaxError`` at the user's line, because the
derivative would not see the attribute change: passing the object to a
function srcad calls through its derivative (a method it does not inline),
keeping it in a container, rebinding ``root``, reading a property or a
method it could not inline.

Example: with ``wrt=('self.W',)``, ``return np.sum(self.W @ x)`` becomes
``return np.sum(self_W @ x)``, with the prologue ``self_W = self.W``.
"""
from __future__ import annotations

import inspect
import types
from typing import Dict, Optional

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError, WrtError
from ..frontend import syntax
from .receivers import Property, UNKNOWN, static_attribute
from . import Transformation


class Attributes(Transformation):
    """Turn the attributes named in ``wrt`` into variables (see the module's contract)."""

    name = "attributes"

    def transform(self, unit):
        paths = [entry for entry in unit.wrt if "." in entry]
        unit.facts["prologue"] = []
        if not paths:
            return False
        tree = unit.tree
        parameters = {arg.id for arg in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
        variables = {path: unit.namer.fresh(path.replace(".", "_")) for path in paths}
        prefixes = {".".join(path.split(".")[:end]) for path in paths for end in range(1, path.count(".") + 1)}
        aliases = _aliases(tree, {path.split(".")[0] for path in paths} & parameters, prefixes)
        for root in {path.split(".")[0] for path in paths}:
            if any(isinstance(node, gast.Name) and node.id == root and isinstance(node.ctx, gast.Store)
                   for node in syntax.walk(tree)):
                raise unit.error(_first_store(tree, root), UnsupportedSyntaxError,
                                 f"`{root}` is assigned while srcad differentiates its attributes "
                                 f"({', '.join(p for p in paths if p.startswith(root + '.'))})",
                                 f"give the new value another name (`{root}2 = ...`)")
        objects = _objects(unit, tree)
        for path in paths:
            _check_holds_floats(path, objects)
        rewriter = _Rewriter(unit, aliases, variables, prefixes, objects)
        tree.body = [rewriter.visit(stmt) for stmt in tree.body]
        unit.facts["wrt_as_given"] = unit.wrt
        unit.wrt = tuple(variables.get(entry, entry) for entry in unit.wrt)
        for path, variable in variables.items():
            root, *attributes = path.split(".")
            value = syntax.name(root)
            for attribute in attributes:
                value = gast.Attribute(value=value, attr=attribute, ctx=gast.Load())
            unit.facts["prologue"].append(syntax.assign(variable, value))
        return True


def _check_holds_floats(path: str, objects) -> None:
    """``WrtError`` when the attribute ``path`` names holds no float now (objects, functions, ints)."""
    root, *attributes = path.split(".")
    value = objects.get(root, UNKNOWN)
    for attribute in attributes:
        value = UNKNOWN if value is UNKNOWN else static_attribute(value, attribute)
    if value is UNKNOWN or _floats(value):
        return
    raise WrtError(f"wrt={path!r} holds no float: it is {type(value).__name__} {value!r:.60}; name attributes "
                   f"that hold floats or float arrays (an object's own ones, e.g. wrt='{path}.W' for an object "
                   f"held there)")


def _floats(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc"
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_floats(item) for item in value)
    if isinstance(value, dict):
        return bool(value) and all(_floats(item) for item in value.values())
    return isinstance(value, (float, complex, np.floating, np.complexfloating))


def _first_store(tree, root):
    return next(node for node in syntax.walk(tree) if isinstance(node, gast.Name) and node.id == root
                and isinstance(node.ctx, gast.Store))


def _objects(unit, tree) -> Dict[str, object]:
    """The objects known for parameters when the derivative is built: a bound method's, an example's."""
    known = dict(unit.options.get("examples") or {})
    args = tree.args.posonlyargs + tree.args.args
    if unit.options.get("receiver") is not None and args:
        known[args[0].id] = unit.options["receiver"]
    return known


def _aliases(tree, roots, prefixes) -> Dict[str, str]:
    """Local names that always hold a prefix's object (``layer = self.dense``): name -> prefix path."""
    aliases = {root: root for root in roots}
    stores: Dict[str, int] = {}
    bindings: Dict[str, list] = {}
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            bindings.setdefault(node.targets[0].id, []).append(node.value)
    changed = True
    while changed:
        changed = False
        for name, values in bindings.items():
            if name in aliases or stores.get(name) != len(values):
                continue
            paths = {_path(value, aliases) for value in values}
            if len(paths) == 1 and next(iter(paths)) in prefixes:
                aliases[name] = next(iter(paths))
                changed = True
    return aliases


def _path(node, aliases) -> Optional[str]:
    """The attribute path ``node`` reads (``self.dense.W``), through aliases; None for anything else."""
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
        return aliases.get(node.id)
    if isinstance(node, gast.Attribute):
        base = _path(node.value, aliases)
        return None if base is None else f"{base}.{node.attr}"
    return None


class _Rewriter(gast.NodeTransformer):
    def __init__(self, unit, aliases, variables, prefixes, objects):
        self.unit, self.aliases, self.variables, self.prefixes = unit, aliases, variables, prefixes
        self.objects = objects
        self.parents: Dict[int, object] = {}

    def visit(self, node):
        for child in gast.iter_child_nodes(node):
            self.parents[id(child)] = node
        return super().visit(node)

    def visit_Attribute(self, node):
        path = _path(node, self.aliases)
        if path in self.variables:
            return gast.copy_location(syntax.name(self.variables[path]), node)
        if path is not None and path.rpartition(".")[0] in self.prefixes and path not in self.prefixes:
            self._check_read(node, path)
            return node
        return self._check_whole(node, path) or self.generic_visit(node)

    def visit_Name(self, node):
        return self._check_whole(node, _path(node, self.aliases)) or node

    def _check_whole(self, node, path):
        """An object holding differentiated attributes may only have attributes read, or be aliased."""
        if path not in self.prefixes or not isinstance(node.ctx, gast.Load):
            return None
        parent = self.parents.get(id(node))
        if isinstance(parent, gast.Attribute) and parent.value is node:
            return node
        if isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], gast.Name) and parent.targets[0].id in self.aliases:
            return node
        spelled = path
        differentiated = ", ".join(p for p in self.variables if p.startswith(path + "."))
        raise self.unit.error(node, UnsupportedSyntaxError,
                              f"`{spelled}` is used whole here while srcad differentiates {differentiated}: "
                              f"srcad follows those attributes only where they are read",
                              f"read the attribute here and pass its value (e.g. `{differentiated.split(', ')[0]}`), "
                              f"or differentiate with respect to a parameter instead")

    def _unused_store(self, node) -> bool:
        """Whether ``node`` is the value of ``name = node`` and ``name`` is never read."""
        parent = self.parents.get(id(node))
        if not (isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1
                and isinstance(parent.targets[0], gast.Name)):
            return False
        name = parent.targets[0].id
        return not any(isinstance(other, gast.Name) and other.id == name and isinstance(other.ctx, gast.Load)
                       for other in syntax.walk(self.unit.tree))

    def _check_read(self, node, path):
        """A read of another attribute of such an object: plain data, not a property or a method."""
        root, *attributes = path.split(".")
        owner = self.objects.get(root, UNKNOWN)
        for attribute in attributes[:-1]:
            owner = UNKNOWN if owner is UNKNOWN else static_attribute(owner, attribute)
        if owner is UNKNOWN:
            return
        value = static_attribute(owner, attributes[-1])
        own = getattr(owner, "__dict__", None)
        hidden = value is UNKNOWN and not (isinstance(own, dict) and attributes[-1] in own) \
            and inspect.getattr_static(type(owner), attributes[-1], None) is not None
        if isinstance(value, types.MethodType) and self._unused_store(node):
            return   # `forward = self.forward`, its calls resolved (methods pass) and inlined: nothing reads it
        if isinstance(value, (Property, types.MethodType)) or hidden:   # code srcad cannot see may read them
            what = "property" if isinstance(value, Property) or hidden else "method"
            raise self.unit.error(node, UnsupportedSyntaxError,
                                  f"`{path}` is a {what} of an object whose attributes srcad differentiates, and "
                                  f"srcad could not bring its code into this function",
                                  "read the differentiated attributes directly here (define the "
                                  f"{what} in the same module, without other decorators)")
