"""Other formulations of the benchmark problems: the same objective, spelled the way other users write it.

Contract:
- For each problem of ``benchmarks/problems.py`` this module holds at least
  two other spellings of its objective (``np.dot``/``np.einsum`` for ``@``,
  ``np.`` functions for operators, ``np`` for ``math`` on scalars, loops
  over ``zip``/the rows instead of ``range(len(xs))``, slices instead of
  element loops, and back).  Each takes the original's positional
  parameters under the same names, computes the same value up to rounding
  on the original's inputs (``tests/test_benchmarks.py`` checks it), never
  modifies its arguments, and is differentiated with respect to the
  original's ``wrt``.
- ``FORMULATIONS`` maps ``"problem/formulation"`` (e.g. ``"rnn/dot"``) to a
  ``problems.Problem`` sharing the original's ``wrt`` and ``make_inputs``;
  its ``description`` says what differs from the original.
  ``formulations_of(name)`` lists a problem's formulations, original first;
  ``EVERY_FUNCTION`` maps every name, originals and formulations, to its
  ``Problem``, each problem followed by its formulations.
- The original formulation of a problem keeps its name (``"rnn"``), so
  results stay comparable with earlier runs.

Example::

    >>> import numpy as np
    >>> from formulations import FORMULATIONS
    >>> from problems import PROBLEMS
    >>> args = PROBLEMS["rnn"].make_inputs("quick", np.random.default_rng(0))
    >>> bool(np.isclose(FORMULATIONS["rnn/dot"].function(*args), PROBLEMS["rnn"].function(*args)))
    True
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List

from formulations_loops import (conv_shifts, conv_windows, heat_diff, heat_store, logistic_expanded, logistic_np,
                                lstm_np, lstm_zip, matmul_loops_rows, matmul_loops_sum, pool_rows, pool_slices,
                                rnn_dot, rnn_einsum, rnn_zip, rosenbrock_zip)
from formulations_vectorised import (gmm_einsum, gmm_np, helmholtz_einsum, helmholtz_np, logreg_dot,
                                     logreg_logaddexp, mlp_dot, mlp_einsum, rosenbrock_np)
from problems import PROBLEMS, Problem

# problem name -> (formulation name, objective, what differs from the original)
_SPELLINGS = {
    "logistic": [("np", logistic_np, "np.multiply/np.subtract for * and -"),
                 ("expanded", logistic_expanded, "r * x - r * x ** 2")],
    "helmholtz": [("np", helmholtz_np, "np.dot for @, np.sqrt/np.log for math"),
                  ("einsum", helmholtz_einsum, "np.einsum for the products")],
    "rosenbrock": [("np", rosenbrock_np, "np.square, np.subtract"),
                   ("zip", rosenbrock_zip, "a loop over zip(x[:-1], x[1:])")],
    "mlp": [("dot", mlp_dot, "np.dot, np.add, len(x)"),
            ("einsum", mlp_einsum, "np.einsum, np.max/np.sum methods")],
    "rnn": [("dot", rnn_dot, "np.dot for @"),
            ("einsum", rnn_einsum, "np.einsum for @"),
            ("zip", rnn_zip, "a loop over zip(xs, ys)")],
    "gmm": [("einsum", gmm_einsum, "np.einsum for the batched product, np.square"),
            ("np", gmm_np, "np.log/np.pi for math, methods .sum/.max")],
    "lstm": [("zip", lstm_zip, "a loop over zip(sequence[:-1], sequence[1:])"),
             ("np", lstm_np, "np.multiply/np.add, np.reciprocal in sigmoid")],
    "pool": [("rows", pool_rows, "a loop of row stores A[i] = ..."),
             ("slices", pool_slices, "vectorised slices, no loop")],
    "matmul_loops": [("rows", matmul_loops_rows, "a loop of row stores A[i] = B[i] @ C"),
                     ("sum", matmul_loops_sum, "A[i, j] = np.sum(B[i] * C[:, j])")],
    "heat": [("diff", heat_diff, "np.diff(u, 2) for the stencil"),
             ("store", heat_store, "a slice store into a copy of u")],
    "conv": [("windows", conv_windows, "loops over output pixels, np.sum of a window"),
             ("shifts", conv_shifts, "loops over the kernel's offsets, np.einsum of shifted slices")],
    "logreg": [("dot", logreg_dot, "np.dot, np.sum / len(y)"),
               ("logaddexp", logreg_logaddexp, "np.logaddexp(0.0, -margins)")],
}


def _formulations() -> Dict[str, Problem]:
    table: Dict[str, Problem] = {}
    for problem in PROBLEMS.values():
        for suffix, function, what in _SPELLINGS.get(problem.function.__name__, ()):
            name = f"{problem.name}/{suffix}"
            table[name] = dataclasses.replace(problem, name=name, function=function, description=what)
    return table


FORMULATIONS: Dict[str, Problem] = _formulations()


def formulations_of(name: str) -> List[Problem]:
    """The problem ``name`` and its other formulations, original first.

    Example::

        >>> [p.name for p in formulations_of("pool")]
        ['pool', 'pool/rows', 'pool/slices']
    """
    return [PROBLEMS[name]] + [p for key, p in FORMULATIONS.items() if key.split("/")[0] == name]


EVERY_FUNCTION: Dict[str, Problem] = {p.name: p for name in PROBLEMS for p in formulations_of(name)}
