"""What a value may share memory with, for the ``views`` pass: a table of NumPy's views.

Contract: ``relation(value, objects, local, containers)`` lists, for
``viewer = value``, each name whose memory the viewer may be part of, with
the expression that gives the viewer's value again from it (``refresh``)
and a function that writes the viewer's value back into it (``writeback``),
or None where srcad does not know one.  Every NumPy function or method that
can return a view is listed; a call srcad cannot see into (another module's
helper, an unknown method) may return a view of any argument.  Container
literals (``[y]``, ``{"a": y}``) are entries the other way round (``held``).
``call_of`` builds a call of a NumPy function or runtime helper that
``bind_wanted`` later binds to a name.  Nothing here changes a tree.

Example: for ``B = A.reshape(3)``, ``relation`` gives ``A`` with the refresh
``A.reshape(3)`` and a writeback ``A[...] = np.reshape(B, np.shape(A))``.
"""
from __future__ import annotations

from typing import Callable, List, Set

import gast
import numpy as np

from .. import runtime
from ..frontend import syntax
from ..operators import METADATA_ATTRIBUTES
from ..templates import is_nondifferentiable, lookup
from .blocks import RUNTIME_PASSES_ON

# How a viewer's value is written back into its base: a function of (viewer name, base name, link value).
Writeback = Callable[[str, str, object], List]


WANTS = "wants"   # annotation of a generated call: the function it calls, bound by ``bind_wanted``


def call_of(function, args, keywords=()):
    """A call of a NumPy function or runtime helper, to be bound to a name by ``bind_wanted``."""
    node = syntax.call(syntax.name(getattr(function, "__name__", "f")), list(args), list(keywords))
    syntax.annotate(node, WANTS, function)
    return node


def bind_wanted(nodes, bindings) -> None:
    """Give every call ``call_of`` made a name bound to its function (``np.reshape``, ``copied``)."""
    for node in nodes:
        for sub in gast.walk(node):
            function = syntax.annotation(sub, WANTS) if isinstance(sub, gast.Call) else None
            if function is None:
                continue
            if _is_numpy(function) and getattr(np, function.__name__, None) is function:
                module = bindings.bind("np", np)
                sub.func = syntax.dotted(f"{module}.{function.__name__}")
                syntax.annotate(sub.func.value, "ref", np)
            else:
                sub.func = syntax.name(bindings.bind(function.__name__, function))
            syntax.annotate(sub.func, "ref", function)


def _reshaped(viewer, base, value):
    return [_store_all(base, call_of(np.reshape, [syntax.name(viewer), call_of(np.shape, [syntax.name(base)])]))]


def _transposed(axes):
    def writeback(viewer, base, value):
        args = [syntax.name(viewer)]
        if axes is not None:
            args.append(call_of(np.argsort, [syntax.clone(axes)]))
        return [_store_all(base, call_of(np.transpose, args))]
    return writeback


def _reapplied(function, arguments):
    """The base is ``function(viewer, *arguments)``: for self-inverse or swapped-argument views."""
    def writeback(viewer, base, value):
        return [_store_all(base, call_of(getattr(np, function),
                                         [syntax.name(viewer)] + [syntax.clone(a) for a in arguments]))]
    return writeback


def identity_writeback(viewer, base, value):
    return [syntax.assign(base, call_of(runtime.copied, [syntax.name(viewer)]))]


def element_writeback(index):
    def writeback(viewer, base, value):
        target = gast.Subscript(value=syntax.name(base), slice=syntax.clone(index), ctx=gast.Store())
        return [gast.Assign(targets=[target], value=syntax.name(viewer), type_comment=None)]
    return writeback


def _store_all(base, value):
    target = gast.Subscript(value=syntax.name(base), slice=syntax.constant(Ellipsis), ctx=gast.Store())
    return gast.Assign(targets=[target], value=value, type_comment=None)


# NumPy functions (and the methods of the same name) whose result is a view of their first argument
# covering all of it, with the way back; a keyword they do not list (``order=``) makes the link inexact.
_RESHAPES = {"reshape", "ravel", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d",
             "asarray", "asanyarray", "ascontiguousarray", "view"}
_KEYWORDS = {"reshape": {"newshape", "shape"}, "squeeze": {"axis"}, "expand_dims": {"axis"}, "flip": {"axis"},
             "asarray": {"dtype"}, "asanyarray": {"dtype"}, "ascontiguousarray": {"dtype"}}
# NumPy functions that may return a view of an argument without srcad knowing the way back
_OTHER_VIEWS = {"real", "imag", "diagonal", "diag", "broadcast_to", "broadcast_arrays", "split", "array_split",
                "hsplit", "vsplit", "dsplit", "rot90", "require", "asfortranarray", "matrix_transpose",
                "permute_dims", "unstack", "flatiter", "atleast_1d", "nan_to_num", "lib", "trim_zeros",
                "select", "choose", "compress", "extract"}
_FRESH_BUILTINS = {"len", "range", "float", "int", "abs", "round", "bool", "print", "isinstance", "divmod", "pow"}
_CONTAINER_BUILTINS = {"tuple", "list", "sorted", "dict", "set", "frozenset", "min", "max"}
_FRESH_METHODS = {"copy", "flatten", "sum", "mean", "prod", "max", "min", "std", "var", "dot", "clip", "cumsum",
                  "cumprod", "trace", "repeat", "round", "argmax", "argmin", "argsort", "all", "any", "tolist"}
_FRESH_HELPERS = (runtime.copied, runtime.zeros_like, runtime.filled_like, runtime.array_copy)


def relation(value, objects, local: Set[str], containers: Set[str]):
    """``[(base, refresh, writeback, operands, held, base_index)]`` for ``viewer = value``.

    ``held`` entries are the other way round: ``value`` is a container literal
    holding the name ``base`` at ``base_index`` (see ``links_of``).
    """
    if isinstance(value, gast.Name):
        return [(value.id, syntax.clone(value), identity_writeback, frozenset(), False, None)]
    if isinstance(value, gast.Subscript):
        if isinstance(value.value, gast.Name):
            return [(value.value.id, syntax.clone(value), element_writeback(value.slice),
                     frozenset(syntax.loaded_names(value.slice)), False, None)]
        return _may_view(value, value.value, objects, local, containers)
    if isinstance(value, gast.Attribute):
        if value.attr in METADATA_ATTRIBUTES or not _rooted_locally(value.value, local):
            return []
        if value.attr == "T" and isinstance(value.value, gast.Name):
            return [(value.value.id, syntax.clone(value), _transposed(None), frozenset(), False, None)]
        return _may_view(value, value.value, objects, local, containers)
    if isinstance(value, gast.Call):
        return _call_relation(value, objects, local, containers)
    if isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
        return _held(value, objects, local, containers)
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult)):
        found = []
        for side in (value.left, value.right):
            if isinstance(side, (gast.List, gast.Tuple)):   # [np.sum(z)] + [w[0]]: what its items may be
                found += [(base, None, None, frozenset(), True, None)
                          for base, *_ in _held(side, objects, local, containers)]
            elif isinstance(side, gast.Name) and side.id in containers:
                found.append((side.id, None, None, frozenset(), False, None))
        return found
    if isinstance(value, gast.IfExp):
        return [(base, None, None, frozenset(), False, None)
                for arm in (value.body, value.orelse) for base, *_ in relation(arm, objects, local, containers)]
    return []


def _rooted_locally(node, local) -> bool:
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return isinstance(node, gast.Name) and node.id in local


def _may_view(value, inner, objects, local, containers):
    """``value`` may view whatever ``inner`` may: evaluated again it is right, written back it is unknown."""
    return [(base, syntax.clone(value), None, frozenset(syntax.loaded_names(value)) - {base}, False, None)
            for base, *_ in relation(inner, objects, local, containers)] or (
        [(inner.id, syntax.clone(value), None, frozenset(), False, None)] if isinstance(inner, gast.Name) else [])


def _held(value, objects, local, containers):
    found = []
    keys = value.keys if isinstance(value, gast.Dict) else [syntax.constant(k) for k in range(len(value.elts))]
    items = value.values if isinstance(value, gast.Dict) else value.elts
    for key, item in zip(keys, items):
        if isinstance(item, gast.Name):
            writable = not isinstance(value, gast.Tuple) and isinstance(key, gast.Constant)
            found.append((item.id, None, element_writeback(key) if writable else None, frozenset(), True, key))
        else:
            found += held_through(item, objects, local, containers, key)
    return found


def held_through(item, objects, local, containers, key=None):
    """Held entries for a container holding ``item``, an expression that may be (a view of) an array some
    names hold (``[h[0]]``, ``[v if c else w]``): the container holds what they may, with no way back."""
    return [(base, None, None, frozenset(), True, key)
            for base, *_ in relation(item, objects, local, containers)]


def _call_relation(call, objects, local, containers):
    func = call.func
    function = syntax.annotation(func, "ref")
    method = isinstance(func, gast.Attribute) and function is None
    if method:
        receiver = func.value
        name = func.attr
        shallow = name == "copy" and isinstance(receiver, gast.Name) and receiver.id in containers
        if name in _FRESH_METHODS and not call.keywords and not shallow:
            return []   # (a list's or dict's ``.copy()`` is shallow: it holds the same arrays)
        arguments = [receiver] + list(call.args)
    else:
        if function is None:
            return _unknown(call)
        name = getattr(function, "__name__", "")
        arguments = list(call.args)
        if isinstance(function, np.ufunc) or getattr(function, "__module__", None) == "math" \
                or any(function is helper for helper in _FRESH_HELPERS):
            return []
        if getattr(function, "__module__", None) == "builtins" and name in _FRESH_BUILTINS:
            return []
        if getattr(function, "__module__", None) == "builtins" and name in _CONTAINER_BUILTINS:
            # a new container holding the argument's items (or one of them): shares with the argument only
            return [(a.id, None, None, frozenset(), False, None) for a in call.args if isinstance(a, gast.Name)]
        if is_nondifferentiable(function) and not _is_numpy(function):
            return []   # srcad's own index and test helpers: new integers and booleans
        if (getattr(function, "__module__", None) or "").startswith("srcad.runtime"):
            passed = RUNTIME_PASSES_ON.get(name)   # generated code, differentiated again
            if passed is None or len(call.args) <= passed or not isinstance(call.args[passed], gast.Name):
                return []
            return [(call.args[passed].id, syntax.clone(call), None, frozenset(), False, None)]
        if getattr(function, "__module__", "") and not _is_numpy(function):
            return _unknown(call)
        if name not in _RESHAPES and name not in ("transpose", "swapaxes", "moveaxis", "flip", "fliplr", "flipud") \
                and name not in _OTHER_VIEWS and (lookup(function, "reverse") or is_nondifferentiable(function)):
            return []   # a NumPy function with a rule: it computes a new array
    if not arguments or not isinstance(arguments[0], gast.Name):
        return _unknown(call)
    base = arguments[0].id
    rest = arguments[1:]
    operands = frozenset().union(*[syntax.loaded_names(a) for a in rest + [k.value for k in call.keywords]]) \
        if rest or call.keywords else frozenset()
    keywords = {k.arg for k in call.keywords}
    writeback = None
    if name in _RESHAPES and keywords <= _KEYWORDS.get(name, set()) and not (name == "view" and rest):
        writeback = _reshaped
    elif name == "transpose" and not keywords:
        axes = None if not rest else (rest[0] if len(rest) == 1 else gast.Tuple(elts=rest, ctx=gast.Load()))
        writeback = _transposed(axes)
    elif name == "swapaxes" and len(rest) == 2 and not keywords:
        writeback = _reapplied("swapaxes", rest)
    elif name == "moveaxis" and len(rest) == 2 and not keywords:
        writeback = _reapplied("moveaxis", [rest[1], rest[0]])
    elif name in ("flip", "fliplr", "flipud") and keywords <= {"axis"}:
        writeback = _reapplied(name, rest) if not keywords else None
    if not method and not _is_numpy(function):
        return _unknown(call)
    return [(base, syntax.clone(call), writeback, operands, False, None)] + [
        (a.id, syntax.clone(call), None, operands - {a.id}, False, None) for a in rest if isinstance(a, gast.Name)]


def _is_numpy(function) -> bool:
    module = getattr(function, "__module__", None) or getattr(type(function), "__module__", "")
    return module.split(".")[0] == "numpy"


def _unknown(call):
    """A call srcad cannot see into may return (a view of) any argument: no refresh, no way back."""
    names = set()
    resolved = syntax.annotation(call.func, "ref") is not None   # a function of a module holds no array of f's
    for node in ([] if resolved else [call.func]) + list(call.args) + [k.value for k in call.keywords]:
        if isinstance(node, gast.Attribute):
            node = node.value
        if isinstance(node, gast.Name):
            names.add(node.id)
    return [(name, None, None, frozenset(), False, None) for name in sorted(names)]
