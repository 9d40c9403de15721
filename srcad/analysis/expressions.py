"""Facts about single expressions of a tree, shared by the analyses and the passes.

Contract: pure functions of a node (and, where a call's meaning matters, of
the generated module's ``objects``, its name-to-object bindings); none
changes the tree.
- ``callee_object(func, objects)``: the Python object a call's function
  expression denotes (``np.sin`` for ``np.sin``), or None;
- ``is_fresh(value, objects)``: the value is certainly a new array (or an
  immutable scalar) that nobody else holds;
- ``constant_index(index, int_names)``: an index that is never fancy (ints,
  slices, ``None``, ``...``, loop indices);
- ``int_index(node, int_names)``: an index that is an int;
- ``range_indices(body)``: names that only ever hold ints (``for`` targets
  over ``range``, never reassigned);
- ``same_value(a, b, objects)``: the two expressions compute bitwise the same value:
  equal trees, up to the order of the operands of ``*`` (IEEE products commute
  exactly) at any depth.

Example: ``constant_index(A[i, 1:].slice, {"i"})`` is True;
``is_fresh(a * b)`` is True, ``is_fresh(a)`` is False.
"""
from __future__ import annotations

from typing import Dict

import gast
import numpy as np

from .. import runtime
from ..frontend import syntax

FRESH_VALUES = (gast.BinOp, gast.UnaryOp)


def callee_object(func, objects: Dict):
    """The object a call's function expression denotes, through the module's bindings."""
    if isinstance(func, gast.Name):
        return objects.get(func.id)
    if isinstance(func, gast.Attribute):
        owner = callee_object(func.value, objects)
        return getattr(owner, func.attr, None) if owner is not None else None
    return None



# Runtime helpers that always return a new array.
_FRESH_HELPERS = (runtime.matmul_lhs_grad, runtime.matmul_rhs_grad, runtime.dot_lhs_grad,
                  runtime.dot_rhs_grad, runtime.zeros_like, runtime.copied, runtime.array_copy)


def is_fresh(value, objects=None) -> bool:
    """Whether ``value`` is certainly a new array (or an immutable scalar) nobody else holds.

    ``objects`` (the module's bindings) lets calls be recognised: ufuncs and
    some runtime helpers always allocate their result.
    """
    if isinstance(value, FRESH_VALUES):
        return True
    if not (isinstance(value, gast.Call) and value.args):
        return False
    if isinstance(value.func, gast.Name) and value.func.id.startswith("unbroadcast"):
        return is_fresh(value.args[0], objects)
    if objects is not None:
        function = callee_object(value.func, objects)
        if isinstance(function, np.ufunc) and not value.keywords:
            return True
        return any(function is helper for helper in _FRESH_HELPERS)
    return False


def constant_index(index, int_names=frozenset()) -> bool:
    """An index that is never fancy: ints, slices, ``None``, ``...``, and ``int_names`` (loop indices)."""
    if isinstance(index, gast.Constant):   # a string is a dict key: plain indexing too
        return index.value is None or index.value is Ellipsis or isinstance(index.value, (int, str))
    if isinstance(index, gast.Name):
        return index.id in int_names
    if isinstance(index, gast.Slice):
        return True
    if isinstance(index, gast.Tuple):
        return all(constant_index(elt, int_names) for elt in index.elts)
    if isinstance(index, gast.UnaryOp):
        return constant_index(index.operand, int_names)
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv,
                                                               gast.Mod)):
        return constant_index(index.left, int_names) and constant_index(index.right, int_names)
    return False


def int_index(node, int_names) -> bool:
    """An index that is an int: int constants and ``int_names`` (loop indices), under ``+ - * // %`` and
    unary ``-``/``+``."""
    if isinstance(node, gast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, gast.Name):
        return node.id in int_names
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return int_index(node.operand, int_names)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)):
        return int_index(node.left, int_names) and int_index(node.right, int_names)
    return False


def range_indices(body):
    """Names that only ever hold ints: the targets of ``for ... in range(...)`` loops, never reassigned."""
    targets = {s.target.id for s in syntax.iter_statements(body)
               if isinstance(s, gast.For) and isinstance(s.target, gast.Name)
               and isinstance(s.iter, gast.Call) and getattr(s.iter.func, "id", "") == "range"}
    reassigned = {s.targets[0].id for s in syntax.iter_statements(body)
                  if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)}
    return frozenset(targets - reassigned)



def _pure(function) -> bool:
    """A NumPy function (not a random one) or a srcad runtime helper: the same arguments, the same value."""
    module = getattr(function, "__module__", None) or ""
    if isinstance(function, np.ufunc):
        return True
    return (module == "numpy" or module.startswith(("numpy._core", "numpy.linalg", "srcad.runtime"))) \
        and callable(function)


def same_value(left, right, objects: Dict) -> bool:
    """Whether expressions ``left`` and ``right`` compute the same value bit for bit (``a * b`` and ``b * a``).

    Names, number constants, attributes, arithmetic, and calls of NumPy
    functions and srcad helpers (bound in ``objects``) are compared; anything
    else is never the same (a subscript may read an array changed in between).

    Example::

        >>> same_value(gast.parse("f(a * b)").body[0].value, gast.parse("f(b * a)").body[0].value,
        ...            {"f": np.sin})
        True
    """
    if left.__class__ is not right.__class__:
        return False
    if isinstance(left, gast.Name):
        return left.id == right.id
    if isinstance(left, gast.Constant):
        return left.value.__class__ is right.value.__class__ and repr(left.value) == repr(right.value)   # -0.0
    if isinstance(left, gast.Attribute):
        return left.attr == right.attr and same_value(left.value, right.value, objects)
    if isinstance(left, gast.UnaryOp):
        return left.op.__class__ is right.op.__class__ and same_value(left.operand, right.operand, objects)
    if isinstance(left, gast.BinOp):
        if left.op.__class__ is not right.op.__class__:
            return False
        if same_value(left.left, right.left, objects) and same_value(left.right, right.right, objects):
            return True
        return isinstance(left.op, gast.Mult) and same_value(left.left, right.right, objects) \
            and same_value(left.right, right.left, objects)
    if isinstance(left, gast.Call):
        return (not left.keywords and not right.keywords and len(left.args) == len(right.args)
                and same_value(left.func, right.func, objects) and _pure(callee_object(left.func, objects))
                and all(same_value(a, b, objects) for a, b in zip(left.args, right.args)))
    return False
