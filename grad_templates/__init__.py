"""srcad's built-in gradient rules, one module per family.

Each family module keeps the reverse rule (``@adjoint``) and the forward rule
(``@tangent``) of an operation side by side.  Importing this package registers
them all.  To add an operation: write its two rules in the family module and
add one row to the spec table in ``tests/test_templates.py``; the tests then
check it in both modes.
"""
from . import arithmetic, elementwise, reductions, linalg, shapes, nondifferentiable  # noqa: F401
