"""Derivatives called other than with f's plain arguments: per object, per container, per argument count.

Contract (``srcad.derivative`` calls these through ``use_special_calls``, set when
srcad is imported):
- ``MethodDerivative``: the derivative of a method that generated code calls
  with its object first (``dforward(self, x, dout=...)``): one derivative
  per object, its bound method's, kept while the object lives; ``wrt``
  counts the object as position 0.
- ``object_call(derivative, args, kwargs)``: a container (``srcad.trees``:
  a dataclass, an object holding arrays, a registered container, or the
  object of a bound method named in ``wrt``) where f is differentiated: a
  variant per container type differentiates each float field
  (``wrt='params.W'``, ``'params.b'``), and each container's gradient comes
  back as an object of its type; forward-mode tangents of containers are
  containers of the same type.
- ``WholeObjectDerivative``: a derivative with respect to a bound method's
  object itself (``wrt='self'``), called field by field.
- ``VariadicDerivative``: a derivative of ``f(*xs, **kw)``: a variant per
  number of arguments and keyword names (``srcad.variants.variadic_variant``);
  ``wrt='xs'`` gives a tuple, ``wrt='kw'`` a dict.  Positional arguments are
  all f's: the seed and tangents go by keyword, or through ``split_call``
  (as ``srcad.vjp`` and ``srcad.jvp`` do).

Example::

    >>> import numpy as np, srcad
    >>> def total(*xs):
    ...     return np.sum(xs[0] * xs[1])
    >>> srcad.grad(total, wrt="xs")(np.ones(2), np.arange(2.0))   # doctest: +SKIP
    (array([0., 1.]), array([1., 1.]))
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable, Dict, Tuple

from .derivative import Derivative, _derivative, use_special_calls
from .arguments import Wrt, object_gradient, object_paths, object_tangents, parameter_names
from .frontend import tracebacks
from .frontend.source import unwrap
from .trees import is_container
from .variants import regroup, variadic_variant, written_out


class MethodDerivative:
    """The derivative of a method called with its object first: one bound method's derivative per object.

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


def _with_gradients(derivative, result, regrouped: Callable[[Any], Any]):
    """A reverse-mode ``result`` with its gradients (not its value or aux) replaced by ``regrouped(them)``."""
    options = derivative.options
    gradients = result[1] if options.get("with_value") else result[0] if options.get("has_aux") else result
    gradients = regrouped(gradients)
    if options.get("with_value"):
        return result[0], gradients
    return (gradients,) + tuple(result[1:]) if options.get("has_aux") else gradients


def object_call(derivative: Derivative, args: tuple, kwargs: Dict[str, Any]):
    """``derivative(*args, **kwargs)`` with containers differentiated field by field (see the contract)."""
    positional = parameter_names(derivative.func)[0]
    values = dict(zip(positional, derivative._prefix + tuple(args)))
    objects = {name: values[name] for name in derivative.wrt if name in values and is_container(values[name])}
    groups = [(name, object_paths(name, objects[name]) if name in objects else [name]) for name in derivative.wrt]
    expanded = tuple(path for _, paths in groups for path in paths)
    variants = derivative.__dict__.setdefault("_object_variants", {})
    key = (expanded, tuple(type(value) for value in objects.values()))
    if key not in variants:
        options = {k: v for k, v in derivative.options.items() if k != "tuple_result"}
        variants[key] = Derivative(derivative._given, expanded, derivative.mode, options)
    variant = variants[key]
    variant._examples = objects
    if derivative.mode == "forward":   # one tangent per field, by name: they may be keyword-only
        tangents = []
        for (name, _), tangent in zip(groups, args[derivative._arity:]):
            tangents += object_tangents(objects[name], name, tangent) if name in objects else [tangent]
        names = variant.parameters[len(variant.parameters) - len(expanded):]
        return variant(*args[:derivative._arity], **dict(zip(names, tangents)), **kwargs)

    def regrouped(gradients):
        by_path = dict(zip(expanded, gradients if len(expanded) > 1 else (gradients,)))
        entries = tuple(object_gradient(objects[name], name, by_path) if name in objects else by_path[name]
                        for name, _ in groups)
        return entries if derivative.as_tuple or len(entries) > 1 else entries[0]
    return _with_gradients(derivative, variant(*args, **kwargs), regrouped)


class WholeObjectDerivative(Derivative):
    """A derivative with respect to a bound method's object itself (``wrt='self'``): field by field."""

    def __call__(self, *args, **kwargs):
        try:
            return object_call(self, args, kwargs)
        except Exception as error:
            tracebacks.annotate(error)
            raise


class VariadicDerivative(Derivative):
    """A derivative of ``f(*xs, **kw)``: a variant per number of arguments and keyword names."""

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
        variant, plan, names, flat, groups = self._variant(len(args), keywords)
        trailing = self._trailing(variant, plan)
        if set(keywords) & set(trailing):   # the seed or tangents given by keyword, not f's
            keywords = [key for key in keywords if key not in trailing]
            variant, plan, names, flat, groups = self._variant(len(args), keywords)
            trailing = self._trailing(variant, plan)
        given = {names.get(key, key): value for key, value in kwargs.items()}
        given.update(zip(trailing, extras))
        result = variant(*args, **given)
        if self.mode == "forward":
            return result
        return _with_gradients(self, result, lambda gradients: regroup(gradients, flat, groups, self.as_tuple))

    def variant_for(self, arguments: int, keywords) -> Tuple[Derivative, list]:
        """The derivative of the variant for a call with ``arguments`` positional arguments and ``keywords``
        (generated code calls it), and the names of its seed or tangents.  Its ``wrt`` names its written-out
        parameters, a single one alone (as ``srcad.passes.calls`` expects of a callee's derivative)."""
        named, keyword_only = parameter_names(self.func)
        plan, _, flat, _ = variadic_variant(self.func, len(self._prefix), self.requested_wrt, arguments,
                                            [k for k in keywords if k not in named + keyword_only])
        options = {k: v for k, v in self.options.items() if k not in ("tuple_result", "optimize")}
        variant = _derivative(self._given, flat if len(flat) != 1 else flat[0], self.mode,
                              self.options.get("optimize", True), **dict(options, variadic=plan))
        return variant, self._trailing(variant, plan)

    def _variant(self, arguments: int, keywords):
        plan, names, flat, groups = variadic_variant(self.func, len(self._prefix), self.requested_wrt, arguments,
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
            self._variant(len(parameter_names(self.func)[0]) - len(self._prefix) + 1, ())
        return self._last


KINDS = {"method": MethodDerivative, "objects": object_call, "whole object": WholeObjectDerivative,
         "variadic": VariadicDerivative}
use_special_calls(KINDS)
