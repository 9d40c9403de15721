"""What a derivative is taken with respect to, and the shape its gradients come back in.

Contract:
- ``Wrt`` is what ``wrt=`` accepts: a parameter position, a parameter name,
  the name of a global or closure variable the function reads, or a tuple or
  list of those.
- ``resolve_wrt(func, wrt)`` returns ``(names, as_tuple)``: the parameter
  names in the order given, and whether the caller asked for a tuple.  Any
  other entry (a bool, a float, a name the function neither takes nor reads,
  a position out of range, a name given twice) raises ``WrtError``.
- ``like_structure(gradient, argument)`` gives a gradient the container kinds
  of its argument (a tuple or named tuple argument gets one back), and
  ``mirror_gradients`` does it for each gradient of a derivative's result.
- ``integer_argument(func, position, value)`` is the ``WrtError`` for an
  int, bool or integer array passed where a derivative is taken.
- ``rebound_call`` binds the arguments of a derivative's call Python could
  not bind (the seed or tangents given by position after a function with
  defaults), or raises the error that says how to call it.
- A container object (``srcad.trees``: a dataclass, an object of the user's,
  a registered container) in a ``wrt`` position stands for its float fields:
  ``object_paths`` lists them as ``wrt`` entries (``params.W``),
  ``object_gradient`` builds its gradient (an object of its type) from
  theirs, and ``object_tangents`` reads a tangent of its type field by field.

Example::

    >>> def f(x, w, *, scale=1.0): return x * w * scale
    >>> resolve_wrt(f, ("w", 0))
    (('w', 'x'), True)
"""
from __future__ import annotations

import functools
import inspect
import numbers
import types
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import gast
import numpy as np

from .errors import ComplexError, SeedError, SrcadError, UnsupportedValueError, WrtError, located
from .frontend.source import parse_function, unwrap
from .trees import container_fields, is_container, with_fields

Wrt = Union[int, str, Sequence[Union[int, str]]]


def parameter_names(func: Callable) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(positional parameter names, keyword-only names) of ``func``."""
    signature = inspect.signature(func)
    positional = tuple(p.name for p in signature.parameters.values()
                       if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    keyword = tuple(p.name for p in signature.parameters.values() if p.kind == p.KEYWORD_ONLY)
    return positional, keyword


def resolve_wrt(func: Callable, wrt: Wrt, bound: int = 0) -> Tuple[Tuple[str, ...], bool]:
    """The parameter names ``wrt`` denotes, and whether the result is a tuple; ``bound`` leading positional
    parameters are given already (a bound method's ``self``, a ``functools.partial``'s arguments)."""
    positional, keyword = parameter_names(func)
    positional = positional[bound:]
    label = f"{getattr(func, '__name__', 'f')}({', '.join(positional + keyword)})"
    as_tuple = isinstance(wrt, (tuple, list))
    entries = list(wrt) if as_tuple else [wrt]
    if as_tuple and not entries:
        raise WrtError(f"wrt=() names no parameter of {label}; pass a position or a name")
    names = []
    for entry in entries:
        if isinstance(entry, bool) or not isinstance(entry, (int, str)):
            raise WrtError(f"wrt entries are parameter positions or names, not {entry!r}; {label}")
        if isinstance(entry, int):
            if not -len(positional) <= entry < len(positional):
                raise WrtError(f"wrt={entry} is out of range: {label} has {len(positional)} positional "
                               f"parameter(s), so use 0..{len(positional) - 1} or a name")
            name = positional[entry]
        elif "." in entry:   # an attribute of a parameter: "self.W", "params.W"
            root, *path = entry.split(".")
            if root not in parameter_names(func)[0] + keyword or not all(part.isidentifier() for part in path):
                raise WrtError(f"wrt={entry!r} names an attribute of {root!r}, which is not a parameter of "
                               f"{label}; name an attribute of a parameter, e.g. wrt='self.W' for a bound "
                               f"method or wrt='params.W' for a parameter named params")
            name = entry
        elif entry in parameter_names(func)[0][:bound]:   # a bound method's object, differentiated whole
            name = entry
        else:
            if entry not in positional + keyword and not _reads_from_outside(func, entry):
                raise WrtError(f"wrt={entry!r} is neither a parameter of {label} nor a global or closure "
                               f"variable it reads")
            name = entry
        if name in names:
            raise WrtError(f"wrt names {name!r} twice")
        names.append(name)
    return tuple(names), as_tuple


def _reads_from_outside(func: Callable, name: str) -> bool:
    """Whether ``func`` reads ``name`` as a global or closure variable (never assigning it)."""
    code = getattr(unwrap(func), "__code__", None)
    if code is None or name in code.co_varnames:
        return False
    return name in code.co_freevars or (name in code.co_names and name in unwrap(func).__globals__)


def like_structure(gradient, argument):
    """``gradient`` with the container kinds of ``argument`` (a tuple argument gets a tuple)."""
    if isinstance(argument, (list, tuple)) and isinstance(gradient, (list, tuple)) \
            and len(gradient) != len(argument):
        raise UnsupportedValueError(
            f"the gradient computed for a {type(argument).__name__} of {len(argument)} items has "
            f"{len(gradient)}: the function joins or repeats it with `+` or `*` (Python's meaning), which srcad "
            f"differentiates element by element (NumPy's); build the longer list with a loop (`zs.append(...)`), "
            f"or pass an array and use np.concatenate or np.tile")
    if isinstance(argument, tuple) and isinstance(gradient, (list, tuple)):
        items = tuple(like_structure(g, a) for g, a in zip(gradient, argument))
        return type(argument)(*items) if hasattr(argument, "_fields") else items
    if isinstance(argument, list) and isinstance(gradient, list):
        return [like_structure(g, a) for g, a in zip(gradient, argument)]
    if isinstance(argument, dict) and isinstance(gradient, dict):
        return {key: like_structure(value, argument[key]) if key in argument else value
                for key, value in gradient.items()}
    return gradient


def integer_argument(func: Callable, position: int, value) -> WrtError:
    """The error for an int, bool or integer array passed where ``func`` is differentiated.

    Example::

        >>> def f(x):
        ...     return x * 2.0
        >>> str(integer_argument(f, 0, 3)).split(":")[0]
        'cannot differentiate f with respect to `x`'
    """
    name = parameter_names(func)[0][position]
    kind = (f"an array of dtype {value.dtype}" if isinstance(value, np.ndarray)
            else {"int": "an int", "bool": "a bool"}.get(type(value).__name__, f"a {type(value).__name__}"))
    return WrtError(f"cannot differentiate {getattr(func, '__name__', 'f')} with respect to `{name}`: "
                    f"it is {kind}, which has no derivative; pass floats (e.g. {name}=float(...) or "
                    f"{name}.astype(float)), or leave `{name}` out of wrt")


def complex_argument(value) -> bool:
    """Whether ``value`` is a complex number or a complex array (differentiated by the complex rules).

    Example::

        >>> complex_argument(1j), complex_argument(np.ones(2))
        (True, False)
    """
    return isinstance(value, (complex, np.complexfloating)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "c")


def holds_complex(args, kwargs) -> bool:
    """Whether a positional or keyword argument is a complex number or array.

    Example::

        >>> holds_complex((1.0, np.ones(2, complex)), {}), holds_complex((1.0,), {"k": 2.0})
        (True, False)
    """
    for value in args:
        if value.__class__ is complex or value.__class__ is np.ndarray and value.dtype.kind == "c" \
                or isinstance(value, np.complexfloating):
            return True
        if isinstance(value, (tuple, list, dict)) and holds_complex(
                value.values() if isinstance(value, dict) else value, ()):   # a container of complex arrays
            return True
    return any(holds_complex((value,), ()) for value in kwargs.values()) if kwargs else False


def complex_fields_error(func: Callable, position: int, value) -> Optional[ComplexError]:
    """The error for an object argument with a complex field (objects are differentiated field by field with
    the real rules), else None.

    Example::

        >>> from types import SimpleNamespace
        >>> def f(p):
        ...     return p.z * 2.0
        >>> type(complex_fields_error(f, 0, SimpleNamespace(z=np.ones(2, complex)))).__name__
        'ComplexError'
    """
    fields = value._asdict() if hasattr(value, "_asdict") else dict(getattr(value, "__dict__", {}))
    complex_names = [name for name, held in fields.items() if holds_complex((held,), ())]
    if not complex_names:
        return None
    name = parameter_names(func)[0][position]
    return ComplexError(f"cannot differentiate {getattr(func, '__name__', 'f')} with respect to `{name}`: its "
                        f"field `{complex_names[0]}` is complex, and srcad differentiates the fields of an object "
                        f"with the rules for real numbers; pass `{name}.{complex_names[0]}` as an argument of its own")


def refused_argument(func: Callable, position: int, value) -> SrcadError:
    """The error for a differentiated argument that holds no number (a str, None, an object): ``WrtError``.

    Example::

        >>> def f(x):
        ...     return x * 2.0
        >>> type(refused_argument(f, 0, "a")).__name__
        'WrtError'
    """
    name = parameter_names(func)[0][position]
    label = getattr(func, "__name__", "f")
    return WrtError(f"cannot differentiate {label} with respect to `{name}`: it is {type(value).__name__} "
                    f"{value!r:.40}, which holds no float; pass floats or float arrays, or leave `{name}` out of "
                    f"wrt (e.g. wrt=0 for the first parameter only)")


def mirror_gradients(result, args, func: Callable, offset: int, wrt: Tuple[str, ...], as_tuple: bool,
                     options: Dict):
    """``result`` of a reverse derivative with each gradient's lists made tuples where its argument has
    tuples (``offset`` is 1 when ``args`` leave out a bound method's self).

    Example::

        >>> def f(p):
        ...     return p[0] * p[1]
        >>> mirror_gradients([2.0, 1.0], ((1.0, 2.0),), f, 0, ("p",), False, {})
        (2.0, 1.0)
    """
    grads = result[1] if options.get("with_value") else result[0] if options.get("has_aux") else result
    single = len(wrt) == 1 and not as_tuple
    entries = [grads] if single else list(grads)
    positional = parameter_names(func)[0]
    for index, name in enumerate(wrt):
        position = positional.index(name) - offset if name in positional else -1
        if 0 <= position < len(args):
            entries[index] = like_structure(entries[index], args[position])
    grads = entries[0] if single else tuple(entries)
    if options.get("with_value"):
        return (result[0], grads)
    return (grads,) + tuple(result[1:]) if options.get("has_aux") else grads


def complex_gradients(result, args, func: Callable, offset: int, wrt: Tuple[str, ...], as_tuple: bool,
                      options: Dict):
    """``result`` of a reverse derivative with the gradient of each complex argument complex too (the
    gradient of ``np.mean(z)`` is real-valued, and still a complex number).

    Example::

        >>> def f(z):
        ...     return np.real(z)
        >>> complex_gradients(1.0, (1j,), f, 0, ("z",), False, {})
        (1+0j)
    """
    grads = result[1] if options.get("with_value") else result[0] if options.get("has_aux") else result
    single = len(wrt) == 1 and not as_tuple
    entries = [grads] if single else list(grads)
    positional = parameter_names(func)[0]
    for index, name in enumerate(wrt):
        position = positional.index(name) - offset if name in positional else -1
        if 0 <= position < len(args) and complex_argument(args[position]) and isinstance(
                entries[index], (numbers.Number, np.ndarray)) and not np.iscomplexobj(entries[index]):
            entries[index] = entries[index] + 0j
    grads = entries[0] if single else type(grads)(entries)
    if options.get("with_value"):
        return (result[0], grads)
    return (grads,) + tuple(result[1:]) if options.get("has_aux") else grads


def object_paths(name: str, value) -> List[str]:
    """The ``wrt`` entries a container argument stands for: its float fields, nested containers' too.

    Example::

        >>> from types import SimpleNamespace
        >>> object_paths("params", SimpleNamespace(W=np.ones(2), b=0.5, name="p"))
        ['params.W', 'params.b']
    """
    paths = []
    for field, held in container_fields(value).items():
        path = f"{name}.{field}"
        if not is_container(held) and _holds_container(held):
            raise WrtError(f"`{path}` holds objects inside a {type(held).__name__}; srcad differentiates the "
                           f"fields of objects reached by attributes only: name the fields to differentiate in "
                           f"wrt (e.g. wrt='{name}.W'), or keep those objects in attributes")
        paths += object_paths(path, held) if is_container(held) else [path]
    return paths


def _holds_container(value) -> bool:
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return any(is_container(item) or _holds_container(item) for item in items)


def object_gradient(value, name: str, gradients: Dict[str, object]):
    """The gradient of container ``value`` (the argument ``name``): of its type, each float field replaced by
    its gradient in ``gradients`` (by path), the other fields as they are.

    Example::

        >>> from types import SimpleNamespace
        >>> object_gradient(SimpleNamespace(W=1.0, n=3), "p", {"p.W": 2.0})
        namespace(W=2.0, n=3)
    """
    fields = {}
    for field, held in container_fields(value).items():
        path = f"{name}.{field}"
        fields[field] = object_gradient(held, path, gradients) if is_container(held) else \
            like_structure(gradients[path], held)
    return with_fields(value, fields)


def object_tangents(value, name: str, tangent) -> List:
    """The tangents of ``object_paths(name, value)``, read from ``tangent``, a container like ``value``."""
    if type(tangent) is not type(value):
        raise WrtError(f"the tangent of `{name}` is a {type(tangent).__name__}; pass a "
                       f"{type(value).__name__} like `{name}` itself, with a tangent in each float field")
    tangents = []
    fields = container_fields(tangent)
    for field, held in container_fields(value).items():
        if field not in fields:
            raise WrtError(f"the tangent of `{name}` has no float field `{field}`; give it one shaped like "
                           f"`{name}.{field}`")
        tangents += object_tangents(held, f"{name}.{field}", fields[field]) if is_container(held) else \
            [fields[field]]
    return tangents


def rebound_call(func: Callable, generated: Callable, offset: int, fixed: Dict, mode: str, args: tuple,
                 kwargs: Dict) -> Tuple[tuple, Dict]:
    """The arguments of a call of a derivative that Python could not bind, bound as meant, or the
    ``SrcadError`` that says how to call it.

    ``generated`` takes ``func``'s parameters (``offset`` of them given already, ``fixed`` by keyword), then
    the seed or the tangents, which are keyword-only when ``func`` has defaults: positional values past
    ``func``'s parameters go to them by keyword.  A missing seed of a function returning a tuple is a
    ``SeedError`` suggesting ``has_aux``.

    Example::

        >>> def f(x, steps=2):
        ...     return x * steps
        >>> def df(x, steps=2, *, dx):
        ...     return dx * steps
        >>> rebound_call(f, df, 0, {}, "forward", (1.0, 3, 1.0), {})
        ((1.0, 3), {'dx': 1.0})
    """
    positional, keyword = parameter_names(func)
    visible = _visible(positional[offset:], fixed)
    trailing = [name for name in inspect.signature(generated).parameters if name not in positional + keyword]
    extra = args[len(visible):]
    if extra and len(extra) <= len(trailing) and not set(trailing[:len(extra)]) & set(kwargs):
        return args[:len(visible)], dict(kwargs, **dict(zip(trailing, extra)))
    label = getattr(func, "__name__", "f")
    given = set(visible[:len(args)]) | set(kwargs)
    missing = [name for name in trailing if name not in given
               and inspect.signature(generated).parameters[name].default is inspect.Parameter.empty]
    if mode == "reverse" and missing:
        raise located(SeedError, f"{label} returns several values (a tuple), and a gradient needs one scalar "
                      f"output (or a seed for each output)",
                      f"if {label} returns (out, aux) and only `out` is differentiated, use "
                      f"srcad.grad({label}, has_aux=True); to differentiate every output, call "
                      f"srcad.autodiff({label}) with {missing[0]}=(...), one seed per output", _returned_at(func))
    what = "the seed" if mode == "reverse" else "the tangents"
    shown = ", ".join(visible + [f"{name}=..." for name in trailing])
    raise WrtError(f"this call of the {mode}-mode derivative of {label} does not fit its parameters "
                   f"({len(args)} positional argument(s), keywords {sorted(kwargs)}): it takes {label}'s "
                   f"parameters, then {what} ({', '.join(trailing)}), by keyword when {label} has defaults; "
                   f"call it as d{label}({shown})")


def _returned_at(func: Callable):
    """Where ``func`` returns (its last ``return``), or None when its source cannot be read."""
    try:
        parsed = parse_function(func)
    except SrcadError:
        return None
    returns = [node for node in gast.walk(parsed.tree) if isinstance(node, gast.Return)]
    return parsed.location(max(returns, key=lambda node: node.lineno)) if returns else None


def is_method(func) -> bool:
    """Whether ``func`` is a bound method (or a partial of one, or a derivative of one)."""
    while isinstance(func, functools.partial):
        func = func.func
    if _is_derivative(func):
        return func.bound_self is not None
    return inspect.ismethod(func)


def bound_arguments(func) -> Tuple[tuple, Dict]:
    """The arguments ``func`` gives its plain function already: a bound method's object, a
    ``functools.partial``'s positional arguments and keywords (a derivative's, those of what it differentiates).

    Example::

        >>> import functools
        >>> def g(x, scale): return x * scale
        >>> bound_arguments(functools.partial(g, scale=2.0))
        ((), {'scale': 2.0})
    """
    if _is_derivative(func):
        return func._prefix, dict(func._fixed)
    if isinstance(func, functools.partial):
        prefix, fixed = bound_arguments(func.func)
        return prefix + tuple(func.args), dict(fixed, **func.keywords)
    if inspect.ismethod(func):
        return (func.__self__,), {}
    return (), {}


def bind_arguments(function, prefix: tuple, fixed: Dict, func):
    """The generated ``function`` with ``prefix`` and ``fixed`` given.  Positional arguments past those
    ``func`` (the function differentiated) still takes positionally are the seed or the tangents: they go by
    keyword, since the generated function takes them after parameters a partial gives by keyword."""
    if not fixed:
        if len(prefix) == 1:
            return types.MethodType(function, prefix[0])
        return functools.partial(function, *prefix)
    positional, keyword = parameter_names(func)
    visible = len(_visible(positional[len(prefix):], fixed))
    trailing = [name for name in inspect.signature(function).parameters if name not in positional + keyword]

    def bound(*args, **kwargs):
        if len(args) > visible:
            kwargs = dict(zip(trailing, args[visible:]), **kwargs)
            args = args[:visible]
        return function(*prefix, *args, **dict(fixed, **kwargs))
    bound.__wrapped__ = function
    return bound


def _is_derivative(func) -> bool:
    return hasattr(func, "_prefix") and hasattr(func, "_load")


def _visible(positional, fixed) -> List[str]:
    """The parameters a caller can still pass by position: those before the first one given by keyword
    (``partial(g, scale=3.0)`` makes the parameters after ``scale`` keyword-only, as Python does)."""
    visible = []
    for name in positional:
        if name in fixed:
            break
        visible.append(name)
    return visible
