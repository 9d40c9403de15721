"""A derivative's usual call, written out for the arguments it usually gets.

Contract:
- ``kind_of(args, kwargs, function, result)`` describes one kind of call:
  the number of positional arguments and each one's class (and, for an
  array, its dtype and rank), the names of the keyword arguments and their
  values' classes; the generated function the dispatch table found for it;
  the form of the result it returned.
- ``entry_class(derivative, kinds, current, examine)`` returns a subclass of
  the derivative's class (``entry_of``) whose ``__call__`` is compiled for
  those kinds.  The general call (``srcad.general_call``) gives a derivative
  that class from the second call of a kind on (up to ``MAX_KINDS`` kinds).
- A call of one of the kinds binds to its function as the call that found it
  did (so a ``TypeError`` comes from inside).  The entry runs the function
  only when ``config.verify`` is off and the guard ``current`` holds; any
  other call goes to ``examine`` (the general call, which decides the same
  way from the table), and a call of another kind first gives the derivative
  back its class.  So it never runs what the general call would not.
- It checks shared memory and the result's NaNs as the general call does:
  for a result of the form the kind returned (a float64 array, a float, a
  tuple of them) a sum inline, any other by ``overflow.clean``, then
  ``overflow.settled``.
- A derivative goes back to ``entry_of`` and forgets its kinds whenever it
  loads (its table and guard are replaced then), so an entry never outlives
  the code it runs.  Keywords only ``**`` can pass (not identifiers) have no
  kind.

Example::

    >>> df = srcad.grad(f); df(x); df(x)      # doctest: +SKIP
    >>> type(df).entry_of is srcad.Derivative, len(df.entry_kinds)   # doctest: +SKIP
    (True, 1)
"""
from __future__ import annotations

import keyword
import textwrap
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np

from .config import config
from .frontend.tracebacks import annotate
from .overflow import clean, settled

_ABSENT = object()   # a keyword the call does not pass
_COMPILED: Dict[str, Any] = {}   # entry text -> its code: a derivative loaded again writes the same entry
MAX_KINDS = 4   # kinds of call one entry takes (a recursion's outer and inner calls, a seed given or not)
_HEAD = """\
def entry(self, *args, **kwargs):
    if config.verify:
        return examine(self, *args, **kwargs)
    try:
        holds = {guard}
    except Exception:   # a name deleted, a cell emptied, an attribute gone: changed
        holds = False
    if not holds:
        return examine(self, *args, **kwargs)
    count = len(args)
"""
_BRANCH = """\
    if count == {count} and {keywords}:
        {unpack}
        if {tests}:
            {shared}
            try:
                result = function{number}({call})
            except Exception as error:   # the arguments bind as they did: raised inside the derivative
                annotate(error)
                raise
{check}
            return result if clean(result) else settled(self, result, args, kwargs)
"""
_DROP = """\
    self.__class__ = base   # a kind of call it does not take: the general call from now on (it adds this kind)
"""
_TAIL = """\
    return examine(self, *args, **kwargs)
"""


class Kind(NamedTuple):
    """One kind of call: each positional argument's (class, dtype, rank), each keyword's (name, class, dtype,
    rank) by name; the function the table found for it; the lines checking a result of the form it returned."""
    arguments: Tuple[Tuple[type, Any, int], ...]
    keywords: Tuple[Tuple[str, type, Any, int], ...]
    function: Callable
    check: str

    def same_call(self, other: "Kind") -> bool:
        return self.arguments == other.arguments and self.keywords == other.keywords


def kind_of(args: tuple, kwargs: Dict[str, Any], function: Callable, result: Any) -> Optional[Kind]:
    """The kind of a call of ``args`` and ``kwargs`` that ran ``function`` and returned ``result``; None for
    keywords only ``**`` can pass (not identifiers), which an entry cannot name."""
    if not all(name.isidentifier() and not keyword.iskeyword(name) for name in kwargs):
        return None
    return Kind(tuple(_described(value) for value in args),
                tuple((name,) + _described(value) for name, value in sorted(kwargs.items())),
                function, _result_check(result))


def entry_class(derivative, kinds: Tuple[Kind, ...], current: Callable[[], bool], examine: Callable) -> type:
    """A subclass of the class ``derivative`` had before any entry, whose ``__call__`` is the entry for ``kinds``
    of call: each runs its function while ``current()`` holds; other calls go to ``examine``, and while the
    kinds are fewer than ``MAX_KINDS`` they give the derivative back its class first.  ``entry_of`` is the class
    it extends.  (Python finds ``__call__`` on the class: an entry there costs no call and no frame more than
    the general call, which recursion through a derivative feels.)

    Example::

        derivative.__class__ = entry_class(derivative, (kind_of(args, {}, function, result),), current, examine)
    """
    base = getattr(derivative.__class__, "entry_of", derivative.__class__)
    return type(base.__name__, (base,), {"__call__": _entry(derivative, base, kinds, current, examine),
                                         "entry_of": base, "__module__": base.__module__,
                                         "__qualname__": base.__qualname__, "__doc__": base.__doc__})


def _entry(derivative, base: type, kinds: Tuple[Kind, ...], current, examine) -> Callable:
    """The entry function: see ``entry_class``."""
    namespace: Dict[str, Any] = {
        "base": base, "config": config, "examine": examine, "current": current, "annotate": annotate, "clean": clean,
        "settled": settled, "shared": derivative._shared_check, "absent": _ABSENT, "ARRAY": np.ndarray,
        "FLOAT64": np.dtype(np.float64), "F64": np.float64, "vdot": np.vdot}
    branches = []
    for number, kind in enumerate(kinds):
        namespace[f"function{number}"] = kind.function
        names, tests, unpack = [], [], []
        for position, described in enumerate(kind.arguments):
            names.append(f"a{position}")
            tests.append(_kind_test(f"a{position}", described, namespace, number))
        if names:
            unpack.append(f"{', '.join(names)}, = args")
        for position, (name, *described) in enumerate(kind.keywords):   # the same names: absent fails its test
            unpack.append(f"w{position} = kwargs.get({name!r}, absent)")
            tests.append(_kind_test(f"w{position}", tuple(described), namespace, number))
            names.append(f"{name}=w{position}")
        branches.append(_BRANCH.format(
            count=len(kind.arguments), keywords=f"len(kwargs) == {len(kind.keywords)}" if kind.keywords else "not kwargs",
            unpack="\n        ".join(unpack) or "pass", tests=" and ".join(tests) or "True", number=number,
            call=", ".join(names), check=kind.check,
            shared="shared(args)" if derivative._shared_check is not None else "pass"))
    guard = getattr(current, "terms", None)   # the guard's test written in, over its holders and values
    if guard is None:
        guard = "current()"
    else:
        namespace.update(zip(current.__code__.co_varnames, current.__defaults__))
    # another kind of call goes back to the general call, which gives the entry that kind too on its next call:
    # a recursion whose inner calls pass a seed runs through one frame per level, never two
    text = _HEAD.format(guard=guard) + "".join(branches) + (_DROP if len(kinds) < MAX_KINDS else "") + _TAIL
    code = _COMPILED.get(text)
    if code is None:
        if len(_COMPILED) >= 512:
            _COMPILED.clear()
        code = _COMPILED[text] = compile(text, "<srcad call entry>", "exec")
    exec(code, namespace)
    return namespace["entry"]


def result_check_function(result: Any) -> Callable[[Any], bool]:
    """The NaN check an entry writes for results of ``result``'s form, as a function: True when its argument is
    of that form and holds no NaN, else False (where the entry would call ``clean``).  For measuring it.

    Example::

        >>> result_check_function((np.ones(3), 2.0))((np.zeros(3), 1.0))
        True
    """
    body = _result_check(result).replace("return result", "return True")
    text = "def check(result):\n" + textwrap.indent(textwrap.dedent(body or "pass"), "    ") + "\n    return False\n"
    namespace: Dict[str, Any] = {"ARRAY": np.ndarray, "FLOAT64": np.dtype(np.float64), "F64": np.float64,
                                 "vdot": np.vdot}
    exec(compile(text, "<srcad result check>", "exec"), namespace)
    return namespace["check"]


def _described(value: Any) -> Tuple[type, Any, int]:
    """(class, dtype, rank) of an array; (class, None, 0) of anything else."""
    if isinstance(value, np.ndarray):
        return value.__class__, value.dtype, value.ndim
    return value.__class__, None, 0


def _kind_test(name: str, described: Tuple[type, Any, int], namespace: Dict[str, Any], number: int) -> str:
    """The test that the local ``name`` is of the class (and for an array the dtype and rank) ``described``."""
    kind, dtype, rank = described
    label = f"{name}_{number}"
    namespace[f"{label}_class"] = kind
    test = f"{name}.__class__ is {label}_class"
    if dtype is not None:
        namespace[f"{label}_dtype"] = dtype
        test += f" and {name}.dtype is {label}_dtype and {name}.ndim == {rank}"
    return test


def _result_check(result: Any) -> str:
    """Lines returning a result of ``result``'s form (a float64 array, a float, a tuple of them) that holds no NaN;
    nothing for other forms (``clean`` checks them)."""
    parts = list(result) if result.__class__ is tuple else [result]
    if not parts or not all(_summable(part) for part in parts):
        return ""
    items = [f"r{number}" for number in range(len(parts))] if result.__class__ is tuple else ["result"]
    tests = " and ".join(_summable(part).format(item) for part, item in zip(parts, items))
    listed = [_listed(part).format(item) for part, item in zip(parts, items) if _listed(part)]
    numbers = [_sum(part).format(item) for part, item in zip(parts, items) if not _listed(part)]
    total = " + ".join(([f"sum({' + '.join(listed)})"] if listed else []) + numbers)   # one sum of the few
    lines = [f"if {tests}:", f"    total = {total}   # NaN when an element is NaN (or from inf - inf)",
             "    if total == total:", "        return result"]
    if result.__class__ is tuple:
        lines = [f"if result.__class__ is tuple and len(result) == {len(parts)}:",
                 f"    {', '.join(items)}, = result"] + ["    " + line for line in lines]
    return "\n".join("            " + line for line in lines)


def _summable(value: Any) -> str:
    """The test (of ``{0}``) that a value is of ``value``'s kind; '' for kinds not checked inline."""
    if value.__class__ is float:
        return "{0}.__class__ is float"
    if value.__class__ is np.float64:
        return "{0}.__class__ is F64"
    if value.__class__ is np.ndarray and value.dtype == np.float64:
        size = " and {0}.size <= 16" if value.size <= 16 else ""   # listed when few: a sum of squares takes any size
        return f"{{0}}.__class__ is ARRAY and {{0}}.dtype is FLOAT64 and {{0}}.ndim == {value.ndim}{size}"
    return ""


def _listed(value: Any) -> str:
    """The list of the elements of ``{0}``, an array of ``value``'s kind of at most 16 elements; '' otherwise."""
    if value.__class__ is not np.ndarray or value.size > 16:
        return ""
    return "{0}.tolist()" if value.ndim == 1 else "{0}.ravel().tolist()"


def _sum(value: Any) -> str:
    """A number that is NaN when ``{0}``, of ``value``'s kind (a float, an array of many elements), holds a NaN:
    the value itself, the sum of the squares (an infinity cannot make that NaN; ``vdot``, unlike an array's
    ``dot``, leaves NumPy's floating-point error state alone, so a square that overflows neither warns nor
    raises under ``np.errstate(over='raise')``)."""
    return "vdot({0}, {0})" if value.__class__ is np.ndarray else "{0}"
