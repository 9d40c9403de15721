"""Gradient templates: the registry of rules, and parsing them.

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
  is decided when the rule is instantiated.  ``literal(y)`` in a test asks
  whether the call passed ``y`` as a number literal (``x ** 2``), so a rule
  can keep the plain formula for literal arguments and guard the general case
  (``if literal(y):`` then, inside it, ``if y == 0:``).  ``given(p)`` asks
  whether the call passed ``p`` at all, so a rule can keep the plain formula
  when an optional argument (``dtype``) was left out.
- ``nondifferentiable(fn)`` declares that ``fn``'s output carries no
  derivative (its derivative is zero or undefined everywhere it is used).
- ``not_differentiated(fn, hint=...)`` declares that ``fn``'s output does
  depend differentiably on its arguments but srcad has no rule for it: calls
  run as written, and a value being differentiated that flows into one (when
  the result is used) is reported, with ``hint`` saying what to write instead.
- ``not_differentiated_in(fn, "v", hint=...)`` declares that ``fn``'s rules
  leave out the derivative with respect to the rule parameters named (the
  continuous order ``v`` of a Bessel function): a call whose argument there
  carries a derivative is reported at its line instead of getting a zero.
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

import hashlib
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import gast

from .errors import SrcadError

REVERSE = "reverse"
_BUILT_IN_RULES = ("grad_templates.", "srcad.")   # modules of srcad's own rules, parsed lazily
FORWARD = "forward"


class DerivativeNotation:
    """The ``d`` in ``d[x]``.  It only has meaning inside a template body, which is never run."""

    def __getitem__(self, key: Any) -> Any:
        raise SrcadError("`d[...]` is template notation; it only has meaning inside an "
                         "@adjoint or @tangent rule, which srcad reads but never runs")

    def __setitem__(self, key: Any, value: Any) -> None:
        self.__getitem__(key)

    def __repr__(self) -> str:
        return "srcad.d"


d = DerivativeNotation()


def literal(value) -> bool:
    """In a rule's ``if`` test: whether the call passed ``value`` as a number literal.

    Like ``d``, it only has meaning inside a rule: srcad decides it when it
    instantiates the rule.
    """
    raise SrcadError("`literal(...)` is template notation; it only has meaning in the `if` test of an "
                     "@adjoint or @tangent rule, which srcad reads but never runs")


def given(value) -> bool:
    """In a rule's ``if`` test: whether the call passed ``value`` (not left at the rule's default).

    Like ``d``, it only has meaning inside a rule: srcad decides it when it
    instantiates the rule.
    """
    raise SrcadError("`given(...)` is template notation; it only has meaning in the `if` test of an "
                     "@adjoint or @tangent rule, which srcad reads but never runs")


class Template:
    """A rule: its body with parameter names still symbolic, parsed the first time it is read.

    ``body``, ``output`` (the primal output's name) and ``parameters`` come from
    the rule's source; ``digest`` names the rule's code (bytecode, constants
    and names), so a cache key changes whenever the rule does.
    """

    def __init__(self, primal: Any, rule: Callable, mode: str, parsed: Optional["_ParsedRule"] = None):
        self.primal, self.rule, self.mode = primal, rule, mode
        self._parsed = parsed if parsed is not None else _ParsedRule(rule)

    def for_primal(self, primal: Any) -> "Template":
        """The same rule registered for another primal (sharing its parse)."""
        return Template(primal, self.rule, self.mode, self._parsed)

    @property
    def body(self) -> List[Any]:
        return self._parsed.read().body

    @property
    def output(self) -> str:
        return self._parsed.read().output

    @property
    def parameters(self) -> inspect.Signature:
        return self._parsed.read().parameters

    @property
    def digest(self) -> str:
        return self._parsed.digest

    @property
    def where(self) -> str:
        code = self.rule.__code__
        return f"{code.co_filename}:{code.co_firstlineno}"


class _ParsedRule:
    """A rule function's parse, done once, on first use (parsing every built-in rule at import
    would make ``import srcad`` slow); ``digest`` needs no parse."""

    def __init__(self, rule: Callable):
        self.rule = rule
        self.digest = _code_digest(rule.__code__, (rule.__defaults__, rule.__kwdefaults__))
        self.body: List[Any] = []
        self.output = ""
        self.parameters = inspect.Signature()
        self._done = False

    def read(self) -> "_ParsedRule":
        if not self._done:
            rule = self.rule
            tree = gast.parse(textwrap.dedent(inspect.getsource(rule))).body[0]
            signature = inspect.signature(rule)
            params = list(signature.parameters)
            if not params:
                raise SrcadError(f"the rule {rule.__qualname__} needs the primal output as its first parameter")
            self.body = [_NotationSpelling(rule.__globals__).visit(stmt) for stmt in tree.body
                         if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant))]
            self.output = params[0]
            self.parameters = signature.replace(parameters=list(signature.parameters.values())[1:])
            self._done = True
        return self


def _code_digest(code, defaults: Any) -> str:
    """A digest of a code object's bytecode, constants (nested code too), names and flags, and of
    the function's ``defaults`` (a rule's defaults decide which keyword arguments it leaves out)."""
    digest = hashlib.sha256(repr(defaults).encode())

    def feed(code_object) -> None:
        digest.update(code_object.co_code)
        digest.update(repr((code_object.co_names, code_object.co_varnames, code_object.co_flags,
                            code_object.co_qualname if hasattr(code_object, "co_qualname")
                            else code_object.co_name)).encode())
        for constant in code_object.co_consts:
            if hasattr(constant, "co_code"):
                feed(constant)
            else:
                digest.update(repr(constant).encode())

    feed(code)
    return digest.hexdigest()[:16]


@dataclass
class Registry:
    """Every rule srcad knows, keyed by the primal function object."""

    rules: Dict[str, Dict[Any, Template]] = field(default_factory=lambda: {REVERSE: {}, FORWARD: {}})
    nondiff: Dict[Any, str] = field(default_factory=dict)
    refused: Dict[Any, str] = field(default_factory=dict)   # not_differentiated: the hint
    refused_arguments: Dict[Any, Dict[str, str]] = field(default_factory=dict)   # not_differentiated_in
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
        template = Template(primals[0], rule, mode)
        if not (rule.__module__ or "").startswith(_BUILT_IN_RULES):   # a user's rule: its mistakes show now
            template.body
        for primal in primals:
            REGISTRY.rules[mode][_key(primal)] = template.for_primal(primal)
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


def not_differentiated_in(*primals, arguments: Tuple[str, ...], hint: str) -> None:
    """Declare that the rules of ``primals`` give no derivative with respect to the rule parameters ``arguments``.

    Example::

        not_differentiated_in(scipy.special.jv, arguments=("v",), hint="pass the order as a constant")
    """
    for primal in primals:
        REGISTRY.refused_arguments.setdefault(_key(primal), {}).update({name: hint for name in arguments})
    REGISTRY.version += 1


def refused_arguments(fn) -> Dict[str, str]:
    """The rule parameters ``not_differentiated_in`` declared for ``fn``, with their hints."""
    try:
        return REGISTRY.refused_arguments.get(_key(fn), {})
    except TypeError:
        return {}


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
    """``rule``'s body parsed into a Template (at once, so a mistake in it shows here)."""
    template = Template(primal, rule, mode)
    template.body
    return template


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
