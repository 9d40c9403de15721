"""The public transformations: ``grad``, ``autodiff`` and ``source``.

Contract:
- ``grad(f, wrt=0)`` returns a function taking f's arguments and returning the
  gradient with respect to each ``wrt`` entry (one value for a single int or
  name, a tuple for a tuple).  f must return a scalar.  A ``wrt`` name may
  also be a global or closure variable f reads: its value is used as it is
  when the derivative is called, and its gradient is returned like a
  parameter's (otherwise such variables are constants).
- ``autodiff(f, wrt=0, mode='reverse')`` returns the vector-Jacobian product
  ``df(*args, seed)``; ``mode='forward'`` returns the Jacobian-vector product
  ``df(*args, *tangents)``.
- ``value_and_grad``, ``vjp``, ``jvp``, ``jacobian``, ``hessian`` and ``hvp``
  (``srcad/transforms.py``) are built on the same generated derivatives;
  ``has_aux=True`` lets f return ``(out, aux)``.
- ``source(f, wrt=0, mode='reverse')`` returns the generated source.  Every
  derivative function carries it as ``.source``.
- Derivatives (``srcad.derivative``) are built on first use and cached in
  memory and on disk under a key that covers everything they are built from
  (``srcad.dependencies``).  Every call checks by identity that none of it
  changed: f's and its helpers' code and defaults, what the names they read
  denote, the rules; when something did, ``load`` finds or builds the
  derivative for what runs now.  Defaults are f's as they are, not as its
  ``def`` spells them.
- ``load`` builds each module once per process, however many threads ask
  for it at once (one lock, held while loading; a build that needs another
  derivative takes it again on the same thread).

Example::

    >>> import numpy as np, srcad
    >>> @srcad.grad
    ... def f(x):
    ...     return np.sum(np.sin(x))
    >>> f(np.zeros(2))   # doctest: +SKIP
    array([1., 1.])
"""
from __future__ import annotations

import functools
import inspect
import os
import threading

from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from . import cache, dependencies
from .backends import compiled_derivative, compiled_source
from .frontend import loader
from .arguments import Wrt, bind_arguments, resolve_wrt
from .derivative import (MODES, VERIFYING, Derivative, _BY_FUNCTION, _derivative, derivative, use_loader,
                         use_special_calls, use_verifier)
from .pipeline import build, use_derivative_service
from .runtime.checkpointing import checked_snapshots
from .frontend.source import parse_function, unwrap

# the entry points, and what srcad.api has always offered (srcad.derivative holds the class and its hooks)
__all__ = ["grad", "autodiff", "source", "load", "Derivative", "derivative", "MODES", "VERIFYING", "resolve_wrt",
           "use_special_calls", "use_verifier", "_BY_FUNCTION"]
_MEMORY: Dict[str, Tuple[str, Any, str, Tuple[str, ...], Dict[str, Any]]] = {}
_LOADING = threading.RLock()   # one derivative loaded at a time: a module is built once, whoever asks


def _unlocked_in_child() -> None:
    """A forked child starts with the lock free, even when another thread of its parent held it."""
    global _LOADING
    _LOADING = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_unlocked_in_child)


def load(derivative: Derivative) -> None:
    """Record what ``derivative`` depends on now; reuse, load or build the module that fits; bind it.

    Example::

        load(srcad.grad(f))   # what the first call of a derivative does
    """
    with _LOADING:
        _load(derivative)


def _load(df: Derivative) -> None:
    """Record what the derivative depends on now; reuse, load or build the module that fits; bind it."""
    if df._compiled is not None and _rebind_data(df):
        return
    if df._inner is not None:
        df.func = unwrap(df._inner)   # the inner derivative's function as it is now
    if not inspect.isfunction(df.func):
        parse_function(df.func)   # raises SourceUnavailableError with the fix
    found = dependencies.collect(df.func, receiver=df.bound_self)
    if df.func.__code__ is not df._signature_code or df.func is not df._signature_function:
        df._read_signature()   # autoreload replaced the code, or the inner derivative was rebuilt
    key = cache.disk_key(df.func, df.wrt, df.mode, df.options, found)
    # a bound method's object is known when its derivative is built (its key covers what it holds), and so
    # are containers differentiated field by field (their variants are made per type)
    building = dict(df.options, receiver=df.bound_self, examples=df._examples)
    entry = _MEMORY.get(key)
    if entry is None:
        entry = _MEMORY[key] = cache.compiled_entry(df.func, key, df.wrt, df.mode, building, build)
    own = found.made_names(entry[3])   # bound by the build (a method's function), never by the scope
    function = loader.instantiate(entry[1], entry[2], entry[3], df.func, entry[4], own)
    if function is None:  # the cached module names something the scope no longer has
        entry = _MEMORY[key] = cache.compiled_entry(df.func, key, df.wrt, df.mode, building, build,
                                                    fresh=True)
        function = loader.instantiate(entry[1], entry[2], entry[3], df.func, entry[4], own)
    source, _, _, injected, _ = entry
    function = generated = loader.with_defaults_of(df.func, function)
    if df._prefix or df._fixed:
        function = bind_arguments(function, df._prefix, df._fixed, df.func)
    extra = [dependencies.binding(df.func, name) for name in injected]
    if df._inner is not None:
        extra.append(("derivative", df._inner, "", df.func))
    df._compiled, df._source, df._generated, df._dependencies = function, source, generated, found
    df._generation += 1
    df._current = found.check([entry for entry in extra if entry is not None])


def _rebind_data(df: Derivative) -> bool:
    """Only data names were rebound, to data of the same type (the key is the same): give the
    generated module the new values, and keep everything else."""
    rebound = df._dependencies.rebound_data()
    if rebound is None:
        return False
    namespace, closure = df._generated.__globals__, df.func.__closure__ or ()
    for kind, holder, name, value in rebound:
        if name in namespace and (holder is df.func.__globals__ or any(holder is c for c in closure)):
            namespace[name] = value
    df._generation += 1
    return True


def grad(func: Optional[Callable] = None, wrt: Wrt = 0, *, has_aux: bool = False, optimize: bool = True,
         checkpoints: Optional[int] = None, backend: str = "numpy"):
    """The gradient of scalar-valued ``func`` with respect to the ``wrt`` parameters.

    Works as ``@srcad.grad``, ``@srcad.grad(wrt=1)`` or ``srcad.grad(f, wrt=('x', 'y'))``.
    With ``has_aux=True``, f returns ``(out, aux)`` and the derivative returns ``(gradient, aux)``.
    With ``checkpoints=K``, f's top-level ``for`` loops over ``range`` keep at most K states for the
    reverse sweep and recompute the others (binomial checkpointing, ``srcad.passes.checkpoints``).
    ``backend="numba"`` compiles the derivative with numba (``srcad.backends``).

    Example::

        >>> import numpy as np, srcad
        >>> def f(x, y):
        ...     return np.sum(x * y)
        >>> srcad.grad(f, wrt=(0, 1))(np.ones(2), np.arange(2.0))   # doctest: +SKIP
        (array([0., 1.]), array([1., 1.]))
    """
    checkpoints = checked_snapshots(checkpoints)
    if func is None:   # used as @srcad.grad(wrt=...): a decorator (a partial, so it pickles too)
        return functools.partial(grad, wrt=wrt, has_aux=has_aux, optimize=optimize, checkpoints=checkpoints,
                                 backend=backend)
    return compiled_derivative(backend, func, wrt, "reverse", optimize, has_aux=has_aux, checkpoints=checkpoints) \
        or _derivative(func, wrt, "reverse", optimize, has_aux=has_aux, checkpoints=checkpoints)


def autodiff(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True,
             checkpoints: Optional[int] = None, backend: str = "numpy"):
    """The derivative of ``func`` as a vector-Jacobian (reverse) or Jacobian-vector (forward) product.

    Reverse mode: ``df(*args, seed)`` returns the seed pulled back to each wrt
    parameter.  Forward mode: ``df(*args, *tangents)`` returns the output's
    tangent for the given input tangents.  ``checkpoints=K`` as for ``grad`` (reverse mode; forward
    mode keeps no tape, so it needs none).

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sin(x)
        >>> srcad.autodiff(f)(np.zeros(2), np.array([1.0, 2.0]))   # doctest: +SKIP
        array([1., 2.])
    """
    checkpoints = checked_snapshots(checkpoints)
    return compiled_derivative(backend, func, wrt, mode, optimize, checkpoints=checkpoints) \
        or _derivative(func, wrt, mode, optimize, checkpoints=checkpoints)


def source(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True,
           ranks: Optional[Sequence[int]] = None, checkpoints: Optional[int] = None, backend: str = "numpy") -> str:
    """The generated source of ``func``'s derivative.

    ``ranks`` (one number of dimensions per positional argument) shows the
    variant that runs when a function whose loops store into arrays element
    by element, or that multiplies matrices, is called with arrays of those ranks.  ``backend="numba"``
    shows the module numba compiles for those ranks (all scalars by default).

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return x * x
        >>> print(srcad.source(f))   # doctest: +SKIP
        >>> print(srcad.source(pool, ranks=(2,)))   # doctest: +SKIP
    """
    if backend != "numpy":   # the module numba compiles, for these ranks (all scalars when not given)
        return compiled_source(backend, func, wrt, mode, optimize, ranks, checkpoints=checkpoints)
    return _derivative(func, wrt, mode, optimize, param_ranks=tuple(ranks) if ranks else None,
                       checkpoints=checked_snapshots(checkpoints)).source


use_loader(load)
use_derivative_service(derivative)   # passes build the derivatives of callees through it