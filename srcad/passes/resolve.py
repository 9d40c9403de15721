"""Analysis: bind every name the function reads from outside to its Python object.

Contract: after this pass,
- ``unit.facts['resolve']`` is the set of the function's local names
  (parameters and assigned names);
- every non-local ``Name`` that is loaded, and every attribute chain rooted at
  one (``np.linalg.norm``), carries the annotation ``ref``: the object it
  denotes now (a name the ``methods`` pass bound first, then closure cells,
  globals and builtins);
- those names are bound in ``unit.bindings`` under the user's spelling, and
  every name the function uses is reserved in ``unit.namer``.
Only annotations are written; the tree's shape is unchanged.  An unknown name
raises ``SrcadError`` at its line.

Example: in ``def f(x): return np.sin(x)``, the node ``np.sin`` gets
``ref = numpy.sin``.
"""
from __future__ import annotations

import builtins

import gast

from ..errors import SrcadError
from ..frontend.naming import dotted_name
from ..frontend.syntax import annotate, annotation, names_in
from . import Analysis

_MISSING = object()


def outer_scope(func):
    """Closure values of ``func`` by name, then its globals, then builtins (lookup order)."""
    closure = {}
    if func.__closure__:
        for var, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                closure[var] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not bound yet
                pass
    return closure, func.__globals__


class Resolve(Analysis):
    """Annotate non-local names and attribute chains with the objects they denote."""

    name = "resolve"

    def analyse(self, unit):
        tree = unit.tree
        params = [arg.id for arg in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs]
        local_names = set(params) | names_in(tree, gast.Store) | names_in(tree, gast.Param)
        local_names |= {node.name for node in gast.walk(tree) if isinstance(node, gast.FunctionDef)
                        and node is not tree}   # nested defs are local; f's own name is not
        for identifier in sorted(names_in(tree)):
            unit.namer.reserve(identifier)
        closure, module_globals = outer_scope(unit.parsed.func)
        targets = unit.facts.get("methods", {})   # names the methods pass bound to the functions they call
        for node in gast.walk(tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in local_names:
                if node.id in targets:
                    annotate(node, "ref", targets[node.id].function)
                    unit.bindings.adopt(node.id, targets[node.id].function)
                    continue
                if node.id in unit.wrt:   # a global or closure variable differentiated like a parameter
                    value = closure.get(node.id, module_globals.get(node.id))
                    unit.bindings.adopt(node.id, value)
                    continue
                value = closure.get(node.id, _MISSING)
                if value is _MISSING:
                    value = module_globals.get(node.id, _MISSING)
                if value is _MISSING:
                    value = getattr(builtins, node.id, _MISSING)
                if value is _MISSING:
                    raise unit.error(node, SrcadError, f"name {node.id!r} is not defined",
                                     "define it before taking the derivative")
                annotate(node, "ref", value)
                if not (node.id in vars(builtins) and getattr(builtins, node.id) is value):
                    unit.bindings.adopt(node.id, value)
        for node in gast.walk(tree):
            if isinstance(node, gast.Attribute):
                self._resolve_attribute(unit, node)
        return frozenset(local_names)

    def _resolve_attribute(self, unit, node):
        base = node.value
        if isinstance(base, gast.Attribute):
            self._resolve_attribute(unit, base)
        owner = annotation(base, "ref", _MISSING)
        if owner is _MISSING or annotation(node, "ref", _MISSING) is not _MISSING:
            return
        try:
            annotate(node, "ref", getattr(owner, node.attr))
        except AttributeError:
            raise unit.error(node, SrcadError, f"{dotted_name(node)} does not exist") from None
