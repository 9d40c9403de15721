"""``srcad templates``: the functions srcad has rules for, and those it is missing.

Contract:
- ``list_rules(out)`` writes every function srcad has a rule for, by a
  readable name (``np.sin``, ``math.sin``, ``operator.mul (*)``), with the
  modes it has a rule in, then the functions declared non-differentiable,
  then the totals (``N functions: R reverse, F forward``).  SciPy's families
  are imported first so that they are listed.
- ``list_missing(out)`` writes, module by module, the functions autograd
  differentiates (``grad_templates/reference.py``) that srcad covers in
  neither mode or in one only, then the reference names this installation
  does not have, then the total (``N missing``).

Example::

    >>> import operator
    >>> display_name(operator.mul)
    'operator.mul (*)'
"""
from __future__ import annotations

import builtins
import inspect
import math
import operator
import sys
import textwrap
from typing import TextIO

from .templates import FORWARD, REGISTRY, REVERSE
from grad_templates import optional

EXIT_OK = 0


_OPERATOR_SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "matmul": "@", "neg": "unary -", "pos": "unary +", "getitem": "x[i]", "lt": "<", "le": "<=",
    "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "not_": "not", "invert": "~",
}


def _namespaces():
    """(prefix, module) pairs searched for a function's readable name, most specific first."""
    import numpy as np
    found = [("np.linalg", np.linalg), ("np.random", np.random), ("np", np)]
    for name in ("scipy.special", "scipy.linalg", "scipy.stats", "scipy.signal", "scipy.integrate"):
        if sys.modules.get(name) is not None:
            found.append((name, sys.modules[name]))
    return found + [("math", math)]


def display_name(function) -> str:
    """How ``srcad templates`` names a function: ``np.sin``, ``np.linalg.norm``, ``operator.mul (*)``.

    Example::

        >>> import operator
        >>> display_name(operator.mul)
        'operator.mul (*)'
    """
    name = getattr(function, "__name__", None)
    if name is None:   # an object such as np.mgrid: its name in a namespace
        for prefix, namespace in _namespaces():
            for attribute, value in vars(namespace).items():
                if value is function:
                    return f"{prefix}.{attribute}"
        return repr(function)
    if getattr(operator, name, None) is function:
        symbol = _OPERATOR_SYMBOLS.get(name)
        return f"operator.{name} ({symbol})" if symbol else f"operator.{name}"
    if getattr(builtins, name, None) is function:
        return name
    for prefix, namespace in _namespaces():
        candidate = getattr(namespace, name, None)
        if candidate is function or (inspect.ismethod(function) and candidate == function):
            return f"{prefix}.{name}"
        owner = getattr(function, "__self__", None)   # scipy.stats.norm.logpdf: a method of a distribution
        if inspect.ismethod(function) and owner is not None:
            held = next((attribute for attribute, value in vars(namespace).items() if value is owner), None)
            if held is not None:
                return f"{prefix}.{held}.{name}"
    module = getattr(function, "__module__", None) or type(function).__module__
    return f"{module}.{getattr(function, '__qualname__', name)}"


def list_rules(out: TextIO) -> int:
    """Print the registry: functions with rules and their modes, non-differentiable ones, those not
    differentiated, totals; the exit status.

    Example::

        >>> import sys
        >>> list_rules(sys.stdout)   # doctest: +SKIP
        function   modes
        ...
    """
    optional.load_all()   # the SciPy families register when SciPy is imported: import it to list them
    rows = {}
    for mode in (REVERSE, FORWARD):
        for template in REGISTRY.rules[mode].values():
            rows.setdefault(display_name(template.primal), set()).add(mode)
    width = max([len(name) for name in rows] + [len("function")])
    out.write(f"{'function':<{width}}  modes\n")
    for name in sorted(rows, key=str.lower):
        modes = " ".join(m for m in (REVERSE, FORWARD) if m in rows[name])
        out.write(f"{name:<{width}}  {modes}\n")
    constant = sorted({display_name(fn) for fn in REGISTRY.nondiff if fn not in REGISTRY.refused}, key=str.lower)
    refused = sorted({display_name(fn) for fn in REGISTRY.refused}, key=str.lower)
    for title, names in (("non-differentiable (no derivative code)", constant),
                         ("not differentiated (no rule: a value being differentiated must not reach them)", refused)):
        out.write(f"\n{title}:\n")
        out.write(textwrap.fill(", ".join(names), width=99, initial_indent="  ", subsequent_indent="  ",
                                break_on_hyphens=False) + "\n")
    reverse = sum(REVERSE in modes for modes in rows.values())
    forward = sum(FORWARD in modes for modes in rows.values())
    out.write(f"\n{len(rows)} functions with rules: {reverse} reverse, {forward} forward; "
              f"{len(constant)} non-differentiable, {len(refused)} not differentiated\n")
    return EXIT_OK


def list_missing(out: TextIO) -> int:
    """Print, by module, the functions of the reference list srcad does not cover in both modes; the exit status.

    Example::

        >>> import sys
        >>> list_missing(sys.stdout)   # doctest: +SKIP
        functions autograd differentiates that srcad does not (reference: grad_templates/reference.py):
        ...
    """
    from grad_templates.reference import missing, unavailable
    gaps = missing()
    out.write("functions autograd differentiates that srcad does not (reference: grad_templates/reference.py):\n")
    for module, entries in gaps.items():
        text = ", ".join(name if what == "no rule" else f"{name} ({what})" for name, what in entries) or "none"
        out.write(textwrap.fill(f"{module} ({len(entries)}): {text}", width=99, subsequent_indent="  ",
                                break_on_hyphens=False) + "\n")
    absent = [f"{module}.{name}" for module, names in unavailable().items() for name in names]
    if absent:
        out.write(textwrap.fill("not in the installed versions: " + ", ".join(absent), width=99,
                                subsequent_indent="  ", break_on_hyphens=False) + "\n")
    out.write(f"{sum(len(entries) for entries in gaps.values())} missing\n")
    return EXIT_OK


