"""Expression swell: symbolic differentiation against srcad on the logistic map.

The logistic map ``l = 4 * l * (1 - l)`` applied n times is a polynomial of
degree 2**n.  Differentiating the unrolled expression symbolically (SymPy's
``diff``) gives an expression whose size grows exponentially in n, and
expanding it (the "simplified" polynomial) does not help.  srcad instead
differentiates the program: its derivative of the n-line unrolled function
grows by a fixed number of lines per step, and its derivative of the loop
``for _ in range(n)`` has the same size for every n.

For n = 1..N the script prints, per n:

- ``sympy ops`` / ``sympy chars``: ``sympy.count_ops`` and ``len(str(...))``
  of ``sympy.diff`` of the unrolled expression, as SymPy returns it (no
  simplification);
- ``expanded ops`` / ``expanded chars``: the same after ``sympy.expand``
  (only up to ``--expand-up-to``, as expansion soon takes seconds);
- ``rev lines`` / ``rev ops`` / ``fwd lines``: the size of srcad's
  reverse-mode derivative of the unrolled function (code lines, and
  operations and calls, the counterpart of ``count_ops``; see
  ``code_size``) and the lines of its forward-mode derivative;
- ``loop lines``: srcad's reverse-mode derivative of the loop version.

SymPy is optional: without it only srcad's columns are printed.  With
matplotlib installed the table is also plotted to ``expression_swell.png``
(in ``--out``, default the current directory).

Run: python examples/expression_swell.py [--max-n N] [--out DIRECTORY]
"""
from __future__ import annotations

import argparse
import ast
import linecache
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import srcad


def logistic_loop(l, n):
    for _ in range(n):
        l = 4.0 * l * (1.0 - l)
    return l


def unrolled_logistic(n: int) -> Callable[[float], float]:
    """A function of ``l`` whose body is the logistic-map step written out ``n`` times.

    Its source is registered in ``linecache``, so srcad can read it like a
    function defined in a file.

    Example::

        >>> unrolled_logistic(2)(0.25)   # 4 * 0.75 * 0.25 = 0.75, then 4 * 0.75 * 0.25
        0.75
    """
    name = f"logistic_unrolled_{n}"
    text = f"def {name}(l):\n" + "    l = 4.0 * l * (1.0 - l)\n" * n + "    return l\n"
    filename = f"<{name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    namespace: Dict[str, object] = {}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


_OPERATIONS = (ast.UnaryOp, ast.BinOp, ast.BoolOp, ast.Compare, ast.AugAssign, ast.Call)


def code_size(module_text: str, function_name: str) -> Tuple[int, int]:
    """``(lines, operations)`` of the function ``function_name`` defined in ``module_text``.

    ``lines`` counts the physical lines from the function's first statement
    to its last that are neither blank nor only a comment; the ``def`` line
    and a docstring are not counted.  ``operations`` counts the operators
    and calls in the body: every unary, binary, boolean and comparison
    operator, augmented assignment and call (``-(a * b)`` is 2).

    Example::

        >>> code_size("def f(x):\\n    '''Doc.'''\\n    # square\\n    y = x * x\\n\\n    return y\\n", "f")
        (2, 1)
    """
    function = next(node for node in ast.walk(ast.parse(module_text))
                    if isinstance(node, ast.FunctionDef) and node.name == function_name)
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    lines = module_text.splitlines()[body[0].lineno - 1:body[-1].end_lineno]
    code_lines = sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))
    operations = sum(len(node.ops) if isinstance(node, ast.Compare) else len(node.values) - 1
                     if isinstance(node, ast.BoolOp) else 1
                     for statement in body for node in ast.walk(statement) if isinstance(node, _OPERATIONS))
    return code_lines, operations


def srcad_size(func: Callable, mode: str = "reverse") -> Tuple[int, int]:
    """``code_size`` of srcad's derivative of ``func`` with respect to its first parameter."""
    return code_size(srcad.source(func, mode=mode), "d" + func.__name__)


def sympy_sizes(max_n: int, expand_up_to: int) -> List[Dict[str, Optional[int]]]:
    """Per n = 1..max_n, the size of SymPy's derivative of the unrolled map, raw and expanded."""
    import sympy

    x = sympy.Symbol("x")
    expression, rows = x, []
    for n in range(1, max_n + 1):
        expression = 4 * expression * (1 - expression)
        derivative = sympy.diff(expression, x)
        row = {"sympy ops": int(sympy.count_ops(derivative)), "sympy chars": len(str(derivative)),
               "expanded ops": None, "expanded chars": None}
        if n <= expand_up_to:
            expanded = sympy.expand(derivative)
            row.update({"expanded ops": int(sympy.count_ops(expanded)), "expanded chars": len(str(expanded))})
        rows.append(row)
    return rows


def measure(max_n: int = 9, expand_up_to: int = 5) -> List[Dict[str, Optional[int]]]:
    """The table's rows: one dict per n = 1..max_n, SymPy's columns None when SymPy is missing."""
    try:
        symbolic = sympy_sizes(max_n, expand_up_to)
    except ImportError:
        symbolic = [dict.fromkeys(("sympy ops", "sympy chars", "expanded ops", "expanded chars"))] * max_n
    loop_lines = srcad_size(logistic_loop)[0]
    rows = []
    for n in range(1, max_n + 1):
        unrolled = unrolled_logistic(n)
        reverse_lines, reverse_operations = srcad_size(unrolled)
        rows.append({"n": n, **symbolic[n - 1], "rev lines": reverse_lines, "rev ops": reverse_operations,
                     "fwd lines": srcad_size(unrolled, "forward")[0], "loop lines": loop_lines})
    return rows


def format_table(rows: List[Dict[str, Optional[int]]]) -> str:
    """The rows as an aligned text table; columns that are None everywhere are left out."""
    columns = [key for key in rows[0] if any(row[key] is not None for row in rows)]
    widths = {key: max(len(key), *(len(str(row[key])) for row in rows)) for key in columns}
    lines = ["  ".join(key.rjust(widths[key]) for key in columns)]
    for row in rows:
        lines.append("  ".join(("-" if row[key] is None else str(row[key])).rjust(widths[key]) for key in columns))
    return "\n".join(lines)


def save_plot(rows: List[Dict[str, Optional[int]]], out_dir: Path) -> Optional[Path]:
    """Plot the sizes against n into ``out_dir/expression_swell.png``; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, axes = plt.subplots(figsize=(6.5, 4.5))
    for key, label in [("sympy ops", "sympy.diff, operations"), ("expanded ops", "sympy.diff + expand, operations"),
                       ("rev ops", "srcad reverse mode, operations"), ("rev lines", "srcad reverse mode, lines"),
                       ("loop lines", "srcad reverse mode of the loop, lines")]:
        points = [(row["n"], row[key]) for row in rows if row[key] is not None]
        if points:
            axes.plot(*zip(*points), marker="o", label=label)
    axes.set_yscale("log")
    axes.set_xlabel("n (logistic-map steps)")
    axes.set_ylabel("size of the derivative")
    axes.set_title("Expression swell: d/dl of the logistic map applied n times")
    axes.legend(fontsize="small")
    figure.tight_layout()
    path = Path(out_dir) / "expression_swell.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def main(max_n: int = 9, out_dir: Path = Path("."), expand_up_to: int = 5) -> List[Dict[str, Optional[int]]]:
    """Measure, print the table, save the plot; returns the rows.

    Example::

        rows = main(max_n=8, out_dir=Path("/tmp"))   # prints the table, writes /tmp/expression_swell.png
    """
    rows = measure(max_n, expand_up_to)
    if rows[0]["sympy ops"] is None:
        print("SymPy is not installed: srcad's columns only (pip install sympy)")
    print(format_table(rows))
    steps = [b["rev lines"] - a["rev lines"] for a, b in zip(rows, rows[1:])]
    if steps:
        print(f"srcad reverse mode: {steps[-1]} more lines per logistic step; the loop version has "
              f"{rows[0]['loop lines']} lines for every n")
    path = save_plot(rows, out_dir)
    print("matplotlib is not installed: no plot saved" if path is None else f"plot saved to {path}")
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=9, help="largest number of logistic steps")
    parser.add_argument("--expand-up-to", type=int, default=5, help="largest n for sympy.expand")
    parser.add_argument("--out", type=Path, default=Path("."), help="directory for the PNG plot")
    options = parser.parse_args()
    main(options.max_n, options.out, options.expand_up_to)
