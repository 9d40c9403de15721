"""Analysis: which variables carry a derivative.

Contract: ``unit.facts['activity']`` is an ``Activity`` with
- ``varied``: names whose value depends differentiably on a ``wrt`` parameter;
- ``useful``: names the returned value depends on differentiably;
- ``active``: both.  Only active names get a derivative variable, and only
  statements that assign an active name get derivative code.
A value computed by a metadata read (``x.shape``), a comparison, or a function
declared non-differentiable is never varied.  A call made for its effect on
an argument with no rule (``np.putmask``, ``np.place``, ``np.random.shuffle``)
raises ``AliasingError`` when an argument is varied.  The analysis is flow-insensitive and
iterates to a fixed point, so it holds for branches and loops; an element store
``A[i] = v`` makes ``A`` depend on ``v``.  A varied value passed to a function
declared ``not_differentiated`` (``np.arange``, ``np.random.normal``; or indexing
such an object, ``np.mgrid[...]``) whose result is useful raises
``SrcadError`` at that call: srcad would otherwise take a derivative that
exists as zero.

Example: in ``n = x.shape[0]; y = x * n; return y`` with wrt ``x``, ``x`` and
``y`` are active and ``n`` is not.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet

import gast

from ..frontend import syntax
from ..analysis.mutation import MUTATING_FUNCTIONS
from ..errors import AliasingError, SrcadError, UnsupportedSyntaxError
from ..frontend.naming import dotted_name
from ..frontend.syntax import annotation
from ..operators import BINARY
from ..templates import is_nondifferentiable, refusal
from ..analysis.blocks import is_append
from .normalize import is_metadata
from . import Analysis


@dataclass(frozen=True)
class Activity:
    varied: FrozenSet[str]
    useful: FrozenSet[str]

    @property
    def active(self) -> FrozenSet[str]:
        return self.varied & self.useful

    def is_active(self, node) -> bool:
        """Whether atom ``node`` is a name with a derivative."""
        return isinstance(node, gast.Name) and node.id in self.varied and node.id in self.useful


def carries_derivative(value) -> bool:
    """Whether an operation's result can depend differentiably on its operands."""
    if is_metadata(value) or isinstance(value, gast.Compare) or isinstance(value, gast.Attribute):
        return False
    if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.Not, gast.Invert)):
        return False
    if isinstance(value, gast.Call) and is_nondifferentiable(annotation(value.func, "ref")):
        return False
    if isinstance(value, gast.BinOp) and is_nondifferentiable(BINARY.get(type(value.op))):
        return False   # `a // b` is piecewise constant
    return not isinstance(value, gast.JoinedStr)   # an f-string is a str


def differentiable_operands(value):
    """Names an operation reads through positions a derivative can flow through."""
    if isinstance(value, gast.Subscript):
        return syntax.loaded_names(value.value)
    if isinstance(value, gast.Call) and annotation(value, "pop"):
        return {value.func.value.id}   # ``v = xs.pop()``: v is an item of xs
    if isinstance(value, gast.Call):
        names = set()
        for arg in value.args:
            names |= syntax.loaded_names(arg)
        for keyword in value.keywords:
            names |= syntax.loaded_names(keyword.value)
        return names
    return syntax.loaded_names(value)


class _Append:
    """``xs.append(v)`` seen as ``xs = f(xs, v)`` by the analysis."""

    def __init__(self, stmt):
        self.targets = [syntax.name(stmt.value.func.value.id)]
        self.value = stmt.value.args[0]


def _assignments(body):
    for stmt in syntax.iter_statements(body):
        if isinstance(stmt, gast.Assign):
            yield stmt
        elif is_append(stmt):
            yield _Append(stmt)


def _written(stmt):
    """The variable an assignment writes: the name, or the array an element store writes into."""
    target = stmt.targets[0]
    while isinstance(target, gast.Subscript):
        target = target.value
    return {target.id} if isinstance(target, gast.Name) else set()


def _reach(start, edges):
    """Every name reachable from ``start``: an edge ``(sources, targets)`` leads from any source to all targets."""
    by_source = {}
    for sources, targets in edges:
        for name in sources:
            by_source.setdefault(name, []).append(targets)
    reached, frontier = set(start), list(start)
    while frontier:
        for targets in by_source.get(frontier.pop(), ()):
            for name in targets:
                if name not in reached:
                    reached.add(name)
                    frontier.append(name)
    return reached


def _refuse_mutating_calls(unit, body, varied) -> None:
    """A call made for its effect on an argument (``np.putmask(A, m, x)``, ``np.random.shuffle(A)``) has no
    rule: running it as if it changed nothing would lose a derivative, so refuse it on a varied value."""
    for stmt in syntax.iter_statements(body):
        call = stmt.value if isinstance(stmt, gast.Expr) else None
        function = annotation(call.func, "ref") if isinstance(call, gast.Call) else None
        if function is None or not (function in MUTATING_FUNCTIONS or getattr(function, "__name__", "") == "shuffle"):
            continue
        touched = set().union(*[syntax.loaded_names(a) for a in call.args + [k.value for k in call.keywords]])
        if touched & varied:
            name = sorted(touched & varied)[0]
            raise unit.error(call, AliasingError,
                             f"`{getattr(function, '__name__', 'the call')}(...)` changes its first argument in place and `{name}` "
                             f"carries a derivative, but srcad has no rule for that change",
                             "build the new array and assign it instead (for example with np.where)")


class ActivityAnalysis(Analysis):
    """Forward (varied) and backward (useful) dependence, intersected."""

    name = "activity"

    def analyse(self, unit):
        body = unit.tree.body
        # one (written names, operands) pair per differentiable assignment, then two graph searches
        edges = [(_written(stmt), differentiable_operands(stmt.value))
                 for stmt in _assignments(body) if carries_derivative(stmt.value)]
        varied = _reach(set(unit.wrt), [(operands, written) for written, operands in edges])
        for stmt in _assignments(body):   # `obj.attr` of a differentiated object would lose its derivative
            value = stmt.value
            if isinstance(value, gast.Attribute) and not is_metadata(value) \
                    and syntax.loaded_names(value) & varied:
                raise unit.error(value, UnsupportedSyntaxError,
                                 f"reading `.{value.attr}` of a value that is being differentiated",
                                 "pass the attribute's value as its own argument and differentiate that")
        _refuse_mutating_calls(unit, body, varied)
        useful = set()
        for stmt in syntax.iter_statements(body):
            if isinstance(stmt, gast.Return):
                value = stmt.value
                if unit.options.get("has_aux") and isinstance(value, gast.Tuple) and value.elts:
                    value = value.elts[0]   # (output, aux): only the output is differentiated
                useful |= syntax.loaded_names(value)
        useful = _reach(useful, edges)
        _check_not_differentiated(unit, body, varied, useful)
        return Activity(frozenset(varied), frozenset(useful))


def _check_not_differentiated(unit, body, varied, useful) -> None:
    """Raise where a varied value flows into a ``not_differentiated`` function whose result matters."""
    for stmt in syntax.iter_statements(body):
        if not isinstance(stmt, (gast.Assign, gast.Expr)):
            continue
        value = stmt.value
        if isinstance(value, gast.Call):   # shapes (np.arange(x.shape[0])) carry no derivative
            function = value.func
            arguments = value.args + [keyword.value for keyword in value.keywords]
            operands = set().union(*[syntax.loaded_names(arg) for arg in arguments if not is_metadata(arg)])
        elif isinstance(value, gast.Subscript):   # np.mgrid[a:b:5j]: the index holds the operands
            function, operands = value.value, syntax.loaded_names(value.slice)
        else:
            continue
        hint = refusal(annotation(function, "ref", None))
        received = sorted(operands & varied)
        if hint is None or not received:
            continue
        # an assignment matters when its result is useful; a bare call (np.random.shuffle(x)) when it reads
        # a useful value it may change
        if isinstance(stmt, gast.Assign) and not _written(stmt) & useful:
            continue
        if isinstance(stmt, gast.Expr) and not set(received) & useful:
            continue
        name = dotted_name(function)
        raise unit.error(value, SrcadError, f"{name} gets a value that is being differentiated, but srcad does "
                                            f"not differentiate {name} (its result depends on that value)", hint)

