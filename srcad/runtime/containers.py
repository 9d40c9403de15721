"""Helpers for derivatives of Python lists, called from generated code.

Contract: the derivative of a list is a list of the derivatives of its
elements, with the same length; of a dict, a dict with the same keys.
``add_lists`` adds two such lists element by element (``+`` on lists would
concatenate them) and ``add_structures`` adds any two derivatives of one
nested value, leaf by leaf.

Generated loops read what they iterate over by position.  ``sequence_length(xs)``
is ``len(xs)`` for a value whose items are its positions' values (a list,
tuple, range, string, array or other ``collections.abc.Sequence``) and raises
``UnsupportedValueError`` for anything else (a dict, whose iteration gives its
keys, a set, a generator, an object with ``__iter__`` only), so a loop over a
value of the wrong type stops instead of reading the wrong items.
Reverse mode saves what a store ``c[key] = v`` overwrites and puts it back in
the backward pass: ``item_before(c, key)`` is a copy of ``c[key]``, or
``ABSENT`` when ``c`` is a dict without ``key``, and ``restore_item(c, key,
saved)`` stores it back, or deletes the key the store added.
``joined_lists_error()`` is what the rules of ``+`` and ``*`` raise when the
operation joined or repeated lists (NumPy's rules would misplace their
derivatives).  ``mapping_keys(d)`` lists a dict's keys for ``d.keys()``, ``d.values()``, ``for k in d:`` reading ``d[k]`` and
``d.items()`` loops, and raises the same way for a value that is no mapping.

Example::

    >>> add_lists([1.0, 2.0], [0.5, 0.5])
    [1.5, 2.5]
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, List

import numpy as np

from ..errors import UnsupportedValueError
from .dispatch import is_duck_array


def add_lists(total: List, more) -> List:
    """Element-by-element sum of two derivative lists of the same length.

    ``total`` may also be a zero that stands for "no derivative yet": the
    0.0 a derivative starts from when its variable may be unbound, or the
    empty list ``zeros_like`` gives for a list whose items were all popped.
    Lists of two different nonzero lengths raise instead of being cut to
    the shorter one.
    """
    return _added_items(total, more)


def add_structures(total: Any, more: Any) -> Any:
    """The sum of two derivatives of one value: leaf by leaf through lists, tuples and dicts.

    Example::

        >>> add_structures({"w": [1.0, 2.0]}, {"w": [0.5, 0.5]})
        {'w': [1.5, 2.5]}
    """
    if isinstance(total, (list, tuple)) or isinstance(more, (list, tuple)):
        return _added_items(total, more)
    if isinstance(total, dict):
        return {key: add_structures(value, more[key]) if key in more else value for key, value in total.items()}
    return total + more


def _added_items(total, more) -> List:
    if _no_items_yet(total):
        return [copy.copy(item) if isinstance(item, (list, dict)) else item for item in more]
    if _no_items_yet(more):
        return list(total)
    if len(total) != len(more):
        raise ValueError(f"srcad: internal error, adding the derivatives of lists of lengths {len(total)} "
                         f"and {len(more)}; please report this with the function that caused it")
    return [add_structures(a, b) for a, b in zip(total, more)]


def _no_items_yet(value) -> bool:
    """A zero standing for a list derivative not yet started: a plain 0.0 or an empty list."""
    return (value.__class__ is float and value == 0.0) or (isinstance(value, (list, tuple)) and not value)


class _Absent:
    """What ``item_before`` saves for a key a store adds to a dict."""

    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()


def item_before(container, key):
    """What ``container[key] = value`` is about to overwrite, copied; ``ABSENT`` for a dict's new key.

    Example::

        >>> item_before({"a": 1.0}, "b")
        ABSENT
    """
    if isinstance(container, dict):
        return ABSENT if key not in container else _copy_item(container[key])
    return np.copy(container[key])


def _copy_item(value):
    return np.copy(value) if isinstance(value, (np.ndarray, np.generic, float, int)) else copy.deepcopy(value)


def restore_item(container, key, saved, adjoint=None) -> None:
    """Undo ``container[key] = value`` given what ``item_before`` saved: store it back, or remove the new key
    (from ``container``'s ``adjoint`` as well, when given).

    Example::

        >>> d = {"a": 1.0, "b": 2.0}
        >>> restore_item(d, "b", ABSENT); d
        {'a': 1.0}
    """
    if saved is ABSENT:   # (a derivative of the derivative may have removed it already)
        container.pop(key, None)
        if isinstance(adjoint, dict):
            adjoint.pop(key, None)
    else:
        container[key] = saved


_UNPACKERS: dict = {}


def check_unpacking(items, count: int) -> None:
    """Raise what ``a, b, ... = items`` (``count`` names) raises in Python, else nothing.

    Generated code reads the names as ``items[0]``, ``items[1]``...; this check, made first, keeps
    Python's ``ValueError`` for the wrong number of values (and its ``TypeError`` for a value that
    cannot be unpacked), with Python's own message.

    Example::

        >>> check_unpacking([1.0, 2.0], 2)
    """
    unpack = _UNPACKERS.get(count)
    if unpack is None:
        namespace: dict = {}
        targets = ", ".join(f"v{i}" for i in range(count)) + ","
        exec(f"def unpack(items):\n    {targets} = items\n", namespace)   # Python's own unpacking
        unpack = _UNPACKERS[count] = namespace["unpack"]
    unpack(items)
    _check_positional(items)


def check_starred_unpacking(items, before: int, after: int) -> None:
    """Raise what ``a, *rest, b = items`` (``before`` names, a starred one, ``after`` names) raises, else nothing.

    Generated code reads the names as ``items[0]`` ... ``items[-1]``; this check keeps Python's own
    ``ValueError`` (``not enough values to unpack (expected at least 2, got 1)``) and ``TypeError``.

    Example::

        >>> check_starred_unpacking([1.0, 2.0, 3.0], 1, 1)
    """
    key = ("*", before, after)
    unpack = _UNPACKERS.get(key)
    if unpack is None:
        targets = ", ".join([f"v{i}" for i in range(before)] + ["*rest"] + [f"w{i}" for i in range(after)])
        namespace: dict = {}
        exec(f"def unpack(items):\n    {targets} = items\n", namespace)   # Python's own unpacking
        unpack = _UNPACKERS[key] = namespace["unpack"]
    unpack(items)
    _check_positional(items)


def check_reduce_items(items) -> None:
    """Raise what ``functools.reduce(fn, items)`` (no initial value) raises for an empty ``items``, else nothing.

    Example::

        >>> check_reduce_items([1.0])
    """
    if len(items) == 0:
        raise TypeError("reduce() of empty iterable with no initial value")


def _check_positional(items) -> None:
    """Refuse what unpacking reads otherwise than ``items[0], items[1], ...``: a dict gives its keys."""
    if _positional(items):
        return
    raise UnsupportedValueError(
        f"unpacking a {type(items).__name__} in a differentiated function (`a, b = items`): srcad reads the names "
        f"by position, `items[0]`, `items[1]`, ..., which for a {type(items).__name__} is not what unpacking gives "
        f"(a dict gives its keys); unpack a list or tuple: `a, b = list(items)`, or read the entries by key")


def joined_lists_error() -> UnsupportedValueError:
    """The error for ``+`` or ``*`` that made a list or tuple (``[x] + ys``, ``[x] * 2``), met by the rules of
    those operators, which are NumPy's: they would place a list's derivatives wrongly.

    Example::

        >>> type(joined_lists_error()).__name__
        'UnsupportedValueError'
    """
    return UnsupportedValueError(
        "`+` joined two lists or tuples (or `*` repeated one): srcad differentiates `+` and `*` of arrays and "
        "numbers only, and a list's derivative would be misplaced; build the list item by item instead "
        "(`zs = list(xs)`, then `zs.append(v)` for each new item), or join arrays with `np.concatenate`")


def sequence_length(items) -> int:
    """``len(items)`` when iterating ``items`` gives ``items[0], items[1], ...``; else ``UnsupportedValueError``.

    Example::

        >>> sequence_length([1.0, 2.0]), sequence_length(np.zeros((3, 2)))
        (2, 3)
    """
    if _positional(items):
        return len(items)
    kind = type(items).__name__
    if isinstance(items, Mapping):
        raise UnsupportedValueError(
            f"iterating over a {kind} directly in a differentiated function (a loop, a comprehension, or "
            f"sum/min/max/sorted/tuple/list/zip/enumerate of it); iterate over its keys explicitly: "
            f"`for key in d.keys():`, `for key, value in d.items():` or `for value in d.values():`")
    raise UnsupportedValueError(
        f"iterating over a {kind} in a differentiated function: srcad reads what a loop iterates over by "
        f"position, so it iterates over lists, tuples, ranges and arrays only; make a list before calling f "
        f"(`f(list(items))`)")


def _positional(items) -> bool:
    """Whether iterating or unpacking ``items`` gives ``items[0], items[1], ...`` (not a dict's keys)."""
    return isinstance(items, (list, tuple, range, str, np.ndarray)) or is_duck_array(items) or (
        isinstance(items, Sequence) and not isinstance(items, Mapping))


def mapping_keys(mapping) -> List:
    """The keys of the dict ``mapping`` (for ``.keys()``, ``.values()`` and ``.items()`` loops), in its order.

    Example::

        >>> mapping_keys({"w": 1.0, "b": 2.0})
        ['w', 'b']
    """
    if isinstance(mapping, Mapping):
        return list(mapping)
    raise UnsupportedValueError(
        f"iterating over the keys of a {type(mapping).__name__}: srcad reads `.keys()`, `.values()`, `.items()` "
        f"and a loop `for k in d:` whose body reads `d[k]` as a dict's keys; pass a dict, or, to loop over a "
        f"list's own items, write `for k in list(d):`")
