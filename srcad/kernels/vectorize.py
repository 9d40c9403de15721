"""NumPy forms of loop nests: ``np.einsum`` for contractions, slices for elementwise maps.

Contract:
- ``Vectorizer(writer).emit(nest)`` prints a NumPy statement equivalent to
  ``nest`` through the Python ``writer`` and returns True, or prints nothing
  and returns False when it cannot (the caller then prints loops).
- A subscript becomes a slice when it is ``v + offset`` for one vectorised
  variable ``v`` (``B[i + 1, j]`` -> ``B[1:9, :]``) and an integer index when
  it only uses looped variables and constants.  Variables that would break
  this (``p + r`` in a convolution, a repeated variable) are looped over in
  Python, the one with the fewest iterations first; a nest whose every
  variable would be looped, or whose reads or stores may leave their array
  (zero padding), keeps its loops.
- Integer division (rounding toward zero) keeps its loops.
- Products of factors are contracted with one ``np.einsum``; other
  expressions broadcast (``B[:, None]``, ``.T``) and sum with ``np.sum``.
  Results equal the loop form up to the order of floating-point additions.
- A nest whose store is ``=`` (it writes every element of its target) but
  whose Python loops would store to an element more than once zeroes the
  target first and adds.
- That reordering happens only with ``reassociate``.  Without it only nests
  that sum nothing are printed (elementwise maps, each element computed by
  the same operations in the same order as the loops), products broadcast
  pairwise as written, and everything else keeps its loops.

Example::

    >>> from srcad.kernels.emit_python import PythonWriter
    >>> from srcad.kernels.loops import Loop, Nest, Store
    >>> from srcad.kernels.model import Access, Binary, IVar, Sum
    >>> i, j, k = IVar("i"), IVar("j"), IVar("k")
    >>> value = Sum(("k",), (3,), Binary("*", Access("B", (2, 3), (i, k)), Access("C", (3, 4), (k, j))))
    >>> nest = Nest((Loop("i", 0, 2), Loop("j", 0, 4)), (), Store("A", (2, 4), (i, j), "=", value))
    >>> w = PythonWriter("float", {"A", "B", "C"}); Vectorizer(w, reassociate=True).emit(nest), w.lines
    (True, ["A[...] = np.einsum('ik,kj->ij', B, C)"])
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Optional, Set, Tuple

from .loops import Fill, Loop, Nest, tighten
from .model import (Access, Binary, Expr, IVar, Neg, Number, Sum, accesses, affine, from_affine,
                    index_vars, interval, show_index)

_ATOM, _SUM, _PRODUCT = 9, 1, 2
Term = Tuple[str, Tuple[str, ...], int]      # code, axes (variables), precedence


class Vectorizer:
    """Print nests as NumPy statements; see the module docstring."""

    def __init__(self, writer, reassociate: bool = False):
        self.writer = writer
        self.reassociate = reassociate

    # -- choosing which variables stay loops
    def _dims_ok(self, access_indices, looped: Set[str]) -> Optional[Set[str]]:
        """None if every subscript is a slice or integer; else the variables of the first bad one."""
        seen: Set[str] = set()
        for index in access_indices:
            form = affine(index)
            if form is None:
                return set(index_vars(index)) - looped
            vector = [v for v in form[0] if v not in looped]
            if len(vector) > 1 or (vector and form[0][vector[0]] != 1) or (vector and vector[0] in seen):
                return set(vector)
            seen.update(vector)
        return None

    def _choose_loops(self, nest: Nest, extents: Dict[str, int]) -> Optional[Set[str]]:
        looped: Set[str] = set()
        subscripts = [nest.store.indices] + [a.indices for a in accesses(nest.store.value)]
        while True:
            bad = next((b for b in (self._dims_ok(s, looped) for s in subscripts) if b is not None), None)
            if bad is None:
                return looped
            if not bad:
                return None
            looped.add(min(sorted(bad), key=lambda v: (extents[v], -list(extents).index(v))))

    def _integer_division(self, expr: Expr) -> bool:
        """Whether ``expr`` divides integers (C rounding, which the loop form implements)."""
        if isinstance(expr, Binary):
            if expr.op == "/" and self.writer.is_integer(expr.left) and self.writer.is_integer(expr.right):
                return True
            return self._integer_division(expr.left) or self._integer_division(expr.right)
        if isinstance(expr, (Neg, Sum)):
            return self._integer_division(expr.operand if isinstance(expr, Neg) else expr.body)
        return False

    # -- entry point
    def emit(self, nest: Nest) -> bool:
        nest = tighten(nest)
        if nest.steps or any(loop.step != 1 for loop in nest.loops) or self._integer_division(nest.store.value):
            return False
        self.bounds: Dict[str, Tuple[int, int]] = {loop.var: (loop.start, loop.stop) for loop in nest.loops}
        for total in _sums(nest.store.value):
            self.bounds.update({v: (0, n) for v, n in zip(total.vars, total.extents)})
        extents = {v: stop - start for v, (start, stop) in self.bounds.items()}
        ranges = {v: (start, stop - 1) for v, (start, stop) in self.bounds.items()}
        stored = {v for index in nest.store.indices for v in index_vars(index)}
        summed = set(extents) - stored
        if not self.reassociate and summed:
            return False              # NumPy would sum in its own order
        looped = self._choose_loops(nest, extents)
        if looped is None or looped >= set(extents):
            return False
        implicit = {loop.var for loop in nest.loops} - stored
        in_arithmetic = {v for index in nest.store.indices if not isinstance(index, IVar) for v in index_vars(index)}
        if nest.store.op == "=" and looped & (implicit | in_arithmetic):
            # a Python loop stores to some elements more than once: zero the target (the nest covers it), then add
            self.writer.fill(Fill(nest.store.name, nest.store.shape, Number(0.0)))
            nest = replace(nest, store=replace(nest.store, op="+="))
        store = nest.store
        for access in [Access(store.name, store.shape, store.indices)] + list(accesses(store.value)):
            for index, extent in zip(access.indices, access.shape):
                low, high = interval(index, ranges)
                if low < 0 or high >= extent:
                    return False
        self.looped = looped
        self.letters = _letters(list(self.bounds))
        depth = self.writer.depth
        for loop in nest.loops:
            if loop.var in looped:
                self.writer.open_for(loop)
        target_code, target_axes = self.view(Access(store.name, store.shape, store.indices), store=True)
        self.preferred = target_axes
        implicit = tuple(loop.var for loop in nest.loops if loop.var not in looped and loop.var not in target_axes)
        value = store.value
        if implicit:
            value = Sum(implicit, tuple(extents[v] for v in implicit), value)
        code, axes, level = self.term(value)
        self.writer.line(f"{target_code} {store.op} {_align(code, axes, target_axes, level)[0]}")
        while self.writer.depth > depth:
            self.writer.close()
        return True

    # -- expressions
    def view(self, access: Access, store: bool = False) -> Tuple[str, Tuple[str, ...]]:
        """The slice expression of an access and the variables of its axes."""
        if not access.shape:
            return (f"{access.name}[()]" if store else access.name), ()
        parts, axes = [], []
        for index, extent in zip(access.indices, access.shape):
            coefficients, constant = affine(index)
            vector = [v for v in coefficients if v not in self.looped]
            if not vector:
                parts.append(show_index(index))
                continue
            var = vector[0]
            start, stop = self.bounds[var]
            rest = {n: c for n, c in coefficients.items() if n != var}
            axes.append(var)
            if not rest:
                low, high = start + constant, stop + constant
                parts.append(":" if (low, high) == (0, extent) else f"{low or ''}:{high}")
            else:
                offset = from_affine(rest, constant + start)
                parts.append(f"{show_index(offset)}:{show_index(offset)} + {stop - start}")
        if all(p == ":" for p in parts):
            return (f"{access.name}[...]" if store else access.name), tuple(axes)
        return f"{access.name}[{', '.join(parts)}]", tuple(axes)

    def term(self, expr: Expr) -> Term:
        if isinstance(expr, Number):
            return self.writer.literal(expr), (), _ATOM
        if isinstance(expr, Access):
            code, axes = self.view(expr)
            return code, axes, _ATOM
        if isinstance(expr, Neg):
            code, axes, level = self.term(expr.operand)
            return "-" + (code if level >= 3 else f"({code})"), axes, 3
        if isinstance(expr, Sum):
            return self.reduce(expr)
        if expr.op == "*" and self.reassociate:
            return self.contract((), expr)
        left, right = self.term(expr.left), self.term(expr.right)
        axes = left[1] + tuple(a for a in right[1] if a not in left[1])
        level = _SUM if expr.op in "+-" else _PRODUCT
        left_code = _group(*_align(left[0], left[1], axes, left[2]), level, False)
        right_code = _group(*_align(right[0], right[1], axes, right[2]), level, True)
        return f"{left_code} {expr.op} {right_code}", axes, level

    def reduce(self, total: Sum) -> Term:
        vector = tuple(v for v in total.vars if v not in self.looped)
        looped = [v for v in total.vars if v in self.looped]
        if not looped:
            return self.contract(vector, total.body)
        name = self.writer.fresh("sum_" + "_".join(looped))
        self.writer.declare(name, self.writer.literal(Number(0.0)))
        depth = self.writer.depth
        for var in looped:
            self.writer.open_for(Loop(var, *self.bounds[var]))
        code, axes, _ = self.contract(vector, total.body)
        self.writer.line(f"{name} = {name} + {code}")
        while self.writer.depth > depth:
            self.writer.close()
        return name, axes, _ATOM

    def contract(self, summed: Tuple[str, ...], body: Expr) -> Term:
        """The sum over ``summed`` of ``body``; one einsum over the factors of a product."""
        sign, factors = _factors(body)
        while any(isinstance(f, Sum) and not set(f.vars) & self.looped for f in factors):
            inner = next(f for f in factors if isinstance(f, Sum) and not set(f.vars) & self.looped)
            inner_sign, inner_factors = _factors(inner.body)     # one einsum for nested sums
            position = factors.index(inner)
            factors[position:position + 1] = inner_factors
            sign, summed = sign * inner_sign, summed + inner.vars
        terms = [self.term(f) for f in factors]
        scalars = [t for t in terms if not t[1]]
        arrays = [t for t in terms if t[1]]
        axes_in = tuple(dict.fromkeys(a for t in arrays for a in t[1]))
        out = tuple(sorted((a for a in axes_in if a not in summed),
                           key=lambda a: self.preferred.index(a) if a in self.preferred else len(self.preferred)))
        if len(arrays) == 1 and not summed:
            code, axes, level = arrays[0]
        elif len(arrays) == 1 and len(factors) == 1 and arrays[0][2] < _ATOM:     # a sum of a non-product
            code, axes = f"np.sum({arrays[0][0]}, axis={_axis_tuple(arrays[0][1], summed)})", out
            level = _ATOM
        elif arrays and (summed or len(arrays) > 1):
            spec = ",".join("".join(self.letters[a] for a in t[1]) for t in arrays)
            spec += "->" + "".join(self.letters[a] for a in out)
            optimize = ", optimize=True" if len(arrays) > 2 else ""      # pairwise, not one big loop
            code = f"np.einsum('{spec}', {', '.join(t[0] for t in arrays)}{optimize})"
            axes, level = out, _ATOM
        else:
            code, axes, level = "", (), _ATOM
        factors_code = [_group(t[0], t[2], _PRODUCT, False) for t in scalars]
        if code:
            factors_code.append(_group(code, level, _PRODUCT, bool(scalars)))
        code = " * ".join(factors_code) if factors_code else self.writer.literal(Number(1.0))
        if len(factors_code) > 1:
            level = _PRODUCT
        count = 1
        for v in summed:                       # a summed variable no array mentions multiplies
            if v not in axes_in:
                count *= self.bounds[v][1] - self.bounds[v][0]
        if count != 1:
            code, level = f"{count} * {_group(code, level, _PRODUCT, True)}", _PRODUCT
        if sign < 0:
            code, level = "-" + _group(code, level, 3, False), 3
        return code, axes, level


def _sums(expr: Expr) -> List[Sum]:
    if isinstance(expr, Sum):
        return [expr] + _sums(expr.body)
    if isinstance(expr, Neg):
        return _sums(expr.operand)
    if isinstance(expr, Binary):
        return _sums(expr.left) + _sums(expr.right)
    return []


def _factors(expr: Expr) -> Tuple[int, List[Expr]]:
    """(sign, factors) of a product chain."""
    if isinstance(expr, Neg):
        sign, factors = _factors(expr.operand)
        return -sign, factors
    if isinstance(expr, Binary) and expr.op == "*":
        left_sign, left = _factors(expr.left)
        right_sign, right = _factors(expr.right)
        return left_sign * right_sign, left + right
    return 1, [expr]


def _letters(variables: List[str]) -> Dict[str, str]:
    letters: Dict[str, str] = {}
    pool = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for var in variables:
        first = var[0] if var[0] in pool and var[0] not in letters.values() else None
        letters[var] = first or next(c for c in pool if c not in letters.values())
    return letters


def _axis_tuple(axes: Tuple[str, ...], summed: Tuple[str, ...]) -> str:
    positions = [str(axes.index(v)) for v in summed if v in axes]
    return positions[0] if len(positions) == 1 else "(" + ", ".join(positions) + ")"


def _group(code: str, level: int, parent: int, right_side: bool) -> str:
    return f"({code})" if level < parent or (level == parent and right_side) else code


def _align(code: str, axes: Tuple[str, ...], target: Tuple[str, ...], level: int = _ATOM) -> Tuple[str, int]:
    """``code`` (axes ``axes``) transposed and expanded to broadcast against ``target``; (code, level)."""
    present = [a for a in target if a in axes]
    if list(axes) != present:
        if len(axes) == 2:
            code = f"{_group(code, level, _ATOM, False)}.T"
        else:
            code = f"np.transpose({code}, {tuple(axes.index(a) for a in present)})"
        level = _ATOM
    parts = [":" if a in axes else "None" for a in target]
    while parts and parts[0] == "None":
        parts.pop(0)
    if axes and "None" in parts:
        code, level = f"{_group(code, level, _ATOM, False)}[{', '.join(parts)}]", _ATOM
    return code, level
