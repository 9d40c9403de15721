"""The verify switch: every derivative checks itself against central finite differences.

Contract: with ``srcad.config.verify`` on (or ``SRCAD_VERIFY=1`` in the
environment), the first call of a derivative on each argument signature
(types, shapes and dtypes of the arguments, and the keyword names) also runs
``check_grads`` on the primal function at those arguments, in the
derivative's own mode, along one random direction per differentiated
argument, and raises ``VerificationError`` with its report when they
disagree.  Later calls with the same signature cost one dictionary lookup.
The check runs only where central differences mean something: the
differentiated arguments must be floats or floating-point arrays passed by
position; a derivative taken with respect to a global, or called with ``f``'s
own parameters by keyword, is run unchecked.

Cost, the first time a signature is seen: about ``2 k + 1`` evaluations of
``f`` (``k`` differentiated arguments) and one call of a second derivative
object for the same function, built once per process and cached like any
other.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(np.sin(x) ** 2)
    >>> srcad.config.verify = True
    >>> srcad.grad(f)(np.zeros(2))   # checked against finite differences first
    array([0., 0.])
    >>> srcad.config.verify = False
"""
from __future__ import annotations

import numbers

import numpy as np

from .api import VERIFYING, Derivative, use_verifier
from .checking import check_grads
from .errors import VerificationError
from .arguments import parameter_names


def verify_call(derivative: Derivative, args: tuple, kwargs: dict) -> None:
    """Check ``derivative`` at ``args`` against central finite differences; raise on disagreement.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x): return np.sum(np.sin(x))
        >>> verify_call(srcad.grad(f), (np.ones(2),), {})
    """
    func = derivative.func
    positional = parameter_names(func)[0]
    primal_args = args[:derivative._arity]
    if derivative.bound_self is not None:
        primal_args = (derivative.bound_self,) + tuple(primal_args)
    if any(name in positional for name in kwargs) or len(primal_args) < len(positional):
        return   # f's own parameters by keyword, or defaults: not checked
    positions = tuple(positional.index(name) for name in derivative.wrt if name in positional)
    if not positions or not all(_is_float(primal_args[p]) for p in positions):
        return
    try:
        check_grads(func, primal_args, wrt=positions, modes=(derivative.mode,), trials=1)
    except AssertionError as report:
        name = getattr(func, "__qualname__", "f")
        raise VerificationError(
            f"srcad.config.verify: the {derivative.mode}-mode derivative of {name} disagrees with central "
            f"finite differences at these arguments:\n{report}\nThis is a bug in srcad or in a rule you "
            f"registered. `srcad.check_grads({name}, args)` reproduces it; `srcad show` prints the code "
            f"that ran. Until it is fixed, try the other mode (mode='forward' or 'reverse').") from None


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating)) or (isinstance(value, numbers.Real)
                                                       and not isinstance(value, (bool, int, np.integer)))


def verified_call(derivative: Derivative, args: tuple, kwargs: dict):
    """The derivative's result, checked first (``verify_call``) when this argument signature is new to it.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x): return np.sum(x * x)
        >>> verified_call(srcad.grad(f), (np.ones(2),), {})
        array([2., 2.])
    """
    VERIFYING.active = True
    try:
        result = derivative(*args, **kwargs)
        signature = (tuple(_signature_of(a) for a in args), tuple(sorted(kwargs)))
        checked = derivative.__dict__.setdefault("_verified_signatures", set())
        if signature not in checked:
            verify_call(derivative, args, kwargs)
            checked.add(signature)
    finally:
        VERIFYING.active = False
    return result


def _signature_of(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_signature_of(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(((repr(k), _signature_of(v)) for k, v in value.items()), key=repr)))
    return (type(value).__name__,)


use_verifier(verified_call)
