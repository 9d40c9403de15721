"""Changes made in place in generated programs: stores, shared memory, calls that change their argument.

Contract: ``InPlace`` is a mixin of ``fuzz_programs.ProgramGenerator`` (like
``fuzz_constructs.Constructs``); its methods return lines of source and make
every choice through the generator.  It writes:

- element and slice stores (``=``, ``+=``) into fresh local arrays, with an
  integer index, a slice, an index the loop variable gives, an index a cast
  computes, or an index array holding repeats (``REPEATED_INDICES``: NumPy
  keeps the last write for ``=``, and ``+=`` adds once per distinct index);
- changes through memory two names share (``shared``);
- calls to the ``fuzz_helpers`` functions that change their first argument
  (``module_call``), always a fresh local list or array.

No statement here writes to a parameter unless the generator was asked for
``writable_parameters``.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> generator = ProgramGenerator(RandomChooser(random.Random(0)))
    >>> generator.repeated_index("V")   # doctest: +SKIP
    ('[1, 1]', 'W')
"""
from __future__ import annotations

from typing import List, Tuple

from fuzz_kinds import CONSTANTS, SHAPES, ZEROS, Scope, Variable

# (index, kind of the value it takes) for stores whose integer index array holds repeats
REPEATED_INDICES = {"V": [("np.array([0, 2, 0])", "V"), ("[1, 1]", "W"), ("np.array([2, 0, 2])", "V")],
                    "W": [("np.array([1, 0, 1])", "V"), ("[0, 0]", "W")],
                    "M": [("np.array([1, 1])", "M"), ("[0, 0], [2, 2]", "W"),
                          ("np.array([0, 1, 0]), np.array([2, 2, 2])", "V")]}
MUTATORS = ("push", "scale_in_place", "set_first", "add_into")


class InPlace:
    """Mixin of ``ProgramGenerator``: the statements listed in the module docstring."""

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
        if self.rare(15):
            return self.repeated_index(kind) if self.chance(70) else self.cast_index(kind, scope)
        if kind == "M":
            return self.pick([("0", "V"), ("1, 2", "S"), (":, 1", "W"), ("-1", "V")])
        if kind == "V":
            return self.pick([("0", "S"), ("2", "S"), ("1:", "W"), (":2", "W"), (":", "V")])
        return self.pick([("0", "S"), ("1", "S"), (":", "W")])

    def module_call(self, scope: Scope, pad: str) -> List[str]:
        """A call to a ``fuzz_helpers`` function that changes its first argument, a fresh local."""
        mutator = self.pick(MUTATORS)
        call = self.module_name(mutator)
        if mutator == "push":
            kind = self.pick(["S", "V", "W", "M"])
            holder, name = self.fresh_name("h"), self.fresh_name()
            lines = [f"{pad}{holder} = []"]
            for _ in range(self.chooser.integer(1, 2)):
                lines.append(f"{pad}{call}({holder}, {self.expression(kind, scope, 2)})")
            lines.append(f"{pad}{name} = {self.module_name('pop')}({holder}) * 1.0")
            scope.variables.append(Variable(name, kind, writable=kind != "S"))
            return lines
        kind = self.pick(["S", "V", "W", "M"] if mutator == "scale_in_place" else ["V", "W", "M"])
        name = self.fresh_name("z")
        lines = [f"{pad}{name} = {self.expression(kind, scope, 2)} * 1.0"]
        operand_kind = kind if mutator == "add_into" and self.chance(50) else "S"
        lines.append(f"{pad}{call}({name}, {self.expression(operand_kind, scope, 2)})")
        scope.variables.append(Variable(name, kind, writable=kind != "S"))
        return lines

    def repeated_index(self, kind: str) -> Tuple[str, str]:
        """An index array with repeats into an array of ``kind`` and the kind of value it takes."""
        return self.pick(REPEATED_INDICES[kind])
