"""Print a kernel as a Python module: the forward kernel and, with grad_to, its gradient.

Contract:
- ``python_module(kernel, gather=True, vectorize=False)`` returns the module
  text.  It defines the forward kernel (named after the case, or
  ``<name>_forward`` when the case has grad_to) taking ``ins`` then the
  ``outs`` not among them, which it updates in place; and for a case with
  grad_to the gradient ``def <name>(...)`` taking the arrays in the C++
  argument order (inputs it reads, seeds ``d<out>``, gradients ``d<x>``); it
  zeroes each gradient array and writes the gradients into it.  Both return
  None.  Arrays are NumPy arrays; scalars are read as numbers (a float or
  a 0-d array) and written as 0-d arrays (``ds[()]``).
- ``gather`` rewrites gradient stores into gather form (plain subscripts);
  ``vectorize`` replaces each nest that is a contraction or an elementwise
  map with NumPy (``np.einsum``, slices), keeping loops for the others.
- Every nest is headed by a comment with the kernel statement it comes from;
  the output is the same, byte for byte, for the same input.

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> k = load_case({"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",
    ...                "kernel": "A<3>[i] = 2.0 * B<3>[i];"})
    >>> "def k(B, A):" in python_module(k)
    True
"""
from __future__ import annotations

from typing import List

from ..version import __version__
from .gradient import gradient_function
from .loops import Fill, Function, Loop
from .lower import REASSOCIATED, function_lines
from .model import Kernel, Number
from .plan import forward_function, kernel_names
from .writer import Writer

TRUNC_DIV = '''def trunc_div(a, b):
    """Integer division rounding toward zero, as C does."""
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient'''


class PythonWriter(Writer):
    """Python syntax for ``Writer``."""

    integer_division_call = True

    def __init__(self, data_type: str, taken):
        super().__init__(data_type, taken)
        self.uses_trunc_div = False

    def open_for(self, loop: Loop) -> None:
        limits = self.limits(loop)
        if limits is not None:
            lows, highs = limits
            first = lows[0] if len(lows) == 1 else f"max({', '.join(lows)})"
            past = self.one_past(loop.highs[0]) if highs == [self.index(loop.highs[0])] else \
                f"{highs[0] if len(highs) == 1 else 'min(' + ', '.join(highs) + ')'} + 1"
            bounds = past if first == "0" else f"{first}, {past}"
        elif loop.start == 0 and loop.step == 1:
            bounds = str(loop.stop)
        else:
            bounds = f"{loop.start}, {loop.stop}" + (f", {loop.step}" if loop.step != 1 else "")
        self.line(f"for {loop.var} in range({bounds}):")
        self.enter()

    def open_if(self, condition: str) -> None:
        self.line(f"if {condition}:")
        self.enter()

    def close_text(self) -> str:
        return ""

    def let(self, var: str, text: str) -> None:
        self.line(f"{var} = {text}")

    def declare(self, name: str, value: str) -> None:
        self.line(f"{name} = {value}")

    def statement(self, target: str, op: str, value: str) -> None:
        self.line(f"{target} {op} {value}")

    def subscript(self, name: str, indices: List[str]) -> str:
        return f"{name}[{', '.join(indices)}]"

    def scalar_store(self, name: str) -> str:
        return f"{name}[()]"

    def literal(self, number: Number) -> str:
        if self.data_type == "float" or number.is_float:
            return repr(float(number.value))
        return str(number.value)

    def padded(self, value: str, condition: str) -> str:
        return f"({value} if {condition} else {self.literal(Number(0))})"

    def between(self, low, text: str, high) -> str:
        return " ".join(p for p in (f"{low} <=" if low is not None else "", text,
                                    f"< {high}" if high is not None else "") if p)

    def all_of(self, conditions: List[str]) -> str:
        return " and ".join(conditions)

    def divide(self, left: str, right: str, integers: bool) -> str:
        if integers:
            self.uses_trunc_div = True
            return f"trunc_div({left}, {right})"
        return f"{left} / {right}"

    def fill(self, fill: Fill) -> None:
        source = fill.source if fill.source is not None else self.literal(fill.value)
        self.line(f"{fill.name}[...] = {source}")


def _python_function(function: Function, kernel: Kernel, gather: bool, vectorize: bool, reassociate: bool,
                     writer: PythonWriter):
    params = ", ".join(p.name for p in function.params)
    writer.line(f"def {function.name}({params}):")
    writer.enter()
    writer.line('"""' + "\n".join([function.summary[0]] + ["    " + s for s in function.summary[1:]]) + '"""')
    dtype = "" if kernel.data_type == "float" else ", dtype=np.int64"
    for name, shape in function.locals:
        writer.line(f"{name} = np.zeros({_shape_text(shape)}{dtype})")
    vectorizer = None
    if vectorize:
        from .vectorize import Vectorizer
        vectorizer = Vectorizer(writer, reassociate).emit
    function_lines(function, writer, gather, reassociate, vectorizer)
    writer.close()


def _shape_text(shape) -> str:
    return "()" if not shape else "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def python_module(kernel: Kernel, gather: bool = True, vectorize: bool = False, reassociate: bool = False) -> str:
    """The Python module of ``kernel``; see the module docstring."""
    functions = [forward_function(kernel, f"{kernel.name}_forward" if kernel.has_grad else kernel.name)]
    if kernel.has_grad:
        functions.append(gradient_function(kernel))
    chunks: List[str] = []
    uses_trunc_div = False
    for function in functions:
        taken = set(kernel_names(kernel)) | {p.name for p in function.params} | {n for n, _ in function.locals}
        writer = PythonWriter(kernel.data_type, taken | {"np", "trunc_div"})
        _python_function(function, kernel, gather, vectorize, reassociate, writer)
        uses_trunc_div |= writer.uses_trunc_div
        chunks.append("\n".join(writer.lines))
    form = [] if not kernel.has_grad else [f"Gradient stores are in {'gather' if gather else 'scatter'} form"
                                            f"{'; contractions and elementwise maps use NumPy' if vectorize else ''}."]
    statements = "\n".join("    " + s.text for s in kernel.statements)
    head = [f'"""Kernel {kernel.name}, generated by srcad {__version__} from:\n\n{statements}\n']
    if reassociate:
        form.append(REASSOCIATED)
    command = "srcad kernel" + (" --reassociate" if reassociate else "")
    head += [line + "\n" for line in form] + [f'Do not edit: regenerate it with `{command}`.\n"""', "import numpy as np"]
    if uses_trunc_div:
        head += ["", "", TRUNC_DIV]
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(chunks) + "\n"
