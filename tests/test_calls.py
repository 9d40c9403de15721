"""Calls (issue [language] item 3, the call-related parts, and their item-7 messages): ``*args`` and
``**kwargs`` in f and at call sites, ``functools.partial`` as f and as a callee, and derivatives called with
the seed or tangents placed where Python cannot bind them.

Contract:
- ``ROWS``: every function, with its arguments and ``wrt``, matches central finite differences in both modes
  (``gradcheck.check_reverse`` / ``check_forward`` / ``check_forward_reverse``, or, for ``f(*xs, **kw)``,
  ``srcad.vjp`` / ``srcad.jvp`` against the same differences), and returns f's value.
- ``wrt='xs'`` of ``f(*xs)`` gives a tuple, ``wrt='kw'`` of ``f(**kw)`` a dict.
- A ``*``/``**`` argument whose structure srcad does not know when it builds raises
  ``UnsupportedSyntaxError`` at its line, with a fix.
- Messages: a call of a derivative that Python cannot bind says how to call it; ``jvp`` and ``vjp`` take
  int parameters (``steps=200``); a tuple output without a seed suggests ``has_aux``.
"""
import functools
import inspect
import os

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import EPS, FD_RTOL, check_forward, check_forward_reverse, check_reverse, check_values

THIS_FILE = os.path.abspath(__file__)
X = np.array([0.3, -0.5, 0.8])
Y = np.array([1.2, 0.4, -0.7])


# ==========================================================================
# the corpus


def scaled_sum(x, scale, shift=0.0):
    return np.sum(np.sin(x) * scale + shift)


SCALED = functools.partial(scaled_sum, scale=3.0)
SHIFTED = functools.partial(scaled_sum, Y, shift=0.5)
PAIR = (0.5, 2.0)
SETTINGS = {"scale": 1.5}


def uses_partial(x):
    return SCALED(x) * 2.0 + SHIFTED(x)


class Holder:
    def __init__(self):
        self.part = functools.partial(scaled_sum, scale=-1.0)

    def loss(self, x):
        return self.part(x, shift=0.25) ** 2


HOLDER = Holder()


def star_tuple(x, y):
    parts = (x, y)
    return np.sum(np.add(*parts) ** 2)


def star_literal(x, y):
    return np.sum(np.multiply(*(x, y)) + np.maximum(*[x, y]))


def star_global(x):
    return scaled_sum(x, *PAIR)


def keyword_literal(x):
    cfg = {"scale": 2.0, "shift": 0.5}
    return scaled_sum(x, **cfg)


def keyword_dict_call(x, y):
    cfg = dict(scale=y[0], shift=y[1])
    return scaled_sum(x, **cfg)


def total(*xs):
    s = 0.0
    for v in xs:
        s = s + np.sum(np.sin(v) * v)
    return s


def weighted(a, *xs, **kw):
    s = a * kw["scale"]
    for index, v in enumerate(xs):
        s = s + np.cos(v) * (index + 1.0)
    return np.sum(s * s)


def forwards(*parts):
    return total(*parts) + np.sum(parts[0] * parts[-1])


def keywords_only(x, **kw):
    return np.sum(x * kw["a"] + kw["b"] ** 2)


def passes_keywords(x, y):
    return keywords_only(x, a=y, b=x * y)


def with_steps(x, steps=200):
    for _ in range(steps):
        x = x * 0.99 + 0.01 * np.sin(x)
    return np.sum(x)


def returns_pair(x):
    return np.sum(x ** 2), x


def row(function, *args, wrt=0, label=""):
    name = getattr(function, "__name__", None) or getattr(function.func, "__name__") + "-partial"
    return pytest.param(function, args, wrt, id=name + (f"-{label}" if label else ""))


ROWS = [
    row(uses_partial, X),
    row(HOLDER.loss, X),
    row(SCALED, X, label="f"),
    row(SHIFTED, X, label="positional"),
    row(functools.partial(star_tuple, y=Y), X, label="keyword"),
    row(star_tuple, X, Y, wrt=(0, 1)),
    row(star_literal, X, Y, wrt=(0, 1)),
    row(star_global, X),
    row(keyword_literal, X),
    row(keyword_dict_call, X, Y, wrt=(0, 1)),
    row(passes_keywords, X, Y, wrt=(0, 1)),
]

# f(*xs, **kw): (function, positional arguments, keyword arguments, wrt, the positions of the arguments wrt
# names, in order; a name that is a keyword counts by key)
VARIADIC = [
    pytest.param(total, (X, Y, X * Y), {}, 0, [0], id="total-0"),
    pytest.param(total, (X, Y, X * Y), {}, (0, 2), [0, 2], id="total-0-2"),
    pytest.param(total, (X, Y), {}, "xs", [0, 1], id="total-xs"),
    pytest.param(weighted, (X, Y, X), {"scale": 1.5}, ("a", "xs", "scale"), [0, 1, 2, "scale"], id="weighted"),
    pytest.param(weighted, (X, Y), {"scale": 0.5, "extra": 2.0}, "kw", ["extra", "scale"], id="weighted-kw"),
    pytest.param(forwards, (X, Y, X), {}, "parts", [0, 1, 2], id="forwards"),
    pytest.param(keywords_only, (X,), {"a": Y, "b": X}, ("x", "a", "b"), [0, "a", "b"], id="keywords"),
]


# ==========================================================================
# checks


@pytest.mark.parametrize("function,args,wrt", ROWS)
def test_reverse_mode_matches_finite_differences(function, args, wrt):
    check_reverse(function, args, wrt)


@pytest.mark.parametrize("function,args,wrt", ROWS)
def test_forward_mode_matches_finite_differences(function, args, wrt):
    check_forward(function, args, wrt)
    check_forward_reverse(function, args, wrt)


@pytest.mark.parametrize("function,args,wrt", ROWS)
def test_values(function, args, wrt):
    check_values(function, args, wrt)


def _moved(args, kwargs, sites, directions, h):
    args, kwargs = list(args), dict(kwargs)
    for site, direction in zip(sites, directions):
        if isinstance(site, int):
            args[site] = args[site] + h * direction
        else:
            kwargs[site] = kwargs[site] + h * direction
    return args, kwargs


def _finite_difference(function, args, kwargs, sites, directions):
    h = EPS * max(1.0, max(float(np.max(np.abs(args[s] if isinstance(s, int) else kwargs[s]))) for s in sites))
    plus = function(*_moved(args, kwargs, sites, directions, h)[0], **_moved(args, kwargs, sites, directions, h)[1])
    minus = function(*_moved(args, kwargs, sites, directions, -h)[0],
                     **_moved(args, kwargs, sites, directions, -h)[1])
    return (plus - minus) / (2.0 * h)


def _flat(gradient, wrt):
    """The gradients in the order of the sites: tuples for ``*xs`` and dicts for ``**kw`` opened."""
    entries = gradient if isinstance(wrt, tuple) else (gradient,)
    flat = []
    for entry in entries:
        flat += list(entry) if isinstance(entry, tuple) else list(entry.values()) if isinstance(entry, dict) \
            else [entry]
    return flat


@pytest.mark.parametrize("function,args,kwargs,wrt,sites", VARIADIC)
def test_star_parameters_match_finite_differences(function, args, kwargs, wrt, sites):
    rng = np.random.default_rng(3)
    directions = [rng.standard_normal(np.shape(args[s] if isinstance(s, int) else kwargs[s])) for s in sites]
    expected = _finite_difference(function, args, kwargs, sites, directions)
    gradient = srcad.grad(function, wrt)(*args, **kwargs)
    flat = _flat(gradient, wrt)
    assert len(flat) == len(sites)
    got = sum(float(np.sum(g * d)) for g, d in zip(flat, directions))
    assert abs(got - expected) <= FD_RTOL * max(1.0, abs(expected)), (got, expected)
    value, pulled = srcad.value_and_grad(function, wrt)(*args, **kwargs)
    assert value == pytest.approx(function(*args, **kwargs), rel=1e-12)
    assert all(np.allclose(a, b) for a, b in zip(_flat(pulled, wrt), flat))


@pytest.mark.parametrize("function,args,kwargs,wrt,sites", [p for p in VARIADIC if not p.values[2]])
def test_star_parameters_through_jvp_and_vjp(function, args, kwargs, wrt, sites):
    rng = np.random.default_rng(4)
    tangents = tuple(rng.standard_normal(X.shape) for _ in args)
    out, tangent = srcad.jvp(function, args, tangents)
    assert out == pytest.approx(function(*args), rel=1e-12)
    expected = _finite_difference(function, args, {}, list(range(len(args))), tangents)
    assert tangent == pytest.approx(expected, rel=FD_RTOL, abs=FD_RTOL)
    out, pullback = srcad.vjp(function, *args)
    pulled = pullback(1.0)
    assert sum(float(g @ t) for g, t in zip(pulled, tangents)) == pytest.approx(expected, rel=FD_RTOL, abs=FD_RTOL)


def test_star_gradients_have_the_structure_of_what_was_named():
    by_name = srcad.grad(weighted, wrt=("xs", "kw"))(X, Y, X, scale=2.0, extra=1.0)
    assert isinstance(by_name[0], tuple) and len(by_name[0]) == 2
    assert isinstance(by_name[1], dict) and set(by_name[1]) == {"scale", "extra"}


def test_the_code_of_a_star_call_writes_the_arguments_out():
    text = srcad.source(star_tuple, wrt=(0, 1), mode="forward")
    assert "np.add(parts[0], parts[1])" in text, text


# ==========================================================================
# refusals


def unknown_length(x, parts):
    return np.sum(np.add(*parts) * x)


def changed_list(x, y):
    parts = [x, y]
    parts.append(x)
    return np.sum(np.add(*parts[:2]) * x) + np.sum(scaled_sum(*parts))


def unknown_keys(x, cfg):
    return scaled_sum(x, **cfg)


STAR_REFUSALS = [(unknown_length, "*parts", "length"), (changed_list, "*parts))", "length"),
                 (unknown_keys, "**cfg", "keys")]


def place(function, needle):
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if needle in text:
            return first + offset, text.index(needle) + 2 if needle.startswith("**") else text.index(needle) + 2
    raise AssertionError(needle)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,needle,word", STAR_REFUSALS, ids=[r[0].__name__ for r in STAR_REFUSALS])
def test_unknown_structure_is_refused_at_its_line(function, needle, word, mode):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.source(function, mode=mode)
    message = str(info.value)
    line = place(function, needle)[0]
    assert message.splitlines()[0].startswith(f"{THIS_FILE}:{line}:"), message
    explanation = " ".join(message.splitlines()[3:])
    assert word in explanation and "write the arguments out" in explanation, message


# ==========================================================================
# messages


def test_positional_tangents_after_all_parameters_are_taken_by_keyword():
    derivative = srcad.autodiff(with_steps, mode="forward")
    assert derivative(X, 3, np.ones(3)) == pytest.approx(derivative(X, 3, dx=np.ones(3)))


def test_a_call_that_cannot_fit_says_how_to_call_the_derivative():
    derivative = srcad.autodiff(with_steps, mode="forward")
    with pytest.raises(srcad.WrtError) as info:
        derivative(X, np.ones(3))
    message = str(info.value)
    assert "TypeError" not in message and "dwith_steps(x, steps, dx=...)" in message, message


def test_jvp_and_vjp_take_an_int_parameter():
    out, tangent = srcad.jvp(with_steps, (X,), (np.ones(3),))
    assert out == pytest.approx(with_steps(X))
    h = 1e-6
    assert tangent == pytest.approx((with_steps(X + h) - with_steps(X - h)) / (2 * h), rel=1e-6)
    out, tangent_3 = srcad.jvp(with_steps, (X, 3), (np.ones(3), None))
    assert tangent_3 == pytest.approx((with_steps(X + h, 3) - with_steps(X - h, 3)) / (2 * h), rel=1e-6)
    _, pullback = srcad.vjp(with_steps, X, 3)
    gradient, none = pullback(1.0)
    assert none is None and float(np.sum(gradient)) == pytest.approx(tangent_3, rel=1e-10)
    with pytest.raises(srcad.WrtError, match="pass None as its tangent"):
        srcad.jvp(with_steps, (X, 3), (np.ones(3), 1))


def test_grad_of_a_tuple_output_suggests_has_aux():
    with pytest.raises(srcad.SeedError) as info:
        srcad.grad(returns_pair)(X)
    message = str(info.value)
    line = inspect.getsourcelines(returns_pair)[1] + 1
    assert message.startswith(f"{THIS_FILE}:{line}:") and "has_aux=True" in message, message
    gradient, aux = srcad.grad(returns_pair, has_aux=True)(X)
    np.testing.assert_allclose(gradient, 2 * X)
