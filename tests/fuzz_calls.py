"""Expressions and calls of Python as people write it, in generated programs (tests/fuzz_programs.py).

Contract: ``Calls`` is a mixin of ``fuzz_programs.ProgramGenerator``;
``call_statement(scope, level)`` returns lines that bind a new name of a
kind (added to ``scope``) from one of ``FORMS``, reading differentiated
values of ``scope``, with every choice made through the generator.  The
module-level definitions a form needs (``DEFINITIONS``: a class, a helper
and its ``functools.partial``, helpers with ``*args`` and ``**kwargs``,
direct and mutual recursion) are added to ``self.definitions`` once and
placed before the generated helpers.  The forms:

- generator expressions into ``sum``, ``max``, ``min``, ``math.fsum``,
  ``sorted``, ``tuple``, ``list``, and tests ``any``/``all`` picking a value;
  dict and set comprehensions, ``dict(a=..., b=...)``;
- a lambda called in place, ``enumerate(zip(a, b))``, ``zip(*rows)``,
  ``map(fn, xs)`` (a NumPy function, a lambda of one and of two arguments);
  ``//`` and ``%`` (derivatives 0 and 1 between their jumps);
- methods of a class of the module: an attribute read (``self.w``),
  ``self.method(...)``, a staticmethod, a classmethod, a property;
- ``functools.partial`` of a helper (a module constant, or made in f);
  ``total(*parts)`` and ``mix(u, **cfg)`` with ``*args``/``**kwargs``
  helpers; a list changed by ``append`` (or ``insert``) and ``pop``;
- helpers of the program's own module that write into their array argument
  and return nothing (``advect(z, c)``, ``rescale(z, c)``), called as
  statements: srcad inlines them;
- recursion with a depth argument (``descend``) and mutual recursion
  (``even``/``odd``);
- nested differentiation: a function defined in f reading f's values, its
  gradient taken by ``srcad.grad`` inside f.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> generator = ProgramGenerator(RandomChooser(random.Random(1)))
    >>> "def f(" in generator.program().source
    True
"""
from __future__ import annotations

from typing import List, Tuple

from fuzz_kinds import EXCLUDED, SHAPES, Scope, Variable

FORMS = ("generator", "generator", "sorted", "any_all", "tuple_list", "dict_comprehension", "set_comprehension",
         "lambda", "enumerate_zip", "zip_star", "map", "dict_call", "fsum", "floor_mod", "method", "method", "method",
         "partial", "star_args", "star_kwargs", "list_pop_insert", "recursion", "recursion", "nested_grad",
         "own_mutator")
# elementwise bodies of the module-level definitions, in terms of ``{u}``
BODIES = ["np.sin({u})", "np.tanh({u})", "np.arctan({u})", "np.log(1.0 + {u} * {u})", "np.exp(-({u}) ** 2)",
          "np.sqrt(1.0 + {u} * {u})"]


class Calls:
    """Mixin of ``ProgramGenerator``: the forms listed in the module docstring."""

    def call_statement(self, scope: Scope, level: int) -> List[str]:
        """Lines binding a new name from one of ``FORMS`` (added to ``scope``)."""
        pad = "    " * level
        form = self.pick(FORMS)
        lines, value, kind = getattr(self, "_form_" + form)(scope, pad)
        name = self.fresh_name("t")
        scope.variables.append(Variable(name, kind))
        return lines + [f"{pad}{name} = {value}"]

    def define(self, name: str, source: str) -> None:
        """A module-level definition the program needs, kept once."""
        self.definitions.setdefault(name, source)

    def _body(self, variable: str) -> str:
        return self.pick(BODIES).format(u=variable)

    def _loop_scalar(self, scope: Scope, names: List[str]) -> str:
        """A scalar expression that reads the loop variables ``names`` (scalars) and ``scope``."""
        inner = scope.child(variables=scope.variables + [Variable(n, "S") for n in names])
        return f"{self.pick(names)} * {self.expression('S', inner, 1)}"

    # -- generator expressions, comprehensions, builtins -------------------

    def _items(self, scope: Scope) -> Tuple[str, str]:
        """An expression of a vector kind to iterate over, and that kind."""
        kind = self.pick(["V", "W"])
        return self.expression(kind, scope, 1), kind

    def _form_generator(self, scope: Scope, pad: str):
        items, _ = self._items(scope)
        consumer = self.pick(["sum", "max", "min"])
        if self.chance(30):
            other = self.expression("V", scope, 1)
            a, b = self.fresh_name("a"), self.fresh_name("b")
            return [], f"{consumer}({a} * {b} for {a}, {b} in zip({items}, {other}))", "S"
        v = self.fresh_name("v")
        return [], f"{consumer}({self._loop_scalar(scope, [v])} for {v} in {items})", "S"

    def _form_fsum(self, scope: Scope, pad: str):
        items, _ = self._items(scope)
        v = self.fresh_name("v")
        return [], f"math.fsum({self._loop_scalar(scope, [v])} for {v} in {items})", "S"

    def _form_sorted(self, scope: Scope, pad: str):
        items, kind = self._items(scope)
        v = self.fresh_name("v")
        reverse = self.pick(["", ", reverse=True"])
        position = self.chooser.integer(0, SHAPES[kind][0] - 1)
        if self.chance(50):
            return [], f"sorted(({self._loop_scalar(scope, [v])} for {v} in {items}){reverse})[{position}]", "S"
        return [], f"sorted([{self._loop_scalar(scope, [v])} for {v} in {items}]{reverse})[{position}]", "S"

    def _form_any_all(self, scope: Scope, pad: str):
        items, _ = self._items(scope)
        kind = self.pick(list(SHAPES))
        v = self.fresh_name("v")
        test = f"{self.pick(['any', 'all'])}({v} {self.pick(['>', '<'])} {self.pick(['0.0', '-0.5'])} for {v} in {items})"
        first, second = self.expression(kind, scope, 2, top=True), self.expression(kind, scope, 2, top=True)
        return [], f"({first} if {test} else {second})", kind

    def _form_tuple_list(self, scope: Scope, pad: str):
        items, kind = self._items(scope)
        v = self.fresh_name("v")
        holder = self.fresh_name("h")
        builder = self.pick(["tuple", "list"])
        last = SHAPES[kind][0] - 1
        return ([f"{pad}{holder} = {builder}({self._loop_scalar(scope, [v])} for {v} in {items})"],
                f"{holder}[0] * {holder}[{last}] + {holder}[-1]", "S")

    def _form_dict_comprehension(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        holder, key, value = self.fresh_name("h"), self.fresh_name("n"), self.fresh_name("v")
        first, second = self.expression(kind, scope, 1), self.expression(kind, scope, 1)
        line = (f'{pad}{holder} = {{{key}: {value} * {self.expression("S", scope, 1)} '
                f'for {key}, {value} in zip(("a", "b"), ({first}, {second}))}}')
        return [line], f'{holder}["a"] * {holder}["b"]', kind

    def _form_set_comprehension(self, scope: Scope, pad: str):
        items, kind = self._items(scope)
        holder, i = self.fresh_name("h"), self.fresh_name("j")
        modulus = SHAPES[kind][0]
        line = f"{pad}{holder} = {{{i} % {modulus} for {i} in range({self.chooser.integer(1, 4)})}}"
        inner = scope.child(variables=scope.variables)
        return [line], f"sum(({items})[{i}] * {self.expression('S', inner, 1)} for {i} in sorted({holder}))", "S"

    def _form_dict_call(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        holder = self.fresh_name("h")
        line = f"{pad}{holder} = dict(a={self.expression(kind, scope, 2)}, b={self.expression('S', scope, 1)})"
        return [line], f'{holder}["a"] * {holder}["b"]', kind

    def _form_lambda(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        a = self.fresh_name("a")
        body = self.pick([f"{self._body(a)} * b", f"{a} * b + {self._body(a)}"])
        return [], f"(lambda {a}, b={self.pick(['2.0', '0.5'])}: {body})({self.expression(kind, scope, 2)})", kind

    def _form_enumerate_zip(self, scope: Scope, pad: str):
        total, i, a, b = self.fresh_name("t"), self.fresh_name("j"), self.fresh_name("a"), self.fresh_name("b")
        first, kind = self._items(scope)
        second = self.expression(kind, scope, 1)
        start = self.pick(["", ", 1"])
        lines = [f"{pad}{total} = 0.0", f"{pad}for {i}, ({a}, {b}) in enumerate(zip({first}, {second}){start}):",
                 f"{pad}    {total} = {total} + {a} * {b} * ({i} + 0.5) + {self._loop_scalar(scope, [a])}"]
        return lines, f"{total} * 1.0", "S"

    def _form_zip_star(self, scope: Scope, pad: str):
        first, kind = self._items(scope)
        rows = f"({first}, {self.expression(kind, scope, 1)})"
        if self.chance(50):
            holder = self.fresh_name("h")
            last = SHAPES[kind][0] - 1
            return [f"{pad}{holder} = list(zip(*{rows}))"], f"{holder}[0][1] * {holder}[{last}][0]", "S"
        total, a, b = self.fresh_name("t"), self.fresh_name("a"), self.fresh_name("b")
        lines = [f"{pad}{total} = 0.0", f"{pad}for {a}, {b} in zip(*{rows}):",
                 f"{pad}    {total} = {total} + {a} * {b}"]
        return lines, f"{total} * 1.0", "S"

    def _form_map(self, scope: Scope, pad: str):
        items, kind = self._items(scope)
        a, b = self.fresh_name("a"), self.fresh_name("b")
        mapped = self.pick([f"map(np.sin, {items})", f"map(np.tanh, {items})", f"map(lambda {a}: {a} * {a}, {items})",
                            f"map(lambda {a}, {b}: {a} * {b}, {items}, {self.expression(kind, scope, 1)})"])
        return [], self.pick([f"sum({mapped})", f"list({mapped})[0]", f"tuple({mapped})[-1]"]), "S"

    def _form_floor_mod(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        first, second = self.expression(kind, scope, 2), self.expression(kind, scope, 1)
        return [], self.pick([f"({first}) * 2.0 + ({second}) // 0.5", f"({first}) % 1.5 + ({second})",
                              f"np.floor_divide({second}, 0.25) + ({first})"]), kind

    def _form_list_pop_insert(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        holder = self.fresh_name("h")
        lines = [f"{pad}{holder} = [{self.expression(kind, scope, 1)}, {self.expression(kind, scope, 1)}]",
                 f"{pad}{holder}.append({self.expression(kind, scope, 2)})"]
        if "list_insert" not in EXCLUDED and self.chance(50):
            lines[-1] = f"{pad}{holder}.insert({self.pick(['0', '1'])}, {self.expression(kind, scope, 2)})"
        return lines, f"{holder}.pop() * 1.0 + {holder}[0]", kind

    # -- user helpers ------------------------------------------------------

    def _form_own_mutator(self, scope: Scope, pad: str):
        kind = self.pick(["V", "W", "M"])
        if self.chance(50):
            self.define("advect", "\n".join([
                "def advect(a, c):", f"    a[1:] = a[1:] + c * {self._body('a[:-1]')}", ""]))
            helper = "advect"
        else:
            self.define("rescale", "\n".join([
                "def rescale(a, c):", "    a *= c", f"    a[0] = a[0] + {self._body('c')}", ""]))
            helper = "rescale"
        holder = self.fresh_name("z")
        lines = [f"{pad}{holder} = {self.expression(kind, scope, 1)} * 1.0",
                 f"{pad}{helper}({holder}, {self.expression('S', scope, 1)})"]
        if self.chance(30):   # twice: the helper's locals are reused by the second copy
            lines.append(f"{pad}{helper}({holder}, {self.expression('S', scope, 1)})")
        return lines, f"{holder} * 1.0", kind

    def _form_method(self, scope: Scope, pad: str):
        if "Model" not in self.definitions:
            self.define("Model", "\n".join([
                "class Model:", f"    rate = {self.pick(['0.5', '1.5', '-0.75'])}", "",
                "    def __init__(self, w):", "        self.w = w", "",
                "    def apply(self, v):", f"        return {self._body('v')} * self.w + self.shift(v)", "",
                "    def shift(self, v):", f"        return {self._body('v')} * self.factor", "",
                "    @staticmethod", "    def squash(v):", f"        return {self._body('v')}", "",
                "    @classmethod", "    def scaled(cls, v):", "        return v * cls.rate", "",
                "    @property", "    def factor(self):", "        return self.w * 0.5", "", "",
                f"MODEL = Model({self.pick(['0.8', '-1.25', '2.0'])})", ""]))
        kind = self.pick(list(SHAPES))
        a = self.expression(kind, scope, 2)
        call = self.pick(["MODEL.apply({a})", "MODEL.shift({a})", "MODEL.squash({a})", "Model.scaled({a})",
                          "MODEL.scaled({a})", "MODEL.factor * ({a})", "({a}) * MODEL.w", "Model.squash({a})"])
        return [], call.format(a=a), kind

    def _form_partial(self, scope: Scope, pad: str):
        self.imports.add("functools")
        if "blend" not in self.definitions:
            self.define("blend", "\n".join([
                "def blend(u, c=0.5, d=1.0):", f"    return u / (1.0 + c * u * u) * d + {self._body('u')}", "", "",
                f"BLEND = functools.partial(blend, c={self.pick(['0.25', '1.5'])})", ""]))
        kind = self.pick(list(SHAPES))
        a = self.expression(kind, scope, 2)
        if "local_partial" not in EXCLUDED and self.chance(40):
            holder = self.fresh_name("p")
            return ([f"{pad}{holder} = functools.partial(blend, d={self.expression('S', scope, 1)})"],
                    f"{holder}({a})", kind)
        return [], self.pick([f"BLEND({a})", f"BLEND({a}, d={self.expression('S', scope, 1)})"]), kind

    def _form_star_args(self, scope: Scope, pad: str):
        if "total" not in self.definitions:
            self.define("total", "\n".join([
                "def total(*parts):", "    s = 0.0", "    for p in parts:",
                f"        s = s + np.sum({self._body('p')} * p)", "    return s", ""]))
        arguments = ", ".join(self.expression(self.pick(list(SHAPES)), scope, 1)
                              for _ in range(self.chooser.integer(1, 3)))
        if self.chance(50):
            holder = self.fresh_name("h")
            return [f"{pad}{holder} = ({arguments},)"], f"total(*{holder})", "S"
        return [], f"total({arguments})", "S"

    def _form_star_kwargs(self, scope: Scope, pad: str):
        if "mix" not in self.definitions:
            body = self._body('kw["b"]')
            self.define("mix", "\n".join(["def mix(u, **kw):", f'    return u * kw["a"] + {body}', ""]))
        kind = self.pick(list(SHAPES))
        a, s1, s2 = self.expression(kind, scope, 2), self.expression("S", scope, 1), self.expression("S", scope, 1)
        if self.chance(40):
            return [], f"mix({a}, a={s1}, b={s2})", kind
        holder = self.fresh_name("h")
        built = self.pick([f"dict(a={s1}, b={s2})", f'{{"a": {s1}, "b": {s2}}}'])
        return [f"{pad}{holder} = {built}"], f"mix({a}, **{holder})", kind

    def _form_recursion(self, scope: Scope, pad: str):
        kind = self.pick(list(SHAPES))
        a, depth = self.expression(kind, scope, 2), self.chooser.integer(0, 3)
        if self.chance(50):
            if "descend" not in self.definitions:
                self.define("descend", "\n".join([
                    "def descend(u, depth):", "    if depth == 0:", f"        return {self._body('u')}",
                    f"    return u * 0.5 + descend({self._body('u')}, depth - 1)", ""]))
            return [], f"descend({a}, {depth})", kind
        if "even" not in self.definitions:
            self.define("even", "\n".join([
                "def even(u, depth):", "    if depth == 0:", f"        return {self._body('u')}",
                "    return np.sin(u) * odd(u, depth - 1)", "", "",
                "def odd(u, depth):", "    if depth == 0:", "        return u * u",
                f"    return u + even({self._body('u')}, depth - 1)", ""]))
        return [], f"{self.pick(['even', 'odd'])}({a}, {depth})", kind

    def _form_nested_grad(self, scope: Scope, pad: str):
        self.imports.add("srcad")
        kind = self.pick(list(SHAPES))
        function, argument = self.fresh_name("g"), self.fresh_name("y")
        inner = scope.child(variables=scope.variables + [Variable(argument, kind)], in_for=False, in_loop=False)
        body = f"np.sum({self._body(argument)} * {self.expression('S', scope, 1)}) + {self.expression('S', inner, 2)}"
        lines = [f"{pad}def {function}({argument}):", f"{pad}    return {body}"]
        return lines, f"srcad.grad({function})({self.expression(kind, scope, 2)})", kind
