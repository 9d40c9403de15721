"""The discrete choices a fuzzed program makes, and the kinks its primitives sit on, at one point.

Contract:
- ``instrumented(source)`` is a copy of a program's module whose every
  comparison, integer cast (``astype`` to an integer type, ``np.array(...,
  dtype=int)``, ``int(...)``; ``astype(complex)`` is no choice), builtin
  ``max``/``min`` of two or more arguments (which one wins), step function (``np.floor``, ``np.floor_divide``, ``//``,
  ``%``, ``np.round``...), argument of ``abs``/``np.abs``/``np.sign``, pair of
  ``np.minimum``/``np.maximum``/``np.fmin``/``np.fmax`` and argument of
  ``np.max``/``np.min``/``np.amax``/``np.amin`` passes through a recorder.
  The copy computes exactly what the original computes.
- ``choices(f, arguments)`` runs the copy's ``f`` and returns (the discrete
  values it chose, in order; whether a primitive sat on a kink: ``abs`` of an
  exact 0, a tie in ``minimum``/``maximum`` or among the arguments of a
  builtin ``max``/``min``, a repeated maximum or minimum).
  ``None`` when the copy cannot run (its first error stays the original's).
- The checker uses them to tell a point where the program's derivative is not
  defined by its branches alone (an integer cast or an ``x if c else y`` that
  flips exactly there, ``min(|s|, s)`` at ``s = 0``) from a wrong derivative:
  automatic differentiation gives the derivative of the choices made at the
  point, which need not be the limit finite differences see.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

_ZERO_KINKS = {"abs", "absolute", "sign", "fabs"}
_STEPS = {"floor", "ceil", "floor_divide", "round", "rint", "trunc", "fix", "mod", "remainder", "fmod"}
_TIES = {"minimum", "maximum", "fmin", "fmax"}
_EXTREMES = {"max", "min", "amax", "amin"}


class _Recorder:
    """Collects one run's choices; the instrumented module calls it by the name ``_fuzz_record``."""

    def __init__(self):
        self.chosen: List[bytes] = []
        self.kink = False

    def choice(self, value):
        array = np.asarray(value)
        self.chosen.append(repr(array.shape).encode() + array.tobytes())
        return value

    def zero(self, value):
        self.kink |= bool(np.any(np.asarray(value) == 0))
        return value

    def tie(self, first, second):
        self.kink |= bool(np.any(np.asarray(first) == np.asarray(second)))
        return first, second

    def winner(self, largest: bool, *values):
        """The arguments of a builtin ``max``/``min``: which one wins (the first of equal ones, as Python's)
        is a choice, and a tie with the winner a kink."""
        chosen = values.index((max if largest else min)(values))   # the first of equal ones
        self.chosen.append(repr(chosen).encode())
        self.kink |= any(k != chosen and values[k] == values[chosen] for k in range(len(values)))
        return values

    def extreme(self, value):
        array = np.asarray(value)
        if array.size > 1:
            self.kink |= bool(np.sum(array == np.max(array)) > 1 or np.sum(array == np.min(array)) > 1)
        return value


def _name_of(func: ast.AST) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _complex_cast(node: ast.Call) -> bool:
    """``v.astype(complex)`` (or ``np.complex128``): a change of type, not a choice."""
    return bool(node.args) and "complex" in _name_of(node.args[0])


def _recorded(method: str, *args: ast.AST) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=ast.Name(id="_fuzz_record", ctx=ast.Load()), attr=method,
                                       ctx=ast.Load()), args=list(args), keywords=[])


class _Instrument(ast.NodeTransformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        return _recorded("choice", node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return _recorded("choice", node) if isinstance(node.op, (ast.FloorDiv, ast.Mod)) else node

    def visit_Call(self, node):
        self.generic_visit(node)
        name = _name_of(node.func)
        integer = ((name == "astype" and not _complex_cast(node)) or (name == "int" and isinstance(node.func, ast.Name))
                   or any(k.arg == "dtype" and _name_of(k.value) in ("int", "int64") for k in node.keywords))
        if integer or name in _STEPS:
            return _recorded("choice", node)
        if name in _ZERO_KINKS and node.args:
            node.args[0] = _recorded("zero", node.args[0])
        elif name in _TIES and len(node.args) == 2 and not node.keywords:
            node.args = [ast.Starred(value=_recorded("tie", *node.args), ctx=ast.Load())]
        elif name in ("max", "min") and isinstance(node.func, ast.Name) and len(node.args) >= 2 and not any(
                isinstance(a, ast.Starred) for a in node.args) and not node.keywords:
            node.args = [ast.Starred(value=_recorded("winner", ast.Constant(name == "max"), *node.args),
                                     ctx=ast.Load())]
        elif name in _EXTREMES and isinstance(node.func, ast.Attribute) and node.args:
            node.args[0] = _recorded("extreme", node.args[0])
        return node


def instrumented(source: str, build: Callable[[str], Dict[str, object]]) -> Optional[Dict[str, object]]:
    """The module of ``source`` with its choices recorded (``build`` executes a source as a module)."""
    try:
        tree = ast.fix_missing_locations(_Instrument().visit(ast.parse(source)))
        namespace = build(ast.unparse(tree))
    except Exception:   # noqa: BLE001 -- no recording: the checker falls back to lines alone
        return None
    namespace["_fuzz_record"] = _Recorder()
    return namespace


def choices(module: Optional[Dict[str, object]], arguments) -> Optional[Tuple[Tuple[bytes, ...], bool]]:
    """(the discrete values ``module``'s f chose at ``arguments``, whether a primitive sat on a kink)."""
    if module is None:
        return None
    recorder = module["_fuzz_record"] = _Recorder()
    try:
        with np.errstate(all="ignore"):
            module["f"](*arguments)
    except Exception:   # noqa: BLE001
        return None
    return tuple(recorder.chosen), recorder.kink
