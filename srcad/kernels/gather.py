"""Gather form: rewrite scatter updates so that every store goes through plain loop variables.

Contract:
- ``gather(nest, taken)`` takes a scatter-form nest ``dX[g1, ..., gd] +=
  value`` (loops from 0, guards keeping the store inside dX) and returns an
  equivalent nest whose store subscripts are loop variables or constants, or
  None when no iteration stores anything.  Equivalent: every element of dX
  receives the same terms, so the results are identical up to the order of
  additions.  New variable names avoid ``taken``.
- Each store dimension gets a loop variable ``h<dim>`` over the positions of
  dX, and the original variables are recovered from it:
  * ``i`` alone: the loop over ``i`` stores there itself;
  * affine ``a*v + rest`` with a variable ``v`` of coefficient +-1 (``i + 1``,
    ``p + r``): ``v = h - rest``, guarded by ``0 <= v < extent``; a
    coefficient ``a`` > 1 adds the guard ``(h - rest) % a == 0``;
  * ``e // c`` with ``e % c`` in another dimension (a flatten): ``e = h*c + t``
    with ``t`` that dimension's variable; alone, ``t`` loops over ``0..c-1``;
  * ``e % c`` alone: ``e = q*c + h`` with a loop over the quotient ``q``;
  * anything else (``i*j``, ``(i + j) // 2`` ...): loop over ``h`` and every
    variable, guarded by ``g == h`` (correct, slower).
  Variables no dimension determines keep their loops; ``loops.tighten``
  then folds guards on a single variable into its loop bounds and
  ``loops.bound_loops`` turns range guards such as ``0 <= h2 - r < 5`` into
  bounds of the innermost loop (``max(0, h2 - 4) <= r <= min(2, h2)``).
- Loop order: the store's loops in dimension order (the last dimension,
  contiguous in memory, innermost), then the other loops, which form the
  reduction (``Nest.reduction``): the writer sums over them in a local
  accumulator and stores once per element.  Among the reduction loops,
  those whose range depends on the element (the window of a convolution:
  ``r`` in ``p = h2 - r``) run outside, so the innermost loop has a fixed
  trip count; within each group the variable with the smallest memory
  stride in the arrays read runs innermost (ties keep the kernel's order).

Example::

    >>> from srcad.kernels.loops import Loop, Nest, Store
    >>> from srcad.kernels.model import Access, IBin, IConst, IVar
    >>> i = IVar("i")
    >>> nest = Nest((Loop("i", 0, 8),), (), Store("dB", (10,), (IBin("+", i, IConst(1)),), "+=",
    ...             Access("dA", (8,), (i,))))
    >>> g = gather(nest, {"i", "dA", "dB"}); g.loops, g.store.indices
    ((Loop(var='h0', start=1, stop=9, step=1, lows=(), highs=()),), (IVar(name='h0'),))
"""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, Iterable, List, Optional, Set

from .loops import Guard, Let, Loop, Nest, Step, bound_loops, is_empty, tighten
from .model import IBin, IConst, Index, IVar, accesses, affine, from_affine, index_vars, interval, substitute


def _solve(form, var: str, position: Index) -> tuple:
    """Solve ``sum(c*v) + k == position`` for ``var``: (expression, divisibility guard or None)."""
    coefficients, constant = form
    a = coefficients[var]
    rest = {n: c for n, c in coefficients.items() if n != var}
    position_form = affine(position)
    # a*var = position - rest - constant
    numerator = dict(position_form[0])
    for name, coefficient in rest.items():
        numerator[name] = numerator.get(name, 0) - coefficient
    numerator = {n: c for n, c in numerator.items() if c}
    shift = position_form[1] - constant
    if a < 0:
        numerator, shift, a = {n: -c for n, c in numerator.items()}, -shift, -a
    expr = from_affine(numerator, shift)
    if a == 1:
        return expr, None
    return IBin("//", expr, IConst(a)), Guard(expr, divisor=a)


def gather(nest: Nest, taken: Iterable[str]) -> Optional[Nest]:
    """The gather form of a scatter nest (see the module docstring); None if it stores nothing."""
    store = nest.store
    plain = [i.name for i in store.indices if isinstance(i, IVar)]
    if all(isinstance(i, (IVar, IConst)) for i in store.indices) and len(set(plain)) == len(plain):
        by_var = {loop.var: loop for loop in nest.loops}
        outer = [by_var[v] for v in plain]
        return _checked(_with_reduction(nest, outer, [loop for loop in nest.loops if loop.var not in plain]))
    extents = {loop.var: loop.stop for loop in nest.loops}
    ranges = {loop.var: loop.range for loop in nest.loops}
    names: Set[str] = set(taken) | set(extents)

    def fresh(base: str) -> str:
        name, number = base, 2
        while name in names:
            name, number = f"{base}_{number}", number + 1
        names.add(name)
        return name

    free = list(extents)                 # variables not yet determined by a store position
    loops: Dict[int, Loop] = {}          # store dimension -> its loop
    extra: List[Loop] = []
    steps: List[Step] = []
    indices: List[Index] = list(store.indices)
    done = [False] * len(indices)

    def recover(var: str, expr: Index, guard: Optional[Guard]) -> None:
        free.remove(var)
        if guard is not None:
            steps.append(guard)
        steps.append(Let(var, expr))
        steps.append(Guard(IVar(var), 0, extents[var]))

    for dim, index in enumerate(indices):          # plain variables first
        if isinstance(index, IConst):
            if not 0 <= index.value < store.shape[dim]:
                return None
            done[dim] = True
        elif isinstance(index, IVar) and index.name in free:
            free.remove(index.name)
            loops[dim] = Loop(index.name, 0, min(extents[index.name], store.shape[dim]))
            done[dim] = True
    for dim, index in enumerate(indices):
        if done[dim]:
            continue
        done[dim] = True
        h = fresh(f"h{dim}")
        loops[dim] = Loop(h, 0, store.shape[dim])
        if _by_division(dim, index, h, indices, done, loops, extra, free, fresh, ranges, recover, store):
            continue
        form = affine(index)
        candidates = [v for v in index_vars(index) if v in free and form[0].get(v)] if form else []
        if candidates:
            var = ([v for v in candidates if abs(form[0][v]) == 1] or candidates)[0]
            expr, guard = _solve(form, var, IVar(h))
            recover(var, expr, guard)
        else:
            steps.append(Guard(IBin("-", index, IVar(h)), 0, 1))   # brute force: index == h
    new_indices = tuple(IVar(loops[d].var) if d in loops else indices[d] for d in range(len(indices)))
    gathered = Nest(nest.loops, tuple(steps), replace(store, indices=new_indices))
    return _checked(_with_reduction(gathered, [loops[d] for d in sorted(loops)],
                                    extra + [Loop(v, 0, extents[v]) for v in free]))


def _with_reduction(nest: Nest, outer: List[Loop], inner: List[Loop]) -> Nest:
    """``nest`` looping over ``outer`` then ``inner`` (innermost the smallest stride), summed over ``inner``."""
    lets: Dict[str, Index] = {}
    for step in nest.steps:
        if isinstance(step, Let):
            lets[step.var] = substitute(step.expr, lets)
    reads = [access for access in accesses(nest.store.value) if access.shape]

    def stride(loop: Loop) -> float:
        smallest = float("inf")
        for access in reads:
            step, used = 0, False
            for dim, index in enumerate(access.indices):
                index = substitute(index, lets)
                if loop.var not in index_vars(index):
                    continue
                used = True
                form = affine(index)
                if form is None:
                    step = 10**9
                    break
                trailing = 1
                for extent in access.shape[dim + 1:]:
                    trailing *= extent
                step += form[0].get(loop.var, 0) * trailing
            if used:
                smallest = min(smallest, abs(step) or 10**9)
        return smallest

    windowed = {v for expr in lets.values() for v in index_vars(expr)}    # their bounds vary with the element
    ordered = sorted(inner, key=lambda loop: (loop.var not in windowed, -stride(loop)))
    return replace(nest, loops=tuple(outer) + tuple(ordered), reduction=len(ordered))


def _checked(nest: Nest) -> Optional[Nest]:
    nest = bound_loops(tighten(nest))
    return None if is_empty(nest) else nest


def _by_division(dim, index, h, indices, done, loops, extra, free, fresh, ranges, recover, store) -> bool:
    """Handle ``e // c`` (with its ``e % c`` partner if there is one) and a lone ``e % c``."""
    if not (isinstance(index, IBin) and index.op in ("//", "%") and isinstance(index.right, IConst)):
        return False
    inner, c = index.left, index.right.value
    form = affine(inner)
    unknown = [v for v in index_vars(inner) if v in free and form and abs(form[0].get(v, 0)) == 1]
    if not unknown:
        return False
    var = unknown[0]
    if index.op == "//":
        partner = next((d for d, other in enumerate(indices) if not done[d]
                        and other == IBin("%", inner, IConst(c))), None)
        if partner is not None:
            done[partner] = True
            t = fresh(f"h{partner}")
            loops[partner] = Loop(t, 0, min(c, store.shape[partner]))
        else:
            t = fresh(f"t{dim}")
            extra.append(Loop(t, 0, c))
        position = IBin("+", IBin("*", IVar(h), IConst(c)), IVar(t))
    else:
        low, high = interval(inner, ranges)
        q = fresh(f"q{dim}")
        extra.append(Loop(q, low // c, high // c + 1))
        loops[dim] = Loop(h, 0, min(c, store.shape[dim]))
        position = IBin("+", IBin("*", IVar(q), IConst(c)), IVar(h))
    expr, guard = _solve(form, var, position)
    recover(var, expr, guard)
    return True
