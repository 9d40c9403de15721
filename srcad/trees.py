"""Pytrees: nested dicts, lists and tuples of arrays and numbers, as the optimisers see them.

Contract:
- A pytree is a leaf (anything that is not a dict, list or tuple) or a dict,
  list or tuple (named tuples included) of pytrees.
- ``tree_map(fn, tree, *rest)`` applies ``fn`` leaf by leaf and rebuilds
  ``tree``'s structure; a structure mismatch raises ``ValueError`` naming the
  path.  ``tree_leaves(tree)`` lists the leaves depth first.
- ``check_leaves``, ``leaf_like``, ``LeafOutputs`` and ``unzip`` are the
  pieces ``srcad.optim`` builds its update rules from.

Example::

    >>> tree_leaves(tree_map(lambda a: 2 * a, {"w": [1.0, 2.0], "b": 3.0}))
    [2.0, 4.0, 6.0]
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, List, Tuple

import numpy as np

Tree = Any  # a leaf (array or number) or a dict / list / tuple of trees


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, (dict, list, tuple))


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"a dict with keys [{', '.join(sorted(map(repr, value)))}]"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of length {len(value)}"
    return "a leaf" if _is_leaf(value) else f"a {type(value).__name__}"


def tree_map(fn: Callable[..., Any], tree: Tree, *rest: Tree, path: str = "tree") -> Tree:
    """``fn`` applied to each leaf of ``tree`` and the matching leaves of ``rest``.

    The result has ``tree``'s structure; every tree in ``rest`` must have the
    same structure (dicts may list their keys in another order), or
    ``ValueError`` names the first place they differ, starting from ``path``.

    Example::

        >>> tree_map(lambda a, b: a + b, {"x": 1.0, "y": [2.0, 3.0]}, {"y": [10.0, 20.0], "x": 5.0})
        {'x': 6.0, 'y': [12.0, 23.0]}
    """
    for other in rest:
        same = (_is_leaf(other) if _is_leaf(tree) else
                isinstance(other, dict) and set(other) == set(tree) if isinstance(tree, dict) else
                isinstance(other, (list, tuple)) and len(other) == len(tree))
        if not same:
            raise ValueError(f"structure mismatch at {path}: expected {_describe(tree)}, "
                             f"got {_describe(other)}")
    if _is_leaf(tree):
        return fn(tree, *rest)
    keys = list(tree) if isinstance(tree, dict) else range(len(tree))
    items = [tree_map(fn, tree[k], *(other[k] for other in rest), path=f"{path}[{k!r}]") for k in keys]
    if isinstance(tree, dict):
        return dict(zip(keys, items)) if type(tree) is dict else type(tree)(zip(keys, items))
    return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)


def tree_leaves(tree: Tree) -> List[Any]:
    """The leaves of ``tree``, depth first (dicts in their key order).

    Example::

        >>> tree_leaves({"a": (1.0, 2.0), "b": [3.0]})
        [1.0, 2.0, 3.0]
    """
    if _is_leaf(tree):
        return [tree]
    children = tree.values() if isinstance(tree, dict) else tree
    return [leaf for child in children for leaf in tree_leaves(child)]


def check_leaves(tree: Tree, path: str) -> None:
    """Raise ``TypeError`` naming the first leaf of ``tree`` that is not an array or a real number."""
    if not _is_leaf(tree):
        for key, child in (tree.items() if isinstance(tree, dict) else enumerate(tree)):
            check_leaves(child, f"{path}[{key!r}]")
    elif isinstance(tree, bool) or not isinstance(tree, (np.ndarray, np.generic, numbers.Real)):
        raise TypeError(f"{path} is a {type(tree).__name__}; leaves must be NumPy arrays or real numbers")


def leaf_like(value: Any, param: Any) -> Any:
    """``value`` in the same kind of leaf as ``param`` (float dtype, NumPy scalar or Python float)."""
    if isinstance(param, np.ndarray):
        dtype = param.dtype if param.dtype.kind == "f" else None
        return np.array(value, dtype=dtype)
    if isinstance(param, np.generic) and param.dtype.kind == "f":
        return type(param)(value)
    return float(value)


class LeafOutputs:
    """The tuple a leaf rule returns, kept opaque so ``tree_map`` does not descend into it."""
    __slots__ = ("values",)

    def __init__(self, values: Tuple[Any, ...]):
        self.values = values


def unzip(outs: Tree, n: int) -> List[Tree]:
    """``n`` trees from a tree of ``LeafOutputs`` leaves: the k-th holds each leaf's ``values[k]``."""
    return [tree_map(lambda out, k=k: out.values[k], outs) for k in range(n)]
