"""A derivative object: calling it, its variants, one shared per function, and pickling it.

Contract:
- ``Derivative(func, wrt, mode, options)`` is called like ``func``.  Every
  call first checks, by identity, that nothing it was built from changed
  (``srcad.dependencies``); when something did, it has the loader find or
  build the derivative that fits what runs now (``srcad.api`` hands the
  loader down through ``use_loader`` when srcad is imported).
- Then a call of plain arguments (Python and NumPy floats, ints, NumPy float
  arrays; keywords of plain numbers, str, None, real arrays) runs the
  generated function found for the first call of the same kinds and ranks
  (the dispatch table of ``srcad.general_call``); any other call is
  examined argument by argument (``srcad.examined_call``).  Every load
  empties the table.  Arguments sharing memory are checked and a result
  holding a NaN is computed again (``srcad.overflow``) on every call.
- The second call of the same kinds since the last load writes out an entry
  for calls of those kinds (``srcad.call_entry``), which later calls go
  through first: it runs the same function under the same checks, and hands
  every other call to the general one.  A load drops it.
- The functions the layers above hand down (loader, verifier, special
  calls) are held by ``srcad.derivative_hooks``; the setters are importable
  from here too.
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
import weakref

from typing import Any, Callable, Dict, Optional, Tuple

from . import pickling
from .errors import SrcadError, StaleSourceError
from .arguments import Wrt, bound_arguments, is_method, parameter_names, resolve_wrt, holds_complex
from .derivative_hooks import LOADER, SPECIAL, VERIFYING, use_loader, use_special_calls, use_verifier
from .general_call import general_call
from .shared_arguments import shared_arguments_check
from .frontend.source import unwrap
from .variants import all_scalars, float_ranks, indexes_elements, multiplies_arrays, written_out

__all__ = ["Derivative", "derivative", "unpickled", "MODES", "VERIFYING", "use_loader", "use_special_calls",
           "use_verifier"]   # the hooks' setters live in srcad.derivative_hooks and are imported from here too

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
        self._table: Dict[int, Callable] = {}   # the dispatch table: a call's argument kinds -> the function it runs
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
                self.__class__ = SPECIAL["variadic"]   # a variant per number of arguments and keywords
                self.wrt, self.as_tuple = (), isinstance(self.requested_wrt, (tuple, list))
            elif variadic:   # such a variant: wrt names its written-out parameters
                requested = self.requested_wrt
                self.as_tuple = isinstance(requested, (tuple, list))
                self.wrt = tuple(requested) if self.as_tuple else (requested,)
            else:
                self.wrt, self.as_tuple = resolve_wrt(func, self.requested_wrt, len(self._prefix))
            if set(self.wrt) & set(parameter_names(func)[0][:len(self._prefix)]):
                self.__class__ = SPECIAL["whole object"]   # wrt='self': the object's fields, one by one
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

    # the general call (srcad.general_call); from the second call of the same kinds, an instance's class is one
    # whose __call__ is the entry written out for them (srcad.call_entry), until the next load
    __call__ = general_call


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

    def _plain_function(self, args: tuple, kwargs: Dict[str, Any], key: int, table: Dict[int, Callable]):
        """The generated function for a call of plain arguments (floats, ints, float arrays; keywords of plain
        numbers) whose kinds ``key`` the dispatch ``table`` does not hold yet, now recorded there; None, and
        nothing recorded, when an int stands where a derivative is asked (``examined_call`` refuses it).

        ``table`` is the one read before the function is found: a load replaces the table when it is done,
        so what was found from an older load never lands in the new table.
        """
        for position in self._wrt_positions:
            if position < len(args) and args[position].__class__ is int:
                return None
        if kwargs or not args:
            function = self._compiled
        elif self._scalar_variant is not False and all_scalars(args):
            function = self._scalar_function_now()
        else:   # the ranks of f's own arguments, not of seeds or tangents
            ranks = float_ranks(args[:self._arity]) if self._rank_variants is not False else None
            function = self._compiled if ranks is None else self._rank_variant(ranks)
        table[key] = function
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
        try:
            LOADER[0](self)
        finally:   # what was found before may be stale: from now on, find it again (see __call__)
            self._table = {}
            self.__class__ = getattr(self.__class__, "entry_of", self.__class__)   # back to the general call
            self.__dict__.pop("entry_kinds", None)   # with no kind of call written out

    def __reduce__(self):
        """Pickled as what it is built from, never as generated code (see the module's contract)."""
        return unpickled, (pickling.by_reference(self._given), self.requested_wrt, self.mode,
                           self._requested_options, pickling.fingerprint_of(self), pickling.rule_modules(),
                           pickling.sent_sources(self._given))


def _stale() -> bool:
    """The guard of a derivative not loaded yet."""
    return False


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
        kind = SPECIAL["method"] if options.get("per_receiver") else Derivative
        derivative = per_function[key] = kind(func, wrt, mode, options)
    return derivative


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
