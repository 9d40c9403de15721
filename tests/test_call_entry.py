"""A derivative's written-out entry (``srcad.call_entry``) never runs what the general call would not.

From the second call of the same kinds on, ``Derivative.__call__`` goes
through an entry written for those kinds: the number of arguments, each
one's class (an array's dtype and rank), the keyword names.  What could make
it quietly wrong, each tested against a fresh derivative (and differences):
- a call of other kinds after the entry was written: other ranks, dtypes, an
  int, a complex number, a tuple, a keyword more, fewer or renamed, a keyword
  of another class;
- the entry outliving its code: a global rebound on every step of a loop
  (data rebound in place of a new build) for the general derivative and a
  rank variant, a helper redefined, ``config.verify`` switched on;
- what the general call does beyond running the function: the shared-memory
  check, a NaN computed again, an exception's note naming the user's line, a
  result whose form changes from call to call.
"""
from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import srcad
from srcad import derivative_hooks
from gradcheck import check_forward, check_reverse, make_function

RNG = np.random.default_rng(5)
A2, B1, C2 = RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=(4, 3))

PLAIN = "def f(x, y):\n    return np.sum(np.tanh(x) * y)\n"
MATMUL = "def f(W, b):\n    return np.sum(np.tanh(W @ b + 1.0) ** 2)\n"
KEYWORD = "def f(x, s=1.0, t=2.0):\n    return np.sum(np.sin(x) * s + t * x)\n"


def _fresh(text, wrt, mode, args, kwargs):
    """What a derivative that never saw a call returns (or raises) for ``args`` and ``kwargs``."""
    try:
        return srcad.autodiff(make_function(text, {"np": np}), wrt, mode=mode)(*args, **kwargs)
    except Exception as error:   # noqa: BLE001 -- compared with what the entry raises
        return error


def _same(got, expected) -> None:
    if isinstance(expected, Exception):
        assert type(got) is type(expected) and str(got) == str(expected)
        return
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert type(g) is type(e) and np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=0)


def _call(df, args, kwargs):
    try:
        return df(*args, **kwargs)
    except Exception as error:   # noqa: BLE001
        return error


def _with_entry(df, args, kwargs):
    """Call ``df`` until it has its entry for the kinds of ``args`` and ``kwargs``; then once from it."""
    for _ in range(2):
        df(*args, **kwargs)
    assert type(df).entry_of is srcad.Derivative, "no entry was written for the call"
    return df(*args, **kwargs)


OTHER_CALLS = {   # (text, wrt, the call the entry is written for, calls of other kinds after it)
    "ranks and dtypes": (MATMUL, 0, ((A2, B1), {}), [
        ((B1, B1), {}), ((A2.astype(np.float32), B1), {}), ((A2, B1.astype(np.float32)), {}),
        ((A2, np.float64(2.0)), {}), ((A2[None], B1), {}), ((A2, B1), {}), ((A2.T.copy().T, B1), {})]),
    "ints, complex, tuples, strings": (PLAIN, 0, ((B1, B1), {}), [
        ((B1, 2), {}), ((B1, 2.0), {}), ((B1, 1.0 + 2.0j), {}), ((B1 + 0.5j, B1), {}), ((B1, (1.0, 2.0)), {}),
        ((B1.astype(np.int64), B1), {}), ((B1, "x"), {}), ((B1,), {}), ((B1, B1, 1.0, 4.0), {}), ((B1, B1), {})]),
    "keywords": (KEYWORD, 0, ((B1,), {"s": 2.0}), [
        ((B1,), {}), ((B1,), {"t": 2.0}), ((B1,), {"s": 2.0, "t": 3.0}), ((B1,), {"s": 2}),
        ((B1,), {"s": np.float64(2.0)}), ((B1,), {"s": 2.0 + 1.0j}), ((B1,), {"u": 2.0}), ((B1, 3.0), {}),
        ((B1,), {"s": np.array([1.0, 2.0])}), ((C2,), {"s": 2.0}), ((B1,), {"s": 2.0})]),
}


def _with_tangent(args, kwargs, by_keyword: bool, count: int):
    """A forward-mode call: the tangent of x after f's arguments (by name for a call with keywords)."""
    if not isinstance(args[0], np.ndarray):
        return args, kwargs
    if by_keyword:
        return args, dict(kwargs, dx=np.ones_like(args[0]) * 0.5)
    return (args + (np.ones_like(args[0]) * 0.5,) if len(args) == count else args), kwargs


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("label", list(OTHER_CALLS))
def test_calls_of_other_kinds_after_the_entry(label, mode):
    text, wrt, (args, kwargs), others = OTHER_CALLS[label]
    by_keyword = bool(kwargs)
    first_args, first_kwargs = _with_tangent(args, kwargs, by_keyword, len(args)) if mode == "forward" else (args, kwargs)
    for call_args, call_kwargs in others:   # each after a fresh entry for the first kind (then in a row)
        df = srcad.autodiff(make_function(text, {"np": np}), wrt, mode=mode)
        _same(_with_entry(df, first_args, first_kwargs), _fresh(text, wrt, mode, first_args, first_kwargs))
        if mode == "forward":
            call_args, call_kwargs = _with_tangent(call_args, call_kwargs, by_keyword, len(args))
        _same(_call(df, call_args, call_kwargs), _fresh(text, wrt, mode, call_args, call_kwargs))
    df = srcad.autodiff(make_function(text, {"np": np}), wrt, mode=mode)
    for call_args, call_kwargs in [(args, kwargs)] * 3 + others:
        if mode == "forward":
            call_args, call_kwargs = _with_tangent(call_args, call_kwargs, by_keyword, len(args))
        _same(_call(df, call_args, call_kwargs), _fresh(text, wrt, mode, call_args, call_kwargs))


RANK_LOOP = "def f(W, b):\n    return np.sum(np.tanh(W @ b * scale) ** 2)\n"
PLAIN_LOOP = "def f(x, y):\n    return np.sum(np.tanh(x * scale) * y)\n"


@pytest.mark.parametrize("text, args", [(RANK_LOOP, (A2, B1)), (PLAIN_LOOP, (B1, B1))], ids=["rank variant", "plain"])
def test_a_global_rebound_on_every_step(text, args):
    """A training loop's ``W = W - lr * dW`` rebinds data the derivative reads: every step must use it."""
    namespace = {"np": np, "scale": np.array(1.0)}
    df = srcad.grad(make_function(text, namespace))
    for step in range(6):
        if step % 2:
            namespace["scale"] = np.array(1.0 + 0.25 * step)
        for _ in range(2 if step < 3 else 1):
            got = df(*args)
        expected = srcad.grad(make_function(text, {"np": np, "scale": namespace["scale"]}))(*args)
        _same(got, expected)
    check_reverse(make_function(text, namespace), args)


def test_a_helper_redefined_after_the_entry():
    namespace = {"np": np, "act": np.tanh}
    text = "def f(x):\n    return np.sum(act(x) ** 2)\n"
    df = srcad.grad(make_function(text, namespace))
    before = _with_entry(df, (B1,), {})
    namespace["act"] = np.sin
    after = df(B1)
    _same(after, srcad.grad(make_function(text, {"np": np, "act": np.sin}))(B1))
    assert not np.allclose(after, before)


def test_verify_switched_on_after_the_entry(monkeypatch):
    seen = []
    df = srcad.grad(make_function(PLAIN, {"np": np}))
    _with_entry(df, (B1, B1), {})

    def spy(derivative, args, kwargs):
        seen.append(args)
        with monkeypatch.context() as inner:
            inner.setattr(derivative_hooks.VERIFYING, "active", True)
            return derivative(*args, **kwargs)
    expected = _fresh(PLAIN, 0, "reverse", (B1, B1), {})
    monkeypatch.setattr(derivative_hooks, "_VERIFIER", [spy])
    monkeypatch.setattr(srcad.config, "verify", True)
    _same(df(B1, B1), expected)
    df(B1, B1)
    assert len(seen) == 2


def test_shared_memory_is_refused_from_the_entry():
    text = "def f(x, y):\n    x *= 2.0\n    return np.sum(x * y)\n"
    df = srcad.grad(make_function(text, {"np": np}))
    a, b = B1.copy(), B1.copy() + 1.0
    _with_entry(df, (a.copy(), b), {})
    with pytest.raises(srcad.AliasingError):
        df(a, a)


@pytest.mark.parametrize("shape", [(2,), (40,), (5, 8)])   # listed, a vector's dot, vdot
def test_a_nan_from_the_entry_is_computed_again(shape):
    text = "def f(x, y):\n    return np.sum(np.where(x > 0, 0.0, np.exp(1000.0 * x)) * y)\n"
    df = srcad.grad(make_function(text, {"np": np}), wrt=(0, 1))
    signs = np.resize([1.0, -1.0], shape)
    _with_entry(df, (0.001 * signs, np.ones(shape)), {})
    gradients = df(signs, np.ones(shape))   # exp(1000) overflows where np.where discards it
    assert not any(np.isnan(gradient).any() for gradient in gradients)
    check_reverse(make_function(text, {"np": np}), (signs, np.ones(shape)))


def test_an_error_from_the_entry_names_the_users_line():
    text = "def f(x):\n    y = np.tanh(x)\n    return y[3] * 2.0\n"
    df = srcad.grad(make_function(text, {"np": np}))
    _with_entry(df, (np.arange(5.0),), {})
    with pytest.raises(IndexError) as from_entry:
        df(np.arange(3.0))
    with pytest.raises(IndexError) as fresh:
        srcad.grad(make_function(text, {"np": np}))(np.arange(3.0))
    notes = getattr(from_entry.value, "__notes__", getattr(from_entry.value, "_srcad_notes", []))
    assert notes and [n.split(":")[-1] for n in notes] == \
        [n.split(":")[-1] for n in getattr(fresh.value, "__notes__", getattr(fresh.value, "_srcad_notes", []))]
    assert any("y[3]" in note for note in notes)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_results_whose_form_changes(mode):
    """A result with a NaN of f's own, a large array, a 0-d array: checked as the general call checks them."""
    text = "def f(x, n):\n    return np.sum(np.sqrt(x[:n]))\n"
    f = make_function(text, {"np": np})
    df = srcad.autodiff(f, 0, mode=mode)
    more = (lambda x: (1.0,)) if mode == "reverse" else (lambda x: (np.ones_like(x),))
    small, large = np.linspace(1.0, 2.0, 5), np.linspace(1.0, 2.0, 40)
    _with_entry(df, (small, 5) + more(small), {})
    for x, n in [(large, 40), (small, 3), (np.array([-1.0, 2.0, 3.0, 4.0, 5.0]), 5), (small, 5)]:
        _same(_call(df, (x, n) + more(x), {}), _fresh(text, 0, mode, (x, n) + more(x), {}))
    check_reverse(f, (large, 40), 0)
    check_forward(f, (small, 3), 0)


def test_aux_values_whose_form_changes():
    """``has_aux``: the aux value is a float, then an array, then a NaN (f's own), then a large array."""
    text = "def f(x, n):\n    y = np.sqrt(x[:n])\n    return np.sum(y), (np.sum(y) if n == 2 else y)\n"
    df = srcad.grad(make_function(text, {"np": np}), has_aux=True)
    fresh = srcad.grad(make_function(text, {"np": np}), has_aux=True)
    x = np.linspace(1.0, 2.0, 30)
    _with_entry(df, (x, 2), {})
    for args in [(x, 5), (x, 2), (np.concatenate([[-1.0], x]), 2), (x, 30), (x, 2)]:
        _same(df(*args)[0], fresh(*args)[0])
        _same(df(*args)[1], fresh(*args)[1])
    check_reverse(make_function(text.replace("return np.sum(y), (np.sum(y) if n == 2 else y)", "return np.sum(y)"),
                                {"np": np}), (x, 5), 0)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_kinds_taken_in_turn_and_more_kinds_than_an_entry_takes(mode):
    """Calls of six kinds in turn, twice over: the entry takes the first four, the others take the general call
    (whose entry, by then full, no longer gives the class back), and every call agrees with a fresh derivative."""
    from srcad.call_entry import MAX_KINDS
    df = srcad.autodiff(make_function(PLAIN, {"np": np}), 0, mode=mode)
    kinds = [(B1, B1), (C2, C2), (A2, 2.0), (B1, 3.0), (np.float64(0.5), 2.0), (C2, B1[:1])]
    assert len(kinds) > MAX_KINDS
    for _ in range(3):
        for args in kinds:
            more = (1.0,) if mode == "reverse" else (np.ones_like(args[0]) * 0.5,)
            _same(df(*args, *more), _fresh(PLAIN, 0, mode, args + more, {}))
    assert type(df).entry_of is srcad.Derivative and len(df.entry_kinds) == MAX_KINDS


def test_a_load_forgets_the_kinds():
    namespace = {"np": np, "scale": 1.0}
    text = "def f(x, y):\n    return np.sum(np.tanh(x) * y) * scale\n"
    df = srcad.grad(make_function(text, namespace))
    _with_entry(df, (B1, B1), {})
    _with_entry(df, (C2, C2), {})
    assert len(df.entry_kinds) == 2
    namespace["np"] = types.SimpleNamespace(sum=np.sum, tanh=np.sin)   # a module rebound: a new build
    _same(df(B1, B1), srcad.grad(make_function(text, {"np": namespace["np"], "scale": 1.0}))(B1, B1))
    assert type(df) is srcad.Derivative and "entry_kinds" not in vars(df)


_FORMS = [2.0, np.float64(2.0), np.ones(3), np.ones(40), np.ones((2, 3)), np.ones((5, 8)),
          (np.ones(3), np.ones(40)), (np.ones((5, 8)), 1.0, np.ones(2)), (np.float64(1.0), np.ones((2, 2)))]


def _spoiled(result, value):
    """``result`` with its last element (of its last part, for a tuple) set to ``value``."""
    if result.__class__ is tuple:
        return result[:-1] + (_spoiled(result[-1], value),)
    if isinstance(result, np.ndarray):
        spoiled = result.copy()
        spoiled.flat[-1] = value
        return spoiled
    return result.__class__(value)


@pytest.mark.parametrize("form", _FORMS, ids=lambda form: type(form).__name__)
def test_the_entrys_nan_check_passes_no_nan(form):
    """The check an entry writes for a result's form (a sum of the few elements, a sum of squares per larger
    array) takes a result of that form without a NaN, never one with a NaN, and otherwise leaves it to
    ``overflow.clean``: an infinity, a result of another form."""
    from srcad.call_entry import result_check_function
    from srcad.overflow import clean
    check = result_check_function(form)
    assert check(form) and clean(form)
    assert not check(_spoiled(form, np.nan)) and not clean(_spoiled(form, np.nan))
    assert clean(_spoiled(form, np.inf))
    for other in _FORMS:
        if check(other):   # taken: the same form, or one its test cannot tell apart (any size for a sum of squares)
            assert clean(other) and not check(_spoiled(other, np.nan))


def test_the_nan_check_leaves_numpys_error_state_alone():
    """A result whose squares overflow (or underflow) neither warns nor raises, whatever ``np.errstate`` says:
    the check's sum of squares goes through ``vdot``, which, unlike an array's ``dot``, sets no error flag."""
    text = "def f(x):\n    return np.sum(x ** 2) * 1e160\n"
    df = srcad.grad(make_function(text, {"np": np}))
    x = np.linspace(1.0, 2.0, 20)
    expected = 2e160 * x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            for _ in range(3):   # the general call, then the entry
                np.testing.assert_allclose(df(x), expected)
