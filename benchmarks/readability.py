"""How much code srcad generates, compared with tangent-ad, and how it grows.

Contract:
- Part 1 differentiates every function of ``readability_functions.FUNCTIONS``
  with respect to its first parameter, in reverse mode, with srcad
  (``srcad.source``) and, when it is installed, with tangent-ad 0.4
  (``tangent.grad(f, verbose=0)``, whose source ``inspect.getsource``
  returns).  For each tool and function it prints:

  * ``lines``: the generated derivative function's code lines, counted the
    same way for both tools (``code_size`` in ``examples/expression_swell.py``):
    the physical lines from the function's first statement to its last that
    are neither blank nor only a comment.  The ``def`` line, a docstring and
    the module around the function (imports, the derivatives of called user
    functions, which both tools build as separate functions) are not counted;
  * ``helpers``: the calls in that function to the tool's runtime: names
    imported from ``srcad`` modules in srcad's generated module (such as
    ``check_seed``, ``unbroadcast``), ``tangent.<name>(...)`` calls in
    tangent's (``tangent.push``, ``tangent.init_grad``...).

  Then it prints the totals and srcad's lines as a fraction of tangent-ad's,
  over the functions both tools differentiate, against the target of at
  most 60%.  A function's ratio above the target is marked ``✗``.  Without
  tangent-ad, or where it fails on a function, its columns read ``n/a``.
- Part 2 prints the code lines of srcad's reverse- and forward-mode
  derivatives of the logistic map ``l = 4 * l * (1 - l)`` written out n times
  for n = 1..64, and the lines each extra step adds: a constant, so the size
  grows linearly.
- ``main(argv)`` runs both parts and returns ``(rows, growth)`` for tests.

Run: python benchmarks/readability.py [--functions a,b] [--max-n N]
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import srcad

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "examples"))

from expression_swell import code_size, unrolled_logistic  # noqa: E402
from readability_functions import FUNCTIONS  # noqa: E402

TARGET_RATIO = 0.6


@dataclass
class Measurement:
    """One tool's generated derivative of one function: its source, lines and runtime-helper calls."""
    source: str
    lines: int
    helpers: int


@dataclass
class Row:
    """A function of the table, with srcad's measurement and tangent-ad's (None: n/a, with the reason)."""
    name: str
    srcad: Measurement
    tangent: Optional[Measurement]
    tangent_error: str = ""


def helper_calls(source: str, function_name: str, package: str) -> int:
    """Calls in ``function_name`` (defined in ``source``) to names that come from ``package``.

    A call counts when its function is a name imported from a module of
    ``package`` (``from srcad.runtime import unbroadcast``), or an attribute
    of ``package`` itself or of a module alias of it (``tangent.push(...)``).

    Example::

        >>> helper_calls("from srcad.runtime import check_seed\\ndef df(x, dy=1.0):\\n"
        ...              "    dy = check_seed(x, dy)\\n    return abs(dy)\\n", "df", "srcad")
        1
    """
    tree = ast.parse(source)
    names, modules = set(), {package}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name.split(".")[0] == package)
    function = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function_name)
    count = 0
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func
        if isinstance(callee, ast.Name):
            count += callee.id in names
            continue
        while isinstance(callee, ast.Attribute):
            callee = callee.value
        count += isinstance(callee, ast.Name) and callee.id in modules
    return count


def measure_srcad(func: Callable) -> Measurement:
    """srcad's reverse-mode derivative of ``func`` with respect to its first parameter."""
    source = srcad.source(func)
    name = "d" + func.__name__
    return Measurement(source, code_size(source, name)[0], helper_calls(source, name, "srcad"))


def tangent_unavailable() -> Optional[str]:
    """None when tangent-ad imports, else why it does not."""
    try:
        import tangent  # noqa: F401
    except Exception as exc:   # tangent-ad fails with several errors on unsupported Pythons
        return f"{type(exc).__name__}: {exc}"
    return None


def measure_tangent(func: Callable) -> Measurement:
    """tangent-ad's reverse-mode derivative of ``func`` with respect to its first parameter."""
    import tangent

    with contextlib.redirect_stdout(io.StringIO()):   # tangent-ad prints warnings on stdout
        derivative = tangent.grad(func, verbose=0)
    source = inspect.getsource(derivative)
    name = derivative.__name__
    return Measurement(source, code_size(source, name)[0], helper_calls(source, name, "tangent"))


def measure_functions(names: Optional[List[str]] = None) -> List[Row]:
    """A ``Row`` per function of ``FUNCTIONS`` (only those in ``names`` when given)."""
    missing = tangent_unavailable()
    rows = []
    for name, func, _ in FUNCTIONS:
        if names is not None and name not in names:
            continue
        row = Row(name, measure_srcad(func), None, missing or "")
        if missing is None:
            try:
                row.tangent = measure_tangent(func)
            except Exception as exc:   # a function tangent-ad cannot differentiate: n/a
                row.tangent_error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
        rows.append(row)
    return rows


def totals(rows: List[Row]) -> Tuple[int, int, Optional[float]]:
    """srcad's and tangent-ad's total lines over the rows both tools handle, and their ratio."""
    both = [row for row in rows if row.tangent is not None]
    srcad_lines = sum(row.srcad.lines for row in both)
    tangent_lines = sum(row.tangent.lines for row in both)
    return srcad_lines, tangent_lines, (srcad_lines / tangent_lines if tangent_lines else None)


def print_table(rows: List[Row]) -> None:
    header = f"{'function':22s} {'srcad lines':>11s} {'helpers':>7s}   {'tangent lines':>13s} {'helpers':>7s}   ratio"
    print(header)
    print("-" * len(header))
    for row in rows:
        if row.tangent is None:
            peer, ratio = f"{'n/a':>13s} {'n/a':>7s}", "n/a"
        else:
            share = row.srcad.lines / row.tangent.lines
            peer = f"{row.tangent.lines:13d} {row.tangent.helpers:7d}"
            ratio = f"{share:.2f} {'✓' if share <= TARGET_RATIO else '✗'}"
        print(f"{row.name:22s} {row.srcad.lines:11d} {row.srcad.helpers:7d}   {peer}   {ratio}")
    print("-" * len(header))
    srcad_lines, tangent_lines, ratio = totals(rows)
    srcad_helpers = sum(row.srcad.helpers for row in rows if row.tangent is not None)
    if ratio is None:
        print(f"{'total':22s} {sum(r.srcad.lines for r in rows):11d} {sum(r.srcad.helpers for r in rows):7d}   "
              f"{'n/a':>13s} {'n/a':>7s}   n/a")
        reasons = {row.tangent_error for row in rows}
        print(f"tangent-ad: n/a ({'; '.join(sorted(reasons))})")
        return
    tangent_helpers = sum(row.tangent.helpers for row in rows if row.tangent is not None)
    print(f"{'total':22s} {srcad_lines:11d} {srcad_helpers:7d}   {tangent_lines:13d} {tangent_helpers:7d}   "
          f"{ratio:.2f} {'✓' if ratio <= TARGET_RATIO else '✗'}")
    print(f"srcad / tangent-ad lines: {ratio:.2f} (target <= {TARGET_RATIO:.2f}), "
          f"over the {sum(r.tangent is not None for r in rows)} functions both differentiate")
    for row in rows:
        if row.tangent is None:
            print(f"tangent-ad n/a on {row.name}: {row.tangent_error}")


def unrolled_growth(max_n: int = 64) -> List[Dict[str, int]]:
    """Code lines of srcad's reverse and forward derivatives of the logistic map unrolled n = 1..max_n times."""
    growth = []
    for n in range(1, max_n + 1):
        func = unrolled_logistic(n)
        name = "d" + func.__name__
        growth.append({"n": n, "reverse": code_size(srcad.source(func), name)[0],
                       "forward": code_size(srcad.source(func, mode="forward"), name)[0]})
    return growth


def print_growth(growth: List[Dict[str, int]]) -> None:
    print(f"{'n':>3s} {'reverse lines':>13s} {'(+step)':>7s} {'forward lines':>13s} {'(+step)':>7s}")
    shown = {1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, len(growth)}
    for previous, row in zip([None] + growth, growth):
        if row["n"] not in shown:
            continue
        steps = [f"+{row[mode] - previous[mode]}" if previous else "" for mode in ("reverse", "forward")]
        print(f"{row['n']:3d} {row['reverse']:13d} {steps[0]:>7s} {row['forward']:13d} {steps[1]:>7s}")
    for mode in ("reverse", "forward"):
        steps = sorted({b[mode] - a[mode] for a, b in zip(growth, growth[1:])})
        print(f"{mode}: lines(n) - lines(n-1) for n = 2..{len(growth)}: {steps}")


def main(argv: Optional[List[str]] = None) -> Tuple[List[Row], List[Dict[str, int]]]:
    """Print both parts and return ``(rows, growth)``.

    Example::

        rows, growth = main(["--functions", "branch,loop_store", "--max-n", "8"])
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", help="comma-separated names from readability_functions (default: all)")
    parser.add_argument("--max-n", type=int, default=64, help="largest number of unrolled logistic steps")
    options = parser.parse_args(argv)
    names = options.functions.split(",") if options.functions else None
    print("Generated reverse-mode derivative: code lines and runtime-helper calls")
    rows = measure_functions(names)
    print_table(rows)
    print()
    print("srcad's derivative of the logistic map unrolled n times (code lines)")
    growth = unrolled_growth(options.max_n)
    print_growth(growth)
    return rows, growth


if __name__ == "__main__":
    main()
