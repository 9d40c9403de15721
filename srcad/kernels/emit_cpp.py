"""Print a kernel as C++: the gradient ``void <name>(...)`` and the forward kernel.

Contract:
- ``cpp_source(kernel, gather=True)`` returns a ``.cc`` file.  For a case
  with grad_to it defines ``void <name>(...)``, the gradient, with the
  arguments: the inputs it reads (``ins`` order), ``d<out>`` per output,
  ``d<x>`` per grad_to entry; arrays are ``float (&X)[d0][d1]`` references,
  scalars ``float &x``; every gradient array is zeroed inside the function.
  The forward kernel is ``void <name>_forward(...)`` (``void <name>(...)``
  for a case without grad_to) taking ``ins`` then the other ``outs``.
- In gather form (the default) no store subscript contains arithmetic.
- Index arithmetic follows Python (floor division and modulo): ``/`` and
  ``%`` print as such when the left side cannot be negative, else through
  the ``floor_div``/``floor_mod`` helpers the file then defines.
- Local arrays (recomputed values, working adjoints) live in
  ``std::vector`` storage, so large kernels do not overflow the stack.

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> k = load_case({"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",
    ...                "kernel": "A<3>[i] = 2.0 * B<3>[i];"})
    >>> "void k(float (&B)[3], float (&A)[3]) {" in cpp_source(k)
    True
"""
from __future__ import annotations

from typing import List

from ..version import __version__
from .gradient import gradient_function
from .lower import REASSOCIATED, function_lines
from .loops import Function, Loop
from .model import IConst, IVar, Kernel, Number, interval
from .plan import forward_function, kernel_names
from .writer import Writer

FLOOR_HELPERS = """// Floor division and modulo by a positive constant, as in Python.
static inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static inline int floor_mod(int a, int b) { return a - floor_div(a, b) * b; }"""

_LEVEL = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2}


class CppWriter(Writer):
    """C++ syntax for ``Writer``."""

    comment_prefix = "//"

    def __init__(self, data_type: str, taken):
        super().__init__(data_type, taken)
        self.uses_floor = False
        self.uses_min_max = False

    def open_for(self, loop: Loop) -> None:
        step = f"++{loop.var}" if loop.step == 1 else f"{loop.var} += {loop.step}"
        limits = self.limits(loop)
        if limits is None:
            first, condition = str(loop.start), f"{loop.var} < {loop.stop}"
        else:
            first, condition = self._extreme("max", limits[0]), f"{loop.var} <= {self._extreme('min', limits[1])}"
        self.line(f"for (int {loop.var} = {first}; {condition}; {step}) {{")
        self.enter()

    def _extreme(self, which: str, texts: List[str]) -> str:
        """``std::max(a, std::max(b, c))`` (or min) of index texts; the text itself when there is one."""
        if len(texts) == 1:
            return texts[0]
        self.uses_min_max = True
        return f"std::{which}({texts[0]}, {self._extreme(which, texts[1:])})"

    def open_if(self, condition: str) -> None:
        self.line(f"if ({condition}) {{")
        self.enter()

    def close_text(self) -> str:
        return "}"

    def let(self, var: str, text: str) -> None:
        self.line(f"int {var} = {text};")

    def declare(self, name: str, value: str) -> None:
        self.line(f"{self.data_type} {name} = {value};")

    def statement(self, target: str, op: str, value: str) -> None:
        self.line(f"{target} {op} {value};")

    def subscript(self, name: str, indices: List[str]) -> str:
        return name + "".join(f"[{i}]" for i in indices)

    def scalar_store(self, name: str) -> str:
        return name

    def literal(self, number: Number) -> str:
        if self.data_type == "float":
            return repr(float(number.value)) + "f"
        return repr(number.value)

    def padded(self, value: str, condition: str) -> str:
        return f"({condition} ? {value} : {self.literal(Number(0))})"

    def between(self, low, text: str, high) -> str:
        parts = ([f"{low} <= {text}"] if low is not None else []) + ([f"{text} < {high}"] if high is not None else [])
        return " && ".join(parts)

    def all_of(self, conditions: List[str]) -> str:
        return " && ".join(conditions)

    def index(self, expr, parent: int = 0, right_side: bool = False) -> str:
        if isinstance(expr, IVar):
            return expr.name
        if isinstance(expr, IConst):
            return str(expr.value) if expr.value >= 0 or not parent else f"({expr.value})"
        if expr.op == "-" and expr.left == IConst(0):
            text = "-" + self.index(expr.right, 3)
            return f"({text})" if parent else text
        if expr.op in ("//", "%") and interval(expr.left, self.ranges)[0] < 0:
            self.uses_floor = True
            helper = "floor_div" if expr.op == "//" else "floor_mod"
            return f"{helper}({self.index(expr.left)}, {self.index(expr.right)})"
        level = _LEVEL[expr.op]
        op = "/" if expr.op == "//" else expr.op
        text = f"{self.index(expr.left, level)} {op} {self.index(expr.right, level, True)}"
        return f"({text})" if level < parent or (level == parent and right_side) else text


def _declaration(name: str, shape, data_type: str, const: bool = False) -> str:
    if not shape:
        return f"{data_type} &{name}"
    return f"{data_type} (&{name})" + "".join(f"[{n}]" for n in shape)


def _cpp_function(function: Function, kernel: Kernel, gather: bool, reassociate: bool, writer: CppWriter) -> None:
    data_type = kernel.data_type
    for line in function.summary:
        writer.comment(line)
    params = ", ".join(_declaration(p.name, p.shape, data_type) for p in function.params)
    writer.line(f"void {function.name}({params}) {{")
    writer.enter()
    for name, shape in function.locals:
        if not shape:
            writer.line(f"{data_type} {name} = {writer.literal(Number(0))};")
            continue
        size = " * ".join(map(str, shape))
        writer.line(f"std::vector<{data_type}> {name}_storage({size});")
        dims = "".join(f"[{n}]" for n in shape[1:])
        writer.line(f"auto {name} = reinterpret_cast<{data_type} (*){dims}>({name}_storage.data());"
                    if len(shape) > 1 else f"{data_type} *{name} = {name}_storage.data();")
    function_lines(function, writer, gather, reassociate)
    writer.close()


def cpp_source(kernel: Kernel, gather: bool = True, reassociate: bool = False) -> str:
    """The C++ source of ``kernel``; see the module docstring."""
    functions = [forward_function(kernel, f"{kernel.name}_forward" if kernel.has_grad else kernel.name)]
    if kernel.has_grad:
        functions.append(gradient_function(kernel))
    chunks, uses_floor, uses_vector, uses_min_max = [], False, False, False
    for function in functions:
        taken = set(kernel_names(kernel)) | {p.name for p in function.params} | {n for n, _ in function.locals}
        writer = CppWriter(kernel.data_type, taken | {"floor_div", "floor_mod"})
        _cpp_function(function, kernel, gather, reassociate, writer)
        uses_floor |= writer.uses_floor
        uses_min_max |= writer.uses_min_max
        uses_vector |= any(shape for _, shape in function.locals)
        chunks.append("\n".join(writer.lines))
    statements = [f"//   {s.text}" for s in kernel.statements]
    head = [f"// Kernel {kernel.name}, generated by srcad {__version__} from:", "//"] + statements
    form = "gather" if gather else "scatter"
    head += ["//", f"// Do not edit: regenerate it with `srcad kernel --target cpp{' --reassociate' if reassociate else ''}`."
             + (f" Gradient stores are in {form} form." if kernel.has_grad else "")]
    if reassociate:
        head += [f"// {REASSOCIATED}"]
    includes = (["#include <algorithm>"] if uses_min_max else []) + (["#include <vector>"] if uses_vector else [])
    if includes:
        head += [""] + includes
    if uses_floor:
        head += ["", FLOOR_HELPERS]
    return "\n".join(head) + "\n\n" + "\n\n".join(chunks) + "\n"
