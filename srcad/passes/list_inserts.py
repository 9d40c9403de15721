"""Part of ``iteration``: ``xs.insert(i, v)`` on a list no other name holds, written as a new list.

Contract: ``rewrite_list_inserts(unit, function)`` replaces, in ``function``
(f's tree or a ``def`` inside it), each statement ``xs.insert(i, v)`` with

    xs_item = v                                   # unless v is a constant or a name
    xs_slot = min(i, len(xs)) if i >= 0 else max(i + len(xs), 0)   # where Python puts it
    xs_inserted = []
    for k in range(xs_slot):
        xs_inserted.append(xs[k])
    xs_inserted.append(xs_item)
    for k in range(xs_slot, len(xs)):
        xs_inserted.append(xs[k])
    xs = xs_inserted

(with ``i`` a constant 0, ``xs_inserted = [xs_item]`` and one loop): reads
by position and appends, which srcad differentiates in both modes, and after
which the aliasing passes know the new list holds the old list's items.
The new list stands for the changed one only when no other name can see the
change, so ``xs`` must be a parameter of ``function`` or bound only to new
lists (a list literal or comprehension, ``list(...)``, ``sorted(...)``), and
every other read of ``xs`` must be a subscript, a method call, what a loop
iterates over, a return value, or an argument of a NumPy function or a
builtin; and ``function`` must change no array in place (``x *= 2.0``,
``A[i] = v``, ``A.fill(v)``, ``out=``), which srcad would not follow from
an item into the new list.  Otherwise, and for other forms of ``insert`` (keywords, a receiver
that is not a plain name), ``AliasingError`` names the line and a fix.  A
list parameter is not changed for the caller by the derivative (srcad's
derivatives never write their arguments).  Returns whether it changed
``function``.

Example: ``ys.insert(0, x * 2.0)`` becomes ``ys_item = x * 2.0``,
``ys_inserted = [ys_item]``, ``for k in range(len(ys)):
ys_inserted.append(ys[k])`` and ``ys = ys_inserted``.
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
    _check_no_change_in_place(unit, function, stmt, text)
    index, value = call.args
    before = []
    if not (isinstance(value, gast.Constant) or isinstance(value, gast.Name)):
        item = unit.namer.fresh(f"{name}_item")
        before.append(syntax.assign(item, value))
        value = syntax.name(item)
    built = unit.namer.fresh(f"{name}_inserted")
    if isinstance(index, gast.Constant) and index.value == 0 and type(index.value) is int:
        head, start = [syntax.assign(built, gast.List(elts=[value], ctx=gast.Load()))], None
    else:
        if not isinstance(index, (gast.Constant, gast.Name)):   # evaluated once, before the item, as in Python
            held = unit.namer.fresh(f"{name}_index")
            before.insert(0, syntax.assign(held, index))
            index = syntax.name(held)
        slot = unit.namer.fresh(f"{name}_slot")
        before.append(syntax.assign(slot, _clamped(name, index)))
        start = syntax.name(slot)
        head = [syntax.assign(built, gast.List(elts=[], ctx=gast.Load())),
                _copy_loop(unit, name, built, [syntax.name(slot)]),
                syntax.expr_stmt(syntax.call(gast.Attribute(value=syntax.name(built), attr="append",
                                                            ctx=gast.Load()), [value]))]
    tail = _copy_loop(unit, name, built, [syntax.constant(0) if start is None else start, _length(name)])
    rebuilt = [*head, tail, syntax.assign(name, syntax.name(built))]
    statements = before + rebuilt
    for new in statements:
        syntax.annotate(new, "construct", f"`{text}`")
        for node in syntax.walk(new):
            if isinstance(node, (gast.expr, gast.stmt)):
                gast.copy_location(node, stmt)
    return statements


def _copy_loop(unit, name, built, bounds) -> gast.For:
    """``for k in range(*bounds): built.append(name[k])``: items of the old list, each read alone (so the
    new list is known to hold them)."""
    position = unit.namer.fresh("k")
    if len(bounds) == 2 and isinstance(bounds[0], gast.Constant) and bounds[0].value == 0:
        bounds = bounds[1:]
    counter = _builtin_call("range", bounds)
    append = syntax.call(gast.Attribute(value=syntax.name(built), attr="append", ctx=gast.Load()),
                         [_read(name, syntax.name(position))])
    return gast.For(target=syntax.store(position), iter=counter, body=[syntax.expr_stmt(append)], orelse=[],
                    type_comment=None)


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


def _check_no_change_in_place(unit, function, stmt, text) -> None:
    """``AliasingError`` when ``function`` changes an array in place anywhere (``x *= 2.0``, ``A[i] = v``,
    ``A.fill(0.0)``, ``out=``): the new list holds the old list's arrays, and srcad does not follow such a
    change through an item read by position into the new list."""
    for node in syntax.walk(function):
        changed = None
        if isinstance(node, gast.AugAssign):
            changed = node
        elif isinstance(node, gast.Assign) and any(isinstance(t, gast.Subscript) for t in node.targets):
            changed = node
        elif isinstance(node, gast.Call) and (any(k.arg == "out" for k in node.keywords) or (
                isinstance(node.func, gast.Attribute) and node.func.attr in _IN_PLACE_METHODS
                and syntax.annotation(node.func, "ref") is None)):
            changed = node
        if changed is not None:
            line = unit.parsed.location(changed).lineno
            raise unit.error(stmt, AliasingError,
                             f"`{text}` in a function that changes an array in place (line {line}: "
                             f"`{unit.parsed.line_text(changed.lineno).strip()}`); srcad does not follow such a "
                             f"change into the list the insert builds",
                             "make a new array there instead (`x = x * 2.0` rather than `x *= 2.0`), or build "
                             "the list with `append` in the order you need")


_IN_PLACE_METHODS = frozenset({"fill", "sort", "put", "resize", "itemset", "partition", "setfield", "byteswap",
                               "__setitem__", "__iadd__", "__imul__"})


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
