"""The Python objects that stand for operators and array methods in the rule registry.

Contract: ``BINARY`` and ``UNARY`` map gast operator node types to the
``operator`` module functions that key their rules; ``METHODS`` maps ndarray
method names to the NumPy functions whose rules they share, with how to turn
the method's extra positional arguments into that function's arguments.

Example::

    >>> import gast, operator
    >>> BINARY[gast.Mult] is operator.mul
    True
"""
from __future__ import annotations

import operator

import gast
import numpy as np

from .runtime.core import array_copy

BINARY = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod, gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_, gast.BitXor: operator.xor, gast.LShift: operator.lshift, gast.RShift: operator.rshift,
}
UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
         gast.Invert: operator.invert}

# Metadata attributes: reading them never carries a derivative.
METADATA_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes"})

# method name -> (NumPy function, whether extra positional args are packed into one tuple arg)
METHODS = {
    "sum": (np.sum, False), "mean": (np.mean, False), "prod": (np.prod, False),
    "max": (np.max, False), "min": (np.min, False), "std": (np.std, False), "var": (np.var, False),
    "dot": (np.dot, False), "reshape": (np.reshape, True), "transpose": (np.transpose, True),
    "ravel": (np.ravel, False), "flatten": (np.ravel, False), "squeeze": (np.squeeze, False),
    "clip": (np.clip, False), "cumsum": (np.cumsum, False), "cumprod": (np.cumprod, False),
    "copy": (array_copy, False), "swapaxes": (np.swapaxes, False), "trace": (np.trace, False),
    "diagonal": (np.diagonal, False), "repeat": (np.repeat, False), "round": (np.round, False),
    "argmax": (np.argmax, False), "argmin": (np.argmin, False), "argsort": (np.argsort, False),
    "all": (np.all, False), "any": (np.any, False), "astype": (np.asarray, False), "view": (np.asarray, False),
    "conj": (np.conj, False), "conjugate": (np.conj, False),
}
