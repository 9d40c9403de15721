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
- Derivatives are built on first use and cached in memory and on disk under
  a key that covers everything they are built from (``srcad.dependencies``).
  Every call checks by identity that none of it changed: f's and its
  helpers' code and defaults, what the names they read denote, the rules;
  when something did, the derivative for what runs now is found or built.
  Defaults are f's as they are, not as its ``def`` spells them.

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
import numbers
import threading
import weakref

import numpy as np
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from . import cache, dependencies
from .frontend import loader, tracebacks
from .config import config
from .errors import SrcadError
from .arguments import (Wrt, bind_arguments, bound_arguments, integer_argument, is_method, mirror_gradients,
                        parameter_names, rebound_call, refused_argument, resolve_wrt,
                        complex_argument, complex_fields_error, complex_gradients, holds_complex)
from .overflow import clean, settled
from .pipeline import build, use_derivative_service
from .runtime.checkpointing import checked_snapshots
from .shared_arguments import shared_arguments_check
from .runtime.dispatch import is_duck_array
from .trees import is_container
from .frontend.source import parse_function, unwrap
from .variants import all_scalars, float_ranks, indexes_elements, written_out

MODES = ("reverse", "forward")
_MEMORY: Dict[str, Tuple[str, Any, str, Tuple[str, ...], Dict[str, Any]]] = {}


class Derivative:
    """A derivative of ``func``, built on first call and cached.  Call it like the function.

    Every call first checks, by identity, that nothing it was built from
    changed (``srcad.dependencies``); when something did, it finds or builds
    the derivative that fits what runs now.
    """

    def __init__(self, func: Callable, wrt: Wrt, mode: str, options: Dict[str, Any]):
        if mode not in MODES:
            raise SrcadError(f"mode={mode!r} is not a mode; use 'reverse' or 'forward'")
        self._given = func
        self._inner = func if isinstance(func, Derivative) else None   # a derivative of a derivative
        # what is given already: a bound method's object, a functools.partial's arguments
        self._prefix, self._fixed = bound_arguments(func)
        self.bound_self = self._prefix[0] if is_method(func) else None
        self.func = unwrap(func)
        if not callable(self.func):
            raise SrcadError(f"{func!r} is not a function")
        self.mode = mode
        self.requested_wrt = wrt
        self._requested_options = dict(options)
        self._compiled: Optional[Callable] = None
        self._current: Callable[[], bool] = _stale   # True while nothing the derivative depends on changed
        self._generation = 0                         # counts loads: variants loaded for an older one are stale
        self._source = ""
        self._read_signature()
        self.__name__ = f"d{getattr(self.func, '__name__', 'f')}"
        self.__doc__ = f"{mode}-mode derivative of {getattr(self.func, '__qualname__', self.func)}"

    def _read_signature(self) -> None:
        """What f's parameters decide: the wrt names, their positions, the variants; again when f's code changes."""
        func = self._signature_function = self.func
        self._signature_code = getattr(func, "__code__", None)
        if not inspect.isfunction(func):
            self.wrt, self.as_tuple = (), False
        else:
            variadic = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                           for p in inspect.signature(func).parameters.values())
            if variadic and not self._requested_options.get("variadic"):
                self.__class__ = _SPECIAL["variadic"]   # a variant per number of arguments and keywords
                self.wrt, self.as_tuple = (), isinstance(self.requested_wrt, (tuple, list))
            elif variadic:   # such a variant: wrt names its written-out parameters
                requested = self.requested_wrt
                self.as_tuple = isinstance(requested, (tuple, list))
                self.wrt = tuple(requested) if self.as_tuple else (requested,)
            else:
                self.wrt, self.as_tuple = resolve_wrt(func, self.requested_wrt, len(self._prefix))
            if set(self.wrt) & set(parameter_names(func)[0][:len(self._prefix)]):
                self.__class__ = _SPECIAL["whole object"]   # wrt='self': the object's fields, one by one
        options = self._requested_options
        positional = parameter_names(func)[0] if inspect.isfunction(func) else ()
        if options.get("variadic"):
            positional += written_out(func, *options["variadic"])[0]
        offset = self._offset = len(self._prefix)   # a bound method's self, a partial's arguments
        self._wrt_positions = tuple(positional.index(n) - offset for n in self.wrt
                                    if n in positional and positional.index(n) >= offset)
        self.options = dict(options, tuple_result=self.as_tuple)
        # None unless f changes a parameter in place: then f(a, a) is refused (srcad.shared_arguments)
        self._shared_check = shared_arguments_check(func, offset) if inspect.isfunction(func) else None
        # None: build on the first all-scalar call; False: never (this is that variant, or a method)
        self._scalar_variant = False if options.get("scalar_params") or offset or self._fixed else None
        self._scalar_function: Optional[Callable] = None
        self._scalar_generation = -1
        # None: decide on the first array call; False: never; else {argument ranks: variant}
        self._arity = len(positional) - offset
        # f's positional parameters left out of wrt: a complex number there also asks for the complex variant
        self._other_positions = tuple(p for p in range(self._arity) if p not in self._wrt_positions)
        self._rank_variants = False if options.get("scalar_params") or options.get("param_ranks") \
            or offset or self._fixed else None

    def __call__(self, *args, **kwargs):
        if config.verify and _verifier is not None and not VERIFYING.active:
            return _verifier(self, args, kwargs)
        try:
            if not self._current():
                if any(p < len(args) and is_container(args[p]) for p in self._wrt_positions):
                    self._refuse_complex_fields(args)
                    return _SPECIAL["objects"](self, args, kwargs)   # not built for the whole object: by field
                self._load()
            scalars = self._scalar_variant is not False and not kwargs and args
            if scalars:   # floats only: the quickest way
                for arg in args:
                    if arg.__class__ not in _FLOATS:
                        scalars = arg.__class__ is int   # else (an array...) not all scalars: no need to ask
                        break
                else:
                    function = self._scalar_function
                    if function is None or self._scalar_generation != self._generation:
                        function = self._scalar_function_now()
                    result = function(*args)
                    if result.__class__ is float and result == result:
                        return result
                    return result if clean(result) else settled(self, result, args, kwargs)
            if self._shared_check is not None:
                self._shared_check(args)
            containers = complex_seen = False
            for position in self._wrt_positions:   # an int or bool has no derivative: say so
                if position >= len(args):
                    continue
                kind = args[position].__class__
                if kind is _ARRAY and args[position].dtype is _FLOAT64 or kind in _FLOATS \
                        or kind is _ARRAY and args[position].dtype.kind == "f":
                    continue
                if kind in _NOT_DIFFERENTIABLE or kind is np.ndarray and args[position].dtype.kind in "biu":
                    raise integer_argument(self.func, position + self._offset, args[position])
                if is_duck_array(args[position]) and args[position].dtype.kind == "f":
                    continue   # a Dask or CuPy array of floats: NumPy's dispatch protocols carry it
                if isinstance(args[position], _CONTAINERS):
                    containers = True
                elif is_container(args[position]):   # a dataclass, an object holding arrays
                    self._refuse_complex_fields(args)
                    return _SPECIAL["objects"](self, args, kwargs)
                elif complex_argument(args[position]):
                    complex_seen = True
                elif not isinstance(args[position], numbers.Real) and not complex_argument(args[position]) \
                        or kind is np.ndarray and not complex_argument(args[position]):
                    # a str, None...: no derivative to give
                    raise refused_argument(self.func, position + self._offset, args[position])
            if (complex_seen or containers and holds_complex([args[p] for p in self._wrt_positions if p < len(args)], ())
                    or self._other_positions and holds_complex(
                    [args[p] for p in self._other_positions if p < len(args)], ()) or kwargs and holds_complex(
                    (), kwargs)) and "complex_params" not in self.options:
                return self._call_complex_variant(args, kwargs)   # a variant built for complex numbers
            if containers and self.mode == "reverse":   # a tuple's gradient is built as a list: give a tuple back
                result = mirror_gradients(self._compiled(*args, **kwargs), args, self.func, self._offset,
                                          self.wrt, self.as_tuple, self.options)
            elif scalars and all_scalars(args):
                result = self._scalar_function_now()(*args)
            else:
                ranks = float_ranks(args[:self._arity]) if self._rank_variants is not False and not kwargs \
                    and args else None   # f's own arguments, not seeds or tangents
                result = self._rank_variant(ranks)(*args) if ranks is not None else self._compiled(*args, **kwargs)
            # a NaN from 0 * inf (a zero adjoint times an overflowed partial) is computed again: srcad.overflow
            return result if clean(result) else settled(self, result, args, kwargs)
        except Exception as error:   # raised inside the derivative: note the generated and user lines
            if error.__class__ is not TypeError or not _raised_binding(error):
                tracebacks.annotate(error)
                raise
        # the call does not fit the generated function: fit it (the seed after f's defaults), or say how
        try:
            args, kwargs = rebound_call(self.func, self._generated, self._offset, self._fixed, self.mode, args, kwargs)
        except SrcadError as refusal:
            raise refusal from None
        return self(*args, **kwargs)

    def variant(self, wrt: Optional[Wrt], mode: str, **options) -> "Derivative":
        """Another derivative of the same function: ``wrt`` (None for this one's), ``mode``, more ``options``.

        Example::

            strong = derivative.variant(None, "reverse", strong_zeros=True, with_value=True)
        """
        dropped = ("tuple_result", "scalar_params", "param_ranks") + (("with_value",) if mode != self.mode else ())
        kept = {k: v for k, v in self.options.items() if k not in dropped}
        return _derivative(self.primal(), self.requested_wrt if wrt is None else wrt, mode, kept.pop("optimize", True),
                           **dict(kept, **options))

    def primal(self) -> Callable:
        """The function this derivative differentiates, as the user calls it (a bound method bound)."""
        return self._given if (self._prefix or self._fixed) and self._inner is None else self._source_function()

    def _scalar_function_now(self):
        """The all-scalar variant's function, (re)built when missing or loaded for an older generation."""
        function = self._scalar_function
        if function is None or self._scalar_generation != self._generation:
            if self._scalar_variant is None:
                options = {k: v for k, v in self.options.items() if k != "tuple_result"}
                self._scalar_variant = Derivative(self._source_function(), self.requested_wrt, self.mode,
                                                  dict(options, scalar_params=True))
            self._scalar_variant._load()
            function = self._scalar_function = self._scalar_variant._compiled
            self._scalar_generation = self._generation
        return function

    def _rank_variant(self, ranks):
        """The variant generated knowing each argument's rank (``A[i, j]`` of a 2-D ``A`` is a scalar).

        Only functions whose loops index arrays element by element get variants;
        for the others the general derivative is as good, and is used.  A
        variant depends on what this derivative depends on, so it is loaded
        again whenever this one is.
        """
        if self._rank_variants is None:
            self._rank_variants = {} if indexes_elements(self.func) else False
            if self._rank_variants is False:
                return self._compiled
        variant = self._rank_variants.get(ranks)
        if variant is None:
            options = {k: v for k, v in self.options.items() if k != "tuple_result"}
            variant = self._rank_variants[ranks] = Derivative(self._source_function(), self.requested_wrt,
                                                              self.mode, dict(options, param_ranks=ranks))
        if variant._compiled is None or variant._loaded_for != self._generation:
            variant._load()
            variant._loaded_for = self._generation
        return variant._compiled

    def _refuse_complex_fields(self, args) -> None:
        """Raise ``ComplexError`` for a differentiated object with a complex field (fields get the real rules)."""
        for position in self._wrt_positions:
            if position < len(args) and is_container(args[position]):
                refusal = complex_fields_error(self.func, position + self._offset, args[position])
                if refusal is not None:
                    raise refusal

    def _call_complex_variant(self, args, kwargs):
        """The result of the variant for complex arguments, with complex gradients for complex arguments."""
        variant = self._complex_variant(args, kwargs)
        if kwargs:   # its tangents may be named apart from this derivative's: pass them by position
            renamed = dict(zip(self.parameters, variant.parameters))
            kwargs = {renamed.get(key, key): value for key, value in kwargs.items()}
        result = variant(*args, **kwargs)
        return result if self.mode != "reverse" else complex_gradients(
            result, args, self.func, self._offset, self.wrt, self.as_tuple, self.options)

    def _complex_variant(self, args, kwargs=None) -> "Derivative":
        """The variant generated for the complex arguments of this call, differentiated or not (its rules
        pair adjoints and tangents by ``Re(sum(adjoint * tangent))``: README, "Complex numbers")."""
        names = parameter_names(self.func)[0][self._offset:]
        complex_names = tuple(names[p] for p in range(min(len(args), self._arity, len(names)))
                              if holds_complex((args[p],), ())) + tuple(
            sorted(key for key, value in (kwargs or {}).items() if key in names and holds_complex((value,), ())))
        variants = self.__dict__.setdefault("_complex_variants", {})
        if complex_names not in variants:
            options = {k: v for k, v in self.options.items() if k not in ("scalar_params", "param_ranks")}
            source = self._source_function()
            if isinstance(source, Derivative) and holds_complex(args[:source._arity], {}):
                source = source._complex_variant(args)   # a derivative of a derivative: of its complex variant
            variants[complex_names] = Derivative(source, self.requested_wrt, self.mode,
                                                 dict(options, complex_params=complex_names))
        return variants[complex_names]

    _loaded_for = -1   # for a rank variant: the generation of the derivative it was loaded for
    _examples: Optional[Dict[str, Any]] = None   # for a variant differentiating containers: one of each

    def _source_function(self):
        """What a variant differentiates: f, or the derivative f is (which may be rebuilt)."""
        return self.func if self._inner is None else self._inner

    @property
    def parameters(self) -> Tuple[str, ...]:
        """The generated function's parameter names (f's, then the seed or the tangents), but for those
        given already (a bound method's ``self``, a partial's arguments)."""
        if not self._current():
            self._load()
        function = self._generated
        names = tuple(inspect.signature(getattr(function, "__wrapped__", function)).parameters)
        return tuple(name for name in names[len(self._prefix):] if name not in self._fixed)

    @property
    def source(self) -> str:
        """The generated source of this derivative."""
        if not self._current():
            self._load()
        return self._source

    def _load(self) -> None:
        """Record what the derivative depends on now; reuse, load or build the module that fits; bind it."""
        if self._compiled is not None and self._rebind_data():
            return
        if self._inner is not None:
            self.func = unwrap(self._inner)   # the inner derivative's function as it is now
        if not inspect.isfunction(self.func):
            parse_function(self.func)   # raises SourceUnavailableError with the fix
        found = dependencies.collect(self.func, receiver=self.bound_self)
        if self.func.__code__ is not self._signature_code or self.func is not self._signature_function:
            self._read_signature()   # autoreload replaced the code, or the inner derivative was rebuilt
        key = cache.disk_key(self.func, self.wrt, self.mode, self.options, found)
        # a bound method's object is known when its derivative is built (its key covers what it holds), and so
        # are containers differentiated field by field (their variants are made per type)
        building = dict(self.options, receiver=self.bound_self, examples=self._examples)
        entry = _MEMORY.get(key)
        if entry is None:
            entry = _MEMORY[key] = cache.compiled_entry(self.func, key, self.wrt, self.mode, building, build)
        own = found.made_names(entry[3])   # bound by the build (a method's function), never by the scope
        function = loader.instantiate(entry[1], entry[2], entry[3], self.func, entry[4], own)
        if function is None:  # the cached module names something the scope no longer has
            entry = _MEMORY[key] = cache.compiled_entry(self.func, key, self.wrt, self.mode, building, build,
                                                        fresh=True)
            function = loader.instantiate(entry[1], entry[2], entry[3], self.func, entry[4], own)
        source, _, _, injected, _ = entry
        function = generated = loader.with_defaults_of(self.func, function)
        if self._prefix or self._fixed:
            function = bind_arguments(function, self._prefix, self._fixed, self.func)
        extra = [dependencies.binding(self.func, name) for name in injected]
        if self._inner is not None:
            extra.append(("derivative", self._inner, "", self.func))
        self._compiled, self._source, self._generated, self._dependencies = function, source, generated, found
        self._generation += 1
        self._current = found.check([entry for entry in extra if entry is not None])

    def _rebind_data(self) -> bool:
        """Only data names were rebound, to data of the same type (the key is the same): give the
        generated module the new values, and keep everything else."""
        rebound = self._dependencies.rebound_data()
        if rebound is None:
            return False
        namespace, closure = self._generated.__globals__, self.func.__closure__ or ()
        for kind, holder, name, value in rebound:
            if name in namespace and (holder is self.func.__globals__ or any(holder is c for c in closure)):
                namespace[name] = value
        self._generation += 1
        return True


def _stale() -> bool:
    """The guard of a derivative not loaded yet."""
    return False


_NOT_DIFFERENTIABLE = frozenset({int, bool, np.int64, np.int32, np.bool_})
_CONTAINERS = (tuple, list, dict)
_FLOATS = frozenset({float, np.float64, np.float32})
_ARRAY, _FLOAT64 = np.ndarray, np.dtype(np.float64)


def _raised_binding(error: TypeError) -> bool:
    """Whether ``error`` was raised binding the arguments of the generated function, not inside it."""
    frame = error.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    return frame.tb_frame.f_code in (Derivative.__call__.__code__, _BINDING_CODE)


_BINDING_CODE = bind_arguments(lambda x, *, scale: x, (), {"scale": 1.0}, lambda x, scale: x).__code__


_SPECIAL: Dict[str, Any] = {}   # srcad.calling's derivatives called other than with f's arguments, set on import


def use_special_calls(kinds: Dict[str, Any]) -> None:
    """Give the derivatives called other than with f's plain arguments (``srcad.calling`` sets them when srcad
    is imported): ``"method"`` (per object), ``"objects"`` (containers field by field), ``"whole object"``
    (``wrt='self'``) and ``"variadic"`` (``f(*xs, **kw)``).

    Example::

        >>> from srcad import api, calling
        >>> api.use_special_calls(calling.KINDS)
    """
    _SPECIAL.update(kinds)


_verifier: Optional[Callable[["Derivative", tuple, dict], Any]] = None   # srcad.verify's, set on import


def use_verifier(verified_call: Callable[["Derivative", tuple, dict], Any]) -> None:
    """With ``config.verify`` on, derivatives are called through ``verified_call(derivative, args, kwargs)``.

    ``srcad.verify`` sets it when srcad is imported: it checks each new argument signature against
    finite differences, and calls the derivative again with the check off (``VERIFYING``).

    Example::

        >>> from srcad import api, verify
        >>> api.use_verifier(verify.verified_call)
    """
    global _verifier
    _verifier = verified_call


class _Verifying(threading.local):
    active = False   # a check is running on this thread: its own derivatives are not checked again


VERIFYING = _Verifying()



_BY_FUNCTION: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def derivative(func: Callable, wrt: Wrt = 0, mode: str = "reverse", optimize: bool = True,
               **options) -> Derivative:
    """The shared ``Derivative`` of ``func`` (one per function, wrt, mode and options).

    Generated code uses it to call the derivatives of the user's own functions.

    Example::

        dg = derivative(g, wrt=(0, 1), mode="reverse")
    """
    return _derivative(func, wrt, mode, optimize, **options)


def _derivative(func, wrt, mode, optimize, **options) -> Derivative:
    """The shared ``Derivative`` for these arguments (one per function and options)."""
    options = {key: value for key, value in options.items() if value}   # flags left off are not part of keys
    options["optimize"] = bool(optimize)
    target = func if isinstance(func, functools.partial) else unwrap(func)   # a partial's arguments are its own
    key = (repr(wrt), mode, tuple(sorted(options.items())))
    try:
        per_function = _BY_FUNCTION.setdefault(target, {})
    except TypeError:  # not weak-referenceable: no sharing
        return Derivative(func, wrt, mode, options)
    if inspect.ismethod(func):  # bound methods differ per instance
        return Derivative(func, wrt, mode, options)
    derivative = per_function.get(key)
    if derivative is None:
        kind = _SPECIAL["method"] if options.get("per_receiver") else Derivative
        derivative = per_function[key] = kind(func, wrt, mode, options)
    return derivative


def grad(func: Optional[Callable] = None, wrt: Wrt = 0, *, has_aux: bool = False, optimize: bool = True,
         checkpoints: Optional[int] = None):
    """The gradient of scalar-valued ``func`` with respect to the ``wrt`` parameters.

    Works as ``@srcad.grad``, ``@srcad.grad(wrt=1)`` or ``srcad.grad(f, wrt=('x', 'y'))``.
    With ``has_aux=True``, f returns ``(out, aux)`` and the derivative returns ``(gradient, aux)``.
    With ``checkpoints=K``, f's top-level ``for`` loops over ``range`` keep at most K states for the
    reverse sweep and recompute the others (binomial checkpointing, ``srcad.passes.checkpoints``).

    Example::

        >>> import numpy as np, srcad
        >>> def f(x, y):
        ...     return np.sum(x * y)
        >>> srcad.grad(f, wrt=(0, 1))(np.ones(2), np.arange(2.0))   # doctest: +SKIP
        (array([0., 1.]), array([1., 1.]))
    """
    checkpoints = checked_snapshots(checkpoints)
    if func is None:
        return lambda f: _derivative(f, wrt, "reverse", optimize, has_aux=has_aux, checkpoints=checkpoints)
    return _derivative(func, wrt, "reverse", optimize, has_aux=has_aux, checkpoints=checkpoints)


def autodiff(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True,
             checkpoints: Optional[int] = None):
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
    return _derivative(func, wrt, mode, optimize, checkpoints=checked_snapshots(checkpoints))


def source(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True,
           ranks: Optional[Sequence[int]] = None, checkpoints: Optional[int] = None) -> str:
    """The generated source of ``func``'s derivative.

    ``ranks`` (one number of dimensions per positional argument) shows the
    variant that runs when a function whose loops store into arrays element
    by element is called with arrays of those ranks.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return x * x
        >>> print(srcad.source(f))   # doctest: +SKIP
        >>> print(srcad.source(pool, ranks=(2,)))   # doctest: +SKIP
    """
    return _derivative(func, wrt, mode, optimize, param_ranks=tuple(ranks) if ranks else None,
                       checkpoints=checked_snapshots(checkpoints)).source


use_derivative_service(derivative)   # passes build the derivatives of callees through it
