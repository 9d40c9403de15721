"""Shared machinery of the two mode transforms: rule lookup, instantiation, comments.

Contract: ``Differentiator`` turns one A-normal-form assignment into the
instantiated statements of its rule, in either mode, with ``d[...]`` left for
the caller to resolve.  Both ``reverse`` and ``forward`` use it, so a construct
gains a rule in one place and both modes see it.  The mode transforms are
symmetric by design: each has one method per construct (assignment of an
atom, of a tuple, of an operation through a rule) in the same order, and a
construct added to one must be added to the other in the same place.

Example: for ``y = sin_x * w`` in reverse mode, ``rule_statements`` returns
``d[sin_x] = unbroadcast(d[y] * w, sin_x)`` and ``d[w] = ...``.
"""
from __future__ import annotations

import operator
import sys
from typing import List, Optional

import gast
import numpy as np

from ..errors import MissingTemplateError, SrcadError
from ..frontend.naming import callee_name, dotted_name
from ..operators import BINARY, UNARY
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..templates import REVERSE, lookup, refused_arguments
from .instantiate import instantiate
from .calls import is_user_call, reverse_statements

_RULE_DECORATOR = {"reverse": "adjoint", "forward": "tangent"}


def rule_key(value):
    """The object whose rule differentiates operation ``value``."""
    if isinstance(value, gast.BinOp):
        return BINARY.get(type(value.op))
    if isinstance(value, gast.UnaryOp):
        return UNARY.get(type(value.op))
    if isinstance(value, gast.Subscript):
        return operator.getitem
    if isinstance(value, gast.Call):
        return annotation(value.func, "ref")
    return None


def rule_operands(value):
    """(positional operands, keyword operands) of operation ``value``, in rule parameter order."""
    if isinstance(value, gast.BinOp):
        return [value.left, value.right], []
    if isinstance(value, gast.UnaryOp):
        return [value.operand], []
    if isinstance(value, gast.Subscript):
        return [value.value, value.slice], []
    return list(value.args), list(value.keywords)


def describe_operation(value) -> str:
    """How an operation is named in messages: ``np.sin``, ``operator *``."""
    if isinstance(value, gast.Call):
        return dotted_name(value.func)
    if isinstance(value, gast.BinOp):
        return f"the operator {_SYMBOLS.get(type(value.op), type(value.op).__name__)}"
    if isinstance(value, gast.UnaryOp):
        return f"the unary operator {_SYMBOLS.get(type(value.op), type(value.op).__name__)}"
    return type(value).__name__


_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%", gast.BitAnd: "&", gast.BitOr: "|",
            gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>", gast.USub: "-", gast.UAdd: "+",
            gast.Invert: "~", gast.Not: "not"}


def importable_name(function) -> Optional[str]:
    """How a module can name ``function`` to register a rule for it: ``np.nextafter``, ``mymodule.Model.f``
    (None when no import path reaches the very object: a lambda, a local function, an instance's attribute).

    Example::

        >>> importable_name(operator.and_)
        'operator.and_'
    """
    name = getattr(function, "__name__", None)
    if name and getattr(np, name, None) is function:
        return f"np.{name}"
    target = getattr(function, "__func__", function)
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", None)
    if not module or not qualname or "<" in qualname or module not in sys.modules:
        return None
    found = sys.modules[module]
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return f"{'operator' if module == '_operator' else module}.{qualname}" if found is target else None


class Differentiator:
    """Instantiates rules for one unit in one mode."""

    def __init__(self, unit, mode: str):
        self.unit = unit
        self.mode = mode

    def rule_statements(self, stmt, output) -> List:
        """The rule for ``stmt``'s operation, instantiated with ``output`` as its result."""
        value = stmt.value
        key = rule_key(value)
        template = lookup(key, self.mode) if key is not None else None
        if template is None and is_user_call(value, self.mode) and self.mode == REVERSE:
            return reverse_statements(self.unit, stmt, self.unit.facts["activity"], output)
        if template is None:
            raise self._missing(stmt, value)
        args, keywords = rule_operands(value)
        label = describe_operation(value)
        self._refuse_arguments(stmt, template, refused_arguments(key), args, keywords, label)
        try:
            body = instantiate(template, output, args, keywords, self.unit.namer, self.unit.bindings,
                               lambda rule: label)
        except SrcadError as exc:  # a rule that does not fit the call: report at the user's line
            raise self.unit.error(stmt, SrcadError, str(exc)) from None
        shown = self.unit.options.get("rule_origins")
        if shown is not None:   # srcad show --rules: mark the code a rule made with where the rule is written
            shown.setdefault("unit", self.unit)
            marks = shown.setdefault("marks", [])
            mark = (len(marks), template.rule)   # in the order rules were instantiated
            marks.append(mark)
            for node in gast.walk(gast.Module(body=list(body), type_ignores=[])):
                syntax.annotate(node, "rule", mark)
        return body

    def _refuse_arguments(self, stmt, template, refused, args, keywords, label) -> None:
        """Raise when an argument the rule gives no derivative for (``not_differentiated_in``) carries one."""
        if not refused:
            return
        try:
            bound = template.parameters.bind(*args, **{kw.arg: kw.value for kw in keywords})
        except TypeError:
            return   # instantiate reports a call that does not fit the rule
        activity = self.unit.facts["activity"]
        for name, hint in refused.items():
            if activity.is_active(bound.arguments.get(name)):
                raise self.unit.error(stmt.value, SrcadError, f"{label} is not differentiated with respect to its "
                                      f"argument `{name}`, and here that argument carries a derivative", hint)

    def _missing(self, stmt, value):
        label = describe_operation(value)
        decorator = _RULE_DECORATOR[self.mode]
        key = self._registrable(value)
        short = callee_name(value.func) if isinstance(value, gast.Call) else getattr(rule_key(value), "__name__", "op")
        if key is not None and key != label:
            label = f"{label} ({key})" if not isinstance(value, gast.Call) else f"{label} (that is, {key})"
        operands = "y, a, b" if isinstance(value, gast.BinOp) else "y, x"
        first = "a" if isinstance(value, gast.BinOp) else "x"
        example = (f"d[{first}] = d[y] * ...  # the adjoint of each input" if self.mode == REVERSE
                   else f"d[y] = d[{first}] * ...  # the tangent of the output")
        where = value if getattr(value, "col_offset", None) else stmt
        if key is None:
            return self.unit.error(
                where, MissingTemplateError, f"{label} has no {decorator} rule, so srcad cannot differentiate this "
                f"call, and no import reaches the function it calls to register one",
                f"bind that function to a module-level name (`my_function = ...`), register a rule on it "
                f"(`@srcad.{decorator}(my_function)` above `def my_function_{decorator}(y, x): ...`), and call "
                f"`my_function` here")
        importing = f"    import {key.split('.')[0]}\n" if not isinstance(value, gast.Call) else ""
        return self.unit.error(
            where, MissingTemplateError,
            f"{label} has no {decorator} rule, so srcad cannot differentiate this call",
            f"register one:\n{importing}    @srcad.{decorator}({key})\n    def {short.strip('_')}_{decorator}({operands}):\n"
            f"        {example}\n"
            f"or mark it with srcad.nondifferentiable({key}) if no derivative flows through it")

    def _registrable(self, value) -> Optional[str]:
        """The Python expression naming what keys ``value``'s rule: ``operator.and_`` for ``&``, the callee as
        written when it is reached from the module (``np.nextafter``, ``H.g``), else its importable name."""
        if not isinstance(value, gast.Call):
            key = rule_key(value)
            return None if key is None else importable_name(key)
        written = dotted_name(value.func)
        root = value.func
        while isinstance(root, gast.Attribute):
            root = root.value
        local = {arg.id for arg in gast.walk(self.unit.tree.args) if isinstance(arg, gast.Name)} \
            | set(syntax.stored_names(self.unit.tree))
        if isinstance(root, gast.Name) and root.id not in local and annotation(root, "ref", None) is not None:
            return written
        return importable_name(annotation(value.func, "ref"))


def comment_for(unit, lineno) -> gast.Expr:
    """The ``# <source line>`` comment for statements from user line ``lineno``."""
    return syntax.comment(unit.parsed.line_text(lineno))


def with_comments(unit, groups) -> List:
    """Flatten ``[(lineno, statements), ...]``, starting each run of one line with its comment."""
    result, last = [], None
    for lineno, statements in groups:
        if not statements:
            continue
        if lineno != last:
            result.append(comment_for(unit, lineno))
            last = lineno
        result.extend(statements)
    return result


def is_derivative_ref(node) -> bool:
    """Whether ``node`` is template notation ``d[v]``."""
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "d")
