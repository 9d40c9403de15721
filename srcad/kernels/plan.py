"""The forward kernel as loop nests, and what the forward and gradient plans share.

Contract:
- ``forward_function(kernel)`` is the ``Function`` of the forward kernel:
  parameters ``ins`` then the ``outs`` not among them (updated in place),
  local arrays for temporaries, and one loop nest per statement over the
  target's variables, headed by a comment with the statement as written.
- ``statement_nest(statement, rename)`` is that nest, with every access
  renamed by ``rename(name, version)`` (the gradient's recomputation stores
  each needed version in its own array).
- ``scatter_nest`` builds the loop nest of one adjoint contribution in
  scatter form (``dB[i + 1, j] += ...`` guarded to stay inside dB).
- ``covers(statement, shape)`` says whether a statement writes every element.

Example::

    >>> from srcad.kernels.analysis import load_case
    >>> k = load_case({"name": "k", "ins": ["B"], "outs": ["A"], "data_type": "float",
    ...                "kernel": "A<3>[i] = 2.0 * B<3>[i];"})
    >>> [p.name for p in forward_function(k).params]
    ['B', 'A']
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Dict, List, Sequence, Tuple

from .loops import Comment, Function, Item, Loop, Nest, Param, Store, bound_guards
from .model import Expr, Index, IVar, Kernel, Statement, map_accesses

Rename = Callable[[str, int], str]


def target_loops(statement: Statement) -> Tuple[Loop, ...]:
    """One loop per distinct variable of the statement's target, in subscript order."""
    names = dict.fromkeys(i.name for i in statement.target.indices if isinstance(i, IVar))
    return tuple(Loop(name, 0, statement.extents[name]) for name in names)


def covers(statement: Statement) -> bool:
    """Whether the statement writes every element of its target."""
    target = statement.target
    names = [i.name for i in target.indices if isinstance(i, IVar)]
    return (len(names) == len(target.indices) == len(set(names))
            and all(statement.extents[n] == extent for n, extent in zip(names, target.shape)))


def renamed(expr: Expr, rename: Rename) -> Expr:
    """``expr`` with each access named ``rename(name, version)`` (its version then reset to 0)."""
    return map_accesses(expr, lambda a: replace(a, name=rename(a.name, a.version), version=0))


def statement_nest(statement: Statement, rename: Rename) -> Nest:
    """The loop nest that performs ``statement``, with accesses renamed by ``rename``."""
    target = statement.target
    store = Store(rename(target.name, target.version), target.shape, target.indices, "=",
                  renamed(statement.rhs, rename))
    return Nest(target_loops(statement), (), store)


def scatter_nest(name: str, shape: Tuple[int, ...], indices: Sequence[Index],
                 loops: Sequence[Tuple[str, int]], value: Expr) -> Nest:
    """``name[indices] += value`` over ``loops`` (variable, extent), skipping stores outside the array."""
    store = Store(name, shape, tuple(indices), "+=", value)
    return Nest(tuple(Loop(v, 0, n) for v, n in loops), bound_guards(tuple(indices), shape), store)


def forward_function(kernel: Kernel, name: str = "") -> Function:
    """The forward kernel: each statement in order, updating the output arrays in place."""
    params = tuple(Param(p, kernel.shapes.get(p, ()), "input" if p in kernel.ins else "output")
                   for p in kernel.forward_params)
    body: List[Item] = []
    for statement in kernel.statements:
        body.append(Comment(statement.text))
        body.append(statement_nest(statement, lambda array, version: array))
    summary = [f"{kernel.name}: the kernel itself; writes {', '.join(kernel.outs)} in place."]
    local_arrays = tuple((n, kernel.shapes[n]) for n in kernel.locals)
    return Function(name or kernel.name, params, local_arrays, body, summary)


def kernel_names(kernel: Kernel) -> Dict[str, None]:
    """Every name the kernel uses (arrays and index variables), in a stable order."""
    names: Dict[str, None] = dict.fromkeys((kernel.name,) + kernel.ins + kernel.outs + kernel.locals)
    for statement in kernel.statements:
        names.update(dict.fromkeys(statement.extents))
        names[statement.target.name] = None
    return names


def unique(base: str, taken: Dict[str, None]) -> str:
    """``base``, or ``base_``, ``base__``... whichever ``taken`` lacks; it is added to ``taken``."""
    name = base
    while name in taken:
        name += "_"
    taken[name] = None
    return name
