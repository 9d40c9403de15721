"""Part of ``iteration``: ``xs.insert(i, v)`` on a list no other name holds, written as a new list.

Contract: ``rewrite_list_inserts(unit, function)`` replaces, in ``function``
(f's tree or a ``def`` inside it), each statement ``xs.insert(i, v)`` with

    xs_item = v                                   # unless v is a constant or a name
    xs_slot = min(i, len(xs)) if i >= 0 else max(i + len(xs), 0)   # where Python puts it
    xs = [xs[k] if k < xs_slot else xs_item if k == xs_slot else xs[k - 1]
          for k in range(len(xs) + 1)]

(with ``i`` a constant 0, ``xs = [xs_item if k == 0 else xs[k - 1] ...]``),
a list comprehension ``iteration`` then lowers like any other: reads by
position and a choice per item, which srcad differentiates in both modes.
The new list stands for the changed one only when no other name can see the
change, so ``xs`` must be a parameter of ``function`` or bound only to new
lists (a list literal or comprehension, ``list(...)``, ``sorted(...)``), and
every other read of ``xs`` must be a subscript, a method call, what a loop
iterates over, a return value, or an argument of a NumPy function or a
builtin.  Otherwise, and for other forms of ``insert`` (keywords, a receiver
that is not a plain name), ``AliasingError`` names the line and a fix.  A
list parameter is not changed for the caller by the derivative (srcad's
derivatives never write their arguments).  Returns whether it changed
``function``.

Example: ``ys.insert(0, x * 2.0)`` becomes ``ys_item = x * 2.0`` and
``ys = [ys_item if k == 0 else ys[k - 1] for k in range(len(ys) + 1)]``.
"""
from __future__ import annotations

import builtins
from typing import List, Optional

import gast

from ..errors import AliasingError
from ..frontend import syntax
from ..frontend.emit import to_source

_NEW_LISTS = (builtins.list, builtins.sorted)


def rewrite_list_inserts(unit, function) -> bool:
    """Rewrite the ``insert`` calls of ``function``'s own body (see the module's contract)."""
    changed = False

    def block(statements: List) -> List:
        nonlocal changed
        result = []
        for stmt in statements:
            call = _insert_call(stmt)
            if call is not None:
                result += _rewritten(unit, function, stmt, call)
                changed = True
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, block(getattr(stmt, field)))
            for handler in getattr(stmt, "handlers", []):
                handler.body = block(handler.body)
            result.append(stmt)
        return result
    function.body = block(function.body)
    return changed


def _insert_call(stmt) -> Optional[gast.Call]:
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
            and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "insert" \
            and syntax.annotation(stmt.value.func, "ref") is None:
        return stmt.value
    return None


def _rewritten(unit, function, stmt, call) -> List:
    text = to_source(call).strip()
    receiver = call.func.value
    if not isinstance(receiver, gast.Name) or len(call.args) != 2 or call.keywords \
            or any(isinstance(a, gast.Starred) for a in call.args):
        raise unit.error(stmt, AliasingError, f"`{text}` changes a list in place in a form srcad does not follow",
                         "write it as `xs.insert(i, v)` on a list named `xs` made in this function")
    name = receiver.id
    _check_no_other_holder(unit, function, stmt, name, text)
    index, value = call.args
    before = []
    if not (isinstance(value, gast.Constant) or isinstance(value, gast.Name)):
        item = unit.namer.fresh(f"{name}_item")
        before.append(syntax.assign(item, value))
        value = syntax.name(item)
    position = unit.namer.fresh("k")
    count = gast.BinOp(left=_length(name), op=gast.Add(), right=syntax.constant(1))
    k = syntax.name(position)
    shifted = _read(name, gast.BinOp(left=syntax.clone(k), op=gast.Sub(), right=syntax.constant(1)))
    if isinstance(index, gast.Constant) and index.value == 0 and type(index.value) is int:
        element = gast.IfExp(test=_compare(k, gast.Eq(), syntax.constant(0)), body=value, orelse=shifted)
    else:
        if not isinstance(index, (gast.Constant, gast.Name)):   # evaluated once, before the item, as in Python
            held = unit.namer.fresh(f"{name}_index")
            before.insert(0, syntax.assign(held, index))
            index = syntax.name(held)
        slot = unit.namer.fresh(f"{name}_slot")
        before.append(syntax.assign(slot, _clamped(name, index)))
        element = gast.IfExp(
            test=_compare(k, gast.Lt(), syntax.name(slot)), body=_read(name, syntax.clone(k)),
            orelse=gast.IfExp(test=_compare(k, gast.Eq(), syntax.name(slot)), body=value, orelse=shifted))
    generator = gast.comprehension(target=syntax.store(position), iter=syntax.call(syntax.name("range"), [count]),
                                   ifs=[], is_async=0)
    syntax.annotate(generator.iter.func, "ref", builtins.range)
    rebuilt = syntax.assign(name, gast.ListComp(elt=element, generators=[generator]))
    statements = before + [rebuilt]
    for new in statements:
        syntax.annotate(new, "construct", f"`{text}`")
        for node in syntax.walk(new):
            if isinstance(node, (gast.expr, gast.stmt)):
                gast.copy_location(node, stmt)
    return statements


def _clamped(name, index):
    """Where ``list.insert`` puts an item at ``index`` (a constant or a name): ``min(i, len(xs))``, counted
    from the end when negative."""
    if isinstance(index, gast.Constant) and isinstance(index.value, int) and index.value >= 0:
        return _builtin_call("min", [index, _length(name)])
    upper = _builtin_call("min", [syntax.clone(index), _length(name)])
    lower = _builtin_call("max", [gast.BinOp(left=syntax.clone(index), op=gast.Add(), right=_length(name)),
                                  syntax.constant(0)])
    return gast.IfExp(test=_compare(index, gast.GtE(), syntax.constant(0)), body=upper, orelse=lower)


def _builtin_call(identifier, arguments):
    call = syntax.call(syntax.name(identifier), arguments)
    syntax.annotate(call.func, "ref", getattr(builtins, identifier))
    return call


def _length(name):
    return _builtin_call("len", [syntax.name(name)])


def _read(name, index):
    return gast.Subscript(value=syntax.name(name), slice=index, ctx=gast.Load())


def _compare(left, op, right):
    return gast.Compare(left=syntax.clone(left), ops=[op], comparators=[right])


def _check_no_other_holder(unit, function, stmt, name, text) -> None:
    """``AliasingError`` unless ``name`` is a parameter or bound to new lists only, and read only in ways that
    make no second name for it."""
    parameters = {a.id for a in function.args.args + function.args.posonlyargs + function.args.kwonlyargs}
    reason = None
    parents = {}
    for node in syntax.walk(function):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in syntax.walk(function):
        if not (isinstance(node, gast.Name) and node.id == name):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Store):
            if not (isinstance(parent, gast.Assign) and len(parent.targets) == 1 and parent.targets[0] is node
                    and _new_list(parent.value)):
                reason = "is bound to a list it may share with another name"
        elif isinstance(node.ctx, gast.Load) and not _harmless_read(node, parent):
            reason = "is read where another name may come to hold the same list"
        if reason:
            line = unit.parsed.location(node).lineno if hasattr(node, "lineno") else stmt.lineno
            raise unit.error(stmt, AliasingError,
                             f"`{text}` changes `{name}` in place, and `{name}` {reason} (line {line}); srcad "
                             f"follows `insert` only on a list no other name holds",
                             f"insert into a new list: `{name} = list({name})` just before this line")
    if name not in parameters and not any(isinstance(n, gast.Name) and n.id == name and
                                          isinstance(n.ctx, gast.Store) for n in syntax.walk(function)):
        raise unit.error(stmt, AliasingError, f"`{text}` changes `{name}`, a list this function does not make",
                         f"insert into a new list: `{name} = list({name})` just before this line")


def _new_list(value) -> bool:
    if isinstance(value, (gast.List, gast.ListComp)):
        return True
    return isinstance(value, gast.Call) and syntax.annotation(value.func, "ref") in _NEW_LISTS


def _harmless_read(node, parent) -> bool:
    """Whether this read of the list makes no second name for it."""
    if isinstance(parent, (gast.Subscript, gast.Attribute)) and parent.value is node:
        return True
    if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, gast.Return):
        return True
    if isinstance(parent, gast.Call) and node in parent.args:
        function = syntax.annotation(parent.func, "ref")
        module = (getattr(function, "__module__", None) or "").split(".")[0]
        return module == "numpy" or function in vars(builtins).values() and function not in (builtins.id,)
    return False
