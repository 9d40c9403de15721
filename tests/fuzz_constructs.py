"""The rarer expressions of generated programs, and redefinitions (tests/fuzz_programs.py mixes them in).

Contract: ``Constructs`` is a mixin of ``fuzz_programs.ProgramGenerator``; its
methods return source text and make every choice through the generator
(``pick``, ``chance``, ``rare``, ``expression``...), so programs stay
reproducible from a seed and shrinkable by hypothesis.  It adds:

- values exactly at removable singular points (``SINGULAR``, ``SPREADS``,
  ``SCALAR_SINGULAR``): ``x ** 0``, ``0.0 ** y`` with ``y > 0``,
  ``std``/``var`` along an axis of one element, ``np.linalg.norm`` and
  ``np.hypot`` of an exact zero, ``np.sinc(0)``, ``special.xlogy(0, y)``;
  parameters that are zero (``Program.zeros``) put ``x ** 2``, ``sinc``,
  ``xlogy``, norms, ``hypot`` and ``abs`` at 0 too;
- integer casts (``astype(int)``, ``np.array(..., dtype=int)``, ``int()``,
  ``np.floor(...).astype(np.int64)``) used as numbers and as indices (their
  derivative is 0);
- complex constants meeting differentiated values (``COMPLEX``), kept rare:
  srcad differentiates them (autograd's convention) or refuses an operation
  it has no complex rule for (``ComplexError``); in some programs one of them
  is f's first statement, reads a parameter and reaches f's last ``return``
  (``complex_preamble``), so the complex path always decides the result;
- calls to the pure ``act`` and ``damp`` of ``tests/fuzz_helpers.py``, a
  module of its own, as ``fh.act(...)`` or imported by name;
- a redefinition (``Program.redefinition``): source run, as a notebook cell
  would be, after the first derivative: a helper defined again, its
  ``__code__`` or ``__defaults__`` replaced, or ``fuzz_helpers.act`` or
  ``damp`` rebound, given new code or new defaults (f reads ``act`` imported
  by name half the time, and then keeps the old one); f's last ``return``
  gets a term that calls what changes.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> generator = ProgramGenerator(RandomChooser(random.Random(3)))
    >>> generator.program().source.splitlines()[0]
    'import math'
"""
from __future__ import annotations

from typing import List, Tuple

from fuzz_kinds import Scope

ARRAY_KINDS = ("V", "W", "M")
LENGTHS = {"V": 3, "W": 2, "M": 2}

# kind-preserving templates whose value sits at a removable singular point ({a} - {a} is exactly 0)
SINGULAR = ["({a}) ** 0", "np.power({a}, 0.0)", "0.0 ** (1.0 + ({a}) ** 2)", "np.power(0.0, np.exp({a}))",
            "np.sinc({a})", "np.sinc({a} - {a})", "special.xlogy({a}, np.exp({b}))",
            "special.xlogy({a} - {a}, 1.0 + {b} * {b})", "np.hypot({a}, {b})", "np.hypot({a} - {a}, 0.0 * {b})"]
# std and var along an axis of one element (identically 0), by the kind of the result and its operand
SPREADS = {"V": ["np.std(({a})[None, :], axis=0)", "np.var(np.reshape({a}, (1, 3)), axis=0)"],
           "W": ["np.std(({a})[None, :], axis=0)", "np.var(({a})[:, None], axis=1)"],
           "M": ["np.std(({a})[:, None, :], axis=1)", "np.var(({a})[None], axis=0)"]}
SCALAR_SINGULAR = ["np.linalg.norm({v})", "np.linalg.norm({v} - {v})", "np.std(np.ravel({v})[:1])",
                   "np.var(np.ravel({v})[:1])", "math.hypot({a}, {b})", "np.std(np.atleast_1d({a}))"]
CASTS = {"array": ["({a} * 2.0).astype(int)", "np.array({a} * 2.0, dtype=int)",
                   "np.floor({a} * 2.0).astype(np.int64)"],
         "S": ["int({a} * 2.0)", "np.floor({a} * 2.0).astype(np.int64)", "np.array({a} * 2.0, dtype=int)"]}
CAST_USES = ["({b} * {cast})", "({cast} * 1.0 + {b})", "({b} - 0.5 * {cast})"]
INDEX_CASTS = ["int(np.abs({s}) * 2.0) % {n}", "np.floor(np.abs({s}) * 2.0).astype(np.int64) % {n}",
               "np.array(np.abs({s}) * 2.0, dtype=int) % {n}"]
COMPLEX = ["np.exp(1j * {a}).real", "(({a}) * (1 + 2j)).real", "np.real(np.exp(1j * {a}))",
           "np.abs({a} * (1 + 2j))", "np.imag(({a}) * (2 - 1j))", "np.cos(({a}) + 0j).real"]
MODULE_FUNCTIONS = {"act": "fh.act_alt", "damp": "fh.damp_alt"}


class Constructs:
    """Mixin of ``ProgramGenerator``: the constructs listed in the module docstring."""

    # -- expressions -------------------------------------------------------

    def special_expression(self, kind: str, scope: Scope, depth: int) -> str:
        """A singular point, an integer cast, a complex constant or a call into ``fuzz_helpers``."""
        family = self.pick(["singular"] * 3 + ["cast"] * 3 + ["complex", "module"])
        if family == "complex" and not self.rare(20):   # a refusal: in few programs, to keep most compared
            family = "singular"
        a = self._expression(kind, scope, depth)
        if family == "singular":
            return self.singular(kind, a, scope, depth)
        if family == "cast":
            return self.cast(kind, a, scope, depth)
        if family == "complex":
            return self.pick(COMPLEX).format(a=a)
        function = self.pick(list(MODULE_FUNCTIONS))
        return f"{self.module_name(function)}({a})"

    def singular(self, kind: str, a: str, scope: Scope, depth: int) -> str:
        """``a`` (or an expression built from it) at a removable singular point."""
        if kind != "S" and self.chance(25):
            return self.pick(SPREADS[kind]).format(a=a)
        options = list(SINGULAR) + (SCALAR_SINGULAR if kind == "S" else [])
        template = self.pick(options)
        if "special." in template:
            self.imports.add("special")
        v = self._expression(self.pick(ARRAY_KINDS), scope, depth) if "{v}" in template else ""
        b = self._expression(kind, scope, depth) if "{b}" in template else ""
        return template.format(a=a, b=b, v=v)

    def cast(self, kind: str, a: str, scope: Scope, depth: int) -> str:
        """An integer cast used as a number, or as an index (its derivative is 0 either way)."""
        if self.chance(50):
            reads = {"S": [("V", 3), ("W", 2)], "V": [("M", 2), ("V", 3)], "W": [("W", 2)]}.get(kind, [])
            if reads:
                source, length = self.pick(reads)
                array = self._expression(source, scope, depth)
                if source == kind:   # a gather: an index array of the same length
                    index = f"(np.abs({a}) * 2.0).astype(int) % {length}"
                else:
                    index = self.pick(INDEX_CASTS).format(s=self._expression("S", scope, depth), n=length)
                return f"({array})[{index}]"
        cast = self.pick(CASTS["S" if kind == "S" else "array"]).format(a=a)
        return self.pick(CAST_USES).format(b=self._expression(kind, scope, depth), cast=cast)

    def module_name(self, function: str) -> str:
        """``fh.function`` or ``function`` imported by name; the program imports what it uses."""
        if self.chance(50):
            self.imports.add("fh")
            return f"fh.{function}"
        self.from_imports.add(function)
        return function

    def cast_index(self, kind: str, scope: Scope) -> Tuple[str, str]:
        """An integer index computed from a float by a cast (a row of a matrix)."""
        index = self.pick(INDEX_CASTS).format(s=self._expression("S", scope, 1), n=LENGTHS[kind])
        return index, ("V" if kind == "M" else "S")

    # -- f's first statement and last term ---------------------------------

    def complex_preamble(self, parameters: List[Tuple[str, str]]) -> Tuple[str, str]:
        """f's first statement: a complex constant meets a parameter; (line, the name it binds)."""
        name, kind = self.pick(parameters)
        value = self.pick(COMPLEX).format(a=name)
        target = self.fresh_name("c")
        return f"    {target} = {value if kind == 'S' else f'np.sum({value})'}", target

    # -- redefinitions -----------------------------------------------------

    def redefinition(self, scope: Scope) -> Tuple[str, str]:
        """(cell source run after the first derivative, a scalar term of f's result that uses what changes)."""
        forms = ["module_attribute", "module_code", "module_defaults"]
        if self.helpers:
            forms += ["cell_def", "cell_def", "code", "code"]
            if any(h.default for h in self.helpers):
                forms += ["defaults"]
        form = self.pick(forms)
        if form.startswith("module"):
            function = "damp" if form == "module_defaults" else self.pick(list(MODULE_FUNCTIONS))
            self.imports.add("fh")
            term = f"np.sum({self.module_name(function)}({self.expression(self.pick(ARRAY_KINDS), scope, 2)}))"
            cell = {"module_attribute": f"fh.{function} = {MODULE_FUNCTIONS[function]}\n",
                    "module_code": f"fh.{function}.__code__ = {MODULE_FUNCTIONS[function]}.__code__\n",
                    "module_defaults": "fh.damp.__defaults__ = (2.0,)\n"}[form]
            return cell, term
        if form == "defaults":
            helper = self.pick([h for h in self.helpers if h.default])
        else:
            helper = self.pick(self.helpers)
        arguments = ", ".join(self.expression(k, scope, 2) for k in helper.kinds)
        term = f"{helper.name}({arguments})"
        term = term if helper.result == "S" else f"np.sum({term})"
        if form == "defaults":
            return f"{helper.name}.__defaults__ = (1.25,)\n", term
        position = self.helpers.index(helper)
        visible, self.helpers = self.helpers, self.helpers[:position]   # no recursion through the new body
        try:
            if form == "cell_def":
                cell = self.helper_definition(helper.name, helper.kinds, helper.result, helper.default)
            else:
                replacement = f"{helper.name}_v2"
                cell = (self.helper_definition(replacement, helper.kinds, helper.result, helper.default)
                        + f"\n\n{helper.name}.__code__ = {replacement}.__code__\n")
        finally:
            self.helpers = visible
        return cell, term


def redefinition_form(cell: str) -> str:
    """Which kind of redefinition ``cell`` (a ``Program.redefinition``) is, as ``Constructs.redefinition`` names it.

    Example::

        >>> redefinition_form("fh.act = fh.act_alt")
        'module_attribute'
    """
    if cell.startswith("fh."):
        return "module_code" if "__code__" in cell else "module_defaults" if "__defaults__" in cell \
            else "module_attribute"
    if "__code__" in cell:
        return "code"
    return "defaults" if "__defaults__" in cell else "cell_def"

