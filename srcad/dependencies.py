"""What a derivative depends on: checked by identity on every call, hashed into its cache key.

A derivative is generated from f's source and from what f's names denote
when it is built: the helpers srcad inlines or calls through their own
derivatives, the modules whose functions it looks rules up for, the data
the generated module is given.  Python runs whatever those names denote at
the time of the call: a helper redefined in a later notebook cell, a
function whose ``__code__`` autoreload replaced, defaults assigned to.

Contract:
- ``collect(func)`` walks ``func`` and, transitively, every plain Python
  function without a rule (and not non-differentiable) that it reaches:
  through the names it reads (closure cell first, then globals, then
  builtins) and through the attributes it reads of them (``mod.helper``,
  read from the bytecode, so ``from mod import helper`` and ``mod.helper``
  each follow the binding Python uses).  Those are the functions srcad may inline or
  call.  It records, by identity: each function's ``__code__``,
  ``__defaults__`` and ``__kwdefaults__``; what every name one of them reads
  denotes (function, module, class or data; a builtin as "no global of that
  name"); each link of an attribute chain through modules, classes and
  objects' ``__dict__`` (``cfg.act``) that ends in such a function or in
  another callable (``ops.act = np.tanh``); and the rule registry's
  version.  Attributes of the libraries srcad has built-in rules for
  (NumPy, SciPy, ``math``...) are not watched: ``np.sin = ...`` is not
  seen.
- ``Dependencies.material()`` is the text a cache key hashes: for each
  function its file, qualified name, source text, code digest
  (``frontend.codecheck``), defaults and which of the walk's global
  namespaces it reads (a helper sharing f's is inlined, another one is
  called), and for each name what kind of object it denotes (data by type
  only: generated code reads data values when it runs).  The same objects give the same text in every process.
- ``Dependencies.check(extra)`` compiles the guard: a function of no
  arguments that returns True while every recorded object is still the one
  recorded (``is``) and no rule was registered.  ``extra`` adds more
  ``(kind, holder, name, value)`` entries (the names the generated module
  was given).  It costs one call and one comparison per entry.

Example::

    >>> def f(x):
    ...     return x * 2.0
    >>> dependencies = collect(f)
    >>> current = dependencies.check()
    >>> current()
    True
    >>> f.__defaults__ = (1.0,)
    >>> current()
    False
"""
from __future__ import annotations

import builtins
import dis
import inspect
import keyword
import types
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .frontend.codecheck import code_digest, code_objects
from .frontend.source import source_fingerprint
from .passes.object_walk import ObjectWalk, holds_code
from .templates import REGISTRY, is_nondifferentiable, lookup

_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
_FREE_LOADS = frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_LIBRARIES = frozenset({"numpy", "scipy", "math", "cmath", "builtins", "operator", "srcad", "grad_templates"})
_EMPTY = object()   # an empty closure cell
_GUARD = {   # how the guard function tests each kind of entry
    "code": "{h}.__code__ is {v}", "defaults": "{h}.__defaults__ is {v}", "kwdefaults": "{h}.__kwdefaults__ is {v}",
    "global": "{h}[{name!r}] is {v}", "absent": "{name!r} not in {h}", "cell": "{h}.cell_contents is {v}",
    "attribute": "{h}.{name} is {v}", "registry": "{h}.version == {v}",
    "derivative": "{h}._current() and {h}._compiled is {v}",
    "entry": "{h}[{name!r}] is {v}", "item": "{h}[{name}] is {v}", "length": "len({h}) == {v}",
}
Entry = Tuple[str, object, str, object]   # (kind, holder, name, value)


class Dependencies:
    """The objects one derivative was built from, and how to tell that they are still the same."""

    def __init__(self):
        self.entries: List[Entry] = [("registry", REGISTRY, "", REGISTRY.version)]
        self._lines: List[str] = []
        self.read_names: set = set()   # every global and free name a function walked reads

    def material(self) -> str:
        """The text a cache key hashes (see the module's contract).

        Example::

            >>> "function 0:" in collect(describe).material()
            True
        """
        return "\n".join(self._lines)

    def made_names(self, injected: Sequence[str]) -> List[str]:
        """Of the names a generated module takes from outside, those no function walked reads (the build
        bound them itself, to a method's function): a global of that name must not stand in for them.

        Example::

            >>> collect(describe).made_names(["isinstance", "forward"])
            ['forward']
        """
        return [name for name in injected if name not in self.read_names]

    def check(self, extra: Sequence[Entry] = ()) -> Callable[[], bool]:
        """A function of no arguments: True while nothing recorded (or in ``extra``, kept from now on)
        has changed."""
        self.entries.extend(extra)
        self._guard = guard(self.entries)
        return self._guard

    def rebound_data(self) -> Optional[List[Entry]]:
        """When all that changed is names rebound from data to data of the same type (so the key is
        the same), those entries with their new values, now recorded (the guard from ``check`` tests
        them from now on); else None and nothing recorded.

        Example: a training loop's ``W = W - lr * dW`` rebinds the global ``W`` on every step.
        """
        changed = []
        for index, entry in enumerate(self.entries):
            if _holds(entry):
                continue
            kind, holder, name, old = entry
            new = _now(kind, holder, name)
            if kind not in ("global", "cell") or not _is_data(old) or not _is_data(new) \
                    or describe(old) != describe(new):
                return None
            changed.append((index, (kind, holder, name, new)))
        if not changed:
            return None
        for index, entry in changed:
            self.entries[index] = entry
        self._guard.__defaults__ = _arguments(self.entries)
        return [entry for _, entry in changed]

    def _add(self, kind: str, holder, name: str, value) -> None:
        self.entries.append((kind, holder, name, value))


def collect(func: types.FunctionType, receiver=None) -> Dependencies:
    """What ``func``'s derivative depends on (see the module's contract); ``receiver`` is the object a
    bound method's first parameter stands for.

    Example::

        >>> [entry[0] for entry in collect(describe).entries][:4]
        ['registry', 'code', 'defaults', 'kwdefaults']
    """
    dependencies = Dependencies()
    pending, index, namespaces = [func], {id(func): 0}, {}
    objects = ObjectWalk(lambda value: _follow(value, pending, index), describe)
    roots, attribute_names = [] if receiver is None else [receiver], set()
    while pending:
        _collect_functions(dependencies, pending, index, namespaces, roots, attribute_names, func.__globals__)
        objects.visit(roots, attribute_names)   # may reach more functions: methods, functions held
    dependencies.entries += objects.entries
    dependencies._lines += objects.lines
    return dependencies


def _collect_functions(dependencies, pending, index, namespaces, roots, attribute_names, home) -> None:
    """Record each pending function (and those it reaches by name); the objects read by those of f's module
    (``home``: its globals) go to ``roots``."""
    while pending:
        function = pending.pop(0)
        number = index[id(function)]
        for kind in ("code", "defaults", "kwdefaults"):
            dependencies._add(kind, function, "", getattr(function, f"__{kind}__"))
        code = function.__code__
        # which global namespace it reads: a helper sharing f's is inlined, another one is called
        namespace = namespaces.setdefault(id(function.__globals__), len(namespaces))
        dependencies._lines.append(
            f"function {number}: {code.co_filename} {function.__qualname__} {code_digest(code)} "
            f"globals #{namespace} defaults={_describe_values(function.__defaults__)} "
            f"kwdefaults={_describe_values(function.__kwdefaults__)}\n{source_fingerprint(function)}")
        names, chains = reads(code)
        dependencies.read_names.update(names)
        attribute_names |= _attribute_names(code)
        cells = dict(zip(code.co_freevars, function.__closure__ or ()))
        values = {}
        for name in names:
            value = _bind(dependencies, function, cells, name)
            values[name] = value
            dependencies._lines.append(f"{number}.{name}={describe(value)}{_follow(value, pending, index)}")
            if function.__globals__ is home and not isinstance(value, (type, types.FunctionType, types.ModuleType)) \
                    and holds_code(value) and all(root is not value for root in roots):
                roots.append(value)   # an object whose methods or held functions srcad may inline or call
        for chain in chains:   # mod.helper, Class.helper, cfg.act, pkg.mod.act (a NumPy function bound there)
            owner, links = values[chain[0]], []
            if _library(owner):
                continue
            for attribute in chain[1:]:
                value = _attribute(owner, attribute)
                if value is _EMPTY:
                    break
                links.append((owner, attribute, value))
                if callable(value) and not isinstance(value, type):   # a helper, or a rule's function
                    for holder, link, link_value in links:
                        dependencies._add("attribute", holder, link, link_value)
                    dependencies._lines.append(f"{number}.{'.'.join(chain[:len(links) + 1])}={describe(value)}"
                                               f"{_follow(value, pending, index)}")
                    break
                owner = value


def _attribute_names(code: types.CodeType) -> set:
    """Every attribute name ``code`` (with the code nested in it) reads."""
    return {instruction.argval for inner in code_objects(code) for instruction in dis.get_instructions(inner)
            if instruction.opname in _ATTRIBUTE_LOADS}


def _bind(dependencies: Dependencies, function, cells, name: str):
    """What ``name`` denotes for ``function`` now; records the entry that keeps it so."""
    if name in cells:
        try:
            value = cells[name].cell_contents
        except ValueError:
            return _EMPTY   # not bound yet: reading it fails, in f and in its derivative alike
        dependencies._add("cell", cells[name], name, value)
        return value
    namespace = function.__globals__
    if name in namespace:
        value = namespace[name]
        dependencies._add("global", namespace, name, value)
        return value
    dependencies._add("absent", namespace, name, None)   # a builtin, or nothing: so long as no global hides it
    return getattr(builtins, name, _EMPTY)


def binding(func: types.FunctionType, name: str) -> Optional[Entry]:
    """The entry that keeps ``name`` denoting what it denotes for ``func`` now (closure cell, then
    globals), or None when neither holds it.

    Example::

        >>> W = 1.0
        >>> def f(x):
        ...     return W * x
        >>> binding(f, "W")[0]
        'global'
    """
    code = func.__code__
    if func.__closure__ and name in code.co_freevars:
        cell = func.__closure__[code.co_freevars.index(name)]
        try:
            return ("cell", cell, name, cell.cell_contents)
        except ValueError:
            return None
    if name in func.__globals__:
        return ("global", func.__globals__, name, func.__globals__[name])
    return None


def _now(kind: str, holder, name: str):
    """What an entry's holder gives now (``_EMPTY`` for nothing)."""
    try:
        if kind in ("global", "entry", "item"):
            return holder[name]
        if kind == "length":
            return len(holder)
        if kind == "cell":
            return holder.cell_contents
        if kind == "attribute":
            return getattr(holder, name)
        if kind == "absent":
            return holder[name] if name in holder else None
        if kind == "registry":
            return holder.version
        if kind == "derivative":
            return holder._compiled if holder._current() else _EMPTY
        return getattr(holder, f"__{kind}__")
    except Exception:
        return _EMPTY


def _holds(entry: Entry) -> bool:
    kind, holder, name, value = entry
    now = _now(kind, holder, name)
    return now == value if kind in ("registry", "length") else now is value


def _is_data(value) -> bool:
    return value is not _EMPTY and not callable(value) and not isinstance(value, types.ModuleType)


def _library(value) -> bool:
    """A module of the libraries srcad has built-in rules for: their attributes are not watched."""
    name = getattr(value, "__name__", "") if isinstance(value, types.ModuleType) else ""
    return name.partition(".")[0] in _LIBRARIES


def _attribute(owner, name: str):
    """``owner.name`` when ``owner`` is a module or a class, or an object holding it in its
    ``__dict__`` (``cfg.act`` of a ``SimpleNamespace``); else ``_EMPTY`` (a method, a property...)."""
    if not isinstance(owner, (types.ModuleType, type)):
        held = getattr(owner, "__dict__", None)
        return held[name] if isinstance(held, dict) and name in held else _EMPTY
    try:
        return getattr(owner, name)
    except Exception:   # a module's __getattr__ may raise anything
        return _EMPTY


def _follow(value, pending, index) -> str:
    """Queue the function behind ``value`` when srcad may transform it; its number in the key text."""
    if not isinstance(value, types.FunctionType) or not _transformable(value):
        return ""
    try:
        target = inspect.unwrap(value)
    except ValueError:
        return ""
    if not isinstance(target, types.FunctionType):
        return ""
    if id(target) not in index:
        index[id(target)] = len(index)
        pending.append(target)
    return f" #{index[id(target)]}"


def _transformable(value) -> bool:
    """A plain Python function without a rule: srcad inlines it or builds its derivative."""
    return (isinstance(value, types.FunctionType) and lookup(value, "reverse") is None
            and lookup(value, "forward") is None and not is_nondifferentiable(value))


def reads(code: types.CodeType) -> Tuple[List[str], List[Tuple[str, ...]]]:
    """The global and free names ``code`` (with the code nested in it) reads, in order of first
    reading, and the attribute chains read from them (``("mod", "helper")`` for ``mod.helper``).

    Example::

        >>> reads(compile("np.linalg.norm(x)", "f.py", "eval"))
        (['np', 'x'], [('np', 'linalg', 'norm')])
    """
    names: Dict[str, None] = {}
    chains: Dict[Tuple[str, ...], None] = {}
    for inner in code_objects(code):
        instructions = [i for i in dis.get_instructions(inner) if i.opname not in ("EXTENDED_ARG", "CACHE")]
        for position, instruction in enumerate(instructions):
            if instruction.opname in _GLOBAL_LOADS or (instruction.opname in _FREE_LOADS
                                                      and instruction.argval in code.co_freevars):
                chain = [instruction.argval]
                for following in instructions[position + 1:]:
                    if following.opname not in _ATTRIBUTE_LOADS:
                        break
                    chain.append(following.argval)
                names.setdefault(chain[0])
                if len(chain) > 1:
                    chains.setdefault(tuple(chain))
    return list(names), list(chains)


def describe(value: object) -> str:
    """What kind of object ``value`` is, the same in every process: modules and callables by name,
    data by type.

    Example::

        >>> describe(builtins.len)
        'callable:builtins.len'
    """
    if value is _EMPTY:
        return "missing"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if callable(value):
        module = getattr(value, "__module__", None) or type(value).__module__
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
        return f"callable:{module}.{name}"
    return f"value:{type(value).__module__}.{type(value).__qualname__}"


def _describe_values(values) -> str:
    """Defaults as key text: numbers, strings and None by value (inlining copies them), others by kind."""
    if values is None:
        return "None"
    items = values.items() if isinstance(values, dict) else enumerate(values)
    return "(" + ", ".join(
        f"{key}={type(value).__name__}:{value!r}" if value is None or isinstance(value, (int, float, complex, str, bytes))
        else f"{key}={describe(value)}" for key, value in items) + ")"


def guard(entries: Sequence[Entry]) -> Callable[[], bool]:
    """A compiled function of no arguments: True while every entry's holder still gives its value.

    The holders and values are the function's defaults (``_arguments(entries)``), so new values
    for the same entries need no new function.

    Example::

        >>> namespace = {"a": 1}
        >>> current = guard([("global", namespace, "a", namespace["a"])])
        >>> namespace["a"] = 2
        >>> current()
        False
    """
    terms, parameters = [], []
    for number, (kind, holder, name, value) in enumerate(_unique(entries)):
        test = _GUARD[kind]
        if kind == "attribute" and (not name.isidentifier() or keyword.iskeyword(name)):
            test = "getattr({h}, {name!r}) is {v}"
        terms.append(test.format(h=f"h{number}", v=f"v{number}", name=name))
        parameters += [f"h{number}=None", f"v{number}=None"]
    text = (f"def current({', '.join(parameters)}):\n    try:\n        return {' and '.join(terms) or 'True'}\n"
            f"    except Exception:   # a name deleted, a cell emptied, an attribute gone: changed\n"
            f"        return False\n")
    namespace: Dict[str, object] = {}
    exec(compile(text, "<srcad guard>", "exec"), namespace)
    current = namespace["current"]
    current.__defaults__ = _arguments(entries)
    current.terms = " and ".join(terms) or "True"   # the test itself, over the parameters (srcad.call_entry)
    return current


def _unique(entries: Sequence[Entry]) -> List[Entry]:
    """``entries`` without repeats (the same kind of test of the same holder and name), in order."""
    seen, unique = set(), []
    for entry in entries:
        if (entry[0], id(entry[1]), entry[2]) not in seen:
            seen.add((entry[0], id(entry[1]), entry[2]))
            unique.append(entry)
    return unique


def _arguments(entries: Sequence[Entry]) -> tuple:
    """The guard's defaults: each unique entry's holder and value."""
    return tuple(item for _, holder, _, value in _unique(entries) for item in (holder, value))
