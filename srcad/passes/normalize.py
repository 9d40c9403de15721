"""Transformation: A-normal form with readable temporaries.

Contract: after this pass every block (the body, and the bodies of ``if``,
``for`` and ``while``) holds only
- ``name = op`` where ``op`` is an atom, ``a <binop> b``, ``<unop> a``,
  ``f(a, ..., k=a)``, ``a[index]``, a metadata read (``a.shape``), a condition
  (comparison, ``and``/``or``/``not``, kept whole) or a tuple/list of atoms;
- ``name[index] = atom`` (an element store);
- ``xs.append(atom)`` and ``name = xs.pop()`` on a list ``xs`` used as a stack
  (a bare ``xs.pop()`` assigns a fresh name, ``popped``);
- ``locals().get('v')`` (generated code saving a name that may be unbound)
  reads ``v``, which the body first binds to ``None``;
- ``if name:`` with a hoisted condition, ``for i in range(atoms)``,
  ``while <condition>`` (its test stays whole: it is evaluated every
  iteration) and ``break``;
- ``return atom`` or ``return a, b, ...``;
- expression statements with effects only on the outside world (``print``),
  ``assert`` and ``raise`` (kept whole: their messages are evaluated only when
  they fail); ``del name`` is dropped.
Operands ("atoms") are names, constants, f-strings, references to module
attributes (``np.pi``) and metadata expressions (``x.shape[0] - 1``).  Each hoisted
operation gets a temporary named after the expression (``sin_x`` for
``np.sin(x)``); an expression returned directly is named ``out``.  Tuple
targets are split into one assignment per name; ``x += e`` becomes
``x = x + e`` (``A[i] += e`` reads, adds and stores); ``a if c else b``
becomes an ``if`` statement assigning a temporary; ``x.T`` becomes ``np.transpose(x)`` and ``x.sum(...)`` becomes
``np.sum(x, ...)``; ``np.r_[...]``/``np.c_[...]`` and the other forms of
``np.einsum`` become the calls ``numpy_forms`` says.  A list f builds by appending (a comprehension's, say)
passed to a NumPy function that reads it as one array becomes that array
first (``items_array = np.asarray(items)``), which is what NumPy does with
it anyway, so the function's rules only ever see arrays.  Every new node
keeps the line number of the statement it came from.

Example: ``y = np.sin(x) * w`` becomes ``sin_x = np.sin(x)`` then ``y = sin_x * w``.
"""
from __future__ import annotations

import builtins
from typing import List

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend.naming import describe, dotted_name
from ..operators import METADATA_ATTRIBUTES, METHODS
from ..runtime import regions
from ..runtime.containers import check_unpacking
from ..frontend import syntax
from ..frontend.syntax import annotate, annotation
from .grad_hooks import HOOK
from .numpy_forms import callee, einsum_call, index_concatenation, is_index_concatenation
from ..analysis.blocks import list_names
from . import Transformation

_METADATA_CALLS = (len, np.shape, np.ndim, np.size)
NEGATED_CHECK = "negated_check"   # annotation of the `not c` desugar writes for `if c: ... else: raise`
_INDEX_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)


def is_metadata(node) -> bool:
    """Whether ``node`` computes only shapes, sizes or constants (no derivative can flow)."""
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.Attribute):
        return node.attr in METADATA_ATTRIBUTES
    if isinstance(node, gast.Call):
        return any(annotation(node.func, "ref") is fn for fn in _METADATA_CALLS)
    if isinstance(node, gast.Subscript):
        return is_metadata(node.value) and _is_index(node.slice)
    if isinstance(node, gast.BinOp):
        return is_metadata(node.left) and is_metadata(node.right)
    if isinstance(node, gast.UnaryOp):
        return is_metadata(node.operand)
    if isinstance(node, gast.Tuple):
        return all(is_metadata(elt) for elt in node.elts)
    return False


def is_condition(node) -> bool:
    """A comparison, ``and``/``or`` or ``not``: a truth value, never differentiated."""
    return isinstance(node, (gast.Compare, gast.BoolOp)) or (
        isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not))


def is_static(node) -> bool:
    """An operand that needs no temporary: a name, constant, module attribute or metadata."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Attribute) and annotation(node, "ref", None) is not None:
        return not callable(annotation(node, "ref"))
    if isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant):
        return True
    if isinstance(node, gast.JoinedStr):
        return True   # an f-string: a str, evaluated where it stands
    return is_metadata(node)


# NumPy functions that take a sequence of arrays (each item its own array), not one array
_SEQUENCE_FUNCTIONS = frozenset({np.array, np.asarray, np.asanyarray, np.ascontiguousarray, np.concatenate,
                                 np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.block,
                                 np.linalg.multi_dot, np.broadcast_arrays, np.meshgrid, np.einsum})


def _reads_one_array(function) -> bool:
    """Whether ``function`` is a NumPy function that reads a list argument as ``np.asarray`` of it."""
    module = getattr(function, "__module__", None) or ""
    try:
        sequence = function in _SEQUENCE_FUNCTIONS
    except TypeError:   # unhashable
        return False
    return (isinstance(function, np.ufunc) or module.split(".")[0] == "numpy") and not sequence


def _reads_local(call) -> bool:
    """``locals().get('name')``: the value of a name that may still be unbound (derivative code saves them)."""
    func = call.func
    return (isinstance(func, gast.Attribute) and func.attr == "get" and isinstance(func.value, gast.Call)
            and isinstance(func.value.func, gast.Name) and func.value.func.id == "locals" and not func.value.args
            and len(call.args) == 1 and isinstance(call.args[0], gast.Constant)
            and isinstance(call.args[0].value, str) and not call.keywords)


def _is_index(node) -> bool:
    """Index arithmetic simple enough to leave inside a subscript (``i + 1``, ``:``, ``None``)."""
    if isinstance(node, (gast.Name, gast.Constant)) or is_metadata(node):
        return True
    if isinstance(node, gast.Slice):
        return all(part is None or _is_index(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, gast.Tuple):
        return all(_is_index(elt) for elt in node.elts)
    if isinstance(node, gast.BinOp) and isinstance(node.op, _INDEX_OPERATORS):
        return _is_index(node.left) and _is_index(node.right)
    if isinstance(node, gast.UnaryOp):
        return _is_index(node.operand)
    return False


class Normalize(Transformation):
    """Rewrite the body into A-normal form."""

    name = "normalize"

    def transform(self, unit):
        self.unit = unit
        self.read = syntax.loaded_names(unit.tree)
        self.appended = list_names([s for s in syntax.iter_statements(unit.tree.body) if not (
            isinstance(s, gast.Assign) and isinstance(s.value, gast.List) and s.value.elts)])
        self.maybe_unbound = set()
        body = self._block(unit.tree.body)
        line = body[0].lineno if body else unit.tree.lineno
        unit.tree.body = [syntax.set_location(syntax.assign(name, syntax.constant(None)), line)
                          for name in sorted(self.maybe_unbound)] + body
        return True

    def _block(self, body) -> List:
        outer_pending = getattr(self, "pending", [])
        result = []
        for stmt in body:
            self.pending = []
            lowered = self._statement(stmt)
            for new in self.pending + lowered:
                syntax.set_location(new, stmt.lineno)
                result.append(new)
        self.pending = outer_pending
        return result

    # statements -----------------------------------------------------------
    def _statement(self, stmt) -> List:
        if isinstance(stmt, gast.Assign):
            return self._assign(stmt.targets, stmt.value, stmt)
        if isinstance(stmt, gast.AnnAssign):
            return self._assign([stmt.target], stmt.value, stmt) if stmt.value is not None else []
        if isinstance(stmt, gast.AugAssign):
            load = syntax.clone(stmt.target)
            for node in gast.walk(load):
                if hasattr(node, "ctx"):
                    node.ctx = gast.Load()
            return self._assign([stmt.target], gast.BinOp(left=load, op=stmt.op, right=stmt.value), stmt)
        if isinstance(stmt, gast.If):
            test = self._condition(stmt.test)
            arms = gast.Module(body=stmt.body + stmt.orelse, type_ignores=[])
            if isinstance(test, gast.Name) and test.id in syntax.stored_names(arms):
                # the arms rebind the flag (`if returned: ... else: returned = True`): the backward sweep
                # must branch on the value tested, so test a copy
                test = self._hoist(syntax.name(test.id), "cond")
            lowered = gast.If(test=test, body=self._block(stmt.body), orelse=self._block(stmt.orelse))
            if syntax.ANNOTATION in stmt.__dict__:   # (a group of ``exceptions``, for ``attempts``)
                lowered.__dict__[syntax.ANNOTATION] = dict(stmt.__dict__[syntax.ANNOTATION])
            return [lowered]
        if isinstance(stmt, gast.For):
            loop_range = gast.Call(func=stmt.iter.func, args=[self._atom(a) for a in stmt.iter.args],
                                   keywords=[])
            return [gast.For(target=stmt.target, iter=loop_range, body=self._block(stmt.body), orelse=[],
                             type_comment=None)]
        if isinstance(stmt, gast.While):
            return [gast.While(test=stmt.test, body=self._block(stmt.body), orelse=[])]
        if isinstance(stmt, gast.Break):
            return [stmt]
        if isinstance(stmt, gast.Return):
            return [gast.Return(value=self._return_value(stmt.value))]
        if isinstance(stmt, gast.Expr):
            if syntax.annotation(stmt, HOOK) is not None:
                return [stmt]
            if isinstance(stmt.value, gast.Constant):
                return []  # docstring or bare constant
            operation = self._operation(stmt.value)
            if annotation(operation, "pop"):   # `xs.pop()`: the item taken off is a value like any other
                return [syntax.assign(self.unit.namer.fresh("popped"), operation)]
            return [gast.Expr(value=operation)]
        if isinstance(stmt, gast.Pass):
            return []
        if isinstance(stmt, (gast.Assert, gast.Raise)):
            syntax.annotate(stmt, "primal", True)   # the user's own: never rewritten
            return [stmt]   # kept whole: a message is evaluated only when it is raised
        if isinstance(stmt, gast.Delete):
            return []   # the derivative may read the value later (syntax_check: f itself does not)
        raise self.unit.error(stmt, UnsupportedSyntaxError, f"`{type(stmt).__name__}` statement",
                              "rewrite it with assignments and NumPy calls")

    def _assign(self, targets, value, stmt) -> List:
        if len(targets) > 1:  # a = b = expr
            first = self._assign(targets[:1], value, stmt)
            source = targets[0].id if isinstance(targets[0], gast.Name) else None
            rest = []
            for target in targets[1:]:
                rest += self._assign([target], syntax.name(source), stmt) if source else []
            return first + rest
        target = targets[0]
        if isinstance(target, gast.Name):
            return [syntax.assign(target.id, self._operation(value))]
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            stored = self._atom(value)
            index = self._index(target.slice)
            store = gast.Subscript(value=syntax.name(target.value.id), slice=index, ctx=gast.Store())
            return [gast.Assign(targets=[store], value=stored, type_comment=None)]
        if isinstance(target, (gast.Tuple, gast.List)):
            return self._unpack(target, value, stmt)
        raise self.unit.error(target, UnsupportedSyntaxError, "assignment to an element or attribute",
                              "build a new array (e.g. with np.where or np.concatenate) instead "
                              "of storing into one")

    def _unpack(self, target, value, stmt) -> List:
        names = []
        for elt in target.elts:
            if not isinstance(elt, gast.Name):
                raise self.unit.error(elt, UnsupportedSyntaxError, "unpacking into an element",
                                      "unpack into plain names")
            names.append(elt.id)
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(names):
            reads = [syntax.loaded_names(elt) for elt in value.elts]
            clash = any(names[i] in set().union(*reads[i + 1:]) for i in range(len(names)))
            if not clash:  # a, b = e1, e2 is the same as a = e1; b = e2
                statements = []
                for target_name, element in zip(names, value.elts):
                    self.pending = []
                    operation = self._operation(element)
                    statements += self.pending + [syntax.assign(target_name, operation)]
                self.pending = []
                return statements
            # save only the values an earlier target overwrites: old_a = a; a = b; b = old_a
            atoms = [self._atom(elt) for elt in value.elts]
            saved = {}
            for position, atom in enumerate(atoms):
                for read in sorted(syntax.loaded_names(atom) & set(names[:position])):
                    if read not in saved:
                        saved[read] = self._hoist(syntax.name(read), f"old_{read}")
                syntax.rename(atom, {old: new.id for old, new in saved.items()})
            return [syntax.assign(n, a) for n, a in zip(names, atoms)]
        source = self._atom(value, preferred="_".join(names))
        check = syntax.expr_stmt(gast.Call(func=callee(self.unit, check_unpacking),
                                           args=[syntax.clone(source), syntax.constant(len(names))], keywords=[]))
        return [check] + [syntax.assign(n, gast.Subscript(value=syntax.clone(source), slice=syntax.constant(i),
                                                          ctx=gast.Load()))
                          for i, n in enumerate(names)]

    def _return_value(self, value):
        if value is None:
            return syntax.constant(None)
        if isinstance(value, gast.Tuple):
            return gast.Tuple(elts=[self._atom(elt) for elt in value.elts], ctx=gast.Load())
        return self._atom(value, preferred="out")

    # expressions ----------------------------------------------------------
    def _hoist(self, operation, preferred=None) -> gast.Name:
        preferred = preferred or describe(operation)
        if hasattr(builtins, preferred) and preferred in self.read:   # `min = min(...)` would make min local
            preferred += "_value"
        temp = self.unit.namer.fresh(preferred)
        self.pending.append(syntax.assign(temp, operation))
        return syntax.name(temp)

    def _atom(self, node, preferred=None):
        if is_static(node):
            return node
        return self._hoist(self._operation(node), preferred)

    def _operation(self, node):
        """``node`` with every operand made an atom (the node itself may stay an operation)."""
        result = self._lower(node)
        if result is not node and getattr(node, "lineno", None) is not None:
            gast.copy_location(result, node)
        return result

    def _lower(self, node):
        if is_static(node):
            return node
        if isinstance(node, gast.BinOp):
            return gast.BinOp(left=self._atom(node.left), op=node.op, right=self._atom(node.right))
        if isinstance(node, gast.UnaryOp):
            return gast.UnaryOp(op=node.op, operand=self._atom(node.operand))
        if is_condition(node):
            return node  # kept whole: it carries no derivative, and `and`/`or` must short-circuit
        if isinstance(node, gast.IfExp):
            return self._if_expression(node)
        if isinstance(node, (gast.Tuple, gast.List)):
            return type(node)(elts=[self._atom(elt) for elt in node.elts], ctx=gast.Load())
        if isinstance(node, gast.Dict):
            if not all(isinstance(key, gast.Constant) for key in node.keys):
                raise self.unit.error(node, UnsupportedSyntaxError, "a dict literal with computed keys",
                                      "use constant keys")
            return gast.Dict(keys=node.keys, values=[self._atom(value) for value in node.values])
        if is_index_concatenation(node):
            return self._lower(gast.copy_location(index_concatenation(self.unit, node), node))
        if isinstance(node, gast.Subscript):
            return syntax.with_annotations(gast.Subscript(value=self._atom(node.value), slice=self._index(node.slice),
                                                          ctx=gast.Load()), node)
        if isinstance(node, gast.Attribute):
            if node.attr == "T":
                return self._numpy_call("transpose", [self._atom(node.value)], [])
            if node.attr in ("real", "imag") and annotation(node.value, "ref", None) is None:
                return self._numpy_call(node.attr, [self._atom(node.value)], [])   # np.real reads `.real` itself
            # an attribute of an object (self.w): a constant, unless the object is differentiated
            return gast.Attribute(value=self._atom(node.value), attr=node.attr, ctx=gast.Load())
        if isinstance(node, gast.Call):
            return self._call(node)
        if isinstance(node, gast.Lambda):
            raise self.unit.error(node, UnsupportedSyntaxError, "a lambda used other than by calling it",
                                  "call it in place, or bind it to a name (`g = lambda v: ...`) and call g")
        raise self.unit.error(node, UnsupportedSyntaxError, f"the expression `{type(node).__name__}`",
                              "rewrite it with arithmetic and NumPy calls")

    def _condition(self, test):
        """A name holding the branch decision ``test``."""
        if isinstance(test, gast.Name):
            return test
        preferred = describe(test) if describe(test) != "t" else "cond"
        if annotation(test, NEGATED_CHECK):   # `if not (s > 0): raise`: named after the condition it negates
            preferred = f"not_{describe(test.operand)}" if describe(test.operand) != "t" else "not_cond"
        return self._hoist(self._operation(test), preferred)

    def _if_expression(self, node):
        """``a if c else b`` as an ``if`` statement assigning one temporary."""
        test = self._condition(node.test)
        chosen = self.unit.namer.fresh("chosen")
        arms = []
        for branch in (node.body, node.orelse):
            outer, self.pending = self.pending, []
            value = self._operation(branch)
            arms.append(self.pending + [syntax.assign(chosen, value)])
            self.pending = outer
        self.pending.append(gast.If(test=test, body=arms[0], orelse=arms[1]))
        return syntax.name(chosen)

    def _index(self, node):
        if _is_index(node):
            return node
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self._index(elt) for elt in node.elts], ctx=gast.Load())
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self._index(p) for p in (node.lower, node.upper, node.step)]
            return gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        return self._hoist(self._operation(node), "index")

    def _call(self, node):
        if annotation(node.func, "ref", None) is regions.entered:
            return node   # `with <manager>:` keeps its manager expression as written (``contexts``)
        if annotation(node.func, "ref", None) is np.einsum:
            rewritten = einsum_call(self.unit, node)
            if rewritten is not node:
                return self._lower(gast.copy_location(rewritten, node))
        if annotation(node.func, "ref", None) in (builtins.max, builtins.min) and len(node.args) > 2 \
                and not node.keywords and not any(isinstance(arg, gast.Starred) for arg in node.args):
            nested = node.args[0]   # max(a, b, c) is max(max(a, b), c): the first of equal values wins in both
            for arg in node.args[1:]:
                nested = gast.copy_location(gast.Call(func=syntax.clone(node.func), args=[nested, arg],
                                                      keywords=[]), node)
            return self._call(nested)
        args = [self._atom(arg) for arg in node.args]
        keywords = [gast.keyword(arg=kw.arg, value=self._atom(kw.value)) for kw in node.keywords]
        func = node.func
        if (isinstance(func, gast.Attribute) and func.attr == "append" and isinstance(func.value, gast.Name)
                and annotation(func.value, "ref", None) is None and len(args) == 1 and not keywords):
            appended = gast.Call(func=func, args=args, keywords=[])
            annotate(appended, "append", True)
            return appended
        if _reads_local(node):   # `locals().get('v')`: v, which starts as None (what .get gives while unbound)
            self.maybe_unbound.add(node.args[0].value)
            return syntax.name(node.args[0].value)
        if (isinstance(func, gast.Attribute) and func.attr == "pop" and isinstance(func.value, gast.Name)
                and annotation(func.value, "ref", None) is None and not args and not keywords):
            popped = gast.Call(func=func, args=[], keywords=[])   # a list used as a stack: its last item
            annotate(popped, "pop", True)
            return popped
        if isinstance(func, gast.Attribute) and annotation(func, "ref", None) is None:
            method = METHODS.get(func.attr)
            if func.attr == "view" and (args or keywords):
                method = None   # A.view(dtype) reinterprets the bytes: no derivative
            if method is None:
                raise self.unit.error(node, UnsupportedSyntaxError, *_unknown_method(func))
            numpy_function, pack = method
            receiver = self._atom(func.value)
            if pack and len(args) > 1:
                args = [gast.Tuple(elts=args, ctx=gast.Load())]
            return gast.Call(func=callee(self.unit, numpy_function), args=[receiver] + args, keywords=keywords)
        if annotation(func, "ref", None) is None:
            raise self.unit.error(node, UnsupportedSyntaxError, "calling a computed function",
                                  "call a function by its name")
        if _reads_one_array(annotation(func, "ref")):
            args = [self._as_array(arg) for arg in args]
            keywords = [gast.keyword(arg=kw.arg, value=self._as_array(kw.value)) for kw in keywords]
        return gast.Call(func=func, args=args, keywords=keywords)

    def _as_array(self, atom):
        """A list the function builds by appending, as the array NumPy makes of it anyway.

        NumPy's rules are written for arrays: given the list (``np.sum(items)`` after
        ``[v * 3 for v in a]``) a reverse-mode adjoint would be an array where the appends'
        backward pass pops a list, and forward-mode tangents would be lists.  ``np.asarray``
        has rules that turn the adjoint back into a list, one entry per item.
        """
        if not (isinstance(atom, gast.Name) and atom.id in self.appended):
            return atom
        return self._hoist(self._numpy_call("asarray", [atom], []), f"{atom.id}_array")

    def _numpy_call(self, function_name, args, keywords):
        return gast.Call(func=callee(self.unit, getattr(np, function_name)), args=args, keywords=keywords)



def _unknown_method(func):
    """(what is unsupported, the fix) for a call of a method srcad has no rule for: ``x.tolist()``."""
    receiver = dotted_name(func.value) if isinstance(func.value, (gast.Name, gast.Attribute)) else "x"
    known = ", ".join(sorted(METHODS))
    what = (f"the method call `{receiver}.{func.attr}(...)`: srcad differentiates these methods of arrays only: "
            f"{known} (and `.keys()`, `.values()`, `.items()` of a dict that a loop, a comprehension, `sum`, `min`, `max`, `list`, `tuple` or `sorted` consumes where it is made)")
    if callable(getattr(np, func.attr, None)):
        return what, f"call the NumPy function instead: `np.{func.attr}({receiver})`"
    return what, ("compute it with NumPy functions, or move the call into a function of your own and "
                  "register its rule (`@srcad.adjoint(my_function)`)")
