"""The shapes, constants, variables and scopes generated programs are built from (tests/fuzz_programs.py).

Contract: a kind is a key of ``SHAPES`` (``S`` scalar, ``V`` and ``W``
vectors, ``M`` a matrix); ``CONSTANTS`` and ``ZEROS`` give source text of a
value of each kind; a ``Variable`` is a name of a kind in generated source
(with whether stores into it are allowed), and a ``Scope`` the variables a
statement may read.  Nothing here makes a choice.

Example::

    >>> Scope([Variable("x", "V")]).of_kind("V")[0].name
    'x'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

SHAPES = {"S": (), "V": (3,), "W": (2,), "M": (2, 3)}
# Constructs left out of generated programs until srcad handles them (the programs in
# tests/test_fuzz.py's REGRESSIONS show why): "return_in_loop" is a `return` inside a loop body;
# "store_after_rebinding" is an element store into an array after `z = ...` or `z -= ...` rebound it;
# "keyword_only_parameter" is `def f(x, *, p=0.5)` (and `f.__kwdefaults__` changed between derivatives):
# srcad.jvp and srcad.vjp's pullback pass the tangents and the seed by position, which the generated
# derivative takes by keyword after p, so they raise TypeError.
EXCLUDED: set = {"keyword_only_parameter"}
CONSTANTS = {"S": "0.7", "V": "np.array([0.5, -1.0, 2.0])", "W": "np.array([1.5, -0.5])",
             "M": "np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]])"}
ZEROS = {"V": "np.zeros(3)", "W": "np.zeros(2)", "M": "np.zeros((2, 3))"}


@dataclass
class Variable:
    name: str
    kind: str
    writable: bool = False    # a fresh local array: element stores and += are allowed
    stored: bool = False      # an element store into it has been generated


@dataclass
class Scope:
    variables: List[Variable]
    loop_index: Optional[Tuple[str, int]] = None   # (name, trip count) of the innermost for loop
    in_for: bool = False
    in_loop: bool = False
    in_with: bool = False     # inside a ``with`` body: no ``return`` (srcad refuses one there by design)

    def child(self, **changes) -> "Scope":
        values = dict(variables=list(self.variables), loop_index=self.loop_index, in_for=self.in_for,
                      in_loop=self.in_loop, in_with=self.in_with)
        values.update(changes)
        return Scope(**values)

    def of_kind(self, kind: str) -> List[Variable]:
        return [v for v in self.variables if v.kind == kind]
