"""Helpers for derivatives of Python's ``sorted`` and ``dict(pairs)``, called from generated code.

Contract: ``keys_of(d)`` lists a dict's keys (they carry no derivative);
``sorting_order(items, reverse)`` is the permutation ``sorted``
applies (stable, as Python sorts: ``sorted(items) == [items[k] for k in
order]``); ``permuted(values, order)`` reorders a list of derivatives by it
and ``unpermuted`` puts them back.  ``pairs_grad(grad, pairs)`` gives the
adjoint of the pairs ``dict(pairs)`` was built from (a repeated key takes the
value of its last pair, so earlier pairs get zeros), and ``pairs_tangent``
builds the tangent dict from the pairs' tangents.  Nothing here changes its
arguments.

Example::

    >>> sorting_order([3.0, 1.0, 2.0])
    [1, 2, 0]
    >>> unpermuted([10.0, 20.0, 30.0], [1, 2, 0])
    [30.0, 10.0, 20.0]
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from .core import zeros_like


def keys_of(mapping: Dict) -> List:
    """The keys of ``mapping``, in the order iterating it gives them (a loop over a dict reads them by position)."""
    return list(mapping)


def sorting_order(items: Sequence, reverse: bool = False) -> List[int]:
    """The positions of ``items`` in the order ``sorted(items, reverse=reverse)`` lists them."""
    return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)


def permuted(values: Sequence, order: Sequence[int]) -> List:
    """``[values[k] for k in order]``."""
    return [values[k] for k in order]


def unpermuted(values: Sequence, order: Sequence[int]) -> List:
    """The list ``result`` with ``result[order[j]] == values[j]``: the inverse of ``permuted``."""
    result: List[Any] = [None] * len(order)
    for position, k in enumerate(order):
        result[k] = values[position]
    return result


def pairs_grad(grad: Dict, pairs: Sequence) -> List:
    """The adjoint of ``pairs`` given the adjoint ``grad`` of ``dict(pairs)``: ``[dkey, dvalue]`` per pair
    (``pairs`` may be a dict, which ``dict`` copies: its adjoint is then a dict)."""
    if isinstance(pairs, dict):
        return {key: grad[key] for key in pairs}
    last = {key: position for position, (key, _) in enumerate(pairs)}
    return [[zeros_like(key), grad[key] if last[key] == position else zeros_like(value)]
            for position, (key, value) in enumerate(pairs)]


def pairs_tangent(tangents: Sequence, pairs: Sequence) -> Dict:
    """The tangent of ``dict(pairs)`` from the tangents of the pairs (keys from ``pairs``; a dict copied)."""
    if isinstance(pairs, dict):
        return {key: tangents[key] for key in pairs}
    return {key: tangent[1] for (key, _), tangent in zip(pairs, tangents)}
