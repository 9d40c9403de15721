"""srcad's built-in gradient rules, one module per family.

Each family module keeps the reverse rule (``@adjoint``) and the forward rule
(``@tangent``) of an operation side by side.  Importing this package registers
them all.  To add an operation: write its two rules in the family module and
add one row to the spec table in ``tests/specs.py``; the tests then check it
in both modes.  ``nondifferentiable`` comes last, so its declarations are
final.  The SciPy families (``special``, ``scipy_linalg``, ``scipy_stats``,
``scipy_signal``, ``scipy_integrate``) are registered by ``optional`` when
the SciPy module they cover is imported, so importing srcad never imports
SciPy.

Families: ``arithmetic`` (operators), ``exp_log``, ``trig``, ``piecewise``
(abs, maximum, clip, where, mod), ``math_module`` (math and builtins),
``reductions``, ``shapes`` (reshape, transpose, flip, repeat...),
``indexing`` (subscripts, take, sort, partition, diagonals), ``joining``
(concatenate, stack, split, append, select, pad), ``linalg`` (products,
einsum, convolutions, norms), ``decompositions`` (inv, solve, det,
cholesky, eigh, eig, svd, pinv, qr, lstsq), ``numerical`` (diff, gradient,
trapezoid, interp, polyval), ``construction`` (array, copy, full), ``iteration`` (tuple, list, dict,
sorted, set),
``fft`` (numpy.fft), ``complex_parts`` (|z|, real and imaginary parts, conjugate, phase), ``complex_linalg``
(eigh, eigvalsh, svd and norm of complex numbers), ``special`` (scipy.special),
``scipy_linalg``, ``scipy_stats``, ``scipy_signal``, ``scipy_integrate``,
``runtime_helpers``, ``runtime_helpers_linalg``, ``runtime_helpers_reductions`` and ``tape`` (srcad's
own helpers, so generated code can be differentiated again).
"""
from . import (arithmetic, exp_log, trig, piecewise, math_module, reductions, shapes,  # noqa: F401
               indexing, joining, linalg, decompositions, numerical, construction, iteration, fft, complex_parts,
               complex_linalg,
               nondifferentiable,
               runtime_helpers, runtime_helpers_linalg, runtime_helpers_reductions, runtime_helpers_numerical,
               tape)
from . import optional

optional.watch()   # the SciPy families: now for the SciPy modules imported already, later for the others
