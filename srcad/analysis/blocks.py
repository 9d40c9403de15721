"""Facts about blocks of normalized code that both mode transforms share.

Contract: pure functions over statement lists; nothing here changes a tree.
- ``assigned_here(block)``: names a block binds at its own level.
- ``assigned_anywhere(stmts)``: names bound anywhere below, compound bodies included.
- ``definitely_bound(block, before)``: what is surely bound after ``block``.
- ``target_name(target)``: the variable an assignment target writes (``A`` for ``A[i] = v``).
- ``has_break(loop)``: whether a loop's own body (not an inner loop's) breaks.
- ``is_append(stmt)``, ``is_pop(stmt)`` / ``list_names(stmts)``: list appends and pops (``v = xs.pop()``),
  and names holding lists.
- ``array_names(stmts)``: names provably holding arrays or numbers, not containers.
- ``written_names(stmt)``: what a statement binds or changes in place.
- ``MemorySharing(tree)``: which names may hold a view of an array another name
  holds, for passes that move an expression across an in-place update.
- ``hoist_from_expressions``: rewrite a statement's own expressions, collecting the
  statements the rewrite needs in front of it (shared by comprehension lowering and inlining).

Example: ``definitely_bound([if c: y = 1 else: y = 2], {"c"})`` is ``{"c", "y"}``.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Set

import gast
import numpy as np

from ..frontend import syntax
from ..operators import METADATA_ATTRIBUTES


def target_name(target) -> str:
    """The variable written by an assignment target."""
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else ""


def is_store(stmt) -> bool:
    """``A[index] = value``."""
    return isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript)


RETURN_VALUE = "return_value"   # annotation of ``result = e`` that desugar made from ``return e``
SCALAR_ELEMENT = "scalar_element"   # annotation of ``t = A[i, j]`` reading one element of a known-rank array

_FRESH_RESULTS = (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Constant)   # never views


# NumPy functions whose result is always a new array (or a number), never a view of an argument
_NEW_ARRAY_FUNCTIONS = frozenset({
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "filled_like",
    "arange", "linspace", "eye", "identity", "copy", "array", "sum", "mean", "prod", "max", "min",
    "dot", "matmul", "outer", "einsum", "concatenate", "stack"})


# runtime helpers whose result may be (a view of) one argument: its position
RUNTIME_PASSES_ON = {"unbroadcast": 0, "unreduce": 0, "broadcast_like": 0, "check_seed": 1, "keep_last": 0,
                     "cast_gate": 0}


def _makes_new_array(func, local) -> bool:
    """Whether calling ``func`` (``np.zeros``, ``np.exp``, ``math.sin``) surely returns a new value.

    Only module functions count (``np.copy``, not a method ``x.copy`` or a user's own ``copy``),
    and the runtime's ``zeros_like``, ``filled_like`` and ``copied``.
    """
    if isinstance(func, gast.Name):
        return func.id in ("zeros_like", "filled_like", "copied", "array_copy") and func.id not in local
    if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)) or func.value.id in local:
        return False
    return func.value.id == "math" or func.attr in _NEW_ARRAY_FUNCTIONS \
        or isinstance(getattr(np, func.attr, None), np.ufunc)


class MemorySharing:
    """Over-approximates which names may share memory (one is a view or alias of another).

    A name may share memory with every array its assignments read, and
    transitively: ``Y_0 = Y[0]`` makes ``Y_0`` share with ``Y``.  Arithmetic
    (``a * b``, ``-a``) makes a new value, so it shares with nothing; neither
    do metadata (``Y.shape``), subscript indices, or the module a function
    comes from (``np`` in ``np.zeros(t)``).
    """

    def __init__(self, tree):
        self._closure = {}
        self._viewers = None
        self.sources: Dict[str, Set[str]] = self._build(tree)   # per name: the arrays it may take or view

    def _build(self, tree) -> Dict[str, Set[str]]:
        sources = {}
        self.local = {arg.id for arg in tree.args.args + tree.args.kwonlyargs}
        sharing = []
        for stmt in syntax.iter_statements(tree.body):
            if stmt.__class__ is gast.Assign:
                target = stmt.targets[0]
                names = [target.id] if target.__class__ is gast.Name else syntax.stored_names(target)
                if target.__class__ is not gast.Subscript:
                    self.local.update(names)
                if not isinstance(stmt.value, _FRESH_RESULTS) and not syntax.annotation(stmt, SCALAR_ELEMENT):
                    sharing.append((names, stmt.value))   # a scalar element is a copy, never a view
            elif stmt.__class__ is gast.For:
                self.local |= syntax.stored_names(stmt.target)
        for names, value in sharing:
            arrays = self._arrays_read(value)
            for name in names:
                sources.setdefault(name, set()).update(arrays)
        return sources

    def _arrays_read(self, node) -> Set[str]:
        """Names whose memory the value of ``node`` may be, or be a view of."""
        if isinstance(node, gast.Name):
            return {node.id}
        if isinstance(node, gast.Attribute):
            return set() if node.attr in METADATA_ATTRIBUTES else self._arrays_read(node.value)
        if isinstance(node, gast.Subscript):
            return self._arrays_read(node.value)
        if isinstance(node, gast.Call):
            if _makes_new_array(node.func, self.local):
                return set()
            passed = RUNTIME_PASSES_ON.get(getattr(node.func, "id", None))
            if passed is not None and node.func.id not in self.local and len(node.args) > passed:
                return self._arrays_read(node.args[passed])   # the other arguments give only a shape
            found = set()
            for argument in node.args + [keyword.value for keyword in node.keywords]:
                found |= self._arrays_read(argument)
            if isinstance(node.func, gast.Attribute):   # a method call reads its object; a module function does not
                root = node.func.value
                while isinstance(root, gast.Attribute):
                    root = root.value
                if not (isinstance(root, gast.Name) and root.id not in self.local):
                    found |= self._arrays_read(node.func.value)
            return found
        return syntax.loaded_names(node)

    def connected(self, name: str) -> Set[str]:
        """``name``, the names it may view, and the names that may view it.

        A store into ``Y`` changes what ``Y``'s views and aliases (``Z = Y``) read,
        as well as what the arrays ``Y`` views read.
        """
        if self._viewers is None:
            self._viewers = {}
            for target in self.sources:
                for source in self.reachable({target}):
                    self._viewers.setdefault(source, set()).add(target)
        return self.reachable({name}) | self._viewers.get(name, set())

    def reachable(self, names: Set[str]) -> Set[str]:
        """``names`` and every name they may share memory with."""
        found, sources = set(), self.sources
        for name in names:
            if name not in self._closure:
                seen, stack = set(), [name]
                while stack:
                    current = stack.pop()
                    if current not in seen:
                        seen.add(current)
                        stack.extend(sources.get(current, ()))
                self._closure[name] = seen
            found |= self._closure[name]
        return found


def assigned_here(block: List) -> List[str]:
    """Names bound by plain assignments at this block's own level, in order, once each."""
    names = []
    for stmt in block:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            if stmt.targets[0].id not in names:
                names.append(stmt.targets[0].id)
    return names


def assigned_anywhere(stmts: Iterable) -> Set[str]:
    """Names bound anywhere in ``stmts`` (loop targets included, element stores excluded)."""
    names = set()
    for stmt in syntax.iter_statements(list(stmts)):
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            names.add(stmt.targets[0].id)
        elif isinstance(stmt, gast.For):
            names |= syntax.stored_names(stmt.target)
    return names


def names_used(stmts: Iterable) -> Set[str]:
    """Every name read or written in ``stmts``."""
    found = set()
    for stmt in stmts:
        found |= syntax.names_in(stmt)
    return found


def definitely_bound(block: List, before: Set[str]) -> Set[str]:
    """Names surely bound after running ``block`` when ``before`` were bound."""
    bound = set(before)
    for stmt in block:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            bound.add(stmt.targets[0].id)
        elif isinstance(stmt, gast.If):
            bound |= definitely_bound(stmt.body, bound) & definitely_bound(stmt.orelse, bound)
    return bound


def loop_carried(loop, *, only_earlier_passes: bool = False) -> Set[str]:
    """Names ``loop`` binds that a pass of its body may read before binding them: values one pass
    hands to the next.  With ``only_earlier_passes``, only reads that no earlier statement of the
    same pass may have bound (those can only see an earlier pass's value).

    Example: in ``for i in range(3): y = 1.0 if i == 0 else y * s`` (as an ``if``), ``y``.
    """
    exposed = syntax.loaded_names(loop.test) if isinstance(loop, gast.While) else set()
    exposed |= _exposed_reads(loop.body, set(), only_earlier_passes)
    return assigned_anywhere(loop.body) & exposed


def _exposed_reads(block: List, known: Set[str], maybe: bool) -> Set[str]:
    """Names ``block`` may read before binding them, when ``known`` are bound before it (surely
    bound, or with ``maybe``, bound on some path); other compound statements count every read."""
    exposed, known = set(), set(known)
    for stmt in block:
        if isinstance(stmt, gast.If):
            exposed |= syntax.loaded_names(stmt.test) - known
            exposed |= _exposed_reads(stmt.body, known, maybe) | _exposed_reads(stmt.orelse, known, maybe)
        elif isinstance(stmt, (gast.For, gast.While)):
            head = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            exposed |= syntax.loaded_names(head) - known
            inside = known | (syntax.stored_names(stmt.target) if isinstance(stmt, gast.For) else set())
            exposed |= _exposed_reads(stmt.body + stmt.orelse, inside, maybe)
        else:
            exposed |= syntax.loaded_names(stmt) - known
        known = known | assigned_anywhere([stmt]) if maybe else definitely_bound([stmt], known)
    return exposed


def has_break(loop) -> bool:
    """Whether ``loop`` itself can be left by ``break``."""
    def search(block):
        for stmt in block:
            if isinstance(stmt, gast.Break):
                return True
            if isinstance(stmt, gast.If) and (search(stmt.body) or search(stmt.orelse)):
                return True
        return False
    return search(loop.body)


_JOINS = frozenset({"stack", "concatenate", "hstack", "vstack", "dstack", "column_stack", "block"})


def _numeric_function(function) -> bool:
    """A NumPy or math function whose operands are arrays or numbers (not one joining a list of arrays)."""
    module = getattr(function, "__module__", None) or getattr(getattr(function, "__class__", None), "__module__", "")
    return function is not None and (module or "").split(".")[0] in ("numpy", "math") \
        and getattr(function, "__name__", "") not in _JOINS


def array_names(stmts) -> Set[str]:
    """Names used as arrays or numbers, never as lists: operands of arithmetic (``+`` and ``*``
    only beside a float or a known array: they also join and repeat lists), of NumPy and math
    functions, or indexed by a tuple, and the names such a value is a slice of (``part = u[1:]``);
    never a name the code tests with ``isinstance``."""
    names, joins = set(), []
    for stmt in syntax.iter_statements(list(stmts)):
        for node in syntax.walk(stmt):
            if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult)):
                joins.append((node.left, node.right))
                continue
            if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.Mod):
                operands = [node.left, node.right]
            elif isinstance(node, gast.UnaryOp):
                operands = [node.operand]
            elif isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Tuple):
                operands = [node.value]
            elif isinstance(node, gast.Call) and _numeric_function(syntax.annotation(node.func, "ref")):
                operands = node.args
            else:
                continue
            names |= {operand.id for operand in operands if isinstance(operand, gast.Name)}

    def numeric(node):
        return (isinstance(node, gast.Constant) and isinstance(node.value, float)) or (
            isinstance(node, gast.Name) and node.id in names)

    # ``part = u[1:]``: a slice of a list is a list, so where ``part`` is an array or a number, ``u`` is no list
    sliced = [(stmt.targets[0].id, stmt.value.value.id) for stmt in syntax.iter_statements(list(stmts))
              if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
              and isinstance(stmt.value, gast.Subscript) and isinstance(stmt.value.value, gast.Name)
              and isinstance(stmt.value.slice, gast.Slice)]
    grown = True
    while grown:
        grown = False
        for left, right in joins:
            for one, other in ((left, right), (right, left)):
                if numeric(one) and isinstance(other, gast.Name) and other.id not in names:
                    names.add(other.id)
                    grown = True
        for part, base in sliced:
            if part in names and base not in names:
                names.add(base)
                grown = True
    return names - _type_tested(stmts)


def _type_tested(stmts) -> Set[str]:
    """Names the code asks ``isinstance`` about: they may hold an array on one path and a tuple on another
    (a recursive function walking a tree)."""
    return {node.args[0].id for stmt in syntax.iter_statements(list(stmts)) for node in syntax.walk(stmt)
            if isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") is isinstance and node.args
            and isinstance(node.args[0], gast.Name)}


def written_names(stmt) -> Set[str]:
    """Names a statement binds or changes in place: ``x = e``, ``a, b = e``, ``A[i] = e`` and
    ``A[i] += e`` (``A``), the first argument of a call made as a statement (``add_at(A, ...)``) and the
    object of a method called as a statement (``ys.pop()``)."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign)):
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) else stmt.target
        while isinstance(target, gast.Subscript):
            target = target.value
        names = syntax.names_in(target) if isinstance(target, (gast.Name, gast.Tuple)) else set()
        if isinstance(stmt, gast.Assign) and _pops(stmt.value):
            names = names | {stmt.value.func.value.id}   # ``v = xs.pop()`` changes xs too
        return names
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and not syntax.is_check(stmt):
        call = stmt.value
        changed = {call.args[0].id} if call.args and isinstance(call.args[0], gast.Name) else set()
        if isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name):
            changed.add(call.func.value.id)
        return changed
    return set()


def is_append(stmt) -> bool:
    """``xs.append(v)`` as a statement (normalized)."""
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and bool(syntax.annotation(stmt.value, "append")))


def is_pop(stmt) -> bool:
    """``v = xs.pop()`` (normalized): the list's last item taken off."""
    return (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)
            and bool(syntax.annotation(stmt.value, "pop")))


def _pops(value) -> bool:
    """Whether ``value`` is ``xs.pop()`` on a named list (normalized or not)."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
            and isinstance(value.func.value, gast.Name) and not value.args and not value.keywords)


def list_names(stmts) -> Set[str]:
    """Names that hold lists: assigned a list literal, appended to or popped, or assigned such a name."""
    names, copies = set(), []
    for stmt in syntax.iter_statements(list(stmts)):
        if is_append(stmt):
            names.add(stmt.value.func.value.id)
        elif is_pop(stmt):
            names.add(stmt.value.func.value.id)
        elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            if isinstance(stmt.value, gast.List):
                names.add(stmt.targets[0].id)
            elif isinstance(stmt.value, gast.Name):
                copies.append((stmt.targets[0].id, stmt.value.id))
    return closed_under(names, copies)


def closed_under(names: Set[str], derived) -> Set[str]:
    """``names`` with every ``target`` of the ``(target, source)`` pairs whose ``source`` is in it, transitively
    (``names`` is extended in place and returned).

    Example: ``closed_under({"a"}, [("b", "a"), ("c", "b")])`` is ``{"a", "b", "c"}``.
    """
    grown = True
    while grown:
        before = len(names)
        names |= {target for target, source in derived if source in names}
        grown = len(names) > before
    return names


def hoist_from_expressions(stmt, rewriter, before: List, on_while_test):
    """Rewrite the expressions ``stmt`` evaluates itself with ``rewriter`` (a NodeTransformer that
    appends the statements its results need to ``before``); returns the statement.

    A ``while`` test runs on every iteration, so nothing can be hoisted out of it:
    ``on_while_test(test)`` is called instead (to check it, or raise).
    """
    if isinstance(stmt, gast.While):
        on_while_test(stmt.test)
    elif isinstance(stmt, gast.For):
        stmt.iter = rewriter.visit(stmt.iter)
    elif isinstance(stmt, gast.If):
        stmt.test = rewriter.visit(stmt.test)
    else:
        stmt = rewriter.visit(stmt)
    for new in before:
        syntax.set_location(new, stmt.lineno)
    return stmt
