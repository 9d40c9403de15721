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
- Keep shapes tiny: every case runs in both modes in every test run.

Adding an operation is adding one row, e.g.::

    Spec(np.arcsin, "np.arcsin(x)", UNARY, domain="unit"),
"""
from __future__ import annotations

import ast
import math
import operator
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, List, Sequence, Tuple, Union

import numpy as np

from gradcheck import PYFLOAT, make_function, random_input, shape_label

ARGUMENTS = ("x", "y", "z")
NAMESPACE = {"np": np, "math": math, "operator": operator}

Shape = Union[Tuple[int, ...], type]

# Standard shape-case lists ---------------------------------------------------
UNARY = [(), (3,), (2, 3)]
UNARY_PY = UNARY + [PYFLOAT]
SCALAR = [PYFLOAT, ()]                                    # math-module functions
BINARY = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)),      # same shapes
          ((3, 1), (1, 4)), ((5,), (2, 5)), ((2, 3), ()), ((), (3,))]  # broadcasting
BINARY_PY = BINARY + [(PYFLOAT, PYFLOAT), (PYFLOAT, (3,)), ((2, 3), PYFLOAT)]


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


def primal_label(primal) -> str:
    """``op.add``, ``np.sum``, ``math.sin``, ``abs``: a short readable name of a primal."""
    module = getattr(primal, "__module__", None)
    name = getattr(primal, "__name__", repr(primal))
    if module in ("_operator", "operator"):
        return f"op.{name}"
    if module == "math":
        return f"math.{name}"
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
    Spec(operator.pow, "x ** 2.5", UNARY_PY, domain="positive", tag="float-exponent"),
    Spec(operator.pow, "2.0 ** x", UNARY_PY, tag="constant-base"),
    Spec(np.power, "np.power(x, y)", BINARY, domain=("positive", "real")),
    Spec(operator.neg, "-x", UNARY_PY),
    Spec(np.negative, "np.negative(x)", UNARY),
    Spec(operator.pos, "+x", UNARY_PY),
    Spec(np.positive, "np.positive(x)", UNARY),
    Spec(np.square, "np.square(x)", UNARY),
    # elementwise (grad_templates/elementwise.py) -----------------------------
    Spec(np.sin, "np.sin(x)", UNARY),
    Spec(np.cos, "np.cos(x)", UNARY),
    Spec(np.tan, "np.tan(x)", UNARY, domain="unit"),
    Spec(np.exp, "np.exp(x)", UNARY),
    Spec(np.log, "np.log(x)", UNARY, domain="positive"),
    Spec(np.sqrt, "np.sqrt(x)", UNARY, domain="positive"),
    Spec(np.tanh, "np.tanh(x)", UNARY),
    Spec(np.absolute, "np.abs(x)", UNARY, domain="nonzero"),
    Spec(abs, "abs(x)", UNARY_PY, domain="nonzero"),
    Spec(np.maximum, "np.maximum(x, y)", BINARY),
    Spec(np.minimum, "np.minimum(x, y)", BINARY),
    Spec(math.sin, "math.sin(x)", SCALAR),
    Spec(math.cos, "math.cos(x)", SCALAR),
    Spec(math.exp, "math.exp(x)", SCALAR),
    Spec(math.log, "math.log(x)", SCALAR, domain="positive"),
    Spec(math.sqrt, "math.sqrt(x)", SCALAR, domain="positive"),
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
    # products (grad_templates/linalg.py) -------------------------------------
    Spec(operator.matmul, "x @ y", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                    ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)),
                                    ((2, 1, 2, 3), (3, 3, 2))]),
    Spec(np.matmul, "np.matmul(x, y)", [((3,), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (1, 3, 2))]),
    Spec(np.dot, "np.dot(x, y)", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                  ((), (3,)), ((2, 3), ()), ((2, 3, 4), (4,)), ((2, 3), (2, 3, 2))]),
    # moving elements (grad_templates/shapes.py) ------------------------------
    Spec(operator.getitem, "x[1:, 0]", [(3, 4)], tag="slice-int"),
    Spec(operator.getitem, "x[0]", [(3,), (3, 4)], tag="int"),
    Spec(operator.getitem, "x[-1]", [(3,), (2, 3)], tag="negative"),
    Spec(operator.getitem, "x[::2]", [(5,), (3, 2)], tag="step"),
    Spec(operator.getitem, "x[..., None]", [(), (3,), (2, 3)], tag="ellipsis-none"),
    Spec(operator.getitem, "x[:, 1:3]", [(2, 4)], tag="columns"),
    Spec(operator.getitem, "x[[0, 2, 0]]", [(3,), (3, 2)], tag="fancy-repeated"),
    Spec(operator.getitem, "x[x > 0]", [(5,), (2, 3)], tag="mask"),
    Spec(np.reshape, "np.reshape(x, (2, 6))", [(3, 4), (12,)], tag="shape"),
    Spec(np.reshape, "np.reshape(x, -1)", [(3, 4), ()], tag="flatten"),
    Spec(np.reshape, "np.reshape(x, (3, 2), order='F')", [(2, 3), (6,)], tag="order-F"),
    Spec(np.transpose, "np.transpose(x)", [(3,), (2, 3), (2, 3, 4)]),
    Spec(np.transpose, "np.transpose(x, (1, 2, 0))", [(2, 3, 4)], tag="axes"),
    Spec(np.transpose, "np.transpose(x, (-1, 0, 1))", [(2, 3, 4)], tag="negative-axes"),
]


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
                 ast.USub: operator.neg, ast.UAdd: operator.pos}
    found = set()
    for node in ast.walk(ast.parse(expr, mode="eval")):
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and type(node.op) in operators:
            found.add(operators[type(node.op)])
        elif isinstance(node, ast.Subscript):
            found.add(operator.getitem)
        elif isinstance(node, ast.Call):
            found.add(eval(ast.unparse(node.func), dict(namespace)))
    return found
