"""NumPy spellings with no rule of their own, rewritten by ``normalize`` into calls that have rules.

Contract:
- ``index_concatenation(unit, node)``: ``np.r_[...]`` or ``np.c_[...]`` (a
  subscript of that object) becomes ``np.concatenate([...], axis=...)`` with
  one piece per item: ``concat_item(item)`` (made at least 1-d, or as a
  directive says; a whole index that may be a tuple is checked at run time),
  and for a slice ``a:b:s``, ``np.arange(a, b, s)``, or ``np.linspace(a, b,
  n)`` for a literal imaginary step ``nj``.  A slice whose step is not
  written in the source goes through ``index_range``.  A leading directive
  (``'0,2'``, ``'1,2,0'``, ``'-1'``) must be a literal or a module-level
  string; ``'r'``/``'c'`` (matrix results), a directive anywhere else, a
  malformed one and other ``AxisConcatenator`` objects raise.
- ``einsum_call(unit, node)``: ``np.einsum`` in operand-sublist form with
  literal sublists (``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``) becomes the
  subscripts form (``np.einsum('ab,bc->ac', a, b)``); more than three operands
  become a chain of einsums of at most three, each keeping the labels later
  operands or the output need; a first argument that may be either
  (sublists held in variables) goes through ``einsum_first``, which srcad
  does not differentiate.  Other keywords are kept (``out=``
  only on the last einsum of a chain).
- ``callee(unit, function)``: the node that names ``function`` in generated code.
Errors are ``SrcadError`` at the user's line, with what to write instead.

Example: ``np.r_[x, 0:3]`` becomes ``np.concatenate([concat_item(x), np.arange(0, 3)])``.
"""
from __future__ import annotations

import numpy as np

import gast

from ..errors import SrcadError
from ..frontend import syntax
from ..frontend.syntax import annotate, annotation
from ..runtime.linalg import einsum_first
from ..runtime.shapes import concat_item, index_range

_CONCATENATOR = type(np.r_).__mro__[1]   # numpy's AxisConcatenator
_MATRIX_HINT = "join the arrays with np.concatenate or np.stack (srcad does not differentiate np.matrix results)"


def callee(unit, function):
    """``np.<name>`` for a NumPy function, else a name bound to ``function``; annotated with its ``ref``."""
    if getattr(np, function.__name__, None) is function:
        node = syntax.dotted(f"{unit.bindings.bind('np', np)}.{function.__name__}")
        annotate(node.value, "ref", np)
    else:
        node = syntax.name(unit.bindings.bind(function.__name__, function))
    annotate(node, "ref", function)
    return node


def _call(unit, function, args, keywords=()):
    return gast.Call(func=callee(unit, function), args=list(args),
                     keywords=[gast.keyword(arg=k, value=v) for k, v in keywords])


def _known(node, default=None):
    """The value of a literal, or of a module-level name, in the source (``default`` when not known)."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
        return -node.operand.value
    if isinstance(node, (gast.Tuple, gast.List)):
        values = [_known(elt, _MISSING) for elt in node.elts]
        return default if any(v is _MISSING for v in values) else values
    value = annotation(node, "ref", _MISSING)
    return default if value is _MISSING or callable(value) else value


_MISSING = object()


# np.r_ and np.c_ ------------------------------------------------------------------

def is_index_concatenation(node) -> bool:
    """Whether ``node`` indexes ``np.r_``, ``np.c_`` or another ``AxisConcatenator``."""
    return isinstance(node, gast.Subscript) and isinstance(annotation(node.value, "ref"), _CONCATENATOR)


def index_concatenation(unit, node):
    """``np.r_[items]``/``np.c_[items]`` as ``np.concatenate`` of one piece per item."""
    maker = annotation(node.value, "ref")
    if maker is not np.r_ and maker is not np.c_:
        raise unit.error(node, SrcadError, "srcad differentiates np.r_[...] and np.c_[...] only",
                         "join the arrays with np.concatenate")
    items = list(node.slice.elts) if isinstance(node.slice, gast.Tuple) else [node.slice]
    if not isinstance(node.slice, gast.Tuple) and isinstance(_known(node.slice), str):
        raise unit.error(node, SrcadError, "np.r_ or np.c_ with a string alone builds an np.matrix", _MATRIX_HINT)
    axis, ndmin, trans1d = maker.axis, maker.ndmin, maker.trans1d
    if items and isinstance(_known(items[0]), str):
        axis, ndmin, trans1d = _directive(unit, node, _known(items[0]), (axis, ndmin, trans1d))
        items = items[1:]
    pieces = [_piece(unit, node, item, ndmin, trans1d) for item in items]
    if isinstance(node.slice, (gast.Name, gast.Attribute, gast.Call, gast.Subscript)):   # a tuple at run time?
        pieces[0].keywords.append(gast.keyword(arg="alone", value=syntax.constant(True)))
    keywords = [("axis", syntax.constant(axis))] if axis != 0 else []
    return _call(unit, np.concatenate, [gast.List(elts=pieces, ctx=gast.Load())], keywords)


def _directive(unit, node, text, defaults):
    """(axis, ndmin, trans1d) of a directive, as NumPy reads it."""
    axis, ndmin, trans1d = defaults
    if text in ("r", "c"):
        raise unit.error(node, SrcadError, f"the directive {text!r} makes np.r_ build an np.matrix", _MATRIX_HINT)
    try:
        if "," not in text:
            return int(text), ndmin, trans1d
        parts = text.split(",")
        return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) == 3 else trans1d
    except ValueError:
        raise unit.error(node, SrcadError, f"np.r_/np.c_: unknown directive {text!r}",
                         "write 'axis', 'axis,ndmin' or 'axis,ndmin,trans1d' with integers, e.g. '0,2'") from None


def _piece(unit, node, item, ndmin, trans1d):
    if isinstance(_known(item), str):
        raise unit.error(node, SrcadError, "np.r_/np.c_: a directive string must be the first item",
                         "move it first, e.g. np.r_['0,2', a, b]")
    if isinstance(item, gast.Slice):
        values = gast.copy_location(_slice_values(unit, item), item)
        if ndmin == 1:
            return values   # already 1-d
        item = values
    keywords = [(k, syntax.constant(v)) for k, v, default in (("ndmin", ndmin, 1), ("trans1d", trans1d, -1))
                if v != default]
    return gast.copy_location(_call(unit, concat_item, [item], keywords), item)


def _slice_values(unit, item):
    """``a:b:s`` as np.r_ reads it: ``np.arange(a, b, s)``, ``np.linspace(a, b, n)`` for a step ``nj``."""
    start = item.lower if item.lower is not None else syntax.constant(0)
    step = _known(item.step, _MISSING) if item.step is not None else None
    if step is _MISSING:   # a step computed at run time may be a count (an imaginary number)
        return _call(unit, index_range, [start, item.upper or syntax.constant(None), item.step])
    if isinstance(step, complex):
        return _call(unit, np.linspace, [start, item.upper, syntax.constant(int(abs(step)))])
    stop = item.upper or syntax.constant(None)
    bounds = [stop] if item.lower is None and step is None and item.upper else [start, stop]
    return _call(unit, np.arange, bounds + ([item.step] if step is not None else []))


# np.einsum ------------------------------------------------------------------------

def einsum_call(unit, node):
    """``np.einsum(...)`` in subscripts form with at most three operands per call."""
    args, keywords = list(node.args), list(node.keywords)
    if not args or (isinstance(args[0], gast.Call) and annotation(args[0].func, "ref") is einsum_first):
        return node
    subscripts = _known(args[0])
    if isinstance(subscripts, str):
        if len(args) <= 4:
            return node   # the form the rules take
        operands = args[1:]
    else:
        sublists = [_known(arg) for arg in args[1::2]] + ([_known(args[-1])] if len(args) % 2 else [])
        if len(args) < 2 or not all(isinstance(s, (list, tuple)) for s in sublists):
            first = _call(unit, einsum_first, [args[0]])
            return gast.Call(func=node.func, args=[first] + args[1:], keywords=keywords)
        operands = args[0::2][:len(args) // 2]
        subscripts = _from_sublists(unit, node, sublists, len(operands))
    return _chain(unit, node, subscripts, operands, keywords)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _from_sublists(unit, node, sublists, count):
    """The subscripts string of sublists (``[0, 1], [1, 2], [0, 2]`` is ``'ab,bc->ac'``); the output made explicit."""
    def term(sublist):
        labels = []
        for label in sublist:
            if label is Ellipsis:
                labels.append(".")
            elif isinstance(label, int) and not isinstance(label, bool) and 0 <= label < len(_LETTERS):
                labels.append(_LETTERS[label])
            else:
                raise unit.error(node, SrcadError, f"np.einsum: the sublist label {label!r} is not an int in 0..51",
                                 "label axes with ints from 0 to 51 (or ... for broadcast axes)")
        return "".join(labels)

    inputs = [term(s) for s in sublists[:count]]
    output = term(sublists[count]) if len(sublists) > count else _implicit_output(inputs, key=_LETTERS.index)
    return _spelled(inputs, output)


def _implicit_output(terms, key=None):
    """The output of einsum ``terms`` (``.`` for ``...``) without ``->``: broadcast axes, then labels used once, sorted."""
    joined = "".join(terms).replace(".", "")
    once = sorted((c for c in set(joined) if joined.count(c) == 1), key=key)
    return ("." if any("." in t for t in terms) else "") + "".join(once)


def _chain(unit, node, subscripts, operands, keywords):
    """``np.einsum(subscripts, *operands)`` as einsums of at most three operands."""
    terms, arrow, output = subscripts.replace(" ", "").replace("...", ".").partition("->")
    terms = terms.split(",")
    if len(operands) <= 3 or len(terms) != len(operands):   # a mismatch is NumPy's error to report
        return _einsum(unit, subscripts, operands, keywords)
    output = output if arrow else _implicit_output(terms)
    inner = [kw for kw in keywords if kw.arg != "out"]
    group, rest, values = terms[:3], terms[3:], operands[:3]
    while rest:
        later = "".join(rest) + output
        kept = "".join(dict.fromkeys(c for c in "".join(group) if c in later))
        value = _einsum(unit, _spelled(group, kept), values, inner)
        group, values = [kept] + rest[:2], [value] + operands[len(operands) - len(rest):][:2]
        rest = rest[2:]
    return _einsum(unit, _spelled(group, output), values, keywords)


def _spelled(terms, output):
    return (",".join(terms) + "->" + output).replace(".", "...")


def _einsum(unit, subscripts, operands, keywords):
    call = _call(unit, np.einsum, [syntax.constant(subscripts)] + list(operands))
    call.keywords = [gast.keyword(arg=kw.arg, value=syntax.clone(kw.value)) for kw in keywords]
    return call
