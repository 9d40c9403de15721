"""Pytrees: nested dicts, lists, tuples and containers of arrays and numbers, as gradients and optimisers
see them.

Contract:
- A pytree is a leaf or a dict, list or tuple (named tuples included) of
  pytrees, or a container object: an instance of a class registered with
  ``register_container``, a dataclass, or any other object of a class of the
  user's whose ``__dict__`` holds a pytree.  A container's children are its
  fields but those holding ints, strings, functions or integer arrays, which
  are kept as they are, like JAX's auxiliary data; the fields a gradient is
  taken of are those holding floats, float arrays or pytrees of them
  (``container_fields``).  ``with_fields(obj, fields)`` is a
  copy of ``obj`` (of the same type) with those fields replaced.
- ``register_container(cls, flatten, unflatten)``: ``flatten(obj)`` returns
  ``(fields, aux)``, ``fields`` a dict from attribute name to value (the
  names the differentiated code reads, ``obj.W``), and ``unflatten(aux,
  fields)`` builds an object back.
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

import copy
import dataclasses
import numbers
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from .passes.receivers import is_user_object
from .runtime.dispatch import is_duck_array

Tree = Any  # a leaf (array or number) or a dict / list / tuple / container of trees
_CONTAINERS: Dict[type, Tuple[Callable[[Any], Tuple[Dict[str, Any], Any]], Callable[[Any, Dict[str, Any]], Any]]] = {}


def register_container(cls: type, flatten: Callable[[Any], Tuple[Dict[str, Any], Any]],
                       unflatten: Callable[[Any, Dict[str, Any]], Any]) -> None:
    """Make instances of ``cls`` containers: gradients with respect to one are of ``cls`` too.

    ``flatten(obj)`` returns ``(fields, aux)`` (``fields``: attribute name -> value), and
    ``unflatten(aux, fields)`` builds the object back.

    Example::

        >>> class Pair:
        ...     def __init__(self, W, b): self.W, self.b = W, b
        >>> register_container(Pair, lambda p: ({"W": p.W, "b": p.b}, None), lambda aux, f: Pair(f["W"], f["b"]))
        >>> container_fields(Pair(1.0, 2.0))
        {'W': 1.0, 'b': 2.0}
    """
    if not isinstance(cls, type) or not callable(flatten) or not callable(unflatten):
        raise TypeError("register_container(cls, flatten, unflatten) takes a class and two functions")
    _CONTAINERS[cls] = (flatten, unflatten)


def is_container(value: Any) -> bool:
    """Whether ``value`` is a container object (see the module's contract)."""
    if type(value) in _CONTAINERS:
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True
    if is_duck_array(value):   # a Dask or CuPy array is an array, not an object of fields
        return False
    return is_user_object(value) and isinstance(getattr(value, "__dict__", None), dict)


def _carries_floats(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    if isinstance(value, (float, np.floating)):
        return True
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_carries_floats(item) for item in value)
    if isinstance(value, dict):
        return bool(value) and all(_carries_floats(item) for item in value.values())
    return is_container(value) and bool(container_fields(value))


def _all_fields(value: Any) -> Dict[str, Any]:
    if type(value) in _CONTAINERS:
        return dict(_CONTAINERS[type(value)][0](value)[0])
    if dataclasses.is_dataclass(value):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    return dict(vars(value))


def container_fields(value: Any) -> Dict[str, Any]:
    """A container's fields that hold floats, float arrays or pytrees of them, in their order."""
    return {name: field for name, field in _all_fields(value).items() if _carries_floats(field)}


def _children(value: Any) -> Dict[str, Any]:
    """A container's fields as a pytree's children: all but those that hold no number to map (ints, strings,
    functions...), so trees of other leaves built by ``tree_map`` keep the fields of the tree they came from."""
    return {name: field for name, field in _all_fields(value).items() if not _static(field)}


def _static(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc"
    return value is None or isinstance(value, (bool, int, np.integer, str, bytes)) or callable(value)


def with_fields(value: Any, fields: Dict[str, Any]) -> Any:
    """A copy of container ``value``, of its type, with ``fields`` replaced (the other fields as they are)."""
    if type(value) in _CONTAINERS:
        flatten, unflatten = _CONTAINERS[type(value)]
        children, aux = flatten(value)
        return unflatten(aux, dict(children, **fields))
    new = copy.copy(value)
    for name, field in fields.items():
        object.__setattr__(new, name, field)   # frozen dataclasses too
    return new


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, (dict, list, tuple)) and not is_container(value)


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
    if is_container(tree):   # its fields as a dict, rebuilt as a copy of tree
        fields = _children(tree)
        for other in rest:
            if type(other) is not type(tree):
                raise ValueError(f"structure mismatch at {path}: expected a {type(tree).__name__}, "
                                 f"got {_describe(other)}")
        mapped = tree_map(fn, fields, *({k: _all_fields(o).get(k) for k in fields} for o in rest), path=path)
        return with_fields(tree, mapped)
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
    if is_container(tree):
        tree = _children(tree)
    children = tree.values() if isinstance(tree, dict) else tree
    return [leaf for child in children for leaf in tree_leaves(child)]


def check_leaves(tree: Tree, path: str) -> None:
    """Raise ``TypeError`` naming the first leaf of ``tree`` that is not an array or a real number."""
    if not _is_leaf(tree):
        tree = _children(tree) if is_container(tree) else tree
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
