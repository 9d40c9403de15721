"""Part of ``desugar``: every ``for`` loop iterates over ``range(...)``.

Contract: ``CanonicalLoops(unit, restructure).rewrite(loop)`` returns the
statements replacing ``for target in iterable: body``: what the loop
iterates over is evaluated once, before it, as in Python (an expression, or a
name the body rebinds, is first bound to a new name), then ``for index in
range(length):`` binds ``target`` from the index at the top of the body.
- ``for x in xs`` gives ``for x_index in range(len(xs)): x = xs[x_index]``
  when ``xs`` is known to be a list, tuple, range or array (made so in f),
  else ``range(sequence_length(xs))``, which raises at run time for a dict,
  set, or any value whose items are not read by position;
- ``d.keys()``, ``d.values()`` and ``d.items()`` read the keys once
  (``keys = mapping_keys(d)``, which raises for what is not a dict), then
  ``keys[index]`` and ``d[keys[index]]``; a dict made in f is read the same way;
  so is ``for k in d:`` over a name of unknown type whose body reads ``d[k]``;
- ``enumerate(xs)`` counts with the user's own name (``enumerate(xs, start)``
  with ``i = i_index + start``), ``zip(a, b)`` stops at the shorter
  sequence, ``reversed(xs)`` counts down;
- nested forms combine: ``enumerate(zip(a, b))``, ``zip(*rows)`` with
  ``rows`` a tuple or list of known length, ``map(fn, xs, ...)`` (the call
  made per item, as Python makes it), ``reversed(zip(...))`` and any target
  shape that matches the items (``for i, (a, b) in ...``).
``restructure(block)`` is the caller's exit restructuring of the new body.
Raises ``UnsupportedSyntaxError`` for forms with no fixed length (``zip(*rows)``
with ``rows`` of unknown length) and for unpacking a ``range`` index.

Example: ``for i, (a, b) in enumerate(zip(x, w)):`` becomes ``for i in
range(min(len(x), len(w))):`` with ``a = x[i]`` and ``b = w[i]`` first in the body.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Callable, List

import gast

from ..errors import UnsupportedSyntaxError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..runtime.containers import mapping_keys, sequence_length
from ..runtime.iteration import keys_of
from .numpy_forms import callee

LOOP_ITEM = "loop_item"   # annotation of ``x = xs[x_index]`` made from ``for x in xs``
_COMBINATORS = (builtins.enumerate, builtins.zip, builtins.reversed, builtins.map)
_DICT_VIEWS = ("keys", "values", "items")


@dataclass
class _Items:
    """What a loop iterates over, item by item: its length and the expression of item ``index``."""

    length: Callable[[], gast.AST]
    item: Callable[[gast.AST], gast.AST]


class CanonicalLoops:
    """Rewrites ``for`` loops of one unit into ``range`` loops (see the module docstring)."""

    def __init__(self, unit, restructure):
        self.unit = unit
        self.restructure = restructure
        self.positional = set()   # names of hoisted lists: read by position with no check

    def rewrite(self, loop) -> List:
        """The statements replacing ``loop``: hoisted iterables, then the ``range`` loop."""
        iterator, target = loop.iter, loop.target
        builtin = _builtin(iterator)
        before, prologue = [], []
        if builtin is builtins.range:
            if not isinstance(target, gast.Name):
                raise self.unit.error(target, UnsupportedSyntaxError, "unpacking a range loop's index",
                                      "loop over range(...) with a plain name")
            new_iter = iterator
        elif builtin in _COMBINATORS and _nested(iterator, target) or dict_view(iterator) \
                or builtin in _COMBINATORS and any(dict_view(a) for a in iterator.args):
            index, new_iter = self._combined(iterator, target, loop, before, prologue)
            target = syntax.store(index)
        elif builtin in (builtins.enumerate, builtins.zip, builtins.reversed):
            index, new_iter = self._simple(builtin, iterator, target, loop, before, prologue)
            target = syntax.store(index)
        elif _keys_loop(iterator, target, loop, self.unit.tree.body):   # ``for k in d:`` reading ``d[k]``
            index, new_iter = self._combined(_keys_view(iterator), target, loop, before, prologue)
            target = syntax.store(index)
        else:
            sequence = self._hoisted(iterator, before, loop)
            index = self.unit.namer.fresh(f"{_label(target)}_index")
            prologue.append(_assign_item(target, sequence, index))
            new_iter = _range(self._length(sequence))
            target = syntax.store(index)
        annotate_range(new_iter)
        body = self.restructure(prologue + loop.body)
        new_loop = gast.For(target=target, iter=new_iter, body=body, orelse=[], type_comment=None)
        for node in before + [new_loop] + prologue:
            syntax.set_location(node, loop.lineno)
        return before + [new_loop]

    def _simple(self, builtin, iterator, target, loop, before, prologue):
        """``enumerate(xs)``, ``zip(a, b)`` and ``reversed(xs)`` over sequences: (index name, range call)."""
        start = _enumerate_start(iterator) if builtin is builtins.enumerate else None
        arguments = iterator.args[:1] if builtin is builtins.enumerate else iterator.args
        sequences = [self._hoisted(arg, before, loop) for arg in arguments]
        if builtin is builtins.enumerate:
            index = target.elts[0].id
            if start is not None:   # the count is the position plus start, evaluated once
                index = self.unit.namer.fresh(f"{index}_index")
                first = self._hoisted(start, before, loop)
                prologue.append(syntax.assign(target.elts[0].id, gast.BinOp(
                    left=syntax.name(index), op=gast.Add(), right=first)))
            prologue.append(_assign_item(target.elts[1], sequences[0], index))
            return index, _range(self._length(sequences[0]))
        if builtin is builtins.zip:
            index = self.unit.namer.fresh("index")
            prologue += [_assign_item(t, s, index) for t, s in zip(target.elts, sequences)]
            lengths = [self._length(s) for s in sequences]
            return index, _range(lengths[0] if len(lengths) == 1 else _shortest(lengths))
        index = self.unit.namer.fresh(f"{_label(target)}_index")
        prologue.append(_assign_item(target, sequences[0], index))
        last = gast.BinOp(left=self._length(sequences[0]), op=gast.Sub(), right=syntax.constant(1))
        return index, syntax.call(syntax.name("range"), [last, syntax.constant(-1), syntax.constant(-1)])

    def _combined(self, iterator, target, loop, before, prologue):
        """Nested ``enumerate``/``zip``/``reversed``/``map``: (index name, range call)."""
        counted = _builtin(iterator) is builtins.enumerate and _enumerate_start(iterator) is None \
            and isinstance(target, gast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], gast.Name)
        index = target.elts[0].id if counted else self.unit.namer.fresh("index")
        items = self._items(iterator, before, loop)
        item = items.item(syntax.name(index))
        if counted:   # the count is the loop's own index: bind the rest only
            target, item = target.elts[1], item.elts[1]
        prologue += _unpack(target, item)
        return index, _range(items.length())

    def _items(self, node, before, loop) -> _Items:
        builtin = _builtin(node)
        if builtin is builtins.enumerate:
            start = _enumerate_start(node)
            if start is False:
                raise self.unit.error(node, UnsupportedSyntaxError, "this form of enumerate",
                                      "write `enumerate(xs)` or `enumerate(xs, start)`")
            inner = self._items(node.args[0], before, loop)
            first = None if start is None else self._hoisted(start, before, loop)

            def count(index):
                return syntax.clone(index) if first is None else gast.BinOp(
                    left=syntax.clone(index), op=gast.Add(), right=syntax.clone(first))
            return _Items(inner.length, lambda index: _tuple([count(index), inner.item(index)]))
        if builtin in (builtins.zip, builtins.map):
            if node.keywords:
                raise self.unit.error(node, UnsupportedSyntaxError, f"keyword arguments of {builtin.__name__}",
                                      f"call {builtin.__name__} with positional arguments only")
            arguments = self._unstarred(node.args[1:] if builtin is builtins.map else node.args)
            parts = [self._items(argument, before, loop) for argument in arguments]
            length = (lambda: _shortest([part.length() for part in parts])) if len(parts) > 1 else parts[0].length
            if builtin is builtins.zip:
                return _Items(length, lambda index: _tuple([part.item(index) for part in parts]))
            function = node.args[0]
            return _Items(length, lambda index: syntax.call(syntax.clone(function),
                                                            [part.item(index) for part in parts]))
        if builtin is builtins.reversed:
            inner = self._items(node.args[0], before, loop)

            def mirrored(index):
                last = gast.BinOp(left=inner.length(), op=gast.Sub(), right=syntax.constant(1))
                return inner.item(gast.BinOp(left=last, op=gast.Sub(), right=syntax.clone(index)))
            return _Items(inner.length, mirrored)
        if dict_view(node):
            return self._dict_items(node, before, loop)
        sequence = self._hoisted(node, before, loop)
        return _Items(lambda: self._length(sequence), lambda index: _subscript(sequence, index))

    def _dict_items(self, view, before, loop) -> _Items:
        """``d.keys()``, ``d.values()``, ``d.items()``: the keys listed once, then ``d`` read by key."""
        mapping = self._hoisted(view.func.value, before, loop, as_items=False)
        keys = self.unit.namer.fresh("keys")
        before.append(syntax.assign(keys, syntax.call(callee(self.unit, mapping_keys), [syntax.clone(mapping)])))
        self.positional.add(keys)
        key_name = syntax.name(keys)

        def item(index):
            key = _subscript(key_name, index)
            if view.func.attr == "keys":
                return key
            value = _subscript(mapping, key)
            return value if view.func.attr == "values" else _tuple([syntax.clone(key), value])
        return _Items(lambda: _len(key_name), item)

    def _length(self, sequence):
        """``len(sequence)`` when it is known to be read by position, else ``sequence_length(sequence)``."""
        if isinstance(sequence, gast.Name) and sequence.id in self.positional \
                or positional(sequence, self.unit.tree.body):
            return _len(sequence)
        return syntax.call(callee(self.unit, sequence_length), [syntax.clone(sequence)])

    def _unstarred(self, arguments) -> List:
        """``zip(*rows)``'s arguments one by one, ``rows`` being a tuple or list literal or a name bound to one."""
        result = []
        for argument in arguments:
            if not isinstance(argument, gast.Starred):
                result.append(argument)
                continue
            rows = argument.value
            count = _literal_length(rows, self.unit.tree.body)
            if count is None:
                raise self.unit.error(argument, UnsupportedSyntaxError,
                                      "unpacking a sequence of unknown length with `*`",
                                      "build it as a tuple or list literal in the function, or pass the "
                                      "sequences one by one (`zip(rows[0], rows[1])`)")
            if isinstance(rows, (gast.Tuple, gast.List)):
                result += rows.elts
            else:
                result += [gast.Subscript(value=syntax.clone(rows), slice=syntax.constant(k), ctx=gast.Load())
                           for k in range(count)]
        return result

    def _hoisted(self, node, before, loop, as_items=True):
        """``node`` evaluated once, before ``loop``, as Python evaluates a loop's iterable.

        A set or dict the function made is read by position as the list of what iterating it gives (unless
        ``as_items`` is false: the dict itself, whose ``.items()`` the loop reads)."""
        kind = unordered(node, self.unit.tree.body) if as_items else ""
        if kind == "dict":   # its keys, which carry no derivative
            node = syntax.call(callee(self.unit, keys_of), [node])
        elif kind:
            listed = syntax.call(syntax.name("list"), [node])
            syntax.annotate(listed.func, "ref", builtins.list)
            node = listed
        elif isinstance(node, gast.Constant) or isinstance(node, gast.Name) and node.id not in syntax.stored_names(
                gast.Module(body=loop.body, type_ignores=[])):
            return node   # the body does not rebind it: every read sees what the loop iterates over
        name = self.unit.namer.fresh("keys" if kind == "dict" else "items")
        before.append(syntax.assign(name, node))
        if kind or positional(node, []):
            self.positional.add(name)
        return syntax.name(name)


def _builtin(node):
    return annotation(node.func, "ref") if isinstance(node, gast.Call) else None


def _nested(iterator, target) -> bool:
    """Whether ``iterator`` needs the general plan: a combinator inside another, ``map``, ``*``, or a target
    that is not one name per sequence."""
    builtin = _builtin(iterator)
    arguments = iterator.args[:1] if builtin is builtins.enumerate else iterator.args
    if builtin is builtins.map or any(isinstance(a, gast.Starred) or _builtin(a) in _COMBINATORS
                                      for a in arguments):
        return True
    if builtin is builtins.enumerate:
        return not (len(iterator.args) in (1, 2) and _enumerate_start(iterator) is not False
                    and isinstance(target, gast.Tuple) and len(target.elts) == 2
                    and isinstance(target.elts[0], gast.Name))
    if builtin is builtins.zip:
        return iterator.keywords != [] or not (isinstance(target, gast.Tuple) and len(target.elts) == len(arguments))
    return False


def unordered(node, body) -> str:
    """``"set"`` or ``"dict"`` when ``node`` is made as one (or is a name every binding of which makes one),
    else ``""``: iterating it gives its items or keys, which no position reads."""
    if isinstance(node, gast.Dict) or _builtin(node) is builtins.dict:
        return "dict"
    if _builtin(node) in (builtins.set, builtins.frozenset):
        return "set"
    if not isinstance(node, gast.Name):
        return ""
    kinds = {unordered(stmt.value, []) if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
             and isinstance(stmt.targets[0], gast.Name) else "" for stmt in syntax.iter_statements(body)
             if node.id in syntax.stored_names(stmt) and _binds_itself(stmt, node.id)}
    return kinds.pop() if len(kinds) == 1 else ""


def _binds_itself(stmt, name: str) -> bool:
    """Whether ``stmt`` binds ``name`` itself, not only through a statement of its body (a loop whose body
    makes a set binds it there, not in its header)."""
    if not hasattr(stmt, "body"):
        return True
    if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)) and stmt.name == name:
        return True
    headers = [getattr(stmt, field) for field in ("target", "iter", "test") if hasattr(stmt, field)]
    headers += [item.optional_vars for item in getattr(stmt, "items", []) if item.optional_vars is not None]
    headers += [handler.name for handler in getattr(stmt, "handlers", []) if handler.name is not None]
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
               for header in headers for n in gast.walk(header))


def dict_view(node) -> bool:
    """Whether ``node`` is ``<expression>.keys()``, ``.values()`` or ``.items()`` (a method, not a resolved function)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in _DICT_VIEWS \
        and not node.args and not node.keywords and annotation(node.func, "ref") is None


def _keys_loop(iterator, target, loop, body) -> bool:
    """Whether ``for target in iterator:`` is a loop over a dict's keys: ``iterator`` is a name of unknown type
    the body does not rebind and reads as ``iterator[target]`` (a list read by its own items would be unusual;
    ``mapping_keys`` refuses one when the derivative runs)."""
    if not (isinstance(iterator, gast.Name) and isinstance(target, gast.Name)) or positional(iterator, body) \
            or unordered(iterator, body):
        return False
    inside = gast.Module(body=loop.body, type_ignores=[])
    if iterator.id in syntax.stored_names(inside):
        return False
    return any(isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id == iterator.id
               and isinstance(node.slice, gast.Name) and node.slice.id == target.id for node in syntax.walk(inside))


def _keys_view(mapping):
    """``mapping.keys()``, the loop ``for k in mapping:`` reading ``mapping[k]`` means."""
    method = gast.Attribute(value=syntax.clone(mapping), attr="keys", ctx=gast.Load())
    return gast.copy_location(gast.Call(func=method, args=[], keywords=[]), mapping)


def positional(node, body) -> bool:
    """Whether ``node`` is made in f as a list, tuple, range or NumPy array (or is a name every binding of which
    makes one): iterating it gives ``node[0], node[1], ...`` whatever f is called with."""
    if isinstance(node, (gast.List, gast.Tuple, gast.ListComp)):
        return True
    if isinstance(node, gast.Call):
        function = _builtin(node)
        return function in (builtins.range, builtins.list, builtins.tuple, builtins.sorted, keys_of) or (
            getattr(function, "__module__", None) or "").startswith("numpy") and callable(function) \
            and not isinstance(function, type)
    if not isinstance(node, gast.Name):
        return False
    bindings = [stmt for stmt in syntax.iter_statements(body) if node.id in syntax.stored_names(stmt)]
    return bool(bindings) and all(isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                                  and isinstance(stmt.targets[0], gast.Name) and positional(stmt.value, [])
                                  for stmt in bindings)


def _subscript(sequence, index):
    return gast.Subscript(value=syntax.clone(sequence), slice=syntax.clone(index), ctx=gast.Load())


def _literal_length(rows, body):
    """The length of ``rows``: a tuple or list literal, or a name bound exactly once, to one (else None)."""
    if isinstance(rows, (gast.Tuple, gast.List)):
        return None if any(isinstance(elt, gast.Starred) for elt in rows.elts) else len(rows.elts)
    if not isinstance(rows, gast.Name):
        return None
    bindings = [stmt for stmt in syntax.iter_statements(body) if rows.id in syntax.stored_names(stmt)]
    if len(bindings) == 1 and isinstance(bindings[0], gast.Assign) and len(bindings[0].targets) == 1 \
            and isinstance(bindings[0].targets[0], gast.Name) and not isinstance(bindings[0], gast.For):
        return _literal_length(bindings[0].value, [])
    return None


def _unpack(target, value) -> List:
    """``target = value``, one assignment per name when both are tuples of the same length."""
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, gast.Tuple) \
            and len(target.elts) == len(value.elts):
        return [stmt for t, v in zip(target.elts, value.elts) for stmt in _unpack(t, v)]
    target = syntax.clone(target)
    for node in gast.walk(target):
        if isinstance(node, gast.Name):
            node.ctx = gast.Store()
    assignment = gast.Assign(targets=[target], value=value, type_comment=None)
    if isinstance(value, gast.Subscript):
        syntax.annotate(assignment, LOOP_ITEM, True)
    return [assignment]


def _tuple(elements):
    return gast.Tuple(elts=elements, ctx=gast.Load())


def annotate_range(call) -> None:
    """Mark a ``range(...)`` call as the builtin (for later passes)."""
    syntax.annotate(call.func, "ref", builtins.range)


def _range(stop):
    return syntax.call(syntax.name("range"), [stop])


def _len(sequence):
    call = syntax.call(syntax.name("len"), [syntax.clone(sequence)])
    syntax.annotate(call.func, "ref", builtins.len)
    return call


def _shortest(lengths):
    shortest = syntax.call(syntax.name("min"), lengths)
    syntax.annotate(shortest.func, "ref", builtins.min)
    return shortest


def _enumerate_start(call):
    """The ``start`` of ``enumerate(xs, start)`` (None when absent, False when not understood)."""
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if set(keywords) - {"start"} or len(call.args) > 2 or len(call.args) == 2 and keywords:
        return False
    start = keywords.get("start", call.args[1] if len(call.args) == 2 else None)
    if isinstance(start, gast.Constant) and start.value == 0 and type(start.value) is int:
        return None
    return start


def _label(target) -> str:
    return target.id if isinstance(target, gast.Name) else "item"


def _assign_item(target, sequence, index):
    item = gast.Subscript(value=syntax.clone(sequence), slice=syntax.name(index), ctx=gast.Load())
    target = syntax.clone(target)
    for node in gast.walk(target):
        if isinstance(node, gast.Name):
            node.ctx = gast.Store()
    assignment = gast.Assign(targets=[target], value=item, type_comment=None)
    syntax.annotate(assignment, LOOP_ITEM, True)
    return assignment
