"""Containers: nested dicts, lists and tuples as arguments, outputs and seeds, in both modes.

Each row is a function over nested containers of arrays and floats.  Reverse
mode (``vjp`` with a seed shaped like the output) and forward mode (``jvp``
with tangents shaped like the arguments) are checked against central finite
differences along random directions, against each other
(``<u, J v> == <J^T u, v>``), and for structure: a dict in gives a dict of
gradients out, with the same keys, and lists stay lists.
"""
from __future__ import annotations

import numbers

import numpy as np
import pytest

import srcad

from gradcheck import FD_RTOL


def tree_leaves(value):
    """The leaves of a nested dict/list/tuple value, in a fixed order (dict keys sorted)."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in tree_leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in tree_leaves(item)]
    return [value]


def tree_map(function, value, *others):
    """``value`` with ``function`` applied to each leaf (and the matching leaves of ``others``)."""
    if isinstance(value, dict):
        return {key: tree_map(function, value[key], *(o[key] for o in others)) for key in value}
    if isinstance(value, (list, tuple)):
        items = [tree_map(function, item, *(o[i] for o in others)) for i, item in enumerate(value)]
        return type(value)(items)
    return function(value, *others)


def same_structure(a, b) -> bool:
    """Same nesting, the same container kinds and the same keys."""
    if isinstance(a, dict):
        return isinstance(b, dict) and set(a) == set(b) and all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_structure, a, b))
    return not isinstance(b, (dict, list, tuple)) and np.shape(a) == np.shape(b)


def random_like(value, rng):
    def leaf(x):
        if isinstance(x, numbers.Real) and not isinstance(x, np.ndarray):
            return float(rng.standard_normal())
        return rng.standard_normal(np.shape(x))
    return tree_map(leaf, value)


def inner(a, b) -> float:
    return float(sum(np.sum(np.asarray(x) * np.asarray(y)) for x, y in zip(tree_leaves(a), tree_leaves(b))))


def moved(args, directions, h):
    return [tree_map(lambda x, v: x + h * v, a, d) for a, d in zip(args, directions)]


# --------------------------------------------------------------------------
# the functions

def dict_of_arrays_and_list(p, x):
    return np.sum(np.tanh(x @ p["W"] + p["b"]) ** 2) + p["s"][0] * p["s"][1]


def list_of_layers(layers, x):
    for layer in layers:
        x = np.tanh(x @ layer["W"] + layer["b"])
    return np.sum(x * x)


def tuple_of_arrays(pair, c):
    a, b = pair
    return np.sum(a * b) * c + np.sum(np.sin(a))


def nested_list(rows):
    total = 0.0
    for row in rows:
        total = total + np.sum(row[0] * row[1]) + np.sum(row[0] ** 2)
    return total


def dict_output(p, x):
    return {"a": p["W"] * 2.0, "b": [x @ p["W"] * p["b"], np.sum(p["W"])]}


def list_output(a, b):
    return [a * b, np.exp(a), [np.sum(b), a - b]]


def tuple_in_dict_output(p):
    return {"pair": (p["u"] * p["v"], np.sin(p["u"])), "norm": np.sum(p["v"] ** 2)}


def dict_built_in_loop(x, scales):
    out = {}
    out["first"] = x * scales[0]
    out["second"] = np.cos(x) * scales[1]
    return out


def _inputs(rng):
    p = {"W": rng.standard_normal((3, 2)), "b": rng.standard_normal(2), "s": [1.5, -0.5]}
    x = rng.standard_normal((4, 3))
    layers = [{"W": rng.standard_normal((3, 3)) / 2, "b": rng.standard_normal(3)} for _ in range(2)]
    return {
        dict_of_arrays_and_list: (p, x),
        list_of_layers: (layers, x),
        tuple_of_arrays: ((rng.standard_normal((2, 3)), rng.standard_normal(3)), 0.7),
        nested_list: ([[rng.standard_normal(3), rng.standard_normal(3)] for _ in range(3)],),
        dict_output: ({"W": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}, x),
        list_output: (rng.standard_normal(3), rng.standard_normal(3)),
        tuple_in_dict_output: ({"u": rng.standard_normal(4), "v": rng.standard_normal(4)},),
        dict_built_in_loop: (rng.standard_normal(3), [2.0, -1.0]),
    }


FUNCTIONS = list(_inputs(np.random.default_rng(0)))


def _case(function):
    rng = np.random.default_rng(7)
    args = _inputs(rng)[function]
    return args, rng


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_reverse_mode_matches_finite_differences(function):
    args, rng = _case(function)
    wrt = tuple(range(len(args)))
    out, vjp_fn = srcad.vjp(function, *args)
    seed = random_like(out, rng)
    grads = vjp_fn(seed)   # one entry per argument
    assert isinstance(grads, tuple) and len(grads) == len(wrt)
    for gradient, argument in zip(grads, args):
        assert same_structure(argument, gradient), (gradient, argument)
        if isinstance(argument, dict):
            assert isinstance(gradient, dict)
    directions = [random_like(a, rng) for a in args]
    h = 1e-6
    fd = (inner(seed, function(*moved(args, directions, h)))
          - inner(seed, function(*moved(args, directions, -h)))) / (2 * h)
    predicted = sum(inner(g, d) for g, d in zip(grads, directions))
    assert abs(fd - predicted) <= FD_RTOL * max(1.0, abs(fd)) * 10, (fd, predicted)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_forward_mode_matches_finite_differences_and_reverse(function):
    args, rng = _case(function)
    directions = tuple(random_like(a, rng) for a in args)
    out, tangent = srcad.jvp(function, tuple(args), directions)
    assert same_structure(out, tangent)
    h = 1e-6
    plus, minus = function(*moved(args, directions, h)), function(*moved(args, directions, -h))
    for t, p, m in zip(tree_leaves(tangent), tree_leaves(plus), tree_leaves(minus)):
        np.testing.assert_allclose(t, (np.asarray(p) - np.asarray(m)) / (2 * h), rtol=1e-5, atol=1e-6)
    seed = random_like(out, rng)
    _, vjp_fn = srcad.vjp(function, *args)
    grads = vjp_fn(seed)
    assert np.isclose(inner(seed, tangent), sum(inner(g, d) for g, d in zip(grads, directions)),
                      rtol=1e-9, atol=1e-9)


def test_grad_of_a_dict_parameter_gives_a_dict_with_the_same_keys():
    args, _ = _case(dict_of_arrays_and_list)
    gradient = srcad.grad(dict_of_arrays_and_list)(*args)
    assert set(gradient) == {"W", "b", "s"}
    p = args[0]
    assert gradient["s"] == pytest.approx([p["s"][1], p["s"][0]])   # d(s0 * s1)


def test_a_seed_with_the_wrong_structure_is_refused():
    args, _ = _case(dict_output)
    _, vjp_fn = srcad.vjp(dict_output, *args)
    with pytest.raises(srcad.SrcadError):
        vjp_fn([np.ones((3, 2)), [np.ones((4, 2)), 1.0]])


def test_derivatives_leave_container_arguments_unchanged():
    args, rng = _case(list_of_layers)
    before = [np.copy(leaf) for leaf in tree_leaves(args)]
    srcad.grad(list_of_layers, wrt=(0, 1))(*args)
    srcad.jvp(list_of_layers, tuple(args), tuple(random_like(a, rng) for a in args))
    assert all(np.array_equal(a, b) for a, b in zip(before, tree_leaves(args)))


def test_tuples_and_named_tuples_come_back_as_such():
    from collections import namedtuple
    Pair = namedtuple("Pair", "a b")
    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    for argument in ((a, b), Pair(a, b), [a, b]):
        gradient = srcad.grad(tuple_of_arrays)(argument, 0.7)
        assert type(gradient) is type(argument)
        np.testing.assert_allclose(gradient[1], 0.7 * a)
    value, gradients = srcad.value_and_grad(tuple_of_arrays, wrt=(0, 1))(Pair(a, b), 0.7)
    assert isinstance(gradients[0], Pair) and value == pytest.approx(tuple_of_arrays((a, b), 0.7))
