"""The ``srcad`` command line: print the derivative srcad generates for a function.

Contract:
- ``srcad show TARGET`` prints the generated derivative module of the
  function TARGET names, exactly as ``srcad.source`` returns it.  TARGET is
  ``path/to/file.py:name`` or ``package.module:name``; ``name`` may be a
  dotted qualified name such as ``Class.method``.
- ``--wrt`` takes a parameter position or name, or several separated by
  commas (then the derivative returns a tuple); ``--mode`` picks reverse or
  forward mode; ``--no-optimize`` skips the optimisation passes; ``--passes``
  prints the function after every pipeline stage that changed it, each under
  a ``# ---- after <stage> ----`` header, then the generated module; with
  ``--diff`` each stage after the first is shown as a unified diff against
  the one before.
- A file target is imported as a module (with its directory on ``sys.path``,
  under its file name unless that module name is taken); whatever the import
  prints goes to stderr, so stdout holds only the generated code.
- A target that cannot be loaded (missing file or module, syntax error, no
  such name, not a function) prints one line on stderr and exits with 2.  A
  ``SrcadError`` raised by the transformation prints its message (which may
  span several lines: place, source line, caret, hint) and exits with 1.
  Neither prints a traceback.
- ``srcad templates`` lists every function srcad has a rule for, by a
  readable name (``np.sin``, ``math.sin``, ``operator.mul (*)``), with the
  modes it has a rule in, then the functions declared non-differentiable,
  then the totals (``N functions: R reverse, F forward``).
  ``srcad templates --missing`` lists instead, module by module, the
  functions autograd differentiates (the reference list in
  ``grad_templates/reference.py``) that srcad covers in neither mode or in
  one only, then the reference names this installation does not have, then
  the total (``N missing``).
- ``python -m srcad`` is the same command.

Example::

    $ srcad show examples/quickstart.py:loss --wrt W
    $ python -m srcad show mypackage.model:energy --wrt 0,1 --passes
    $ srcad templates
    $ srcad templates --missing
"""
from __future__ import annotations

import argparse
import difflib
import builtins
import contextlib
import importlib
import importlib.util
import inspect
import math
import operator
import os
import re
import sys
import textwrap
from types import ModuleType
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import api, pipeline
from .errors import SrcadError
from .kernels import cli as kernel_cli
from .templates import FORWARD, REGISTRY, REVERSE
from .version import __version__
from grad_templates import optional

EXIT_OK, EXIT_SRCAD_ERROR, EXIT_BAD_TARGET = 0, 1, 2
_TARGET_FORM = "path/to/file.py:function or package.module:function"


class TargetError(Exception):
    """A TARGET that cannot be loaded; its message is a single line."""


def parse_wrt(text: str) -> Union[int, str, Tuple[Union[int, str], ...]]:
    """Turn a ``--wrt`` value into what ``srcad.grad``'s ``wrt`` accepts.

    Integers become positions, other entries parameter names; a comma makes
    a tuple.

    Example::

        >>> parse_wrt("0"), parse_wrt("x,y"), parse_wrt("1, b")
        (0, ('x', 'y'), (1, 'b'))
    """
    entries: List[Union[int, str]] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise SrcadError(f"--wrt {text!r} has an empty entry; write e.g. --wrt 0,1 or --wrt x,y")
        entries.append(int(part) if re.fullmatch(r"[+-]?\d+", part) else part)
    return entries[0] if len(entries) == 1 else tuple(entries)


def _split_target(target: str) -> Tuple[str, str]:
    where, colon, name = target.rpartition(":")
    if not colon or not where or not name:
        raise TargetError(f"target {target!r} is not of the form {_TARGET_FORM}")
    if not all(part.isidentifier() for part in name.split(".")):
        raise TargetError(f"{name!r} in target {target!r} is not a (dotted) Python name")
    return where, name


def _looks_like_path(where: str) -> bool:
    return where.endswith(".py") or os.sep in where or "/" in where or os.path.isfile(where)


def _module_name_for(path: str) -> str:
    """A stable module name for the file at ``path``: its stem, unless that is taken."""
    stem = os.path.splitext(os.path.basename(path))[0]
    existing = sys.modules.get(stem)
    if stem.isidentifier() and (existing is None or getattr(existing, "__file__", None) == path):
        return stem
    safe = re.sub(r"\W", "_", stem)
    return f"_srcad_target_{safe}"


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else f"line {exc.lineno}"
        return f"SyntaxError: {exc.msg} ({where})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def load_module_from_file(path: str) -> ModuleType:
    """Import the Python file at ``path`` as a module, with its directory on ``sys.path``.

    Example::

        >>> module = load_module_from_file("examples/quickstart.py")   # doctest: +SKIP
        >>> module.loss                                                 # doctest: +SKIP
        <function loss at 0x...>
    """
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = _module_name_for(path)
    if getattr(sys.modules.get(name), "__file__", None) == path:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep stdout for the derivative
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # the user's module failed at import time
        del sys.modules[name]
        raise TargetError(f"cannot import {path}: {_one_line(exc)}") from None
    return module


def _import_module(dotted: str) -> ModuleType:
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        with contextlib.redirect_stdout(sys.stderr):  # keep stdout for the derivative
            return importlib.import_module(dotted)
    except ModuleNotFoundError as exc:
        raise TargetError(f"no module named {exc.name or dotted!r} (while importing {dotted!r})") from None
    except (Exception, SystemExit) as exc:
        raise TargetError(f"cannot import {dotted}: {_one_line(exc)}") from None


def load_target(target: str) -> Callable:
    """The function that ``target`` (``file.py:name`` or ``package.module:name``) names.

    Example::

        >>> load_target("examples/quickstart.py:loss").__name__   # doctest: +SKIP
        'loss'
    """
    return _resolve_target(target)[0]


def _resolve_target(target: str) -> Tuple[Callable, int]:
    """``target``'s function and the position of its first parameter a user differentiates.

    That is 1 for a method named through its class (``Model.loss``: ``self`` comes first) or a
    classmethod (``cls``), and 0 otherwise.
    """
    where, qualname = _split_target(target)
    module = load_module_from_file(where) if _looks_like_path(where) else _import_module(where)
    value: object = module
    walked = []
    first_parameter = 0
    for part in qualname.split("."):
        owner_is_class = inspect.isclass(value)
        try:
            value = inspect.getattr_static(value, part)
        except AttributeError:
            owner = f"{where}:{'.'.join(walked)}" if walked else where
            found = [n for n, v in vars(module).items() if inspect.isfunction(v)
                     and getattr(v, "__module__", None) == module.__name__] if not walked else []
            shown = ", ".join(sorted(found)[:10]) + (", ..." if len(found) > 10 else "")
            known = f" (functions defined there: {shown})" if found else ""
            raise TargetError(f"{owner} has no attribute {part!r}{known}") from None
        first_parameter = 1 if owner_is_class and not isinstance(value, staticmethod) else 0
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        walked.append(part)
    if not inspect.isfunction(value) and not inspect.ismethod(value):
        kind = "a class" if inspect.isclass(value) else f"a {type(value).__name__}"
        raise TargetError(f"{where}:{qualname} is {kind}, not a Python function")
    return value, first_parameter


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="srcad", description="Show the derivative code srcad generates for a Python function, "
                                  "or list the functions it has gradient rules for.")
    parser.add_argument("--version", action="version", version=f"srcad {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    show = commands.add_parser(
        "show", help="print the generated derivative of a function",
        description="Print the generated derivative of a function.")
    show.add_argument("target", metavar="TARGET", help=f"the function: {_TARGET_FORM}")
    show.add_argument("--wrt", default=None,
                      help="parameter position(s) or name(s) to differentiate with respect to, "
                           "comma-separated (default: the first parameter; for Class.method, the "
                           "first after self or cls)")
    show.add_argument("--mode", choices=api.MODES, default="reverse", help="default: reverse")
    show.add_argument("--passes", action="store_true",
                      help="print the function after each pipeline stage that changes it")
    show.add_argument("--diff", action="store_true",
                      help="print what each pipeline stage changed, as a unified diff (implies --passes)")
    show.add_argument("--no-optimize", dest="optimize", action="store_false",
                      help="skip the optimisation passes")
    show.add_argument("--ranks", default=None,
                      help="the variant for arguments of these ranks, comma-separated (e.g. 2,2): what runs "
                           "when a function whose loops store element by element, or that multiplies matrices, gets "
                           "arrays of those ranks")
    show.add_argument("--backend", choices=("numpy", "numba"), default="numpy",
                      help="numba: the module numba compiles (for --ranks, all scalars by default)")
    show.add_argument("--checkpoints", type=int, default=None, metavar="K",
                      help="the derivative whose top-level range loops keep at most K states (binomial "
                           "checkpointing), then each loop's step function and the step's derivative")
    kernel_cli.add_command(commands)
    templates = commands.add_parser(
        "templates", help="list the functions srcad has gradient rules for, and their modes",
        description="List the functions srcad has gradient rules for (and in which modes), then those "
                    "declared non-differentiable, then the totals.")
    templates.add_argument("--missing", action="store_true",
                           help="list the functions autograd differentiates that srcad does not, by module")
    return parser


_OPERATOR_SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "matmul": "@", "neg": "unary -", "pos": "unary +", "getitem": "x[i]", "lt": "<", "le": "<=",
    "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "not_": "not", "invert": "~",
}


def _namespaces():
    """(prefix, module) pairs searched for a function's readable name, most specific first."""
    import numpy as np
    found = [("np.linalg", np.linalg), ("np.random", np.random), ("np", np)]
    for name in ("scipy.special", "scipy.linalg", "scipy.stats", "scipy.signal", "scipy.integrate"):
        if sys.modules.get(name) is not None:
            found.append((name, sys.modules[name]))
    return found + [("math", math)]


def display_name(function) -> str:
    """How ``srcad templates`` names a function: ``np.sin``, ``np.linalg.norm``, ``operator.mul (*)``.

    Example::

        >>> import operator
        >>> display_name(operator.mul)
        'operator.mul (*)'
    """
    name = getattr(function, "__name__", None)
    if name is None:   # an object such as np.mgrid: its name in a namespace
        for prefix, namespace in _namespaces():
            for attribute, value in vars(namespace).items():
                if value is function:
                    return f"{prefix}.{attribute}"
        return repr(function)
    if getattr(operator, name, None) is function:
        symbol = _OPERATOR_SYMBOLS.get(name)
        return f"operator.{name} ({symbol})" if symbol else f"operator.{name}"
    if getattr(builtins, name, None) is function:
        return name
    for prefix, namespace in _namespaces():
        candidate = getattr(namespace, name, None)
        if candidate is function or (inspect.ismethod(function) and candidate == function):
            return f"{prefix}.{name}"
        owner = getattr(function, "__self__", None)   # scipy.stats.norm.logpdf: a method of a distribution
        if inspect.ismethod(function) and owner is not None:
            held = next((attribute for attribute, value in vars(namespace).items() if value is owner), None)
            if held is not None:
                return f"{prefix}.{held}.{name}"
    module = getattr(function, "__module__", None) or type(function).__module__
    return f"{module}.{getattr(function, '__qualname__', name)}"


def _templates(out) -> int:
    """Print the registry: functions with rules and their modes, non-differentiable ones, those not
    differentiated, totals."""
    optional.load_all()   # the SciPy families register when SciPy is imported: import it to list them
    rows = {}
    for mode in (REVERSE, FORWARD):
        for template in REGISTRY.rules[mode].values():
            rows.setdefault(display_name(template.primal), set()).add(mode)
    width = max([len(name) for name in rows] + [len("function")])
    out.write(f"{'function':<{width}}  modes\n")
    for name in sorted(rows, key=str.lower):
        modes = " ".join(m for m in (REVERSE, FORWARD) if m in rows[name])
        out.write(f"{name:<{width}}  {modes}\n")
    constant = sorted({display_name(fn) for fn in REGISTRY.nondiff if fn not in REGISTRY.refused}, key=str.lower)
    refused = sorted({display_name(fn) for fn in REGISTRY.refused}, key=str.lower)
    for title, names in (("non-differentiable (no derivative code)", constant),
                         ("not differentiated (no rule: a value being differentiated must not reach them)", refused)):
        out.write(f"\n{title}:\n")
        out.write(textwrap.fill(", ".join(names), width=99, initial_indent="  ", subsequent_indent="  ",
                                break_on_hyphens=False) + "\n")
    reverse = sum(REVERSE in modes for modes in rows.values())
    forward = sum(FORWARD in modes for modes in rows.values())
    out.write(f"\n{len(rows)} functions with rules: {reverse} reverse, {forward} forward; "
              f"{len(constant)} non-differentiable, {len(refused)} not differentiated\n")
    return EXIT_OK


def _missing(out) -> int:
    """Print, by module, the functions of the reference list srcad does not cover in both modes."""
    from grad_templates.reference import missing, unavailable
    gaps = missing()
    out.write("functions autograd differentiates that srcad does not (reference: grad_templates/reference.py):\n")
    for module, entries in gaps.items():
        text = ", ".join(name if what == "no rule" else f"{name} ({what})" for name, what in entries) or "none"
        out.write(textwrap.fill(f"{module} ({len(entries)}): {text}", width=99, subsequent_indent="  ",
                                break_on_hyphens=False) + "\n")
    absent = [f"{module}.{name}" for module, names in unavailable().items() for name in names]
    if absent:
        out.write(textwrap.fill("not in the installed versions: " + ", ".join(absent), width=99,
                                subsequent_indent="  ", break_on_hyphens=False) + "\n")
    out.write(f"{sum(len(entries) for entries in gaps.values())} missing\n")
    return EXIT_OK


def _parse_ranks(text: Optional[str]):
    """``"2,2"`` as ``(2, 2)``; None when not given."""
    if not text:
        return None
    try:
        ranks = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise TargetError(f"--ranks {text!r}: give one non-negative integer per argument, e.g. --ranks 2,1") \
            from None
    if any(rank < 0 for rank in ranks):
        raise TargetError(f"--ranks {text!r}: a rank is a number of dimensions, 0 or more")
    return ranks


def _show(args: argparse.Namespace, out) -> int:
    func, first_parameter = _resolve_target(args.target)
    wrt = parse_wrt(args.wrt) if args.wrt is not None else first_parameter
    if args.mode not in pipeline.PIPELINES:
        raise SrcadError(f"{args.mode} mode is not available in srcad {__version__}")
    names, as_tuple = api.resolve_wrt(func, wrt)
    ranks = _parse_ranks(args.ranks)
    if not (args.passes or args.diff):
        out.write(api.source(func, wrt, args.mode, optimize=args.optimize, ranks=ranks,
                             checkpoints=args.checkpoints, backend=args.backend))
        if args.checkpoints and args.mode == "reverse":
            _show_steps(api.derivative(func, wrt, args.mode, args.optimize, checkpoints=args.checkpoints), out)
        return EXIT_OK

    previous: List[str] = []

    def observe(stage: str, text: str) -> None:
        header = "# ---- source ----" if stage == "source" else f"# ---- after {stage} ----"
        if previous and text == previous[-1]:   # the stage ran but left the text as it was
            return
        shown = text
        if args.diff and previous:   # what this stage changed
            shown = "\n".join(difflib.unified_diff(previous[-1].splitlines(), text.splitlines(),
                                                   "before", stage, lineterm=""))
        previous.append(text)
        out.write(f"{header}\n{shown.rstrip()}\n\n")

    options = {"optimize": args.optimize, "tuple_result": as_tuple}
    if args.checkpoints:
        options["checkpoints"] = args.checkpoints
    if ranks:
        options["param_ranks"] = ranks
    generated = pipeline.build(func, names, args.mode, options, observe=observe)
    out.write("# ---- generated module ----\n" + generated.source)
    return EXIT_OK


def _show_steps(derivative, out) -> None:
    """Each checkpointed loop's step function (``srcad.passes.checkpoints``) and its derivative."""
    for step in derivative._generated.__globals__.values():
        if getattr(step, "srcad_loop_step", False):
            parameters = step.__code__.co_varnames[1:step.__code__.co_argcount]
            out.write(f"\n\n# ---- {step.__name__}: one step of the loop ----\n{inspect.getsource(step)}"
                      f"\n\n{api.source(step, tuple(parameters))}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``srcad`` command with ``argv`` (default: ``sys.argv[1:]``); the exit status.

    Example::

        >>> main(["show", "examples/quickstart.py:loss", "--wrt", "W"])   # doctest: +SKIP
        0
    """
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "templates":
            return _missing(sys.stdout) if args.missing else _templates(sys.stdout)
        if args.command == "kernel":
            return kernel_cli.run(args, sys.stdout)
        return _show(args, sys.stdout)
    except TargetError as exc:
        print(f"srcad: {exc}", file=sys.stderr)
        return EXIT_BAD_TARGET
    except SrcadError as exc:
        print(f"srcad: error: {exc}", file=sys.stderr)
        return EXIT_SRCAD_ERROR
    except BrokenPipeError:  # e.g. `srcad show ... | head`
        sys.stderr.close()
        return EXIT_OK
