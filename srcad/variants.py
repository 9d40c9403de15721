"""Which specialised variant of a derivative a call goes to.

Contract: ``all_scalars(args)`` says whether every argument is a Python or
NumPy scalar (the call then goes to the variant generated knowing it, with
no broadcasting helpers); ``float_ranks(args)`` is the tuple of the
arguments' ranks when all are float arrays or scalars, else None (the key of
the variant generated for those ranks); ``indexes_elements(f)`` says whether
a loop of ``f`` stores into arrays element by element and
``multiplies_arrays(f)`` whether it writes a matrix product: the functions
for which rank variants pay (elsewhere the general derivative is as good).
``variadic_variant`` says which variant a call of a derivative of
``f(*xs, **kw)`` goes to (one per number of arguments and keyword names)
and ``regroup`` groups its gradients back (``wrt='xs'`` gives a tuple).

Example::

    >>> import numpy as np
    >>> float_ranks((np.ones((2, 3)), 1.5))
    (2, 0)
"""
from __future__ import annotations

import inspect
from typing import Optional, Sequence, Tuple

import gast
import numpy as np

from .errors import SrcadError, WrtError
from .frontend import syntax
from .frontend.source import parse_function
from .passes.star_arguments import variadic_names

_SCALAR_TYPES = frozenset({float, int, np.float64, np.float32})


def float_ranks(args) -> Optional[Tuple[int, ...]]:
    """Each argument's rank when all are float arrays or scalars (else None: no specialisation)."""
    ranks = []
    for arg in args:
        kind = arg.__class__
        if kind is np.ndarray:
            if arg.dtype.kind != "f":
                return None
            ranks.append(arg.ndim)
        elif kind in _SCALAR_TYPES:
            ranks.append(0)
        else:
            return None
    return tuple(ranks)


def indexes_elements(func) -> bool:
    """Whether a loop of ``func`` stores into an array element by element (``A[i, j] = ...``)."""
    try:
        tree = parse_function(func).tree
    except SrcadError:
        return False
    for loop in gast.walk(tree):
        if isinstance(loop, (gast.For, gast.While)):
            for node in gast.walk(loop):
                targets = node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, gast.AugAssign) else []
                if any(isinstance(t, gast.Subscript) for t in targets):
                    return True
    return False


def multiplies_arrays(func) -> bool:
    """Whether ``func`` writes ``a @ b``, ``np.dot(a, b)`` or ``np.matmul(a, b)``: a product whose gradient a
    variant for known ranks writes out (``W.T @ g``) instead of testing the ranks at run time."""
    try:
        tree = parse_function(func).tree
    except SrcadError:
        return False
    for node in gast.walk(tree):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.MatMult):
            return True
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in ("dot", "matmul") and len(node.args) == 2:
            return True
    return False


def all_scalars(args) -> bool:
    """Whether every argument is a Python or NumPy scalar."""
    for arg in args:
        if arg.__class__ not in _SCALAR_TYPES:
            return False
    return True


def variadic_variant(func, prefix: int, requested_wrt, arguments: int, keywords: Sequence[str]):
    """How a call of a derivative of ``f(*xs, **kw)`` with ``arguments`` positional arguments (after the
    ``prefix`` given already) and the extra ``keywords`` is differentiated: ``(variadic, names, wrt, groups)``
    where ``variadic`` is the option of the variant to build (``passes/star_arguments``), ``names`` maps each
    keyword to the variant's parameter, ``wrt`` lists the variant's wrt names and ``groups`` says how its
    gradients regroup into the requested ones (``('one', name)``, ``('tuple', names)`` for ``xs``,
    ``('dict', {key: name})`` for ``kw``).

    Example::

        >>> def f(a, *xs):
        ...     return a * sum(xs)
        >>> variadic_variant(f, 0, ("xs", 0), 3, ())[2]
        ('xs_0', 'xs_1', 'a')
    """
    named, keyword_only, star, double = _parameter_kinds(func)
    count = max(0, prefix + arguments - len(named)) if star else 0
    extra = tuple(sorted(keywords)) if double else ()
    positional, names = written_out(func, count, extra)
    entries = list(requested_wrt) if isinstance(requested_wrt, (tuple, list)) else [requested_wrt]
    flat, groups = [], []
    visible = named[prefix:] + list(positional)
    for entry in entries:
        if isinstance(entry, int) and not isinstance(entry, bool) and -len(visible) <= entry < len(visible):
            groups.append(("one", visible[entry]))
        elif entry == star and star:
            groups.append(("tuple", list(positional)))
        elif entry == double and double:
            groups.append(("dict", dict(names)))
        elif isinstance(entry, str) and (entry in named + keyword_only or "." in entry):
            groups.append(("one", entry))
        elif isinstance(entry, str) and entry in names:
            groups.append(("one", names[entry]))
        else:
            raise WrtError(f"wrt={entry!r} names no argument of this call of {func.__name__}: it got "
                           f"{arguments} positional argument(s) and the keywords {sorted(keywords)}; name a "
                           f"parameter, a position, `{star or double}`, or one of the keywords")
    for kind, held in groups:
        for name in ([held] if kind == "one" else held if kind == "tuple" else held.values()):
            if name not in flat:
                flat.append(name)
    return (count, extra), names, tuple(flat), groups


def _parameter_kinds(func):
    """(positional names, keyword-only names, the ``*`` name or None, the ``**`` name or None) of ``func``."""
    signature = inspect.signature(func).parameters.values()
    return ([p.name for p in signature if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)],
            [p.name for p in signature if p.kind == p.KEYWORD_ONLY],
            next((p.name for p in signature if p.kind == p.VAR_POSITIONAL), None),
            next((p.name for p in signature if p.kind == p.VAR_KEYWORD), None))


def written_out(func, count: int, keywords: Sequence[str]):
    """The parameters the variant of ``f(*xs, **kw)`` for ``count`` arguments and ``keywords`` adds: the
    positional ones (``xs_0``...) and a dict from each keyword to its parameter (``passes/star_arguments``)."""
    _, _, star, double = _parameter_kinds(func)
    taken = sorted(syntax.names_in(parse_function(func).tree))
    return variadic_names(taken, star, count if star else 0, keywords if double else ())


def regroup(gradients: tuple, flat: Sequence[str], groups, as_tuple: bool):
    """The gradients of a variadic variant (one per name in ``flat``) grouped as ``variadic_variant`` said."""
    by_name = dict(zip(flat, gradients))
    entries = tuple(by_name[held] if kind == "one" else tuple(by_name[n] for n in held) if kind == "tuple"
                    else {key: by_name[n] for key, n in held.items()} for kind, held in groups)
    return entries if as_tuple or len(entries) != 1 else entries[0]
