"""Statements of Python as people write it, in generated programs: raise, try, with, loop-else, :=, del.

Contract: ``Statements`` is a mixin of ``fuzz_programs.ProgramGenerator`` (like
``fuzz_constructs.Constructs``); ``language_statement(scope, level, kind)``
returns lines of source at ``level`` and makes every choice through the
generator, so programs stay reproducible from a seed and shrinkable by
hypothesis.  Each construct reads differentiated values of ``scope`` and
binds a new name later statements read (it is added to ``scope``); the
bodies of ``with`` and of loops are ordinary generated blocks, so the
constructs nest in each other and in loops and branches.  It writes:

- ``raise`` in a branch that the sampled inputs never take (a bound of
  ``1e6``) or one they may take (``condition``): then f raises, and
  ``tests/fuzz_check.py`` requires both derivatives to raise the same
  exception with the same message (an f-string);
- ``try``/``except ValueError`` around ``math.sqrt`` (of a value shifted by
  a constant such as ``0.0625``, so that the exact zeros ``x - x`` of
  ``tests/fuzz_constructs.py`` do not land on its singular point), ``except
  ZeroDivisionError`` around a division by an integer a cast computes (0 for
  small inputs), ``try``/``except``/``else``/``finally``, ``try`` in a loop
  whose handler runs ``continue`` or ``break``, and ``np.linalg.cholesky``
  of a matrix that may be indefinite with a ``LinAlgError`` fallback; a
  statement of the ``try`` body runs before the one that may raise, and
  the handler reads it;
- ``with np.errstate(...)`` and ``with warnings.catch_warnings()`` around a
  generated block (no ``return`` inside: srcad refuses one there by
  design);
- ``for ... else`` and ``while ... else`` around generated loop bodies;
- ``:=`` in an ``if`` test and inside an expression; f-strings (in
  ``raise`` messages and as a label whose truth picks a factor);
  ``del`` of a temporary after its last read.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> generator = ProgramGenerator(RandomChooser(random.Random(0)))
    >>> generator.program().source.startswith("import math")
    True
"""
from __future__ import annotations

from typing import List

from fuzz_kinds import SHAPES, Scope, Variable

STATEMENTS = ("raise", "try_sqrt", "try_divide", "try_else_finally", "try_in_loop", "cholesky", "errstate",
              "catch_warnings", "for_else", "while_else", "walrus", "fstring", "del")
ERRORS = ("ValueError", "ArithmeticError")


class Statements:
    """Mixin of ``ProgramGenerator``: the statements listed in the module docstring."""

    def language_statement(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        """One of ``STATEMENTS`` or, half the time, an assignment from ``fuzz_calls.Calls``."""
        if self.chance(50):
            return self.call_statement(scope, level)
        form = self.pick(STATEMENTS)
        if form in ("for_else", "while_else", "errstate", "catch_warnings") and level > 2:
            form = "walrus"
        return getattr(self, "_" + form)(scope, level, result_kind)

    def _scalar(self, scope: Scope, depth: int = 2) -> str:
        return self.expression("S", scope, depth)

    def _bind(self, scope: Scope, kind: str, prefix: str = "t") -> str:
        """A fresh name of ``kind`` that later statements may read (not stored into)."""
        name = self.fresh_name(prefix)
        scope.variables.append(Variable(name, kind))
        return name

    # -- raise -------------------------------------------------------------

    def _raise(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        value = self._scalar(scope)
        test = self.condition(scope) if self.chance(30) else f"abs({value}) > 1e6"
        error = self.pick(ERRORS)
        # f-strings in single quotes: the expressions inside may read `h["a"]`
        message = self.pick([f"f'value {{{value}:.3f}} is out of range'", '"out of range"',
                             f"f'{{{value}!r}} at level {level}'"])
        return [f"{pad}if {test}:", f"{pad}    raise {error}({message})"]

    # -- try ---------------------------------------------------------------

    def _try_head(self, scope: Scope, pad: str) -> List[str]:
        """``try:`` and a statement of its body that runs before the one that may raise; binds a scalar."""
        before = self.fresh_name("t")
        lines = [f"{pad}try:", f"{pad}    {before} = {self.expression('S', scope, 2, top=True)}"]
        scope.variables.append(Variable(before, "S"))
        return lines

    def _try_sqrt(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        lines = self._try_head(scope, pad)
        before = scope.variables[-1].name
        name = self.fresh_name("t")
        lines += [f"{pad}    {name} = math.sqrt({before} + {self._scalar(scope, 1)} + 0.0625) * {before}",
                  f"{pad}except ValueError:",
                  f"{pad}    {name} = {before} * {self._scalar(scope, 1)}"]
        scope.variables.append(Variable(name, "S"))
        return lines

    def _try_divide(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        kind = self.pick(list(SHAPES))
        lines = self._try_head(scope, pad)
        before = scope.variables[-1].name
        name = self.fresh_name("t")
        divisor = self.pick([f"int({before} * 2.0)", f"int(np.floor({self._scalar(scope, 1)} * 1.5))"])
        numerator = self.pick([f"float({before})", f"float({before} * 2.0)"]) if kind == "S" else \
            self.expression(kind, scope, 2)
        if kind == "S":
            division = self.pick([f"{numerator} / {divisor}", f"float({before}) % float({divisor})"])
        else:
            division = f"{numerator} * (1.0 / {divisor})"
        lines += [f"{pad}    {name} = {division}", f"{pad}except ZeroDivisionError:",
                  f"{pad}    {name} = {self.expression(kind, scope, 2)} * {before}"]
        scope.variables.append(Variable(name, kind))
        return lines

    def _try_else_finally(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        lines = self._try_head(scope, pad)
        before = scope.variables[-1].name
        name = self.fresh_name("t")
        lines += [f"{pad}    {name} = math.sqrt({before} + 0.0625)", f"{pad}except ValueError:",
                  f"{pad}    {name} = -{before} * {self._scalar(scope, 1)}"]
        if self.chance(70):
            lines += [f"{pad}else:", f"{pad}    {name} = {name} * {self._scalar(scope, 1)}"]
        lines += [f"{pad}finally:", f"{pad}    {before} = {before} + {self._scalar(scope, 1)}"]
        scope.variables.append(Variable(name, "S"))
        return lines

    def _try_in_loop(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        total, index, root = self.fresh_name("t"), self.fresh_name("i"), self.fresh_name("r")
        trips = self.chooser.integer(2, 4)
        inner = scope.child(variables=scope.variables + [Variable(index, "I")], loop_index=(index, trips),
                            in_for=True, in_loop=True)
        lines = [f"{pad}{total} = {self.expression('S', scope, 1, top=True)}", f"{pad}for {index} in range({trips}):",
                 f"{pad}    try:",
                 f"{pad}        {root} = math.sqrt({self._scalar(inner, 2)} + 0.5 * {index} - 0.4375)",
                 f"{pad}    except ValueError:",
                 f"{pad}        {self.pick(['continue', 'break'])}"]
        inner.variables.append(Variable(root, "S"))
        if self.chance(40):
            lines += self.block(inner, 1, level + 1, result_kind)
        lines.append(f"{pad}    {total} = {total} + {root} * {self._scalar(inner, 1)}")
        scope.variables.append(Variable(total, "S"))
        return lines

    def _cholesky(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        matrix, factor = self.fresh_name("k"), self.fresh_name("L")
        vector = self.expression("V", scope, 2)
        lines = [f"{pad}{matrix} = np.outer({vector}, {vector}) + {self._scalar(scope, 1)} * np.eye(3)",
                 f"{pad}try:", f"{pad}    {factor} = np.linalg.cholesky({matrix})",
                 f"{pad}except np.linalg.LinAlgError:",
                 f"{pad}    {factor} = np.linalg.cholesky({matrix} @ {matrix}.T + 3.0 * np.eye(3))"]
        kind, use = self.pick([("M", f"{factor}[1:, :] * 1.0"), ("V", f"np.diag({factor}) * 1.0"),
                               ("S", f"np.sum(np.tanh({factor}))")])
        name = self.fresh_name("t")
        lines.append(f"{pad}{name} = {use}")
        scope.variables.append(Variable(name, kind))
        return lines

    # -- with --------------------------------------------------------------

    def _errstate(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        settings = self.pick(['divide="ignore"', 'divide="ignore", invalid="ignore"', 'all="ignore"',
                              'over="ignore"'])
        return [f"{pad}with np.errstate({settings}):"] + self._with_body(scope, level, result_kind)

    def _catch_warnings(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        self.imports.add("warnings")
        return ([f"{pad}with warnings.catch_warnings():", f'{pad}    warnings.simplefilter("ignore")']
                + self._with_body(scope, level, result_kind))

    def _with_body(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        """A generated block in ``scope`` itself (the body always runs, so its names stay bound)."""
        inner = scope.child(in_with=True)
        lines = self.block(inner, self.chooser.integer(1, 3), level + 1, result_kind)
        scope.variables[:] = inner.variables
        return lines

    # -- loops with else ---------------------------------------------------

    def _for_else(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        total = self.fresh_name("t")
        lines = [f"{pad}{total} = {self.expression('S', scope, 1, top=True)}"]
        scope.variables.append(Variable(total, "S"))
        loop = self.for_statement(scope, level, result_kind)
        index = loop[0].split()[1]
        exit_test = f"{pad}    if {self.condition(scope.child(variables=scope.variables + [Variable(index, 'I')]))}:"
        lines += loop[:1] + [exit_test, f"{pad}        break"] + loop[1:]
        lines += [f"{pad}    {total} = {total} + {self._scalar(scope, 1)}",
                  f"{pad}else:", f"{pad}    {total} = {total} * {self._scalar(scope, 1)}"]
        return lines

    def _while_else(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        total = self.fresh_name("t")
        lines = [f"{pad}{total} = {self.expression('S', scope, 1, top=True)}"]
        scope.variables.append(Variable(total, "S"))
        loop = self.while_statement(scope, level, result_kind)
        lines += loop[:2] + [f"{pad}    if {self.condition(scope)}:", f"{pad}        break"] + loop[2:]
        lines += [f"{pad}    {total} = {total} - {self._scalar(scope, 1)}",
                  f"{pad}else:", f"{pad}    {total} = {total} + {self._scalar(scope, 1)}"]
        return lines

    # -- :=, f-strings, del ------------------------------------------------

    def _walrus(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        name = self.fresh_name("t")
        value = self.expression("S", scope, 2, top=True)
        if self.chance(50):
            scope.variables.append(Variable(name, "S"))
            second = self.fresh_name("t")
            line = f"{pad}{second} = ({name} := {value}) * {self._scalar(scope, 1)} + {name}"
            scope.variables.append(Variable(second, "S"))
            return [line]
        lines = [f"{pad}if ({name} := {value}) {self.pick(['>', '<'])} {self.pick(['0.0', '0.5'])}:"]
        scope.variables.append(Variable(name, "S"))
        return lines + self.nested(scope, level, result_kind)

    def _fstring(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        label, name = self.fresh_name("s"), self.fresh_name("t")
        kind = self.pick(list(SHAPES))
        text = self.pick([f"f'{{{self._scalar(scope, 1)}:.3f}}'", f"f'n={{len({self.expression('V', scope, 1)})}}'",
                          f"f'{{np.sum({self.expression(kind, scope, 1)})!r}} and {{{level}}}'"])
        lines = [f"{pad}{label} = {text}",
                 f"{pad}{name} = {self.expression(kind, scope, 2)} * (1.0 if {label} else 0.5)"]
        scope.variables.append(Variable(name, kind))
        return lines

    def _del(self, scope: Scope, level: int, result_kind: str) -> List[str]:
        pad = "    " * level
        kind = self.pick(list(SHAPES))
        temporary, name = self.fresh_name("d"), self.fresh_name("t")
        lines = [f"{pad}{temporary} = {self.expression(kind, scope, 2, top=True)}"]
        inner = scope.child(variables=scope.variables + [Variable(temporary, kind)])
        lines += [f"{pad}{name} = {self.expression(kind, inner, 2)} + {temporary}", f"{pad}del {temporary}"]
        scope.variables.append(Variable(name, kind))
        return lines
