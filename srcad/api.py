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
import types
import weakref

import numpy as np
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from . import cache, dependencies
from .frontend import loader, tracebacks
from .config import config
from .errors import SrcadError, UnsupportedSyntaxError, located
from .arguments import (Wrt, integer_argument, mirror_gradients, object_gradient, object_paths, object_tangents,
                        parameter_names, rebound_call, refused_argument, resolve_wrt)
from .overflow import clean, settled
from .pipeline import build, use_derivative_service
from .trees import is_container
from .frontend.source import parse_function, unwrap
from .variants import all_scalars, float_ranks, indexes_elements, regroup, variadic_variant, written_out

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
        self.bound_self = self._prefix[0] if _is_method(func) else None
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
                self.__class__ = _VariadicDerivative   # a variant per number of arguments and keywords
                self.wrt, self.as_tuple = (), isinstance(self.requested_wrt, (tuple, list))
            elif variadic:   # such a variant: wrt names its written-out parameters
                self.wrt, self.as_tuple = tuple(self.requested_wrt), True
            else:
                self.wrt, self.as_tuple = resolve_wrt(func, self.requested_wrt, len(self._prefix))
            if set(self.wrt) & set(parameter_names(func)[0][:len(self._prefix)]):
                self.__class__ = _WholeObjectDerivative   # wrt='self': the object's fields, one by one
        options = self._requested_options
        positional = parameter_names(func)[0] if inspect.isfunction(func) else ()
        if options.get("variadic"):
            positional += written_out(func, *options["variadic"])[0]
        offset = self._offset = len(self._prefix)   # a bound method's self, a partial's arguments
        self._wrt_positions = tuple(positional.index(n) - offset for n in self.wrt
                                    if n in positional and positional.index(n) >= offset)
        self.options = dict(options, tuple_result=self.as_tuple)
        # None: build on the first all-scalar call; False: never (this is that variant, or a method)
        self._scalar_variant = False if options.get("scalar_params") or offset or self._fixed else None
        self._scalar_function: Optional[Callable] = None
        self._scalar_generation = -1
        # None: decide on the first array call; False: never; else {argument ranks: variant}
        self._arity = len(positional) - offset
        self._rank_variants = False if options.get("scalar_params") or options.get("param_ranks") \
            or offset or self._fixed else None

    def __call__(self, *args, **kwargs):
        if config.verify and _verifier is not None and not VERIFYING.active:
            return _verifier(self, args, kwargs)
        try:
            if not self._current():
                if any(p < len(args) and is_container(args[p]) for p in self._wrt_positions):
                    return self._object_call(args, kwargs)   # not built for the whole object: field by field
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
            containers = False
            for position in self._wrt_positions:   # an int or bool has no derivative: say so
                if position >= len(args):
                    continue
                kind = args[position].__class__
                if kind is _ARRAY and args[position].dtype is _FLOAT64 or kind in _FLOATS \
                        or kind is _ARRAY and args[position].dtype.kind == "f":
                    continue
                if kind in _NOT_DIFFERENTIABLE or kind is np.ndarray and args[position].dtype.kind in "biu":
                    raise integer_argument(self.func, position + self._offset, args[position])
                if isinstance(args[position], _CONTAINERS):
                    containers = True
                elif is_container(args[position]):   # a dataclass, an object holding arrays
                    return self._object_call(args, kwargs)
                elif not isinstance(args[position], numbers.Real) or kind is np.ndarray:
                    # a complex number or array, a str, None...: no real derivative to give
                    raise refused_argument(self.func, position + self._offset, args[position])
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
            if error.__class__ is TypeError and _raised_binding(error):   # the call does not fit: fit it, or say how
                args, kwargs = rebound_call(self.func, self._generated, self._offset, self._fixed, self.mode,
                                            args, kwargs)
                return self(*args, **kwargs)
            tracebacks.annotate(error)
            raise

    def _object_call(self, args, kwargs):
        """Containers where f is differentiated (a dataclass, an object holding arrays, the object of a bound
        method named in wrt): each float field is differentiated (``wrt='params.W'``...) by a variant made per
        container type, and each gradient comes back as an object of its container's type."""
        positional = parameter_names(self.func)[0]
        values = dict(zip(positional, self._prefix + tuple(args)))
        objects = {name: values[name] for name in self.wrt if name in values and is_container(values[name])}
        groups = [(name, object_paths(name, objects[name]) if name in objects else [name]) for name in self.wrt]
        expanded = tuple(path for _, paths in groups for path in paths)
        variants = self.__dict__.setdefault("_object_variants", {})
        key = (expanded, tuple(type(value) for value in objects.values()))
        variant = variants.get(key)
        if variant is None:
            options = {k: v for k, v in self.options.items() if k != "tuple_result"}
            variant = variants[key] = Derivative(self._given, expanded, self.mode, options)
        variant._examples = objects
        if self.mode == "forward":   # one tangent per field, by name: they may be keyword-only
            tangents = []
            for (name, paths), tangent in zip(groups, args[self._arity:]):
                tangents += object_tangents(objects[name], name, tangent) if name in objects else [tangent]
            names = variant.parameters[len(variant.parameters) - len(expanded):]
            return variant(*args[:self._arity], **dict(zip(names, tangents)), **kwargs)
        result = variant(*args, **kwargs)
        grads = result[1] if self.options.get("with_value") else result[0] if self.options.get("has_aux") else result
        by_path = dict(zip(expanded, grads if len(expanded) > 1 else (grads,)))
        entries = tuple(object_gradient(objects[name], name, by_path) if name in objects else by_path[name]
                        for name, _ in groups)
        grads = entries if self.as_tuple or len(entries) > 1 else entries[0]
        if self.options.get("with_value"):
            return result[0], grads
        return (grads,) + tuple(result[1:]) if self.options.get("has_aux") else grads

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
        function = loader.instantiate(entry[1], entry[2], entry[3], self.func, entry[4])
        if function is None:  # the cached module names something the scope no longer has
            entry = _MEMORY[key] = cache.compiled_entry(self.func, key, self.wrt, self.mode, building, build,
                                                        fresh=True)
            function = loader.instantiate(entry[1], entry[2], entry[3], self.func, entry[4])
        source, _, _, injected, _ = entry
        function = generated = loader.with_defaults_of(self.func, function)
        if self._prefix or self._fixed:
            function = _bind(function, self._prefix, self._fixed, self.func)
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


class _WholeObjectDerivative(Derivative):
    """A derivative with respect to a bound method's object itself (``wrt='self'``): field by field."""

    def __call__(self, *args, **kwargs):
        try:
            return self._object_call(args, kwargs)
        except Exception as error:
            tracebacks.annotate(error)
            raise


class _VariadicDerivative(Derivative):
    """A derivative of ``f(*xs, **kw)``: one variant per number of arguments and keywords, whose parameters
    are written out (``xs_0, xs_1``; ``passes/star_arguments``).  Positional arguments are all f's: the seed
    and the tangents go by keyword (or through ``srcad.vjp`` and ``srcad.jvp``)."""

    def __call__(self, *args, **kwargs):
        try:
            return self.split_call(args, (), kwargs)
        except Exception as error:
            tracebacks.annotate(error)
            raise

    def split_call(self, args: tuple, extras: tuple, kwargs: Dict[str, Any]):
        """The derivative at f's arguments ``args`` (and ``kwargs``), with the seed or tangents ``extras``."""
        named, keyword_only = parameter_names(self.func)
        keywords = [key for key in kwargs if key not in named + keyword_only]
        variant, plan, names, flat, groups = self._variant(args, keywords)
        trailing = self._trailing(variant, plan)
        if set(keywords) & set(trailing):   # the seed or tangents given by keyword, not f's
            keywords = [key for key in keywords if key not in trailing]
            variant, plan, names, flat, groups = self._variant(args, keywords)
            trailing = self._trailing(variant, plan)
        given = {names.get(key, key): value for key, value in kwargs.items()}
        given.update(zip(trailing, extras))
        result = variant(*args, **given)
        if self.mode == "forward":
            return result
        grads = result[1] if self.options.get("with_value") else result[0] if self.options.get("has_aux") else result
        grads = regroup(grads, flat, groups, self.as_tuple)
        if self.options.get("with_value"):
            return result[0], grads
        return (grads,) + tuple(result[1:]) if self.options.get("has_aux") else grads

    def trailing_for(self, arguments: int, keywords) -> list:
        """The seed's or tangents' names of the variant for a call with ``arguments`` positional arguments and
        the keywords ``keywords`` (generated code calls it so, passing them by name)."""
        named, keyword_only = parameter_names(self.func)
        variant, plan, _, _, _ = self._variant((None,) * arguments, [k for k in keywords if k not in named + keyword_only])
        return self._trailing(variant, plan)

    def _variant(self, args, keywords):
        plan, names, flat, groups = variadic_variant(self.func, len(self._prefix), self.requested_wrt, len(args),
                                                     keywords)
        variants = self.__dict__.setdefault("_variadic_variants", {})
        if (plan, flat) not in variants:
            options = {k: v for k, v in self.options.items() if k != "tuple_result"}
            variants[(plan, flat)] = Derivative(self._given, flat, self.mode, dict(options, variadic=plan))
        self._last = variants[(plan, flat)]
        return self._last, plan, names, flat, groups

    def _trailing(self, variant, plan) -> list:
        """The variant's parameters after f's written-out ones: the seed or the tangents."""
        named, keyword_only = parameter_names(self.func)
        positional, keywords = written_out(self.func, *plan)
        own = set(named) | set(keyword_only) | set(positional) | set(keywords.values())
        return [name for name in variant.parameters if name not in own]

    @property
    def source(self) -> str:
        """The source of the variant called last (before any call, the one for one argument in ``*xs``)."""
        return self._shown().source

    @property
    def parameters(self) -> Tuple[str, ...]:
        """The parameters of the variant called last (see ``source``)."""
        return self._shown().parameters

    def _shown(self) -> Derivative:
        if "_last" not in self.__dict__:
            self._variant((None,) * (len(parameter_names(self.func)[0]) - len(self._prefix) + 1), ())
        return self._last


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


def _is_method(func) -> bool:
    while isinstance(func, functools.partial):
        func = func.func
    if isinstance(func, Derivative):
        return func.bound_self is not None
    return inspect.ismethod(func)


def bound_arguments(func) -> Tuple[tuple, Dict[str, Any]]:
    """The arguments ``func`` gives its plain function already: a bound method's object, a
    ``functools.partial``'s positional arguments and keywords (a derivative's, those of what it differentiates).

    Example::

        >>> import functools
        >>> def g(x, scale): return x * scale
        >>> bound_arguments(functools.partial(g, scale=2.0))
        ((), {'scale': 2.0})
    """
    if isinstance(func, Derivative):
        return func._prefix, dict(func._fixed)
    if isinstance(func, functools.partial):
        prefix, fixed = bound_arguments(func.func)
        return prefix + tuple(func.args), dict(fixed, **func.keywords)
    if inspect.ismethod(func):
        return (func.__self__,), {}
    return (), {}


def _bind(function, prefix: tuple, fixed: Dict[str, Any], func):
    """The generated ``function`` with ``prefix`` and ``fixed`` given.  Positional arguments past those
    ``func`` (the function differentiated) still takes positionally are the seed or the tangents: they go by
    keyword, since the generated function takes them after parameters a partial gives by keyword."""
    if not fixed:
        if len(prefix) == 1:
            return types.MethodType(function, prefix[0])
        return functools.partial(function, *prefix)
    positional, keyword = parameter_names(func)
    visible = len([name for name in positional[len(prefix):] if name not in fixed])
    trailing = [name for name in inspect.signature(function).parameters if name not in positional + keyword]

    def bound(*args, **kwargs):
        if len(args) > visible:
            kwargs = dict(zip(trailing, args[visible:]), **kwargs)
            args = args[:visible]
        return function(*prefix, *args, **dict(fixed, **kwargs))
    bound.__wrapped__ = function
    return bound


_BINDING_CODE = _bind(lambda x, *, scale: x, (), {"scale": 1.0}, lambda x, scale: x).__code__


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
    target = unwrap(func)
    key = (repr(wrt), mode, tuple(sorted(options.items())))
    try:
        per_function = _BY_FUNCTION.setdefault(target, {})
    except TypeError:  # not weak-referenceable: no sharing
        return Derivative(func, wrt, mode, options)
    if inspect.ismethod(func):  # bound methods differ per instance
        return Derivative(func, wrt, mode, options)
    derivative = per_function.get(key)
    if derivative is None:
        kind = MethodDerivative if options.get("per_receiver") else Derivative
        derivative = per_function[key] = kind(func, wrt, mode, options)
    return derivative


class MethodDerivative:
    """The derivative of a method the generated code calls with its object first, ``dforward(self, x)``:
    one derivative per object, its bound method's, so calls through ``self`` inside are resolved.

    ``wrt`` counts the object as position 0 (it is never differentiated itself).

    Example::

        dforward = derivative(Model.forward, wrt=1, mode="reverse", per_receiver=True)
        dx = dforward(model, x, dout=1.0)
    """

    def __init__(self, func: Callable, wrt: Wrt, mode: str, options: Dict[str, Any]):
        self.func, self.requested_wrt, self.mode, self.options = unwrap(func), wrt, mode, dict(options)
        shifted = [entry - 1 if isinstance(entry, int) else entry
                   for entry in (wrt if isinstance(wrt, (tuple, list)) else [wrt])]
        self._wrt = tuple(shifted) if isinstance(wrt, (tuple, list)) else shifted[0]
        self._options = {k: v for k, v in options.items() if k != "per_receiver"}
        self._bound: Dict[int, Tuple[Callable[[], Any], Derivative]] = {}

    def bind(self, obj) -> Derivative:
        """The derivative of ``obj``'s bound method, made on first use and kept while ``obj`` lives."""
        entry = self._bound.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        derivative = Derivative(types.MethodType(self.func, obj), self._wrt, self.mode, self._options)
        try:
            alive = weakref.ref(obj, lambda _, key=id(obj), bound=self._bound: bound.pop(key, None))
        except TypeError:   # not weak-referenceable: kept for the life of this derivative
            alive = (lambda kept=obj: kept)
        self._bound[id(obj)] = (alive, derivative)
        return derivative

    def __call__(self, obj, *args, **kwargs):
        return self.bind(obj)(*args, **kwargs)


def grad(func: Optional[Callable] = None, wrt: Wrt = 0, *, has_aux: bool = False, optimize: bool = True):
    """The gradient of scalar-valued ``func`` with respect to the ``wrt`` parameters.

    Works as ``@srcad.grad``, ``@srcad.grad(wrt=1)`` or ``srcad.grad(f, wrt=('x', 'y'))``.
    With ``has_aux=True``, f returns ``(out, aux)`` and the derivative returns ``(gradient, aux)``.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x, y):
        ...     return np.sum(x * y)
        >>> srcad.grad(f, wrt=(0, 1))(np.ones(2), np.arange(2.0))   # doctest: +SKIP
        (array([0., 1.]), array([1., 1.]))
    """
    if func is None:
        return lambda f: _derivative(f, wrt, "reverse", optimize, has_aux=has_aux)
    return _derivative(func, wrt, "reverse", optimize, has_aux=has_aux)


def autodiff(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True):
    """The derivative of ``func`` as a vector-Jacobian (reverse) or Jacobian-vector (forward) product.

    Reverse mode: ``df(*args, seed)`` returns the seed pulled back to each wrt
    parameter.  Forward mode: ``df(*args, *tangents)`` returns the output's
    tangent for the given input tangents.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sin(x)
        >>> srcad.autodiff(f)(np.zeros(2), np.array([1.0, 2.0]))   # doctest: +SKIP
        array([1., 2.])
    """
    return _derivative(func, wrt, mode, optimize)


def source(func: Callable, wrt: Wrt = 0, mode: str = "reverse", *, optimize: bool = True,
           ranks: Optional[Sequence[int]] = None) -> str:
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
    return _derivative(func, wrt, mode, optimize, param_ranks=tuple(ranks) if ranks else None).source


use_derivative_service(derivative)   # passes build the derivatives of callees through it
