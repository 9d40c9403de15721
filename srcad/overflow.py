"""A derivative whose result holds a NaN from ``0 * inf`` is computed again, exactly.

Contract:
- ``clean(result)`` is the check every derivative call makes on its result:
  True for a float, a float array or a tuple of them holding no NaN; False
  for anything else (a NaN, a container, an aux value), which then goes to
  ``settled``.  It costs one comparison for a float and one sum for an array.
- ``settled(derivative, result, args, kwargs)`` returns ``result`` unless its
  derivative part (f's value and aux left out) holds a NaN although every
  argument is finite and f's own computation overflowed or made a NaN (run
  again on copies of its arguments with NumPy's ``over`` and ``invalid``
  errors raised): an ``exp`` that overflowed, a ``sqrt`` of a negative
  number in a branch ``np.where`` discards.  Then, and only then, the
  derivative is computed again by the variant
  built with the option ``strong_zeros`` (``srcad/passes/strong_zeros.py``:
  the derivative code's products and quotients in which an exact zero wins),
  with f's value.  A zero adjoint or tangent (a branch ``np.where``
  discarded, a saturated ``tanh``) times a partial derivative that overflowed
  to infinity is ``0 * inf = NaN`` in plain arithmetic where the true
  contribution is 0.  The recomputed result is returned when f's value is
  finite (an infinite f has no derivative to find) and it holds no NaN; in
  forward mode a NaN that remains (the tangents themselves overflowed) is
  computed as ``J v`` from reverse mode, one sweep per output element.
  Otherwise the NaN stands: a NaN where f computed only finite numbers is a
  NaN of the derivative (``np.arctan2`` at ``(0, 0)``, ``np.cbrt(x) ** 2`` at
  0, where no derivative exists), and one no exact zero explains stays too.
- Derivatives that normally run keep their plain arithmetic: the variant is
  built on the first NaN only.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(np.where(x > 0, 0.0, np.exp(1000.0 * x)))
    >>> srcad.grad(f)(np.array([1.0, -1.0]))   # doctest: +SKIP
    array([0., 0.])
"""
from __future__ import annotations

import copy

import numpy as np

_ARRAY, _F64 = np.ndarray, np.float64
_vdot = np.vdot
_FLOAT64 = np.dtype(np.float64)


def clean(result) -> bool:
    """Whether ``result`` is a float, a float array or a tuple of them, holding no NaN (quick)."""
    kind = result.__class__
    if kind is _ARRAY:
        if result.dtype is not _FLOAT64 and result.dtype.kind != "f":
            return False
        # one sum: of the elements when they are few (inf - inf is then a false alarm, checked again), of
        # their squares otherwise (an infinity cannot make that NaN)
        total = sum(result.ravel().tolist()) if result.size <= 16 else _vdot(result, result)
        return total == total or not np.isnan(result).any()
    if kind is float or kind is _F64:
        return result == result
    if kind is tuple:   # one sum for the small arrays and floats (value_and_grad, a tuple wrt): one comparison
        total = 0.0
        for item in result:
            kind = item.__class__
            if kind is _ARRAY and item.dtype is _FLOAT64 and item.size <= 16:
                total += sum(item.ravel().tolist())
            elif kind is float or kind is _F64:
                total += item
            elif kind is tuple or not clean(item):
                return False
        return total == total or all(clean(item) for item in result)   # inf - inf: each again
    return False


def nan_in(value, infinite: bool = False) -> bool:
    """Whether ``value`` is or holds (in lists, tuples and dicts) a NaN, or with ``infinite``, an infinity.

    Example::

        >>> nan_in((1.0, np.array([0.0, np.nan]))), nan_in(np.inf), nan_in(np.inf, infinite=True)
        (True, False, True)
    """
    if isinstance(value, (tuple, list)):
        return any(nan_in(item, infinite) for item in value)
    if isinstance(value, dict):
        return any(nan_in(item, infinite) for item in value.values())
    if isinstance(value, (np.ndarray, np.floating, float)):
        try:
            return bool((~np.isfinite(value) if infinite else np.isnan(value)).any())
        except TypeError:   # an array of objects or strings: no float NaN of srcad's
            return False
    return False


def _derived(options, result):
    """What of a derivative's ``result`` is its derivative: f's value and aux left out."""
    if options.get("has_aux"):   # (derivative, aux), or ((value, aux), derivative)
        return result[1] if options.get("with_value") else result[0]
    return result[1] if options.get("with_value") else result


def settled(derivative, result, args, kwargs):
    """``result``, or, when its derivative holds a NaN that overflow explains, the derivative computed again.

    Example::

        result = settled(self, result, args, kwargs)   # in Derivative.__call__, after ``clean`` said no
    """
    options = derivative.options
    if options.get("strong_zeros") or not nan_in(_derived(options, result)):
        return result
    if nan_in(list(args) + list(kwargs.values()), infinite=True):
        return result   # an infinite or NaN input: the NaN is no artefact of overflow
    if not _primal_overflows(derivative, args, kwargs):
        return result
    has_aux = options.get("has_aux")
    try:
        strong = derivative.variant(None, derivative.mode, strong_zeros=True, with_value=True)
        value, again = strong(*args, **kwargs)
        output = value[0] if has_aux else value
        if nan_in(output, infinite=True):
            return result
        if nan_in(again) and derivative.mode == "forward":
            again = _jvp_by_reverse(derivative, strong, args, kwargs, output)
    except Exception:   # noqa: BLE001 -- the NaN the normal derivative gave stands
        return result
    if again is None or nan_in(again):
        return result
    if options.get("with_value"):
        return value, again
    return (again, value[1]) if has_aux else again


def _primal_overflows(derivative, args, kwargs) -> bool:
    """Whether f, run on copies of its own arguments, overflows or makes a NaN (False when it cannot run)."""
    func = derivative.primal()
    arity = derivative._arity   # f's own positional arguments come first; seeds or tangents follow
    own = set(kwargs) - set(derivative.parameters[len(derivative.parameters) - len(derivative.wrt):]) \
        if derivative.mode == "forward" else set(kwargs) - set(derivative.parameters[-1:])
    try:
        primal_args = copy.deepcopy(args[:arity])
        primal_kwargs = copy.deepcopy({k: v for k, v in kwargs.items() if k in own})
    except Exception:   # noqa: BLE001 -- arguments that cannot be copied: f is not run again
        return False
    try:
        with np.errstate(over="raise", invalid="raise"):
            func(*primal_args, **primal_kwargs)
    except FloatingPointError:
        return True
    except Exception:   # noqa: BLE001 -- whatever else f raises, the NaN stands
        return False
    return False


def _jvp_by_reverse(derivative, strong, args, kwargs, output):
    """``J v`` of an array or scalar output, one reverse sweep per output element; None otherwise."""
    count = len(derivative.wrt)
    names = list(strong.parameters)[-count:]
    if all(name in kwargs for name in names):
        tangents = [kwargs[name] for name in names]
        kwargs = {k: v for k, v in kwargs.items() if k not in names}
    else:
        tangents, args = list(args[-count:]), args[:-count]
    if not all(isinstance(value, (float, np.floating, np.ndarray)) for value in tangents + [output]):
        return None
    reverse = derivative.variant(tuple(derivative.wrt), "reverse")
    seed_name = reverse.parameters[-1]
    shape = np.shape(output)
    product = np.zeros(shape)
    for index in np.ndindex(shape):
        seed = np.zeros(shape)
        seed[index] = 1.0
        grads = reverse(*args, **kwargs, **{seed_name: seed if shape else 1.0})
        grads = grads[0] if derivative.options.get("has_aux") else grads
        product[index] = sum(float(np.vdot(g, t)) for g, t in zip(grads, tangents))
    return product if shape else type(output)(product[()])
