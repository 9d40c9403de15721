"""Transformation: calls through objects, resolved to the functions they run when the derivative is built.

Contract: in f's tree (and, through ``resolve_calls``, in every helper
``inline_calls`` brings in), a call whose callee srcad knows when it builds
the derivative (``receivers.Scope``: ``self`` of a bound method, a global or
closure object, an attribute, a constant index or a loop over a list of
known objects) is rewritten after what it runs (``receivers.plan_of``):

- a method of the user's class (``self.forward(x)``, ``self.dense(x)``
  through ``__call__``, a classmethod, a bound method held in a variable)
  becomes a call of the plain function with the object first,
  ``forward(self, x)``, under a name bound in ``unit.facts['methods']`` to a
  ``Target(function, receivers)``: ``inline_calls`` inlines it (its ``self``
  then known too) or ``calls`` calls its derivative, which is specialised on
  each object it is called with;
- a plain function held by an object (``self.act = helper``, a
  staticmethod) becomes a call of that function under such a name;
- a function with a rule held by an object (``self.act = np.tanh``) stays
  as written, annotated ``ref`` with that function (as is any other callable
  held, so a missing rule is reported by name);
- a partial made in f and called there is written out first
  (``local_partials``);
- ``p(x)`` of a ``functools.partial`` becomes ``p.func(p.args[0], x,
  k=p.keywords['k'])``, itself resolved;
- a property read of an object whose attributes are differentiated
  (``wrt='self.W'``) becomes a call of its getter.

A loop over up to ``MAX_UNROLLED`` objects that differ in what a call runs
(``for cell in self.cells`` over a Dense, then a Tanh) becomes one copy of
its body per object; objects that differ otherwise (a loop with ``break``)
raise ``UnsupportedSyntaxError``, as do a method called on ``self`` when
``self`` is not known (f given as ``Model.loss``, not ``model.loss``), a
store into an attribute (``self.count += 1``, ``self.W[0] = v``) and a
mutating method called on what an object holds (``self.layers.append(v)``,
``self.W.fill(0.0)``).  What the resolution relied on is watched by
``srcad.dependencies``, which walks the same objects.

Example: with ``model.act = np.tanh``, ``return np.sum(self.act(x))`` in
``model.loss`` keeps ``self.act(x)``, differentiated as ``np.tanh(x)``.
"""
from __future__ import annotations

import builtins
import functools
import types
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import gast

from ..errors import UnsupportedSyntaxError, located
from ..frontend import syntax
from ..operators import METHODS
from ..analysis.mutation import MUTATING_METHODS
from .local_partials import expand_local_partials
from .receivers import Plan, Property, Scope, is_user_object, plan_of
from . import Transformation

_ARRAY_METHODS = frozenset(METHODS) | MUTATING_METHODS | {"T", "real", "imag", "conj", "conjugate", "item",
                                                           "tolist", "nonzero", "fill", "at", "get", "keys",
                                                           "values", "items", "index", "count"}


@dataclass(frozen=True)
class Target:
    """What a name ``methods`` introduced stands for: a plain function, and the objects passed as its first
    argument when it is a method (None for a plain function)."""

    function: types.FunctionType
    receivers: Optional[Tuple[object, ...]] = None


class Methods(Transformation):
    """Resolve calls through objects in f's tree (see the module's contract)."""

    name = "methods"

    def transform(self, unit):
        unit.facts.setdefault(self.name, {})
        receivers = {}
        receiver = unit.options.get("receiver")
        args = unit.tree.args.posonlyargs + unit.tree.args.args
        if receiver is not None and args:
            receivers[args[0].id] = (receiver,)
        return resolve_calls(unit, unit.parsed, unit.tree, receivers)


def resolve_calls(unit, parsed, tree, receivers: Dict[str, Tuple]) -> bool:
    """Rewrite the calls of ``tree`` (the code of ``parsed.func``) through known objects; True if any changed."""
    for name in syntax.names_in(tree):
        unit.namer.reserve(name)
    expanded = expand_local_partials(unit, parsed, tree)
    scope = Scope(parsed.func, tree, receivers)
    if _unroll_mixed_loops(unit, scope, tree):   # one copy of the body per object: each resolved alone
        scope = Scope(parsed.func, tree, receivers)
    resolver = _Resolver(unit, parsed, scope, _differentiated_objects(unit, scope, tree))
    _refuse_attribute_stores(parsed, tree)
    tree.body = [resolver.visit(stmt) for stmt in tree.body]
    return resolver.changed or expanded


MAX_UNROLLED = 16


def _unroll_mixed_loops(unit, scope, tree) -> bool:
    """``for layer in self.cells: x = layer(x)`` over objects that differ in what the call runs (a Dense, then
    a Tanh) becomes one copy of the body per object, ``layer_0 = self.cells[0]`` first: each copy then calls
    one known function.  Loops with ``break``, ``continue`` or ``else``, or that rebind the loop variable,
    stay loops (and are refused later when their calls differ)."""
    changed = False

    def block(statements):
        nonlocal changed
        result = []
        for stmt in statements:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.If, gast.For, gast.While)):
                    setattr(stmt, field, block(getattr(stmt, field)))
            elements = scope.elements(stmt.iter) if isinstance(stmt, gast.For) else None
            if elements is not None and 0 < len(elements) <= MAX_UNROLLED and _mixed(scope, stmt, elements):
                result += _copies(unit, stmt, len(elements))
                changed = True
            else:
                result.append(stmt)
        return result

    tree.body = block(tree.body)
    return changed


def _mixed(scope, loop, elements) -> bool:
    """Whether a call in ``loop``'s body through its variable runs different functions for ``elements``."""
    if not isinstance(loop.target, gast.Name) or loop.orelse or any(
            isinstance(node, (gast.Break, gast.Continue)) for node in syntax.walk(gast.Module(body=loop.body,
                                                                                          type_ignores=[]))):
        return False
    name = loop.target.id
    if name in syntax.names_in(gast.Module(body=loop.body, type_ignores=[]), gast.Store):
        return False
    for node in syntax.walk(gast.Module(body=loop.body, type_ignores=[])):
        if isinstance(node, gast.Call) and _rooted_at(node.func, name):
            plans, before = [], scope.known.get(name)
            for element in elements:
                scope.known[name] = (element,)
                values = scope.values(node.func)
                plans.append(None if values is None else plan_of(values[0]))
            scope.known.pop(name)
            if before is not None:
                scope.known[name] = before
            if None not in plans and len({(p.kind, id(p.function)) for p in plans}) > 1:
                return True
    return False


def _rooted_at(node, name: str) -> bool:
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return isinstance(node, gast.Name) and node.id == name


def _copies(unit, loop, count: int):
    """The body of ``loop`` once per element, its variable renamed per copy; the variable ends as the last."""
    name, statements = loop.target.id, []
    for index in range(count):
        copy = unit.namer.fresh(f"{name}_{index}")
        element = gast.Subscript(value=syntax.clone(loop.iter), slice=syntax.constant(index), ctx=gast.Load())
        statements.append(syntax.set_location(gast.Assign(targets=[syntax.store(copy)], value=element,
                                                          type_comment=None), loop.lineno))
        statements += [syntax.rename(syntax.clone(stmt), {name: copy}) for stmt in loop.body]
    statements.append(syntax.set_location(syntax.assign(name, syntax.name(copy)), loop.lineno))
    return statements


def _differentiated_objects(unit, scope, tree) -> set:
    """Ids of the objects whose attributes are differentiated (``wrt='self.W'``: ``self``'s object)."""
    found = set(unit.facts.get("differentiated_objects", ()))
    if tree is unit.tree:
        for entry in unit.wrt:
            parts = entry.split(".")
            for end in range(1, len(parts)):
                node = syntax.name(parts[0])
                for attribute in parts[1:end]:
                    node = gast.Attribute(value=node, attr=attribute, ctx=gast.Load())
                found |= {id(value) for value in scope.values(node) or ()}
        unit.facts["differentiated_objects"] = frozenset(found)
    return found


def _refuse_attribute_stores(parsed, tree) -> None:
    for node in syntax.walk(tree):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AugAssign, gast.AnnAssign)) else []
        for target in targets:
            base = target
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Attribute):
                spelled, local = _spelled(base), base.attr
                hint = (f"store into a copy (`{local} = {spelled}.copy()`, then `{local}[...] = ...`) and use "
                        f"`{local}`" if base is not target else
                        f"compute the new value in a local variable (`{local} = ...`) and return it, or change "
                        f"`{spelled}` outside the differentiated function")
                raise located(UnsupportedSyntaxError,
                              f"a store into the attribute `{spelled}` is not supported: a derivative would "
                              f"have to follow the object's state from call to call", hint, parsed.location(target))


def _spelled(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return f"{_spelled(node.value)}.{node.attr}"
    if isinstance(node, gast.Subscript):
        return f"{_spelled(node.value)}[...]"
    return "(...)"


class _Resolver(gast.NodeTransformer):
    def __init__(self, unit, parsed, scope: Scope, differentiated: set):
        self.unit, self.parsed, self.scope, self.differentiated = unit, parsed, scope, differentiated
        self.changed = False

    def visit_Call(self, node):
        node = self.generic_visit(node)
        self._refuse_changing_an_attribute(node)
        values = self.scope.values(node.func)
        if values is None:
            self._refuse_unknown_method(node)
            return node
        plans = [plan_of(value) for value in values]
        if not plans:
            return node
        first = plans[0]
        same = all(plan.kind == first.kind and plan.function is first.function for plan in plans)
        if not same:
            root = node.func
            while isinstance(root, (gast.Attribute, gast.Subscript)):
                root = root.value
            looped = isinstance(root, gast.Name) and any(how == "element" for how, _ in
                                                         self.scope.sources.get(root.id, []))
            raise self._error(node, f"`{_spelled(node.func)}` denotes objects that differ in what a call runs "
                                    f"({', '.join(sorted({_label(p) for p in plans}))}); srcad resolves a call "
                                    f"once for all of them",
                              "drop the loop's `break`/`continue` (srcad then writes the loop out once per "
                              "object, up to 16), or give every object the same class" if looped else
                              "call each object where it is chosen (in its own branch), or give them the "
                              "same class")
        if first.kind == "partial":
            return self.visit_Call(self._expand_partial(node, first.function))
        if first.kind in ("rule", "other") and not self.scope.rooted_outside(node.func):
            syntax.annotate(node.func, "ref", first.function)   # a function without a rule: reported later
            self.changed = True
        elif first.kind == "function" and not (isinstance(node.func, gast.Name)
                                                and self.scope.rooted_outside(node.func)):
            if not self.scope.rooted_outside(node.func) or _through(node.func, "func"):
                node.func = self._target_name(node.func, first.function, None)
                self.changed = True
        elif first.kind == "method":
            receiver = self._receiver_expression(node.func, plans)
            node.func = self._target_name(node.func, first.function, tuple(plan.receiver for plan in plans))
            node.args = [receiver] + node.args
            self.changed = True
        return node

    def visit_Attribute(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or not self.differentiated:
            return node
        values = self.scope.values(node)
        if not values or not all(isinstance(value, Property) for value in values):
            return node
        if not any(id(value.owner) in self.differentiated for value in values):
            return node
        getters = {value.getter for value in values}
        if len(getters) != 1 or not isinstance(next(iter(getters)), types.FunctionType):
            raise self._error(node, f"the property `{_spelled(node)}` of an object whose attributes are "
                                    f"differentiated has no plain Python getter srcad can read",
                              f"read the attributes it combines directly in place of `{_spelled(node)}`")
        owners = tuple(value.owner for value in values)
        call = gast.Call(func=self._target_name(node, next(iter(getters)), owners),
                         args=[syntax.clone(node.value)], keywords=[])
        self.changed = True
        return gast.copy_location(call, node)

    def _expand_partial(self, node, partial: functools.partial):
        """``p(x)`` as ``p.func(p.args[0], x, k=p.keywords['k'])``."""
        base = node.func
        stored = [gast.Subscript(value=gast.Attribute(value=syntax.clone(base), attr="args", ctx=gast.Load()),
                                 slice=syntax.constant(index), ctx=gast.Load()) for index in range(len(partial.args))]
        given = {keyword.arg for keyword in node.keywords}
        if None in given:
            raise self._error(node, "`**` arguments to a functools.partial", "pass the keywords by name")
        keywords = [gast.keyword(arg=name, value=gast.Subscript(
            value=gast.Attribute(value=syntax.clone(base), attr="keywords", ctx=gast.Load()),
            slice=syntax.constant(name), ctx=gast.Load())) for name in partial.keywords if name not in given]
        call = gast.Call(func=gast.Attribute(value=syntax.clone(base), attr="func", ctx=gast.Load()),
                         args=stored + node.args, keywords=keywords + node.keywords)
        for new in syntax.walk(call):
            gast.copy_location(new, node)
        self.changed = True
        return call

    def _receiver_expression(self, func, plans: List[Plan]):
        """The expression a method's first argument is: the object the method was read from."""
        if isinstance(func, gast.Attribute) and self.scope._is_super(func.value):   # super().forward(x)
            args = self.scope.tree.args.posonlyargs + self.scope.tree.args.args
            return gast.copy_location(syntax.name(args[0].id), func)
        if isinstance(func, gast.Attribute):
            base = syntax.clone(func.value)
            owners = self.scope.values(func.value) or ()
            if all(owner is plan.receiver for owner, plan in zip(owners, plans)):
                return base
            if all(type(owner) is plan.receiver for owner, plan in zip(owners, plans)):   # a classmethod
                return gast.Attribute(value=base, attr="__class__", ctx=gast.Load())
        values = self.scope.values(func) or ()
        if all(value is plan.receiver for value, plan in zip(values, plans)):   # an object with __call__
            return syntax.clone(func)
        source = self.scope.sources.get(func.id, []) if isinstance(func, gast.Name) else []
        if len(source) == 1 and source[0][0] == "value" and isinstance(source[0][1], gast.Attribute):
            return self._receiver_expression(source[0][1], plans)   # forward = self.forward: self
        return gast.Attribute(value=syntax.clone(func), attr="__self__", ctx=gast.Load())   # a bound method

    def _target_name(self, func_node, function, receivers) -> gast.Name:
        """A name bound to ``function`` (specialised on ``receivers``), recorded in the facts."""
        targets: Dict[str, Target] = self.unit.facts["methods"]
        wanted = Target(function, receivers)
        for name, target in targets.items():
            if target.function is function and _same_objects(target.receivers, receivers):
                return gast.copy_location(syntax.name(name), func_node)
        owner = function.__qualname__.split(".")[-2] if "." in function.__qualname__ else ""
        owner = "" if owner == "<locals>" else owner
        preferred = function.__name__.strip("_") or "call"
        if owner and (not self._free(preferred) or function.__name__.startswith("__")):
            preferred = f"{owner}_{preferred}"   # Dense_call for Dense.__call__
        while not self._free(preferred):
            preferred += "_"
        name = self.unit.namer.fresh(preferred)
        targets[name] = wanted
        return gast.copy_location(syntax.name(name), func_node)

    def _refuse_changing_an_attribute(self, node) -> None:
        """``self.layers.append(v)``, ``self.W.fill(0)``: a change of what an object holds, like a store."""
        func = node.func
        if not (isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS):
            return
        held = func.value
        if isinstance(held, gast.Name):   # layers = self.layers; layers.append(v)
            source = self.scope.sources.get(held.id, [])
            held = source[0][1] if len(source) == 1 and source[0][0] == "value" else held
        if not isinstance(held, gast.Attribute) or not any(
                is_user_object(owner) for owner in self.scope.values(held.value) or ()):
            return
        spelled = _spelled(held)
        raise self._error(node, f"`{_spelled(func)}(...)` changes `{spelled}`, which an object holds: a "
                                f"derivative would have to follow the object's state from call to call",
                          f"work on a copy (`new = {spelled}.copy()`, then `new.{func.attr}(...)`), or make the "
                          f"change outside the differentiated function")

    def _free(self, name: str) -> bool:
        """Whether ``name`` is free in f's scope (the generated module looks names up there first)."""
        func = self.unit.parsed.func
        return (name not in self.unit.namer.taken and name not in func.__globals__
                and name not in func.__code__.co_freevars and not hasattr(builtins, name))

    def _refuse_unknown_method(self, node) -> None:
        """``self.forward(x)`` where ``self`` is a parameter srcad does not know: say how to give it."""
        func = node.func
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
            return
        args = self.scope.tree.args.posonlyargs + self.scope.tree.args.args
        qualname = getattr(self.parsed.func, "__qualname__", "")
        in_class = "." in qualname and qualname.split(".")[-2] != "<locals>"
        if not (args and func.value.id == args[0].id and in_class) or func.attr in _ARRAY_METHODS:
            return
        owner = qualname.split(".")[-2]
        raise self._error(node, f"`{_spelled(func)}(...)` calls a method of `{func.value.id}`, and srcad does not "
                                f"know that object when it builds the derivative: it was given the function "
                                f"{qualname}, not a bound method",
                          f"differentiate the method of an object, e.g. `model = {owner}(...)` then "
                          f"`srcad.grad(model.{self.parsed.func.__name__})`")

    def _error(self, node, message: str, hint: str):
        return located(UnsupportedSyntaxError, message, hint, self.parsed.location(node))


def _same_objects(first, second) -> bool:
    if first is None or second is None:
        return first is second
    return len(first) == len(second) and all(a is b for a, b in zip(first, second))


def _through(node, attribute: str) -> bool:
    """Whether ``node`` is ``<something>.<attribute>`` (a partial's ``.func``)."""
    return isinstance(node, gast.Attribute) and node.attr == attribute


def _label(plan: Plan) -> str:
    function = plan.function
    return getattr(function, "__qualname__", None) or type(function).__name__
