"""Random differentiable programs for differential fuzzing of srcad (checked by tests/fuzz_check.py).

Contract:
- ``ProgramGenerator(chooser).program()`` returns a ``Program``: the source of
  a module defining zero to two helper functions and ``f``, ``f``'s parameter
  names and the shapes of their values.  Every choice goes through
  ``chooser`` (``integer(low, high)``), so the same generator serves
  hypothesis (``programs()``, a strategy that can shrink a failing program) and
  a seeded ``random.Random`` (``RandomChooser``, for long batches).
- Generated programs only use constructs srcad documents as supported:
  arithmetic with broadcasting over shapes ``()``, ``(3,)``, ``(2,)`` and
  ``(2, 3)``; a safe subset of NumPy and ``math`` calls whose inputs stay in
  their domains (``np.log(1.0 + a * a)``, ``np.exp(np.tanh(a))``...);
  reductions with and without ``axis``; subscript reads of names; element
  and slice stores into arrays created inside the function (with index
  arrays holding repeats, and indices an integer cast computes); changes
  made in place through memory two names share (stores through views,
  stores into an array whose view is read later, arrays held by lists and
  dicts changed in place, ``out=``, ``np.fill_diagonal``, ``np.copyto``,
  ``np.add.at``, ``np.put``, ``.fill``, ``.sort``) and calls to functions of
  another module (``tests/fuzz_helpers.py``) that change their argument,
  which srcad must follow or refuse with ``AliasingError``; ``if``/``else``,
  ``for`` over ``range`` (with ``break``/``continue``), ``while`` with a
  bounded trip count, early ``return``; calls to the generated helpers and
  to pure functions of another module; a name both arms of a branch bind,
  read after the branch (in loops too); values at removable singular points
  and integer casts used as numbers and indices (``tests/fuzz_constructs.py``).
  Apart from those, no array is written through a second name, and unless
  ``writable_parameters=True`` no parameter is written in place, so ``f`` is
  a pure function of its arguments.
- A few programs go beyond what srcad differentiates, to check that it
  refuses rather than answers: complex constants meeting differentiated
  values (``Program.must_refuse`` when one surely does).
- A ``Program`` also says which parameters are zero (``zeros``), and what
  to run between two derivatives (``redefinition``: a helper or a function
  of ``tests/fuzz_helpers.py`` redefined, its code or defaults replaced).
- Rare constructs are drawn with ``rare``, which says no to the smallest
  and largest draws: hypothesis favours those, and would flood its batch
  with constructs meant to be rare.
- Constructs srcad learned recently (``tests/fuzz_recent.py``: builtin
  ``max``/``min`` of several numbers, complex values through the rules
  checked for them, unpacking of arrays and returned tuples, ``.copy()``,
  lists joined with ``+``/``*``, a helper whose loop variable shadows a
  parameter) are drawn last, after every older choice, and added before
  f's last ``return``: a seed's program is the one it was before they
  were added, or that program with a few lines more.
- ``tests/fuzz_check.py`` differentiates the programs and compares.
- ``EXCLUDED`` (``tests/fuzz_kinds.py``) names constructs left out while srcad gets them wrong or
  refuses them.

Example::

    >>> import random
    >>> program = ProgramGenerator(RandomChooser(random.Random(0))).program()
    >>> print(program.source)   # doctest: +SKIP
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import List, Sequence, Tuple

from fuzz_calls import Calls
from fuzz_constructs import Constructs
from fuzz_kinds import CONSTANTS, EXCLUDED, SHAPES, Scope, Variable
from fuzz_language import Statements
from fuzz_memory import InPlace
from fuzz_recent import FORMS as RECENT_FORMS, PERCENT, Recent

PARAMETERS = (("x", "V"), ("y", "M"), ("s", "S"), ("w", "W"))


# --------------------------------------------------------------------------
# choosers


class RandomChooser:
    """Choices from a seeded ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


class HypothesisChooser:
    """Choices made with a hypothesis ``draw`` function, so failing programs shrink."""

    def __init__(self, draw):
        from hypothesis import strategies
        self.draw = draw
        self.integers = strategies.integers

    def integer(self, low: int, high: int) -> int:
        return self.draw(self.integers(low, high))


def programs(**options):
    """A hypothesis strategy of ``(Program, seed)`` pairs (the seed draws the arguments).

    ``options`` go to ``ProgramGenerator``.
    """
    from hypothesis import strategies

    @strategies.composite
    def program_and_seed(draw):
        program = ProgramGenerator(HypothesisChooser(draw), **options).program()
        return program, draw(strategies.integers(0, 2 ** 16))

    return program_and_seed()


# --------------------------------------------------------------------------
# programs


@dataclass
class Program:
    """A generated module: ``source`` defines ``f(*parameters)``; ``kinds`` give their shapes.

    ``zeros`` says, per parameter, which of its elements are 0 (``"all"``,
    ``"first"`` or ``""``; empty for none); ``redefinition`` is source run in
    the module after the first derivative (empty for none); ``must_refuse``
    names the error srcad must raise (empty when a derivative is expected);
    ``recent`` the form of ``tests/fuzz_recent.py`` f ends with (empty for none).
    """

    source: str
    parameters: Tuple[str, ...]
    kinds: Tuple[str, ...]
    zeros: Tuple[str, ...] = ()
    redefinition: str = ""
    must_refuse: str = ""
    recent: str = ""

    def __repr__(self) -> str:
        extras = "".join(f", {name}={getattr(self, name)!r}" for name in ("zeros", "redefinition", "must_refuse", "recent")
                         if getattr(self, name))
        return f"Program(kinds={self.kinds}{extras}, source=\n{self.source})"

    def shapes(self):
        return [SHAPES[kind] for kind in self.kinds]


@dataclass
class Helper:
    name: str
    kinds: Tuple[str, ...]
    result: str
    default: bool = False     # a last parameter ``c=0.5``


# operand kinds whose broadcast gives the target kind
BROADCASTS = {
    "S": [("S", "S")],
    "V": [("V", "V"), ("V", "S"), ("S", "V")],
    "W": [("W", "W"), ("W", "S"), ("S", "W")],
    "M": [("M", "M"), ("M", "V"), ("V", "M"), ("M", "S"), ("S", "M")],
}
ELEMENTWISE = [
    "np.sin({a})", "np.cos({a})", "np.tanh({a})", "np.arctan({a})", "np.exp(np.tanh({a}))",
    "np.exp(-({a}) ** 2)", "np.log(1.0 + {a} * {a})", "np.sqrt(1.0 + {a} * {a})", "({a}) ** 2",
    "({a}) ** 3", "np.abs({a})", "np.log1p(np.exp({a}))", "np.clip({a}, -1.0, 1.0)",
]
MATH_SCALAR = ["math.sin({a})", "math.cos({a})", "math.tanh({a})", "math.exp(math.sin({a}))",
               "math.sqrt(1.0 + {a} * {a})"]
BINARY_CALLS = ["np.maximum({a}, {b})", "np.minimum({a}, {b})", "np.where({a} > {b}, {a}, {b})",
                "np.where({a} > 0.0, {a}, 0.1 * {b})", "{a} / (1.0 + {b} * {b})", "np.arctan2({a}, 2.0 + np.cos({b}))"]


class ProgramGenerator(Constructs, InPlace, Statements, Calls, Recent):
    """Draws one random program per ``program()`` call; see the module docstring."""

    def __init__(self, chooser, max_statements: int = 6, max_depth: int = 3, writable_parameters: bool = False):
        self.chooser = chooser
        self.writable_parameters = writable_parameters
        self.max_statements = max_statements
        self.max_depth = max_depth
        self.counter = itertools.count()
        self.helpers: List[Helper] = []
        self.imports: set = set()          # "special" (scipy.special), "fh" (fuzz_helpers)
        self.from_imports: set = set()     # names imported from fuzz_helpers
        self.definitions: dict = {}        # module-level definitions the language forms need (fuzz_calls)

    # -- choices -----------------------------------------------------------

    def pick(self, options: Sequence):
        return options[self.chooser.integer(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return self.chooser.integer(0, 99) < percent

    def rare(self, percent: int) -> bool:
        """Like ``chance``, but False for the smallest and largest draws, which hypothesis favours."""
        return 400 <= self.chooser.integer(0, 999) < 400 + 10 * percent

    def fresh_name(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self.counter)}"

    # -- whole programs ----------------------------------------------------

    def program(self) -> Program:
        self.helpers, self.imports, self.from_imports, self.definitions = [], set(), set(), {}
        parts = []
        for _ in range(self.chooser.integer(0, 2)):
            parts.append(self.helper_source())
        count = self.chooser.integer(1, 3)
        start = self.chooser.integer(0, len(PARAMETERS) - 1)
        chosen = [PARAMETERS[(start + k) % len(PARAMETERS)] for k in range(count)]
        zeros = tuple(self.pick([""] * 23 + ["all", "first"]) for _ in chosen)
        scope = Scope([Variable(name, kind, writable=self.writable_parameters and kind != "S")
                       for name, kind in chosen])
        signature = ", ".join(name for name, _ in chosen)
        keyword_only = "keyword_only_parameter" not in EXCLUDED and self.rare(5)
        if keyword_only:
            signature += ", *, p=0.5"
            scope.variables.append(Variable("p", "S"))
        result_kind = self.pick(["S", "S", "S", "V", "M"])
        body, terms, must_refuse = [], [], ""
        if self.rare(2):
            line, name = self.complex_preamble(chosen)
            body.append(line)
            terms.append(name)
        body += self.block(scope, self.chooser.integer(1, self.max_statements), 1, result_kind)
        redefinition = ""
        if self.rare(8):
            redefinition, term = self.redefinition(scope)
            terms.append(term)
            if keyword_only and self.chance(50):
                redefinition = "f.__kwdefaults__ = {'p': 1.25}\n"
        result = self.expression(result_kind, scope, self.max_depth)
        recent = ""
        if self.chance(PERCENT):   # drawn after every older choice: older seeds' programs only gain these lines
            recent = self.pick(RECENT_FORMS)
            lines, term = self.recent_statement(recent, scope, 1)
            body += lines
            terms.append(term)
        body.append(f"    return {result}" if not terms else f"    return ({result}) + " + " + ".join(terms))
        parts.append("def f(" + signature + "):\n" + "\n".join(body) + "\n")
        parts[:0] = list(self.definitions.values())
        return Program(self.imports_source() + "\n\n" + "\n\n".join(parts), tuple(name for name, _ in chosen),
                       tuple(kind for _, kind in chosen), zeros if any(zeros) else (), redefinition, must_refuse,
                       recent)

    def imports_source(self) -> str:
        lines = ["import " + module for module in ("functools", "itertools", "math", "warnings") if module in self.imports
                 or module == "math"] + ["import numpy as np"]
        if "srcad" in self.imports:
            lines.append("import srcad")
        if "special" in self.imports:
            lines.append("from scipy import special")
        if "fh" in self.imports:
            lines.append("import fuzz_helpers as fh")
        if self.from_imports:
            lines.append(f"from fuzz_helpers import {', '.join(sorted(self.from_imports))}")
        return "\n".join(lines) + "\n"

    def helper_source(self) -> str:
        name = f"helper{len(self.helpers)}"
        kinds = tuple(self.pick(list(SHAPES)) for _ in range(self.chooser.integer(1, 2)))
        default = self.chance(30)
        result = self.pick(list(SHAPES))
        source = self.helper_definition(name, kinds, result, default)
        self.helpers.append(Helper(name, kinds, result, default))
        return source

    def helper_definition(self, name: str, kinds: Tuple[str, ...], result: str, default: bool) -> str:
        """The source of ``def name(a0, ...[, c=0.5])`` returning a value of kind ``result``."""
        parameters = [Variable(f"a{k}", kind) for k, kind in enumerate(kinds)]
        scope = Scope(list(parameters))
        signature = ", ".join(v.name for v in parameters)
        if default:
            signature += ", c=0.5"
            scope.variables.append(Variable("c", "S"))
        body = self.block(scope, self.chooser.integer(0, 3), 1, result)
        body.append(f"    return {self.expression(result, scope, 2, top=True)}")
        return f"def {name}({signature}):\n" + "\n".join(body) + "\n"

    # -- statements --------------------------------------------------------

    def block(self, scope: Scope, count: int, level: int, result_kind: str) -> List[str]:
        lines: List[str] = []
        for _ in range(count):
            lines.extend(self.statement(scope, level, result_kind))
        return lines or ["    " * level + "pass"]

    def statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        options = ["assign", "assign", "reassign", "augment", "store", "shared", "module", "language", "language"]
        if level <= 2:
            options += ["if", "for", "while", "branch_bind"]
        if scope.in_for and not (scope.in_with and "exit_in_with" in EXCLUDED):
            options += ["exit"]
        if level >= 2 and not scope.in_with and not (scope.in_loop and "return_in_loop" in EXCLUDED):
            options += ["return"]
        kind = self.pick(options)
        rebindable = [v for v in scope.variables if v.kind in SHAPES and self.may_rebind(v)]
        if kind == "reassign" and rebindable:
            target = self.pick(rebindable)
            self.rebound(target)
            return [f"{pad}{target.name} = {self.expression(target.kind, scope, self.max_depth, top=True)}"]
        if kind == "augment":
            writable = [v for v in scope.variables if self.may_rebind(v)
                        and (v.writable or v.kind == "S" and v.name.startswith("t"))]
            if writable:
                target = self.pick(writable)
                operator = self.pick(["+=", "-=", "*="])
                operand_kind = self.pick([k for k in SHAPES if k == target.kind or k == "S"])
                self.rebound(target)
                return [f"{pad}{target.name} {operator} {self.expression(operand_kind, scope, 2)}"]
        if kind == "language":
            return self.language_statement(scope, level, result_kind)
        if kind == "store":
            return self.store(scope, pad)
        if kind == "shared":
            return self.shared(scope, pad)
        if kind == "module" and self.rare(4):
            return self.module_call(scope, pad)
        if kind == "if":
            return self.if_statement(scope, level, result_kind)
        if kind == "branch_bind":
            return self.branch_bind(scope, level, result_kind)
        if kind == "for":
            return self.for_statement(scope, level, result_kind)
        if kind == "while":
            return self.while_statement(scope, level, result_kind)
        if kind == "exit":
            return [f"{pad}if {self.condition(scope)}:", f"{pad}    {self.pick(['break', 'continue'])}"]
        if kind == "return":
            return [f"{pad}if {self.condition(scope)}:",
                    f"{pad}    return {self.expression(result_kind, scope, 2)}"]
        target_kind = self.pick(list(SHAPES))
        name = self.fresh_name()
        line = f"{pad}{name} = {self.expression(target_kind, scope, self.max_depth, top=True)}"
        scope.variables.append(Variable(name, target_kind, writable=target_kind != "S"))
        return [line]

    def rebound(self, variable: Variable) -> None:
        """``variable`` is assigned again: no more stores into it while those are excluded."""
        if "store_after_rebinding" in EXCLUDED:
            variable.writable = False

    @staticmethod
    def may_rebind(variable: Variable) -> bool:
        """In a loop a store written before a rebinding runs after it, so stored names stay bound."""
        return not (variable.stored and "store_after_rebinding" in EXCLUDED)

    def nested(self, scope: Scope, level: int, result_kind: str, **changes) -> List[str]:
        inner = scope.child(**changes)
        lines = self.block(inner, self.chooser.integer(1, 3), level + 1, result_kind)
        # names bound inside are not visible after the block; stores and rebinding of outer names are
        return lines

    def if_statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        lines = [f"{pad}if {self.condition(scope)}:"] + self.nested(scope, level, result_kind)
        if self.chance(60):
            lines += [f"{pad}else:"] + self.nested(scope, level, result_kind)
        return lines

    def branch_bind(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        """``if c: ...; t = e1`` / ``else: ...; t = e2``: both arms bind a new name, which later statements read.

        Inside a loop this is the shape whose backward sweep must restore ``t`` for the statements after
        the branch (they run before the branch's own adjoint).
        """
        pad = "    " * level
        kind = self.pick(list(SHAPES))
        name = self.fresh_name()
        lines = [f"{pad}if {self.condition(scope)}:"] + self.nested(scope, level, result_kind)
        lines.append(f"{pad}    {name} = {self.expression(kind, scope, 2, top=True)}")
        lines += [f"{pad}else:"] + self.nested(scope, level, result_kind)
        lines.append(f"{pad}    {name} = {self.expression(kind, scope, 2, top=True)}")
        scope.variables.append(Variable(name, kind, writable=False))
        return lines

    def for_statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        index = self.fresh_name("i")
        trips = self.chooser.integer(1, 4)
        header = self.pick([f"range({trips})", f"range({trips - 1}, -1, -1)", f"range(1, {trips + 1})"])
        bound = trips + 1 if header.startswith("range(1,") else trips
        inner_variables = list(scope.variables) + [Variable(index, "I")]
        inner = scope.child(variables=inner_variables, loop_index=(index, bound), in_for=True, in_loop=True)
        body = self.block(inner, self.chooser.integer(1, 3), level + 1, result_kind)
        return [f"{pad}for {index} in {header}:"] + body

    def while_statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        counter = self.fresh_name("k")
        limit = self.chooser.integer(1, 4)
        condition = f"{counter} < {limit}"
        if self.chance(40):
            condition += f" and {self.condition(scope)}"
        inner = scope.child(in_for=False, in_loop=True)
        body = self.block(inner, self.chooser.integer(1, 3), level + 1, result_kind)
        return ([f"{pad}{counter} = 0", f"{pad}while {condition}:"] + body
                + [f"{pad}    {counter} = {counter} + 1"])

    def condition(self, scope: Scope) -> str:
        left = self.expression("S", scope, 1)
        return f"{left} {self.pick(['>', '<'])} {self.pick(['0.0', '0.5', '-0.3'])}"

    # -- expressions -------------------------------------------------------

    def expression(self, kind: str, scope: Scope, depth: int, top: bool = False) -> str:
        """Source of an expression whose value has ``kind``'s shape (a new object if ``top``)."""
        text, form = self._expression_and_form(kind, scope, depth)
        if top and form in ("leaf", "helper", "conditional", "special"):
            text = f"{text} * 1.0"    # a new array, not a second name for an existing one
        return text

    def _expression(self, kind: str, scope: Scope, depth: int) -> str:
        return self._expression_and_form(kind, scope, depth)[0]

    def _expression_and_form(self, kind: str, scope: Scope, depth: int) -> Tuple[str, str]:
        """The expression's text and its outermost form (``leaf``, ``binary``, ``helper``...)."""
        if depth <= 0 or self.chance(20):
            return self.leaf(kind, scope), "leaf"
        form = self.pick(["binary", "binary", "unary", "call", "call", "binary_call", "reduce",
                          "helper", "conditional", "negate", "special"])
        if form == "special" and not self.rare(30):
            form = "binary"
        return self._compound(form, kind, scope, depth - 1), form

    def _compound(self, form: str, kind: str, scope: Scope, sub: int) -> str:
        if form == "special":
            return self.special_expression(kind, scope, sub)
        if form == "binary":
            left, right = self.pick(BROADCASTS[kind])
            operator = self.pick(["+", "-", "*", "*"])
            return f"({self._expression(left, scope, sub)} {operator} {self._expression(right, scope, sub)})"
        if form == "negate":
            return f"-{self._expression(kind, scope, sub)}"
        if form in ("unary", "call"):
            if kind == "S" and self.chance(30):
                return self.pick(MATH_SCALAR).format(a=self._expression("S", scope, sub))
            return self.pick(ELEMENTWISE).format(a=self._expression(kind, scope, sub))
        if form == "binary_call":
            left, right = self.pick(BROADCASTS[kind])
            return self.pick(BINARY_CALLS).format(a=self._expression(left, scope, sub),
                                                  b=self._expression(right, scope, sub))
        if form == "reduce":
            return self.reduction(kind, scope, sub)
        if form == "helper":
            matching = [h for h in self.helpers if h.result == kind]
            if matching:
                helper = self.pick(matching)
                arguments = [self._expression(k, scope, sub) for k in helper.kinds]
                return f"{helper.name}({', '.join(arguments)})"
        if form == "conditional":
            return (f"({self._expression(kind, scope, sub)} if {self.condition(scope)} "
                    f"else {self._expression(kind, scope, sub)})")
        return self.leaf(kind, scope)

    def reduction(self, kind: str, scope: Scope, depth: int) -> str:
        if kind == "S":
            source_kind = self.pick(["V", "W", "M"])
            inner = self._expression(source_kind, scope, depth)
            options = ["np.sum({a})", "np.mean({a})", "({a}).sum()", "np.max({a})"]
            if source_kind == "V":
                options += ["np.dot({a}, {b})", "(({a}) @ ({b}))"]
            return self.pick(options).format(a=inner, b=self._expression(source_kind, scope, depth))
        if kind == "V":
            inner = self._expression("M", scope, depth)
            return self.pick(["np.sum({a}, axis=0)", "np.mean({a}, axis=0)", "({a}).sum(axis=0)"]).format(a=inner)
        if kind == "W":
            inner = self._expression("M", scope, depth)
            if self.chance(40):
                return f"(({inner}) @ ({self._expression('V', scope, depth)}))"
            return self.pick(["np.sum({a}, axis=1)", "np.mean({a}, axis=1)"]).format(a=inner)
        return f"np.outer({self._expression('W', scope, depth)}, {self._expression('V', scope, depth)})"

    def leaf(self, kind: str, scope: Scope) -> str:
        options = [v.name for v in scope.of_kind(kind)] * 3
        for variable in scope.variables:
            options.extend(self.reads(variable, kind, scope))
        if kind == "S" and scope.loop_index:
            options.append(f"0.25 * {scope.loop_index[0]}")
        if not options or self.chance(10):
            options.append(CONSTANTS[kind])
        return self.pick(options)

    def reads(self, variable: Variable, kind: str, scope: Scope) -> List[str]:
        """Subscript reads of ``variable`` giving ``kind``."""
        name, source = variable.name, variable.kind
        loop = scope.loop_index
        table = {
            ("V", "S"): [f"{name}[0]", f"{name}[-1]"], ("V", "W"): [f"{name}[1:]", f"{name}[:2]"],
            ("V", "V"): [f"{name}[::-1]"], ("W", "S"): [f"{name}[1]"], ("M", "V"): [f"{name}[1]", f"{name}[0, :]"],
            ("M", "W"): [f"{name}[:, 0]"], ("M", "S"): [f"{name}[1, 2]"], ("M", "M"): [f"{name}[::-1]"],
        }
        found = list(table.get((source, kind), []))
        if loop and source in ("V", "W") and kind == "S" and loop[1] <= SHAPES[source][0]:
            found.append(f"{name}[{loop[0]}]")
        return found
