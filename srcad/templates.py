"""Gradient templates: registration, parsing and instantiation.

Contract:
- ``@adjoint(fn)`` registers a reverse-mode rule for the Python object ``fn``
  and ``@tangent(fn)`` a forward-mode rule.  A rule is a plain function whose
  first parameter is the primal output and whose other parameters are the
  primal inputs (positional, then the keyword arguments it accepts, with their
  defaults).  Its body is never run: it is parsed once and its statements are
  copied into generated code with the parameters replaced by the user's
  variables.
- Inside a body, ``d[v]`` is the derivative of ``v``.  In an adjoint,
  ``d[x] = e`` means "add ``e`` to the adjoint of ``x``" and ``d[x][i] = e``
  means "add ``e`` to the adjoint of ``x`` at index ``i``".  In a tangent,
  ``d[y] = e`` defines the tangent of the output; ``d[x]`` of an input with no
  derivative counts as zero.
- A keyword argument ``k=p`` inside a rule body is left out of the generated
  code when the call did not pass ``p`` (so ``p`` has the rule's default);
  a rule's defaults must therefore match the function's own.
- A rule's ``if`` may test constant arguments only (``if axis is None:``); it
  is decided when the rule is instantiated.
- ``nondifferentiable(fn)`` declares that ``fn``'s output carries no
  derivative (its derivative is zero or undefined everywhere it is used).
- ``not_differentiated(fn, hint=...)`` declares that ``fn``'s output does
  depend differentiably on its arguments but srcad has no rule for it: calls
  run as written, and a value being differentiated that flows into one (when
  the result is used) is reported, with ``hint`` saying what to write instead.
- ``registry_version()`` changes whenever a rule is registered, so caches can
  drop derivatives built with older rules.

Example::

    >>> import numpy as np
    >>> from srcad.templates import adjoint, tangent, d
    >>> @adjoint(np.tanh)
    ... def tanh_adjoint(y, x):
    ...     d[x] = d[y] * (1.0 - y * y)
"""
from __future__ import annotations

import builtins
import hashlib
import inspect
import textwrap
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import gast

from .errors import SrcadError
from . import syntax

REVERSE = "reverse"
FORWARD = "forward"


class DerivativeNotation:
    """The ``d`` in ``d[x]``.  It only has meaning inside a template body, which is never run."""

    def __getitem__(self, key):
        raise SrcadError("`d[...]` is template notation; it only has meaning inside an "
                         "@adjoint or @tangent rule, which srcad reads but never runs")

    __setitem__ = __getitem__

    def __repr__(self) -> str:
        return "srcad.d"


d = DerivativeNotation()


@dataclass
class Template:
    """A parsed rule: its body with parameter names still symbolic."""

    primal: Any
    rule: Callable
    mode: str
    body: List[Any]
    output: str
    parameters: inspect.Signature
    digest: str

    @property
    def where(self) -> str:
        code = self.rule.__code__
        return f"{code.co_filename}:{code.co_firstlineno}"


@dataclass
class Registry:
    """Every rule srcad knows, keyed by the primal function object."""

    rules: Dict[str, Dict[Any, Template]] = field(default_factory=lambda: {REVERSE: {}, FORWARD: {}})
    nondiff: Dict[Any, str] = field(default_factory=dict)
    refused: Dict[Any, str] = field(default_factory=dict)   # not_differentiated: the hint
    version: int = 0


REGISTRY = Registry()


def _key(fn):
    try:
        hash(fn)
        return fn
    except TypeError:
        return id(fn)


def _register(mode: str, primals):
    if not primals:
        raise SrcadError(f"@{'adjoint' if mode == REVERSE else 'tangent'}() needs the function it is a rule for")

    def decorate(rule: Callable) -> Callable:
        template = parse_template(rule, primals[0], mode)
        for primal in primals:
            REGISTRY.rules[mode][_key(primal)] = Template(**{**template.__dict__, "primal": primal})
            REGISTRY.nondiff.pop(_key(primal), None)
            REGISTRY.refused.pop(_key(primal), None)
        REGISTRY.version += 1
        return rule

    return decorate


def adjoint(*primals) -> Callable[[Callable], Callable]:
    """Register a reverse-mode rule for each of ``primals``.

    Example::

        @adjoint(np.sin)
        def sin_adjoint(y, x):
            d[x] = d[y] * np.cos(x)
    """
    return _register(REVERSE, primals)


def tangent(*primals) -> Callable[[Callable], Callable]:
    """Register a forward-mode rule for each of ``primals``.

    Example::

        @tangent(np.sin)
        def sin_tangent(y, x):
            d[y] = d[x] * np.cos(x)
    """
    return _register(FORWARD, primals)


def nondifferentiable(*primals, reason: str = "its output carries no derivative") -> None:
    """Declare that calls to ``primals`` produce values with no derivative.

    Example::

        nondifferentiable(np.argmax, np.floor)
    """
    for primal in primals:
        REGISTRY.nondiff[_key(primal)] = reason
        REGISTRY.refused.pop(_key(primal), None)
        for mode in (REVERSE, FORWARD):
            REGISTRY.rules[mode].pop(_key(primal), None)
    REGISTRY.version += 1


def not_differentiated(*primals, hint: str) -> None:
    """Declare that srcad does not differentiate ``primals``, although their outputs depend on their inputs.

    Calls to them run as written and srcad treats their outputs as constants,
    but a value being differentiated that flows into one whose result is used
    is an error at the user's line, ending with ``hint`` (what to write instead).

    Example::

        not_differentiated(np.random.normal, hint="write loc + scale * np.random.standard_normal(shape)")
    """
    nondifferentiable(*primals, reason="srcad does not differentiate it")
    for primal in primals:
        REGISTRY.refused[_key(primal)] = hint


def refusal(fn) -> Optional[str]:
    """The hint given to ``not_differentiated`` for ``fn``, or None."""
    try:
        return REGISTRY.refused.get(_key(fn))
    except TypeError:
        return None


def lookup(fn, mode: str) -> Optional[Template]:
    """The rule for ``fn`` in ``mode``, or None."""
    try:
        return REGISTRY.rules[mode].get(_key(fn))
    except TypeError:
        return None


def is_nondifferentiable(fn) -> bool:
    """Whether ``fn`` was declared non-differentiable."""
    try:
        return _key(fn) in REGISTRY.nondiff
    except TypeError:
        return False


def registry_version() -> int:
    """A number that changes whenever a rule is registered."""
    return REGISTRY.version


def parse_template(rule: Callable, primal, mode: str) -> Template:
    """Parse ``rule``'s body into a Template."""
    source = textwrap.dedent(inspect.getsource(rule))
    tree = gast.parse(source).body[0]
    signature = inspect.signature(rule)
    params = list(signature.parameters)
    if not params:
        raise SrcadError(f"the rule {rule.__qualname__} needs the primal output as its first parameter")
    body = [_NotationSpelling(rule.__globals__).visit(stmt) for stmt in tree.body
            if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant))]
    rest = signature.replace(parameters=list(signature.parameters.values())[1:])
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    return Template(primal, rule, mode, body, params[0], rest, digest)


class _NotationSpelling(gast.NodeTransformer):
    """``srcad.d[x]`` (or any alias of the notation object) is read as ``d[x]``."""

    def __init__(self, scope):
        self.scope = scope

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if (node.attr == "d" and isinstance(node.value, gast.Name)
                and getattr(self.scope.get(node.value.id), "d", None) is d):
            return gast.Name(id="d", ctx=node.ctx, annotation=None, type_comment=None)
        return node

    def visit_Name(self, node):
        if node.id != "d" and self.scope.get(node.id) is d:
            node.id = "d"
        return node


class Bindings:
    """Names the generated module binds to Python objects (its globals)."""

    def __init__(self, namer):
        self.namer = namer
        self.objects: Dict[str, Any] = {}

    def adopt(self, user_name: str, obj) -> None:
        """Bind a name the user's function itself reads (the user's spelling always wins)."""
        self.namer.reserve(user_name)
        self.objects[user_name] = obj

    def bind(self, preferred: str, obj) -> str:
        """The name under which ``obj`` is reachable, binding it if needed."""
        current = self.objects.get(preferred, _MISSING)
        if current is obj:
            return preferred
        if current is _MISSING and preferred not in self.namer.taken:
            self.namer.reserve(preferred)
            self.objects[preferred] = obj
            return preferred
        for bound, value in self.objects.items():
            if value is obj and bound.startswith(preferred):
                return bound
        fresh = self.namer.fresh(preferred)
        self.objects[fresh] = obj
        return fresh


_MISSING = object()


def instantiate(template: Template, output, args: List, keywords: List, namer, bindings: Bindings,
                describe: Callable[[str], str]) -> List:
    """Copy ``template``'s body with its parameters replaced by the call's operands.

    ``output`` and ``args`` are atom nodes; ``keywords`` are ``gast.keyword``
    nodes.  Returns statements in which ``d[...]`` subscripts remain, for the
    mode's transformer to resolve.  Raises SrcadError when the call passes an
    argument the rule does not declare; ``describe`` names the call in that
    message.
    """
    try:
        bound = template.parameters.bind(*args, **{kw.arg: kw.value for kw in keywords})
    except TypeError as exc:
        raise SrcadError(
            f"{describe(template.rule.__qualname__)}: the call's arguments do not match the rule "
            f"{template.rule.__qualname__} at {template.where} ({exc}). Pass only the arguments the "
            f"rule declares, or register a rule that takes them.") from None
    supplied = set(bound.arguments)
    bound.apply_defaults()
    defaulted = set(bound.arguments) - supplied
    replacements: Dict[str, Any] = {template.output: output}
    for param_name, value in bound.arguments.items():
        kind = template.parameters.parameters[param_name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            value = gast.Tuple(elts=list(value), ctx=gast.Load())
        replacements[param_name] = value if isinstance(value, gast.AST) else _literal(value)
    body = [syntax.clone(stmt) for stmt in template.body]
    local_names = set()
    for stmt in body:
        local_names |= {n for n in syntax.stored_names(stmt) if n not in replacements and n != "d"}
    renamed_locals = {local: namer.fresh(local) for local in sorted(local_names)}
    scope = {**vars(builtins), **template.rule.__globals__}
    transformer = _Substitute(replacements, renamed_locals, scope, bindings, defaulted)
    return _fold([transformer.visit(stmt) for stmt in body], template)


def _static_value(node):
    """The value of a test built from constants only, or raise ValueError."""
    import ast as python_ast
    expression = python_ast.Expression(gast.gast_to_ast(syntax.clone(node)))
    names = syntax.loaded_names(node)
    if names:
        raise ValueError(f"it reads {sorted(names)}")
    python_ast.fix_missing_locations(expression)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # e.g. `(1, 0) is None` from `axes is None`
        return eval(compile(expression, "<rule>", "eval"), {"__builtins__": {}})


def _fold(statements, template) -> List:
    """Resolve a rule's ``if`` statements on constant arguments and fold constant arithmetic."""
    result = []
    for stmt in statements:
        if isinstance(stmt, gast.If):
            try:
                taken = stmt.body if _static_value(stmt.test) else stmt.orelse
            except Exception as exc:
                raise SrcadError(f"the rule {template.rule.__qualname__} at {template.where} branches on a "
                                 f"value known only at run time ({exc}); a rule's `if` may only test "
                                 f"constant arguments such as `axis is None`") from None
            result += _fold(taken, template)
        else:
            result.append(_ConstantFolder().visit(stmt))
    return result


class _ConstantFolder(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.left, gast.Constant) and isinstance(node.right, gast.Constant):
            try:
                value = _static_value(node)
            except Exception:
                return node
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return syntax.constant(value)
        return node


def _literal(value):
    if isinstance(value, tuple):
        return gast.Tuple(elts=[_literal(v) for v in value], ctx=gast.Load())
    return syntax.constant(value)


class _Substitute(gast.NodeTransformer):
    def __init__(self, replacements, renamed_locals, scope, bindings, defaulted):
        self.replacements = replacements
        self.renamed_locals = renamed_locals
        self.scope = scope
        self.bindings = bindings
        self.defaulted = defaulted

    def visit_Call(self, node):
        # ``f(..., axis=axis)`` where the user left ``axis`` at its default: leave it out.
        node.keywords = [kw for kw in node.keywords
                         if not (isinstance(kw.value, gast.Name) and kw.value.id in self.defaulted)]
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.replacements and isinstance(node.ctx, gast.Load):
            return syntax.clone(self.replacements[node.id])
        if node.id in self.renamed_locals:
            node.id = self.renamed_locals[node.id]
            return node
        if node.id == "d" or not isinstance(node.ctx, gast.Load):
            return node
        if node.id in self.scope:
            node.id = self.bindings.bind(node.id, self.scope[node.id])
            return node
        raise SrcadError(f"a gradient rule reads the unknown name {node.id!r}")
