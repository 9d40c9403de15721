"""Numeric checks of srcad derivatives against central finite differences.

Contract:
- Every check computes finite differences in float64 with a central step
  scaled to the inputs (``x +- h v`` with ``h = EPS * max(1, |x|_inf)``), so it
  works for any input and output shapes: the function is probed along random
  directions ``v`` and its output is projected on random cotangents ``u``.
- ``check_reverse(f, args, wrt)`` compares ``<u, (f(x+hv) - f(x-hv)) / 2h>``
  with ``<vjp(u), v>`` where ``vjp = srcad.autodiff(f, wrt, mode='reverse')``,
  and checks each gradient has its argument's shape and dtype.
- ``check_grad_full(f, args, wrt)`` compares ``srcad.grad`` of a scalar-valued
  ``f`` with a finite difference of every input element (small inputs only).
- ``check_forward(f, args, wrt)`` compares the JVP of
  ``srcad.autodiff(f, wrt, mode='forward')`` with the finite-difference
  directional derivative, elementwise.
- ``check_forward_reverse(f, args, wrt)`` checks ``<u, Jv> = <J^T u, v>`` to a
  relative ``AGREE_RTOL`` (both sides from srcad, no finite differences).
- Complex arguments are perturbed in their real and imaginary parts
  (complex random directions) and values are paired by ``Re(sum(a * b))``
  (``inner``): srcad's convention (README, "Complex numbers"), under which
  ``<u, FD Jv> = <vjp(u), v>`` is the identity every check tests.
- ``wrt`` is passed to srcad exactly as given (an int, a name, or a tuple of
  them); ``None`` means every argument, as a tuple.  A failed check raises
  ``AssertionError`` saying which function, argument and numbers disagree.
- ``check_values(f, args, wrt)`` checks the value ``value_and_grad`` (with a
  seed shaped like the output), ``vjp`` and the forward-mode derivative
  (``jvp``) return against ``f(*args)``.
- ``random_input(shape, domain, rng)`` draws an input inside a function's
  domain; ``make_function(text, namespace)`` turns source text into a function
  whose source ``inspect`` (and therefore srcad) can read.
- Nothing here mutates the arguments it is given.
- ``no_disk_cache`` is an autouse fixture: a test module that imports it runs
  with srcad's disk cache off.

Example::

    >>> import numpy as np
    >>> def f(x):
    ...     return np.sin(x)
    >>> check_reverse(f, (np.zeros(3),))   # doctest: +SKIP
"""
from __future__ import annotations

import inspect
import itertools
import linecache
import numbers
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np
import pytest

import srcad
import srcad.api

EPS = 1e-6          # relative finite-difference step
FD_RTOL = 1e-6      # tolerance of finite-difference comparisons
AGREE_RTOL = 1e-10  # tolerance of forward-vs-reverse agreement

# --------------------------------------------------------------------------
# test setup


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    """Autouse in every module that imports it: build derivatives with the current generator.

    The disk cache is keyed by srcad's version, not by its code, so a cached
    file from before an edit to a pass would otherwise be served to the tests.
    """
    monkeypatch.setenv("SRCAD_CACHE", "0")


# --------------------------------------------------------------------------
# inputs

def _spd(rng, shape):
    """Symmetric positive definite matrices (the last two axes), well conditioned."""
    b = rng.standard_normal(shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def _well_conditioned(rng, shape):
    """Square matrices near ``n I``: nonsingular, with eigenvalues far from 0."""
    return shape[-1] * np.eye(shape[-1]) + rng.standard_normal(shape)


def _symmetric_spread(rng, shape):
    """Symmetric matrices with eigenvalues 1, 2, ..., n (well separated), randomly rotated."""
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    values = np.arange(1.0, shape[-1] + 1.0)
    return (q * values) @ np.swapaxes(q, -1, -2)


DOMAINS = {
    "real": lambda rng, shape: rng.standard_normal(shape),
    "positive": lambda rng, shape: rng.uniform(0.5, 2.0, shape),
    "negative": lambda rng, shape: rng.uniform(-2.0, -0.5, shape),
    "unit": lambda rng, shape: rng.uniform(-0.9, 0.9, shape),          # arcsin-like
    "prob": lambda rng, shape: rng.uniform(0.1, 0.9, shape),           # logit, erfinv, ndtri
    "above1": lambda rng, shape: rng.uniform(1.2, 3.0, shape),         # arccosh
    "nonzero": lambda rng, shape: (rng.uniform(0.5, 2.0, shape)
                                   * rng.choice([-1.0, 1.0], shape)),  # abs, denominators
    "spd": _spd,                                                       # cholesky
    "wellcond": _well_conditioned,                                     # inv, solve, det
    "symmetric": _symmetric_spread,                                    # eigh
    "complex": lambda rng, shape: rng.standard_normal(shape) + 1j * rng.standard_normal(shape),
    "complex_nonzero": lambda rng, shape: (rng.uniform(0.5, 2.0, shape)   # |z|, angle, denominators, log
                                           * np.exp(1j * rng.uniform(-3.0, 3.0, shape))),
}

PYFLOAT = float  # a "shape" meaning: a Python float, not an array


def random_input(shape, domain: str = "real", rng=None, dtype=np.float64):
    """A random value of ``shape`` (a tuple, or ``float`` for a Python float) inside ``domain`` (complex128, or a
    Python complex, for the ``complex`` domains)."""
    rng = np.random.default_rng(0) if rng is None else rng
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}; use one of {sorted(DOMAINS)}")
    complex_domain = domain.startswith("complex")
    if shape is PYFLOAT:
        value = DOMAINS[domain](rng, ())
        return complex(value) if complex_domain else float(value)
    return np.asarray(DOMAINS[domain](rng, tuple(shape)), dtype=np.complex128 if complex_domain else dtype)


def shape_label(shape) -> str:
    """``(3,4)`` or ``(3,)`` for a shape tuple, ``float`` for a Python float."""
    if shape is PYFLOAT:
        return "float"
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


_FUNCTION_COUNTER = itertools.count()


def make_function(text: str, namespace: Dict[str, Any]) -> Callable:
    """The single ``def`` in ``text``, compiled so ``inspect.getsource`` can read it back.

    The text is registered in ``linecache`` under a unique fake file name, the
    way IPython does, and executed in ``namespace`` (which becomes the
    function's globals).
    """
    text = text if text.endswith("\n") else text + "\n"
    names = [line.split()[1].split("(")[0] for line in text.splitlines() if line.startswith("def ")]
    if len(names) != 1:
        raise ValueError(f"make_function needs exactly one top-level def, got {names}")
    filename = f"<gradcheck-{next(_FUNCTION_COUNTER)}-{names[0]}>"
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    exec(compile(text, filename, "exec"), namespace)
    return namespace[names[0]]


# --------------------------------------------------------------------------
# structures: outputs may be arrays, floats or tuples of them

def leaves(value) -> List[np.ndarray]:
    """The arrays of a (possibly nested tuple/list) value, as float64 (complex128 for complex) arrays."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    return [np.asarray(value, dtype=np.complex128 if np.iscomplexobj(value) else np.float64)]


def _same_kind(value, items):
    """``items`` as a list, tuple or named tuple, like ``value``."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*items)
    return type(value)(items)


def like(value, rng):
    """A random value with the structure and shapes of ``value`` (float64)."""
    if isinstance(value, (tuple, list)):
        return _same_kind(value, [like(item, rng) for item in value])
    if isinstance(value, numbers.Real) and not isinstance(value, np.generic):
        return float(rng.standard_normal())
    if np.iscomplexobj(value):   # a complex perturbation: real and imaginary parts both move
        pair = rng.standard_normal((2,) + np.shape(value))
        return complex(pair[0] + 1j * pair[1]) if isinstance(value, complex) else pair[0] + 1j * pair[1]
    return rng.standard_normal(np.shape(value))


def inner(a, b) -> float:
    """The pairing ``Re(sum(a * b))`` of two values with the same structure: the Euclidean inner product
    of real values, and srcad's pairing of an adjoint with a tangent for complex ones (no conjugate)."""
    la, lb = leaves(a), leaves(b)
    assert len(la) == len(lb), f"structures differ: {len(la)} vs {len(lb)} arrays"
    total = 0.0
    for x, y in zip(la, lb):
        assert x.shape == y.shape, f"shapes differ: {x.shape} vs {y.shape}"
        total += float(np.real(np.sum(x * y)))
    return total


def norm(a) -> float:
    return float(np.sqrt(sum(float(np.sum(np.abs(x) ** 2)) for x in leaves(a))))


def snapshot(value):
    """A bitwise copy of every array in ``value`` (to detect mutation)."""
    if isinstance(value, (tuple, list)):
        return _same_kind(value, [snapshot(item) for item in value])
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def same_bits(a, b) -> bool:
    """Whether two values (as from ``snapshot``) are bitwise identical, dtypes included."""
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_bits(x, y) for x, y in zip(a, b)))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return type(a) is type(b) and np.asarray(a).tobytes() == np.asarray(b).tobytes()


# --------------------------------------------------------------------------
# wrt handling

def wrt_positions(f: Callable, args: Sequence, wrt) -> Tuple[int, ...]:
    """Positions in ``args`` of the ``wrt`` parameters (``None``: all of them)."""
    if wrt is None:
        return tuple(range(len(args)))
    names = list(inspect.signature(f).parameters)
    entries = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    return tuple(names.index(e) if isinstance(e, str) else e % len(names) for e in entries)


def srcad_wrt(f: Callable, args: Sequence, wrt):
    """``wrt`` as srcad receives it: unchanged, or the tuple of every position for ``None``."""
    return tuple(range(len(args))) if wrt is None else wrt


def as_tuple(result, wrt) -> tuple:
    """srcad's result for ``wrt`` as a tuple (a single int or name gives a bare value)."""
    if wrt is None or isinstance(wrt, (tuple, list)):
        assert isinstance(result, tuple), f"wrt={wrt!r} must give a tuple, got {type(result).__name__}"
        return result
    return (result,)


def _float64(value):
    if isinstance(value, np.ndarray):
        return value.astype(np.complex128 if value.dtype.kind == "c" else np.float64)
    return value


def _step(args, positions, directions, h):
    """``args`` with ``args[p] + h * directions[k]`` at each position, in float64."""
    moved = list(_float64(a) for a in args)
    for position, direction in zip(positions, directions):
        base = moved[position]
        moved[position] = (float(base + h * direction) if isinstance(base, numbers.Real)
                           and not isinstance(base, np.ndarray) else base + h * direction)
    return moved


def step_size(args, positions) -> float:
    """``EPS`` scaled by the largest input magnitude (at least 1)."""
    scale = max([1.0] + [float(np.max(np.abs(args[p]))) if np.size(args[p]) else 1.0 for p in positions])
    return EPS * scale


def random_directions(args, positions, rng):
    """One unit-scale random direction per wrt argument (float for a Python float)."""
    return [like(args[p], rng) for p in positions]


def fd_directional(f, args, positions, directions):
    """Central difference ``(f(x + h v) - f(x - h v)) / 2h`` of every output array (float64)."""
    h = step_size(args, positions)
    plus = leaves(f(*_step(args, positions, directions, h)))
    minus = leaves(f(*_step(args, positions, directions, -h)))
    return [(p - m) / (2.0 * h) for p, m in zip(plus, minus)]


def _label(f) -> str:
    return getattr(f, "__qualname__", repr(f))


def assert_like_argument(gradient, argument, what="gradient") -> None:
    """``gradient`` has ``argument``'s shape, and its dtype when the argument is a float array."""
    assert np.shape(gradient) == np.shape(argument), (
        f"{what} has shape {np.shape(gradient)} but its argument has shape {np.shape(argument)}")
    if isinstance(argument, np.ndarray) and argument.dtype.kind in "fc":
        dtype = np.asarray(gradient).dtype
        assert dtype == argument.dtype, f"{what} has dtype {dtype} but its argument has dtype {argument.dtype}"
    elif isinstance(argument, numbers.Real):
        assert isinstance(gradient, numbers.Real) or np.ndim(gradient) == 0, (
            f"{what} of a Python float must be a scalar, got {type(gradient).__name__}")


def _close(a: float, b: float, scale: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * scale + 1e-300


# --------------------------------------------------------------------------
# the checks

def check_reverse(f: Callable, args: Sequence, wrt=None, *, rng=None, rtol: float = FD_RTOL,
                  trials: int = 2) -> None:
    """Reverse mode against finite differences along random ``u`` and ``v``."""
    rng = np.random.default_rng(1) if rng is None else rng
    positions = wrt_positions(f, args, wrt)
    vjp = srcad.autodiff(f, srcad_wrt(f, args, wrt), mode="reverse")
    output = f(*args)
    for _ in range(trials):
        u = like(output, rng)
        grads = as_tuple(vjp(*args, u), srcad_wrt(f, args, wrt))
        assert len(grads) == len(positions), f"{_label(f)}: {len(grads)} gradients for {len(positions)} wrt"
        for position, g in zip(positions, grads):
            assert_like_argument(g, args[position], f"gradient of argument {position} of {_label(f)}")
        v = random_directions(args, positions, rng)
        fd = fd_directional(f, args, positions, v)
        lhs = inner(u, fd)
        rhs = sum(inner(g, d) for g, d in zip(grads, v))
        scale = norm(u) * norm(fd) + sum(norm(g) * norm(d) for g, d in zip(grads, v))
        assert _close(lhs, rhs, scale, rtol), (
            f"{_label(f)}: reverse mode disagrees with finite differences: <u, FD Jv> = {lhs!r} but "
            f"<vjp(u), v> = {rhs!r} (scale {scale:.3g})")


def check_grad_full(f: Callable, args: Sequence, wrt=None, *, rtol: float = FD_RTOL) -> None:
    """``srcad.grad`` of scalar-valued ``f`` against a finite difference of every element."""
    positions = wrt_positions(f, args, wrt)
    grads = as_tuple(srcad.grad(f, srcad_wrt(f, args, wrt))(*args), srcad_wrt(f, args, wrt))
    assert np.ndim(f(*args)) == 0, f"{_label(f)} must return a scalar for check_grad_full"
    for position, g in zip(positions, grads):
        assert_like_argument(g, args[position], f"gradient of argument {position} of {_label(f)}")
        is_complex = np.iscomplexobj(args[position])
        dtype = np.complex128 if is_complex else np.float64
        g = np.asarray(g, dtype=dtype)
        base = np.asarray(args[position], dtype=dtype)
        expected = np.zeros(base.shape, dtype)
        # a complex argument's gradient is df/dx - i df/dy (README, "Complex numbers")
        for unit, weight in ((1.0, 1.0), (1j, -1j)) if is_complex else ((1.0, 1.0),):
            for index in np.ndindex(base.shape):
                direction = np.zeros(base.shape, dtype)
                direction[index] = unit
                if not isinstance(args[position], np.ndarray):
                    direction = complex(direction) if is_complex else float(direction)
                expected[index] += weight * np.real(fd_directional(f, args, [position], [direction])[0])
        scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=rtol * scale,
                                   err_msg=f"{_label(f)}: gradient of argument {position} "
                                           f"disagrees with finite differences")


def check_forward(f: Callable, args: Sequence, wrt=None, *, rng=None, rtol: float = FD_RTOL,
                  trials: int = 2) -> None:
    """Forward mode (``df(*args, *tangents)``) against the finite-difference directional derivative."""
    rng = np.random.default_rng(2) if rng is None else rng
    positions = wrt_positions(f, args, wrt)
    jvp = srcad.autodiff(f, srcad_wrt(f, args, wrt), mode="forward")
    output = f(*args)
    for _ in range(trials):
        v = random_directions(args, positions, rng)
        tangent = jvp(*args, *v)
        assert len(leaves(tangent)) == len(leaves(output)), (
            f"{_label(f)}: the tangent's structure differs from the output's")
        fd = fd_directional(f, args, positions, v)
        for k, (t, expected) in enumerate(zip(leaves(tangent), fd)):
            assert t.shape == expected.shape, (
                f"{_label(f)}: output tangent {k} has shape {t.shape}, the output has {expected.shape}")
            scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
            np.testing.assert_allclose(t, expected, rtol=rtol, atol=rtol * scale,
                                       err_msg=f"{_label(f)}: forward mode disagrees with finite "
                                               f"differences (output {k})")


def check_forward_reverse(f: Callable, args: Sequence, wrt=None, *, rng=None,
                          rtol: float = AGREE_RTOL) -> None:
    """``<u, jvp(v)> == <vjp(u), v>`` to relative ``rtol``."""
    rng = np.random.default_rng(3) if rng is None else rng
    positions = wrt_positions(f, args, wrt)
    given = srcad_wrt(f, args, wrt)
    jvp = srcad.autodiff(f, given, mode="forward")
    vjp = srcad.autodiff(f, given, mode="reverse")
    u = like(f(*args), rng)
    v = random_directions(args, positions, rng)
    forward = inner(u, jvp(*args, *v))
    grads = as_tuple(vjp(*args, u), given)
    reverse = sum(inner(g, d) for g, d in zip(grads, v))
    scale = norm(u) * norm(jvp(*args, *v)) + sum(norm(g) * norm(d) for g, d in zip(grads, v))
    assert _close(forward, reverse, scale, rtol), (
        f"{_label(f)}: forward and reverse mode disagree: <u, Jv> = {forward!r}, "
        f"<J^T u, v> = {reverse!r}")


def assert_same_value(value, expected, what: str) -> None:
    """``value`` has ``expected``'s structure and shapes, and its numbers to 1e-10 (the derivative's
    forward sweep may fold constants, so bits can differ)."""
    got, want = leaves(value), leaves(expected)
    assert len(got) == len(want), f"{what} has {len(got)} arrays, f returns {len(want)}"
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{what} has shape {g.shape}, f returns {w.shape}"
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12 * scale, err_msg=f"{what} is not f's value")


def check_both_modes(f: Callable, args: Sequence, wrt=None) -> None:
    """Reverse and forward mode against finite differences, ``<u, Jv> = <J^T u, v>``, and the values.

    Example::

        >>> check_both_modes(np.sin, (np.array([0.5]),))   # doctest: +SKIP
    """
    check_reverse(f, args, wrt)
    check_forward(f, args, wrt)
    check_forward_reverse(f, args, wrt)
    check_values(f, args, wrt)


def check_values(f: Callable, args: Sequence, wrt=None, *, optimize: bool = True) -> None:
    """The output ``value_and_grad``, ``vjp`` and ``jvp`` return is ``f(*args)``.

    ``value_and_grad`` gets a random seed shaped like the output (so any ``f``
    qualifies); the forward-mode derivative with the value is the one ``jvp``
    builds, taken with respect to ``wrt``.
    """
    rng = np.random.default_rng(4)
    expected = f(*snapshot(args))
    given = srcad_wrt(f, args, wrt)
    positions = wrt_positions(f, args, wrt)
    reverse = srcad.value_and_grad(f, given, optimize=optimize)
    value, _ = reverse(*snapshot(args), **{reverse.parameters[-1]: like(expected, rng)})
    assert_same_value(value, expected, f"the value value_and_grad({_label(f)}) returns")
    assert_same_value(srcad.vjp(f, *snapshot(args))[0], expected, f"the value vjp({_label(f)}) returns")
    forward = srcad.api._derivative(f, given, "forward", optimize, with_value=True)
    tangents = random_directions(args, positions, rng)
    value, _ = forward(*snapshot(args), **dict(zip(forward.parameters[-len(tangents):], tangents)))
    assert_same_value(value, expected, f"the value jvp({_label(f)}) returns")


def fd_hessian(f: Callable, x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central differences of srcad's gradient of scalar ``f`` at ``x``, one column per element: ``(n, n)``."""
    import srcad
    gradient = srcad.grad(f)
    columns = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = h
        columns.append(np.ravel((gradient(x + step) - gradient(x - step)) / (2 * h)))
    return np.stack(columns, axis=-1)


def check_hessian(f: Callable, x: np.ndarray, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    """``srcad.hessian(f)(x)`` (forward over reverse) against ``fd_hessian``, and symmetric."""
    import srcad
    hessian = np.asarray(srcad.hessian(f)(x)).reshape(x.size, x.size)
    np.testing.assert_allclose(hessian, fd_hessian(f, x), rtol=rtol, atol=atol)
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-9, atol=1e-10)
