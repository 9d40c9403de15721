"""Instantiating a rule: a template's body copied with the call's operands in place of its parameters.

Contract: ``instantiate(template, output, args, keywords, namer, bindings,
describe)`` returns the template's statements with its parameters replaced
by the call's atoms, its locals renamed apart, the names it reads bound in
the generated module, keyword arguments left at their defaults dropped, and
its ``if`` statements on constant arguments decided.  ``d[...]`` subscripts
remain for the mode's transformer (``derivatives``) to resolve.  It never
changes the template.

Example: instantiating ``d[x] = d[y] * (1.0 - y * y)`` (the ``tanh``
adjoint) for ``h = np.tanh(a)`` gives ``d[a] = d[h] * (1.0 - h * h)``.
"""
from __future__ import annotations

import builtins
import inspect
import warnings
from typing import Any, Callable, Dict, List

import gast

from ..errors import SrcadError
from ..frontend import syntax
from ..frontend.naming import Bindings
from ..templates import Template, given, literal


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

    def visit_If(self, node):
        node.test = _Literals(self.replacements, self.scope, self.defaulted).visit(node.test)
        return self.generic_visit(node)

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


class _Literals(gast.NodeTransformer):
    """``literal(p)`` and ``given(p)`` in a rule's ``if`` test become ``True`` or ``False``: whether ``p`` is
    bound to a number, and whether the call passed ``p`` at all."""

    def __init__(self, replacements, scope, defaulted):
        self.replacements = replacements
        self.scope = scope
        self.defaulted = defaulted

    def visit_Call(self, node):
        self.generic_visit(node)
        notation = self.scope.get(node.func.id) if isinstance(node.func, gast.Name) else None
        if notation is not literal and notation is not given:
            return node
        if len(node.args) != 1 or not isinstance(node.args[0], gast.Name) or node.keywords:
            raise SrcadError(f"`{node.func.id}(...)` in a rule takes one parameter of the rule, "
                             f"e.g. `{node.func.id}(y)`")
        parameter = node.args[0].id
        if notation is given:
            return syntax.constant(parameter in self.replacements and parameter not in self.defaulted)
        bound = self.replacements.get(parameter)
        return syntax.constant(bound is not None and syntax.is_number(bound))
