"""The pass framework: the unit every pass works on, and the two kinds of pass.

Contract:
- An ``Analysis`` reads ``unit.tree`` and stores its result in
  ``unit.facts[pass.name]``; it never changes the tree.
- A ``Transformation`` may replace or edit ``unit.tree`` and returns whether
  it changed anything.
- Passes talk to each other only through ``unit`` (the tree, its node
  annotations, ``facts``, the ``namer`` and the module ``bindings``).
- A pass that needs the derivative of a function the user's code calls asks
  ``unit.derive(function, wrt, mode, **options)``: a service the API layer
  hands to ``pipeline.build``.  No pass imports the API.
- The order passes run in is not decided here: it is data, in
  ``srcad.pipeline.PIPELINES``.
- Each pass has a module of its own, named for what it does (the names in
  ``srcad.pipeline.PASSES``).  The other modules here are pieces several
  passes share: ``derivatives`` (a statement to its rule's statements),
  ``instantiate`` (a rule's body with the call's operands), ``calls`` (calls
  to the user's own functions), ``numpy_forms`` (``np.r_``, ``np.c_`` and
  every ``einsum`` form rewritten into calls with rules, for ``normalize``),
  ``adjoints`` (reverse mode's adjoint bookkeeping), ``taping`` (reverse
  mode's forward sweep), ``frame`` (the derivative's signature, seed, return
  and tape operations) and ``recompute`` (values the backward sweep
  recomputes instead of taping), ``product_gradients`` (the gradient of ``@``
  and ``np.dot`` written out for known ranks, for ``simplify``); ``comprehensions`` is the part of
  ``iteration`` and ``desugar`` that turns list comprehensions into append loops and assignment
  expressions into statements, and ``loops`` the part of ``desugar`` that makes every ``for`` loop a
  ``range`` loop.  ``contexts`` and ``exceptions`` (``with`` and ``try``), with ``attempts`` after
  ``normalize``, leave markers (``srcad.runtime.regions``) that the last pass, ``regions``, turns
  back into ``with`` and ``try`` statements of the derivative.  Facts several passes share live one
  layer down, in ``srcad.analysis``.

Example::

    class CountStatements(Analysis):
        name = "count"
        def analyse(self, unit):
            return len(unit.tree.body)
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple

from ..errors import SrcadError, located
from ..frontend.naming import Namer
from ..frontend.source import ParsedFunction
from ..frontend.naming import Bindings


@dataclass
class Unit:
    """One derivative being built: the user's function, its tree and what passes learned."""

    parsed: ParsedFunction
    mode: str
    wrt: Tuple[str, ...]
    options: Dict[str, Any]
    tree: Any = None
    facts: Dict[str, Any] = field(default_factory=dict)
    namer: Namer = None
    bindings: Bindings = None
    derive: Optional[Callable[..., Any]] = None   # (function, wrt, mode, **options) -> its Derivative

    def __post_init__(self):
        if self.tree is None:
            self.tree = self.parsed.tree
        if self.namer is None:
            self.namer = Namer()
        if self.bindings is None:
            self.bindings = Bindings(self.namer)

    def error(self, node, error_type, message: str, hint: str = "") -> SrcadError:
        """An error of ``error_type`` located at ``node`` in the user's file."""
        return located(error_type, message, hint, self.parsed.location(node))


class Pass(abc.ABC):
    """A named step of the pipeline."""

    name = ""

    @abc.abstractmethod
    def run(self, unit: Unit) -> bool:
        """Run on ``unit``; True when the tree changed."""


class Analysis(Pass):
    """A pass that computes facts about the tree and never changes it."""

    @abc.abstractmethod
    def analyse(self, unit: Unit):
        """The facts this analysis computes."""

    def run(self, unit: Unit) -> bool:
        unit.facts[self.name] = self.analyse(unit)
        return False


class Transformation(Pass):
    """A pass that rewrites the tree and says whether it changed it."""

    @abc.abstractmethod
    def transform(self, unit: Unit) -> bool:
        """Rewrite ``unit.tree``; True when anything changed."""

    def run(self, unit: Unit) -> bool:
        return bool(self.transform(unit))
