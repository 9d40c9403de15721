"""Transformation: prepare a function whose complex numbers meet a differentiated value for the complex rules.

Contract: srcad pairs an adjoint ``g`` with a tangent ``t`` by
``Re(sum(g * t))`` (autograd's convention; README, "Complex numbers").  On
the normalized tree with ``activity`` facts, this pass finds the values that
may be complex:
- sources: a complex literal (``1j``), a complex type or dtype named in a
  call (``complex(a, b)``, ``np.complex128(x)``, ``.astype(complex)``,
  ``dtype=complex``, ``dtype="complex64"``), a function of ``cmath``,
  ``np.fft`` (but ``fftshift``, ``ifftshift``, ``fftfreq`` and ``rfftfreq``,
  which keep a real array real) or ``np.emath``, a global or closure value
  that is complex, and the parameters named by the option
  ``complex_params`` (the derivative's variant for complex arguments);
- names assigned (or stored into, or appended to) from an expression with
  a source or a name that may be complex, except through functions whose
  result is real (``np.abs``, ``abs``, ``np.real``, ``np.imag``, ``np.angle``,
  ``.real``, ``.imag``).
It stores the names that may be complex.  When none meets a differentiated
value the tree is left as it is (real code keeps its derivative, byte for
byte).  Else, in every statement that computes with a value that may be
complex:
- ``np.abs``, ``np.real``, ``np.imag``, ``np.conj``, ``np.angle`` and
  ``np.real_if_close`` become their ``srcad.runtime.spectral`` names, whose
  rules hold for complex numbers (they are not holomorphic);
- a differentiated name that is real is read through ``real_input`` (a new
  statement before), whose adjoint keeps only the real part;
- a call on a complex value of a function whose rule is not checked for
  complex numbers (not in ``_COMPLEX_RULES``), or an operator other than
  ``+ - * / ** @`` and unary ``+ -``, raises ``ComplexError`` at its line.
What it cannot see (a complex attribute of an object, a callee that returns
a complex number) the derivative checks when it runs (``srcad/arguments.py``).

Example: in ``def f(x): return np.sum(np.abs(x * np.exp(1j * x)))`` the
gradient is that of the real map; ``np.maximum(np.exp(1j * x), 0.0)`` fails at
its line with "`np.maximum` of a complex number has no derivative in srcad ...".
"""
from __future__ import annotations

import numbers
from collections import Counter

import gast
import numpy as np

from ..errors import ComplexError
from ..frontend import syntax
from ..frontend.syntax import annotation
from ..frontend.naming import dotted_name
from ..analysis.blocks import is_append
from ..templates import lookup
from .. import runtime
from ..runtime import complex_linalg, spectral
from . import Transformation
from .activity import ActivityAnalysis

_REAL_RESULTS = (np.abs, np.absolute, abs, np.real, np.imag, np.angle, np.isnan, np.isfinite, np.isinf, np.linalg.norm,
                 np.linalg.eigvalsh)
_COMPLEX_MODULES = ("cmath", "numpy.fft", "numpy.lib.scimath", "numpy.lib._scimath_impl")
_REAL_IN_REAL_OUT = ("fftshift", "ifftshift", "fftfreq", "rfftfreq")   # of numpy.fft: they move or count
_DTYPE_TAKERS = (np.dtype, np.asarray, np.array, np.asanyarray)   # a string argument is a dtype
_MISSING = object()
HINT = ("compute it with the functions srcad differentiates for complex numbers (README, \"Complex numbers\"), "
        "or write that step with real and imaginary parts, each a float array: e.g. np.clip(np.real(z), 0.0, 1.0) "
        "+ 1j * np.clip(np.imag(z), 0.0, 1.0) for the parts of a complex array clipped one by one")
# np.maximum and its kin order complex numbers lexicographically: the value they pick jumps where two real
# parts are equal (no derivative there), so srcad asks for the choice the user means, written with np.where
_ORDERED_CHOICE = {np.maximum: ">=", np.fmax: ">=", np.minimum: "<=", np.fmin: "<="}


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


def _real_result(value, real_items=None) -> bool:
    """Whether ``value`` is real whatever its arguments: ``z.real``, ``np.abs(z)``, the eigenvalues
    ``t[0]`` of ``t = np.linalg.eigh(a)`` (``real_items``: name -> the positions of its real items), a
    comparison or a ``not`` (booleans: ``np.real(z) > t`` is no complex value, nor what ``np.where`` picks by it)."""
    if isinstance(value, gast.Attribute) and value.attr in ("real", "imag"):
        return True
    if isinstance(value, gast.Compare) or isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not):
        return True
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and isinstance(value.slice, gast.Constant):
        return value.slice.value in (real_items or {}).get(value.value.id, ())
    if not isinstance(value, gast.Call):
        return False
    function = annotation(value.func, "ref", None)
    if function is np.linalg.svd and any(kw.arg == "compute_uv" and isinstance(kw.value, gast.Constant)
                                         and kw.value.value is False for kw in value.keywords):
        return True   # the singular values alone
    return any(function is f for f in _REAL_RESULTS)


# functions returning a tuple with real items at these positions (eigenvalues, singular values)
_REAL_ITEMS = {np.linalg.eigh: (0,), np.linalg.svd: (1,)}


def _real_items(writes):
    """name -> the positions of its real items, for names bound once, to a call of a function of ``_REAL_ITEMS``."""
    bound = Counter(written for _, written, _ in writes)
    found = {}
    for stmt, written, value in writes:
        function = annotation(value.func, "ref", None) if isinstance(value, gast.Call) else None
        if bound[written] == 1 and isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            found.update({written: items for f, items in _REAL_ITEMS.items() if function is f})
    return found


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


class ComplexValues(Transformation):
    """Find values that may be complex; where one meets a differentiated value, prepare the complex rules."""

    name = "complex_values"

    def transform(self, unit) -> bool:
        writes = list(_writes(unit.tree.body))
        active = unit.facts["activity"].active
        # a differentiated call of a complex function with no rule: the transform will say a rule is missing
        sources = {id(stmt): [node for node in complex_sources(value)
                              if not (written in active and _unruled_call(node, value, unit.mode))]
                   for stmt, written, value in writes}
        origins = {name: None for name in unit.options.get("complex_params") or ()}   # name -> its first source
        real_items = _real_items(writes)
        changed = True
        while changed:
            changed = False
            for stmt, written, value in writes:
                if written in origins or _real_result(value, real_items):
                    continue
                reads = sorted(syntax.loaded_names(value) & set(origins))
                if sources[id(stmt)] or reads:
                    origins[written] = sources[id(stmt)][0] if sources[id(stmt)] else origins[reads[0]]
                    changed = True
        unit.facts[self.name] = frozenset(origins)
        meets = bool(unit.options.get("complex_params")) or any(
            written in active and (sources[id(stmt)] or syntax.loaded_names(value) & set(origins))
            for stmt, written, value in writes)
        if not meets:   # real code: untouched, its derivative is what it always was
            return False
        unit.tree.body = _ComplexRewriter(unit, active, set(origins)).body(unit.tree.body)
        ActivityAnalysis().run(unit)   # the calls made here are new nodes: their activity is found again
        return True


# functions of complex numbers that are not holomorphic: called by the names whose rules hold for complex
# numbers too (grad_templates/complex_parts.py)
_NOT_HOLOMORPHIC = {np.abs: spectral.complex_abs, np.absolute: spectral.complex_abs, abs: spectral.complex_abs,
                    np.real: spectral.real_part, np.imag: spectral.imag_part, np.conj: spectral.conjugate,
                    np.conjugate: spectral.conjugate, np.angle: spectral.phase, np.real_if_close: spectral.close_real,
                    np.linalg.eigh: complex_linalg.hermitian_eigh, np.linalg.eigvalsh: complex_linalg.hermitian_eigvalsh,
                    np.linalg.svd: complex_linalg.complex_svd, np.linalg.norm: complex_linalg.complex_norm,
                    np.sort: complex_linalg.complex_sort}
# functions whose rules are right for complex arguments as they are (holomorphic, or linear with a
# transpose that needs no conjugate under srcad's pairing Re(sum(adjoint * tangent)))
_COMPLEX_RULES = frozenset(map(id, (
    np.add, np.subtract, np.multiply, np.divide, np.true_divide, np.negative, np.positive, np.square,
    np.reciprocal, np.exp, np.log, np.sqrt, np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh,
    np.sum, np.mean, np.prod, np.dot, np.matmul, np.einsum, np.reshape, np.transpose, np.ravel, np.concatenate,
    np.stack, np.expand_dims, np.squeeze, np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn,
    np.fft.ifftn, np.fft.rfft, np.fft.irfft, np.fft.rfft2, np.fft.irfft2, np.fft.rfftn, np.fft.irfftn,
    np.fft.fftshift, np.fft.ifftshift, np.power, spectral.real_input, spectral.like_real, spectral.like_kind,
    spectral.unit_phase, spectral.fft_transpose, spectral.fft_fitted, spectral.rfft_transpose, spectral.rfft_fitted,
    spectral.irfft_transpose, spectral.irfft_fitted, *set(_NOT_HOLOMORPHIC.values()))))
# linear or holomorphic, with rules written in transposes and products only (no conjugate, no comparison of
# the values): the same formulas hold for complex numbers; tests/test_complex.py checks each
_COMPLEX_RULES |= frozenset(map(id, (
    np.cumsum, np.cumprod, np.where, np.flip, np.roll, np.tile, np.repeat, np.trace, np.diagonal, np.swapaxes,
    np.moveaxis, np.hstack, np.vstack, np.outer, np.diff, sum, np.asarray, runtime.array_copy, np.linalg.det, np.linalg.inv,
    np.linalg.solve, np.argsort, np.take_along_axis, runtime.untake_along_axis)))
# srcad's helpers in generated code that are linear in the derivative they move, with transposes needing no
# conjugate: a derivative of complex code is differentiated again through them
_COMPLEX_RULES |= frozenset(map(id, (
    runtime.check_seed, runtime.unbroadcast, runtime.broadcast_like, runtime.unreduce, runtime.copied,
    runtime.zeros_like, runtime.add_at, runtime.untake, runtime.unconcatenate, runtime.unstack, runtime.unsum,
    runtime.matmul_lhs_grad, runtime.matmul_rhs_grad, runtime.dot_lhs_grad, runtime.dot_rhs_grad,
    runtime.einsum_grad, runtime.einsum_of, runtime.einsum_first, runtime.cast_gate, runtime.keep_last,
    runtime.prod_others, runtime.prod_others_tangent, np.conj, np.real, np.imag)))
_COMPLEX_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult, gast.USub, gast.UAdd)


class _ComplexRewriter:
    """Rewrites the expressions of a function that computes with complex numbers (see the module contract)."""

    def __init__(self, unit, active, complex_names):
        self.unit, self.active, self.complex_names = unit, active, complex_names

    def may_be_complex(self, node) -> bool:
        return bool(complex_sources(node)) or bool(syntax.loaded_names(node) & self.complex_names)

    def body(self, statements):
        """``statements`` rewritten, each preceded by the marks of the real names it reads among complex ones."""
        rewritten = []
        for stmt in statements:
            for field_name in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field_name, None), list):
                    setattr(stmt, field_name, self.body(getattr(stmt, field_name)))
            for handler in getattr(stmt, "handlers", ()):
                handler.body = self.body(handler.body)
            self.marks = []
            self.rewrite(stmt)
            rewritten += self.marks + [stmt]
        return rewritten

    def rewrite(self, stmt):
        value = getattr(stmt, "value", None)
        if value is None or not isinstance(stmt, (gast.Assign, gast.Return)) and not is_append(stmt):
            return
        if not self.may_be_complex(value) and not (isinstance(stmt, gast.Assign)
                                                   and syntax.names_in(stmt.targets[0]) & self.complex_names):
            return
        stmt.value = self.expression(value)

    def expression(self, node):
        """``node`` with its non-holomorphic calls renamed and its real differentiated names marked."""
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            if node.id in self.active and node.id not in self.complex_names:   # a real value: marked
                marked = self.unit.namer.fresh(f"{node.id}_real")
                mark = syntax.assign(marked, self.call(spectral.real_input, [node]))
                gast.copy_location(mark, node)
                self.marks.append(mark)
                return syntax.name(marked)
            return node
        if isinstance(node, gast.Call):
            function = annotation(node.func, "ref", None)
            if self.may_be_complex(node):
                self.check(node, function)
            node.args = [self.expression(arg) for arg in node.args]
            for keyword in node.keywords:
                keyword.value = self.expression(keyword.value)
            for original, replacement in _NOT_HOLOMORPHIC.items():
                if function is original:
                    return self.call(replacement, node.args, node.keywords, like=node)
            return node
        if isinstance(node, (gast.BinOp, gast.UnaryOp)) and not isinstance(node.op, _COMPLEX_OPERATORS) \
                and self.may_be_complex(node):
            raise self.unit.error(node, ComplexError, f"`{type(node.op).__name__}` of a complex number has no "
                                  f"derivative in srcad", HINT)
        for name, child in gast.iter_fields(node):
            if isinstance(child, gast.AST) and not isinstance(child, gast.expr_context):
                setattr(node, name, self.expression(child))
            elif isinstance(child, list):
                setattr(node, name, [self.expression(item) if isinstance(item, gast.AST) else item
                                     for item in child])
        return node

    def check(self, call, function):
        """Refuse a call on complex numbers whose rule srcad has not checked for them."""
        if function is None or id(function) in _COMPLEX_RULES or id(function) in map(id, _NOT_HOLOMORPHIC) \
                or function is not np.sign and (isinstance(function, type) or lookup(function, self.unit.mode) is None):
            return   # np.sign is piecewise constant on the reals only: z / |z| on complex numbers
        label = dotted_name(call.func) if isinstance(call.func, (gast.Name, gast.Attribute)) else "this call"
        sign = next((sign for choice, sign in _ORDERED_CHOICE.items() if function is choice), None)
        if sign is not None:
            raise self.unit.error(call, ComplexError, f"`{label}` of complex numbers picks one by NumPy's order (real "
                                  f"part first, then imaginary part), and the value it picks jumps where two real "
                                  f"parts are equal: it has no derivative there", f"write the choice you mean: "
                                  f"np.where(np.real(z) {sign} np.real(w), z, w) (NumPy's choice where the real "
                                  f"parts differ) or np.where(np.abs(z) {sign} np.abs(w), z, w) (by magnitude)")
        raise self.unit.error(call, ComplexError, f"`{label}` of a complex number has no derivative in srcad "
                              f"(its rule is checked for real numbers only)", HINT)

    def call(self, function, args, keywords=(), like=None):
        bound = self.unit.bindings.bind(function.__name__, function)
        func = syntax.name(bound)
        syntax.annotate(func, "ref", function)
        node = syntax.call(func, list(args), list(keywords))
        if like is not None:
            gast.copy_location(node, like)
        return node


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
        return f"`{dotted_name(node)}`"
    return "this expression"
