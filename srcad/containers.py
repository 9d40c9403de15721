"""Helpers for derivatives of Python lists, called from generated code.

Contract: the derivative of a list is a list of the derivatives of its
elements, with the same length.  ``add_lists`` adds two such lists element by
element (``+`` on lists would concatenate them).

Example::

    >>> add_lists([1.0, 2.0], [0.5, 0.5])
    [1.5, 2.5]
"""
from __future__ import annotations

from typing import List


def add_lists(total: List, more) -> List:
    """Element-by-element sum of two derivative lists of the same length."""
    return [a + b for a, b in zip(total, more)]
