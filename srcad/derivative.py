"""A derivative object: calling it, its variants, one shared per function, and pickling it.

Contract:
- ``Derivative(func, wrt, mode, options)`` is called like ``func``.  Every
  call first checks, by identity, that nothing it was built from changed
  (``srcad.dependencies``); when something did, it has the loader find or
  build the derivative that fits what runs now (``srcad.api`` hands the
  loader down through ``use_loader`` when srcad is imported).
- ``derivative(func, wrt, mode, optimize, **options)`` is the shared
  ``Derivative``: one per function, wrt, mode and options (a bound method's
  is its own).
- A derivative pickles as what it is built from: the function it was given
  (by reference, or by value under cloudpickle), ``wrt``, mode, options, and
  the cache key of the derivative it is.  No generated code is sent: the
  receiving process loads it from its memory or disk cache, or builds it.
  When the key computed there differs (another source, another srcad), the
  unpickled derivative raises ``StaleSourceError`` when called
  (``srcad.pickling``).

Example::

    >>> import pickle
    >>> pickle.loads(pickle.dumps(df)) is df   # doctest: +SKIP
    True
"""
from __future__ import annotations

import functools
import inspect
import numbers
import threading
import weakref

import numpy as np
from typing import Any, Callable, Dict, Optional, Tuple

from . import pickling
from .config import config
from .errors import SrcadError, StaleSourceError
from .arguments import (Wrt, bind_arguments, bound_arguments, integer_argument, is_method, mirror_gradients,
                        parameter_names, rebound_call, refused_argument, resolve_wrt,
                        complex_argument, complex_fields_error, complex_gradients, holds_complex)
from .frontend import tracebacks
from .overflow import clean, settled
from .runtime.dispatch import is_duck_array
from .shared_arguments import shared_arguments_check
from .trees import is_container
from .frontend.source import unwrap
from .variants import all_scalars, float_ranks, indexes_elements, multiplies_arrays, written_out

MODES = ("reverse", "forward")

class Derivative:
    """A derivative of ``func``, built on first call and cached.  Call it like the function.

    Every call first checks, by identity, that nothing it was built from
    changed (``srcad.dependencies``); when something did, it finds or builds
    the derivative that fits what runs now.
    """

    def __init__(self, func: Callable, wrt: Wrt, mode: str, options: Dict[str, Any]):
        if mode not in MODES:
            raise SrcadError(f"mode={mode!r} is not a mode; use 'reverse' or 'forward'")
        if isinstance(func, pickling.StaleDerivative):   # unpickled, of source that differs here
            raise StaleSourceError(func.message)
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

        Only functions whose loops index arrays element by element, or that multiply matrices, get variants;
        for the others the general derivative is as good, and is used.  A
        variant depends on what this derivative depends on, so it is loaded
        again whenever this one is.
        """
        if self._rank_variants is None:
            self._rank_variants = {} if indexes_elements(self.func) or multiplies_arrays(self.func) else False
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
        """Record what the derivative depends on now; reuse, load or build the module that fits; bind it
        (``srcad.api.load``, handed down through ``use_loader``)."""
        _LOADER[0](self)

    def __reduce__(self):
        """Pickled as what it is built from, never as generated code (see the module's contract)."""
        return unpickled, (pickling.by_reference(self._given), self.requested_wrt, self.mode,
                           self._requested_options, pickling.fingerprint_of(self), pickling.rule_modules(),
                           pickling.sent_sources(self._given))


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


_LOADER: list = []   # srcad.api.load, set on import


def use_loader(load: Callable[["Derivative"], None]) -> None:
    """Have derivatives loaded by ``load(derivative)`` (``srcad.api`` sets it when srcad is imported): it
    records what the derivative depends on, finds or builds the module that fits, and binds it.

    Example::

        >>> from srcad import api, derivative
        >>> derivative.use_loader(api.load)
    """
    _LOADER[:] = [load]


def unpickled(given: Callable, wrt: Wrt, mode: str, options: Dict[str, Any], fingerprint,
              rule_modules=(), sources=()) -> Callable:
    """The derivative a pickle holds, in this process: the shared one of ``given``, or, when the key of
    ``given`` as this process has it differs from the pickled ``fingerprint``, a stand-in whose every call
    raises ``StaleSourceError`` (``srcad.pickling``)."""
    if isinstance(given, pickling.StaleDerivative):   # a derivative of a stale derivative is stale
        return given
    pickling.import_rule_modules(rule_modules)   # the rules the sender had: the SciPy families, the user's
    pickling.restore_sources(given, sources)   # the source of what cloudpickle sent by value
    kept = dict(options)
    derivative = _derivative(given, wrt, mode, kept.pop("optimize", True), **kept)
    return derivative if fingerprint is None else pickling.stale_or(derivative, fingerprint,
                                                                   pickling.fingerprint_of(derivative))
