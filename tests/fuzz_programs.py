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
  and slice stores into arrays created inside the function; changes made in
  place through memory two names share (stores through views, stores into
  an array whose view is read later, arrays held by lists and dicts changed
  in place, ``out=``, ``np.fill_diagonal``, ``np.copyto``, ``np.add.at``,
  ``np.put``, ``.fill``, ``.sort``), which srcad must follow or refuse
  with ``AliasingError``; ``if``/``else``,
  ``for`` over ``range`` (with ``break``/``continue``), ``while`` with a
  bounded trip count, early ``return``; calls to the generated helpers; a
  name both arms of a branch bind, read after the branch (in loops too).
  Apart from those, no array is written through a second name, and unless
  ``writable_parameters=True`` no parameter is written in place, so ``f`` is
  a pure function of its arguments.
- ``tests/fuzz_check.py`` differentiates the programs and compares.
- ``EXCLUDED`` names constructs left out while srcad gets them wrong.

Example::

    >>> import random
    >>> program = ProgramGenerator(RandomChooser(random.Random(0))).program()
    >>> print(program.source)   # doctest: +SKIP
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

SHAPES = {"S": (), "V": (3,), "W": (2,), "M": (2, 3)}
PARAMETERS = (("x", "V"), ("y", "M"), ("s", "S"), ("w", "W"))
# Constructs left out of generated programs until srcad handles them (the programs in
# tests/test_fuzz.py's REGRESSIONS show why): "return_in_loop" is a `return` inside a loop body;
# "store_after_rebinding" is an element store into an array after `z = ...` or `z -= ...` rebound it.
EXCLUDED: set = set()


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
    """A generated module: ``source`` defines ``f(*parameters)``; ``kinds`` give their shapes."""

    source: str
    parameters: Tuple[str, ...]
    kinds: Tuple[str, ...]

    def __repr__(self) -> str:
        return f"Program(kinds={self.kinds}, source=\n{self.source})"

    def shapes(self):
        return [SHAPES[kind] for kind in self.kinds]


@dataclass
class Variable:
    name: str
    kind: str
    writable: bool = False    # a fresh local array: element stores and += are allowed
    stored: bool = False      # an element store into it has been generated


@dataclass
class Helper:
    name: str
    kinds: Tuple[str, ...]
    result: str


@dataclass
class Scope:
    variables: List[Variable]
    loop_index: Optional[Tuple[str, int]] = None   # (name, trip count) of the innermost for loop
    in_for: bool = False
    in_loop: bool = False

    def child(self, **changes) -> "Scope":
        values = dict(variables=list(self.variables), loop_index=self.loop_index, in_for=self.in_for,
                      in_loop=self.in_loop)
        values.update(changes)
        return Scope(**values)

    def of_kind(self, kind: str) -> List[Variable]:
        return [v for v in self.variables if v.kind == kind]


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
CONSTANTS = {"S": "0.7", "V": "np.array([0.5, -1.0, 2.0])", "W": "np.array([1.5, -0.5])",
             "M": "np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]])"}
ZEROS = {"V": "np.zeros(3)", "W": "np.zeros(2)", "M": "np.zeros((2, 3))"}


class ProgramGenerator:
    """Draws one random program per ``program()`` call; see the module docstring."""

    def __init__(self, chooser, max_statements: int = 6, max_depth: int = 3, writable_parameters: bool = False):
        self.chooser = chooser
        self.writable_parameters = writable_parameters
        self.max_statements = max_statements
        self.max_depth = max_depth
        self.counter = itertools.count()
        self.helpers: List[Helper] = []

    # -- choices -----------------------------------------------------------

    def pick(self, options: Sequence):
        return options[self.chooser.integer(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return self.chooser.integer(0, 99) < percent

    def fresh_name(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self.counter)}"

    # -- whole programs ----------------------------------------------------

    def program(self) -> Program:
        self.helpers = []
        parts = []
        for _ in range(self.chooser.integer(0, 2)):
            parts.append(self.helper_source())
        count = self.chooser.integer(1, 3)
        start = self.chooser.integer(0, len(PARAMETERS) - 1)
        chosen = [PARAMETERS[(start + k) % len(PARAMETERS)] for k in range(count)]
        scope = Scope([Variable(name, kind, writable=self.writable_parameters and kind != "S")
                       for name, kind in chosen])
        result_kind = self.pick(["S", "S", "S", "V", "M"])
        body = self.block(scope, self.chooser.integer(1, self.max_statements), 1, result_kind)
        body.append(f"    return {self.expression(result_kind, scope, self.max_depth)}")
        signature = ", ".join(name for name, _ in chosen)
        parts.append("def f(" + signature + "):\n" + "\n".join(body) + "\n")
        return Program("import math\nimport numpy as np\n\n\n" + "\n\n".join(parts),
                       tuple(name for name, _ in chosen), tuple(kind for _, kind in chosen))

    def helper_source(self) -> str:
        name = f"helper{len(self.helpers)}"
        kinds = tuple(self.pick(list(SHAPES)) for _ in range(self.chooser.integer(1, 2)))
        parameters = [Variable(f"a{k}", kind) for k, kind in enumerate(kinds)]
        scope = Scope(list(parameters))
        signature = ", ".join(v.name for v in parameters)
        if self.chance(30):
            signature += ", c=0.5"
            scope.variables.append(Variable("c", "S"))
        result = self.pick(list(SHAPES))
        body = self.block(scope, self.chooser.integer(0, 3), 1, result)
        body.append(f"    return {self.expression(result, scope, 2, top=True)}")
        self.helpers.append(Helper(name, kinds, result))
        return f"def {name}({signature}):\n" + "\n".join(body) + "\n"

    # -- statements --------------------------------------------------------

    def block(self, scope: Scope, count: int, level: int, result_kind: str) -> List[str]:
        lines: List[str] = []
        for _ in range(count):
            lines.extend(self.statement(scope, level, result_kind))
        return lines or ["    " * level + "pass"]

    def statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        options = ["assign", "assign", "reassign", "augment", "store", "shared"]
        if level <= 2:
            options += ["if", "for", "while", "branch_bind"]
        if scope.in_for:
            options += ["exit"]
        if level >= 2 and not (scope.in_loop and "return_in_loop" in EXCLUDED):
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
        if kind == "store":
            return self.store(scope, pad)
        if kind == "shared":
            return self.shared(scope, pad)
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

    def store(self, scope: Scope, pad: str) -> List[str]:
        """An element or slice store into a writable array, created here if there is none."""
        lines = []
        candidates = [v for v in scope.variables if v.writable]
        if not candidates or self.chance(30):
            kind = self.pick(["V", "W", "M"])
            name = self.fresh_name("z")
            source = self.pick(scope.of_kind(kind)) if scope.of_kind(kind) and self.chance(50) else None
            initial = f"{source.name}.copy()" if source else ZEROS[kind]
            lines.append(f"{pad}{name} = {initial}")
            target = Variable(name, kind, writable=True)
            scope.variables.append(target)
        else:
            target = self.pick(candidates)
        operator = self.pick(["=", "=", "+="])
        target.stored = True
        index, value_kind = self.store_index(target.kind, scope)
        lines.append(f"{pad}{target.name}[{index}] {operator} {self.expression(value_kind, scope, 2)}")
        return lines

    def shared(self, scope: Scope, pad: str) -> List[str]:
        """A change made in place through memory two names share, or by a call that changes its argument:
        a store through a view (``B = A.reshape(3)``, ``A[1:]``, ``A.T``, ``A[0]``...), a view read after a
        store into its base, an array held by a list or dict and changed, ``out=``, ``np.fill_diagonal``,
        ``np.copyto``, ``np.add.at``, ``np.put``, ``.fill``, ``.sort``.  srcad must get it right or refuse."""
        kind = self.pick(["V", "M"])
        base = self.fresh_name("z")
        source = self.pick(scope.of_kind(kind)) if scope.of_kind(kind) else None
        value = lambda k: self.expression(k, scope, 2)   # noqa: E731
        lines = [f"{pad}{base} = {source.name if source else CONSTANTS[kind]} * 1.0"]
        view = self.fresh_name("w")
        if kind == "V":
            views = [(f"{base}.reshape(3)", "V"), (f"{base}[1:]", "W"), (f"{base}[...]", "V"),
                     (f"np.expand_dims({base}, 0)", "1V"), (f"{base}.ravel()", "V"), (f"np.asarray({base})", "V"),
                     (f"{base}[::-1]", "V"), (f"np.reshape({base}, (3, 1))", "V1")]
        else:
            views = [(f"{base}.T", "MT"), (f"{base}[0]", "V"), (f"{base}[:, 1]", "W"), (f"{base}.reshape(6)", "6"),
                     (f"{base}.swapaxes(0, 1)", "MT"), (f"{base}.transpose()", "MT"), (f"{base}[:, 1:]", "M2")]
        expression, shape = self.pick(views)
        element = {"V": "1", "W": "0", "1V": "0, 2", "V1": "2, 0", "MT": "2, 1", "6": "4", "M2": "1, 0"}[shape]
        form = self.pick(["view_store", "view_store", "base_store", "augment", "held", "out", "call", "call"])
        if form == "view_store":
            lines += [f"{pad}{view} = {expression}", f"{pad}{view}[{element}] = {value('S')}"]
        elif form == "augment":
            lines += [f"{pad}{view} = {expression}", f"{pad}{view} *= {value('S')}"]
        elif form == "base_store":
            index = "0" if kind == "V" else "1, 1"
            lines += [f"{pad}{view} = {expression}", f"{pad}{base}[{index}] = {value('S')}"]
            scope.variables.append(Variable(f"{view}[{element}]", "S"))
        elif form == "held":
            holder = self.fresh_name("h")
            lines += [f"{pad}{holder} = " + self.pick([f"[{base}, {value('S')}]", f'{{"a": {base}}}']),
                      f"{pad}{base} += {value(kind)}"]
            key = "0" if lines[-2].rstrip().endswith("]") else '"a"'
            scope.variables.append(Variable(f"{holder}[{key}]", kind))
        elif form == "out":
            function = self.pick(["np.multiply({a}, {b}, out={o})", "np.add({a}, {b}, out={o})",
                                  "np.sin({a}, out={o})", "np.tanh({a}, out={o})"])
            target = self.pick([base, f"{base}[1:]" if kind == "V" else f"{base}[0]"])
            operand_kind = kind if target == base else ("W" if kind == "V" else "V")
            lines.append(pad + function.format(a=value(operand_kind), b=value(operand_kind), o=target))
        else:
            calls = [f"np.copyto({base}, {value(kind)})", f"np.add.at({base}, np.array([0, 0, 1]), {value('S')})",
                     f"{base}.fill({value('S')})", f"np.copyto({base}, {value(kind)}, where={base} > 0.0)"]
            if kind == "V":
                calls += [f"np.put({base}, [0, 2, 0], {value('W')})", f"{base}.sort()"]
            else:
                calls += [f"np.fill_diagonal({base}, {value('S')})"]
            lines.append(pad + self.pick(calls))
        scope.variables.append(Variable(base, kind))
        return lines

    def store_index(self, kind: str, scope: Scope) -> Tuple[str, str]:
        """An index into an array of ``kind`` and the kind of value it takes."""
        length = SHAPES[kind][0]
        loop = scope.loop_index
        if loop and loop[1] <= length and self.chance(50):
            return (loop[0] if kind != "M" else f"{loop[0]}, 1"), ("S" if kind != "M" else "S")
        if kind == "M":
            return self.pick([("0", "V"), ("1, 2", "S"), (":, 1", "W"), ("-1", "V")])
        if kind == "V":
            return self.pick([("0", "S"), ("2", "S"), ("1:", "W"), (":2", "W"), (":", "V")])
        return self.pick([("0", "S"), ("1", "S"), (":", "W")])

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
        if top and form in ("leaf", "helper", "conditional"):
            text = f"{text} * 1.0"    # a new array, not a second name for an existing one
        return text

    def _expression(self, kind: str, scope: Scope, depth: int) -> str:
        return self._expression_and_form(kind, scope, depth)[0]

    def _expression_and_form(self, kind: str, scope: Scope, depth: int) -> Tuple[str, str]:
        """The expression's text and its outermost form (``leaf``, ``binary``, ``helper``...)."""
        if depth <= 0 or self.chance(20):
            return self.leaf(kind, scope), "leaf"
        form = self.pick(["binary", "binary", "unary", "call", "call", "binary_call", "reduce",
                          "helper", "conditional", "negate"])
        return self._compound(form, kind, scope, depth - 1), form

    def _compound(self, form: str, kind: str, scope: Scope, sub: int) -> str:
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
                options += ["np.dot({a}, {b})", "({a}) @ ({b})"]
            return self.pick(options).format(a=inner, b=self._expression(source_kind, scope, depth))
        if kind == "V":
            inner = self._expression("M", scope, depth)
            return self.pick(["np.sum({a}, axis=0)", "np.mean({a}, axis=0)", "({a}).sum(axis=0)"]).format(a=inner)
        if kind == "W":
            inner = self._expression("M", scope, depth)
            if self.chance(40):
                return f"({inner}) @ ({self._expression('V', scope, depth)})"
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
