"""The order passes run in, written once, as data; and the driver that runs them.

Contract: ``PIPELINES[mode]`` is the tuple of pass names for that mode, and
``PASSES`` maps each name to its pass class, imported on first use (the
passes load with the first derivative built, not with ``import srcad``;
``srcad/__init__.py`` imports ``passes/checkpoints.py`` alone, for the rules
it registers).  ``build(func, wrt, mode,
options)`` runs the pipeline and returns a ``Generated`` holding the emitted
module source, the derivative's name and the objects the module's globals
need.  ``observe(stage_name, source)`` is called after every stage when given
(``srcad show --passes`` prints those).

Example::

    >>> PIPELINES["reverse"][:3]
    ('star_arguments', 'syntax_check', 'methods')
"""
from __future__ import annotations

import gc
import importlib
import os
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

from . import runtime
from .runtime import callbacks
from .version import __version__


class _PassTable(Mapping):
    """Pass name -> pass class, each imported on first use from ``srcad/passes/<name>.py``.

    Creating a ``Derivative`` imports no pass: the compiler (the passes,
    astor) loads with the first derivative built.
    A pass's name is its module's name; the module holds one ``Pass``
    subclass with that ``name``.
    """

    def __init__(self, names: Tuple[str, ...]) -> None:
        self._names = names
        self._loaded: Dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        if name not in self._loaded:
            if name not in self._names:
                raise KeyError(name)
            module = importlib.import_module(f"{__package__}.passes.{name}")
            found = [value for value in vars(module).values()
                     if isinstance(value, type) and getattr(value, "name", None) == name
                     and value.__module__ == module.__name__]
            if len(found) != 1:
                raise LookupError(f"srcad/passes/{name}.py must define one pass class named {name!r}")
            self._loaded[name] = found[0]
        return self._loaded[name]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


PASSES: Mapping = _PassTable((
    "star_arguments", "syntax_check", "methods", "inline_calls", "resolve", "starred_targets", "fold_constants",
    "nested", "saved_views",
    "grad_hooks",
    "iteration", "itertools_loops", "inline", "attributes", "contexts", "exceptions", "desugar", "mutating_calls", "views", "aliasing",
    "normalize", "attempts", "versioning", "unused_statements", "activity", "raising_reads", "complex_values", "reverse", "forward", "simplify",
    "common_subexpressions", "propagate_copies", "inline_temporaries", "cleanup", "strong_zeros", "regions",
    "checkpoints"))

# The optimisation passes, run in this order until none changes the tree.
# ``optimize=False`` skips them and shows the raw transform.
OPTIMIZE = ("simplify", "common_subexpressions", "propagate_copies", "cleanup", "inline_temporaries")
MAX_ROUNDS = 10

_FRONT = ("star_arguments", "syntax_check", "methods", "inline_calls", "resolve", "starred_targets", "fold_constants",
          "nested",
          "saved_views", "grad_hooks",
          "iteration", "itertools_loops", "inline",
          "attributes", "contexts", "exceptions", "desugar", "mutating_calls", "views", "aliasing", "normalize",
          "attempts", "versioning", "unused_statements", "activity", "raising_reads", "complex_values")

PIPELINES: Dict[str, Tuple] = {   # strong_zeros changes nothing unless the option asks for it
    "reverse": _FRONT + ("reverse", OPTIMIZE, "strong_zeros", "regions"),
    "forward": _FRONT + ("forward", OPTIMIZE, "strong_zeros", "regions"),
}


def stages(mode: str, options: Dict[str, Any]) -> Tuple:
    """``PIPELINES[mode]``, with ``checkpoints`` after ``resolve`` when the option asks for checkpointed loops.

    Example::

        >>> "checkpoints" in stages("reverse", {"checkpoints": 20})
        True
    """
    pipeline = PIPELINES[mode]
    if not options.get("checkpoints") or mode != "reverse":
        return pipeline
    after = pipeline.index("resolve") + 1
    return pipeline[:after] + ("checkpoints",) + pipeline[after:]


# The service that builds the derivative of a function the user's code calls.
# The API layer sets it when it is imported (``use_derivative_service``); the
# pipeline and the passes never import the API.
_derivative_service: Optional[Callable[..., Any]] = None


def use_derivative_service(derive: Callable[..., Any]) -> None:
    """Make ``derive(function, wrt, mode, **options)`` build callees' derivatives by default.

    Example::

        >>> from srcad import api, pipeline
        >>> pipeline.use_derivative_service(api.derivative)
    """
    global _derivative_service
    _derivative_service = derive
    callbacks.use_derivative_service(derive)   # helpers that differentiate a function at run time (odeint's func)


@dataclass
class Generated:
    """The emitted derivative module and what loading it needs."""

    source: str
    function_name: str
    injected: Dict[str, Any]   # names the module reads from the user's scope


def build(func: Callable, wrt: Tuple[str, ...], mode: str, options: Optional[Dict[str, Any]] = None,
          observe: Optional[Callable[[str, str], None]] = None,
          derive: Optional[Callable[..., Any]] = None) -> Generated:
    """Run ``mode``'s pipeline on ``func`` and emit the derivative module.

    ``derive(function, wrt, mode, **options)`` builds the derivative of a
    function that ``func`` calls; by default, the service the API layer set
    with ``use_derivative_service``.
    """
    collecting = gc.isenabled()
    gc.disable()   # the passes make many short-lived nodes and no cycles to speak of: collect once, after
    try:
        return _build(func, wrt, mode, options, observe, derive)
    finally:
        if collecting:
            gc.enable()


def _build(func, wrt, mode, options, observe, derive) -> Generated:
    from .frontend import syntax   # the compiler loads with the first derivative built
    from .frontend.emit import to_source
    from .frontend.source import parse_function
    from .passes import Unit
    unit = Unit(parse_function(func), mode, tuple(wrt), dict(options or {}),
                derive=derive or _derivative_service)
    if observe is not None:
        observe("source", to_source(unit.tree))
    for stage in stages(mode, unit.options):
        if isinstance(stage, tuple):  # a group run to a fixed point
            if not unit.options.get("optimize", True):
                continue
            # round after round, until every pass has run once since the last change
            unchanged = runs = 0
            while unchanged < len(stage) and runs < MAX_ROUNDS * len(stage):
                unchanged = 0 if _run(stage[runs % len(stage)], unit, observe) else unchanged + 1
                runs += 1
        else:
            _run(stage, unit, observe)
    unit.tree.body[:0] = unit.facts.get("prologue", [])   # reads of attributes named in wrt (self_W = self.W)
    used = syntax.loaded_names(unit.tree)
    objects = unit.bindings.objects
    for name in list(used):   # a callee's derivative is built from the callee: keep its name bound
        callee = _callee_of(objects.get(name))
        used |= {n for n, v in objects.items() if v is callee and callee is not None}
    imports, injected = _split_bindings({k: v for k, v in objects.items() if k in used})
    header = _header(unit, mode, imports, injected)
    source = header + to_source(unit.tree)
    return Generated(source, unit.tree.name, injected)


def _run(pass_name: str, unit, observe) -> bool:
    changed = PASSES[pass_name]().run(unit)
    if observe is not None and changed:
        from .frontend.emit import to_source
        observe(pass_name, to_source(unit.tree))
    return changed


def _split_bindings(objects):
    """Module-level names the file can import itself, and those injected from the user's scope."""
    imports, injected = [], {}
    from_imports: Dict[str, list] = {}
    for name in sorted(objects):
        value = objects[name]
        if isinstance(value, types.ModuleType) and sys.modules.get(value.__name__) is value:
            imports.append(f"import {value.__name__}" + ("" if name == value.__name__ else f" as {name}"))
            continue
        module = getattr(value, "__module__", None) or ""
        if module.startswith("srcad.runtime.") and getattr(runtime, name, None) is value:
            module = "srcad.runtime"   # generated code imports every runtime helper from the package
        if (module.split(".")[0] in ("srcad", "grad_templates") and getattr(value, "__name__", None) == name
                and getattr(sys.modules.get(module), name, None) is value):
            from_imports.setdefault(module, []).append(name)   # srcad's own helpers
        else:
            injected[name] = value
    derived = []
    for name in sorted(injected):
        value = injected[name]
        callee = getattr(value, "func", None)
        if value.__class__.__name__.endswith("Derivative") and callee is not None:
            callee_name = next((n for n, v in objects.items() if v is callee), None)
            if callee_name is not None:   # the module rebuilds it: works from the disk cache too
                del injected[name]
                from_imports.setdefault("srcad.api", []).append("derivative")
                extra = "".join(f", {k}={v!r}" for k, v in sorted(value.options.items())
                                if k not in ("optimize", "tuple_result") and v)
                wrt = value.requested_wrt
                derived.append((name, callee_name,
                                f"{name} = derivative({callee_name}, wrt={wrt!r}, mode={value.mode!r}{extra})"))
    for module in sorted(from_imports):
        imports.append(_wrapped(f"from {module} import ", sorted(set(from_imports[module]))))
    ordered = []
    while derived:   # a derivative of a derivative comes after the derivative it is built from
        ready = [entry for entry in derived if entry[1] not in {name for name, _, _ in derived}]
        ordered += [line for _, _, line in ready]
        derived = [entry for entry in derived if entry not in ready]
    return imports + ordered, injected


def _callee_of(value):
    """What a bound derivative differentiates: a derivative (of a derivative) or the callee's function."""
    inner = getattr(value, "_inner", None) if value.__class__.__name__ == "Derivative" else None
    return inner if inner is not None else getattr(value, "func", None)


def _wrapped(prefix: str, names, width: int = 99) -> str:
    """``prefix`` + names, in parentheses over several lines when too long for one."""
    line = prefix + ", ".join(names)
    if len(line) <= width:
        return line
    rows, row = [], "    "
    for name in names:
        if len(row) + len(name) + 2 > width and row.strip():
            rows.append(row.rstrip())
            row = "    "
        row += name + ", "
    rows.append(row.rstrip())
    return prefix + "(\n" + "\n".join(rows) + "\n)"


def _header(unit, mode, imports, injected) -> str:
    parsed = unit.parsed
    qualname = getattr(parsed.func, "__qualname__", parsed.tree.name)
    lines = [f"# srcad {__version__}: {mode}-mode derivative of {qualname} "
             f"({os.path.basename(parsed.filename)}:{parsed.first_line}) "
             f"with respect to {', '.join(unit.facts.get('wrt_as_given', unit.wrt))}"]
    ranks = unit.options.get("param_ranks")
    if ranks:
        names = [arg.id for arg in unit.tree.args.args]
        described = ", ".join(f"{name} {rank}-D" if rank else f"{name} scalar"
                              for name, rank in zip(names, ranks) if rank is not None)
        lines.append(f"# the variant for arguments {described}")
    if injected:
        lines.append(f"# from the scope of {parsed.tree.name}: {', '.join(sorted(injected))}")
    return "\n".join(lines + imports) + "\n\n\n"

