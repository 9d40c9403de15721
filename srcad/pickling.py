"""What a pickled derivative carries, and what the receiving process checks.

Contract:
- A derivative pickles as the function it was given, ``wrt``, mode, options
  and a ``fingerprint``: the cache key of its derivative (``cache.disk_key``
  over f's and its helpers' source, code, file, defaults and what their
  names denote, srcad's own code and the rules) and one digest per function
  walked, to name the one that differs.  No generated code is sent.  A
  multiprocessing child's ``__mp_main__`` (the main script imported again)
  counts as ``__main__``.  ``fingerprint_of(derivative)`` keeps it while the
  derivative's guard says nothing changed.
- ``by_reference(given)`` returns ``given`` when plain ``pickle`` can send it
  (a function found again as ``module.qualname``, a bound method, a
  ``functools.partial`` of such, another derivative).  A lambda or a local
  function cannot be: under plain ``pickle`` it raises ``SrcadError`` naming
  the function and both fixes; under ``cloudpickle`` (a pickler that reduces
  functions itself is dumping) it is sent by value, as cloudpickle sends
  such functions.
- ``sent_sources(given)``: under cloudpickle, the source lines of every
  function the derivative is built from that cloudpickle may send by value
  (defined in ``__main__``, a notebook cell, or not found by name), keyed by
  file, each def at its line.  ``restore_sources(given, sources)`` in the
  receiving process puts them where ``inspect`` finds them (``linecache``,
  only for a file it cannot read there) and gives the functions received by
  value their file name back (cloudpickle 3.1.3 and later rename it
  ``<dynamic-code>``), so that the fingerprint and the derivative come from
  the same text as in the sending process.
- ``stale_or(derivative, pickled, here)`` is ``derivative`` when the
  fingerprints agree, else a ``StaleDerivative`` whose every call raises
  ``StaleSourceError`` saying what differs: the receiving process would
  build the derivative of another function.

Example::

    >>> import pickle, srcad
    >>> from pickle_functions import loss   # doctest: +SKIP
    >>> df = pickle.loads(pickle.dumps(srcad.grad(loss)))   # doctest: +SKIP
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import linecache
import re
import sys
import types
from typing import Any, Callable, Dict, Optional, Tuple

from . import cache
from .dependencies import collect
from .errors import SrcadError, StaleSourceError
from .templates import REGISTRY

Fingerprint = Tuple[str, Tuple[Tuple[str, str], ...]]


def by_reference(given: Callable) -> Callable:
    """``given``, checked to be sendable by plain ``pickle`` unless cloudpickle is pickling (see the contract).

    Example::

        >>> import numpy as np
        >>> by_reference(np.sum) is np.sum
        True
    """
    function = given
    while isinstance(function, functools.partial):
        function = function.func
    if isinstance(function, types.FunctionType) and not _found_by_name(function) and not _cloudpickle_dumping():
        where = f"{function.__code__.co_filename}:{function.__code__.co_firstlineno}"
        kind = "a lambda" if function.__name__ == "<lambda>" else "defined inside another function"
        raise SrcadError(
            f"cannot pickle the derivative of {function.__qualname__} ({where}): {function.__qualname__} is {kind}, "
            f"so pickle cannot send it by reference (as {function.__module__}.{function.__qualname__}), and a "
            f"derivative is sent as the function it differentiates.  Define it with `def` at the top level of an "
            f"importable module, or pickle the derivative with cloudpickle (`cloudpickle.dumps(df)`), which "
            f"sends such a function by value")
    return given


def _found_by_name(function: types.FunctionType) -> bool:
    """Whether ``function`` is what its module holds under its qualified name (how pickle sends functions)."""
    found: Any = sys.modules.get(function.__module__)
    for part in function.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is function


def _cloudpickle_dumping() -> bool:
    """Whether a pickler that reduces functions itself is on the call stack, pickling this derivative:
    cloudpickle's (or a copy vendored in another package) has a ``reducer_override`` and a ``dump`` method
    of its own, where plain ``pickle``'s runs in C and leaves no frame."""
    frame = sys._getframe(1)
    while frame is not None:
        pickler = frame.f_locals.get("self")
        if callable(getattr(type(pickler), "reducer_override", None)) and frame.f_code.co_name == "dump":
            return True
        frame = frame.f_back
    return False


Sources = Tuple[Tuple[str, Tuple[str, ...], Tuple[Tuple[str, int], ...]], ...]
_DYNAMIC_FILES = ("<dynamic-code>",)   # the file name cloudpickle (3.1.3 and later) gives code sent by value


def _walked_functions(given: Callable) -> list:
    function = given
    while isinstance(function, functools.partial):
        function = function.func
    function = getattr(function, "__func__", function)   # a bound method: its function
    if not isinstance(function, types.FunctionType):
        return []
    return [holder for kind, holder, _, _ in collect(function).entries
            if kind == "code" and isinstance(holder, types.FunctionType)]


def sent_sources(given: Callable) -> Sources:
    """The sources to send with a derivative of ``given`` (see the module's contract); () unless cloudpickle
    is pickling it.  Each is a whole file (a script, a notebook cell: its imports decide how a def
    compiles), with the functions defined in it, by qualified name and first line.

    Example::

        sources = sent_sources(f)   # in Derivative.__reduce__
    """
    if not _cloudpickle_dumping():
        return ()
    by_file: Dict[str, list] = {}
    for function in _walked_functions(given):
        if function.__module__ not in ("__main__", "__mp_main__") and _found_by_name(function) \
                and getattr(sys.modules.get(function.__module__), "__file__", None):
            continue   # cloudpickle sends it by reference: the receiver imports its module
        code = function.__code__
        if linecache.getlines(code.co_filename, function.__globals__):
            by_file.setdefault(code.co_filename, []).append((function.__qualname__, code.co_firstlineno))
    return tuple((filename, tuple(linecache.getlines(filename)), tuple(defs))
                 for filename, defs in sorted(by_file.items()))


def restore_sources(given: Callable, sources: Sources) -> None:
    """Make the ``sources`` sent with a derivative readable here, and name their files again (see the
    module's contract).  A file this process can read is left as it is: when it differs from the one
    sent, the fingerprints say so.

    Example::

        restore_sources(given, sources)   # in srcad.derivative.unpickled, before building
    """
    where = {}
    for filename, lines, defs in sources:
        if not linecache.getlines(filename) and filename not in linecache.cache:
            linecache.cache[filename] = (sum(map(len, lines)), None, list(lines), filename)
        where.update((definition, filename) for definition in defs)
    for function in _walked_functions(given) if where else ():
        code = function.__code__
        filename = where.get((function.__qualname__, code.co_firstlineno))
        if filename is not None and code.co_filename in _DYNAMIC_FILES:
            function.__code__ = _renamed(code, filename)


def _renamed(code: types.CodeType, filename: str) -> types.CodeType:
    """``code`` and the code objects nested in it (lambdas, comprehensions, inner defs) from ``filename``."""
    constants = tuple(_renamed(constant, filename) if isinstance(constant, types.CodeType) else constant
                      for constant in code.co_consts)
    return code.replace(co_filename=filename, co_consts=constants)


def fingerprint(func: Callable, wrt, mode: str, options: Dict[str, Any], receiver=None) -> Optional[Fingerprint]:
    """``(cache key, ((function, digest), ...))`` of ``func``'s derivative as this process has it, or None
    when ``func`` is not a Python function (there is no source to differ).

    Example::

        >>> def f(x):
        ...     return x * x
        >>> key, digests = fingerprint(f, ("x",), "reverse", {})
        >>> [name for name, _ in digests]
        ['f']
    """
    if not inspect.isfunction(func):
        return None
    material = collect(func, receiver=receiver).material()
    if sys.modules.get("__mp_main__") is sys.modules.get("__main__"):   # a multiprocessing child: the same
        material = re.sub(r"\b__mp_main__\b", "__main__", material)     # script, under its alias
    rules = (("the registered rules", cache.registry_fingerprint()[:16]),
             ("srcad's own code", cache.code_fingerprint()[:16]))
    return cache.disk_key(func, wrt, mode, options, material=material), _digests(material) + rules


def rule_modules() -> Tuple[str, ...]:
    """The modules the registered rules were written in (the SciPy families register when SciPy is imported).

    Example::

        >>> "grad_templates.trig" in rule_modules()
        True
    """
    if _RULE_MODULES.get("version") != REGISTRY.version:
        _RULE_MODULES["version"] = REGISTRY.version
        _RULE_MODULES["modules"] = tuple(sorted({template.rule.__module__ for by_key in REGISTRY.rules.values()
                                                 for template in by_key.values()}))
    return _RULE_MODULES["modules"]


_RULE_MODULES: Dict[str, Any] = {}   # rule_modules() for one registry version


def import_rule_modules(modules) -> None:
    """Import those of ``modules`` (``rule_modules()`` where a derivative was pickled) not imported here,
    so that the rules they register are here too; one that cannot be imported leaves the rules differing
    (then the fingerprints say so)."""
    from grad_templates.optional import FAMILIES   # a SciPy family registers when SciPy's module is imported
    library_of = {f"grad_templates.{family}": library for library, families in FAMILIES.items()
                  for family in families}
    for name in modules:
        if name not in sys.modules and name not in ("__main__", "__mp_main__"):
            try:
                importlib.import_module(library_of.get(name, name))
            except ImportError:
                pass


def fingerprint_of(derivative) -> Optional[Fingerprint]:
    """The ``fingerprint`` of a ``Derivative`` (None for a derivative of a derivative: the inner one carries
    its own), kept while nothing it was built from changed, so that sending it again costs nothing.

    Example::

        pickled = fingerprint_of(srcad.grad(f))
    """
    if derivative._inner is not None:
        return None
    kept = derivative.__dict__.get("_fingerprint")
    if kept is not None and kept[0] == derivative._generation and derivative._current():
        return kept[1]
    found = fingerprint(derivative.func, derivative.wrt, derivative.mode, derivative.options, derivative.bound_self)
    if derivative._current():   # loaded, and nothing changed since: the guard keeps this fingerprint valid
        derivative._fingerprint = (derivative._generation, found)
    return found


def _digests(material: str) -> Tuple[Tuple[str, str], ...]:
    """One ``(name (file), digest)`` per function block of ``Dependencies.material()``."""
    blocks = []
    for line in material.split("\n"):
        if line.startswith("function ") or not blocks:
            fields = line.split(" ")
            blocks.append([f"{fields[3]} ({fields[2]})" if len(fields) > 3 else line, []])
        blocks[-1][1].append(line)
    return tuple((label, hashlib.sha256("\n".join(text).encode()).hexdigest()[:16]) for label, text in blocks)


class StaleDerivative:
    """An unpickled derivative whose function differs here from where it was pickled: every call raises
    ``StaleSourceError`` with ``message``."""

    def __init__(self, name: str, message: str):
        self.__name__, self.message = name, message

    def __call__(self, *args, **kwargs):
        raise StaleSourceError(self.message)

    @property
    def source(self) -> str:
        raise StaleSourceError(self.message)

    @property
    def parameters(self) -> Tuple[str, ...]:
        raise StaleSourceError(self.message)


def stale_or(derivative, pickled: Fingerprint, here: Optional[Fingerprint]):
    """``derivative`` when the fingerprint ``pickled`` with it is the one it has ``here``, else a
    ``StaleDerivative`` saying what differs.

    Example::

        df = stale_or(df, pickled, fingerprint(df.func, df.wrt, df.mode, df.options))
    """
    if here is not None and here[0] == pickled[0]:
        return derivative
    name = getattr(derivative.func, "__qualname__", repr(derivative.func))
    there_digests, here_digests = dict(pickled[1]), dict(here[1]) if here else {}
    differing = [label for label, digest in pickled[1] if here_digests.get(label) != digest]
    differing += [label for label in here_digests if label not in there_digests]
    what = (f"these differ here: {', '.join(differing)} (a function's source, code, defaults, file path, or "
            f"what the names it reads denote)" if differing else "the derivative's options differ here")
    return StaleDerivative(derivative.__name__, (
        f"the derivative of {name} was pickled in a process where it differs from this one's, so it is not "
        f"sent as code and cannot be built again here: {what}.  Run every process on the same source files at "
        f"the same paths, with the same srcad and Python versions and the same rules registered (restart the "
        f"workers after editing the code), then pickle the derivative again"))
