"""The dispatch table of a cached derivative never gives an answer a fresh derivative would not.

``Derivative.__call__`` runs a call of floats, ints and float arrays (and
keywords of plain numbers) through a table keyed by each argument's kind and
rank, filled by the first call of those kinds; any other call is examined
argument by argument.  What could make the table quietly wrong, and is
tested here:
- two kinds of call sharing a key: a Python float and a 0-d array, arrays of
  other ranks, an int where a float was (the int has no derivative), a seed
  given or left out; every call of a sequence must equal the call of a fresh
  derivative that never saw the calls before it, and finite differences;
- a call the table must not take: a complex number or array after a real
  one (positional or keyword), an integer array, a str, a tuple where an
  array was, two arguments sharing memory when f changes one in place;
- the table outliving what it was built from: a helper redefined, ``__code__``
  replaced, ``__defaults__`` assigned, a global rebound, after the table was
  filled, for every kind of call (all floats, a rank variant, the general
  derivative, keywords, forward mode);
- a NaN (``0 * inf``) in a result the table ran: still computed again;
- ``config.verify``: calls still go through the check.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

import srcad
from srcad import derivative_hooks
from gradcheck import check_forward, check_forward_reverse, check_reverse, check_values, make_function

RNG = np.random.default_rng(11)
A2, B1, C2 = RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=(4, 3))

MATMUL = """
def f(W, b):
    return np.sum(np.tanh(W @ b + 1.0) ** 2)
"""
SCALARS = """
def f(x, y):
    return x * y + np.sin(x) * y ** 2
"""
ELEMENTS = """
def f(x, n):
    out = np.zeros(x.shape)
    for i in range(n):
        out[i] = x[i] ** 3
    return np.sum(out)
"""
PLAIN = """
def f(x, y):
    return np.sum(np.tanh(x) * y)
"""

# (label, f's text, wrt, the calls made one after the other on one derivative)
SEQUENCES = [
    ("matrix then vector ranks", MATMUL, 0,
     [(A2, B1), (A2 + 1.0, B1), (B1, B1), (A2.astype(np.float32).astype(np.float64), np.float64(2.0) * B1)]),
    ("floats then 0-d arrays then floats", SCALARS, (0, 1),
     [(1.5, 2.0), (np.array(1.5), np.array(2.0)), (1.5, np.array(2.0)), (0.5, -1.0)]),
    ("float32 scalar then float", SCALARS, 0, [(np.float32(1.25), 2.0), (1.25, 2.0), (np.float64(0.5), 3.0)]),
    ("an int where no derivative is asked", ELEMENTS, 0, [(B1, 2), (np.arange(4.0), 4), (C2, 3), (np.arange(4.0), 3)]),
    ("ranks of the second argument", PLAIN, (0, 1), [(C2, C2), (C2, 2.0), (C2, B1[0]), (B1, B1)]),
]


def _fresh(text: str, wrt, mode: str, args, *more):
    """What a derivative that never saw a call before returns at ``args`` (a new function object)."""
    return srcad.autodiff(make_function(text, {"np": np}), wrt, mode=mode)(*args, *more)


def _same(got, expected) -> None:
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert type(g) is type(e) and np.shape(g) == np.shape(e), (type(g), type(e), np.shape(g), np.shape(e))
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=0)


@pytest.mark.parametrize("label, text, wrt, calls", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_every_call_of_a_sequence_is_exact(label, text, wrt, calls):
    f = make_function(text, {"np": np})
    for args in calls:
        check_reverse(f, args, wrt)
        check_forward(f, args, wrt)
        check_forward_reverse(f, args, wrt)
        check_values(f, args, wrt)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("label, text, wrt, calls", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_a_filled_table_gives_what_a_fresh_derivative_gives(label, text, wrt, calls, mode):
    df = srcad.autodiff(make_function(text, {"np": np}), wrt, mode=mode)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    for args in calls + calls[::-1]:   # each kind of call a second time: from the table
        more = (1.0,) if mode == "reverse" else tuple(np.ones_like(args[p]) * 0.5 for p in positions)
        _same(df(*args, *more), _fresh(text, wrt, mode, args, *more))


def test_an_int_where_a_float_was_is_refused():
    df = srcad.grad(make_function(SCALARS, {"np": np}), wrt=(0, 1))
    df(1.5, 2.0)
    df(1.5, 2.0)
    with pytest.raises(srcad.WrtError, match="y"):
        df(1.5, 2)
    with pytest.raises(srcad.WrtError, match="x"):
        df(np.array(3), 2.0)
    with pytest.raises(srcad.WrtError):
        df("1.5", 2.0)
    grad = srcad.grad(make_function(MATMUL, {"np": np}))
    grad(A2, B1)
    with pytest.raises(srcad.WrtError):
        grad(A2.astype(np.int64), B1)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_complex_after_real_runs_the_complex_variant(mode):
    df = srcad.autodiff(make_function(PLAIN, {"np": np}), 0, mode=mode)
    z = C2 + 0.5j * C2[::-1]
    more = (1.0,) if mode == "reverse" else (np.ones_like(C2),)
    for args in [(C2, C2), (z, C2), (C2, z), (C2, 0.5 + 1.0j), (C2, C2)]:
        _same(df(*args, *more), _fresh(PLAIN, 0, mode, args, *more))


def test_a_complex_keyword_after_a_real_one():
    text = "def f(x, s=1.0):\n    return np.sum(np.sin(x) * s)\n"
    df = srcad.grad(make_function(text, {"np": np}))
    for s in [2.0, 2.0, 2.0 + 1.0j, np.array(2.0 + 1.0j), 3, 2.0]:
        _same(df(B1, s=s), srcad.grad(make_function(text, {"np": np}))(B1, s=s))
    check_reverse(make_function(text, {"np": np}), (B1, 2.0), 0)


def test_a_tuple_where_an_array_was():
    text = "def f(x):\n    return np.sum(np.asarray(x) ** 2)\n"
    df = srcad.grad(make_function(text, {"np": np}))
    for x in [B1, B1, (1.5, 2.5), [1.5, 2.5], B1]:
        gradient = df(x)
        assert type(gradient) is (np.ndarray if x is B1 else type(x))
        _same(gradient, srcad.grad(make_function(text, {"np": np}))(x))
    check_reverse(make_function(text, {"np": np}), (B1,))


def test_shared_memory_is_refused_after_the_table_is_filled():
    text = "def f(x, y):\n    x *= 2.0\n    return np.sum(x * y)\n"
    df = srcad.grad(make_function(text, {"np": np}))
    a, b = B1.copy(), B1.copy() + 1.0
    df(a.copy(), b)
    df(a.copy(), b)
    with pytest.raises(srcad.AliasingError):
        df(a, a)


HELPERS = """
def f(x, y, s=2.0):
    return np.sum(act(x) * y) * s * scale
"""
SCALAR_HELPERS = """
def f(x, y, s=2.0):
    return act(x) * y * s * scale
"""


def _redefined_helper(f, namespace):
    namespace["act"] = np.sin   # a later notebook cell


def _replaced_code(f, namespace):
    text = _TEXTS[f.__name__ + str(id(f))]
    f.__code__ = make_function(text.replace("return ", "return 3.0 * "), namespace).__code__   # autoreload


def _assigned_defaults(f, namespace):
    f.__defaults__ = (5.0,)


def _rebound_data(f, namespace):
    namespace["scale"] = 3.0   # a training loop's W = W - lr * dW


CHANGES = [_redefined_helper, _replaced_code, _assigned_defaults, _rebound_data]
_TEXTS = {}
CALLS = {   # each kind of call the table takes: (text, wrt, mode, args, kwargs)
    "all floats": (SCALAR_HELPERS, 0, "reverse", (0.5, 1.5), {}),
    "general derivative": (HELPERS, 0, "reverse", (B1, B1), {}),
    "rank variant": (HELPERS.replace("act(x) * y", "act(x) @ y"), 0, "reverse", (A2, B1), {}),
    "keywords": (HELPERS, (0, 1), "reverse", (B1,), {"y": B1}),
    "forward mode": (HELPERS, 0, "forward", (B1, B1), {"dx": B1}),
}


@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__.strip("_"))
@pytest.mark.parametrize("kind", list(CALLS))
def test_a_change_after_the_table_is_filled_is_seen(kind, change):
    text, wrt, mode, args, kwargs = CALLS[kind]
    namespace = {"np": np, "act": np.tanh, "scale": 1.0}
    f = make_function(text, namespace)
    _TEXTS[f.__name__ + str(id(f))] = text
    df = srcad.autodiff(f, wrt, mode=mode)
    before = df(*args, **kwargs)
    _same(df(*args, **kwargs), before)   # from the table
    change(f, namespace)
    after = df(*args, **kwargs)
    _same(after, srcad.autodiff(_rebuilt(f), wrt, mode=mode)(*args, **kwargs))
    assert not np.allclose(_flat(after), _flat(before)), "the change does not change the derivative"


def _flat(value) -> np.ndarray:
    return np.concatenate([np.ravel(item) for item in (value if isinstance(value, tuple) else (value,))])


def _rebuilt(f):
    """A new function object running what ``f`` runs now: its code, globals and defaults."""
    return types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)


def test_a_nan_from_zero_times_inf_is_computed_again_from_the_table():
    text = "def f(x):\n    return np.sum(np.where(x > 0, 0.0, np.exp(1000.0 * x)))\n"
    df = srcad.grad(make_function(text, {"np": np}))
    small = np.array([0.001, -0.001])
    df(small)
    df(small)
    gradient = df(np.array([1.0, -1.0]))
    assert not np.isnan(gradient).any()
    _same(gradient, srcad.grad(make_function(text, {"np": np}))(np.array([1.0, -1.0])))
    check_reverse(make_function(text, {"np": np}), (np.array([1.0, -1.0]),))


def test_verify_still_checks_every_call(monkeypatch):
    seen = []
    df = srcad.grad(make_function(PLAIN, {"np": np}))
    df(B1, B1)

    def spy(derivative, args, kwargs):
        seen.append(args)
        with monkeypatch.context() as inner:
            inner.setattr(derivative_hooks.VERIFYING, "active", True)
            return derivative(*args, **kwargs)
    monkeypatch.setattr(derivative_hooks, "_VERIFIER", [spy])
    monkeypatch.setattr(srcad.config, "verify", True)
    df(B1, B1)
    df(B1, B1)
    assert len(seen) == 2
