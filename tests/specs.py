"""The spec table: one or more rows per differentiable primal srcad has a rule for.

Contract:
- ``SPECS`` is a list of ``Spec`` rows.  A row names the primal (the object the
  rule is registered for), an expression using it written with the arguments
  ``x``, ``y``, ``z`` (in that order; the expression's free names among them
  are the function's parameters), the shape cases to try, and the domain the
  inputs are drawn from.  ``tag`` tells variants of one primal apart
  (``np.sum`` with ``axis=1``...).
- A shape case of a one-argument expression is one shape; of an n-argument
  expression, a tuple of n shapes.  A shape is a tuple (``()`` is a 0-d
  array) or ``float`` (a Python float).
- ``domain`` is one name from ``gradcheck.DOMAINS`` for every argument, or a
  tuple with one per argument.
- ``cases(SPECS)`` expands the table into ``Case`` objects with readable ids
  such as ``np.sum-axis1-(3,4)`` or ``op.add-(3,1)x(1,4)``, deterministic
  random inputs, and a real function built from source text (srcad reads it
  back through ``linecache``).
- Rows are grouped by family module (``grad_templates/<family>.py``); each
  family's rows include broadcasting and ``axis``/``keepdims`` variants where
  the function has them, and matrix domains (``spd``, ``wellcond``,
  ``symmetric``) for the decompositions.  Expressions may use ``np``,
  ``math``, ``operator``, SciPy's ``special``, ``linalg``, ``stats``,
  ``signal`` and ``integrate`` (whose rows are left out when SciPy is not
  installed), ``incomplete`` (``grad_templates/special_incomplete.py``), the
  runtime modules, and ``ode_rhs``/``ode_rhs_tfirst`` (right-hand sides for
  the ODE rows).  A ``scipy.stats`` method is made anew at each attribute
  access: ``registered`` gives the object its rules are keyed by, which the
  rows name.  ``np.r_[...]`` and ``np.c_[...]``
  count as ``np.concatenate``, which srcad rewrites them into.
- A row whose function returns a tuple or list (``eigh``, ``svd``,
  ``split``) checks every output at once.
- Keep shapes tiny: every case runs in both modes in every test run.

Adding an operation is adding one row, e.g.::

    Spec(np.arcsin, "np.arcsin(x)", UNARY, domain="unit"),
"""
from __future__ import annotations

import ast
import inspect
import math
import operator
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, List, Sequence, Tuple, Union

import numpy as np

from srcad import runtime
from srcad.runtime import distributions as runtime_distributions, factors as runtime_factors
from srcad.operators import METHODS
from srcad.templates import REGISTRY
from srcad.runtime import (limits as runtime_limits, linalg as runtime_linalg, reductions as runtime_reductions,
                           shapes as runtime_shapes)
from srcad.runtime import arrays as runtime_arrays, numerical as runtime_numerical, stencils as runtime_stencils
from srcad.runtime import iteration as runtime_iteration
from srcad.runtime import checkpointing as runtime_checkpointing
from srcad.runtime import complex_linalg as runtime_complex_linalg
from gradcheck import PYFLOAT, make_function, random_input, shape_label

try:
    from scipy import integrate, linalg, signal, special, stats
    from grad_templates import special_incomplete as incomplete
except ImportError:  # SciPy is optional: its rows are left out
    integrate = linalg = signal = special = stats = incomplete = None

ARGUMENTS = ("x", "y", "z")
NAMESPACE = {"np": np, "math": math, "operator": operator, "special": special, "linalg": linalg, "stats": stats,
             "signal": signal, "integrate": integrate, "incomplete": incomplete, "runtime": runtime,
             "runtime_limits": runtime_limits, "runtime_factors": runtime_factors,
             "runtime_distributions": runtime_distributions,
             "runtime_iteration": runtime_iteration,
             "runtime_linalg": runtime_linalg, "runtime_reductions": runtime_reductions,
             "runtime_shapes": runtime_shapes, "runtime_arrays": runtime_arrays,
             "runtime_numerical": runtime_numerical, "runtime_stencils": runtime_stencils,
             "runtime_complex_linalg": runtime_complex_linalg}

Shape = Union[Tuple[int, ...], type]


def ode_rhs(y, t, k):
    """A nonlinear, time-dependent right-hand side for the ``odeint`` rows (srcad differentiates it)."""
    return -k * y + np.sin(t) * np.tanh(y[::-1])


def ode_rhs_tfirst(t, y, k):
    """``ode_rhs`` with the time first (``odeint(..., tfirst=True)``)."""
    return ode_rhs(y, t, k)


def loop_step(t, u, k):
    """One step of a loop, for the ``checkpointed_loop`` row (srcad differentiates it)."""
    return (u * k + np.sin(u) * (t + 1.0),)


NAMESPACE.update(ode_rhs=ode_rhs, ode_rhs_tfirst=ode_rhs_tfirst, loop_step=loop_step,
                 runtime_checkpointing=runtime_checkpointing)

# Standard shape-case lists ---------------------------------------------------
UNARY = [(), (3,), (2, 3)]
UNARY_PY = UNARY + [PYFLOAT]
SCALAR = [PYFLOAT, ()]                                    # math-module functions
BINARY = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)),      # same shapes
          ((3, 1), (1, 4)), ((5,), (2, 5)), ((2, 3), ()), ((), (3,))]  # broadcasting
BINARY_PY = BINARY + [(PYFLOAT, PYFLOAT), (PYFLOAT, (3,)), ((2, 3), PYFLOAT)]
# (output gradient, a, b) of the products a @ b, np.dot(a, b), np.inner(a, b), np.kron(a, b)
MATMUL_GRADS = [((), (3,), (3,)), ((2,), (2, 3), (3,)), ((4,), (3,), (3, 4)), ((2, 4), (2, 3), (3, 4)),
                ((2, 2, 4), (2, 2, 3), (3, 4)), ((2, 4), (3,), (2, 3, 4)), ((2, 2), (2, 2, 3), (3,)),
                ((2, 3, 2, 2), (2, 1, 2, 3), (3, 3, 2))]
DOT_GRADS = [((), (3,), (3,)), ((2,), (2, 3), (3,)), ((4,), (3,), (3, 4)), ((2, 4), (2, 3), (3, 4)),
             ((3,), (), (3,)), ((2, 3), (2, 3), ()), ((2, 3), (2, 3, 4), (4,)), ((2, 2, 2), (2, 3), (2, 3, 2))]
INNER_GRADS = [((), (3,), (3,)), ((2,), (2, 3), (3,)), ((2, 4), (2, 3), (4, 3)), ((3,), (), (3,)),
               ((2, 2, 2), (2, 2, 3), (2, 3))]
KRON_GRADS = [((6,), (2,), (3,)), ((4, 6), (2, 2), (2, 3)), ((2, 6), (2,), (2, 3))]


@dataclass(frozen=True)
class Spec:
    """One row: ``primal`` used in ``expr``, tried on each of ``shapes`` inside ``domain``."""

    primal: Any
    expr: str
    shapes: Sequence
    domain: Union[str, Tuple[str, ...]] = "real"
    tag: str = ""

    @property
    def arguments(self) -> Tuple[str, ...]:
        used = {node.id for node in ast.walk(ast.parse(self.expr, mode="eval")) if isinstance(node, ast.Name)}
        return tuple(name for name in ARGUMENTS if name in used)

    @property
    def label(self) -> str:
        base = primal_label(self.primal)
        return f"{base}-{self.tag}" if self.tag else base


def registered(primal):
    """The object a rule is registered for that equals ``primal``: a method (``stats.norm.logpdf``) is made anew
    at each attribute access, and rows name the one in the registry."""
    if inspect.ismethod(primal):
        for rules in REGISTRY.rules.values():
            for key in rules:
                if key == primal:
                    return key
    return primal


def primal_label(primal) -> str:
    """``op.add``, ``np.sum``, ``np.linalg.norm``, ``special.expit``, ``math.sin``, ``abs``: a short readable name."""
    name = getattr(primal, "__name__", repr(primal))
    if inspect.ismethod(primal) and stats is not None:   # scipy.stats.norm.logpdf
        owner = next((key for key, value in vars(stats).items() if value is primal.__self__), None)
        if owner is not None:
            return f"scipy.stats.{owner}.{name}"
    namespaces = [("np.linalg", np.linalg), ("np", np), ("special", special), ("scipy.linalg", linalg),
                  ("scipy.signal", signal), ("scipy.integrate", integrate), ("math", math)]
    for prefix, namespace in namespaces:
        if namespace is not None and getattr(namespace, name, None) is primal:
            return f"{prefix}.{name}"
    module = getattr(primal, "__module__", None)
    if module in ("_operator", "operator"):
        return f"op.{name}"
    if module == "builtins":
        return name
    if isinstance(primal, np.ufunc) or (module or "").startswith("numpy"):
        return f"np.{name}"
    return name


SPECS: List[Spec] = [
    # arithmetic (grad_templates/arithmetic.py) -------------------------------
    Spec(operator.add, "x + y", BINARY_PY),
    Spec(np.add, "np.add(x, y)", BINARY),
    Spec(operator.sub, "x - y", BINARY_PY),
    Spec(np.subtract, "np.subtract(x, y)", BINARY),
    Spec(operator.mul, "x * y", BINARY_PY),
    Spec(operator.mul, "x * x", UNARY_PY, tag="same-operand"),
    Spec(operator.mul, "3.0 * x", UNARY_PY, tag="constant"),
    Spec(np.multiply, "np.multiply(x, y)", BINARY),
    Spec(operator.truediv, "x / y", BINARY_PY, domain=("real", "nonzero")),
    Spec(operator.truediv, "2.0 / x", UNARY_PY, domain="nonzero", tag="constant-numerator"),
    Spec(np.divide, "np.divide(x, y)", BINARY, domain=("real", "nonzero")),
    Spec(operator.pow, "x ** y", BINARY_PY, domain=("positive", "real")),
    Spec(operator.pow, "x ** 3", UNARY_PY, tag="int-exponent"),
    Spec(operator.pow, "x ** 0 + x ** 1", UNARY_PY, tag="exponents-0-1"),
    Spec(operator.pow, "x ** 2.5", UNARY_PY, domain="positive", tag="float-exponent"),
    Spec(operator.pow, "2.0 ** x", UNARY_PY, tag="constant-base"),
    Spec(np.power, "np.power(x, y)", BINARY, domain=("positive", "real")),
    Spec(pow, "pow(x, y)", [(PYFLOAT, PYFLOAT), ((3,), (3,)), ((2, 3), ())], domain=("positive", "real")),
    Spec(operator.neg, "-x", UNARY_PY),
    Spec(np.negative, "np.negative(x)", UNARY),
    Spec(operator.pos, "+x", UNARY_PY),
    Spec(np.positive, "np.positive(x)", UNARY),
    Spec(np.square, "np.square(x)", UNARY),
    # exponentials and logarithms (grad_templates/exp_log.py) -----------------
    Spec(np.exp, "np.exp(x)", UNARY),
    Spec(np.expm1, "np.expm1(x)", UNARY),
    Spec(np.exp2, "np.exp2(x)", UNARY),
    Spec(np.log, "np.log(x)", UNARY, domain="positive"),
    Spec(np.log1p, "np.log1p(x)", UNARY, domain="positive"),
    Spec(np.log2, "np.log2(x)", UNARY, domain="positive"),
    Spec(np.log10, "np.log10(x)", UNARY, domain="positive"),
    Spec(np.logaddexp, "np.logaddexp(x, y)", BINARY),
    Spec(np.logaddexp2, "np.logaddexp2(x, y)", BINARY),
    Spec(np.sqrt, "np.sqrt(x)", UNARY, domain="positive"),
    Spec(np.cbrt, "np.cbrt(x)", UNARY, domain="nonzero"),
    Spec(np.reciprocal, "np.reciprocal(x)", UNARY, domain="nonzero"),
    Spec(np.float_power, "np.float_power(x, y)", BINARY, domain=("positive", "real")),
    Spec(np.float_power, "np.float_power(x, 2) + np.float_power(x, 0)", UNARY, tag="literal-exponents"),
    # trigonometric and hyperbolic (grad_templates/trig.py) -------------------
    Spec(np.sin, "np.sin(x)", UNARY),
    Spec(np.cos, "np.cos(x)", UNARY),
    Spec(np.tan, "np.tan(x)", UNARY, domain="unit"),
    Spec(np.arcsin, "np.arcsin(x)", UNARY, domain="unit"),
    Spec(np.arccos, "np.arccos(x)", UNARY, domain="unit"),
    Spec(np.arctan, "np.arctan(x)", UNARY),
    Spec(np.arctan2, "np.arctan2(x, y)", BINARY, domain=("real", "nonzero")),
    Spec(np.hypot, "np.hypot(x, y)", BINARY, domain="nonzero"),
    Spec(np.sinh, "np.sinh(x)", UNARY),
    Spec(np.cosh, "np.cosh(x)", UNARY),
    Spec(np.tanh, "np.tanh(x)", UNARY),
    Spec(np.arcsinh, "np.arcsinh(x)", UNARY),
    Spec(np.arccosh, "np.arccosh(x)", UNARY, domain="above1"),
    Spec(np.arctanh, "np.arctanh(x)", UNARY, domain="unit"),
    Spec(np.deg2rad, "np.deg2rad(x)", UNARY),
    Spec(np.radians, "np.radians(x)", UNARY),
    Spec(np.rad2deg, "np.rad2deg(x)", UNARY),
    Spec(np.degrees, "np.degrees(x)", UNARY),
    Spec(np.sinc, "np.sinc(x)", UNARY),
    # piecewise (grad_templates/piecewise.py) ---------------------------------
    Spec(np.absolute, "np.abs(x)", UNARY, domain="nonzero"),
    Spec(np.fabs, "np.fabs(x)", UNARY, domain="nonzero"),
    Spec(abs, "abs(x)", UNARY_PY, domain="nonzero"),
    Spec(np.maximum, "np.maximum(x, y)", BINARY),
    Spec(np.minimum, "np.minimum(x, y)", BINARY),
    Spec(np.fmax, "np.fmax(x, y)", BINARY),
    Spec(np.fmin, "np.fmin(x, y)", BINARY),
    Spec(np.clip, "np.clip(x, -0.5, 0.5)", UNARY, tag="constants"),
    Spec(np.clip, "np.clip(x, None, 0.3)", UNARY, tag="upper-only"),
    Spec(np.clip, "np.clip(x, y, z)", [((3,), (3,), (3,)), ((2, 3), (), (3,))],
         domain=("real", "negative", "positive"), tag="arrays"),
    Spec(np.where, "np.where(x > 0, x, y)", BINARY),
    Spec(np.where, "np.where(x > y, x * y, 0.0)", [((3,), (3,)), ((2, 3), (3,))], tag="constant"),
    Spec(operator.mod, "x % y", BINARY_PY, domain=("real", "positive")),
    Spec(np.remainder, "np.remainder(x, y)", BINARY, domain=("real", "nonzero")),
    Spec(np.fmod, "np.fmod(x, y)", BINARY, domain=("real", "nonzero")),
    Spec(np.copysign, "np.copysign(x, y)", BINARY, domain="nonzero"),
    Spec(np.heaviside, "np.heaviside(x, y)", BINARY, domain=("nonzero", "real")),
    Spec(np.imag, "np.imag(x)", UNARY),
    Spec(np.angle, "np.angle(x)", UNARY, domain="nonzero"),
    Spec(np.heaviside, "np.heaviside(np.array([0.0, 1.0, -1.0]), x)", [(3,), (), (2, 3)], tag="at-zero"),
    # the math module and builtins (grad_templates/math_module.py) ------------
    Spec(math.sin, "math.sin(x)", SCALAR),
    Spec(math.cos, "math.cos(x)", SCALAR),
    Spec(math.tan, "math.tan(x)", SCALAR, domain="unit"),
    Spec(math.asin, "math.asin(x)", SCALAR, domain="unit"),
    Spec(math.acos, "math.acos(x)", SCALAR, domain="unit"),
    Spec(math.atan, "math.atan(x)", SCALAR),
    Spec(math.atan2, "math.atan2(x, y)", [(PYFLOAT, PYFLOAT), ((), ())], domain=("real", "nonzero")),
    Spec(math.sinh, "math.sinh(x)", SCALAR),
    Spec(math.cosh, "math.cosh(x)", SCALAR),
    Spec(math.tanh, "math.tanh(x)", SCALAR),
    Spec(math.asinh, "math.asinh(x)", SCALAR),
    Spec(math.acosh, "math.acosh(x)", SCALAR, domain="above1"),
    Spec(math.atanh, "math.atanh(x)", SCALAR, domain="unit"),
    Spec(math.exp, "math.exp(x)", SCALAR),
    Spec(math.expm1, "math.expm1(x)", SCALAR),
    Spec(math.log, "math.log(x)", SCALAR, domain="positive"),
    Spec(math.log, "math.log(x, 2.0)", SCALAR, domain="positive", tag="base"),
    Spec(math.log1p, "math.log1p(x)", SCALAR, domain="positive"),
    Spec(math.log2, "math.log2(x)", SCALAR, domain="positive"),
    Spec(math.log10, "math.log10(x)", SCALAR, domain="positive"),
    Spec(math.sqrt, "math.sqrt(x)", SCALAR, domain="positive"),
    Spec(math.pow, "math.pow(x, y)", [(PYFLOAT, PYFLOAT), ((), PYFLOAT)], domain=("positive", "real")),
    Spec(math.pow, "math.pow(x, 3.0) + math.pow(x, 0.0)", SCALAR, tag="literal-exponents"),
    Spec(math.hypot, "math.hypot(x, y)", [(PYFLOAT, PYFLOAT)], domain="nonzero"),
    Spec(math.fabs, "math.fabs(x)", SCALAR, domain="nonzero"),
    Spec(math.erf, "math.erf(x)", SCALAR),
    Spec(math.erfc, "math.erfc(x)", SCALAR),
    Spec(math.gamma, "math.gamma(x)", SCALAR, domain="positive"),
    Spec(math.lgamma, "math.lgamma(x)", SCALAR, domain="positive"),
    Spec(math.degrees, "math.degrees(x)", SCALAR),
    Spec(math.radians, "math.radians(x)", SCALAR),
    *([Spec(math.cbrt, "math.cbrt(x)", SCALAR, domain="nonzero"),      # Python 3.11+
       Spec(math.exp2, "math.exp2(x)", SCALAR)] if hasattr(math, "cbrt") else []),
    Spec(math.fsum, "math.fsum([x, y, x])", [(PYFLOAT, PYFLOAT)]),
    Spec(math.fsum, "math.fsum(x)", [(3,)], tag="array"),
    Spec(sum, "sum([x, y, x])", [(PYFLOAT, PYFLOAT), ((3,), (3,)), ((2, 3), ())]),
    Spec(sum, "sum(x)", [(3,), (2, 3)], tag="array"),
    Spec(sum, "sum([x, y], z)", [(PYFLOAT, PYFLOAT, PYFLOAT), ((3,), (3,), ())], tag="start"),
    Spec(max, "max(x, y)", [(PYFLOAT, PYFLOAT), ((), ())]),
    Spec(max, "max([x, y, z])", [(PYFLOAT, PYFLOAT, PYFLOAT)], tag="list"),
    Spec(max, "max(x)", [(4,)], tag="array"),
    Spec(max, "max(x, y, z) * min(z, x, y, x)", [(PYFLOAT, PYFLOAT, PYFLOAT), ((), (), ())], tag="three"),
    Spec(min, "min(x, y)", [(PYFLOAT, PYFLOAT), ((), ())]),
    Spec(min, "min([x, y, z])", [(PYFLOAT, PYFLOAT, PYFLOAT)], tag="list"),
    # builtins that turn one container into another (grad_templates/iteration.py)
    Spec(tuple, "tuple(x)", [(3,), (2, 3)]),
    Spec(sorted, "sorted(x)", [(3,)]),
    Spec(sorted, "sorted([x, y, x * 2.0], reverse=True)", [(PYFLOAT, PYFLOAT)], tag="reverse"),
    Spec(dict, "dict([('a', x), ('b', y), ('a', x * 3.0)])['a']", [((3,), PYFLOAT)]),
    Spec(dict, "dict([('a', x), ('b', y)])['b']", [((3,), PYFLOAT)], tag="b"),
    Spec(runtime_checkpointing.checkpointed_loop,
         "runtime_checkpointing.checkpointed_loop(loop_step, range(4), (x,), (y,), 2)[0]",
         [((3,), ()), (PYFLOAT, PYFLOAT)]),
    Spec(runtime_iteration.permuted, "runtime_iteration.permuted([x, y, z], [2, 0, 1])",
         [((), (), ()), ((3,), (3,), (3,))]),
    Spec(runtime_iteration.unpermuted, "runtime_iteration.unpermuted([x, y, z], [2, 0, 1])",
         [((), (), ()), ((3,), (3,), (3,))]),
    Spec(runtime_iteration.pairs_grad, "runtime_iteration.pairs_grad({'a': x, 'b': y}, [('a', z), ('b', z), ('a', z)])",
         [((3,), PYFLOAT, (3,))]),
    Spec(runtime_iteration.pairs_tangent,
         "runtime_iteration.pairs_tangent([[0.0, x], [0.0, y], [0.0, x * 2.0]], [('a', z), ('b', z), ('a', z)])['a']",
         [((3,), PYFLOAT, (3,))]),
    Spec(min, "min(x)", [(4,)], tag="array"),
    Spec(float, "float(x)", SCALAR),
    # reductions (grad_templates/reductions.py) -------------------------------
    Spec(np.sum, "np.sum(x)", UNARY + [(2, 3, 4)]),
    Spec(np.sum, "np.sum(x, axis=1)", [(3, 4), (2, 3, 4)], tag="axis1"),
    Spec(np.sum, "np.sum(x, axis=-1)", [(3,), (3, 4)], tag="axis-1"),
    Spec(np.sum, "np.sum(x, axis=(0, 2))", [(2, 3, 4)], tag="axis02"),
    Spec(np.sum, "np.sum(x, axis=1, keepdims=True)", [(3, 4), (2, 3, 4)], tag="axis1-keepdims"),
    Spec(np.sum, "np.sum(x, keepdims=True)", [(3,), (3, 4)], tag="keepdims"),
    Spec(np.mean, "np.mean(x)", UNARY + [(2, 3, 4)]),
    Spec(np.mean, "np.mean(x, axis=0)", [(3, 4), (2, 3, 4)], tag="axis0"),
    Spec(np.mean, "np.mean(x, axis=(-1, 0))", [(2, 3, 4)], tag="axis-10"),
    Spec(np.mean, "np.mean(x, axis=1, keepdims=True)", [(3, 4)], tag="axis1-keepdims"),
    Spec(np.mean, "np.mean(x, keepdims=True)", [(3, 4)], tag="keepdims"),
    Spec(np.prod, "np.prod(x)", UNARY),
    Spec(np.prod, "np.prod(x, axis=1)", [(2, 3), (2, 3, 2)], tag="axis1"),
    Spec(np.prod, "np.prod(x, axis=(0, 2), keepdims=True)", [(2, 3, 2)], tag="axis02-keepdims"),
    Spec(np.var, "np.var(x)", [(3,), (2, 3)]),
    Spec(np.var, "np.var(x, axis=0, ddof=1)", [(3, 2), (3, 2, 2)], tag="axis0-ddof"),
    Spec(np.var, "np.var(x, axis=-1, keepdims=True)", [(2, 3)], tag="keepdims"),
    Spec(np.std, "np.std(x)", [(3,), (2, 3)]),
    Spec(np.std, "np.std(x, axis=1, ddof=1)", [(2, 3)], tag="axis1-ddof"),
    Spec(np.std, "np.std(x, axis=(0, 1), keepdims=True)", [(2, 3, 2)], tag="axes-keepdims"),
    Spec(np.max, "np.max(x)", UNARY),
    Spec(np.max, "np.max(x, axis=0)", [(3, 2), (2, 3, 2)], tag="axis0"),
    Spec(np.max, "np.max(x, axis=-1, keepdims=True)", [(2, 3)], tag="keepdims"),
    Spec(np.min, "np.min(x)", UNARY),
    Spec(np.min, "np.min(x, axis=(0, 1))", [(2, 3, 2)], tag="axes"),
    Spec(np.amax, "np.amax(x, axis=1)", [(2, 3)]),
    Spec(np.amin, "np.amin(x, axis=0, keepdims=True)", [(2, 3)]),
    Spec(np.nanmax, "np.nanmax(x, axis=1)", [(2, 3)]),
    Spec(np.nanmin, "np.nanmin(x)", [(3,), (2, 3)]),
    Spec(np.ptp, "np.ptp(x)", [(3,), (2, 3)]),
    Spec(np.ptp, "np.ptp(x, axis=0, keepdims=True)", [(2, 3)], tag="axis0-keepdims"),
    Spec(np.nansum, "np.nansum(x)", UNARY),
    Spec(np.nansum, "np.nansum(x, axis=1, keepdims=True)", [(2, 3)], tag="axis1-keepdims"),
    Spec(np.nanmean, "np.nanmean(x)", UNARY),
    Spec(np.nanmean, "np.nanmean(x, axis=0)", [(2, 3)], tag="axis0"),
    Spec(np.nanvar, "np.nanvar(x)", [(3,), (2, 3)]),
    Spec(np.nanvar, "np.nanvar(x, axis=0, ddof=1)", [(3, 2)], tag="axis0-ddof"),
    Spec(np.nanvar, "np.nanvar(x, axis=-1, keepdims=True)", [(2, 3)], tag="keepdims"),
    Spec(np.nanstd, "np.nanstd(x)", [(3,), (2, 3)]),
    Spec(np.nanstd, "np.nanstd(x, axis=1, ddof=1)", [(2, 3)], tag="axis1-ddof"),
    Spec(np.nanstd, "np.nanstd(x, axis=(0, 1), keepdims=True)", [(2, 3, 2)], tag="axes-keepdims"),
    Spec(np.cumsum, "np.cumsum(x)", [(), (4,), (2, 3)]),
    Spec(np.cumsum, "np.cumsum(x, axis=1)", [(2, 3), (2, 3, 2)], tag="axis1"),
    Spec(np.cumprod, "np.cumprod(x)", [(), (4,), (2, 3)]),
    Spec(np.cumprod, "np.cumprod(x, axis=0)", [(3, 2)], tag="axis0"),
    # products and norms (grad_templates/linalg.py) ---------------------------
    Spec(operator.matmul, "x @ y", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)),
                                    ((2, 1, 2, 3), (3, 3, 2))]),
    Spec(np.matmul, "np.matmul(x, y)", [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (1, 3, 2))]),
    Spec(np.dot, "np.dot(x, y)", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                  ((), (3,)), ((2, 3), ()), ((2, 3, 4), (4,)), ((2, 3), (2, 3, 2))]),
    Spec(np.vdot, "np.vdot(x, y)", [((3,), (3,)), ((2, 3), (3, 2))]),
    Spec(np.inner, "np.inner(x, y)", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((), (3,)),
                                      ((2, 2, 3), (2, 3))]),
    Spec(np.outer, "np.outer(x, y)", [((3,), (2,)), ((2, 2), (3,)), ((), (2,))]),
    Spec(np.tensordot, "np.tensordot(x, y)", [((2, 3, 4), (3, 4, 2))]),
    Spec(np.tensordot, "np.tensordot(x, y, axes=1)", [((2, 3), (3, 2))], tag="axes1"),
    Spec(np.tensordot, "np.tensordot(x, y, axes=([0, 2], [2, 1]))", [((2, 3, 4), (3, 4, 2))], tag="pairs"),
    Spec(np.einsum, "np.einsum('ij,jk->ik', x, y)", [((2, 3), (3, 4))], tag="matmul"),
    Spec(np.einsum, "np.einsum('ii', x)", [(3, 3)], tag="trace"),
    Spec(np.einsum, "np.einsum('ii->i', x)", [(3, 3)], tag="diagonal"),
    Spec(np.einsum, "np.einsum('ij,j', x, y)", [((2, 3), (3,))], tag="implicit"),
    Spec(np.einsum, "np.einsum('ij,jk,k->i', x, y, z)", [((2, 3), (3, 4), (4,))], tag="three"),
    Spec(np.einsum, "np.einsum('...ij,...jk->...ik', x, y)", [((2, 2, 3), (2, 3, 2))], tag="ellipsis"),
    Spec(np.einsum, "np.einsum('ij->j', x)", [(2, 3)], tag="sum"),
    Spec(np.einsum, "np.einsum('i,j->ij', x, y)", [((2,), (3,))], tag="outer"),
    Spec(np.einsum, "np.einsum('ij,ik->j', x, y)", [((2, 3), (2, 4))], tag="summed-alone"),
    Spec(np.einsum, "np.einsum('...ij,...jk', x, y)", [((2, 2, 3), (3, 2))], tag="implicit-ellipsis"),
    Spec(np.einsum, "np.einsum('...i,...i->...', x, y)", [((3, 2), (1, 2)), ((3, 2), (2,)), ((2,), (3, 2))],
         tag="broadcast"),
    Spec(np.einsum, "np.einsum('ij,ij->ij', x, y)", [((3, 2), (3, 1)), ((1, 2), (3, 2))], tag="broadcast-labels"),
    Spec(np.einsum, "np.einsum('ij,jk,k->i', x, y, z, optimize=True)", [((2, 3), (3, 4), (4,))], tag="optimize"),
    Spec(np.einsum, "np.einsum('ij,jk,kl,lm->im', x, y, z, y)", [((2, 3), (3, 3), (3, 3))], tag="four"),
    Spec(np.einsum, "np.einsum('ij,jk,kl,lm,mi', x, y, z, y, np.ones((3, 2)))", [((2, 3), (3, 3), (3, 3))],
         tag="five-implicit"),
    Spec(np.einsum, "np.einsum('i...,...i,ij,j...', x, y, z, x, optimize='greedy')", [((2, 3), (3, 2), (2, 2))],
         tag="four-ellipsis"),
    Spec(np.einsum, "np.einsum(x, (0, 1), (1, 0))", [(2, 3)], tag="sublist-transpose"),
    Spec(np.einsum, "np.einsum(x, [0, 1], y, [1, 2], [0, 2])", [((2, 3), (3, 4))], tag="sublist-matmul"),
    Spec(np.einsum, "np.einsum(x, [1, 0], y, [0, 2])", [((2, 3), (3, 4))], tag="sublist-implicit"),
    Spec(np.einsum, "np.einsum(x, [30, 1])", [(2, 3)], tag="sublist-implicit-order"),
    Spec(np.einsum, "np.einsum(x, [..., 0, 1], y, [Ellipsis, 1, 2], [..., 0, 2])",
         [((2, 2, 3), (2, 3, 2)), ((2, 2, 3), (3, 2))], tag="sublist-ellipsis"),
    Spec(np.einsum, "np.einsum(x, [..., 0], y, [..., 0])", [((3, 2), (1, 2))], tag="sublist-implicit-ellipsis"),
    Spec(np.einsum, "np.einsum(x, [0, 1], y, [1, 2], z, [2, 0], [])", [((2, 3), (3, 4), (4, 2))],
         tag="sublist-three"),
    Spec(np.einsum, "np.einsum(x, [0, 1], y, [1, 2], z, [2, 3], y, [3, 4], [0, 4], optimize=True)",
         [((2, 3), (3, 3), (3, 3))], tag="sublist-four"),
    Spec(np.kron, "np.kron(x, y)", [((2,), (3,)), ((2, 2), (2, 3)), ((2,), (2, 3))]),
    Spec(np.cross, "np.cross(x, y)", [((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 2, 3))]),
    Spec(np.linalg.norm, "np.linalg.norm(x)", [(3,), (2, 3), (2, 2, 3)], domain="nonzero"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1)", [(4,)], domain="nonzero", tag="ord1"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 3)", [(4,)], domain="nonzero", tag="ord3"),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf)", [(4,), (2, 3)], domain="nonzero", tag="inf"),
    Spec(np.linalg.norm, "np.linalg.norm(x, -np.inf)", [(4,)], domain="nonzero", tag="-inf"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 2)", [(3,), (3, 2)], domain="nonzero", tag="ord2"),
    Spec(np.linalg.norm, "np.linalg.norm(x, -2)", [(3, 2)], domain="nonzero", tag="ord-2"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'fro')", [(2, 3)], domain="nonzero", tag="fro"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'nuc')", [(2, 3)], domain="nonzero", tag="nuc"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1, axis=(1, 0))", [(3, 2)], domain="nonzero", tag="matrix1"),
    Spec(np.linalg.norm, "np.linalg.norm(x, -np.inf, axis=(1, 2))", [(2, 3, 2)], domain="nonzero",
         tag="matrix-inf-axes"),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=1)", [(2, 3), (2, 3, 2)], domain="nonzero", tag="axis1"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1, axis=0, keepdims=True)", [(3, 2)], domain="nonzero",
         tag="axis0-keepdims"),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(x, 3)", [(2, 2), (2, 3, 3)], domain="wellcond"),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(x, -2)", [(3, 3)], domain="wellcond", tag="negative"),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(x, 0) + x", [(2, 2)], tag="zero"),
    # decompositions (grad_templates/decompositions.py) -----------------------
    Spec(np.linalg.inv, "np.linalg.inv(x)", [(3, 3), (2, 2, 2)], domain="wellcond"),
    Spec(np.linalg.solve, "np.linalg.solve(x, y)", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)),
                                                    ((2, 3, 3), (3,)), ((3, 3), (2, 3, 2))],
         domain=("wellcond", "real")),
    Spec(np.linalg.det, "np.linalg.det(x)", [(3, 3), (2, 2, 2)], domain="wellcond"),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(x)[1]", [(3, 3), (2, 2, 2)], domain="wellcond"),
    Spec(np.linalg.slogdet, "np.linalg.slogdet(x)", [(3, 3)], domain="wellcond", tag="tuple"),
    Spec(np.linalg.pinv, "np.linalg.pinv(x)", [(3, 2), (2, 3), (2, 2, 3)]),
    Spec(np.linalg.cholesky, "np.linalg.cholesky(x)", [(3, 3), (2, 2, 2)], domain="spd"),
    Spec(np.linalg.cholesky, "np.linalg.cholesky(x, upper=True)", [(3, 3)], domain="spd", tag="upper"),
    Spec(np.linalg.eigh, "np.linalg.eigh(x)", [(3, 3), (2, 2, 2)], domain="symmetric"),
    Spec(np.linalg.eigh, "np.linalg.eigh(x)[0]", [(3, 3)], domain="symmetric", tag="values"),
    Spec(np.linalg.eigh, "np.linalg.eigh(x, UPLO='U')[1]", [(3, 3)], domain="symmetric", tag="upper-vectors"),
    Spec(np.linalg.eigvalsh, "np.linalg.eigvalsh(x)", [(3, 3), (2, 2, 2)], domain="symmetric"),
    Spec(np.linalg.svd, "np.linalg.svd(x, full_matrices=False)", [(3, 2), (2, 3), (2, 3, 3)]),
    Spec(np.linalg.svd, "np.linalg.svd(x)", [(3, 3)], tag="square"),
    Spec(np.linalg.svd, "np.linalg.svd(x)[1]", [(4, 2)], tag="values-of-full"),
    Spec(np.linalg.svd, "np.linalg.svd(x, compute_uv=False)", [(3, 2), (2, 2, 3)], tag="values-only"),
    # moving elements (grad_templates/shapes.py) ------------------------------
    Spec(np.reshape, "np.reshape(x, (2, 6))", [(3, 4), (12,)], tag="shape"),
    Spec(np.reshape, "np.reshape(x, -1)", [(3, 4), ()], tag="flatten"),
    Spec(np.reshape, "np.reshape(x, (3, 2), order='F')", [(2, 3), (6,)], tag="order-F"),
    Spec(np.ravel, "np.ravel(x)", [(), (2, 3)]),
    Spec(np.ravel, "np.ravel(x, order='F')", [(2, 3)], tag="order-F"),
    Spec(np.squeeze, "np.squeeze(x)", [(1, 3, 1), ()]),
    Spec(np.squeeze, "np.squeeze(x, axis=0)", [(1, 3)], tag="axis0"),
    Spec(np.expand_dims, "np.expand_dims(x, 1)", [(3,), (2, 3)]),
    Spec(np.expand_dims, "np.expand_dims(x, axis=(0, 2))", [(3,)], tag="axes"),
    Spec(np.atleast_1d, "np.atleast_1d(x)", [(), (3,)]),
    Spec(np.atleast_2d, "np.atleast_2d(x)", [(), (3,), (2, 3)]),
    Spec(np.atleast_3d, "np.atleast_3d(x)", [(), (3,), (2, 3)]),
    Spec(np.transpose, "np.transpose(x)", [(3,), (2, 3), (2, 3, 4)]),
    Spec(np.transpose, "np.transpose(x, (1, 2, 0))", [(2, 3, 4)], tag="axes"),
    Spec(np.transpose, "np.transpose(x, (-1, 0, 1))", [(2, 3, 4)], tag="negative-axes"),
    Spec(np.swapaxes, "np.swapaxes(x, 0, 2)", [(2, 3, 4)]),
    Spec(np.moveaxis, "np.moveaxis(x, 0, -1)", [(2, 3, 4)]),
    Spec(np.moveaxis, "np.moveaxis(x, (0, 1), (2, 0))", [(2, 3, 4)], tag="several"),
    Spec(np.flip, "np.flip(x)", [(3,), (2, 3)]),
    Spec(np.flip, "np.flip(x, axis=1)", [(2, 3)], tag="axis1"),
    Spec(np.fliplr, "np.fliplr(x)", [(2, 3)]),
    Spec(np.flipud, "np.flipud(x)", [(3,), (2, 3)]),
    Spec(np.roll, "np.roll(x, 2)", [(4,), (2, 3)]),
    Spec(np.roll, "np.roll(x, (1, -1), axis=(0, 1))", [(2, 3)], tag="axes"),
    Spec(np.rot90, "np.rot90(x)", [(2, 3), (2, 3, 2)]),
    Spec(np.rot90, "np.rot90(x, 3, axes=(1, 2))", [(2, 3, 2)], tag="k3-axes"),
    Spec(np.repeat, "np.repeat(x, 2)", [(), (3,), (2, 3)]),
    Spec(np.repeat, "np.repeat(x, [1, 0, 2], axis=1)", [(2, 3)], tag="counts-axis1"),
    Spec(np.tile, "np.tile(x, 2)", [(), (3,), (2, 3)]),
    Spec(np.tile, "np.tile(x, (2, 1, 2))", [(3,), (2, 3)], tag="reps"),
    Spec(np.broadcast_to, "np.broadcast_to(x, (2, 3))", [(), (3,), (2, 1)]),
    # reading elements (grad_templates/indexing.py) ---------------------------
    Spec(operator.getitem, "x[1:, 0]", [(3, 4)], tag="slice-int"),
    Spec(operator.getitem, "x[0]", [(3,), (3, 4)], tag="int"),
    Spec(operator.getitem, "x[-1]", [(3,), (2, 3)], tag="negative"),
    Spec(operator.getitem, "x[::2]", [(5,), (3, 2)], tag="step"),
    Spec(operator.getitem, "x[..., None]", [(), (3,), (2, 3)], tag="ellipsis-none"),
    Spec(operator.getitem, "x[:, 1:3]", [(2, 4)], tag="columns"),
    Spec(operator.getitem, "x[[0, 2, 0]]", [(3,), (3, 2)], tag="fancy-repeated"),
    Spec(operator.getitem, "x[[0, 1, 1], [2, 0, 2]]", [(2, 3)], tag="fancy-pairs"),
    Spec(operator.getitem, "x[:, [1, 1]]", [(2, 3)], tag="fancy-columns"),
    Spec(operator.getitem, "x[x > 0]", [(5,), (2, 3)], tag="mask"),
    Spec(operator.getitem, "x[y > 0]", [((3,), (3,)), ((2, 3), (2, 3))], tag="mask-of-other"),
    Spec(np.take, "np.take(x, [2, 0, 2])", [(3,), (2, 3)]),
    Spec(np.take, "np.take(x, [[1, 0], [1, 1]], axis=1)", [(2, 3), (2, 3, 2)], tag="axis1"),
    Spec(np.take, "np.take(x, [4, -1], mode='wrap')", [(3,)], tag="wrap"),
    Spec(np.take_along_axis, "np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", [(2, 3)]),
    Spec(np.take_along_axis, "np.take_along_axis(x, np.argmax(x, axis=0)[None], 0)", [(3, 2)], tag="repeated"),
    Spec(np.sort, "np.sort(x)", [(4,), (2, 3)]),
    Spec(np.sort, "np.sort(x, axis=0)", [(3, 2)], tag="axis0"),
    Spec(np.sort, "np.sort(x, axis=None)", [(2, 3)], tag="flat"),
    Spec(np.diag, "np.diag(x)", [(3,), (3, 3), (2, 3)]),
    Spec(np.diag, "np.diag(x, 1)", [(2,), (3, 4)], tag="k1"),
    Spec(np.diag, "np.diag(x, k=-1)", [(3, 3)], tag="k-1"),
    Spec(np.diagonal, "np.diagonal(x)", [(3, 3), (2, 3)]),
    Spec(np.diagonal, "np.diagonal(x, 1, 2, 0)", [(3, 2, 4)], tag="offset-axes"),
    Spec(np.trace, "np.trace(x)", [(3, 3), (2, 3)]),
    Spec(np.trace, "np.trace(x, -1, axis1=1, axis2=2)", [(2, 3, 3)], tag="offset-axes"),
    Spec(np.triu, "np.triu(x)", [(3, 3), (2, 3, 3)]),
    Spec(np.triu, "np.triu(x, 1)", [(3, 4)], tag="k1"),
    Spec(np.tril, "np.tril(x)", [(3, 3), (2, 3, 3)]),
    Spec(np.tril, "np.tril(x, k=-1)", [(4, 3)], tag="k-1"),
    # joining, splitting, padding (grad_templates/joining.py) -----------------
    Spec(np.concatenate, "np.concatenate([x, y])", [((2,), (3,)), ((1, 3), (2, 3))]),
    Spec(np.concatenate, "np.concatenate((x, y, x), axis=1)", [((2, 1), (2, 3))], tag="axis1"),
    Spec(np.concatenate, "np.concatenate([x, y], axis=None)", [((2, 2), (3,))], tag="flat"),
    Spec(np.concatenate, "np.concatenate(x)", [(2, 3), (2, 2, 3)], tag="array"),
    Spec(np.concatenate, "np.r_[x, y]", [((2,), (3,)), ((), (3,)), ((2, 3), (1, 3)), (PYFLOAT, (2,))], tag="r_"),
    Spec(np.concatenate, "np.r_[x, 2.0, 0:3, y, x]", [((2,), ()), (PYFLOAT, (2,))], tag="r_-constants"),
    Spec(np.concatenate, "np.r_[x:y:4j, x]", [(PYFLOAT, PYFLOAT), ((), ())], tag="r_-count"),
    Spec(np.concatenate, "np.r_[x]", [(), (3,)], tag="r_-one"),
    Spec(np.concatenate, "np.r_['0,2', x, y]", [((3,), (3,)), ((2, 3), (3,)), ((), ())], tag="r_-ndmin"),
    Spec(np.concatenate, "np.r_['1,2,0', x, y, 0:3]", [((3,), (3,)), ((3, 2), (3,))], tag="r_-trans1d"),
    Spec(np.concatenate, "np.r_['-1', x, y]", [((2, 2), (2, 3))], tag="r_-axis"),
    Spec(np.concatenate, "np.c_[x, y]", [((3,), (3,)), ((3,), (3, 2)), ((2, 2), (2, 3)), ((), (1, 2))], tag="c_"),
    Spec(np.concatenate, "np.c_['0', x, y]", [((3,), (3,))], tag="c_-axis0"),
    Spec(np.stack, "np.stack([x, y])", [((3,), (3,)), ((), ()), ((2, 3), (2, 3))]),
    Spec(np.stack, "np.stack([x, y, x], axis=-1)", [((2, 3), (2, 3))], tag="axis-1"),
    Spec(np.stack, "np.stack([x, 2.0])", [PYFLOAT, ()], tag="with-constant"),
    Spec(np.hstack, "np.hstack([x, y])", [((2,), (3,)), ((2, 1), (2, 3)), ((), (2,))]),
    Spec(np.vstack, "np.vstack([x, y])", [((3,), (3,)), ((1, 3), (2, 3)), ((3,), (2, 3))]),
    Spec(np.dstack, "np.dstack([x, y])", [((3,), (3,)), ((2, 3), (2, 3))]),
    Spec(np.column_stack, "np.column_stack([x, y])", [((3,), (3,)), ((3,), (3, 2))]),
    Spec(np.split, "np.split(x, 2)", [(4,), (2, 3)]),
    Spec(np.split, "np.split(x, [1, 3], axis=1)[2] * np.split(x, [1, 3], axis=1)[0]", [(2, 4)], tag="indices"),
    Spec(np.split, "np.split(x, 3)[1]", [(3, 2)], tag="one-piece"),
    Spec(np.array_split, "np.array_split(x, 3)[2]", [(5,), (4, 2)]),
    Spec(np.hsplit, "np.hsplit(x, 2)[1]", [(4,), (2, 4)]),
    Spec(np.vsplit, "np.vsplit(x, [1])[0]", [(3, 2)]),
    Spec(np.pad, "np.pad(x, 1)", [(3,), (2, 3)]),
    Spec(np.pad, "np.pad(x, ((1, 0), (2, 1)))", [(2, 3)], tag="widths"),
    Spec(np.pad, "np.pad(x, 1, constant_values=y)", [((3,), PYFLOAT), ((2, 3), ())], tag="constant-values"),
    Spec(np.pad, "np.pad(x, (2, 1), mode='edge')", [(3,), (2, 3)], tag="edge"),
    Spec(np.pad, "np.pad(x, 2, mode='reflect')", [(4,), (3, 3)], tag="reflect"),
    Spec(np.pad, "np.pad(x, (1, 3), mode='wrap')", [(3,)], tag="wrap"),
    Spec(np.pad, "np.pad(x, 2, mode='symmetric')", [(3,)], tag="symmetric"),
    # building arrays (grad_templates/construction.py) ------------------------
    Spec(np.array, "np.array([x, y, x])", [(PYFLOAT, PYFLOAT), ((2,), (2,)), ((), ())]),
    Spec(np.array, "np.array([[x, y], [y, 1.0]])", [(PYFLOAT, PYFLOAT)], tag="nested"),
    Spec(np.array, "np.array(x, ndmin=3)", [(), (3,)], tag="ndmin"),
    Spec(np.asarray, "np.asarray(x)", [PYFLOAT, (), (2, 3)]),
    Spec(np.asarray, "np.asarray([x, y])", [(PYFLOAT, PYFLOAT), ((3,), (3,))], tag="list"),
    # a cast to an integer dtype rounds: piecewise constant, so only the other factor carries a derivative
    Spec(np.asarray, "np.asarray(x, np.int64) + x * x", [(3,)], tag="int-dtype"),
    Spec(np.array, "np.array(x * 3.0, dtype=int) * x", [(3,), (2, 3)], tag="int-dtype"),
    Spec(np.array, "np.array(x > 0.0, dtype=float) * x", [(3,)], tag="bool-cast"),
    Spec(np.asanyarray, "np.asanyarray(x)", [(2, 3)]),
    Spec(np.ascontiguousarray, "np.ascontiguousarray(x)", [(3, 2)]),
    Spec(np.copy, "np.copy(x)", [(), (2, 3)]),
    Spec(runtime.array_copy, "x.copy() * y", [((2, 3), ()), ((3,), (3,))], tag="method"),
    Spec(np.full, "np.full((2, 3), x)", [PYFLOAT, (), (3,)]),
    Spec(np.full_like, "np.full_like(y, x)", [(PYFLOAT, (2, 3)), ((), (3,))]),
    Spec(np.linspace, "np.linspace(x, y, 5)", [((), ()), (PYFLOAT, PYFLOAT), ((3,), (3,)), ((2, 3), (3,)),
                                                ((3,), ()), (PYFLOAT, (2,))]),
    Spec(np.linspace, "np.linspace(0.0, x, 3)", [PYFLOAT, (2,)], tag="constant-start"),
    Spec(np.linspace, "np.linspace(x, y, 4, endpoint=False)", [((), ()), ((2,), (3, 2))], tag="no-endpoint"),
    Spec(np.linspace, "np.linspace(x, y, 1)", [((), ()), ((3,), ())], tag="num1"),
    Spec(np.linspace, "np.linspace(x, y, 1, endpoint=False)", [((), (2,))], tag="num1-no-endpoint"),
    Spec(np.linspace, "np.linspace(x, y, 4, axis=1)", [((2, 3), (3,)), ((2, 1), (2, 3))], tag="axis1"),
    Spec(np.linspace, "np.linspace(x, y, 3, axis=-1)", [((3,), (2, 3))], tag="axis-1"),
    Spec(np.linspace, "np.linspace(x, y, 5, retstep=True)", [((), ()), ((3,), (2, 3))], tag="retstep"),
    Spec(np.linspace, "np.linspace(x, y, 3, endpoint=False, retstep=True, axis=-1)", [((2,), ())],
         tag="retstep-axis"),
    Spec(np.logspace, "np.logspace(x, y, 4)", [((), ()), ((3,), ()), ((2, 3), (3,))], domain="unit"),
    Spec(np.logspace, "np.logspace(x, y, 3, base=z)", [((), (), ()), ((3,), (), (3,)), ((2,), (2,), (3, 1))],
         domain=("unit", "unit", "positive"), tag="base"),
    Spec(np.logspace, "np.logspace(x, y, 3, endpoint=False, axis=-1, base=2.0)", [((2,), ())], domain="unit",
         tag="axis"),
    Spec(np.geomspace, "np.geomspace(x, y, 4)", [((), ()), ((3,), ()), ((2, 3), (3,)), (PYFLOAT, PYFLOAT)],
         domain="positive"),
    Spec(np.geomspace, "np.geomspace(x, y, 3)", [((2,), ())], domain="negative", tag="negative"),
    Spec(np.geomspace, "np.geomspace(x, y, 3, endpoint=False, axis=1)", [((2, 3), (3,))], domain="positive",
         tag="axis1"),
    Spec(np.geomspace, "np.geomspace(x, y, 1)", [((), ())], domain="positive", tag="num1"),
    # ---- NumPy breadth (issue 20): the functions and keyword forms autograd differentiates --------------
    # shapes.py
    Spec(np.rollaxis, "np.rollaxis(x, 2)", [(2, 3, 4)]),
    Spec(np.rollaxis, "np.rollaxis(x, 0, 3)", [(2, 3, 4)], tag="to-end"),
    Spec(np.rollaxis, "np.rollaxis(x, -1, 1)", [(2, 3, 4)], tag="negative-axis"),
    Spec(np.rollaxis, "np.rollaxis(x, 1, start=-1)", [(2, 3, 4)], tag="negative-start"),
    Spec(np.transpose, "np.transpose(x, axes=(2, 0, 1))", [(2, 3, 4)], tag="axes-keyword"),
    # indexing.py
    Spec(np.partition, "np.partition(x, 1)", [(4,), (2, 5)]),
    Spec(np.partition, "np.partition(x, (0, 2), axis=0)", [(4, 3)], tag="kths-axis0"),
    Spec(np.partition, "np.partition(x, 2, axis=None)", [(2, 3)], tag="flat"),
    Spec(operator.getitem, "x[np.argsort(x)]", [(5,)], tag="argsort"),
    Spec(operator.getitem, "x[np.argsort(y)] * y", [((4,), (4,))], tag="argsort-of-other"),
    Spec(operator.getitem, "x[np.argsort(-x)[:2]]", [(5,)], tag="argsort-top"),
    Spec(np.triu, "np.triu(x, k=-1)", [(2, 3, 4)], tag="k-1-stacked"),
    Spec(np.tril, "np.tril(x, 2)", [(3, 4)], tag="k2"),
    # joining.py
    Spec(np.dsplit, "np.dsplit(x, 2)[1]", [(2, 2, 4)]),
    Spec(np.dsplit, "np.dsplit(x, [1])", [(1, 2, 3)], tag="indices"),
    Spec(np.array_split, "np.array_split(x, 2, axis=1)", [(2, 5)], tag="axis1"),
    Spec(np.hsplit, "np.hsplit(x, [1, 2])", [(2, 4)], tag="indices"),
    Spec(np.vsplit, "np.vsplit(x, 2)", [(4, 2)], tag="sections"),
    Spec(np.append, "np.append(x, y)", [((3,), (2,)), ((2, 3), ()), ((2, 2), (3,)), (PYFLOAT, (2,))]),
    Spec(np.append, "np.append(x, y, axis=1)", [((2, 3), (2, 1))], tag="axis1"),
    Spec(np.append, "np.append(x, 1.0)", [(3,)], tag="constant"),
    Spec(np.select, "np.select([x > 0, y > 0], [x, y * 2.0], z)", [((3,), (3,), (3,)), ((2, 3), (3,), ())]),
    Spec(np.select, "np.select([x > 0.5], [x])", [(4,), (2, 3)], tag="default-0"),
    Spec(np.select, "np.select([y > 0, x < -1.0], [x * y, np.sin(x)], 1.5)", [((3,), (3,)), ((2, 3), (2, 3))],
         tag="products"),
    Spec(np.select, "np.select([x > 0], [y], 0.0)", [((3,), ()), ((2, 3), (3,))], tag="broadcast-choice"),
    *([Spec(np.row_stack, "np.row_stack([x, y])", [((3,), (3,)), ((1, 3), (2, 3))])]
      if hasattr(np, "row_stack") else []),
    # piecewise.py and arithmetic.py
    Spec(np.nan_to_num, "np.nan_to_num(x)", UNARY),
    Spec(np.nan_to_num, "np.nan_to_num(np.where(y > 0, x, np.nan))", [((3,), (3,)), ((2, 3), (2, 3))], tag="nan"),
    Spec(np.nan_to_num, "np.nan_to_num(np.where(y > 1.0, np.inf, np.where(y < -1.0, -np.inf, "
                        "np.where(y > 0, x, np.nan))), nan=z, posinf=2.0 * z, neginf=-z)",
         [((5,), (5,), PYFLOAT), ((2, 3), (2, 3), ())], tag="replacements"),
    Spec(np.real, "np.real(x)", UNARY),
    Spec(np.conjugate, "np.conj(x) * x + np.conjugate(x)", UNARY),
    Spec(np.real_if_close, "np.real_if_close(x)", UNARY),
    Spec(np.real_if_close, "np.real_if_close(x, tol=1000)", [(3,)], tag="tol"),
    # reductions.py
    Spec(np.nancumsum, "np.nancumsum(np.where(y > 0, x, np.nan))", [((4,), (4,)), ((2, 3), (2, 3))]),
    Spec(np.nancumsum, "np.nancumsum(x, axis=1)", [(2, 3)], tag="axis1"),
    Spec(np.nancumprod, "np.nancumprod(np.where(y > 0, x, np.nan))", [((4,), (4,)), ((2, 3), (2, 3))]),
    Spec(np.nancumprod, "np.nancumprod(x, axis=0)", [(3, 2)], tag="axis0"),
    Spec(np.cumprod, "np.cumprod(x, axis=1)", [(2, 3, 2)], tag="axis1"),
    # numerical.py
    Spec(np.diff, "np.diff(x)", [(4,), (2, 3)]),
    Spec(np.diff, "np.diff(x, 2, axis=0)", [(4, 3)], tag="n2-axis0"),
    Spec(np.diff, "np.diff(x, n=3)", [(5,)], tag="n3"),
    Spec(np.diff, "np.diff(x, 0) * x", [(3,)], tag="n0"),
    Spec(np.diff, "np.diff(x, prepend=y)", [((4,), PYFLOAT), ((2, 3), ())], tag="prepend"),
    Spec(np.diff, "np.diff(x, append=y, axis=0)", [((3, 2), (1, 2)), ((3, 2), (2, 2))], tag="append"),
    Spec(np.diff, "np.diff(x, 2, prepend=y, append=z)", [((4,), (), (2,)), ((2, 3), (2, 1), ())], tag="both"),
    Spec(np.gradient, "np.gradient(x)", [(4,), (3, 4)]),
    Spec(np.gradient, "np.gradient(x, 0.5, edge_order=2)", [(4,), (3, 4)], tag="spacing-edge2"),
    Spec(np.gradient, "np.gradient(x, y)", [((4,), PYFLOAT), ((3, 4), ())], domain=("real", "positive"),
         tag="spacing"),
    Spec(np.gradient, "np.gradient(x, np.cumsum(y))", [((5,), (5,))], domain=("real", "positive"), tag="coordinates"),
    Spec(np.gradient, "np.gradient(x, y, np.cumsum(z), edge_order=2)", [((3, 4), PYFLOAT, (4,))],
         domain=("real", "positive", "positive"), tag="both-axes"),
    Spec(np.gradient, "np.gradient(x, axis=1)", [(3, 4)], tag="axis1"),
    Spec(np.gradient, "np.gradient(x, np.cumsum(y), axis=0, edge_order=2)", [((4, 2), (4,))],
         domain=("real", "positive"), tag="coordinates-axis0"),
    Spec(np.trapezoid, "np.trapezoid(x)", [(4,), (2, 3)]),
    Spec(np.trapezoid, "np.trapezoid(x, y)", [((4,), (4,)), ((2, 4), (4,))], tag="x"),
    Spec(np.trapezoid, "np.trapezoid(x, y, axis=0)", [((3, 2), (3,)), ((3, 2), (3, 2)), ((3, 2), (3, 1))],
         tag="x-axis0"),
    Spec(np.trapezoid, "np.trapezoid(x, dx=y)", [((4,), PYFLOAT), ((2, 3), ())], tag="dx"),
    Spec(np.trapezoid, "np.trapezoid(x, dx=y, axis=0)", [((3, 2), (2,))], tag="dx-axis0"),
    *([Spec(np.trapz, "np.trapz(x, y)", [((4,), (4,))])] if hasattr(np, "trapz") else []),
    Spec(np.interp, "np.interp(2.0 * x, np.cumsum(y), z)", [((5,), (4,), (4,)), ((2, 3), (4,), (4,)), ((), (3,), (3,))],
         domain=("positive", "positive", "real")),
    Spec(np.interp, "np.interp(x, np.cumsum(y), np.sin(y), left=z, right=-z)",
         [((6,), (3,), PYFLOAT), ((2, 3), (4,), ())], domain=("real", "positive", "real"), tag="left-right"),
    Spec(np.interp, "np.interp(4.0 * x, np.cumsum(y), np.cos(y), right=z)", [((6,), (3,), PYFLOAT)],
         domain=("positive", "positive", "real"), tag="right"),
    Spec(np.interp, "np.interp(x, [-1.0, 0.0, 2.0], y)", [((5,), (3,)), (PYFLOAT, (3,))], tag="list-knots"),
    Spec(np.interp, "np.interp([0.2, 0.6, 1.5], [0.0, 0.5, 1.0], x) * y", [((3,), ()), ((3,), (3,))], tag="list-points"),
    Spec(np.polyval, "np.polyval(x, y)", [((3,), (4,)), ((4,), ()), ((1,), (2, 3)), ((3,), PYFLOAT)]),
    # linalg.py
    Spec(np.cross, "np.cross(x, y)", [((2,), (3,)), ((3,), (2,)), ((2, 2), (2,)), ((2,), (2, 3))], tag="two-vectors"),
    Spec(np.cross, "np.cross(x, y, axisa=0, axisc=0)", [((2, 2), (2, 3))], tag="two-vectors-axes"),
    Spec(np.cross, "np.cross(x, y, axisa=0)", [((3, 2), (2, 3))], tag="axisa"),
    Spec(np.cross, "np.cross(x, y, axisa=0, axisb=1, axisc=0)", [((3, 2), (2, 3)), ((3, 2, 2), (2, 3))],
         tag="axes"),
    Spec(np.cross, "np.cross(x, y, axis=0)", [((3, 2), (3, 2)), ((3,), (3, 2))], tag="axis"),
    Spec(np.convolve, "np.convolve(x, y)", [((5,), (3,)), ((3,), (5,)), ((2,), (2,)), ((), (3,))]),
    Spec(np.convolve, "np.convolve(x, y, mode='same')", [((5,), (3,)), ((2,), (4,)), ((4,), (2,))], tag="same"),
    Spec(np.convolve, "np.convolve(x, y, 'valid')", [((5,), (3,)), ((3,), (5,))], tag="valid"),
    Spec(np.correlate, "np.correlate(x, y)", [((5,), (3,)), ((3,), (5,))]),
    Spec(np.correlate, "np.correlate(x, y, 'same')", [((5,), (3,)), ((2,), (4,)), ((2,), (5,)), ((4,), (2,))],
         tag="same"),
    Spec(np.correlate, "np.correlate(x, y, mode='full')", [((4,), (3,)), ((2,), (4,))], tag="full"),
    Spec(np.tensordot, "np.tensordot(x, y, axes=0)", [((2,), (3,)), ((2, 2), (3,))], tag="axes0"),
    Spec(np.tensordot, "np.tensordot(x, y, axes=(1, 0))", [((2, 3), (3, 2))], tag="int-pair"),
    Spec(np.tensordot, "np.tensordot(x, y, axes=([1, -1], [0, 2]))", [((2, 3, 4), (3, 2, 4))], tag="negative"),
    Spec(np.tensordot, "np.tensordot(x, y, [[2], [0]])", [((2, 3, 4), (4, 2))], tag="lists"),
    Spec(np.tensordot, "np.tensordot(x, y, 2)", [((2, 3, 4), (3, 4))], tag="positional"),
    Spec(np.tensordot, "np.tensordot(x, y, axes=((0, 1), (1, 0)))", [((2, 3), (3, 2, 2))], tag="swapped"),
    Spec(np.outer, "np.outer(x, y)", [((2, 3), (2, 2))], tag="matrices"),
    # decompositions.py
    Spec(np.linalg.eig, "np.linalg.eig(x + 0.1 * y)", [((3, 3), (3, 3)), ((2, 3, 3), (3, 3))],
         domain=("symmetric", "real")),
    Spec(np.linalg.eig, "np.linalg.eig(x + 0.1 * y)[0]", [((3, 3), (3, 3))], domain=("symmetric", "real"),
         tag="values"),
    Spec(np.linalg.eig, "np.linalg.eig(x + 0.1 * y)[1]", [((3, 3), (3, 3))], domain=("symmetric", "real"),
         tag="vectors"),
    Spec(np.linalg.eigvals, "np.linalg.eigvals(x + 0.1 * y)", [((3, 3), (3, 3)), ((2, 3, 3), (3, 3))],
         domain=("symmetric", "real")),
    Spec(np.linalg.qr, "np.linalg.qr(x)", [(3, 3), (4, 2), (2, 4), (2, 3, 2)]),
    Spec(np.linalg.qr, "np.linalg.qr(x)[1]", [(3, 2)], tag="r-of-reduced"),
    Spec(np.linalg.qr, "np.linalg.qr(x, mode='r')", [(3, 2), (2, 3)], tag="mode-r"),
    Spec(np.linalg.qr, "np.linalg.qr(x, mode='complete')[1]", [(4, 2)], tag="complete-r"),
    Spec(np.linalg.qr, "np.linalg.qr(x, 'complete')", [(2, 3), (3, 3)], tag="complete"),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(x, y)[0]", [((4, 2), (4,)), ((3, 3), (3, 2)), ((2, 3), (2,))]),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(x, y)", [((4, 2), (4,)), ((4, 2), (4, 3))], tag="all"),
    Spec(np.linalg.lstsq, "np.linalg.lstsq(x, y, rcond=None)[1]", [((5, 2), (5, 2))], tag="residuals"),
    Spec(np.linalg.pinv, "np.linalg.pinv(x, hermitian=True)", [(3, 3)], domain="symmetric", tag="hermitian"),
    Spec(np.linalg.pinv, "np.linalg.pinv(x, hermitian=True)", [(3, 3)], domain="wellcond", tag="hermitian-lower"),
    Spec(np.linalg.matrix_power, "np.linalg.matrix_power(x, 1) + np.linalg.matrix_power(x, -1)", [(2, 2)],
         domain="wellcond", tag="plus-minus-one"),
    # the helpers of these rules (runtime_helpers_numerical.py)
    Spec(runtime_numerical.undiff, "runtime_numerical.undiff(x)", [(3,), (2, 3)]),
    Spec(runtime_numerical.undiff, "runtime_numerical.undiff(x, 2, axis=0)", [(2, 3)], tag="n2-axis0"),
    Spec(runtime_numerical.undiff_piece, "runtime_numerical.undiff_piece(x, 0, y, 1, -1, 0.0, np.ones(2))",
         [((5,), (3,))], tag="prepend"),
    Spec(runtime_numerical.undiff_piece, "runtime_numerical.undiff_piece(x, 1, y, 2, 0, np.ones((1, 2)))",
         [((2, 2), (3, 2))], tag="middle"),
    Spec(runtime_numerical.diff_piece, "runtime_numerical.diff_piece(x, 0, y, 1, -1, 0.0, np.ones(2))",
         [((), (3,))], tag="prepend"),
    Spec(runtime_numerical.diff_piece, "runtime_numerical.diff_piece(x, 2, y, 2, 0, None, np.ones((1, 2)))",
         [((1, 2), (3, 2))], tag="append"),
    Spec(runtime_stencils.gradient_unstack, "runtime_stencils.gradient_unstack(x, y)", [((2, 2, 3), (2, 3))]),
    Spec(runtime_stencils.gradient_unstack, "runtime_stencils.gradient_unstack(x, y, axis=1)", [((1, 2, 3), (2, 3))],
         tag="one-axis"),
    Spec(runtime_stencils.gradient_restack, "runtime_stencils.gradient_restack([x, y], z)",
         [((2, 3), (2, 3), (2, 3))]),
    Spec(runtime_stencils.gradient_restack, "runtime_stencils.gradient_restack(x, y, axis=0)", [((3,), (3,))],
         tag="one-axis"),
    Spec(runtime_arrays.unselect, "runtime_arrays.unselect(x, [y > 0, y < -0.5], [y, 1.0])", [((3,), (3,))]),
    Spec(runtime_arrays.unselect, "runtime_arrays.unselect(x, [y > 0], [z])", [((2, 3), (2, 3), (3,))],
         tag="broadcast"),
    # ---- end of NumPy breadth ------------------------------------------------------------------------------
    # srcad's own runtime helpers (grad_templates/runtime_helpers.py): generated code calls them,
    # so differentiating a derivative differentiates them -------------------------------------
    Spec(runtime.check_seed, "runtime.check_seed(x * 2.0, x)", UNARY),
    Spec(runtime.unbroadcast, "runtime.unbroadcast(x, y)", [((2, 3), (3,)), ((3,), (3,)), ((2, 3), ())]),
    Spec(runtime.broadcast_like, "runtime.broadcast_like(x, y)", [((3,), (2, 3)), ((), (3,)), ((3,), (3,))]),
    Spec(runtime.unreduce, "runtime.unreduce(x, y)", [((), (3,)), ((), (2, 3))]),
    Spec(runtime.unreduce, "runtime.unreduce(x, y, axis=1)", [((2,), (2, 3))], tag="axis1"),
    Spec(runtime.copied, "runtime.copied(x)", UNARY),
    Spec(runtime.keep_last, "runtime.keep_last(x, np.array([0, 2, 0]), np.zeros(3))", [(3,), (3, 2)]),
    Spec(runtime.cast_gate, "runtime.cast_gate(x, int) + runtime.cast_gate(x, float) * x", UNARY),
    Spec(runtime.add_at, "runtime.add_at(x * 1.0, [0, 2, 0], y)", [((3,), (3,)), ((3, 2), (3, 2))], tag="fancy"),
    Spec(runtime.add_at, "runtime.add_at(x * 1.0, slice(1, 3), y)", [((4,), (2,)), ((4,), ()), ((4, 2), (2,))],
         tag="slice"),
    Spec(runtime.add_lists, "np.stack(runtime.add_lists([x, x * 2.0], [y, np.sin(y)]))", [((3,), (3,)), ((), ())]),
    Spec(runtime.add_structures, "np.stack(runtime.add_structures([x * y, [x]], [y, [np.cos(y)]])[1])",
         [((3,), (3,)), ((2, 3), (2, 3))]),
    Spec(runtime.filled_like, "runtime.filled_like(x, y)",
         [(PYFLOAT, (2, 3)), ((), (2, 3)), ((3,), (3,)), ((2, 3), (2, 3))]),
    Spec(runtime.matmul_lhs_grad, "runtime.matmul_lhs_grad(x, y, z)", MATMUL_GRADS),
    Spec(runtime.matmul_rhs_grad, "runtime.matmul_rhs_grad(x, y, z)", MATMUL_GRADS),
    Spec(runtime.dot_lhs_grad, "runtime.dot_lhs_grad(x, y, z)", DOT_GRADS),
    Spec(runtime.dot_rhs_grad, "runtime.dot_rhs_grad(x, y, z)", DOT_GRADS),
    Spec(runtime.strong_product, "runtime.strong_product(x, y)", BINARY_PY),
    Spec(runtime.strong_quotient, "runtime.strong_quotient(x, y)", BINARY_PY, domain=("real", "positive")),
    Spec(runtime.digamma, "runtime.digamma(x)", SCALAR, domain="positive"),
    Spec(runtime.polygamma, "runtime.polygamma(2, x)", SCALAR, domain="positive"),
    Spec(runtime.sinc_slope, "runtime.sinc_slope(x)", UNARY),
    Spec(runtime_linalg.per_matrix, "runtime_linalg.per_matrix(x)", [(), (2,)]),
    Spec(runtime_linalg.inner_lhs_grad, "runtime_linalg.inner_lhs_grad(x, y, z)", INNER_GRADS),
    Spec(runtime_linalg.inner_rhs_grad, "runtime_linalg.inner_rhs_grad(x, y, z)", INNER_GRADS),
    Spec(runtime_linalg.tensordot_lhs_grad, "runtime_linalg.tensordot_lhs_grad(x, y, z)",
         [((2, 2), (2, 3, 4), (3, 4, 2))]),
    Spec(runtime_linalg.tensordot_lhs_grad, "runtime_linalg.tensordot_lhs_grad(x, y, z, axes=([0, 2], [2, 1]))",
         [((3, 3), (2, 3, 4), (3, 4, 2))], tag="pairs"),
    Spec(runtime_linalg.tensordot_rhs_grad, "runtime_linalg.tensordot_rhs_grad(x, y, z, axes=1)",
         [((2, 2), (2, 3), (3, 2))]),
    Spec(runtime_linalg.kron_lhs_grad, "runtime_linalg.kron_lhs_grad(x, y, z)", KRON_GRADS),
    Spec(runtime_linalg.kron_rhs_grad, "runtime_linalg.kron_rhs_grad(x, y, z)", KRON_GRADS),
    Spec(runtime_linalg.cross_lhs_grad, "runtime_linalg.cross_lhs_grad(x, y, z)",
         [((3,), (3,), (3,)), ((2, 3), (2, 3), (3,))]),
    Spec(runtime_linalg.cross_rhs_grad, "runtime_linalg.cross_rhs_grad(x, y, z)",
         [((3,), (3,), (3,)), ((2, 3), (3,), (2, 3))]),
    Spec(runtime_linalg.einsum_of, "runtime_linalg.einsum_of('ij,jk->ik', x, y)", [((2, 3), (3, 4))]),
    Spec(runtime_linalg.einsum_of, "runtime_linalg.einsum_of('ij,jk,k->i', x, y, z)", [((2, 3), (3, 4), (4,))],
         tag="three"),
    Spec(runtime_linalg.einsum_grad, "runtime_linalg.einsum_grad('ij,jk->ik', x, 0, y, z)",
         [((2, 4), (2, 3), (3, 4))], tag="first"),
    Spec(runtime_linalg.einsum_grad, "runtime_linalg.einsum_grad('ij,jk->ik', x, 1, y, z)",
         [((2, 4), (2, 3), (3, 4))], tag="second"),
    Spec(runtime_linalg.einsum_grad, "runtime_linalg.einsum_grad('ij,jk,k->i', x, 2, y, z, np.ones(4))",
         [((2,), (2, 3), (3, 4))], tag="third"),
    Spec(runtime_linalg.einsum_grad, "runtime_linalg.einsum_grad('ii->i', x, 0, y)", [((3,), (3, 3))], tag="diagonal"),
    Spec(runtime_linalg.einsum_grad, "runtime_linalg.einsum_grad('...i,...i->...', x, 1, y, z)",
         [((3,), (3, 2), (1, 2)), ((3,), (3, 2), (2,))], tag="broadcast"),
    Spec(runtime_linalg.norm_direction, "runtime_linalg.norm_direction(x)", [(3,), (2, 3)], domain="nonzero"),
    Spec(runtime_linalg.norm_direction, "runtime_linalg.norm_direction(x, 3)", [(4,)], domain="nonzero", tag="ord3"),
    Spec(runtime_linalg.norm_direction, "runtime_linalg.norm_direction(x, 1)", [(4,)], domain="nonzero", tag="ord1"),
    Spec(runtime_linalg.norm_direction, "runtime_linalg.norm_direction(x, 'fro')", [(2, 3)], domain="nonzero",
         tag="fro"),
    Spec(runtime_linalg.norm_direction, "runtime_linalg.norm_direction(x, axis=1)", [(2, 3)], domain="nonzero",
         tag="axis1"),
    Spec(runtime_linalg.solve_like, "runtime_linalg.solve_like(x, y, z)",
         [((3, 3), (3,), (3,)), ((3, 3), (3, 2), (3, 2)), ((2, 3, 3), (3,), (3,))],
         domain=("wellcond", "real", "real")),
    Spec(runtime_linalg.apply_like, "runtime_linalg.apply_like(x, y, z)",
         [((3, 3), (3,), (3,)), ((3, 3), (3, 2), (3, 2)), ((2, 3, 3), (3,), (3,))]),
    Spec(runtime_linalg.outer_like, "runtime_linalg.outer_like(x, y, np.eye(3), z)",
         [((3,), (3,), (3,)), ((3, 2), (3, 2), (3, 2))]),
    Spec(runtime_reductions.prod_others, "runtime_reductions.prod_others(x)", UNARY),
    Spec(runtime_reductions.prod_others, "runtime_reductions.prod_others(x, axis=1)", [(2, 3)], tag="axis1"),
    Spec(runtime_reductions.prod_others_tangent, "runtime_reductions.prod_others_tangent(x, y)",
         [((3,), (3,)), ((2, 3), (2, 3)), ((), ())]),
    Spec(runtime_reductions.prod_others_tangent, "runtime_reductions.prod_others_tangent(x, y, axis=(0, 2))",
         [((2, 3, 2), (2, 3, 2))], tag="axes"),
    Spec(runtime_reductions.prod_others_tangent2, "runtime_reductions.prod_others_tangent2(x, y, z)",
         [((4,), (4,), (4,)), ((2, 3), (2, 3), (2, 3))]),
    Spec(runtime_reductions.prod_others_tangent2, "runtime_reductions.prod_others_tangent2(x, y, z, axis=0)",
         [((3, 2), (3, 2), (3, 2))], tag="axis0"),
    Spec(runtime_reductions.prod_others_tangent3, "runtime_reductions.prod_others_tangent3(x, y, z, x * y - z)",
         [((5,), (5,), (5,)), ((2, 4), (2, 4), (2, 4))]),
    Spec(runtime_reductions.prod_others_tangent3, "runtime_reductions.prod_others_tangent3(x, y, z, y + z, axis=0)",
         [((4, 2), (4, 2), (4, 2))], tag="axis0"),
    Spec(runtime_reductions.logsumexp_weights, "runtime_reductions.logsumexp_weights(x, y)", [((3,), ())]),
    Spec(runtime_reductions.logsumexp_weights, "runtime_reductions.logsumexp_weights(x, y, z)",
         [((3,), (), (3,)), ((2, 3), (), (3,))], tag="weights"),
    Spec(runtime_reductions.logsumexp_weights, "runtime_reductions.logsumexp_weights(x, y, axis=1)",
         [((2, 3), (2,))], tag="axis1"),
    Spec(runtime_reductions.logsumexp_weights, "runtime_reductions.logsumexp_weights(x, y, axis=0, keepdims=True)",
         [((2, 3), (1, 3))], tag="keepdims"),
    Spec(runtime_reductions.uncumsum, "runtime_reductions.uncumsum(x, y)", [((4,), (4,)), ((6,), (2, 3))]),
    Spec(runtime_reductions.uncumsum, "runtime_reductions.uncumsum(x, y, axis=1)", [((2, 3), (2, 3))], tag="axis1"),
    Spec(runtime_reductions.unsum, "runtime_reductions.unsum(x, [y, z])", [((), (), ()), ((3,), (3,), (3,))]),
    Spec(runtime_reductions.unsum, "runtime_reductions.unsum(x, y)", [((3,), (2, 3))], tag="array"),
    Spec(runtime_reductions.nan_centered, "runtime_reductions.nan_centered(x, y)", [((3,), (3,)), ((2, 3), (2, 3))]),
    Spec(runtime_reductions.nan_centered, "runtime_reductions.nan_centered(x, y, axis=1)", [((2, 3), (2, 3))],
         tag="axis1"),
    Spec(runtime_limits.xdivy, "runtime_limits.xdivy(x, y)", BINARY_PY, domain=("real", "nonzero")),
    Spec(runtime_limits.xlogy, "runtime_limits.xlogy(x, y)", BINARY_PY, domain=("real", "positive")),
    Spec(runtime_reductions.extremum_grad, "runtime_reductions.extremum_grad(x, [1.0, 3.0, 3.0], 3.0)",
         [(), PYFLOAT]),
    Spec(runtime_reductions.extremum_grad, "runtime_reductions.extremum_grad(x, 2.0, 2.0, other=2.0)",
         [(), PYFLOAT], tag="tie"),
    Spec(runtime_reductions.extremum_tangent, "runtime_reductions.extremum_tangent([x, y, x], [1.0, 3.0, 3.0], 3.0)",
         [((), ()), (PYFLOAT, PYFLOAT)]),
    Spec(runtime_reductions.extremum_tangent, "runtime_reductions.extremum_tangent(x, 3.0, 3.0, other=1.0)",
         [(), PYFLOAT], tag="pair"),
    Spec(runtime_shapes.unconcatenate, "runtime_shapes.unconcatenate(x, [y, z])[1]",
         [((5,), (2,), (3,)), ((3, 3), (1, 3), (2, 3))]),
    Spec(runtime_shapes.unconcatenate, "runtime_shapes.unconcatenate(x, [y, z], axis=1)[0]",
         [((2, 4), (2, 1), (2, 3))], tag="axis1"),
    Spec(runtime_shapes.unconcatenate, "runtime_shapes.unconcatenate(x, [y, z], axis=None)[0]",
         [((7,), (2, 2), (3,))], tag="flat"),
    Spec(runtime_shapes.unstack, "runtime_shapes.unstack(x, [y, z])", [((2, 3), (3,), (3,))]),
    Spec(runtime_shapes.unstack, "runtime_shapes.unstack(x, [y, z], axis=-1)", [((3, 2), (3,), (3,))],
         tag="axis-1"),
    Spec(runtime_shapes.unhstack, "runtime_shapes.unhstack(x, [y, z])[1]",
         [((5,), (2,), (3,)), ((2, 4), (2, 1), (2, 3))]),
    Spec(runtime_shapes.unvstack, "runtime_shapes.unvstack(x, [y, z])[1]",
         [((2, 3), (3,), (3,)), ((3, 3), (1, 3), (2, 3))]),
    Spec(runtime_shapes.undstack, "runtime_shapes.undstack(x, [y, z])", [((1, 3, 2), (3,), (3,))]),
    Spec(runtime_shapes.uncolumn_stack, "runtime_shapes.uncolumn_stack(x, [y, z])[1]",
         [((3, 2), (3,), (3,)), ((3, 3), (3,), (3, 2))]),
    Spec(runtime_shapes.unarray, "runtime_shapes.unarray(x, [y, z])", [((2, 3), (3,), (3,))]),
    Spec(runtime_shapes.unarray, "runtime_shapes.unarray(x, y)", [((2, 3), (2, 3))], tag="array"),
    Spec(runtime_shapes.concat_item, "runtime_shapes.concat_item(x)", [(), (3,), (2, 3), PYFLOAT]),
    Spec(runtime_shapes.concat_item, "runtime_shapes.concat_item(x, ndmin=2, trans1d=0)", [(), (3,), (2, 3)],
         tag="column"),
    Spec(runtime_shapes.concat_item, "runtime_shapes.concat_item(x, 3, 1)", [(3,), (2, 3)], tag="ndmin3"),
    Spec(runtime_shapes.concat_item, "runtime_shapes.concat_item(x, alone=True)", [(), (3,)], tag="alone"),
    Spec(runtime_shapes.sample_axis, "runtime_shapes.sample_axis(x, y)", [((3,), (4, 3)), ((), (4,))]),
    Spec(runtime_shapes.sample_axis, "runtime_shapes.sample_axis(x, y, axis=-1)", [((3,), (2, 3, 4)),
                                                                                ((), (2, 3, 4))], tag="axis"),
    Spec(runtime_shapes.unarray, "runtime_shapes.unarray(x, [[y, z], [z, y]])", [((2, 2), PYFLOAT, PYFLOAT)],
         tag="nested"),
    Spec(runtime_shapes.unrepeat, "runtime_shapes.unrepeat(x, y, 2)", [((6,), (3,)), ((12,), (2, 3))]),
    Spec(runtime_shapes.unrepeat, "runtime_shapes.unrepeat(x, y, [1, 0, 2], axis=1)", [((2, 3), (2, 3))],
         tag="counts-axis1"),
    Spec(runtime_shapes.untile, "runtime_shapes.untile(x, y, 2)", [((6,), (3,)), ((2, 6), (2, 3))]),
    Spec(runtime_shapes.untile, "runtime_shapes.untile(x, y, (2, 1, 2))", [((2, 2, 6), (2, 3))], tag="reps"),
    Spec(runtime_shapes.unpad, "runtime_shapes.unpad(x, y, 1)", [((5,), (3,)), ((4, 5), (2, 3))]),
    Spec(runtime_shapes.unpad, "runtime_shapes.unpad(x, y, (2, 1), mode='edge')", [((6,), (3,))], tag="edge"),
    Spec(runtime_shapes.unpad, "runtime_shapes.unpad(x, y, 2, mode='reflect')", [((8,), (4,))], tag="reflect"),
    Spec(runtime_shapes.untake, "runtime_shapes.untake(x, y, [2, 0, 2])", [((3,), (3,))]),
    Spec(runtime_shapes.untake, "runtime_shapes.untake(x, y, [[1, 0], [1, 1]], axis=1)", [((2, 2, 2), (2, 3))],
         tag="axis1"),
    Spec(runtime_shapes.untake, "runtime_shapes.untake(x, y, [4, -1], mode='wrap')", [((2,), (3,))], tag="wrap"),
    Spec(runtime_shapes.untake_along_axis,
         "runtime_shapes.untake_along_axis(x, y, np.array([[2, 0, 2], [1, 1, 0]]), axis=1)", [((2, 3), (2, 3))]),
    Spec(runtime_shapes.untake_along_axis, "runtime_shapes.untake_along_axis(x, y, np.array([5, 0, 5]), axis=None)",
         [((3,), (2, 3))], tag="flat"),
    Spec(runtime_shapes.undiag, "runtime_shapes.undiag(x, y)", [((3, 3), (3,)), ((2,), (2, 3))]),
    Spec(runtime_shapes.undiag, "runtime_shapes.undiag(x, y, 1)", [((3, 3), (2,)), ((3,), (3, 4))], tag="k1"),
    Spec(runtime_shapes.undiagonal, "runtime_shapes.undiagonal(x, y)", [((3,), (3, 3)), ((2,), (2, 3))]),
    Spec(runtime_shapes.undiagonal, "runtime_shapes.undiagonal(x, y, 1, 2, 0)", [((2, 2), (3, 2, 4))],
         tag="offset-axes"),
    Spec(runtime_shapes.untrace, "runtime_shapes.untrace(x, y)", [((), (3, 3)), ((), (2, 3))]),
    Spec(runtime_shapes.untrace, "runtime_shapes.untrace(x, y, -1, axis1=1, axis2=2)", [((2,), (2, 3, 3))],
         tag="offset-axes"),
]

# complex numbers (grad_templates/complex_parts.py; README, "Complex numbers") ------------------------------------
SPECS += [
    Spec(operator.add, "x + y", [((3,), (3,)), ((2, 3), (3,)), (PYFLOAT, (2,))], domain="complex", tag="complex"),
    Spec(operator.sub, "x - y", [((3,), (3,)), ((3, 1), (1, 2))], domain=("complex", "real"), tag="complex"),
    Spec(operator.mul, "x * y", [((3,), (3,)), ((2, 3), (3,)), (PYFLOAT, PYFLOAT)], domain="complex", tag="complex"),
    Spec(operator.mul, "x * y", [((3,), (3,)), ((2, 1), (3,))], domain=("real", "complex"), tag="complex-real"),
    Spec(operator.truediv, "x / y", [((3,), (3,)), ((2, 3), ())], domain=("complex", "complex_nonzero"), tag="complex"),
    Spec(operator.pow, "x ** 3", [(3,), PYFLOAT], domain="complex", tag="complex-literal"),
    Spec(operator.neg, "-x", [(3,)], domain="complex", tag="complex"),
    Spec(np.exp, "np.exp(x)", UNARY_PY, domain="complex", tag="complex"),
    Spec(np.log, "np.log(x)", [(3,), (2, 3)], domain="complex_nonzero", tag="complex"),
    Spec(np.sqrt, "np.sqrt(x)", [(3,), (2, 3)], domain="complex_nonzero", tag="complex"),
    Spec(np.sin, "np.sin(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.cos, "np.cos(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.tan, "np.tan(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.sinh, "np.sinh(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.cosh, "np.cosh(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.tanh, "np.tanh(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.square, "np.square(x)", [(3,)], domain="complex", tag="complex"),
    Spec(np.reciprocal, "np.reciprocal(x)", [(3,)], domain="complex_nonzero", tag="complex"),
    Spec(np.sum, "np.sum(x, axis=1)", [(2, 3)], domain="complex", tag="complex"),
    Spec(np.mean, "np.mean(x)", [(2, 3)], domain="complex", tag="complex"),
    Spec(np.prod, "np.prod(x, axis=0)", [(3, 2)], domain="complex_nonzero", tag="complex"),
    Spec(np.dot, "np.dot(x, y)", [((2, 3), (3,)), ((3,), (3, 2))], domain="complex", tag="complex"),
    Spec(operator.matmul, "x @ y", [((2, 3), (3, 2))], domain=("complex", "real"), tag="complex"),
    Spec(np.einsum, "np.einsum('ij,j->i', x, y)", [((2, 3), (3,))], domain="complex", tag="complex"),
    Spec(np.reshape, "np.reshape(x, (3, 2))", [(2, 3)], domain="complex", tag="complex"),
    Spec(np.transpose, "np.transpose(x)", [(2, 3)], domain="complex", tag="complex"),
    Spec(np.concatenate, "np.concatenate([x, y])", [((2,), (3,))], domain=("complex", "real"), tag="complex"),
    Spec(np.stack, "np.stack([x, y], axis=1)", [((3,), (3,))], domain="complex", tag="complex"),
    Spec(operator.getitem, "x[1:, ::-1]", [(3, 3)], domain="complex", tag="complex"),
    Spec(np.abs, "np.abs(x)", UNARY_PY, domain="complex_nonzero", tag="complex"),
    Spec(np.real, "np.real(x)", UNARY, domain="complex", tag="complex"),
    Spec(np.imag, "np.imag(x)", UNARY, domain="complex", tag="complex"),
    Spec(np.conjugate, "np.conj(x) * y + np.conjugate(x)", [((3,), (3,))], domain="complex", tag="complex"),
    Spec(np.angle, "np.angle(x)", UNARY, domain="complex_nonzero", tag="complex"),
    Spec(np.real_if_close, "np.real_if_close(x)", [(3,)], domain="complex", tag="complex"),
    Spec(complex, "complex(x, y) * (2.0 - 1.0j)", [(PYFLOAT, PYFLOAT), ((), ())]),
    Spec(runtime.real_input, "runtime.real_input(x)", [(3,)]),
    Spec(runtime.complex_abs, "runtime.complex_abs(x)", [(3,)], domain="complex_nonzero"),
    Spec(runtime.unit_phase, "runtime.unit_phase(x)", [(3,)], domain="complex_nonzero"),
    Spec(runtime.real_part, "runtime.real_part(x)", [(3,)], domain="complex"),
    Spec(runtime.imag_part, "runtime.imag_part(x)", [(3,)], domain="complex"),
    Spec(runtime.conjugate, "runtime.conjugate(x)", [(3,)], domain="complex"),
    Spec(runtime.phase, "runtime.phase(x)", [(3,)], domain="complex_nonzero"),
    Spec(runtime.close_real, "runtime.close_real(x)", [(3,)], domain="complex"),
    Spec(runtime.like_real, "runtime.like_real(x, y)", [((3,), (3,))], domain=("complex", "real")),
    Spec(runtime.like_real, "runtime.like_real(x, y)", [((3,), (3,))], domain=("real", "complex"), tag="to-complex"),
    Spec(runtime.like_kind, "runtime.like_kind(x, y)", [((3,), (3,))], domain=("complex", "real")),
    Spec(runtime.fft_transpose, "runtime.fft_transpose(x, y, 5, 0, 'ortho', False)", [((5, 2), (3, 2))],
         domain=("complex", "real")),
    Spec(runtime.fft_transpose, "runtime.fft_transpose(x, y, (2, 4), None, None, True, None)", [((2, 4), (3, 3))],
         domain="complex", tag="inverse"),
    Spec(runtime.fft_fitted, "runtime.fft_fitted(x, y, z, 5, 0, 'ortho', False)", [((3, 2), (3, 2), (5, 2))],
         domain=("complex", "real", "complex")),
    Spec(runtime.fft_fitted, "runtime.fft_fitted(x, y, z, None, -1, 'forward', True)", [((3,), (3,), (4,))],
         domain="complex", tag="inverse"),
    Spec(runtime.rfft_transpose, "runtime.rfft_transpose(x, y, (3, 4), (0, 1), 'ortho')", [((3, 3), (2, 3))],
         domain=("complex", "real")),
    Spec(runtime.rfft_fitted, "runtime.rfft_fitted(x, y, z, 5, -1, None)", [((2, 3), (2, 3), (2, 3))],
         domain=("real", "real", "complex")),
    Spec(runtime.irfft_transpose, "runtime.irfft_transpose(x, y, None, None, 'forward')", [((4,), (3,)), ((5,), (2,))],
         domain=("real", "complex")),
    Spec(runtime.irfft_fitted, "runtime.irfft_fitted(x, y, z, (2, 4), (1, 0), None)", [((3, 2), (3, 2), (4, 2))],
         domain=("complex", "complex", "real")),
]

# np.linalg.eigh, eigvalsh, svd, norm and np.sort of complex numbers (grad_templates/complex_linalg.py): eigenvectors
# and singular vectors through functions that do not depend on their phases (|v|, v v^H, u v^H), the only ones with
# a derivative
PROJECTOR = "{0}[..., :, :1] @ np.conj(np.swapaxes({0}[..., :, :1], -1, -2))"
SPECS += [
    Spec(np.linalg.eigh, "np.linalg.eigh(x)[0]", [(3, 3), (2, 2, 2)], domain="complex", tag="complex-values"),
    Spec(np.linalg.eigh, "np.abs(np.linalg.eigh(x)[1]) ** 2", [(3, 3)], domain="complex", tag="complex-vectors"),
    Spec(np.linalg.eigh, PROJECTOR.format("np.linalg.eigh(x, UPLO='U')[1]"), [(3, 3), (2, 3, 3)], domain="complex",
         tag="complex-projector-upper"),
    Spec(np.linalg.eigvalsh, "np.linalg.eigvalsh(x, 'U') * y", [((3, 3), (3,))], domain=("complex", "complex"),
         tag="complex"),
    Spec(np.linalg.svd, "np.linalg.svd(x)[1]", [(3, 2), (2, 3), (2, 3, 3)], domain="complex", tag="complex-values"),
    Spec(np.linalg.svd, "np.linalg.svd(x, compute_uv=False)", [(3, 2), (2, 2, 3)], domain="complex",
         tag="complex-values-only"),
    Spec(np.linalg.svd, "np.abs(np.linalg.svd(x, full_matrices=False)[0]) @ np.abs(np.linalg.svd(x)[2])",
         [(3, 2)], domain="complex", tag="complex-vectors"),
    Spec(np.linalg.svd, "np.linalg.svd(x, full_matrices=False)[0] @ np.linalg.svd(x, full_matrices=False)[2]",
         [(2, 3), (3, 3)], domain="complex", tag="complex-polar"),
    Spec(np.linalg.norm, "np.linalg.norm(x)", [(3,), (2, 3)], domain="complex_nonzero", tag="complex"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1) + np.linalg.norm(x, 3) + np.linalg.norm(x, -2)", [(4,)],
         domain="complex_nonzero", tag="complex-p"),
    Spec(np.linalg.norm, "np.linalg.norm(x, np.inf) - np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 0)", [(4,)],
         domain="complex_nonzero", tag="complex-max"),
    Spec(np.linalg.norm, "np.linalg.norm(x, axis=1, keepdims=True) * y", [((2, 3), (2, 1))],
         domain=("complex_nonzero", "complex"), tag="complex-axis"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 'fro') + np.linalg.norm(x, 'nuc')", [(2, 3)], domain="complex_nonzero",
         tag="complex-fro-nuc"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 2) - np.linalg.norm(x, -2)", [(3, 2)], domain="complex_nonzero",
         tag="complex-spectral"),
    Spec(np.linalg.norm, "np.linalg.norm(x, 1, axis=(1, 2)) + np.linalg.norm(x, -1, axis=(2, 1))"
         " + np.linalg.norm(x, np.inf, axis=(1, 2)) + np.linalg.norm(x, -np.inf, axis=(1, 2))", [(2, 3, 2)],
         domain="complex_nonzero", tag="complex-matrix-1-inf"),
    Spec(np.sort, "np.sort(x) * y", [((4,), (4,)), ((2, 3), (3,))], domain="complex", tag="complex"),
    Spec(np.sort, "np.sort(x, axis=0)", [(3, 2)], domain="complex", tag="complex-axis0"),
    Spec(runtime_complex_linalg.hermitian_eigh, "runtime_complex_linalg.hermitian_eigh(x, 'L')[0]", [(3, 3)],
         domain="complex"),
    Spec(runtime_complex_linalg.hermitian_eigvalsh, "runtime_complex_linalg.hermitian_eigvalsh(x)", [(3, 3)],
         domain="complex"),
    Spec(runtime_complex_linalg.complex_svd, "runtime_complex_linalg.complex_svd(x, False)[1]", [(3, 2)],
         domain="complex"),
    Spec(runtime_complex_linalg.complex_norm, "runtime_complex_linalg.complex_norm(x, 2, 0)", [(3, 2)],
         domain="complex_nonzero"),
    Spec(runtime_complex_linalg.complex_sort, "runtime_complex_linalg.complex_sort(x, None)", [(2, 3)],
         domain="complex"),
]

# numpy.fft's transforms (grad_templates/fft.py; tests/test_fft_rules.py tries every n/axis/norm) ----------------
SPECS += [
    Spec(np.fft.fft, "np.fft.fft(x)", [(4,), (2, 3)], domain="complex"),
    Spec(np.fft.fft, "np.fft.fft(x, 5, axis=0, norm='ortho')", [(3, 2)], tag="n-axis"),
    Spec(np.fft.ifft, "np.fft.ifft(x, n=3, norm='forward')", [(4,), (2, 5)], domain="complex"),
    Spec(np.fft.fft2, "np.fft.fft2(x, s=(3, 2))", [(2, 3)], domain="complex"),
    Spec(np.fft.ifft2, "np.fft.ifft2(x, axes=(0, 1))", [(2, 3)]),
    Spec(np.fft.fftn, "np.fft.fftn(x, axes=(0, 2))", [(2, 2, 3)], domain="complex"),
    Spec(np.fft.ifftn, "np.fft.ifftn(x, s=(4,), axes=(1,), norm='ortho')", [(2, 3)], domain="complex"),
    Spec(np.fft.rfft, "np.fft.rfft(x)", [(4,), (5,), (2, 3)]),
    Spec(np.fft.rfft, "np.fft.rfft(x, n=6, axis=0, norm='ortho')", [(3, 2)], tag="n-axis"),
    Spec(np.fft.irfft, "np.fft.irfft(x)", [(3,), (2, 4)], domain="complex"),
    Spec(np.fft.irfft, "np.fft.irfft(x, n=5, norm='forward')", [(3,)], domain="complex", tag="odd"),
    Spec(np.fft.rfft2, "np.fft.rfft2(x)", [(2, 4)]),
    Spec(np.fft.irfft2, "np.fft.irfft2(x, s=(2, 3))", [(2, 2)], domain="complex"),
    Spec(np.fft.rfftn, "np.fft.rfftn(x, s=(3, 4), axes=(0, 1))", [(2, 3)]),
    Spec(np.fft.irfftn, "np.fft.irfftn(x)", [(2, 3)], domain="complex"),
]

# numpy.fft's real functions (grad_templates/fft.py) ----------------------------------------------------------
SPECS += [
    Spec(np.fft.fftshift, "np.fft.fftshift(x)", [(4,), (5,), (3, 4)]),
    Spec(np.fft.fftshift, "np.fft.fftshift(x, axes=1)", [(3, 5)], tag="axes"),
    Spec(np.fft.fftshift, "np.fft.fftshift(x, axes=(0, 2))", [(3, 2, 5)], tag="axes-tuple"),
    Spec(np.fft.ifftshift, "np.fft.ifftshift(x)", [(4,), (5,), (3, 4)]),
    Spec(np.fft.ifftshift, "np.fft.ifftshift(x, axes=-1)", [(3, 5)], tag="axes"),
    Spec(np.fft.fftfreq, "np.fft.fftfreq(5, x) * 2.0", [(), PYFLOAT], domain="positive"),
    Spec(np.fft.rfftfreq, "np.fft.rfftfreq(6, x)", [(), PYFLOAT], domain="positive"),
]

if special is not None:
    # scipy.special (grad_templates/special.py) --------------------------------
    SPECS += [
        Spec(special.expit, "special.expit(x)", UNARY),
        Spec(special.log_expit, "special.log_expit(x)", UNARY),
        Spec(special.logit, "special.logit(x)", UNARY, domain="prob"),
        Spec(special.logsumexp, "special.logsumexp(x)", UNARY),
        Spec(special.logsumexp, "special.logsumexp(x, axis=1)", [(2, 3)], tag="axis1"),
        Spec(special.logsumexp, "special.logsumexp(x, axis=0, keepdims=True)", [(2, 3)], tag="keepdims"),
        Spec(special.logsumexp, "special.logsumexp(x, b=y)", [((3,), (3,)), ((2, 3), (3,))],
             domain=("real", "positive"), tag="weights"),
        Spec(special.logsumexp, "special.logsumexp(x, axis=-1, b=y)", [((2, 3), (2, 3))],
             domain=("real", "positive"), tag="weights-axis"),
        Spec(special.softmax, "special.softmax(x)", [(3,), (2, 3)]),
        Spec(special.softmax, "special.softmax(x, axis=1)", [(2, 3)], tag="axis1"),
        Spec(special.log_softmax, "special.log_softmax(x)", [(3,), (2, 3)]),
        Spec(special.log_softmax, "special.log_softmax(x, axis=0)", [(2, 3)], tag="axis0"),
        Spec(special.erf, "special.erf(x)", UNARY),
        Spec(special.erfc, "special.erfc(x)", UNARY),
        Spec(special.erfinv, "special.erfinv(x)", UNARY, domain="unit"),
        Spec(special.erfcinv, "special.erfcinv(x)", UNARY, domain="positive"),
        Spec(special.ndtr, "special.ndtr(x)", UNARY),
        Spec(special.log_ndtr, "special.log_ndtr(x)", UNARY),
        Spec(special.ndtri, "special.ndtri(x)", UNARY, domain="prob"),
        Spec(special.gammaln, "special.gammaln(x)", UNARY, domain="positive"),
        Spec(special.gamma, "special.gamma(x)", UNARY, domain="positive"),
        Spec(special.digamma, "special.digamma(x)", UNARY, domain="positive"),
        Spec(special.polygamma, "special.polygamma(1, x)", UNARY, domain="positive"),
        Spec(special.betaln, "special.betaln(x, y)", BINARY, domain="positive"),
        Spec(special.xlogy, "special.xlogy(x, y)", BINARY, domain=("real", "positive")),
        Spec(special.xlog1py, "special.xlog1py(x, y)", BINARY, domain=("real", "positive")),
        Spec(special.entr, "special.entr(x)", UNARY, domain="positive"),
        Spec(special.rel_entr, "special.rel_entr(x, y)", BINARY, domain="positive"),
        Spec(special.kl_div, "special.kl_div(x, y)", BINARY, domain="positive"),
        Spec(special.i0, "special.i0(x)", UNARY),
        Spec(special.i1, "special.i1(x)", UNARY),
    ]
    if hasattr(special, "softplus"):
        SPECS.append(Spec(special.softplus, "special.softplus(x)", UNARY))
    # scipy.linalg (grad_templates/scipy_linalg.py) ----------------------------
    SPECS += [
        Spec(linalg.solve_banded, "linalg.solve_banded((1, 2), x + 5.0 * (np.arange(4) == 2)[:, None], y)",
             [((4, 5), (5,)), ((4, 5), (5, 2))]),
        Spec(linalg.solve_banded, "linalg.solve_banded((0, 1), x + 3.0 * np.array([[0.0], [1.0]]), y)",
             [((2, 3), (3,))], tag="upper"),
        Spec(runtime_factors.band_to_dense, "runtime_factors.band_to_dense((1, 2), x)", [(4, 5)]),
        Spec(runtime_factors.dense_to_band, "runtime_factors.dense_to_band((2, 1), x)", [(4, 4)]),
        Spec(runtime_factors.transposed_band, "runtime_factors.transposed_band((1, 2), x)", [(4, 5)]),
        Spec(linalg.solve_triangular, "linalg.solve_triangular(x, y)",
             [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((3, 3, 3), (3,)), ((2, 3, 3), (2, 3, 2))],
             domain=("wellcond", "real")),
        Spec(linalg.solve_triangular, "linalg.solve_triangular(x, y, lower=True, unit_diagonal=True)",
             [((3, 3), (3,)), ((3, 3), (3, 2))], domain=("wellcond", "real"), tag="lower-unit"),
        Spec(linalg.solve_triangular, "linalg.solve_triangular(x, y, trans='T', lower=True)",
             [((3, 3), (3,)), ((2, 3, 3), (3, 2))], domain=("wellcond", "real"), tag="trans"),
        Spec(linalg.solve_triangular, "linalg.solve_triangular(x, y, trans=2, unit_diagonal=True)",
             [((3, 3), (3, 2))], domain=("wellcond", "real"), tag="trans-unit"),
        Spec(linalg.cholesky, "linalg.cholesky(x)", [(3, 3), (2, 3, 3)], domain="spd"),
        Spec(linalg.cholesky, "linalg.cholesky(x, lower=True)", [(3, 3)], domain="spd", tag="lower"),
        Spec(linalg.cho_factor, "linalg.cho_factor(x)[0]", [(3, 3)], domain="spd"),
        Spec(linalg.cho_factor, "linalg.cho_factor(x, lower=True)", [(3, 3)], domain="spd", tag="lower"),
        Spec(linalg.cho_solve, "linalg.cho_solve(linalg.cho_factor(x), y)", [((3, 3), (3,)), ((3, 3), (3, 2))],
             domain=("spd", "real")),
        Spec(linalg.cho_solve, "linalg.cho_solve(linalg.cho_factor(x, lower=True), y)", [((3, 3), (3, 2))],
             domain=("spd", "real"), tag="lower"),
        Spec(linalg.lu_factor, "linalg.lu_factor(x)", [(3, 3), (4, 4)], domain="wellcond"),
        Spec(linalg.lu_solve, "linalg.lu_solve(linalg.lu_factor(x), y)", [((3, 3), (3,)), ((4, 4), (4, 2))],
             domain=("wellcond", "real")),
        Spec(linalg.lu_solve, "linalg.lu_solve(linalg.lu_factor(x), y, trans=1)", [((3, 3), (3,)), ((3, 3), (3, 2))],
             domain=("wellcond", "real"), tag="trans"),
        Spec(linalg.eigh, "linalg.eigh(x, driver='evd')", [(3, 3)], domain="symmetric"),   # vectors' signs: see rule
        Spec(linalg.eigh, "linalg.eigh(x, lower=False)[1] ** 2", [(3, 3)], domain="symmetric", tag="upper-vectors"),
        Spec(linalg.eigh, "linalg.eigh(x, eigvals_only=True)", [(3, 3)], domain="symmetric", tag="values-only"),
        Spec(linalg.eigh, "linalg.eigh(x, lower=False, eigvals_only=True)", [(3, 3)], domain="symmetric",
             tag="upper-values-only"),
        Spec(linalg.inv, "linalg.inv(x)", [(3, 3), (2, 2, 2)], domain="wellcond"),
        Spec(linalg.det, "linalg.det(x)", [(3, 3), (2, 2, 2)], domain="wellcond"),
        Spec(linalg.expm, "linalg.expm(x)", [(3, 3), (2, 2, 2)]),
        Spec(linalg.sqrtm, "linalg.sqrtm(x)", [(3, 3), (2, 2, 2)], domain="wellcond"),
        Spec(linalg.sqrtm, "linalg.sqrtm(x)", [(3, 3)], domain="spd", tag="spd"),
        Spec(linalg.solve_sylvester, "linalg.solve_sylvester(x, y, z)", [((3, 3), (2, 2), (3, 2)), ((2, 2, 2), (2, 2), (2, 2))],
             domain=("wellcond", "wellcond", "real")),
        Spec(runtime_factors.real_root, "runtime_factors.real_root(x)", [(2, 2)]),
        Spec(runtime_factors.sylvester_rhs, "runtime_factors.sylvester_rhs(x, np.eye(2))", [(2, 3)]),
    ]
    # scipy.special's incomplete gamma and beta functions (grad_templates/special_incomplete.py) -----------
    SPECS += [
        Spec(special.gammainc, "special.gammainc(x, y)", BINARY, domain="positive"),
        Spec(special.gammaincc, "special.gammaincc(x, y)", [((3,), (3,)), ((2, 3), ())], domain="positive"),
        Spec(special.betainc, "special.betainc(x, y, z)", [((3,), (3,), (3,)), ((2, 3), (), (3,))],
             domain=("positive", "positive", "prob")),
        Spec(special.betainc, "special.betainc(x, y, 1.0 - z)", [((3,), (3,), (3,))],
             domain=("positive", "positive", "prob"), tag="flipped"),
        Spec(incomplete.gammainc_da, "incomplete.gammainc_da(x, y, 2)", [((3,), (3,))], domain="positive"),
        Spec(incomplete.gamma_density_da, "incomplete.gamma_density_da(x, y, 1)", [((3,), (3,))], domain="positive"),
        Spec(incomplete.gamma_density_da, "incomplete.gamma_density_da(x, y)", [((3,), (3,))], domain="positive",
             tag="order0"),
        Spec(incomplete.betainc_dab, "incomplete.betainc_dab(x, y, z, 1, 1)", [((3,), (3,), (3,))],
             domain=("positive", "positive", "prob")),
        Spec(incomplete.beta_density_dab, "incomplete.beta_density_dab(x, y, z, 0, 1)", [((3,), (3,), (3,))],
             domain=("positive", "positive", "prob")),
    ]
    # more of scipy.special (grad_templates/special_elementary.py, special_bessel.py) ------------------------
    SPECS += [
        Spec(special.beta, "special.beta(x, y)", BINARY, domain="positive"),
        Spec(special.rgamma, "special.rgamma(x)", UNARY, domain="positive"),
        Spec(special.loggamma, "special.loggamma(x)", UNARY, domain="positive"),
        Spec(special.multigammaln, "special.multigammaln(x, 3)", [(), (3,)], domain="above1"),
        Spec(special.expm1, "special.expm1(x)", UNARY),
        Spec(special.log1p, "special.log1p(x)", UNARY, domain="positive"),
        Spec(special.exp2, "special.exp2(x)", UNARY),
        Spec(special.exp10, "special.exp10(x)", UNARY),
        Spec(special.cbrt, "special.cbrt(x)", UNARY, domain="nonzero"),
        Spec(special.cosm1, "special.cosm1(x)", UNARY),
        Spec(special.erfcx, "special.erfcx(x)", UNARY),
        Spec(special.erfcx, "special.erfcx(30.0 * x)", [(3,)], domain="positive", tag="large"),
        Spec(special.erfi, "special.erfi(x)", UNARY),
        Spec(special.dawsn, "special.dawsn(x)", UNARY),
        Spec(special.j0, "special.j0(x)", UNARY),
        Spec(special.j1, "special.j1(x)", UNARY),
        Spec(special.y0, "special.y0(x)", UNARY, domain="positive"),
        Spec(special.y1, "special.y1(x)", UNARY, domain="positive"),
        Spec(special.jv, "special.jv(2.5, x) + special.jn(2, x)", UNARY, domain="positive"),
        Spec(special.jv, "special.jv(3, x)", UNARY, tag="integer"),
        Spec(special.yv, "special.yv(1.5, x)", UNARY, domain="positive"),
        Spec(special.yn, "special.yn(3, x)", UNARY, domain="positive"),
        Spec(special.iv, "special.iv(1.5, x)", UNARY, domain="positive"),
        Spec(special.iv, "special.iv(2, x)", UNARY, tag="integer"),
        Spec(special.ive, "special.ive(2, x)", UNARY, domain="nonzero"),
        Spec(special.kv, "special.kv(0.5, x)", UNARY, domain="positive"),
        Spec(special.kve, "special.kve(1.5, x)", UNARY, domain="positive"),
        Spec(special.k0, "special.k0(x)", UNARY, domain="positive"),
        Spec(special.k1, "special.k1(x)", UNARY, domain="positive"),
        Spec(special.i0e, "special.i0e(x)", UNARY, domain="nonzero"),
        Spec(special.i1e, "special.i1e(x)", UNARY, domain="nonzero"),
        Spec(special.k0e, "special.k0e(x)", UNARY, domain="positive"),
        Spec(special.k1e, "special.k1e(x)", UNARY, domain="positive"),
    ]
    # scipy.signal (grad_templates/scipy_signal.py) ------------------------------------------------------
    CONVOLUTIONS = [((5,), (3,)), ((3,), (5,)), ((4, 3), (2, 2)), ((2, 2), (4, 3)), ((4,), (4,))]
    SPECS += [
        Spec(signal.convolve, "signal.convolve(x, y)", CONVOLUTIONS + [((3, 4), (2, 5))]),
        Spec(signal.convolve, "signal.convolve(x, y, mode='same')", CONVOLUTIONS + [((3, 4), (2, 5))], tag="same"),
        Spec(signal.convolve, "signal.convolve(x, y, 'valid')", CONVOLUTIONS, tag="valid"),
        Spec(signal.convolve, "signal.convolve(x, y, mode='same', method='fft')", [((6,), (3,)), ((2, 3), (4, 4))],
             tag="same-fft"),
        Spec(signal.correlate, "signal.correlate(x, y)", CONVOLUTIONS),
        Spec(signal.correlate, "signal.correlate(x, y, mode='same')", CONVOLUTIONS + [((3, 4), (2, 5))], tag="same"),
        Spec(signal.correlate, "signal.correlate(x, y, mode='valid', method='direct')", CONVOLUTIONS, tag="valid"),
        Spec(signal.fftconvolve, "signal.fftconvolve(x, y)", [((5,), (3,)), ((4, 3), (2, 2))]),
        Spec(signal.fftconvolve, "signal.fftconvolve(x, y, mode='valid')", [((5,), (3,)), ((2, 2), (4, 3))],
             tag="valid"),
        Spec(signal.fftconvolve, "signal.fftconvolve(x, y, 'same')", [((5,), (3,)), ((3, 4), (2, 5))], tag="same"),
    ]
    # scipy.integrate (grad_templates/scipy_integrate.py): tight tolerances, so the solution's error stays far
    # below the finite differences' step ---------------------------------------------------------------------
    SPECS += [
        Spec(integrate.odeint, "integrate.odeint(ode_rhs, x, np.cumsum(y), args=(z,), rtol=1e-12, atol=1e-12)",
             [((2,), (3,), ()), ((3,), (2,), (3,))], domain=("real", "positive", "positive")),
        Spec(integrate.odeint, "integrate.odeint(ode_rhs_tfirst, x, np.cumsum(y), (z,), rtol=1e-12, atol=1e-12, "
                               "tfirst=True)", [((2,), (3,), ())], domain=("real", "positive", "positive"), tag="tfirst"),
        Spec(integrate.solve_ivp, "integrate.solve_ivp(ode_rhs_tfirst, (0.0, 8.0), x, method='DOP853', "
                                  "t_eval=np.cumsum(y), args=(z,), rtol=1e-12, atol=1e-12)['y']",
             [((2,), (3,), ()), ((3,), (2,), (3,))], domain=("real", "positive", "positive")),
        Spec(integrate.solve_ivp, "integrate.solve_ivp(ode_rhs_tfirst, (x, 8.0), z, method='DOP853', "
                                  "t_eval=np.cumsum(y), args=(1.3,), rtol=1e-12, atol=1e-12)['y']",
             [((), (3,), (2,))], domain=("negative", "positive", "real"), tag="start"),
    ]
    # scipy.stats (grad_templates/scipy_stats*.py) ---------------------------------------------------------
    LOC_SCALE = [((3,), (), ()), ((2, 3), (3,), (2, 1)), ((), (), ())]
    SPECS += [registered_row for row in [
        Spec(stats.norm.logpdf, "stats.norm.logpdf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.logpdf, "stats.norm.logpdf(x)", UNARY, tag="standard"),
        Spec(stats.norm.pdf, "stats.norm.pdf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.cdf, "stats.norm.cdf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.cdf, "stats.norm.cdf(x, scale=y)", [((3,), ())], domain=("real", "positive"), tag="scale"),
        Spec(stats.norm.logcdf, "stats.norm.logcdf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.logcdf, "stats.norm.logcdf(-30.0 * x)", [(3,)], domain="positive", tag="tail"),
        Spec(stats.norm.sf, "stats.norm.sf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.logsf, "stats.norm.logsf(x, y, z)", LOC_SCALE, domain=("real", "real", "positive")),
        Spec(stats.norm.logsf, "stats.norm.logsf(30.0 * x)", [(3,)], domain="positive", tag="tail"),
        Spec(stats.norm.ppf, "stats.norm.ppf(x, y, z)", LOC_SCALE, domain=("prob", "real", "positive")),
        Spec(stats.norm.ppf, "stats.norm.ppf(x, scale=y)", [((3,), ())], domain=("prob", "positive"), tag="scale"),
        Spec(stats.norm.isf, "stats.norm.isf(x, y, z)", LOC_SCALE, domain=("prob", "real", "positive")),
        Spec(stats.multivariate_normal.entropy, "stats.multivariate_normal.entropy(x, y)", [((3,), (3, 3))],
             domain=("real", "spd")),
        Spec(stats.multivariate_normal.entropy, "stats.multivariate_normal.entropy(x, y)", [((2,), (2,)), ((3,), ())],
             domain=("real", "positive"), tag="diagonal"),
        Spec(stats.multivariate_normal.entropy, "stats.multivariate_normal.entropy(cov=x)", [(2, 2)], domain="spd",
             tag="cov"),
        Spec(stats.t.logpdf, "stats.t.logpdf(x, y, scale=z)", LOC_SCALE, domain=("real", "positive", "positive")),
        Spec(stats.t.logpdf, "stats.t.logpdf(x, 3.0, loc=y)", [((3,), ())], tag="loc"),
        Spec(stats.t.pdf, "stats.t.pdf(x, y, z)", LOC_SCALE, domain=("real", "positive", "real")),
        Spec(stats.t.cdf, "stats.t.cdf(x, y, scale=z)", LOC_SCALE, domain=("real", "positive", "positive")),
        Spec(stats.t.cdf, "stats.t.cdf(x, y, z)", [((3,), (3,), (3,))], domain=("real", "positive", "real"),
             tag="loc"),
        Spec(stats.t.logcdf, "stats.t.logcdf(x, y, scale=z)", LOC_SCALE, domain=("real", "positive", "positive")),
        Spec(stats.gamma.logpdf, "stats.gamma.logpdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.gamma.logpdf, "stats.gamma.logpdf(x, y, z)", [((3,), (3,), ())],
             domain=("positive", "positive", "negative"), tag="loc"),
        Spec(stats.gamma.pdf, "stats.gamma.pdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.gamma.pdf, "stats.gamma.pdf(x - 1.2, y, z)", [((4,), (), ())], domain="positive",
             tag="outside"),
        Spec(stats.gamma.cdf, "stats.gamma.cdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.gamma.cdf, "stats.gamma.cdf(x - 1.2, y, z)", [((4,), (), ())], domain="positive", tag="outside"),
        Spec(stats.gamma.logcdf, "stats.gamma.logcdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.chi2.logpdf, "stats.chi2.logpdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.chi2.pdf, "stats.chi2.pdf(x, y, z)", [((3,), (3,), ())], domain=("positive", "positive", "negative")),
        Spec(stats.chi2.cdf, "stats.chi2.cdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.chi2.logcdf, "stats.chi2.logcdf(x, y, scale=z)", LOC_SCALE, domain="positive"),
        Spec(stats.beta.logpdf, "stats.beta.logpdf(x, y, z)", [((3,), (3,), (3,)), ((2, 3), (), (3,))],
             domain=("prob", "positive", "positive")),
        Spec(stats.beta.logpdf, "stats.beta.logpdf(x, 2.0, 3.0, y, z + 3.0)", [((3,), (), ())],
             domain=("prob", "negative", "positive"), tag="loc-scale"),
        Spec(stats.beta.pdf, "stats.beta.pdf(x, y, z)", [((3,), (3,), (3,)), ((2, 3), (), (3,))],
             domain=("prob", "positive", "positive")),
        Spec(stats.beta.pdf, "stats.beta.pdf(2.0 * x - 0.5, y, z)", [((4,), (), ())],
             domain=("prob", "positive", "positive"), tag="outside"),
        Spec(stats.beta.cdf, "stats.beta.cdf(x, y, z)", [((3,), (3,), (3,)), ((2, 3), (), (3,))],
             domain=("prob", "positive", "positive")),
        Spec(stats.beta.cdf, "stats.beta.cdf(x, 2.0, 3.0, y, z + 3.0)", [((3,), (), ())],
             domain=("prob", "negative", "positive"), tag="loc-scale"),
        Spec(stats.beta.logcdf, "stats.beta.logcdf(x, y, z)", [((3,), (3,), (3,))],
             domain=("prob", "positive", "positive")),
        Spec(stats.poisson.pmf, "stats.poisson.pmf(np.array([0.0, 1.0, 3.0, 2.5]), x, loc=-1.0)", [(4,), ()],
             domain="positive"),
        Spec(stats.poisson.logpmf, "stats.poisson.logpmf(np.array([0.0, 1.0, 3.0]), x)", [(3,), ()],
             domain="positive"),
        Spec(stats.poisson.cdf, "stats.poisson.cdf(np.array([-1.0, 0.5, 2.0, 4.0]), x)", [(4,), ()],
             domain="positive"),
        Spec(stats.poisson.logcdf, "stats.poisson.logcdf(np.array([0.0, 0.5, 2.0, 4.0]), x)", [(4,), ()],
             domain="positive"),
        Spec(stats.dirichlet.logpdf, "stats.dirichlet.logpdf(x / np.sum(x, axis=0), y)", [((3,), (3,)), ((3, 2), (3,))],
             domain="positive"),
        Spec(stats.dirichlet.logpdf, "stats.dirichlet.logpdf(x / (np.sum(x, axis=0) + 1.0), y)",
             [((2,), (3,)), ((2, 2), (3,))], domain="positive", tag="implied-last"),
        Spec(stats.dirichlet.pdf, "stats.dirichlet.pdf(x / np.sum(x, axis=0), y)", [((3,), (3,)), ((3, 2), (3,))],
             domain="positive"),
        Spec(stats.multivariate_normal.logpdf, "stats.multivariate_normal.logpdf(x, y, z)",
             [((3,), (3,), (3, 3)), ((2, 3), (3,), (3, 3)), ((2, 2, 3), (3,), (3, 3))], domain=("real", "real", "spd")),
        Spec(stats.multivariate_normal.logpdf, "stats.multivariate_normal.logpdf(x, y, z)",
             [((3,), (3,), (3,)), ((2, 3), (3,), ()), ((4,), (), ()), ((4,), (1,), (1, 1))],
             domain=("real", "real", "positive"), tag="diagonal"),
        Spec(stats.multivariate_normal.logpdf, "stats.multivariate_normal.logpdf(x, cov=y)",
             [((2, 3), (3, 3)), ((1, 3), (3, 3))], domain=("real", "spd"), tag="cov"),
        Spec(stats.multivariate_normal.pdf, "stats.multivariate_normal.pdf(x, y, z)",
             [((3,), (3,), (3, 3)), ((2, 3), (3,), (3, 3))], domain=("real", "real", "spd")),
        Spec(runtime_distributions.exp_difference, "runtime_distributions.exp_difference(x, y)", BINARY),
    ] for registered_row in [Spec(registered(row.primal), row.expr, row.shapes, row.domain, row.tag)]]


@dataclass
class Case:
    """One row on one shape case: a function built from source, its inputs and a readable id."""

    spec: Spec
    shapes: Tuple[Shape, ...]
    id: str
    function: Callable = field(repr=False)

    def inputs(self) -> Tuple:
        """Fresh random inputs, the same on every call (the generator is seeded by the id)."""
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        domains = self.spec.domain
        if isinstance(domains, str):
            domains = (domains,) * len(self.shapes)
        return tuple(random_input(shape, domain, rng) for shape, domain in zip(self.shapes, domains))


def _function_name(label: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in label).strip("_")
    while "__" in cleaned:
        cleaned = cleaned.replace("__", "_")
    return "f_" + cleaned


def cases(specs: Sequence[Spec]) -> List[Case]:
    """Every row of ``specs`` on every one of its shape cases."""
    result = []
    for spec in specs:
        arguments = spec.arguments
        if not arguments:
            raise ValueError(f"the expression {spec.expr!r} of {spec.label} uses none of {ARGUMENTS}")
        if not isinstance(spec.domain, str) and len(spec.domain) != len(arguments):
            raise ValueError(f"{spec.label}: {len(spec.domain)} domains for {len(arguments)} arguments")
        text = f"def {_function_name(spec.label)}({', '.join(arguments)}):\n    return {spec.expr}\n"
        function = make_function(text, dict(NAMESPACE))  # one per row: derivatives are shape-generic
        for shape_case in spec.shapes:
            shapes = (shape_case,) if len(arguments) == 1 else tuple(shape_case)
            if len(shapes) != len(arguments):
                raise ValueError(f"{spec.label}: the case {shape_case!r} does not give one shape per "
                                 f"argument {arguments}")
            case_id = f"{spec.label}-{'x'.join(shape_label(s) for s in shapes)}"
            result.append(Case(spec, shapes, case_id, function))
    return result


def primals_used(expr: str, namespace=None) -> set:
    """The primal objects an expression calls or spells with an operator (for checking rows)."""
    namespace = NAMESPACE if namespace is None else namespace
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
                 ast.Mod: operator.mod,
                 ast.USub: operator.neg, ast.UAdd: operator.pos}
    found = set()
    for node in ast.walk(ast.parse(expr, mode="eval")):
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and type(node.op) in operators:
            found.add(operators[type(node.op)])
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("np.r_", "np.c_"):
            found.add(np.concatenate)   # srcad rewrites np.r_[...] and np.c_[...] into np.concatenate
        elif isinstance(node, ast.Subscript):
            found.add(operator.getitem)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id not in namespace:
            found.add(METHODS[node.func.attr][0])   # `x.copy()`: the function srcad runs for the method
        elif isinstance(node, ast.Call):
            found.add(registered(eval(ast.unparse(node.func), dict(namespace))))
    return found
