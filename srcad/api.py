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
- Derivatives are built on first use, cached in memory per function and on
  disk per source text, and rebuilt when a rule is registered, a closure
  value or a global the derivative reads is rebound.

Example::

    >>> import numpy as np, srcad
    >>> @srcad.grad
    ... def f(x):
    ...     return np.sum(np.sin(x))
    >>> f(np.zeros(2))   # doctest: +SKIP
    array([1., 1.])
"""
from __future__ import annotations

import inspect
import threading
import weakref

import numpy as np
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from . import cache
from .frontend import loader, tracebacks
from .config import config
from .errors import SrcadError, UnsupportedSyntaxError, WrtError, located
from .arguments import Wrt, like_structure, parameter_names, resolve_wrt
from .pipeline import build, use_derivative_service
from .frontend.source import parse_function, unwrap
from .templates import REGISTRY
from .variants import all_scalars, float_ranks, indexes_elements

MODES = ("reverse", "forward")
_MEMORY: Dict[str, Tuple[str, Any, str, Tuple[str, ...], Dict[str, Any]]] = {}


class Derivative:
    """A derivative of ``func``, built on first call and cached.  Call it like the function."""

    def __init__(self, func: Callable, wrt: Wrt, mode: str, options: Dict[str, Any]):
        if mode not in MODES:
            raise SrcadError(f"mode={mode!r} is not a mode; use 'reverse' or 'forward'")
        self.bound_self = getattr(func, "__self__", None) if inspect.ismethod(func) else None
        self.func = unwrap(func)
        if not callable(self.func):
            raise SrcadError(f"{func!r} is not a function")
        if not inspect.isfunction(self.func):
            self.wrt, self.as_tuple = (), False
        else:
            variadic = [p for p in inspect.signature(self.func).parameters.values()
                        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if variadic:
                parsed = parse_function(self.func)
                raise located(UnsupportedSyntaxError, f"the parameter `{variadic[0]}` is not supported",
                              "name each parameter explicitly", parsed.location(parsed.tree))
            self.wrt, self.as_tuple = resolve_wrt(func if inspect.ismethod(func) else self.func, wrt)
        self.mode = mode
        self.requested_wrt = wrt
        positional = parameter_names(self.func)[0] if inspect.isfunction(self.func) else ()
        offset = 1 if self.bound_self is not None else 0
        self._wrt_positions = tuple(positional.index(n) - offset for n in self.wrt
                                    if n in positional and positional.index(n) >= offset)
        self.options = dict(options, tuple_result=self.as_tuple)
        self._compiled: Optional[Callable] = None
        # None: build on the first all-scalar call; False: never (this is that variant, or a method)
        self._scalar_variant = False if options.get("scalar_params") or self.bound_self is not None else None
        self._scalar_function: Optional[Callable] = None
        self._scalar_version = -1
        # None: decide on the first array call; False: never; else {argument ranks: variant}
        self._arity = len(positional) - offset
        self._rank_variants = False if options.get("scalar_params") or options.get("param_ranks") \
            or self.bound_self is not None else None
        self._version = -1
        self._watched: Tuple = ()
        self.__name__ = f"d{getattr(self.func, '__name__', 'f')}"
        self.__doc__ = f"{mode}-mode derivative of {getattr(self.func, '__qualname__', self.func)}"

    def __call__(self, *args, **kwargs):
        if config.verify and _verifier is not None and not _THREAD.__dict__.get("verifying"):
            return _verified_call(self, args, kwargs)
        try:
            if self._version != REGISTRY.version or self._watched and self._scope_changed():
                self._load()
            if self._scalar_variant is not False and not kwargs and args:   # floats only: the quickest way
                for arg in args:
                    if arg.__class__ not in _FLOATS:
                        break
                else:
                    return self._scalar_function_now()(*args)
            containers = False
            for position in self._wrt_positions:   # an int or bool has no derivative: say so
                if position >= len(args):
                    continue
                kind = args[position].__class__
                if kind in _NOT_DIFFERENTIABLE or kind is np.ndarray and args[position].dtype.kind in "biu":
                    raise self._integer_argument(position, args[position])
                containers = containers or isinstance(args[position], _CONTAINERS)
            if containers and self.mode == "reverse":   # a tuple's gradient is built as a list: give a tuple back
                return self._mirror(self._compiled(*args, **kwargs), args)
            if self._scalar_variant is not False and not kwargs and args and all_scalars(args):
                return self._scalar_function_now()(*args)
            if self._rank_variants is not False and not kwargs and args:
                ranks = float_ranks(args[:self._arity])   # f's own arguments, not seeds or tangents
                if ranks is not None:
                    return self._rank_variant(ranks)(*args)
            return self._compiled(*args, **kwargs)
        except Exception as error:   # raised inside the derivative: note the generated and user lines
            tracebacks.annotate(error)
            raise

    def _mirror(self, result, args):
        """``result`` with each gradient's lists made tuples where its argument has tuples."""
        grads = result[1] if self.options.get("with_value") else result[0] if self.options.get("has_aux") \
            else result
        single = len(self.wrt) == 1 and not self.as_tuple
        entries = [grads] if single else list(grads)
        positional = parameter_names(self.func)[0]
        offset = 1 if self.bound_self is not None else 0
        for index, name in enumerate(self.wrt):
            position = positional.index(name) - offset if name in positional else -1
            if 0 <= position < len(args):
                entries[index] = like_structure(entries[index], args[position])
        grads = entries[0] if single else tuple(entries)
        if self.options.get("with_value"):
            return (result[0], grads)
        return (grads,) + tuple(result[1:]) if self.options.get("has_aux") else grads

    def _integer_argument(self, position, value) -> WrtError:
        name = parameter_names(self.func)[0][position + (1 if self.bound_self is not None else 0)]
        kind = (f"an array of dtype {value.dtype}" if isinstance(value, np.ndarray)
                else {"int": "an int", "bool": "a bool"}.get(type(value).__name__, f"a {type(value).__name__}"))
        return WrtError(f"cannot differentiate {getattr(self.func, '__name__', 'f')} with respect to `{name}`: "
                        f"it is {kind}, which has no derivative; pass floats (e.g. {name}=float(...) or "
                        f"{name}.astype(float)), or leave `{name}` out of wrt")

    def _scalar_function_now(self):
        """The all-scalar variant's function, (re)built when missing or stale."""
        function = self._scalar_function
        if function is None or self._scalar_version != self._version:
            function = self._load_scalar_variant()
        return function

    def _load_scalar_variant(self):
        """All arguments are scalars: the variant generated knowing it (no broadcasting helpers)."""
        if self._scalar_variant is None:
            options = {k: v for k, v in self.options.items() if k != "tuple_result"}
            self._scalar_variant = Derivative(self.func, self.requested_wrt, self.mode,
                                              dict(options, scalar_params=True))
        self._scalar_variant._load()
        self._scalar_function, self._scalar_version = self._scalar_variant._compiled, self._version
        return self._scalar_function

    def _rank_variant(self, ranks):
        """The variant generated knowing each argument's rank (``A[i, j]`` of a 2-D ``A`` is a scalar).

        Only functions whose loops index arrays element by element get variants;
        for the others the general derivative is as good, and is used.
        """
        if self._rank_variants is None:
            self._rank_variants = {} if indexes_elements(self.func) else False
            if self._rank_variants is False:
                return self._compiled
        variant = self._rank_variants.get(ranks)
        if variant is None:
            options = {k: v for k, v in self.options.items() if k != "tuple_result"}
            variant = self._rank_variants[ranks] = Derivative(self.func, self.requested_wrt, self.mode,
                                                              dict(options, param_ranks=ranks))
        if variant._compiled is None or variant._version != REGISTRY.version:
            variant._load()
        return variant._compiled

    @property
    def parameters(self) -> Tuple[str, ...]:
        """The generated function's parameter names (f's, then the seed or the tangents)."""
        if self._compiled is None or self._version != REGISTRY.version:
            self._load()
        function = self._compiled
        return tuple(inspect.signature(getattr(function, "__wrapped__", function)).parameters)

    @property
    def source(self) -> str:
        """The generated source of this derivative."""
        return self._entry()[0]

    def _scope_changed(self) -> bool:
        for name, value in self._watched:
            if loader.scope_value(self.func, name, {}) is not value:
                return True
        return False

    def _entry(self):
        if not inspect.isfunction(self.func):
            parse_function(self.func)   # raises SourceUnavailableError with the fix
        key = cache.disk_key(self.func, self.wrt, self.mode, self.options)
        entry = _MEMORY.get(key)
        if entry is None:
            entry = _MEMORY[key] = _compile_entry(self.func, key, self.wrt, self.mode, self.options)
        return entry

    def _load(self) -> None:
        version = REGISTRY.version
        source, code, name, injected, fallback = self._entry()
        function = loader.instantiate(code, name, injected, self.func, fallback)
        if function is None:  # the cached module names something the scope no longer has
            key = cache.disk_key(self.func, self.wrt, self.mode, self.options)
            _MEMORY[key] = _compile_entry(self.func, key, self.wrt, self.mode, self.options, fresh=True)
            source, code, name, injected, fallback = _MEMORY[key]
            function = loader.instantiate(code, name, injected, self.func, fallback)
        if self.bound_self is not None:
            function = _bind(function, self.bound_self)
        self._watched = tuple((n, loader.scope_value(self.func, n, fallback)) for n in injected)
        self._compiled = function
        self._version = version


_NOT_DIFFERENTIABLE = frozenset({int, bool, np.int64, np.int32, np.bool_})
_CONTAINERS = (tuple, list, dict)
_FLOATS = frozenset({float, np.float64, np.float32})


def _bind(function, obj):
    def bound(*args, **kwargs):
        return function(obj, *args, **kwargs)
    return bound


_THREAD = threading.local()   # .building: functions this thread is building derivatives of (recursion check)
# .verifying: a check is running (its own derivatives are not checked again)
_verifier: Optional[Callable[[Derivative, tuple, dict], None]] = None


def use_verifier(verify: Callable[["Derivative", tuple, dict], None]) -> None:
    """With ``config.verify`` on, ``verify(derivative, args, kwargs)`` checks each new argument signature.

    ``srcad.verify`` sets it when srcad is imported; it raises on disagreement.

    Example::

        >>> from srcad import api, verify
        >>> api.use_verifier(verify.verify_call)
    """
    global _verifier
    _verifier = verify


def _verified_call(derivative: "Derivative", args: tuple, kwargs: dict):
    """The derivative's result, checked first when this argument signature is new to it."""
    _THREAD.verifying = True
    try:
        result = derivative(*args, **kwargs)
        signature = (tuple(_signature_of(a) for a in args), tuple(sorted(kwargs)))
        checked = derivative.__dict__.setdefault("_verified_signatures", set())
        if signature not in checked:
            _verifier(derivative, args, kwargs)
            checked.add(signature)
    finally:
        _THREAD.verifying = False
    return result


def _signature_of(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_signature_of(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(((repr(k), _signature_of(v)) for k, v in value.items()), key=repr)))
    return (type(value).__name__,)



def _compile_entry(func, key, wrt, mode, options, fresh=False):
    function_label = func.__name__
    if not fresh:
        hit = cache.load(key, function_label)
        if hit is not None:
            text, path = hit
            source = text.partition("\n")[2]
            meta = _read_meta(source)
            if meta is not None:
                name, injected = meta
                try:
                    return source, loader.compile_text(text, path, key[:12]), name, injected, {}
                except (SyntaxError, ValueError):   # a damaged file: build it again
                    pass
    building = _THREAD.__dict__.setdefault("building", [])
    if func in building:
        chain = " -> ".join(f.__name__ for f in building + [func])
        raise SrcadError(f"{func.__name__} calls itself ({chain}); srcad cannot differentiate recursion. "
                         f"Rewrite the recursion as a loop, or register a rule for it with @srcad.adjoint")
    building.append(func)
    try:
        generated = build(func, wrt, mode, options)
    finally:
        building.pop()
    source = generated.source
    path = cache.store(key, function_label, source)
    text = cache.file_text(key, source)
    code = loader.compile_text(text, path, f"{function_label}-{key[:12]}")
    return source, code, generated.function_name, tuple(sorted(generated.injected)), generated.injected


def _read_meta(source: str):
    """(function name, injected names) recorded in a generated module's text."""
    injected = ()
    for line in source.splitlines():
        if line.startswith("# from the scope of "):
            injected = tuple(part.strip() for part in line.partition(": ")[2].split(","))
        elif line.startswith("def "):
            return line[4:line.index("(")], injected
    return None


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
        derivative = per_function[key] = Derivative(func, wrt, mode, options)
    return derivative


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
