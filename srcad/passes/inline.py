"""Transformation: inline functions defined inside the differentiated function.

Contract: a ``def g(...)`` statement, or ``g = lambda ...:``, inside f's body
is removed, and each later call ``g(a, b)`` (and each lambda called in place,
``(lambda v: v * v)(x)``) is replaced by g's body with its
parameters bound to the arguments, its own local names made fresh, and its
result in a new variable.  g may read f's variables (a closure), which then
carry derivatives exactly as if the code had been written inline.  Calls may
stand in assignments, expression statements, returns and ``if`` tests.
A body that returns from inside a loop runs as one pass of a loop that
every return leaves (``break``, with a flag for inner loops).  Using g other
than by calling it, passing keyword arguments g does not declare, recursion,
and a call in a ``while`` test are errors with a suggestion.

Example: ``sq = lambda v: v * v`` then ``y = sq(x) + 1`` becomes
``v = x``, ``sq_result = v * v``, ``y = sq_result + 1``.
"""
from __future__ import annotations

from typing import Dict, List

import builtins

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..analysis.blocks import hoist_from_expressions
from . import Transformation


class Inline(Transformation):
    """Replace calls to local functions by their bodies."""

    name = "inline"

    def transform(self, unit):
        self.unit = unit
        self.local_functions: Dict[str, gast.FunctionDef] = {}
        self.renames: Dict[int, Dict[str, str]] = {}
        self.changed = False
        self.names_by_definition = _names_by_definition(unit.tree.body)
        unit.tree.body = self._block(unit.tree.body)
        return self.changed

    def _block(self, block) -> List:
        result = []
        for stmt in block:
            self._name_lambdas_called_in_place(stmt)
            definition = self._definition(stmt)
            if definition is not None:
                self.local_functions[definition.name] = definition
                self.changed = True
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(stmt, (gast.If, gast.For, gast.While, gast.Try, gast.With)) and hasattr(stmt, field):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            for handler in stmt.handlers if isinstance(stmt, gast.Try) else []:
                handler.body = self._block(handler.body)
            if not self.local_functions or isinstance(stmt, gast.Try):
                result.append(stmt)
                continue
            if isinstance(stmt, gast.With):   # the managers are made before the block starts
                before = []
                for item in stmt.items:
                    item.context_expr = _CallExpander(self, before, stmt).visit(item.context_expr)
                result += [syntax.set_location(new, stmt.lineno) for new in before] + [stmt]
                continue
            before: List = []
            if _is_direct_call(stmt, self.local_functions):   # y = g(a): g's return assigns y itself
                expander = _CallExpander(self, before, stmt)
                call = stmt.value
                call.args = [expander.visit(arg) for arg in call.args]
                for keyword in call.keywords:
                    keyword.value = expander.visit(keyword.value)
                self.changed = True
                self.expand(call, before, result=stmt.targets[0])
                result += [syntax.set_location(new, stmt.lineno) for new in before]
                continue
            stmt = hoist_from_expressions(stmt, _CallExpander(self, before, stmt), before,
                                          lambda test: self._refuse_in(test, stmt))
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and before \
                    and stmt.value.id in syntax.stored_names(gast.Module(body=before, type_ignores=[])):
                stmt = None   # `g(a)` as a statement: its result, now a name, is not read
            result += before + ([stmt] if stmt is not None else [])
        return result

    def _definition(self, stmt):
        if isinstance(stmt, gast.FunctionDef):
            if stmt.decorator_list or stmt.args.vararg or stmt.args.kwarg:
                raise self.unit.error(stmt, UnsupportedSyntaxError, "a decorated or *args nested def",
                                      "define it at module level")
            return stmt
        if (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda)
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            lam = stmt.value
            body = [syntax.set_location(gast.Return(value=lam.body), stmt.lineno)]
            definition = gast.FunctionDef(name=stmt.targets[0].id, args=lam.args, body=body, decorator_list=[],
                                          returns=None, type_comment=None, type_params=[])
            syntax.annotate(definition, "origin", id(stmt))   # the key of its names in names_by_definition
            return definition
        return None

    def _name_lambdas_called_in_place(self, stmt) -> None:
        """``(lambda v: e)(x)`` calls a local function like any other: give the lambda a name."""
        own = [getattr(stmt, field) for field in ("test", "iter") if hasattr(stmt, field)] \
            if isinstance(stmt, (gast.If, gast.For, gast.While)) else [stmt]
        for expression in own:
            for node in gast.walk(expression):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Lambda):
                    lam, name = node.func, self.unit.namer.fresh("anonymous")
                    body = [syntax.set_location(gast.Return(value=lam.body), stmt.lineno)]
                    self.local_functions[name] = gast.FunctionDef(
                        name=name, args=lam.args, body=body, decorator_list=[], returns=None, type_comment=None,
                        type_params=[])
                    node.func = gast.copy_location(syntax.name(name), lam)

    def _refuse_in(self, node, stmt):
        for sub in gast.walk(node):
            if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) \
                    and sub.func.id in self.local_functions:
                raise self.unit.error(sub, UnsupportedSyntaxError, "a call to a local function in a while test",
                                      "compute the condition in a variable before the loop and at its end")

    def expand(self, call, before, depth=0, result=None) -> gast.Name:
        """Statements computing ``call`` (appended to ``before``); the name holding its result.

        ``result`` is the caller's target when the call is a whole assignment's value.
        """
        definition = self.local_functions[call.func.id]
        if depth > 20:
            raise self.unit.error(call, UnsupportedSyntaxError, f"the recursive local function {definition.name}",
                                  "define it at module level, passing what it reads from the enclosing function as arguments (srcad "
                                  "differentiates recursive module-level functions), or write the recursion as a loop")
        params = [arg.id for arg in definition.args.args]
        defaults = definition.args.defaults
        bound = dict(zip(params, call.args))
        for keyword in call.keywords:
            if keyword.arg not in params:
                raise self.unit.error(call, UnsupportedSyntaxError,
                                      f"the keyword {keyword.arg!r} in a call to {definition.name}",
                                      "pass the parameters it declares")
            bound[keyword.arg] = keyword.value
        for param, default in zip(params[len(params) - len(defaults):], defaults):
            bound.setdefault(param, default)
        missing = [p for p in params if p not in bound]
        if missing:
            raise self.unit.error(call, UnsupportedSyntaxError, f"a call to {definition.name} without {missing}",
                                  "pass every parameter")
        renames = dict(self._renames(definition))
        result = result or self.unit.namer.fresh(f"{definition.name}_result")
        written = syntax.stored_names(gast.Module(body=definition.body, type_ignores=[]))
        for param in params:
            value = _CallExpander(self, before, None, depth + 1).visit(syntax.clone(bound[param]))
            if isinstance(value, gast.Name) and param not in written \
                    and value.id not in {renames[name] for name in written}:
                renames[param] = value.id   # a name neither side rebinds during the call: use it directly
                continue
            before.append(syntax.assign(renames[param], value))
        body = [syntax.rename(syntax.clone(s), renames) for s in definition.body]
        self.depth = getattr(self, "depth", 0) + 1
        if self.depth > 20:
            raise self.unit.error(call, UnsupportedSyntaxError, f"the recursive local function {definition.name}",
                                  "define it at module level, passing what it reads from the enclosing function as arguments (srcad "
                                  "differentiates recursive module-level functions), or write the recursion as a loop")
        before += self._block(_returns_to_result(self.unit, body, result, definition))   # nested local calls
        self.depth -= 1
        return syntax.name(result) if isinstance(result, str) else None


    def _renames(self, definition) -> Dict[str, str]:
        """The names ``definition``'s parameters and locals get, the same for every call.

        A name nothing outside the definition uses is kept as the user wrote it;
        any other gets a fresh one.  Reusing the names call after call is safe: a
        call's locals are dead once it returns (only its result lives on, and
        that has its own name).
        """
        key = syntax.annotation(definition, "origin", id(definition))
        if key not in self.renames:
            params = [arg.id for arg in definition.args.args]
            local_names = syntax.stored_names(gast.Module(body=definition.body, type_ignores=[])) | set(params)
            elsewhere = set().union(*(names for other, names in self.names_by_definition.items() if other != key))
            self.renames[key] = {name: name if name not in elsewhere else self.unit.namer.fresh(name)
                                 for name in sorted(local_names)}
        return self.renames[key]


def _names_by_definition(body) -> Dict[int, set]:
    """Names used by each local definition (by ``id``), and under key 0 by the code outside them all."""
    found: Dict[int, set] = {0: set()}

    def visit(block):
        for stmt in block:
            definition = stmt if isinstance(stmt, gast.FunctionDef) else None
            if definition is None and isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Lambda):
                found[0] |= syntax.names_in(stmt.targets[0])
                found[id(stmt)] = syntax.names_in(stmt.value)
                continue
            if definition is not None:
                found[id(definition)] = syntax.names_in(definition) | {arg.id for arg in definition.args.args}
                continue
            for field in ("body", "orelse"):
                visit(getattr(stmt, field, []) or [])
            shallow = [getattr(stmt, f) for f in stmt._fields if f not in ("body", "orelse")]
            for value in shallow:
                for node in (value if isinstance(value, list) else [value]):
                    if isinstance(node, gast.AST):
                        found[0] |= syntax.names_in(node)
    visit(body)
    return found


def _store_result(result, value) -> gast.Assign:
    """``result = value``; ``result`` is a fresh name, or the caller's own target (a name or a tuple of names)."""
    if isinstance(result, str):
        return syntax.assign(result, value)
    return gast.Assign(targets=[syntax.clone(result)], value=value, type_comment=None)


def _is_direct_call(stmt, local_functions) -> bool:
    target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
    simple = isinstance(target, gast.Name) or (
        isinstance(target, gast.Tuple) and all(isinstance(elt, gast.Name) for elt in target.elts))
    return (simple
            and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name)
            and stmt.value.func.id in local_functions)


class _CallExpander(gast.NodeTransformer):
    def __init__(self, inliner, before, stmt, depth=0):
        self.inliner, self.before, self.depth = inliner, before, depth

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id in self.inliner.local_functions:
            node.args = [self.visit(arg) for arg in node.args]
            for keyword in node.keywords:
                keyword.value = self.visit(keyword.value)
            self.inliner.changed = True
            return self.inliner.expand(node, self.before, self.depth)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.inliner.local_functions and isinstance(node.ctx, gast.Load):
            raise self.inliner.unit.error(node, UnsupportedSyntaxError,
                                          f"using the local function {node.id} other than by calling it",
                                          "call it directly, or define it at module level")
        return node


def _returns_to_result(unit, body, result, definition) -> List:
    """The body with every ``return e`` turned into ``result = e``; only tail returns are allowed.

    A body that may run off its end returns None there, as Python does.
    """
    if not _ends_in_return(body):
        last_line = getattr(body[-1], "lineno", None) if body else None
        body = body + [syntax.set_location(gast.Return(value=None), last_line) if last_line else gast.Return(value=None)]
    def lower(block) -> List:
        out = []
        for index, stmt in enumerate(block):
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else syntax.constant(None)
                out.append(syntax.set_location(_store_result(result, value), stmt.lineno))
                return out
            arms = _arms(stmt)
            if arms is not None and any(isinstance(r, gast.Return) for r in _statements(stmt)):
                rest = block[index + 1:]
                returning = [_ends_in_return(arm) for arm in arms]
                if any(returning) and rest:   # what follows runs only after the arms that do not return
                    _extend_arms(stmt, [not r for r in returning], rest)
                    rest = []
                _map_arms(stmt, lower)
                out.append(stmt)
                if not rest and any(returning):
                    return out
                continue
            out.append(stmt)
        return out
    if any(isinstance(s, (gast.For, gast.While)) and any(isinstance(r, gast.Return)
                                                         for r in syntax.iter_statements(s.body))
           for s in _statements_of(body)) or not _lowerable(body):
        return _returns_through_loops(unit, body, result)
    return lower(body)


def _arms(stmt):
    """The blocks one of which runs when ``stmt`` runs to its end: an ``if``'s two arms; a ``try``'s body
    (then its ``else``) and each handler; a ``with``'s body.  None for other statements."""
    if isinstance(stmt, gast.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, gast.Try):
        return [stmt.body + stmt.orelse] + [handler.body for handler in stmt.handlers]
    if isinstance(stmt, gast.With):
        return [stmt.body]
    return None


def _extend_arms(stmt, which, rest) -> None:
    """Append ``rest`` to the arms of ``stmt`` flagged in ``which`` (a ``try``'s body path gets it in its
    ``else``, outside the body the handlers protect; a ``with`` keeps it after the block: never moved)."""
    if isinstance(stmt, gast.If):
        stmt.body, stmt.orelse = [b + (rest if w else []) for b, w in zip((stmt.body, stmt.orelse), which)]
    elif isinstance(stmt, gast.Try):
        stmt.orelse = stmt.orelse + (syntax.clone_list(rest) if which[0] else [])
        for handler, extend in zip(stmt.handlers, which[1:]):
            handler.body = handler.body + (syntax.clone_list(rest) if extend else [])


def _map_arms(stmt, lower) -> None:
    """Apply ``lower`` to each block of ``stmt`` (a ``try`` whose body returns has a dead ``else``)."""
    if isinstance(stmt, gast.If):
        stmt.body, stmt.orelse = lower(stmt.body), lower(stmt.orelse)
    elif isinstance(stmt, gast.Try):
        if _ends_in_return(stmt.body):
            stmt.orelse = []
        stmt.body, stmt.orelse = lower(stmt.body), lower(stmt.orelse)
        for handler in stmt.handlers:
            handler.body = lower(handler.body)
    else:
        stmt.body = lower(stmt.body)


def _statements(stmt):
    """Every statement inside ``stmt`` (``try`` handlers included)."""
    return _statements_of([stmt])


def _statements_of(block):
    for stmt in block:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _statements_of(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", []):
            yield from _statements_of(handler.body)


def _lowerable(block) -> bool:
    """Whether ``lower`` leaves nothing to run after any ``result = e``: every return ends its path once
    the code after an ``if`` (or ``try``) moves into the arms that do not end in a return."""
    for index, stmt in enumerate(block):
        if isinstance(stmt, gast.Return):
            return index == len(block) - 1
        arms = _arms(stmt)
        if arms is not None and any(isinstance(r, gast.Return) for r in _statements(stmt)):
            rest = block[index + 1:]
            returning = [_ends_in_return(arm) for arm in arms]
            if rest and not any(returning) or isinstance(stmt, gast.With) and rest and not returning[0] \
                    or getattr(stmt, "finalbody", None):
                return False   # an arm returns from deeper inside, and code follows
            return all(_lowerable(arm if r or not rest else arm + rest) for arm, r in zip(arms, returning))
    return True


def _returns_through_loops(unit, body, result) -> List:
    """A body returning from inside loops, run as one pass of a loop that every return leaves."""
    flag = unit.namer.fresh("returned")

    def convert(block) -> List:
        out = []
        for stmt in block:
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else syntax.constant(None)
                out += [syntax.set_location(s, stmt.lineno) for s in (
                    _store_result(result, value), syntax.assign(flag, syntax.constant(True)), gast.Break())]
                return out
            if isinstance(stmt, (gast.If, gast.Try, gast.With)):
                _map_arms(stmt, convert)
            elif isinstance(stmt, (gast.For, gast.While)):
                returns = any(isinstance(r, gast.Return) for r in syntax.iter_statements(stmt.body))
                stmt.body = convert(stmt.body)
                if returns:   # leave the enclosing loop too
                    out.append(stmt)
                    stmt = syntax.set_location(gast.If(test=syntax.name(flag), body=[gast.Break()], orelse=[]),
                                               stmt.lineno)
            out.append(stmt)
        return out

    once = syntax.call("range", [syntax.constant(1)])
    syntax.annotate(once.func, "ref", builtins.range)
    lineno = getattr(body[0], "lineno", None) if body else None
    wrapper = gast.For(target=syntax.store(unit.namer.fresh("once")), iter=once, body=convert(body), orelse=[],
                       type_comment=None)
    return [syntax.set_location(syntax.assign(flag, syntax.constant(False)), lineno),
            syntax.set_location(wrapper, lineno)]


def _ends_in_return(block) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, gast.Return):
        return True
    arms = _arms(last)
    return arms is not None and all(_ends_in_return(arm) for arm in arms) and not getattr(last, "finalbody", None)
