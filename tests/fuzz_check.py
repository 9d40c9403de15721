"""Checking srcad's derivatives of generated programs (tests/fuzz_minimise.py shrinks failing ones).

Contract:
- ``check_program(program, seed)`` builds ``f`` from the source (through
  ``linecache``, as ``tests/gradcheck.make_function`` does), evaluates it at
  random float64 inputs (``random_arguments``; the elements
  ``program.zeros`` names are exactly 0) and returns an ``Outcome``:
  ``"ok"`` when reverse mode (``srcad.value_and_grad`` or ``srcad.vjp``) and
  forward mode (``srcad.jvp``) return f's value and agree with central finite
  differences to ``FD_RTOL`` and with each other (``<u, J v> = <J^T u, v>``)
  to ``AGREE_RTOL``; ``"refused"`` for an ``AliasingError`` (a change made
  in place that srcad cannot follow) or a ``ComplexError``,
  ``"unsupported"`` for another ``SrcadError`` (where reverse mode refuses
  lists joined with ``+`` by design, forward mode alone is still compared
  with finite differences: ``forward_alone``); ``"skipped"`` when ``f``
  raises at the point and both derivatives raise the same exception with the
  same message (``raises_alike``: else ``"wrong"``), when f fails near the point, is not finite, sits on a branch boundary (it
  runs other lines of the program at some point of the difference stencil:
  at an exact tie, ``x > 0.0`` at ``x = 0``, the derivative of the branch
  taken need not be the one of the branch around it), is not smooth at the
  point (two central-difference steps disagree by more than
  ``SMOOTH_RTOL``), or has a kink there (second-order differences from the
  right and from the left disagree: only the two modes are compared, as
  srcad's documented subgradients need not be the central difference when
  kinks compose);
  ``"wrong"`` (a derivative that changes an array it was given is wrong
  too) or ``"crash"`` otherwise, with a description.  srcad is called
  whenever f runs, so a crash or a wrong value of f counts even where the
  derivative is not compared.  A derivative of a program with
  ``must_refuse`` is ``"wrong"`` whatever its value.
- With a ``program.redefinition``, f is checked, the redefinition runs in
  f's module (``run_cell``), and f is checked again with srcad's shared
  derivatives (built before the change) and with new ones (``wrt`` given by
  name), against finite differences of f as it runs now; the outcome is the
  worst of the three (``RANKS``).  ``tests/fuzz_helpers.py`` is put back as
  it was afterwards (``helpers_restored``).
- ``refusal_by_design`` says whether a refusal is by design (a call that
  changes its argument in another module, a complex constant), and
  ``message_key`` turns a message into a key to count refusals by kind.
- ``tests/fuzz_minimise.py`` shrinks a failing program.
- ``describe`` formats an outcome with the program and its arguments.

Example::

    >>> import random
    >>> from fuzz_programs import ProgramGenerator, RandomChooser
    >>> program = ProgramGenerator(RandomChooser(random.Random(0))).program()
    >>> check_program(program, seed=0).status   # doctest: +SKIP
    'ok'
"""
from __future__ import annotations

import contextlib
import inspect
import itertools
import linecache
import math
import re
import sys
import traceback
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Tuple

import numpy as np

import fuzz_helpers
import srcad
from fuzz_choices import choices, instrumented
from fuzz_memory import MUTATORS
from fuzz_programs import SHAPES, Program

FD_RTOL = 1e-5       # srcad against central differences, relative to the size of the terms
SMOOTH_RTOL = 1e-5   # two difference steps must agree this well, or the point is not smooth
AGREE_RTOL = 1e-9    # forward against reverse mode
STEPS = (1e-6, 1e-5, 2e-5)   # finite-difference steps, relative to the largest argument (at least 1)


_MODULE_COUNTER = itertools.count()
# outcomes from best to worst: a program checked in two phases (before and after a redefinition) gets the worse
RANKS = ("ok", "skipped", "refused", "unsupported", "wrong", "crash")
REFUSALS = (srcad.AliasingError, srcad.ComplexError)
LIST_JOIN_REFUSAL = "`+` joined two lists or tuples (or `*` repeated one)"   # reverse mode's, by design


def _registered(source: str, suffix: str = "") -> str:
    """A new file name whose text ``linecache`` (and so srcad) can read."""
    filename = f"<fuzz-{next(_MODULE_COUNTER)}{suffix}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    return filename


def build_module(source: str) -> Dict[str, object]:
    """Execute ``source`` as a module whose text ``linecache`` (and so srcad) can read."""
    filename = _registered(source)
    namespace: Dict[str, object] = {"__name__": filename}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def run_cell(source: str, namespace: Dict[str, object]) -> None:
    """Run ``source`` in a module's namespace, as a notebook cell that redefines something would."""
    exec(compile(source, _registered(source, "-cell"), "exec"), namespace)


@contextlib.contextmanager
def helpers_restored():
    """Put back every binding, code object and default of ``fuzz_helpers`` a redefinition changed."""
    functions = {name: value for name, value in vars(fuzz_helpers).items() if inspect.isfunction(value)}
    saved = {name: (value.__code__, value.__defaults__) for name, value in functions.items()}
    try:
        yield
    finally:
        for name, value in functions.items():
            setattr(fuzz_helpers, name, value)
            value.__code__, value.__defaults__ = saved[name]


def random_arguments(program: Program, seed: int) -> List:
    """Uniform values in [-1.5, 1.5], with the elements ``program.zeros`` names set to 0."""
    rng = np.random.default_rng(seed)
    arguments = []
    for k, kind in enumerate(program.kinds):
        value = rng.uniform(-1.5, 1.5, SHAPES[kind])
        zero = program.zeros[k] if program.zeros else ""
        if zero == "all" or zero == "first" and kind == "S":
            value = value * 0.0
        elif zero == "first":
            value.flat[0] = 0.0
        arguments.append(float(value) if kind == "S" else value)
    return arguments


@dataclass
class Outcome:
    """The result of checking one program: ``status`` and, unless ``ok``, what happened."""

    status: str
    detail: str = ""
    numbers: Dict[str, float] = field(default_factory=dict)


def _like(value, rng):
    if isinstance(value, float):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(value))


def _inner(a, b) -> float:
    return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))


def _copies(arguments):
    """Fresh copies: a program may change its arguments in place (through a view, say)."""
    return [np.array(a) if isinstance(a, np.ndarray) else a for a in arguments]


def _moved(arguments, directions, h):
    return [a + h * d if isinstance(a, float) else np.asarray(a) + h * d for a, d in zip(arguments, directions)]


def _traced(f, arguments) -> Tuple[object, Tuple[Tuple[str, int], ...]]:
    """f's value at ``arguments`` and the lines of the generated module (f, its helpers) it ran, in order."""
    lines: List[Tuple[str, int]] = []

    def tracer(frame, event, arg):
        if not frame.f_code.co_filename.startswith("<fuzz-"):
            return None
        if event == "line":
            lines.append((frame.f_code.co_filename, frame.f_lineno))
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        value = f(*arguments)
    finally:
        sys.settrace(previous)
    return value, tuple(lines)


@dataclass
class Differences:
    """Finite differences of ``<u, f(x + t v)>`` at ``t = 0``, from one stencil of points."""

    fine: float     # central, step STEPS[0]
    coarse: float   # central, step STEPS[1]
    right: float    # second-order one-sided from the right, steps STEPS[1] and STEPS[2]
    left: float     # the same from the left
    same_lines: bool   # f ran the same lines, and made the same discrete choices, at every point of the stencil
    at_kink: bool = False   # at the point itself a primitive sat on a kink (tests/fuzz_choices.py)


def differences(f, arguments, directions, u, scale: float, recorded=None) -> Differences:
    """The ``Differences`` of f along ``directions`` at ``arguments`` (steps ``STEPS`` times ``scale``);
    ``recorded``: f's module instrumented by ``fuzz_choices.instrumented``, or None."""
    fine, step, double = (relative * scale for relative in STEPS)
    values, paths, made = {}, set(), set()
    at_kink = False
    for t in (0.0, fine, -fine, step, -step, double, -double):
        moved = _moved(arguments, directions, t)
        value, lines = _traced(f, moved)
        values[t] = _inner(u, np.asarray(value, dtype=float))
        paths.add(lines)
        seen = choices(recorded, _moved(arguments, directions, t))
        if seen is not None:
            made.add(seen[0])
            at_kink |= t == 0.0 and seen[1]
    return Differences(fine=(values[fine] - values[-fine]) / (2.0 * fine),
                       coarse=(values[step] - values[-step]) / (2.0 * step),
                       right=(4.0 * values[step] - values[double] - 3.0 * values[0.0]) / (2.0 * step),
                       left=(3.0 * values[0.0] - 4.0 * values[-step] + values[-double]) / (2.0 * step),
                       same_lines=len(paths) == 1 and len(made) <= 1, at_kink=at_kink)


class WroteArgument(Exception):
    """A derivative changed an array it was given (in real use, the caller's)."""


def _unchanged(given: List, originals: List, label: str) -> None:
    for value, original in zip(given, originals):
        if isinstance(original, np.ndarray) and not np.array_equal(value, original, equal_nan=True):
            raise WroteArgument(f"the {label} derivative changed an array it was given")


def differentiate(f: Callable, arguments: List, u, directions, names: Tuple[str, ...] = ()
                  ) -> Tuple[float, float, object, object]:
    """(<J^T u, v> by reverse mode, <u, J v> by forward mode, reverse value, forward value).

    The derivatives are srcad's shared ones (``wrt`` by position); with ``names``, new ones built now
    (``wrt`` by name), which return no value where f's own stands in.  ``WroteArgument`` when a derivative
    changes an argument, a seed or a tangent it was given.
    """
    positions = tuple(range(len(arguments)))
    output = f(*_copies(arguments))
    primals, seed = _copies(arguments), _copies([u])[0]
    if np.ndim(output) == 0:
        reverse_value, gradients = srcad.value_and_grad(f, wrt=names or positions)(*primals)
        gradients = tuple(g * u for g in gradients)
    elif names:
        reverse_value, gradients = output, srcad.autodiff(f, wrt=names)(*primals, seed)
    else:
        reverse_value, pullback = srcad.vjp(f, *primals)
        gradients = pullback(seed)
    _unchanged(primals + [seed], arguments + [u], "reverse-mode")
    for gradient, argument in zip(gradients, arguments):
        if np.shape(gradient) != np.shape(argument):
            raise AssertionError(f"gradient shape {np.shape(gradient)} for an argument of shape "
                                 f"{np.shape(argument)}")
    reverse = sum(_inner(g, d) for g, d in zip(gradients, directions))
    forward, forward_value = forward_mode(f, arguments, u, directions, names)
    return reverse, forward, reverse_value, forward_value


def forward_mode(f: Callable, arguments: List, u, directions, names: Tuple[str, ...] = ()) -> Tuple[float, object]:
    """(<u, J v> by forward mode, its value of f), as ``differentiate`` computes them."""
    output = f(*_copies(arguments))
    primals, tangents = _copies(arguments), _copies(directions)
    if names:
        forward_value = output
        tangent = srcad.autodiff(f, wrt=names, mode="forward")(*primals, *tangents)
    else:
        forward_value, tangent = srcad.jvp(f, primals, tangents)
    _unchanged(primals + tangents, arguments + directions, "forward-mode")
    if np.shape(tangent) != np.shape(output):
        raise AssertionError(f"tangent shape {np.shape(tangent)} for an output of shape {np.shape(output)}")
    return _inner(u, tangent), forward_value


def check_program(program: Program, seed: int = 0) -> Outcome:
    """Differentiate ``program``'s ``f`` in both modes and compare; see the module docstring.

    With a redefinition, f is checked, the redefinition is run, and f is checked again with the same
    derivatives and with new ones; the outcome is the worst of the three.
    """
    namespace = build_module(program.source)
    f = namespace["f"]
    arguments = random_arguments(program, seed)
    recorded = instrumented(program.source, build_module)   # f's choices, in a copy run beside it
    first = check_point(program, f, arguments, seed, recorded=recorded)
    if not program.redefinition or first.status in RANKS[2:]:
        return first
    outcomes = [first]
    with helpers_restored():
        run_cell(program.redefinition, namespace)
        if recorded is not None:   # the copy is redefined the same way
            try:
                run_cell(program.redefinition, recorded)
            except Exception:   # noqa: BLE001 -- then choices are not recorded after it
                recorded = None
        for label, names in (("the same derivatives", ()), ("new derivatives", program.parameters)):
            outcome = check_point(program, f, arguments, seed, names, recorded=recorded)
            if outcome.status != "ok":
                outcome.detail = f"after the redefinition, with {label}: {outcome.detail}"
            outcomes.append(outcome)
    return max(outcomes, key=lambda outcome: RANKS.index(outcome.status))


def raises_alike(f: Callable, arguments: List, error: Exception, rng, names: Tuple[str, ...] = ()) -> Outcome:
    """f raised ``error`` at ``arguments``: both derivatives must raise it too (same type, same message).

    ``skipped`` when they do (there is no derivative to compare), ``refused`` for an ``AliasingError`` or a
    ``ComplexError`` and ``unsupported`` for another ``SrcadError`` (as ``check_point`` counts them),
    ``wrong`` when a derivative returns or raises something else.
    """
    wrt = names or tuple(range(len(arguments)))
    attempts = (("reverse", lambda: srcad.vjp(f, *_copies(arguments)) if not names else
                 srcad.autodiff(f, wrt=names)(*_copies(arguments), 1.0)),
                ("forward", lambda: srcad.autodiff(f, wrt=wrt, mode="forward")(
                    *_copies(arguments), *[_like(a, rng) for a in arguments])))
    for label, attempt in attempts:
        try:
            with np.errstate(all="ignore"):
                attempt()
        except REFUSALS as raised:   # counted as check_point counts them
            return Outcome("refused", f"{type(raised).__name__}: {raised}")
        except srcad.SrcadError as raised:
            return Outcome("unsupported", f"{type(raised).__name__}: {raised}")
        except Exception as raised:   # noqa: BLE001 -- compared with what f raised
            if type(raised) is not type(error) or str(raised) != str(error):
                return Outcome("wrong", f"f raises {type(error).__name__}: {error}; the {label}-mode derivative "
                                        f"raises {type(raised).__name__}: {raised}")
            continue
        return Outcome("wrong", f"f raises {type(error).__name__}: {error}; the {label}-mode derivative returns")
    return Outcome("skipped", f"f raises {type(error).__name__} (so do both derivatives): {error}")


def check_point(program: Program, f: Callable, arguments: List, seed: int, names: Tuple[str, ...] = (),
                recorded=None) -> Outcome:
    """One comparison of f's derivatives with finite differences at ``arguments`` (see the module docstring)."""
    rng = np.random.default_rng(seed + 1)
    with np.errstate(all="ignore"):
        try:
            output = f(*_copies(arguments))
        except (ArithmeticError, ValueError, IndexError) as error:
            return raises_alike(f, arguments, error, rng, names)
    values = np.asarray(output, dtype=float)
    if not np.all(np.isfinite(values)) or np.max(np.abs(values), initial=0.0) > 1e8:
        return Outcome("skipped", "f is not finite or too large here")
    u = _like(output if np.ndim(output) else 1.0, rng)
    directions = [_like(a, rng) for a in arguments]
    scale_x = max([1.0] + [float(np.max(np.abs(a))) for a in arguments])
    try:
        with np.errstate(all="ignore"):
            stencil = differences(f, arguments, directions, u, scale_x, recorded)
    except (ArithmeticError, ValueError, IndexError) as error:
        return Outcome("skipped", f"f raises {type(error).__name__} near the point: {error}")
    fine = stencil.fine
    size = max(1.0, abs(fine), abs(stencil.coarse))
    smooth = abs(fine - stencil.coarse) <= SMOOTH_RTOL * size
    kink = smooth and not abs(stencil.right - stencil.left) <= SMOOTH_RTOL * size
    try:
        with np.errstate(all="ignore"):
            reverse, forward, reverse_value, forward_value = differentiate(f, arguments, u, directions, names)
    except REFUSALS as error:
        return Outcome("refused", f"{type(error).__name__}: {error}")
    except WroteArgument as error:
        return Outcome("wrong", str(error))
    except srcad.SrcadError as error:
        refusal = Outcome("unsupported", f"{type(error).__name__}: {error}")
        if LIST_JOIN_REFUSAL not in str(error):
            return refusal
        return forward_alone(f, arguments, u, directions, names, stencil, values, refusal)
    except Exception:   # noqa: BLE001 -- any other exception is a bug in srcad
        return Outcome("crash", traceback.format_exc(limit=-6))
    numbers = {"finite differences": fine, "reverse": reverse, "forward": forward}
    if program.must_refuse:
        return Outcome("wrong", f"srcad returned a derivative where it must raise {program.must_refuse}", numbers)
    for label, value in (("reverse", reverse_value), ("forward", forward_value)):
        if not np.allclose(np.asarray(value, dtype=float), values, rtol=1e-12, atol=1e-12):
            return Outcome("wrong", f"the {label}-mode derivative returns f = {value!r}, f gives {output!r}", numbers)
    modes_agree = abs(forward - reverse) <= AGREE_RTOL * max(1.0, abs(forward), abs(reverse))
    if not stencil.same_lines:
        return Outcome("skipped", "branch boundary: f runs other lines or makes other discrete choices near the point",
                       numbers)
    if not smooth:
        return Outcome("skipped", "not smooth at this point", numbers)
    if kink:
        if math.isfinite(forward) and math.isfinite(reverse) and not modes_agree:
            return Outcome("wrong", "forward and reverse mode disagree at a kink", numbers)
        numbers.update({"from the right": stencil.right, "from the left": stencil.left})
        return Outcome("skipped", "kink: the differences from the right and from the left disagree", numbers)
    scale = max(1.0, abs(fine))
    if stencil.at_kink and modes_agree and not abs(reverse - fine) <= FD_RTOL * scale:
        # abs(0), a tie in minimum/maximum: the derivative is the choices' at the point, not the limit's
        return Outcome("skipped", "kink: a primitive sits on its kink at this point (abs of 0, a tie)", numbers)
    for label, value in (("reverse", reverse), ("forward", forward)):
        if not math.isfinite(value) or abs(value - fine) > FD_RTOL * scale:
            return Outcome("wrong", f"{label} mode disagrees with finite differences", numbers)
    if not modes_agree:
        return Outcome("wrong", "forward and reverse mode disagree", numbers)
    return Outcome("ok", numbers=numbers)


def forward_alone(f: Callable, arguments: List, u, directions, names: Tuple[str, ...], stencil: Differences,
                  values, refusal: Outcome) -> Outcome:
    """Reverse mode refused by design (lists joined with ``+``): forward mode, which differentiates them, is
    still compared with finite differences where the point is smooth; ``refusal`` unless it is wrong."""
    try:
        with np.errstate(all="ignore"):
            forward, forward_value = forward_mode(f, arguments, u, directions, names)
    except WroteArgument as error:
        return Outcome("wrong", str(error))
    except srcad.SrcadError as error:
        return Outcome("unsupported", f"{type(error).__name__}: {error} (forward mode; reverse mode: "
                                      f"{refusal.detail})")
    except Exception:   # noqa: BLE001 -- any other exception is a bug in srcad
        return Outcome("crash", traceback.format_exc(limit=-6))
    numbers = {"finite differences": stencil.fine, "forward": forward}
    if not np.allclose(np.asarray(forward_value, dtype=float), values, rtol=1e-12, atol=1e-12):
        return Outcome("wrong", f"the forward-mode derivative returns f = {forward_value!r}", numbers)
    size = max(1.0, abs(stencil.fine), abs(stencil.coarse))
    compared = (stencil.same_lines and abs(stencil.fine - stencil.coarse) <= SMOOTH_RTOL * size
                and abs(stencil.right - stencil.left) <= SMOOTH_RTOL * size and not stencil.at_kink)
    if compared and not abs(forward - stencil.fine) <= FD_RTOL * max(1.0, abs(stencil.fine)):
        return Outcome("wrong", "forward mode disagrees with finite differences (reverse mode refused by "
                                "design)", numbers)
    return Outcome(refusal.status, refusal.detail + (" (forward mode agrees with finite differences)"
                                                     if compared else ""), numbers)


def refusal_by_design(outcome: Outcome) -> bool:
    """Whether ``outcome`` is a refusal srcad makes by design: a complex constant (``ComplexError``, or reading
    ``.real``/``.imag`` of a differentiated value), lists or tuples joined with ``+`` or repeated with ``*``
    (``UnsupportedValueError`` in reverse mode, README), or a call to a function of another module that changes its
    argument (one of ``tests/fuzz_helpers.py``)."""
    calls = "|".join(MUTATORS)
    if outcome.status == "unsupported":   # a complex constant's `.real` read; lists joined with `+` (reverse mode)
        return re.search(r"reading `\.(real|imag)` of a value that is being differentiated|"
                         + re.escape(LIST_JOIN_REFUSAL), outcome.detail) is not None
    return outcome.status == "refused" and ("ComplexError:" in outcome.detail
                                            or re.search(rf"\b({calls})\(", outcome.detail) is not None)


def message_key(detail: str) -> str:
    """A refusal's message with the user's names and numbers left out, to count refusals by kind."""
    last = detail.strip().splitlines()[-1] if detail.strip() else ""
    last = re.sub(r"\d+", "N", re.sub(r"`[^`]*`", "`_`", last))
    return re.sub(r" \([^()]*\)", "", last).split("; ")[0][:110]


def describe(program: Program, outcome: Outcome, seed: int) -> str:
    """A readable report of one program's outcome (for failure messages and logs)."""
    numbers = ", ".join(f"{k} = {v!r}" for k, v in outcome.numbers.items())
    shapes = ", ".join(f"{name}: {SHAPES[kind]}" for name, kind in zip(program.parameters, program.kinds))
    zeros = f", zero elements: {program.zeros}" if program.zeros else ""
    cell = f"\nrun after the first derivative:\n{program.redefinition}" if program.redefinition else ""
    return (f"{outcome.status}: {outcome.detail}\n{numbers}\narguments ({shapes}) from seed {seed}{zeros}\n"
            f"{program.source}{cell}")

