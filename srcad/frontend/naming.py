"""Readable, unique, deterministic names for generated code.

Contract: a ``Namer`` hands out identifiers that never collide with a name
the user's function uses, nor with one it already handed out.  Names are
derived from what they hold (``sin_x`` for ``np.sin(x)``, ``dx`` for the
derivative of ``x``) and made unique with a numeric suffix, so the same input
always gives the same names.  ``Bindings`` are the generated module's
globals: each name bound to the Python object it stands for (the user's own
names first, then rule helpers under fresh names when those clash).

Example::

    >>> namer = Namer({"x", "dx"})
    >>> namer.fresh("dx")
    'dx_2'
    >>> namer.derivative("y")
    'dy'
    >>> namer.derivative("sin_x")
    'd_sin_x'
"""
from __future__ import annotations

import keyword
import re
from typing import Any, Dict, Iterable, Optional

import gast

from .syntax import annotation

MAX_NAME = 24

_OPERATOR_WORDS = {
    gast.Add: ("plus", "total"), gast.Sub: ("minus", "diff"), gast.Mult: ("times", "prod"),
    gast.Div: ("over", "ratio"), gast.Pow: ("pow", "power"), gast.MatMult: ("at", "matprod"),
    gast.FloorDiv: ("floordiv", "quot"), gast.Mod: ("mod", "rem"),
}
_COMPARE_WORDS = {gast.Gt: "gt", gast.Lt: "lt", gast.GtE: "ge", gast.LtE: "le", gast.Eq: "eq",
                  gast.NotEq: "ne"}
_UNARY_WORDS = {gast.USub: "neg", gast.UAdd: "pos", gast.Not: "not", gast.Invert: "inv"}


class Namer:
    """Allocates fresh identifiers, avoiding every name in ``taken``."""

    def __init__(self, taken: Iterable[str] = ()):
        self.taken = set(taken)
        self._derivative_of: Dict[str, str] = {}

    def reserve(self, name: str) -> None:
        """Mark ``name`` as used."""
        self.taken.add(name)

    def fresh(self, preferred: str) -> str:
        """A new identifier close to ``preferred``."""
        base = _sanitize(preferred)
        if base not in self.taken:
            self.taken.add(base)
            return base
        stem = re.sub(r"_\d+$", "", base)
        index = 2
        while f"{stem}_{index}" in self.taken:
            index += 1
        name = f"{stem}_{index}"
        self.taken.add(name)
        return name

    def derivative(self, name: str) -> str:
        """The name of the derivative of variable ``name`` (``dx`` for ``x``), stable per name."""
        if name not in self._derivative_of:
            # dx for x, but d_x_times_y for x_times_y: never reads as "dx times y"
            self._derivative_of[name] = self.fresh(("d_" if "_" in name else "d") + name)
        return self._derivative_of[name]

    def derivatives(self) -> Dict[str, str]:
        """Every derivative name handed out, mapped to the variable it is the derivative of."""
        return {derivative: name for name, derivative in self._derivative_of.items()}

    def known_derivative(self, name: str) -> Optional[str]:
        """The derivative name already given to ``name``, if any."""
        return self._derivative_of.get(name)


def _sanitize(name: str) -> str:
    name = re.sub(r"\W", "_", name).strip("_") or "t"
    if name[0].isdigit():
        name = "t" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


DESCRIBED = "described"   # annotation: the name of what a folded literal replaced (``sqrt_8``)


def describe(node) -> str:
    """A short name for the value of expression ``node``, used to name its temporary."""
    text = _describe(node, depth=0)
    return text if text and len(text) <= MAX_NAME else _short(node)


def _describe(node, depth: int) -> str:
    if depth > 2:
        return ""
    described = annotation(node, DESCRIBED)
    if described:   # a literal folded from an expression is named after it
        return described
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None:
            return str(value)
        if isinstance(value, int) and 0 <= value < 1000:
            return str(value)
        if isinstance(value, float) and value.is_integer() and 0 <= value < 1000:
            return str(int(value))
        return ""
    if isinstance(node, gast.Attribute):
        inner = _describe(node.value, depth + 1)
        return f"{inner}_{node.attr}" if inner else node.attr
    if isinstance(node, gast.Call):
        func = callee_name(node.func)
        parts = [_describe(arg, depth + 1) for arg in node.args]
        if parts and all(parts):
            return "_".join([func] + parts)
        return func
    if isinstance(node, gast.BinOp):
        word = _OPERATOR_WORDS.get(type(node.op), ("op", "op"))[0]
        left, right = _describe(node.left, depth + 1), _describe(node.right, depth + 1)
        return f"{left}_{word}_{right}" if left and right else ""
    if isinstance(node, gast.UnaryOp):
        inner = _describe(node.operand, depth + 1)
        word = _UNARY_WORDS.get(type(node.op), "op")
        return f"{word}_{inner}" if inner else ""
    if isinstance(node, gast.Compare) and len(node.ops) == 1:
        left, right = _describe(node.left, depth + 1), _describe(node.comparators[0], depth + 1)
        word = _COMPARE_WORDS.get(type(node.ops[0]))
        return f"{left}_{word}_{right}" if left and right and word else ""
    if isinstance(node, gast.Subscript):
        base = _describe(node.value, depth + 1)
        index = _describe(node.slice, depth + 1)
        if base and index:
            return f"{base}_{index}"
        return f"{base}_part" if base else ""
    return ""


def _short(node) -> str:
    if isinstance(node, gast.Call):
        return callee_name(node.func)
    if isinstance(node, gast.BinOp):
        return _OPERATOR_WORDS.get(type(node.op), ("op", "value"))[1]
    if isinstance(node, gast.UnaryOp):
        return _UNARY_WORDS.get(type(node.op), "value")
    if isinstance(node, gast.Subscript):
        base = _describe(node.value, 2)
        return f"{base}_part" if base and len(base) < MAX_NAME - 5 else "part"
    return "t"


def dotted_name(node) -> str:
    """An attribute chain as written: ``np.linalg.norm``; another expression is named by ``callee_name``."""
    if isinstance(node, gast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return getattr(node, "id", None) or callee_name(node)


def callee_name(func_node) -> str:
    """The last dotted component of a called expression: ``sum`` for ``np.sum``."""
    if isinstance(func_node, gast.Attribute):
        return func_node.attr
    if isinstance(func_node, gast.Name):
        return func_node.id
    return "call"


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
