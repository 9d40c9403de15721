"""Helpers for derivatives of Python lists, called from generated code.

Contract: the derivative of a list is a list of the derivatives of its
elements, with the same length; of a dict, a dict with the same keys.
``add_lists`` adds two such lists element by element (``+`` on lists would
concatenate them) and ``add_structures`` adds any two derivatives of one
nested value, leaf by leaf.

Example::

    >>> add_lists([1.0, 2.0], [0.5, 0.5])
    [1.5, 2.5]
"""
from __future__ import annotations

from typing import Any, List


def add_lists(total: List, more) -> List:
    """Element-by-element sum of two derivative lists of the same length."""
    return [add_structures(a, b) for a, b in zip(total, more)]


def add_structures(total: Any, more: Any) -> Any:
    """The sum of two derivatives of one value: leaf by leaf through lists, tuples and dicts.

    Example::

        >>> add_structures({"w": [1.0, 2.0]}, {"w": [0.5, 0.5]})
        {'w': [1.5, 2.5]}
    """
    if isinstance(total, (list, tuple)):
        return [add_structures(a, b) for a, b in zip(total, more)]
    if isinstance(total, dict):
        return {key: add_structures(value, more[key]) if key in more else value for key, value in total.items()}
    return total + more
