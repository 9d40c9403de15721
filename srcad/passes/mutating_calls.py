"""Transformation: calls that change an array in place become element stores, or are refused.

Contract: after this pass, on the desugared tree,
- ``np.fill_diagonal(A, v)`` is ``A[diagonal_index(A)] = v``; ``np.copyto(A, B)``
  is ``A[...] = B`` (``where=m``: ``A[...] = np.where(m, B, A)``);
  ``np.add.at(A, i, v)`` is ``A[...] = add_at(copied(A), i, v)``
  (``np.subtract.at`` adds ``-v``); ``np.put(A, i, v)`` and ``A.put(i, v)``
  are ``A[target] = np.ravel(v)[source]`` with ``target, source =
  put_index(A, i, v)``; ``A.fill(v)`` is ``A[...] = v``; ``A.sort(axis)`` is
  ``A[...] = np.sort(A, axis)``;
- a NumPy call with ``out=o`` is ``o[...] = call`` without it (``where=m``:
  ``o[...] = np.where(m, call, o)``), placed before its statement, and the
  call's value is ``o`` (``out=A[1:]`` stores ``A[1:] = call``);
- an array written this way that is not a plain name (``np.fill_diagonal(A[0], v)``)
  gets a name first (``A_0 = A[0]``), so ``views`` carries the change back;
- every other call that may change an argument in place raises
  ``AliasingError``: ``ufunc.at`` other than add and subtract,
  ``np.fill_diagonal(..., wrap=True)``, ``np.put(..., mode=...)``, mutating
  methods without a rule (``A.resize``, ``xs.reverse()``), and calls to the
  user's functions that change a parameter (``mutated_parameters``), naming
  the argument and the callee's line.  ``np.place``, ``np.putmask`` and
  ``np.random.shuffle`` are left to ``activity``, which refuses them only on
  values that carry a derivative.
Each new statement keeps the line of the call and is annotated with it as
``construct``.  Says whether it changed the tree.

Example: ``np.multiply(x, x, out=y)`` becomes ``y[...] = np.multiply(x, x)``.
"""
from __future__ import annotations

from typing import List

import gast
import numpy as np

from .. import runtime
from ..errors import AliasingError
from ..frontend import syntax
from ..frontend.emit import to_source
from ..analysis.blocks import hoist_from_expressions
from ..analysis.mutation import MUTATING_METHODS, mutated_parameters
from ..analysis.relations import bind_wanted, call_of
from ..templates import is_nondifferentiable, lookup
from . import Transformation

_LIBRARIES = {"numpy", "scipy", "math", "builtins", "srcad", "grad_templates"}


class MutatingCalls(Transformation):
    """Element stores for NumPy's in-place calls; a clear error for the others."""

    name = "mutating_calls"

    def transform(self, unit):
        self.unit = unit
        self.changed = False
        unit.tree.body = self._block(unit.tree.body)
        return self.changed

    def _block(self, block) -> List:
        result = []
        for stmt in block:
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                stmt.body, stmt.orelse = self._block(stmt.body), self._block(stmt.orelse)
            before: List = []
            stmt = hoist_from_expressions(stmt, _Outs(self, before), before, self._while_test)
            replaced = self._statement_call(stmt) if isinstance(stmt, gast.Expr) else None
            if isinstance(stmt, gast.Expr) and before and not isinstance(stmt.value, gast.Call):
                replaced = []   # the call was the statement: its store is all that is left
            if before or replaced is not None:
                self.changed = True
            new = before + ([stmt] if replaced is None else replaced)
            bind_wanted(new, self.unit.bindings)
            result += [syntax.set_location(s, stmt.lineno) for s in new if s is not None]
        return result

    def _while_test(self, test):
        for node in gast.walk(test):
            if isinstance(node, gast.Call) and any(k.arg == "out" for k in node.keywords):
                raise self._refusal(node, f"`{to_source(node).strip()}` changes an array in a `while` test",
                                    "compute it in a variable before the loop and at the end of its body")

    # calls made as statements --------------------------------------------------------
    def _statement_call(self, stmt):
        call = stmt.value
        if not isinstance(call, gast.Call) or not isinstance(stmt.value, gast.Call):
            return None
        function = syntax.annotation(call.func, "ref")
        keywords = {k.arg: k.value for k in call.keywords}
        text = to_source(call).strip()
        if function is None and isinstance(call.func, gast.Attribute):
            return self._method(stmt, call, call.func.attr, keywords, text)
        if function is np.fill_diagonal and not _true(keywords.get("wrap")) and len(call.args) == 2:
            before, target = self._named(call.args[0], text)
            return before + [self._store(stmt, target, call_of(runtime.diagonal_index, [syntax.clone(target)]),
                                         call.args[1], text)]
        if function is np.copyto and len(call.args) == 2 and set(keywords) <= {"where", "casting"}:
            before, target = self._named(call.args[0], text)
            value = call.args[1]
            if "where" in keywords:
                value = call_of(np.where, [keywords["where"], value, syntax.clone(target)])
            return before + [self._store(stmt, target, syntax.constant(Ellipsis), value, text)]
        if function is np.put and len(call.args) == 3 and not keywords:
            return self._put(stmt, call.args[0], call.args[1], call.args[2], text)
        owner = getattr(function, "__self__", None)
        if getattr(function, "__name__", None) == "at" and isinstance(owner, np.ufunc):
            if owner in (np.add, np.subtract) and len(call.args) == 3 and not keywords:
                before, target = self._named(call.args[0], text)
                value = call.args[2] if owner is np.add else gast.UnaryOp(op=gast.USub(), operand=call.args[2])
                added = call_of(runtime.add_at, [call_of(runtime.copied, [syntax.clone(target)]), call.args[1],
                                                 value])
                return before + [self._store(stmt, target, syntax.constant(Ellipsis), added, text)]
            raise self._refusal(stmt, f"`{text}` changes an array in place, and srcad has no rule for it",
                                "compute the new array and assign it (for example with np.where or a loop "
                                "of element stores)")
        if function in (np.fill_diagonal, np.copyto, np.put):
            raise self._refusal(stmt, f"`{text}` changes an array in place, and srcad follows it only in its "
                                "plain form", "drop the extra arguments, or write the element stores yourself")
        self._check_callee(stmt, call, function, text)
        return None

    def _method(self, stmt, call, method, keywords, text):
        receiver = call.func.value
        if method == "fill" and len(call.args) == 1 and not keywords:
            before, target = self._named(receiver, text)
            return before + [self._store(stmt, target, syntax.constant(Ellipsis), call.args[0], text)]
        if method == "sort" and len(call.args) <= 1 and set(keywords) <= {"axis"} and not (
                isinstance(receiver, gast.Name) and self._is_list(receiver.id)):
            before, target = self._named(receiver, text)
            axis = call.args[0] if call.args else keywords.get("axis", syntax.constant(-1))
            value = call_of(np.sort, [syntax.clone(target)], [gast.keyword(arg="axis", value=axis)])
            return before + [self._store(stmt, target, syntax.constant(Ellipsis), value, text)]
        if method == "put" and len(call.args) == 2 and not keywords:
            return self._put(stmt, receiver, call.args[0], call.args[1], text)
        if method == "pop" and not call.args and not keywords and isinstance(receiver, gast.Name):
            return None   # a list used as a stack: normalize keeps it, the mode transforms differentiate it
        if method in MUTATING_METHODS and method != "append":
            raise self._refusal(stmt, f"`{text}` changes an array or list in place, and srcad has no rule "
                                "for that change", "assign a new value to the name instead (for example "
                                "`xs = xs[::-1]` rather than `xs.reverse()`)")
        return None

    def _put(self, stmt, array, indices, values, text):
        before, target = self._named(array, text)
        places, sources = self.unit.namer.fresh("put_target"), self.unit.namer.fresh("put_source")
        unpack = gast.Assign(targets=[gast.Tuple(elts=[syntax.store(places), syntax.store(sources)],
                                                 ctx=gast.Store())],
                             value=call_of(runtime.put_index, [syntax.clone(target), indices, syntax.clone(values)]),
                             type_comment=None)
        gathered = gast.Subscript(value=call_of(np.ravel, [values]), slice=syntax.name(sources), ctx=gast.Load())
        return before + [unpack, self._store(stmt, target, syntax.name(places), gathered, text)]

    def _is_list(self, name) -> bool:
        return any(isinstance(s, gast.Assign) and isinstance(s.value, (gast.List, gast.Tuple, gast.Dict))
                   and any(isinstance(t, gast.Name) and t.id == name for t in s.targets)
                   for s in syntax.iter_statements(self.unit.tree.body))

    # calls of the user's functions ---------------------------------------------------
    def _check_callee(self, stmt, call, function, text):
        module = (getattr(function, "__module__", None) or "").split(".")[0]
        if module in _LIBRARIES or lookup(function, "reverse") or is_nondifferentiable(function):
            return
        changed = mutated_parameters(function)
        if not changed:
            return
        names = function.__code__.co_varnames[:function.__code__.co_argcount]
        bound = dict(zip(names, call.args))
        bound.update({k.arg: k.value for k in call.keywords})
        for param, (line, line_text) in changed.items():
            argument = bound.get(param)
            if argument is not None and syntax.loaded_names(argument):
                arg_text = to_source(argument).strip()
                raise self._refusal(stmt, f"`{text}` changes its argument `{arg_text}` in place "
                                    f"({function.__name__}, line {line}: `{line_text}`), and srcad "
                                    f"differentiates a call as a function of its arguments",
                                    f"make {function.__name__} return the new value and assign it "
                                    f"(`{arg_text} = {text}`), or define {function.__name__} in the module "
                                    f"of the function you differentiate, where srcad inlines it")

    def check_call(self, node, stmt):
        """Refuse ``node``, a call inside ``stmt``, when it changes an argument srcad cannot follow."""
        function = syntax.annotation(node.func, "ref")
        if function is not None:
            self._check_callee(stmt, node, function, to_source(node).strip())

    # building blocks ----------------------------------------------------------------
    def _named(self, node, text):
        """``node`` as a name to store into: itself, or a new name bound to it (a view ``views`` follows)."""
        if isinstance(node, gast.Name):
            return [], node
        name = self.unit.namer.fresh("written")
        return [syntax.assign(name, node)], syntax.name(name)

    def _store(self, stmt, target, index, value, text):
        store = gast.Assign(targets=[gast.Subscript(value=syntax.name(target.id), slice=index, ctx=gast.Store())],
                            value=value, type_comment=None)
        syntax.annotate(store, "construct", f"`{text}`")
        return store

    def _refusal(self, stmt, message, fix):
        return self.unit.error(stmt, AliasingError, message, fix)


def _true(node) -> bool:
    return isinstance(node, gast.Constant) and bool(node.value)


class _Outs(gast.NodeTransformer):
    """Calls with ``out=``: the store goes into ``before``, the call's value is the ``out`` array."""

    def __init__(self, owner, before):
        self.owner = owner
        self.before = before

    def visit_Call(self, node):
        self.generic_visit(node)
        function = syntax.annotation(node.func, "ref")
        out = next((k for k in node.keywords if k.arg == "out"), None)
        numpy = isinstance(function, np.ufunc) or (getattr(function, "__module__", "") or "").startswith("numpy")
        if out is None or not numpy or isinstance(out.value, gast.Constant):
            if function is not None:
                self.owner.check_call(node, self.stmt)
            return node
        target = out.value
        if isinstance(target, gast.Tuple):
            if len(target.elts) != 1:
                raise self.owner._refusal(self.stmt, f"`{to_source(node).strip()}` writes several `out` "
                                          "arrays, and srcad follows one only", "assign each result to a name")
            target = target.elts[0]
        keywords = [k for k in node.keywords if k.arg not in ("out", "where")]
        where = next((k.value for k in node.keywords if k.arg == "where"), None)
        text = to_source(node).strip()
        value = gast.Call(func=node.func, args=node.args, keywords=keywords)
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            array, index = target.value, target.slice
        else:
            before, array = self.owner._named(target, text)
            self.before += before
            index = syntax.constant(Ellipsis)
        if where is not None:
            current = gast.Subscript(value=syntax.clone(array), slice=syntax.clone(index), ctx=gast.Load())
            value = call_of(np.where, [where, value, current])
        self.before.append(self.owner._store(self.stmt, array, index, value, text))
        self.owner.changed = True
        return gast.Subscript(value=syntax.clone(array), slice=syntax.clone(index), ctx=gast.Load()) \
            if index is not None and not (isinstance(index, gast.Constant) and index.value is Ellipsis) \
            else syntax.clone(array)

    def visit(self, node):
        if not hasattr(self, "stmt"):
            self.stmt = node
        return super().visit(node)
