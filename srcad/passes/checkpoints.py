"""Transformation: f's top-level ``for`` loops over ``range`` run as checkpointed steps (``checkpoints=K``).

Contract: runs after ``resolve``, in reverse mode, only when the option
``checkpoints`` is set.  Every ``for t in range(...):`` statement of f's own
body becomes

    u, v = checkpointed_loop(f_step, range(...), (u, v), (c,), K, copies, 'file.py:12')

where ``f_step(t, u, v, c)`` is a function srcad compiles from the loop's body
(``return u, v`` added): its parameters are the loop index, the carried state
(the names the body assigns that are bound before the loop or read after
it) and the loop-invariant variables of f the body reads.  It is compiled
with each statement on its line in the user's file, so an error raised while
differentiating it names that line.  The adjoint rule registered here pulls
adjoints back through the loop with ``srcad.runtime.checkpointing``
(binomial checkpointing: at most K stored states), differentiating
``f_step`` with respect to what holds floats; the tangent rule runs the loop
with each step's Jacobian-vector product (forward mode over code that calls
the helper).  Neither is differentiated again.

Refused with ``UnsupportedSyntaxError`` at the user's line, with a fix: a
``checkpoints`` that is not a positive int, a function with no top-level
``for`` loop over ``range`` (a ``while`` loop, a loop inside ``if``), and in
the body ``return``, ``break``/``continue`` of the loop itself, a nested
``def``, ``for``-``else``, rebinding the index, reading the index after the
loop, a carried name with no value before the loop, mutating calls
(``xs.append(u)``, ``out=``, ``np.copyto``) and in-place stores into an array
that may share memory with another (anything but a fresh array: a parameter,
a view, another name).

Example: ``for t in range(n): u = u + c * lap(u)`` becomes
``u, = checkpointed_loop(f_step, range(n), (u,), (c,), 20, False, 'heat.py:5')``.
"""
from __future__ import annotations

import builtins
import os
import types
from typing import Dict, List, Set

import gast
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend import loader, syntax
from ..frontend.emit import to_source
from ..runtime.checkpointing import checkpointed_loop, checkpointed_loop_grads, checkpointed_loop_tangents
from ..templates import adjoint, d, not_differentiated, tangent
from . import Transformation

# calls that change their receiver or an argument in place: a step may not make them on carried state
_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "fill",
                     "sort", "put", "resize", "itemset", "partition", "setfield", "popitem", "add", "discard"}
_MUTATING_FUNCTIONS = {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal, np.put_along_axis,
                       np.random.shuffle}
# methods whose result is a new array, and NumPy functions whose result may be a view of an argument
_FRESH_METHODS = {"copy", "astype", "sum", "mean", "dot", "cumsum", "prod", "round", "clip"}
_VIEWS = {"asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "require", "reshape", "ravel",
          "transpose", "squeeze", "swapaxes", "moveaxis", "rollaxis", "expand_dims", "atleast_1d", "atleast_2d",
          "atleast_3d", "broadcast_to", "broadcast_arrays", "diagonal", "real", "imag", "flip", "fliplr", "flipud",
          "rot90", "matrix_transpose", "permute_dims", "split", "array_split", "hsplit", "vsplit", "dsplit",
          "unstack", "asmatrix", "frombuffer", "lib", "view"}


class Checkpoints(Transformation):
    """Make each top-level ``range`` loop of f a call of ``checkpointed_loop`` (see the module docstring)."""

    name = "checkpoints"

    def transform(self, unit) -> bool:
        snapshots = unit.options.get("checkpoints")
        if unit.mode != "reverse" or not snapshots:
            return False
        body, changed = unit.tree.body, False
        for position, statement in enumerate(list(body)):
            if isinstance(statement, gast.For) and _is_range(statement.iter):
                index = body.index(statement)
                body[index:index + 1] = _Loop(unit, statement, body[:index], body[index + 1:]).rewrite(snapshots)
                changed = True
        if not changed:
            raise unit.error(_first_loop(unit.tree) or unit.tree, UnsupportedSyntaxError,
                             f"checkpoints={snapshots} needs a `for` loop over range(...) at the top level of "
                             f"{unit.tree.name}, and there is none",
                             "write the time loop as `for t in range(n):` directly in the function's body "
                             "(not inside if/with/while), or leave checkpoints out")
        return changed


def _is_range(node) -> bool:
    return isinstance(node, gast.Call) and syntax.annotation(node.func, "ref") is builtins.range


def _first_loop(tree):
    return next((node for node in syntax.walk(tree) if isinstance(node, (gast.For, gast.While))
                 and node is not tree), None)


def _root_name(node):
    """The name an in-place store or a method call writes through (``u`` of ``u[1:-1]``, ``u.x[0]``)."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _fresh_value(node) -> bool:
    """Whether ``node`` always evaluates to a new value (so writing into it changes nothing else)."""
    if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.ListComp, gast.Compare, gast.Constant)):
        return True
    if isinstance(node, gast.IfExp):
        return _fresh_value(node.body) and _fresh_value(node.orelse)
    if not isinstance(node, gast.Call):
        return False
    function, called = node.func, syntax.annotation(node.func, "ref")
    if isinstance(function, gast.Attribute) and called is None:   # a method of a value: `u.copy()`
        return function.attr in _FRESH_METHODS
    if isinstance(called, np.ufunc) or called in (float, int, complex, list):
        return True
    return getattr(called, "__module__", "").startswith("numpy") and getattr(called, "__name__", "") not in _VIEWS


class _Loop:
    """One top-level ``for t in range(...)`` loop of f, its analysis and its rewrite."""

    def __init__(self, unit, loop, before: List, after: List):
        self.unit, self.loop, self.before, self.after = unit, loop, before, after
        self.index = loop.target.id if isinstance(loop.target, gast.Name) else None
        # f's local defs, most of them helpers of f's module that `inline_calls` copied in
        self.definitions = {node.name: node for node in before if isinstance(node, gast.FunctionDef)}

    def error(self, node, construct: str, fix: str):
        return self.unit.error(node, UnsupportedSyntaxError,
                               f"{construct} in a loop differentiated with checkpoints is not supported", fix)

    def rewrite(self, snapshots) -> List:
        if not isinstance(snapshots, int) or isinstance(snapshots, bool) or snapshots < 1:
            raise self.unit.error(self.loop, UnsupportedSyntaxError,
                                  f"checkpoints={snapshots!r} is not a number of snapshots",
                                  "give an int of 1 or more, such as checkpoints=20")
        self._check_form()
        carried, mutated = self._carried()
        invariants = self._invariants(carried)
        step = self._step_function(carried, invariants)
        line = self.unit.parsed.location(self.loop)
        where = f"{os.path.basename(line.filename)}:{line.lineno}"
        helper = syntax.name(self.unit.bindings.bind("checkpointed_loop", checkpointed_loop))
        syntax.annotate(helper, "ref", checkpointed_loop)
        self.unit.bindings.adopt(step.__name__, step)   # named by the namer already: the name is its own
        step_name = syntax.name(step.__name__)
        syntax.annotate(step_name, "ref", step)
        call = syntax.call(helper, [step_name, self.loop.iter, _names_tuple(carried, gast.Load),
                                    _names_tuple(invariants, gast.Load), syntax.constant(snapshots),
                                    syntax.constant(bool(mutated)), syntax.constant(where)])
        statements = [gast.Assign(targets=[_names_tuple(carried, gast.Store)], value=call, type_comment=None)
                      if carried else syntax.expr_stmt(call)]
        for statement in statements:
            syntax.set_location(statement, self.loop.lineno)
        return statements

    # the loop's form ---------------------------------------------------------------------
    def _check_form(self) -> None:
        loop = self.loop
        if loop.orelse:
            raise self.error(loop.orelse[0], "a `for`-`else` block", "move the else block after the loop")
        for node in _own_statements(loop.body):
            if isinstance(node, (gast.Break, gast.Continue)):
                raise self.error(node, f"`{type(node).__name__.lower()}`",
                                 "run every step to its end: guard the rest of the body with `if` instead")
        for node in syntax.walk(gast.Module(body=loop.body, type_ignores=[])):
            if isinstance(node, gast.Return):
                raise self.error(node, "`return`", "return after the loop")
            if isinstance(node, (gast.FunctionDef, gast.Lambda)):
                raise self.error(node, "a function defined", "define it before the loop, or at module level")
            if isinstance(node, gast.Delete):
                raise self.error(node, "`del`", "leave the name bound; assign it again in the next step")
            if isinstance(node, gast.Call):
                self._check_call(node)
            if isinstance(node, gast.Name) and node.id == self.index and isinstance(node.ctx, gast.Store):
                raise self.error(node, f"assigning the loop index {self.index}",
                                 f"use another name: `k = {self.index} + 1`")
        if self.index in syntax.loaded_names(gast.Module(body=self.after, type_ignores=[])):
            raise self.error(loop.target, f"reading the loop index {self.index} after the loop",
                             f"compute its last value after the loop (`{self.index} = n - 1`)")

    def _check_call(self, call) -> None:
        function = call.func
        if isinstance(function, gast.Attribute) and function.attr in _MUTATING_METHODS \
                and not isinstance(syntax.annotation(function, "ref"), (types.BuiltinFunctionType, np.ufunc)) \
                and syntax.annotation(function.value, "ref") is None:
            raise self.error(call, f"`.{function.attr}(...)`, which changes a value in place,",
                             "reduce the values as the loop goes (`total = total + np.sum(u)`), or compute them "
                             "after the loop")
        if isinstance(function, gast.Name) and function.id in self.definitions:
            self._check_helper(call, function.id)
        called = syntax.annotation(function, "ref")
        positional_out = isinstance(called, np.ufunc) and len(call.args) > called.nin   # np.add(u, v, u)
        if called in _MUTATING_FUNCTIONS or positional_out or any(k.arg == "out" for k in call.keywords):
            raise self.error(call, "a call writing into an array (`out=`, np.copyto, np.put...)",
                             "assign the result instead (`u = np.add(u, v)`)")
        if isinstance(function, gast.Attribute) and function.attr == "at" \
                and isinstance(syntax.annotation(function.value, "ref"), np.ufunc):
            raise self.error(call, f"`{to_source(function).strip()}`, which writes into an array in place,",
                             "build the new array instead (`np.bincount` or a one-hot product)")

    def _check_helper(self, call, name: str) -> None:
        """A call of a local def: the step calls the module's own function by that name, so it must be one."""
        scope = getattr(self.unit.parsed.func, "__globals__", {})
        copied = name in self.unit.facts.get("inline_calls", ()) and getattr(scope.get(name), "__code__", None) \
            is not None and scope[name].__name__ == self.definitions[name].name
        if not copied:
            raise self.error(call, f"a call of `{name}`, a function defined inside {self.unit.tree.name} or a "
                             "method,", f"define `{name}` at module level and call it by its name")

    def _helper_writes(self, call, seen=()) -> Set[str]:
        """The names a call of a local def passes to parameters the def (or a def it calls) writes into."""
        function = call.func
        if not (isinstance(function, gast.Name) and function.id in self.definitions) or function.id in seen:
            return set()
        definition = self.definitions[function.id]
        body = gast.Module(body=definition.body, type_ignores=[])
        written = self._written_in_place(body, seen + (function.id,))
        parameters = [argument.id for argument in definition.args.args]
        bound = dict(zip(parameters, call.args))
        bound.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg)
        return {value.id for parameter, value in bound.items()
                if parameter in written and isinstance(value, gast.Name)}

    # the state ---------------------------------------------------------------------------
    def _carried(self):
        """(the carried names in order of first appearance, the carried names the body writes into)."""
        body = gast.Module(body=self.loop.body, type_ignores=[])
        bound_before = set(_parameters(self.unit.tree)) | syntax.stored_names(
            gast.Module(body=self.before, type_ignores=[]))
        read_after = syntax.loaded_names(gast.Module(body=self.after, type_ignores=[]))
        assigned = syntax.stored_names(body) - {self.index}
        written = self._written_in_place(body)
        exposed = _read_before_assigned(self.loop.body, {self.index})   # values from the step before
        carried = [name for name in _in_order(body) if name in (assigned | written)
                   and (name in exposed or name in read_after)]
        for name in carried:
            if name not in bound_before:
                raise self.error(self.loop, f"`{name}`, which one step leaves for the next one or for the code "
                                 "after the loop but which has no value before the loop,",
                                 f"give it a value before the loop (`{name} = 0.0`)")
        for name in written:
            self._check_fresh(name, name in carried)
            self._check_no_alias_before(name)
        return carried, [name for name in carried if name in written]

    def _written_in_place(self, body, seen=()) -> Set[str]:
        """Names the body stores into through a subscript or an attribute (``u[1:-1] = ...``, ``u[0] += 1``),
        updates with an augmented assignment (``u += v`` writes into an array), or passes to a helper that
        writes into that parameter (``step(u, c)`` with ``def step(u, c): u[1:] = ...``)."""
        written = set()
        for node in syntax.walk(body):
            if isinstance(node, gast.Call):
                written |= self._helper_writes(node, seen)
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                written.add(node.target.id)
            targets = node.targets if isinstance(node, gast.Assign) else [node.target] \
                if isinstance(node, (gast.AugAssign, gast.AnnAssign)) else []
            for target in targets:
                for part in syntax.walk(target):
                    if isinstance(part, (gast.Subscript, gast.Attribute)) and isinstance(part.ctx, gast.Store):
                        name = _root_name(part)
                        if name is not None:
                            written.add(name)
        return written

    def _check_fresh(self, name: str, carried: bool) -> None:
        """Refuse writing into ``name`` unless every value it gets (before the loop and in it) is a new array."""
        values = _bindings(self.loop.body, name)
        if carried:   # its value at the loop's start: from a top-level `name = new array` before the loop
            top_level, everywhere = _bindings(self.before, name, top_level=True), _bindings(self.before, name)
            values.append(top_level[-1] if top_level and len(top_level) == len(everywhere) else None)
        for value in values:
            if value is None or not _fresh_value(value):
                raise self.error(self.loop if value is None else value,
                                 f"writing into `{name}` in place, which may share memory with another array,",
                                 f"make it a new array before the loop and wherever it is assigned "
                                 f"(`{name} = {name}.copy()`, or `{name} = {name} * 1.0` for a number), or "
                                 f"compute it out of place (`{name} = {name} + ...`)")

    def _check_no_alias_before(self, name: str) -> None:
        """Refuse a name bound before the loop to a value that may share memory with ``name`` (``w = u``)."""
        for node in syntax.walk(gast.Module(body=self.before, type_ignores=[])):
            if isinstance(node, gast.Assign) and not _fresh_value(node.value) \
                    and name in syntax.loaded_names(node.value) \
                    and not all(isinstance(t, gast.Name) and t.id == name for t in node.targets):
                raise self.error(node, f"another name for `{name}`, which the loop writes into in place,",
                                 f"copy it (`... = {name}.copy()`) or write the loop out of place")

    def _invariants(self, carried) -> List[str]:
        """f's variables the body reads and never assigns: parameters, names bound before the loop, wrt names."""
        body = gast.Module(body=self.loop.body, type_ignores=[])
        local = set(self.unit.facts.get("resolve", ())) | set(self.unit.wrt)
        assigned = syntax.stored_names(body) | set(carried) | {self.index}
        return [name for name in _in_order(body) if name in local and name not in assigned
                and name not in self.definitions]   # the step calls the module's function (_check_helper)

    # the step function -------------------------------------------------------------------
    def _step_function(self, carried, invariants):
        """Compile ``def f_step(t, *carried, *invariants): <body>; return carried`` at the loop's lines."""
        unit = self.unit
        name = unit.namer.fresh(f"{unit.tree.name}_step")
        parameters = [self.index] + carried + invariants
        definition = gast.FunctionDef(
            name=name, args=gast.arguments(args=[syntax.name(p, gast.Param()) for p in parameters],
                                           posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                           kwarg=None, defaults=[]),
            body=[gast.Pass()], decorator_list=[], returns=None, type_comment=None, type_params=[])
        first = unit.parsed.first_line + self.loop.lineno - 1
        # the def on the loop's line, each statement of the body on its own line (the user's line numbers)
        lines = [""] * (first - 1) + to_source(gast.Module(body=[definition], type_ignores=[])).splitlines()[:1]
        for statement in self.loop.body + [gast.Return(value=_names_tuple(carried, gast.Load))]:
            line = getattr(statement, "lineno", None)
            if line is not None and line <= len(unit.parsed.lines):   # the user's line: keep its number
                lines += [""] * (unit.parsed.first_line + line - 2 - len(lines))
            text = to_source(gast.Module(body=[syntax.clone(statement)], type_ignores=[]))
            lines += ["    " + row if row else row for row in text.rstrip("\n").splitlines()]
        text = "\n".join(lines) + "\n"
        label = f"{os.path.basename(unit.parsed.filename)}, the loop of {unit.tree.name} as {name}"
        code = loader.compile_text(text, None, label)
        inner = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
        scope: Dict = dict(getattr(unit.parsed.func, "__globals__", {}))
        scope.update(unit.bindings.objects)   # what f's names denote: its closure, the functions passes bound
        step = types.FunctionType(inner, scope, name)
        step.srcad_loop_step = True   # `srcad show --checkpoints` prints it
        step.srcad_globals = getattr(unit.parsed.func, "__globals__", {})   # its module: inline its helpers
        return step


def _parameters(tree) -> List[str]:
    args = tree.args
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    return names + [a.id for a in (args.vararg, args.kwarg) if a is not None]


def _bindings(statements, name: str, top_level: bool = False) -> List:
    """The values assigned to ``name`` in ``statements``, None for a binding other than ``name = value``
    (``+=`` keeps the array it updates, so it is no binding here)."""
    found = []
    nodes = statements if top_level else syntax.walk(gast.Module(body=statements, type_ignores=[]))
    for node in nodes:
        if isinstance(node, gast.Assign):
            if any(isinstance(t, gast.Name) and t.id == name for t in node.targets):
                found.append(node.value)
            elif any(name in syntax.stored_names(t) for t in node.targets):
                found.append(None)   # unpacked: `u, v = ...`
        elif isinstance(node, (gast.For, gast.With, gast.AnnAssign)) and name in syntax.stored_names(
                gast.Module(body=[_header(node)], type_ignores=[])):
            found.append(None)
    return found


def _header(node):
    """The part of a binding statement that binds: a ``for`` target, ``with ... as`` targets, an annotation's."""
    if isinstance(node, gast.With):
        return gast.Tuple(elts=[i.optional_vars for i in node.items if i.optional_vars is not None], ctx=gast.Store())
    return node.target


def _read_before_assigned(statements, assigned: Set[str]) -> Set[str]:
    """Names ``statements`` may read before they assign them (``assigned``: names bound already, updated
    with what the statements surely bind)."""
    exposed: Set[str] = set()
    for statement in statements:
        if isinstance(statement, gast.If):
            exposed |= syntax.loaded_names(statement.test) - assigned
            taken, other = set(assigned), set(assigned)
            exposed |= _read_before_assigned(statement.body, taken) | _read_before_assigned(statement.orelse, other)
            assigned |= taken & other
        elif isinstance(statement, (gast.For, gast.While)):   # the body may run no time, or run again
            header = statement.iter if isinstance(statement, gast.For) else statement.test
            exposed |= syntax.loaded_names(header) - assigned
            inner = set(assigned) | (syntax.stored_names(statement.target) if isinstance(statement, gast.For)
                                     else set())
            exposed |= _read_before_assigned(statement.body, inner)   # a later round reads what an earlier bound
            exposed |= _read_before_assigned(statement.orelse, set(assigned))
        elif isinstance(statement, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr)):
            exposed |= syntax.loaded_names(statement) - assigned
            if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name) \
                    and statement.target.id not in assigned:
                exposed.add(statement.target.id)   # `s += x` reads s
            assigned |= syntax.stored_names(statement)
        else:   # with, try, ...: every read may come first, no binding is sure
            exposed |= syntax.loaded_names(statement) - assigned
    return exposed


def _own_statements(body) -> List:
    """The statements of a loop body, not descending into inner loops (their break and continue are theirs)."""
    found, stack = [], list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (gast.For, gast.While)):
            stack.extend(node.orelse)
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, None) or [])
    return found


def _in_order(body) -> List[str]:
    """The names in ``body`` in order of first appearance (by line, then column)."""
    nodes = sorted(syntax.name_nodes(body.body), key=lambda n: (getattr(n, "lineno", 0) or 0,
                                                                 getattr(n, "col_offset", 0) or 0))
    ordered: Dict[str, None] = {}
    for node in nodes:
        ordered.setdefault(node.id)
    return list(ordered)


def _names_tuple(names, context):
    return gast.Tuple(elts=[syntax.name(n, context()) for n in names], ctx=context())


# the rules: the reverse sweep, and forward mode for code that calls the helper ------------------

@adjoint(checkpointed_loop)
def checkpointed_loop_adjoint(result, step, indices, state, invariants, checkpoints, copies=False, where=""):
    grads = checkpointed_loop_grads(d[result], result, step, indices, state, invariants, checkpoints, copies, where)
    d[state] = grads[0]
    d[invariants] = grads[1]


@tangent(checkpointed_loop)
def checkpointed_loop_tangent(result, step, indices, state, invariants, checkpoints, copies=False, where=""):
    d[result] = checkpointed_loop_tangents(d[state], d[invariants], step, indices, state, invariants, copies, where)


not_differentiated(checkpointed_loop_grads, checkpointed_loop_tangents,
                   hint="srcad differentiates a checkpointed loop once; leave checkpoints out for higher derivatives")
