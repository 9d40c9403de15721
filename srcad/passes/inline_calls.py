"""Transformation: bring the small helper functions f calls from its own module into f.

Contract: every plain function that f calls by name and that ``callees(f)``
accepts is added to the top of f's body as a local ``def`` (after a
docstring), so the ``inline`` pass replaces each call by the helper's body.
The names f calls include those the ``methods`` pass bound to methods and
to functions held by objects (``forward(self, x)`` for ``self.forward(x)``);
each accepted helper's own calls through objects are resolved the same way,
a method's first parameter standing for the objects it is called on.
The derivative then runs the helper's primal once, in the forward sweep, and
saves what the backward sweep needs, instead of calling the helper's own
derivative, which would run its primal again (and, helper by helper, again).
A helper is accepted when all of these hold, else its calls stay calls:

- it is a plain ``def`` of f's module (same globals), not a closure, not
  decorated (but for ``@staticmethod``, ``@classmethod`` and ``@property``),
  with no rule, not marked non-differentiable, and not f;
- its parameters are plain (no ``*args``, keyword-only or positional-only
  ones), its defaults are numbers, the ones its ``def`` spells (not
  assigned to ``__defaults__`` since), and its body passes ``syntax_check``
  and defines no function, lambda or ``with`` block;
- it has at most ``MAX_STATEMENTS`` statements, and all accepted helpers
  together at most ``MAX_TOTAL``;
- it is not part of a cycle of calls;
- every use of its name, in f and in the other accepted helpers, is a call
  with arguments it declares, in a statement's own expression: not in a
  ``while`` test, a lambda, a comprehension, ``and``/``or`` or ``a if c else b``;
- it holds no ``try`` (itself or through the helpers it calls) where it is
  called inside a ``try`` body;
- its local names are not names f or another helper reads from outside, and
  the names it reads from outside are not local to f or another helper.

The helpers' nodes are renumbered after f's lines through
``ParsedFunction.include``: errors still point into the helper's file, and
comments quote its lines as ``helper: line``.  A helper whose file changed
after it was imported raises ``StaleSourceError`` (``parse_function``
checks the text against the code that runs).  Cache keys and the check
every call makes cover the helpers' code, defaults and sources through
``srcad.dependencies``.

Example: with ``def sigmoid(x): return 1.0 / (1.0 + np.exp(-x))`` and
``def f(w): return np.sum(sigmoid(w))``, f's body starts with a copy of the
``def sigmoid``, and ``inline`` turns the call into ``x = w`` and
``sigmoid_result = 1.0 / (1.0 + np.exp(-x))``.
"""
from __future__ import annotations

import inspect
import keyword as python_keywords
import re
import threading
import types
from typing import Dict, List, Optional, Set

import gast

from ..errors import SrcadError, StaleSourceError
from ..frontend import syntax
from ..frontend.source import ParsedFunction, parse_function
from ..templates import is_nondifferentiable, lookup
from . import Transformation, Unit

MAX_STATEMENTS = 40
MAX_TOTAL = 160
_CO_PLAIN_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE \
    | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
_NOT_INLINED_BODY = (gast.FunctionDef, gast.Lambda, gast.ClassDef, gast.With, gast.Global, gast.Nonlocal)
_CONDITIONAL = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.BoolOp, gast.IfExp)


class InlineCalls(Transformation):
    """Copy the accepted helper functions into f as local definitions."""

    name = "inline_calls"

    def transform(self, unit):
        helpers = callees(unit.parsed, unit)
        unit.facts[self.name] = list(helpers)
        if not helpers:
            return False
        definitions = []
        for name, parsed in helpers.items():
            definition = syntax.clone(parsed.tree)
            definition.name = name   # the name f calls it by (a method's is its own, made unique)
            if definition.body and _is_docstring(definition.body[0]):
                definition.body = definition.body[1:]
            offset = unit.parsed.include(parsed)
            for node in syntax.walk(definition):
                if getattr(node, "lineno", None) is not None:
                    node.lineno += offset
                    if getattr(node, "end_lineno", None) is not None:
                        node.end_lineno += offset
            definitions.append(definition)
        body = unit.tree.body
        start = 1 if body and _is_docstring(body[0]) else 0
        unit.tree.body = body[:start] + definitions + body[start:]
        return True


def callees(root: ParsedFunction, unit: Optional[Unit] = None) -> Dict[str, ParsedFunction]:
    """The helpers of ``root.func`` to inline, parsed, by the name f calls them, in a fixed order (first use
    first).

    With ``unit``, the names the ``methods`` pass bound (``unit.facts['methods']``) are candidates too, and
    each accepted helper's own calls through objects are resolved (``methods.resolve_calls``), its first
    parameter standing for the objects the method is called on.
    """
    _MEMO.trees = {}   # names per tree, for this call only (the trees do not change during it)
    try:
        return _callees(root, unit)
    finally:
        _MEMO.trees = {}


def _callees(root: ParsedFunction, unit: Optional[Unit]) -> Dict[str, ParsedFunction]:
    func = root.func
    closure_names = set(func.__code__.co_freevars)
    targets = unit.facts.get("methods", {}) if unit is not None else {}
    accepted: Dict[str, ParsedFunction] = {}
    rejected: Set[str] = set(closure_names)
    pending, total = [root.tree], 0
    while pending:
        tree = pending.pop(0)
        local = _local_names(tree)
        for name in _called_names(tree):
            if name in accepted or name in rejected or name in local:
                continue
            target = targets.get(name)
            parsed = _candidate(func, target.function if target else func.__globals__.get(name))
            if parsed is not None and unit is not None and not _resolve_helper(unit, parsed, target):
                parsed = None   # its calls through objects cannot be resolved here: its derivative is called
            size = len(list(syntax.iter_statements(parsed.tree.body))) if parsed else 0
            if parsed is None or size > MAX_STATEMENTS or total + size > MAX_TOTAL:
                rejected.add(name)
                continue
            accepted[name], total = parsed, total + size
            pending.append(parsed.tree)
    while True:   # drop helpers that break a condition, until none does
        kept = _reachable(root.tree, accepted)
        bad = _recursive(kept) | _badly_used(root.tree, kept) | _clashing(root.tree, kept)
        if not bad and kept.keys() == accepted.keys():
            return kept
        accepted = {name: parsed for name, parsed in kept.items() if name not in bad}


def _resolve_helper(unit: Unit, parsed: ParsedFunction, target) -> bool:
    """Resolve the helper's calls through objects (a method's first parameter stands for its objects); False
    when they cannot be (objects that differ in what a call runs): its own derivative, made per object, is
    called instead."""
    from .methods import resolve_calls   # late: methods reads the helpers' trees through this module
    receivers = {}
    params = parsed.tree.args.args
    if target is not None and target.receivers is not None and params:
        receivers[params[0].id] = target.receivers
    try:
        resolve_calls(unit, parsed, parsed.tree, receivers)
    except SrcadError:
        return False
    if receivers:   # `self` of Dense.__call__ read as `dense` where the call's object is no plain name
        preferred = re.sub(r"(?<!^)(?=[A-Z])", "_", type(target.receivers[0]).__name__).lower()
        if preferred.isidentifier() and not python_keywords.iskeyword(preferred) \
                and preferred not in syntax.names_in(parsed.tree) and preferred not in func_names(unit):
            syntax.rename(parsed.tree, {params[0].id: preferred})
    return True


def func_names(unit: Unit) -> Set[str]:
    """The names f's code uses (a helper's renamed parameter must not read as one of them)."""
    return syntax.names_in(unit.tree) | set(unit.parsed.func.__globals__)


def _candidate(func, value):
    """``value`` parsed, when it is a helper function that can be inlined into ``func``; else None."""
    home = getattr(func, "srcad_globals", func.__globals__)   # a checkpointed loop's step: its function's module
    if not isinstance(value, types.FunctionType) or value is func or value.__globals__ is not home:
        return None
    code = value.__code__
    if (value.__closure__ or code.co_flags & _CO_PLAIN_FLAGS or code.co_kwonlyargcount
            or code.co_posonlyargcount or hasattr(value, "__wrapped__")):
        return None
    if lookup(value, "reverse") or lookup(value, "forward") or is_nondifferentiable(value):
        return None
    try:
        parsed = parse_function(value)
    except StaleSourceError:   # its file changed: say so, rather than call it and fail there
        raise
    except SrcadError:
        return None
    if value.__name__ == "<lambda>" or not _plain_decorators(parsed.lines):
        return None
    if any(not syntax.is_number(default) for default in parsed.tree.args.defaults):
        return None
    if not _same_defaults(parsed.tree.args.defaults, value.__defaults__):
        return None   # __defaults__ assigned since the def: its derivative is called, with those values
    if any(isinstance(node, _NOT_INLINED_BODY) for stmt in parsed.tree.body for node in syntax.walk(stmt)):
        return None
    from .syntax_check import SyntaxCheck   # late: the check imports the hooks pass
    try:
        SyntaxCheck().analyse(Unit(parsed, "reverse", (), {}))
    except SrcadError:
        return None
    return parsed


_CLASS_DECORATORS = frozenset({"@staticmethod", "@classmethod", "@property"})


def _plain_decorators(lines: List[str]) -> bool:
    """Whether the def has no decorators but those a class applies (the function itself stays plain)."""
    for line in lines:
        text = line.strip()
        if not text.startswith("@"):
            return True
        if text not in _CLASS_DECORATORS:
            return False
    return True


def _same_defaults(written, defaults) -> bool:
    """Whether the number literals of a def's defaults are the values the function holds."""
    defaults = defaults or ()
    return len(written) == len(defaults) and all(
        type(_number(node)) is type(value) and repr(_number(node)) == repr(value)
        for node, value in zip(written, defaults))


_NOT_A_NUMBER = object()


def _number(node):
    """The value of a number literal (``2.0``, ``-1``), else ``_NOT_A_NUMBER``."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        value = _number(node.operand)
        return value if value is _NOT_A_NUMBER else -value if isinstance(node.op, gast.USub) else +value
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, complex)):
        return node.value
    return _NOT_A_NUMBER


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and isinstance(stmt.value.value, str)


def _params(tree) -> List[str]:
    return [arg.id for arg in tree.args.args]


_MEMO = threading.local()


def _per_tree(compute):
    """``compute(tree)``, remembered per tree during one ``callees`` call."""
    def remembered(tree):
        memo = getattr(_MEMO, "trees", None)
        if memo is None:
            return compute(tree)
        key = (compute.__name__, id(tree))
        if key not in memo:
            memo[key] = (tree, compute(tree))
        return memo[key][1]
    return remembered


@_per_tree
def _local_names(tree) -> Set[str]:
    names = set(_params(tree)) | syntax.names_in(gast.Module(body=tree.body, type_ignores=[]), (gast.Store, gast.Param))
    return names | {node.name for stmt in tree.body for node in syntax.walk(stmt) if isinstance(node, gast.FunctionDef)}


@_per_tree
def _free_names(tree) -> Set[str]:
    return syntax.names_in(gast.Module(body=tree.body, type_ignores=[]), gast.Load) - _local_names(tree)


@_per_tree
def _called_names(tree) -> List[str]:
    """Names called as ``name(...)`` in ``tree``'s body, in order of first appearance."""
    found = []
    for stmt in tree.body:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id not in found:
                found.append(node.func.id)
    return found


def _reachable(root, accepted) -> Dict[str, ParsedFunction]:
    order, pending = [], [root]
    while pending:
        for name in _called_names(pending.pop(0)):
            if name in accepted and name not in order:
                order.append(name)
                pending.append(accepted[name].tree)
    return {name: accepted[name] for name in order}


def _recursive(accepted) -> Set[str]:
    """Helpers that can reach themselves through other accepted helpers."""
    calls = {name: [c for c in _called_names(p.tree) if c in accepted] for name, p in accepted.items()}
    found = set()
    for start in accepted:
        stack, seen = list(calls[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                found.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(calls[name])
    return found


def _badly_used(root, accepted) -> Set[str]:
    """Helpers used other than by a plain call they can take, in a place the call can be inlined from (a helper
    that holds a ``try``, itself or through the helpers it calls, is not inlined into a ``try`` body: srcad
    differentiates no ``try`` inside another; its derivative is called instead)."""
    bad = set()
    trying = _holding_try(accepted)
    for tree in [root] + [p.tree for p in accepted.values()]:
        local = _local_names(tree) if tree is not root else _local_names(root)
        for stmt in tree.body:
            _check_uses(stmt, _Uses(accepted, local, bad, trying), conditional=False, in_try=False)
    return bad


def _holding_try(accepted) -> Set[str]:
    """The helpers whose inlined body would hold a ``try``."""
    holding = {name for name, parsed in accepted.items()
               if any(isinstance(node, gast.Try) for node in syntax.walk(parsed.tree))}
    grown = True
    while grown:
        before = len(holding)
        holding |= {name for name, parsed in accepted.items() if set(_called_names(parsed.tree)) & holding}
        grown = len(holding) > before
    return holding


class _Uses:
    """What ``_check_uses`` reads and fills: the accepted helpers, the local names, the bad helpers found, and
    the helpers holding a ``try``."""

    def __init__(self, accepted, local, bad, trying):
        self.accepted, self.local, self.bad, self.trying = accepted, local, bad, trying


def _check_uses(node, uses: _Uses, conditional, in_try):
    if isinstance(node, gast.While):
        _check_uses(node.test, uses, conditional=True, in_try=in_try)
        for child in node.body + node.orelse:
            _check_uses(child, uses, conditional, in_try)
        return
    if isinstance(node, gast.Try):
        for child in node.body:
            _check_uses(child, uses, conditional, in_try=True)
        for child in node.handlers + node.orelse + node.finalbody:
            _check_uses(child, uses, conditional, in_try)
        return
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in uses.accepted \
            and node.func.id not in uses.local:
        name = node.func.id
        if conditional or not _call_fits(node, uses.accepted[name].tree) or in_try and name in uses.trying:
            uses.bad.add(name)
        for child in node.args + [kw.value for kw in node.keywords]:
            _check_uses(child, uses, conditional, in_try)
        return
    if isinstance(node, gast.Name) and node.id in uses.accepted and node.id not in uses.local:
        uses.bad.add(node.id)   # used as a value, not called
        return
    conditional = conditional or isinstance(node, _CONDITIONAL)
    for child in gast.iter_child_nodes(node):
        _check_uses(child, uses, conditional, in_try)


def _call_fits(call, tree) -> bool:
    params = _params(tree)
    if len(call.args) > len(params) or any(isinstance(arg, gast.Starred) for arg in call.args):
        return False
    bound = set(params[:len(call.args)])
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params or keyword.arg in bound:
            return False
        bound.add(keyword.arg)
    required = params[:len(params) - len(tree.args.defaults)]
    return all(param in bound for param in required)


def _clashing(root, accepted) -> Set[str]:
    """Helpers whose local names some inlined code reads from outside, or that read a name local elsewhere."""
    trees = {name: parsed.tree for name, parsed in accepted.items()}
    local = {name: _local_names(tree) for name, tree in trees.items()}
    free = {name: _free_names(tree) - set(accepted) for name, tree in trees.items()}
    root_local, root_free = _local_names(root), _free_names(root) - set(accepted)
    bad = set()
    for name in trees:
        others_local = root_local.union(*(local[o] for o in trees if o != name))
        others_free = root_free.union(*(free[o] for o in trees if o != name))
        if local[name] & others_free or free[name] & others_local or name in root_local:
            bad.add(name)
    return bad
