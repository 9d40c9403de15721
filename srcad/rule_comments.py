"""The generated derivative with each block annotated with the rule it came from (``srcad show --rules``).

Contract:
- ``annotated_source(func, wrt, mode, options)`` builds the derivative as
  ``pipeline.build`` does, with the option ``rule_origins`` on: while the
  mode transform instantiates a rule, it marks every node of the statements
  it makes with where the rule is written (``grad_templates/trig.py:126
  tanh_adjoint``) and the order it was instantiated in.
  After the optimisation passes, each statement that holds marked code is
  preceded by ``# rule: <origin>`` once per block (a block is the code under
  one ``# <your line>`` comment).
- The code is the code ``srcad.source`` prints: only comment lines are added
  (the marks are annotations on the tree, not statements, so no pass sees
  them).  Statements no rule made (the primal sweep, seeds, loops, tapes)
  carry no rule comment.  An optimisation that rebuilds a node drops its
  mark, so a rule whose code was wholly rewritten may go unnamed; a named
  rule did make code of that statement.

Example::

    >>> import numpy as np
    >>> def f(x):
    ...     return np.sum(np.tanh(x))
    >>> print(annotated_source(f, ("x",), "reverse", {}))   # doctest: +SKIP
    ...
        # return np.sum(np.tanh(x))
        # rule: grad_templates/reductions.py:33 sum_adjoint
        # rule: grad_templates/trig.py:126 tanh_adjoint
        dx = unreduce(dout, tanh_x) * (1.0 - tanh_x * tanh_x)
"""
from __future__ import annotations

import os
from operator import itemgetter
from typing import Any, Callable, Dict, List, Optional, Sequence

import gast

import grad_templates
from . import pipeline
from .frontend import syntax
from .frontend.emit import to_source

_NESTED_BODIES = ("body", "orelse", "finalbody")


def annotated_source(func: Callable[..., Any], wrt: Sequence[str], mode: str, options: Dict[str, Any],
                     observe: Optional[Callable[[str, str], None]] = None) -> str:
    """``func``'s generated derivative module with ``# rule: file:line name`` above the code of each rule
    (``observe`` as for ``pipeline.build``).

    Example::

        >>> text = annotated_source(f, ("x",), "reverse", {"optimize": True})   # doctest: +SKIP
        >>> "# rule: grad_templates/trig.py" in text                              # doctest: +SKIP
        True
    """
    shown: Dict[str, Any] = {}
    generated = pipeline.build(func, tuple(wrt), mode, dict(options, rule_origins=shown), observe=observe)
    unit = shown.get("unit")
    if unit is None:   # no rule was instantiated: nothing to annotate
        return generated.source
    plain = to_source(unit.tree)
    if not generated.source.endswith(plain):   # the emitted function is not the final tree: do not guess
        return generated.source
    header = generated.source[:len(generated.source) - len(plain)]
    tree = syntax.clone(unit.tree)
    tree.body = _annotated(tree.body)
    return header + to_source(tree)


def rule_origin(rule: Callable[..., Any]) -> str:
    """Where ``rule`` is written, as ``srcad show --rules`` prints it: ``grad_templates/trig.py:15 tanh_adjoint``."""
    code = getattr(rule, "__code__", None)
    if code is None:
        return getattr(rule, "__qualname__", repr(rule))
    path = os.path.abspath(code.co_filename)
    root = os.path.dirname(os.path.dirname(os.path.abspath(grad_templates.__file__)))
    shown = os.path.relpath(path, root) if path.startswith(root + os.sep) else os.path.relpath(path)
    shown = path if shown.startswith("..") else shown
    return f"{shown.replace(os.sep, '/')}:{code.co_firstlineno} {rule.__qualname__}"


def _annotated(statements: List[Any]) -> List[Any]:
    """``statements`` with a rule comment before each statement holding a rule not yet named in its block."""
    result: List[Any] = []
    named: List[str] = []
    for statement in statements:
        if syntax.is_comment(statement):   # a new block: the user's line
            named = []
            result.append(statement)
            continue
        for origin in _origins(statement):
            if origin not in named:
                named.append(origin)
                result.append(syntax.comment(f"rule: {origin}"))
        for field in _NESTED_BODIES:
            body = getattr(statement, field, None)
            if isinstance(body, list) and body and isinstance(body[0], gast.stmt):
                setattr(statement, field, _annotated(body))
        for handler in getattr(statement, "handlers", None) or ():
            handler.body = _annotated(handler.body)
        result.append(statement)
    return result


def _origins(statement: Any) -> List[str]:
    """The rule origins marked in ``statement``, in order, leaving out its nested statement bodies."""
    marks = set()
    stack = [statement]
    while stack:
        node = stack.pop()
        mark = syntax.annotation(node, "rule")
        if mark is not None:
            marks.add(mark)
        for field, value in gast.iter_fields(node):
            if node is statement and field in _NESTED_BODIES + ("handlers",):
                continue
            stack.extend(child for child in (value if isinstance(value, list) else [value])
                         if isinstance(child, gast.AST))
    found: List[str] = []
    for _, rule in sorted(marks, key=itemgetter(0)):   # in the order rules were instantiated
        origin = rule_origin(rule)
        if origin not in found:
            found.append(origin)
    return found
