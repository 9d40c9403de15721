"""From a planned ``Function`` to the items the writers print: gather form, evaluation order, no needless zeroing.

Contract:
- ``lower(function, gather, reassociate, taken)`` returns the body items to
  print, as ``(item, source)`` pairs: ``item`` is a ``Comment``, ``Fill`` or
  lowered ``Nest`` (gathered, or tightened in scatter form); ``source`` is
  the nest before gathering (same store op and value), which the NumPy
  vectoriser may print instead, or None.  Nests that store nothing are
  dropped.
- Unless ``reassociate``, every stored value is put in the written order
  (``order.written_order``); with it, sums stay where the analysis put them.
  A contribution ``x += Sum_k(t)`` becomes a loop over k adding t.
- In gather form a gradient array is not zeroed when the first nest that
  touches it after the zeroing stores every element exactly once without
  reading it: that nest stores with ``=`` and the ``Fill`` goes.  Arrays
  that receive several contributions keep the zeroing and ``+=``.
- ``function_lines(function, writer, gather, reassociate, vectorizer)``
  prints the lowered body through ``writer``.

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> from srcad.kernels.gradient import gradient_function
    >>> k = load_case({"name": "g", "ins": ["A", "B"], "outs": ["C"], "data_type": "float",
    ...                "kernel": "C<4>[i] = A<4>[i] * B<4>[i];", "grad_to": ["A"]})
    >>> [type(item).__name__ for item, _ in lower(gradient_function(k), True, False, set())]
    ['Comment', 'Nest']
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, List, Optional, Tuple

from .gather import gather as to_gather
from .loops import Comment, Fill, Function, Guard, Item, Loop, Nest, is_empty, tighten
from .model import IVar, Number, Sum, accesses, index_vars
from .order import written_order

Lowered = Tuple[Item, Optional[Nest]]
REASSOCIATED = ("Built with --reassociate: sums are regrouped (factors applied to finished sums), "
                "so results differ from the written order by rounding.")


def _lowered(nest: Nest, gather: bool, taken: Iterable[str]) -> Optional[Nest]:
    """The nest as printed: gathered (or just tightened); None when it stores nothing."""
    if gather:
        return to_gather(nest, taken)
    nest = tighten(nest)
    return None if is_empty(nest) else nest


def lower(function: Function, gather: bool, reassociate: bool, taken: Iterable[str],
          integer: bool = False) -> List[Lowered]:
    """The printable body of ``function`` (see the module docstring)."""
    items: List[Lowered] = []
    for item in function.body:
        if not isinstance(item, Nest):
            items.append((item, None))
            continue
        if not reassociate:
            item = replace(item, store=replace(item.store, value=written_order(item.store.value, integer)))
        total = item.store.value
        if item.store.op == "+=" and isinstance(total, Sum):      # x += Sum_k(t): loop over k, x += t
            item = replace(item, loops=item.loops + tuple(Loop(v, 0, n) for v, n in zip(total.vars, total.extents)),
                           store=replace(item.store, value=total.body))
        lowered = _lowered(item, gather, taken)
        if lowered is not None:
            items.append((lowered, item))
    return _without_needless_zeroing(items) if gather else items


def _touches(item: Item, name: str) -> bool:
    if isinstance(item, Fill):
        return name in (item.name, item.source)
    if isinstance(item, Nest):
        return item.store.name == name or any(a.name == name for a in accesses(item.store.value))
    return False


def covers_once(nest: Nest) -> bool:
    """Whether ``nest`` stores each element of its target exactly once (and never reads it)."""
    store = nest.store
    outer = nest.store_loops
    names = [index.name for index in store.indices if isinstance(index, IVar)]
    if len(names) != len(store.indices) or sorted(names) != sorted(loop.var for loop in outer):
        return False
    extents = dict(zip(names, store.shape))
    if any(loop.start != 0 or loop.step != 1 or loop.lows or loop.highs or loop.stop != extents[loop.var]
           for loop in outer):
        return False
    inner = {loop.var for loop in nest.loops[len(outer):]}
    lets = {}
    for step in nest.steps:
        used = set(index_vars(step.expr))
        for var in list(used):
            used |= lets.get(var, set())
        if isinstance(step, Guard):
            if not step.enforced and not used & inner:
                return False          # a condition on the stored element: some are skipped
        else:
            lets[step.var] = used
    return not any(a.name == store.name for a in accesses(store.value))


def _without_needless_zeroing(items: List[Lowered]) -> List[Lowered]:
    """``items`` without the zeroing of arrays their first writer covers; a comment left heading nothing goes."""
    kept: List[Optional[Lowered]] = list(items)
    for position, (item, _) in enumerate(items):
        if not (isinstance(item, Fill) and item.source is None and item.value == Number(0.0)):
            continue
        later = next((n for n in range(position + 1, len(items)) if _touches(items[n][0], item.name)), None)
        if later is None:
            continue
        nest, source = items[later]
        if isinstance(nest, Nest) and nest.store.name == item.name and nest.store.op == "+=" and covers_once(nest):
            kept[position] = None
            kept[later] = (replace(nest, store=replace(nest.store, op="=")),
                           replace(source, store=replace(source.store, op="=")))
    result: List[Lowered] = []
    for position, pair in enumerate(kept):
        if pair is None:
            continue
        if isinstance(pair[0], Comment):
            section = []
            for following in kept[position + 1:]:
                if following is not None and isinstance(following[0], Comment):
                    break
                section.append(following)
            if section and all(following is None for following in section):
                continue
        result.append(pair)
    return result


def function_lines(function: Function, writer, gather: bool, reassociate: bool = False, vectorizer=None) -> None:
    """Print the body items of ``function`` through ``writer`` (lowering each nest)."""
    writer.fold_sums = not reassociate
    for item, source in lower(function, gather, reassociate, writer.taken, writer.data_type == "int"):
        if isinstance(item, Nest):
            if vectorizer is None or not vectorizer(source):
                writer.nest(item)
        else:
            writer.item(item)
