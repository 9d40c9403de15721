"""The transformations built on ``grad`` and ``autodiff``: values with gradients, VJPs and JVPs,
Jacobians, Hessians and Hessian-vector products.

Contract:
- ``value_and_grad(f)`` returns ``(f(*args), gradient)`` from one call of the
  generated derivative; ``vjp(f, *primals)`` returns ``(out, vjp_fn)``;
  ``jvp(f, primals, tangents)`` returns ``(out, out_tangent)``; ``has_aux``
  lets f return ``(out, aux)``.
- ``jacobian(f, wrt, mode)`` stacks one JVP per input element (forward) or
  one VJP per output element (reverse); ``'auto'`` picks the cheaper one.
- ``hessian`` and ``hvp`` are forward mode over srcad's own reverse-mode
  gradient (the generated gradient is differentiated again).
- f itself only ever runs on copies of array arguments, so an f that writes
  its parameters leaves the caller's arrays alone.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(x ** 3)
    >>> srcad.hvp(f, np.array([1.0, 2.0]), np.array([1.0, 0.0]))   # doctest: +SKIP
    array([6., 0.])
"""
from __future__ import annotations

import functools
import inspect
from typing import Callable, Optional, Sequence, Union

import numpy as np

from .api import _derivative, grad
from .backends import compiled_derivative
from .arguments import Wrt, bound_arguments, parameter_names, resolve_wrt
from .errors import SrcadError, WrtError
from .frontend.source import unwrap
from .runtime.dispatch import is_duck_array
from .runtime.checkpointing import checked_snapshots
from .pickling import by_reference
from .trees import is_container


def value_and_grad(func: Optional[Callable] = None, wrt: Wrt = 0, *, has_aux: bool = False,
                   optimize: bool = True, checkpoints: Optional[int] = None, backend: str = "numpy"):
    """Like ``grad``, but the derivative returns ``(f(*args), gradient)`` from one sweep.

    With ``has_aux=True``, f returns ``(out, aux)`` and the result is ``((out, aux), gradient)``.
    ``checkpoints=K`` checkpoints f's loops as for ``grad``; ``backend="numba"`` compiles it with numba.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sum(x * x)
        >>> srcad.value_and_grad(f)(np.array([1.0, 2.0]))   # doctest: +SKIP
        (5.0, array([2., 4.]))
    """
    checkpoints = checked_snapshots(checkpoints)
    if func is None:   # used as @srcad.value_and_grad(wrt=...): a decorator (a partial, so it pickles too)
        return functools.partial(value_and_grad, wrt=wrt, has_aux=has_aux, optimize=optimize,
                                 checkpoints=checkpoints, backend=backend)
    return compiled_derivative(backend, func, wrt, "reverse", optimize, has_aux=has_aux, checkpoints=checkpoints,
                               with_value=True) or _derivative(func, wrt, "reverse", optimize, with_value=True, has_aux=has_aux, checkpoints=checkpoints)


def vjp(func: Callable, *primals, has_aux: bool = False, checkpoints: Optional[int] = None):
    """``(f(*primals), vjp_fn)``: ``vjp_fn(seed)`` pulls ``seed`` back to every argument.

    ``vjp_fn`` returns a tuple with one entry per primal: None for one that holds
    no float (an int such as ``steps=200``).  Parameters left out take their
    defaults.  With ``has_aux=True``, f returns ``(out, aux)`` and the result is
    ``(out, vjp_fn, aux)``.  Each call of ``vjp_fn`` runs the derivative, which
    computes f's forward sweep again.  ``checkpoints=K`` checkpoints f's loops as for ``grad``.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x, y):
        ...     return x * y
        >>> out, pullback = srcad.vjp(f, np.ones(2), np.arange(2.0))
        >>> pullback(np.ones(2))   # doctest: +SKIP
        (array([0., 1.]), array([1., 1.]))
    """
    primals, floats = _primals(func, primals, "vjp")
    result = func(*_copies(primals))   # f may write its arguments; the caller's stay as they are
    out, aux = (result[0], result[1]) if has_aux else (result, None)
    vjp_fn = Pullback(_derivative(func, tuple(floats), "reverse", True, has_aux=has_aux,
                                  checkpoints=checked_snapshots(checkpoints)), primals, floats, has_aux)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


class Pullback:
    """``vjp``'s ``vjp_fn``: the seed pulled back to every primal.  It pickles (with its derivative and
    primals), so it can be sent to another process."""

    def __init__(self, derivative, primals: tuple, floats: Sequence[int], has_aux: bool):
        self.derivative, self.primals, self.floats, self.has_aux = derivative, primals, tuple(floats), has_aux

    def __call__(self, seed):
        pulled = _call(self.derivative, self.primals, (seed,))
        pulled = pulled[0] if self.has_aux else pulled
        by_position = dict(zip(self.floats, pulled))
        return tuple(by_position.get(position) for position in range(len(self.primals)))


def _primals(func: Callable, primals: Sequence, caller: str):
    """``primals`` with the defaults of parameters left out, and the positions of those that hold floats."""
    parameters = [p for p in inspect.signature(func).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    label = f"{getattr(func, '__name__', 'f')}({', '.join(p.name for p in parameters)})"
    variadic = any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(func).parameters.values())
    if len(primals) > len(parameters) and not variadic:
        raise SrcadError(f"{caller} got {len(primals)} primals for {label}; pass one per positional parameter")
    missing = [p.name for p in parameters[len(primals):] if p.default is p.empty]
    if missing:
        raise SrcadError(f"{caller} got {len(primals)} primals for {label}, and {', '.join(missing)} "
                         f"{'has' if len(missing) == 1 else 'have'} no default; pass one primal per parameter "
                         f"without a default")
    full = tuple(primals) + tuple(p.default for p in parameters[len(primals):])
    floats = [position for position, value in enumerate(primals) if _holds_floats(value)]
    if not floats:
        raise SrcadError(f"{caller} got no primal that holds floats for {label}; pass floats or float arrays "
                         f"for the arguments to differentiate")
    return full, floats


def _holds_floats(value) -> bool:
    """Whether a derivative can be taken with respect to ``value`` (floats, float arrays, containers of them)."""
    if isinstance(value, (bool, int, np.integer, np.bool_)):
        return False
    if isinstance(value, np.ndarray) or is_duck_array(value):   # a Dask or CuPy array too
        return value.dtype.kind in "fc"
    return isinstance(value, (float, np.floating, complex, tuple, list, dict)) or is_container(value)


def jacobian(func: Callable, wrt: Wrt = 0, mode: str = "auto"):
    """The Jacobian of ``func`` with respect to ``wrt``: shape ``out.shape + arg.shape``.

    ``mode='forward'`` builds it from one JVP per input element, ``'reverse'`` from
    one VJP per output element, and ``'auto'`` picks whichever needs fewer sweeps.
    A tuple ``wrt`` gives a tuple of Jacobians.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sin(x)
        >>> srcad.jacobian(f)(np.zeros(2))   # doctest: +SKIP
        array([[1., 0.],
               [0., 1.]])
    """
    if mode not in ("auto", "forward", "reverse"):
        raise SrcadError(f"mode={mode!r} is not a jacobian mode; use 'auto', 'forward' or 'reverse'")
    given = len(bound_arguments(func)[0])   # a bound method's object, a partial's arguments
    names, as_tuple = resolve_wrt(unwrap(func), wrt, given)
    if any("." in name for name in names):
        raise WrtError(f"jacobian and hessian take arguments by position or name, not attributes "
                       f"({', '.join(n for n in names if '.' in n)}); pass the attribute as an argument of a "
                       f"function that sets it, or use srcad.autodiff(f, wrt=...) for its products")
    positional = parameter_names(unwrap(func))[0][given:]

    return Jacobian(func, names, as_tuple, positional, mode)


class Jacobian:
    """``jacobian``'s function of f's arguments.  It pickles (with f), so it can be sent to another process."""

    def __init__(self, func: Callable, names, as_tuple: bool, positional, mode: str):
        self.func, self.names, self.as_tuple, self.positional, self.mode = func, names, as_tuple, positional, mode
        self.__name__ = f"jacobian_{getattr(func, '__name__', 'f')}"

    def __reduce__(self):   # f by reference (a lambda: SrcadError with the fix, or by value under cloudpickle)
        return Jacobian, (by_reference(self.func), self.names, self.as_tuple, self.positional, self.mode)

    def __call__(self, *args):
        func, mode = self.func, self.mode
        out = np.asarray(func(*_copies(args)))
        blocks = []
        for name in self.names:
            index = self.positional.index(name)
            arg = np.asarray(args[index], dtype=float)
            chosen = mode if mode != "auto" else ("forward" if arg.size <= out.size else "reverse")
            scalar = not isinstance(args[index], np.ndarray)   # a Python number takes a float tangent
            blocks.append(_jacobian_block(func, args, index, arg, out, chosen, scalar))
        return tuple(blocks) if self.as_tuple else blocks[0]


def hessian(func: Callable, wrt: Union[int, str] = 0):
    """The Hessian of scalar ``func`` with respect to one argument, forward over reverse.

    It is the forward-mode Jacobian of srcad's own generated gradient, so its
    shape is ``arg.shape + arg.shape``.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sum(x ** 3)
        >>> srcad.hessian(f)(np.array([1.0, 2.0]))   # doctest: +SKIP
        array([[ 6.,  0.],
               [ 0., 12.]])
    """
    if isinstance(wrt, (tuple, list)):
        raise WrtError("hessian takes one argument to differentiate with respect to; call it once per argument")
    return jacobian(grad(func, wrt=wrt), wrt=wrt, mode="forward")


def hvp(func: Callable, x, v):
    """The Hessian of scalar one-argument ``func`` at ``x`` times ``v`` (forward over reverse).

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sum(x ** 3)
        >>> srcad.hvp(f, np.array([1.0, 2.0]), np.array([1.0, 0.0]))   # doctest: +SKIP
        array([6., 0.])
    """
    return _call_forward(_derivative(grad(func), 0, "forward", True), (x,), (v,))


def _copies(values):
    """``values`` with each array copied (for running f itself, which may write its arguments)."""
    return tuple(v.copy() if isinstance(v, np.ndarray) else v for v in values)


def _call_forward(derivative, args, tangents):
    """Call a forward-mode derivative with its tangents by keyword (they may be keyword-only)."""
    names = derivative.parameters[-len(tangents):]
    return derivative(*args, **dict(zip(names, tangents)))


def _jacobian_block(func, args, index, arg, out, mode, scalar):
    rows = np.zeros(out.shape + arg.shape)
    if mode == "forward":
        jvp_fn = _derivative(func, index, "forward", True)
        for position in np.ndindex(arg.shape):
            tangent = np.zeros(arg.shape)
            tangent[position] = 1.0
            rows[(Ellipsis,) + position] = _call_forward(jvp_fn, args, (float(tangent) if scalar else tangent,))
    else:
        vjp_fn = _derivative(func, index, "reverse", True)
        for position in np.ndindex(out.shape):
            seed = np.zeros(out.shape)
            seed[position] = 1.0
            rows[position] = vjp_fn(*args, seed if out.ndim else float(seed))
    return rows


def jvp(func: Callable, primals: Sequence, tangents: Sequence, *, has_aux: bool = False,
        optimize: bool = True):
    """``(f(*primals), J @ tangents)``: the output and its tangent, by forward mode.

    One tangent per primal, in order; a primal that holds no float (an int
    such as ``steps=200``) takes None (or 0) as its tangent, and parameters
    left out take their defaults.  With ``has_aux=True``, f returns
    ``(out, aux)`` and the result is ``(out, tangent, aux)``.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x, y):
        ...     return x * y
        >>> srcad.jvp(f, (2.0, 3.0), (1.0, 0.0))
        (6.0, 3.0)
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise SrcadError(f"jvp got {len(primals)} primals but {len(tangents)} tangents; "
                         f"pass one tangent per primal")
    full, floats = _primals(func, primals, "jvp")
    names = list(inspect.signature(func).parameters)
    for position, (primal, tangent) in enumerate(zip(primals, tangents)):
        if position not in floats and tangent is not None and not _is_zero(tangent):
            raise WrtError(f"jvp got the tangent {tangent!r:.40} for `{names[position]}`, which holds "
                           f"{type(primal).__name__} {primal!r:.40} and so has no derivative; pass None as its "
                           f"tangent")
    derivative = _derivative(func, tuple(floats), "forward", optimize, with_value=True, has_aux=has_aux)
    given = tuple(tangents[position] for position in floats)
    if has_aux:   # ((out, aux), tangent) -> (out, tangent, aux), as JAX orders them
        (out, aux), tangent = _call(derivative, full, given)
        return out, tangent, aux
    return _call(derivative, full, given)


def _call(derivative, args, extras):
    """``derivative(*args, *extras)``: f's arguments, then the seed or the tangents, told apart for a
    function taking ``*args``."""
    if hasattr(derivative, "split_call"):
        return derivative.split_call(tuple(args), tuple(extras), {})
    names = derivative.parameters if extras else ()
    if len(names) > len(args) + len(extras):   # f has defaults (a gradient's dout=1.0): the rest by keyword
        return derivative(*args, **dict(zip(names[-len(extras):], extras)))
    return derivative(*args, *extras)


def _is_zero(value) -> bool:
    try:
        return not np.any(value)
    except (TypeError, ValueError):
        return False
