"""``check_grads``: compare srcad's derivatives of a function with central finite differences.

Contract:
- ``check_grads(f, args, wrt=None, modes=('forward', 'reverse'), order=1,
  eps=None, rtol=None, atol=None, trials=2, seed=0)`` returns None when every
  check passes and raises ``AssertionError`` with a readable report (mode,
  order, argument, the two numbers compared, the error and the tolerance) on
  the first mismatch.  Errors srcad raises while building a derivative
  (``SrcadError``) propagate unchanged.
- Random projections make it work for any input and output shapes (arrays,
  Python floats, tuples or lists of them as outputs): the function is probed
  along a random direction ``v`` of one ``wrt`` argument at a time (so a
  failure names the argument) and its output is projected on a random
  cotangent ``u``.  Finite differences are central, in float64, with step
  ``eps * max(1, |x|_inf)``; the inputs are never modified.  A complex
  argument moves in a complex direction (real and imaginary parts), values
  pair by ``Re(sum(a * b))`` (README, "Complex numbers"), and ``wrt=None``
  takes complex arguments as well as float ones.
- ``order=1``: reverse mode checks ``<u, (f(x+hv) - f(x-hv)) / 2h>`` against
  ``<vjp(u), v>``; forward mode checks ``jvp(v)`` against the central
  difference elementwise.
- ``order=2`` checks second derivatives by differentiating srcad's own
  first-derivative function with finite differences: reverse mode
  differentiates the gradient ``x -> vjp(x, u)`` along ``v`` (forward over
  reverse), forward mode differentiates ``x -> jvp(x, w)`` along ``v``; both
  are projected and compared with the second-order central difference of
  ``<u, f>`` along ``v`` and ``w``, for every pair of ``wrt`` arguments
  ``v`` and ``w`` belong to.  srcad does not differentiate its
  generated code yet, so this checks that the derivative functions are
  right around ``x`` (their own derivatives match ``f``'s second
  derivatives), not a second-order transformation.
- ``wrt`` is a parameter position or name, or a tuple of them; None means
  every argument that is a float or a floating-point array.

Example::

    >>> import numpy as np, srcad
    >>> def f(x, w):
    ...     return np.sum(np.tanh(x * w))
    >>> srcad.check_grads(f, (np.ones(3), np.arange(3.0)), modes=("reverse",))
"""
from __future__ import annotations

import inspect
import numbers
from typing import Callable, List, Sequence, Tuple

import numpy as np

from .api import autodiff
from .errors import SrcadError

MODES = ("forward", "reverse")
DEFAULT_EPS = {1: 1e-6, 2: 1e-4}
DEFAULT_RTOL = {1: 1e-5, 2: 1e-4}


# --------------------------------------------------------------------------
# values: arrays, floats, and tuples or lists of them

def _leaves(value) -> List[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [np.asarray(value, dtype=np.complex128 if np.iscomplexobj(value) else np.float64)]


def _random_like(value, rng):
    if isinstance(value, (tuple, list)):
        items = [_random_like(item, rng) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, numbers.Real) and not isinstance(value, np.generic):
        return float(rng.standard_normal())
    if np.iscomplexobj(value):   # a complex argument moves in its real and imaginary parts
        pair = rng.standard_normal((2,) + np.shape(value))
        return complex(pair[0] + 1j * pair[1]) if isinstance(value, complex) else pair[0] + 1j * pair[1]
    return rng.standard_normal(np.shape(value))


def _zeros_like(value):
    if isinstance(value, numbers.Real) and not isinstance(value, (np.ndarray, np.generic)):
        return 0.0
    return np.zeros(np.shape(value), dtype=np.complex128 if np.iscomplexobj(value) else np.float64)


def _inner(a, b) -> float:
    """``Re(sum(a * b))``: srcad's pairing of an adjoint with a tangent (README, "Complex numbers")."""
    return float(sum(np.real(np.sum(x * y)) for x, y in zip(_leaves(a), _leaves(b))))


def _norm(a) -> float:
    return float(np.sqrt(sum(np.sum(np.abs(x) ** 2) for x in _leaves(a))))


def _is_float_value(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return True
    if isinstance(value, complex):
        return True
    return isinstance(value, (np.ndarray, np.floating, np.complexfloating)) and np.asarray(value).dtype.kind in "fc"


# --------------------------------------------------------------------------
# arguments

def _positions(f: Callable, args: Sequence, wrt) -> Tuple[int, ...]:
    names = [p.name for p in inspect.signature(f).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if wrt is None:
        positions = tuple(i for i, a in enumerate(args) if _is_float_value(a))
        if not positions:
            raise SrcadError("check_grads found no float argument to differentiate; pass wrt=")
        return positions
    entries = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    positions = []
    for entry in entries:
        if isinstance(entry, str):
            if entry not in names:
                raise SrcadError(f"check_grads: wrt={entry!r} is not a positional parameter of {_label(f)}")
            positions.append(names.index(entry))
        else:
            positions.append(entry % len(args))
    return tuple(positions)


def _moved(args, position, direction, h):
    """``args`` with ``args[position] + h * direction`` (in float64), the others as given."""
    moved = list(args)
    base = args[position]
    if isinstance(base, numbers.Real) and not isinstance(base, (np.ndarray, np.generic)):
        moved[position] = float(base) + h * float(direction)
    elif isinstance(base, complex) and not isinstance(base, np.generic):
        moved[position] = complex(base) + h * complex(direction)
    else:
        moved[position] = np.asarray(base, dtype=np.complex128 if np.iscomplexobj(base) else np.float64) \
            + h * direction
    return moved


def _step(args, positions, eps) -> float:
    sizes = [float(np.max(np.abs(args[p]))) for p in positions if np.size(args[p])]
    return eps * max([1.0] + sizes)


def _label(f) -> str:
    return getattr(f, "__qualname__", None) or repr(f)


def _argument_name(f, position) -> str:
    names = list(inspect.signature(f).parameters)
    return f"{names[position]!r} (position {position})" if position < len(names) else f"position {position}"


# --------------------------------------------------------------------------
# the check

def check_grads(f: Callable, args: Sequence, wrt=None, modes: Sequence[str] = MODES, order: int = 1,
                eps: float = None, rtol: float = None, atol: float = None, trials: int = 2,
                seed: int = 0) -> None:
    """Check srcad's derivatives of ``f`` at ``args`` against central finite differences.

    ``modes`` picks reverse and/or forward mode; ``order`` is 1 (first
    derivatives) or 2 (second derivatives, by finite differences of srcad's
    first-derivative functions).  ``eps`` is the relative finite-difference
    step (default 1e-6, or 1e-4 at order 2), ``rtol`` the relative tolerance
    (default 1e-5, or 1e-4 at order 2) and ``atol`` an absolute one (default
    ``rtol`` times the size of the compared quantities).  Raises
    AssertionError with a report when a derivative disagrees.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sin(x) * x
        >>> srcad.check_grads(f, (np.linspace(0.0, 1.0, 4),), order=2)
    """
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SrcadError(f"check_grads: modes={modes!r}; use 'forward' and/or 'reverse'")
    if order not in (1, 2):
        raise SrcadError(f"check_grads: order={order!r}; use 1 or 2")
    args = tuple(args)
    positions = _positions(f, args, wrt)
    check = _Check(f, args, positions, order, DEFAULT_EPS[order] if eps is None else eps,
                   DEFAULT_RTOL[order] if rtol is None else rtol, atol, np.random.default_rng(seed))
    for _ in range(trials):
        for mode in modes:
            for position in positions:
                if order == 1:
                    check.first(mode, position)
                else:
                    for other in positions:
                        check.second(mode, position, other)


class _Check:
    """The state of one ``check_grads`` call: the function, its derivatives, tolerances."""

    def __init__(self, f, args, positions, order, eps, rtol, atol, rng):
        self.f, self.args, self.positions, self.order = f, args, positions, order
        self.eps, self.rtol, self.atol, self.rng = eps, rtol, atol, rng
        self.h = _step(args, positions, eps)
        self.output = f(*args)
        self._derivatives = {}

    def derivative(self, mode):
        if mode not in self._derivatives:
            self._derivatives[mode] = autodiff(self.f, wrt=tuple(self.positions), mode=mode)
        return self._derivatives[mode]

    # pieces ---------------------------------------------------------------
    def vjp(self, args, u):
        grads = self.derivative("reverse")(*args, u)
        for position, g in zip(self.positions, grads):
            if np.shape(g) != np.shape(args[position]):
                self.fail("reverse", position, [
                    f"the gradient has shape {np.shape(g)} but the argument has shape {np.shape(args[position])}"])
        return grads

    def jvp(self, args, position, v):
        tangents = [v if p == position else _zeros_like(args[p]) for p in self.positions]
        return self.derivative("forward")(*args, *tangents)

    def central(self, function, position, v, h):
        """``(function(x + h v) - function(x - h v)) / 2h`` for each output leaf."""
        plus = _leaves(function(*_moved(self.args, position, v, h)))
        minus = _leaves(function(*_moved(self.args, position, v, -h)))
        return [(p - m) / (2.0 * h) for p, m in zip(plus, minus)]

    # order 1 --------------------------------------------------------------
    def first(self, mode, position):
        v = _random_like(self.args[position], self.rng)
        fd = self.central(self.f, position, v, self.h)
        if mode == "reverse":
            u = _random_like(self.output, self.rng)
            g = self.vjp(self.args, u)[self.positions.index(position)]
            expected, got = _inner(u, fd), _inner(g, v)
            self.compare(mode, position, expected, got, _norm(u) * _norm(fd) + _norm(g) * _norm(v),
                         "<u, J v> by central differences", "<J^T u, v> from srcad's reverse mode")
        else:
            tangent = _leaves(self.jvp(self.args, position, v))
            if len(tangent) != len(fd):
                self.fail(mode, position, [f"the tangent has {len(tangent)} arrays, the output {len(fd)}"])
            for k, (t, expected) in enumerate(zip(tangent, fd)):
                self.compare_arrays(mode, position, k, expected, t)

    # order 2 --------------------------------------------------------------
    def second(self, mode, position, other):
        """The second derivative along ``v`` (of argument ``position``) and ``w`` (of argument ``other``)."""
        v = _random_like(self.args[position], self.rng)
        w = _random_like(self.args[other], self.rng)
        u = _random_like(self.output, self.rng)
        h = self.h
        if mode == "reverse":   # d/dv of <vjp(x, u), w>
            k = self.positions.index(other)
            got = self.central(lambda *a: self.vjp(a, u)[k], position, v, h)
            got = _inner(got, w)
            what = "<w, d/dv J^T u>, srcad's gradient differentiated numerically"
        else:                   # d/dv of <u, jvp(x, w)>
            got = self.central(lambda *a: self.jvp(a, other, w), position, v, h)
            got = _inner(u, got)
            what = "<u, d/dv J w>, srcad's tangent differentiated numerically"
        expected, noise = self.mixed_difference(u, position, v, other, w, h)
        self.compare(mode, position, expected, got, abs(expected) + abs(got),
                     "<u, f''[v, w]> by second-order central differences", what, other=other, noise=noise)

    def mixed_difference(self, u, position, v, other, w, h):
        """``<u, f(x+hv+hw) - f(x+hv-hw) - f(x-hv+hw) + f(x-hv-hw)> / 4h^2``, and its rounding noise.

        Rounding errors in the four values are amplified by ``1 / 4h^2``: a
        second derivative smaller than that noise cannot be resolved.
        """
        total, size = 0.0, 0.0
        for sv, sw in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            output = self.f(*_moved(_moved(self.args, position, v, sv * h), other, w, sw * h))
            total += sv * sw * _inner(u, output)
            size += _norm(u) * _norm(output)
        return total / (4.0 * h * h), 100.0 * np.finfo(float).eps * size / (4.0 * h * h)

    # verdicts -------------------------------------------------------------
    def allowed(self, scale, noise=0.0) -> float:
        return self.rtol * scale + max(noise, self.atol if self.atol is not None else 1e-12)

    def compare(self, mode, position, expected, got, scale, expected_label, got_label, other=None, noise=0.0):
        allowed = self.allowed(scale, noise)
        if abs(expected - got) <= allowed:
            return
        width = max(len(expected_label), len(got_label))
        lines = [f"{expected_label:<{width}} = {float(expected)!r}",
                 f"{got_label:<{width}} = {float(got)!r}",
                 f"absolute error {abs(expected - got):.3g}, allowed {allowed:.3g} "
                 f"(rtol={self.rtol:g}{'' if self.atol is None else f', atol={self.atol:g}'}, "
                 f"finite-difference step {self.h:.3g})"]
        if other is not None and other != position:
            lines.insert(0, f"second direction w along argument {_argument_name(self.f, other)}")
        self.fail(mode, position, lines)

    def compare_arrays(self, mode, position, k, expected, got):
        if got.shape != expected.shape:
            self.fail(mode, position, [f"output {k}: the tangent has shape {got.shape}, the output {expected.shape}"])
        scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
        error = np.abs(got - expected)
        allowed = self.rtol * np.abs(expected) + (self.rtol * scale if self.atol is None else self.atol)
        bad = ~(error <= allowed)
        if not np.any(bad):
            return
        worst = np.unravel_index(np.argmax(np.where(bad, error, -1.0)), error.shape) if error.ndim else ()
        index = f" at index {tuple(int(i) for i in worst)}" if error.ndim else ""
        self.fail(mode, position, [
            f"output {k}{index}: J v by central differences    = {float(expected[worst])!r}",
            f"output {k}{index}: J v from srcad's forward mode = {float(got[worst])!r}",
            f"{int(np.sum(bad))} of {error.size} entries disagree; largest absolute error "
            f"{float(error[worst]):.3g}, allowed {float(np.broadcast_to(allowed, error.shape)[worst]):.3g} "
            f"(rtol={self.rtol:g}, finite-difference step {self.h:.3g})"])

    def fail(self, mode, position, lines):
        header = (f"check_grads({_label(self.f)}): {mode} mode, order {self.order}, "
                  f"argument {_argument_name(self.f, position)} disagrees with finite differences")
        raise AssertionError("\n  ".join([header] + lines))
