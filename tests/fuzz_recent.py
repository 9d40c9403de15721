"""Constructs srcad learned recently (issue #18), in generated programs (tests/fuzz_programs.py mixes them in).

Contract: ``Recent`` is a mixin of ``fuzz_programs.ProgramGenerator``;
``recent_statement(form, scope, level)`` returns (lines of source at ``level``
binding new names from the differentiated values of ``scope``, a scalar
term for f's result that reads them) and makes every choice through the
generator.  ``ProgramGenerator.program`` draws it only after every older
choice, so the programs of older seeds stay as they were, with these lines
added before f's last ``return`` in some of them (``Program.recent`` names
the form).  The forms (``FORMS``):

- ``max_min_many``: builtin ``max``/``min`` of three or four numbers
  (``tests/fuzz_choices.py`` records which one wins, and ties);
- ``complex_rule``: a complex value made from a real one (``* (1 + 0.5j)``,
  ``np.exp(1j * ...)``, ``.astype(complex)``...) through one of the rules
  checked for complex numbers (``COMPLEX_RULES``: cumsum, cumprod, where,
  flip, roll, tile, repeat, trace, diagonal, swapaxes, moveaxis, hstack,
  vstack, outer, diff, builtin ``sum``, ``np.linalg`` det/inv/solve), read
  back with ``.real``, ``.imag`` or ``.conj()``;
- ``unpack``: ``a, b = v`` of a value that is no literal (an array, a row
  of a matrix, a slice, a tuple a module helper returns); in one of
  ``WRONG_LENGTH`` of them the lengths differ, so f raises Python's
  ``ValueError`` and both derivatives must raise it too;
- ``copy``: ``z = v.copy()`` (or ``np.copy(v)``) changed in place, read
  beside the original;
- ``list_join``: lists and tuples joined with ``+`` or repeated with ``*``:
  srcad refuses them in reverse mode (``UnsupportedValueError``), which the
  checker counts as a refusal by design (``fuzz_check.refusal_by_design``);
- ``dead_shadow``: a helper of the module, inlined by srcad, whose loop
  variable shadows a parameter (an array becomes a number) and whose unused
  statement after the loop reads that parameter: it raises ``IndexError``
  where the loop ran and the statement indexes it;
- ``starred``: a starred target (``u0, *u1 = v``, ``*u0, u1 = M``,
  ``u0, *u1, u2 = v``) of a vector or of a matrix's rows, the starred list
  read whole (``np.sum(u1)``) or by item; or (one in four) the list
  ``np.split``/``np.array_split`` returns, bound to a second name
  (``q = parts``) and read through both;
- ``itertools_loop``: ``for i, j in itertools.product(...)`` or
  ``itertools.combinations(range(n), 2)`` accumulating products of elements,
  or (one in two) ``functools.reduce`` of a lambda or ``np.maximum`` over a
  vector's items, a list, a generator (written in the call or kept in a
  variable the call consumes) or a ``map``, with or without an initial
  value;
- ``dict_view``: a dict of differentiated values consumed whole through a
  view: ``for k, v in d.items()``, ``sum(d.values())``, ``list(d.values())``.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> generator = ProgramGenerator(RandomChooser(random.Random(0)))
    >>> lines, term = generator.recent_statement("copy", Scope([Variable("x", "V")]), 1)
    >>> isinstance(term, str)
    True
"""
from __future__ import annotations

from typing import List, Tuple

from fuzz_kinds import SHAPES, Scope, Variable

FORMS = ("max_min_many", "complex_rule", "unpack", "copy", "list_join", "dead_shadow", "starred", "itertools_loop",
         "dict_view")
PERCENT = 30           # share of programs given one of the forms
WRONG_LENGTH = 8       # in how many of 100 unpackings the lengths differ
# ways to make a complex value of the same shape from a real expression {a} (and {b}, of the same kind)
COMPLEX_MAKERS = ["{a} * (1.0 + 0.5j)", "np.exp(1j * {a})", "({a}).astype(complex) * (0.5 - 1j)",
                  "{a} + 1j * {b}", "np.asarray({a}, dtype=complex) - 0.25j"]
# rules checked for complex numbers, by the kind of their complex operand {z}; {w} is a second complex
# operand of the same kind, {x} a real one of the same kind, {s} a square complex matrix, {r} a complex W
COMPLEX_RULES = {
    "V": ["np.cumsum({z})", "np.cumprod({z})", "np.where({x} > 0.0, {z}, 2.0 * {z})", "np.flip({z})",
          "np.roll({z}, 1)", "np.tile({z}, 2)", "np.repeat({z}, 2)", "np.outer({z}, {w})", "np.diff({z})",
          "sum({z})", "np.hstack(({z}, {w}))", "np.vstack(({z}, {w}))"],
    "M": ["np.cumsum({z}, axis=1)", "np.cumprod({z}, axis=0)", "np.where({x} > 0.0, {z}, {w})", "np.flip({z}, 0)",
          "np.roll({z}, -1, axis=1)", "np.tile({z}, (1, 2))", "np.repeat({z}, 2, axis=0)", "np.trace({z})",
          "np.diagonal({z})", "np.swapaxes({z}, 0, 1)", "np.moveaxis({z}, 0, -1)", "np.hstack(({z}, {w}))",
          "np.vstack(({z}, {w}))", "np.diff({z}, axis=1)", "sum({z})", "np.linalg.det({s})",
          "np.linalg.inv({s})", "np.linalg.solve({s}, {r})"],
}
COMPLEX_READS = ["np.sum(({c}).real)", "np.sum(({c}).imag)", "np.sum(({c}).conj() * ({c})).real",
                 "np.sum(np.real({c}) * np.imag({c}))", "np.sum(({c}).conj().imag)"]
DEAD_READS = ["{p}[::-1] * 2.0", "{p}[1] + 1.0", "np.sum({p}) * 2.0", "{p} * 0.5"]


class Recent:
    """Mixin of ``ProgramGenerator``: the forms listed in the module docstring."""

    def recent_statement(self, form: str, scope: Scope, level: int) -> Tuple[List[str], str]:
        """(lines binding new names by ``form``, one of ``FORMS``, a scalar term of f's result reading them)."""
        return getattr(self, "_recent_" + form)(scope, "    " * level)

    def _recent_max_min_many(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        name = self.fresh_name("t")
        arguments = ", ".join(self.expression("S", scope, 2) for _ in range(self.chooser.integer(3, 4)))
        return [f"{pad}{name} = {self.pick(['max', 'min'])}({arguments})"], name

    def _recent_complex_rule(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind = self.pick(["V", "M"])
        first, second, result = self.fresh_name("c"), self.fresh_name("c"), self.fresh_name("c")
        lines = [f"{pad}{first} = {self._complex_value(kind, scope)}",
                 f"{pad}{second} = {self._complex_value(kind, scope)}"]
        rule = self.pick(COMPLEX_RULES[kind])
        square, right = "", ""
        if "{s}" in rule:
            square = f"{first}[:, :2] + 3.0 * np.eye(2)"
            right = f"{second}[:, 0]"
        call = rule.format(z=first, w=second, x=self.expression(kind, scope, 1), s=square, r=right)
        lines.append(f"{pad}{result} = {call}")
        return lines, self.pick(COMPLEX_READS).format(c=result)

    def _complex_value(self, kind: str, scope: Scope) -> str:
        maker = self.pick(COMPLEX_MAKERS)
        b = self.expression(kind, scope, 1) if "{b}" in maker else ""
        return maker.format(a=self.expression(kind, scope, 2), b=b)

    def _recent_unpack(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind, value = self.pick([("V", "{e}"), ("W", "{e}"), ("V", "({m})[1]"), ("W", "({v})[1:]"),
                                 ("V", "np.sin({e})"), ("pair", "")])
        length = 2 if kind in ("W", "pair") else 3
        if kind == "pair":
            self.define("pair", "\n".join(["def pair(u, v):", f"    return {self._body('u')} * v, u + v", ""]))
            item_kind = self.pick(list(SHAPES))
            value = f"pair({self.expression(item_kind, scope, 2)}, {self.expression(item_kind, scope, 1)})"
        else:
            value = value.format(e=self.expression(kind, scope, 2), m=self.expression("M", scope, 2),
                                 v=self.expression("V", scope, 2))
            item_kind = "S"
        if self.chance(WRONG_LENGTH):
            length += self.pick([-1, 1])
        names = [self.fresh_name("u") for _ in range(length)]
        term = " + ".join(f"{self.pick(['np.sum', 'np.tanh'])}({n})" for n in names)
        targets = ", ".join(names) + ("," if len(names) == 1 else "")
        lines = [f"{pad}{targets} = {value}"]
        if item_kind == "S" and self.chance(40):   # a second unpacking of the same kind, in a loop over rows
            row = self.fresh_name("r")
            lines = [f"{pad}for {row} in range(1):"] + [f"    {line}" for line in lines]
        return lines, f"np.sum({term})"

    def _recent_copy(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind = self.pick(["V", "W", "M"])
        sources = scope.of_kind(kind)
        original = self.pick(sources).name if sources else f"({self.expression(kind, scope, 2, top=True)})"
        name = self.fresh_name("z")
        copy = self.pick([f"{original}.copy()", f"np.copy({original})", f"({original} * 1.0).copy()"])
        index = {"V": "0", "W": "1", "M": "1, 2"}[kind]
        change = self.pick([f"{name}[{index}] = {self.expression('S', scope, 2)}",
                            f"{name} *= {self.expression('S', scope, 2)}",
                            f"{name}[{index}] += {self.expression('S', scope, 2)}"])
        return ([f"{pad}{name} = {copy}", f"{pad}{change}"],
                f"np.sum({name} * {self.pick([original, self.expression(kind, scope, 1)])})")

    def _recent_list_join(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind = self.pick(list(SHAPES))
        holder = self.fresh_name("h")
        # new values (top=True), not names of arrays a view may share: srcad refuses a list holding one of those
        # when an array changes in place (AliasingError), which would hide the refusal this form is about
        items = [self.expression(kind, scope, 2, top=True) for _ in range(self.chooser.integer(1, 2))]
        extra = self.expression(kind, scope, 1, top=True)
        joined = self.pick([f"[{', '.join(items)}] + [{extra}]", f"({', '.join(items)},) + ({extra},)",
                            f"[{', '.join(items)}] * 2", f"2 * [{extra}]"])
        return [f"{pad}{holder} = {joined}"], f"np.sum({holder}[0] * {holder}[-1])"

    def _recent_dead_shadow(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        helper = self.fresh_name("shadow")
        first, loop_kind = self.pick(list(SHAPES)), self.pick(["V", "W"])
        parameters = Scope([Variable("a0", first), Variable("a1", loop_kind)])
        test = self.condition(parameters)
        other = self.fresh_name("b")
        dead = self.pick(DEAD_READS).format(p="a1")
        self.define(helper, "\n".join([
            f"def {helper}(a0, a1):", "    t0 = 0.0", f"    if {test}:",
            f"        for a1, {other} in zip({self._body('a1')}, a1 * a1[::-1]):",
            f"            t0 = t0 + a1 * {other}",
            f"    d0 = {dead}", f"    return t0 + np.sum(a0 * {self.pick(['0.5', '1.5'])})", ""]))
        name = self.fresh_name("t")
        call = f"{helper}({self.expression(first, scope, 2)}, {self.expression(loop_kind, scope, 2)})"
        return [f"{pad}{name} = {call}"], name

    def _recent_starred(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind = self.pick(["V", "M"])
        value = self.expression(kind, scope, 2)
        if self.chooser.integer(0, 3) == 0:   # drawn after the value: the programs of the starred targets change
            return self._split_alias(value, pad)
        first, rest, last = self.fresh_name("u"), self.fresh_name("u"), self.fresh_name("u")
        targets = self.pick([f"{first}, *{rest}", f"*{rest}, {last}", f"{first}, *{rest}, {last}"])
        named = [name for name in (first, last) if name in targets.replace("*" + rest, "")]
        read = self.pick([f"np.sum({rest})", f"np.sum({rest}[0])", f"sum(np.sum(r) for r in {rest})"])
        return [f"{pad}{targets} = {value}"], " + ".join([read] + [f"np.sum(np.tanh({n}))" for n in named])

    def _split_alias(self, value: str, pad: str) -> Tuple[List[str], str]:
        """The list ``np.split`` or ``np.array_split`` returns, read through a second name bound to it."""
        parts, alias = self.fresh_name("p"), self.fresh_name("q")
        split = self.pick([f"np.split({value}, [1])", f"np.array_split({value}, 2)"])
        read = self.pick([f"np.sum({alias}[0] * 2.0) + np.sum(np.tanh({parts}[1]))",
                          f"sum(np.sum(r ** 2) for r in {alias})", f"np.sum({alias}[-1]) * np.sum({parts}[0])"])
        return [f"{pad}{parts} = {split}", f"{pad}{alias} = {parts}"], read

    def _recent_itertools_loop(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        vector = self.expression("V", scope, 2, top=True)
        held, total, i, j = self.fresh_name("v"), self.fresh_name("t"), self.fresh_name("i"), self.fresh_name("j")
        if self.chooser.integer(0, 1):   # drawn after the vector: the programs of the itertools loops change
            return self._reduction(vector, held, total, pad)
        self.imports.add("itertools")
        pairs = self.pick([f"itertools.product(range(3), range(2))", f"itertools.combinations(range(3), 2)",
                           f"itertools.product(range(2), repeat=2)"])
        step = self.pick([f"{held}[{i}] * {held}[{j}]", f"np.sin({held}[{i}]) * {held}[{j}] ** 2",
                          f"{held}[{i}] - 0.5 * {held}[{j}]"])
        return [f"{pad}{held} = {vector}", f"{pad}{total} = 0.0", f"{pad}for {i}, {j} in {pairs}:",
                f"{pad}    {total} = {total} + {step}"], total

    def _reduction(self, vector: str, held: str, total: str, pad: str) -> Tuple[List[str], str]:
        """``functools.reduce`` over the items of ``vector`` (held in ``held``), with or without an initial value."""
        self.imports.add("functools")
        item = self.fresh_name("e")
        function = self.pick(["lambda a, b: a * 0.5 + np.sin(b)", "lambda a, b: a * b", "np.maximum",
                              "lambda a, b: np.tanh(a + b * b)"])
        generator = f"(np.tanh({item}) * {item} for {item} in {held})"
        items = self.pick([held, f"[{held}[0], {held}[2], {held}[1]]", generator, f"map(np.sin, {held})", "kept"])
        lines = [f"{pad}{held} = {vector}"]
        if items == "kept":   # a generator kept in a variable, consumed once by the next line
            items = self.fresh_name("g")
            lines.append(f"{pad}{items} = {generator}")
        initial = self.pick(["", ", 0.25", f", {held}[1]"])
        return lines + [f"{pad}{total} = functools.reduce({function}, {items}{initial})"], total

    def _recent_dict_view(self, scope: Scope, pad: str) -> Tuple[List[str], str]:
        kind = self.pick(list(SHAPES))
        holder, total, key, item = self.fresh_name("d"), self.fresh_name("t"), self.fresh_name("k"), self.fresh_name("e")
        items = ", ".join(f"'{label}': {self.expression(kind, scope, 2)}" for label in ("a", "b", "c")[
            :self.chooser.integer(2, 3)])
        lines = [f"{pad}{holder} = {{{items}}}"]
        use = self.pick(["items", "sum", "list"])
        if use == "items":
            lines += [f"{pad}{total} = 0.0", f"{pad}for {key}, {item} in {holder}.items():",
                      f"{pad}    {total} = {total} + np.sum(np.tanh({item}))"]
        elif use == "sum":
            lines.append(f"{pad}{total} = np.sum(sum({holder}.values()))")
        else:
            lines.append(f"{pad}{total} = np.sum(list({holder}.values())[-1] * 2.0)")
        return lines, total
