"""srcad's built-in gradient rules, one module per family.

Each family module keeps the reverse rule (``@adjoint``) and the forward rule
(``@tangent``) of an operation side by side.  Importing this package registers
them all.  To add an operation: write its two rules in the family module and
add one row to the spec table in ``tests/specs.py``; the tests then check it
in both modes.  ``special`` registers rules for ``scipy.special`` only when
SciPy is installed; ``nondifferentiable`` comes last, so its declarations are
final.

Families: ``arithmetic`` (operators), ``exp_log``, ``trig``, ``piecewise``
(abs, maximum, clip, where, mod), ``math_module`` (math and builtins),
``reductions``, ``shapes`` (reshape, transpose, flip, repeat...),
``indexing`` (subscripts, take, sort, diagonals), ``joining`` (concatenate,
stack, split, pad), ``linalg`` (products, einsum, norms),
``decompositions`` (inv, solve, det, cholesky, eigh, svd, pinv),
``construction`` (array, copy, full), ``special`` (scipy.special),
``runtime_helpers``, ``runtime_helpers_linalg``, ``runtime_helpers_reductions`` and ``tape`` (srcad's
own helpers, so generated code can be differentiated again).
"""
from . import (arithmetic, exp_log, trig, piecewise, math_module, reductions, shapes,  # noqa: F401
               indexing, joining, linalg, decompositions, construction, special, nondifferentiable,
               runtime_helpers, runtime_helpers_linalg, runtime_helpers_reductions, tape)
