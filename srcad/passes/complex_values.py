"""Analysis: refuse complex numbers that meet a differentiated value, before any derivative is built.

Contract: srcad differentiates real numbers only (for now).  On the
normalized tree with ``activity`` facts, this analysis finds the values that
may be complex:
- sources: a complex literal (``1j``), a complex type or dtype named in a
  call (``complex(a, b)``, ``np.complex128(x)``, ``.astype(complex)``,
  ``dtype=complex``, ``dtype="complex64"``), a function of ``cmath``,
  ``np.fft`` (but ``fftshift``, ``ifftshift``, ``fftfreq`` and ``rfftfreq``,
  which keep a real array real) or ``np.emath``, and a global or closure value that is complex
  (a complex number or a complex array);
- names assigned (or stored into, or appended to) from an expression with
  a source or a name that may be complex, except through functions whose
  result is real (``np.abs``, ``abs``, ``np.real``, ``np.imag``, ``np.angle``,
  ``.real``, ``.imag``);
and raises ``ComplexError`` at the first statement that writes an active
name (one that carries a derivative) from such an expression, naming the
complex value and the line it came from.  It changes nothing and stores the
names that may be complex.  What it cannot see (a complex attribute of an
object, a callee that returns a complex number, a negative float raised to a
fractional power) the derivative refuses when it runs: ``Derivative`` checks
its arguments and results (``srcad/arguments.py``).

Example: ``def f(x): return np.sum(x * np.exp(1j * x))`` fails at its line
with "`1j` makes a complex number, and here it meets a value being
differentiated; ...".
"""
from __future__ import annotations

import numbers

import gast
import numpy as np

from ..errors import COMPLEX_WHY, ComplexError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..analysis.blocks import is_append
from ..templates import lookup
from . import Analysis

_REAL_RESULTS = (np.abs, np.absolute, abs, np.real, np.imag, np.angle, np.isnan, np.isfinite, np.isinf)
_COMPLEX_MODULES = ("cmath", "numpy.fft", "numpy.lib.scimath", "numpy.lib._scimath_impl")
_REAL_IN_REAL_OUT = ("fftshift", "ifftshift", "fftfreq", "rfftfreq")   # of numpy.fft: they move or count
_DTYPE_TAKERS = (np.dtype, np.asarray, np.array, np.asanyarray)   # a string argument is a dtype
_MISSING = object()
HINT = ("keep the differentiated computation real: write e.g. np.exp(1j * t) as its real and imaginary "
        "parts, np.cos(t) and np.sin(t), each a float array, and combine them with real arithmetic")


def is_complex_value(value) -> bool:
    """A complex number, a complex array, or a complex type or dtype (``complex``, ``np.complex64``)."""
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c"
    if isinstance(value, type):
        return issubclass(value, (complex, np.complexfloating))
    if isinstance(value, np.dtype):
        return value.kind == "c"
    return (getattr(value, "__module__", None) in _COMPLEX_MODULES and callable(value)
            and getattr(value, "__name__", None) not in _REAL_IN_REAL_OUT)


def _is_complex_dtype_name(text) -> bool:
    try:
        return isinstance(text, str) and np.dtype(text).kind == "c"
    except TypeError:
        return False


def complex_sources(value):
    """The nodes of expression ``value`` that make a complex number by themselves."""
    found = []
    for node in syntax.walk(value):
        if isinstance(node, gast.Constant) and isinstance(node.value, numbers.Complex) \
                and not isinstance(node.value, numbers.Real):
            found.append(node)
        elif isinstance(node, (gast.Name, gast.Attribute)):
            ref = annotation(node, "ref", _MISSING)
            if ref is not _MISSING and is_complex_value(ref):
                found.append(node)
        elif isinstance(node, gast.Call):
            found += [kw.value for kw in node.keywords if kw.arg == "dtype" and isinstance(kw.value, gast.Constant)
                      and _is_complex_dtype_name(kw.value.value)]
            if any(annotation(node.func, "ref", None) is taker for taker in _DTYPE_TAKERS):
                found += [arg for arg in node.args if isinstance(arg, gast.Constant)
                          and _is_complex_dtype_name(arg.value)]
    return found


def _real_result(value) -> bool:
    if isinstance(value, gast.Attribute) and value.attr in ("real", "imag"):
        return True
    return isinstance(value, gast.Call) and any(annotation(value.func, "ref", None) is f for f in _REAL_RESULTS)


def _writes(body):
    """(statement, the name it writes, the expression it writes from) for assignments, stores, appends."""
    for stmt in syntax.iter_statements(body):
        if isinstance(stmt, gast.Assign):
            target = stmt.targets[0]
            while isinstance(target, gast.Subscript):
                target = target.value
            if isinstance(target, gast.Name):
                yield stmt, target.id, stmt.value
        elif is_append(stmt):
            yield stmt, stmt.value.func.value.id, stmt.value.args[0]


class ComplexValues(Analysis):
    """Find values that may be complex; refuse any that meets a differentiated value."""

    name = "complex_values"

    def analyse(self, unit):
        writes = list(_writes(unit.tree.body))
        active, user_names = unit.facts["activity"].active, unit.facts.get("resolve", frozenset())
        # a differentiated call of a complex function with no rule: the transform will say a rule is missing
        sources = {id(stmt): [node for node in complex_sources(value)
                              if not (written in active and _unruled_call(node, value, unit.mode))]
                   for stmt, written, value in writes}
        origins = {}   # name that may be complex -> (the statement that made it so, the source it came from)
        changed = True
        while changed:
            changed = False
            for stmt, written, value in writes:
                if written in origins or _real_result(value):
                    continue
                reads = sorted(syntax.loaded_names(value) & set(origins))
                if sources[id(stmt)] or reads:
                    origins[written] = (stmt, sources[id(stmt)][0] if sources[id(stmt)] else origins[reads[0]][1])
                    changed = True
        for stmt, written, value in writes:
            if written not in active:
                continue
            here = sources[id(stmt)]
            reads = sorted(syntax.loaded_names(value) & set(origins))
            name = next((n for n in reads if n in user_names), None)
            if here or name is None and reads:   # a source here, or in this line's temporaries
                node = here[0] if here else origins[reads[0]][1]
                raise unit.error(node, ComplexError, f"{_describe(node)} makes a complex number, and on this "
                                 f"line it meets a value being differentiated; {COMPLEX_WHY}", HINT)
            if name is not None:
                origin = origins[name][0]
                read = next((n for n in syntax.walk(value) if isinstance(n, gast.Name) and n.id == name), stmt)
                raise unit.error(read if getattr(read, "col_offset", None) is not None else stmt, ComplexError,
                                 f"`{name}` may hold a complex number (line {unit.parsed.location(origin).lineno}: "
                                 f"`{unit.parsed.line_text(origin.lineno)}`), and here it meets a value being "
                                 f"differentiated; {COMPLEX_WHY}", HINT)
        return frozenset(origins)


def _unruled_call(node, value, mode) -> bool:
    """Whether ``node`` is the function (not a type: ``complex(a, b)`` makes a complex number whatever its
    rules) of call ``value`` and has no rule in ``mode``."""
    function = annotation(node, "ref")
    return isinstance(value, gast.Call) and value.func is node and not isinstance(function, type) \
        and lookup(function, mode) is None


def _describe(node) -> str:
    if isinstance(node, gast.Constant):
        return f"`{node.value!r}`"
    if isinstance(node, gast.Name):
        return f"`{node.id}`"
    if isinstance(node, gast.Attribute):
        return f"`{syntax.dotted_text(node)}`"
    return "this expression"
