"""Tests of ``srcad.optim``: convergence, hand-computed steps, purity and pytree handling.

Contract checked here:
- every optimiser drives a convex quadratic ``1/2 (x - c)^T Q (x - c)`` to its
  minimiser ``c``, with gradients from ``srcad.grad``, for array parameters and
  for nested parameters (a dict of an array and a Python float);
- two consecutive updates of every optimiser on ``{"w": array, "b": float}``
  equal updates computed here with independent arithmetic;
- ``update`` never mutates its inputs, returns new arrays, keeps float32
  arrays float32, Python floats Python floats and the container types
  (dict, list, tuple, named tuple) of the parameters;
- mismatched structures, foreign states, non-numeric leaves and invalid
  hyperparameters raise clear errors;
- the docstring examples of ``srcad.optim`` hold.
"""
import collections
import doctest

import numpy as np
import pytest

import srcad
from srcad import optim
from gradcheck import no_disk_cache, same_bits, snapshot  # noqa: F401  (autouse fixture)

Q = np.array([[3.0, 1.0, 0.0],
              [1.0, 2.0, 0.5],
              [0.0, 0.5, 1.0]])   # symmetric positive definite, eigenvalues 0.71 .. 3.64
C = np.array([1.0, -2.0, 0.5])


def quadratic(x, Q, c):
    r = x - c
    return 0.5 * (r @ (Q @ r))


def nested_quadratic(w, b, Q, c):
    r = w - c
    return 0.5 * (r @ (Q @ r)) + (b - 1.0) ** 2 + 0.25 * (b - 1.0) * np.sum(r)


# Settings under which each optimiser converges on the quadratic, and the number of updates.
CONVERGING = {
    "sgd": (optim.sgd(lr=0.2), 300),
    "momentum": (optim.momentum(lr=0.05, mu=0.9), 400),
    "nesterov": (optim.nesterov(lr=0.05, mu=0.9), 400),
    "rmsprop": (optim.rmsprop(lr=0.003, decay=0.9), 3000),
    "adagrad": (optim.adagrad(lr=0.5), 1000),
    "adadelta": (optim.adadelta(lr=0.5, rho=0.9, eps=1e-4), 2000),
    "adam": (optim.adam(lr=0.05), 1500),
    "adamax": (optim.adamax(lr=0.05), 1500),
    "rprop": (optim.rprop(lr=0.1), 300),
}
# RMSprop with a constant rate divides g by its own running RMS, so near the
# minimum it moves by about lr per step and circles c at that distance.
TOLERANCE = {"rmsprop": 1e-2}


@pytest.mark.parametrize("name", sorted(CONVERGING))
def test_converges_on_quadratic(name):
    opt, steps = CONVERGING[name]
    gradient = srcad.grad(quadratic)
    x = np.zeros(3)
    state = opt.init(x)
    start = quadratic(x, Q, C)
    for _ in range(steps):
        x, state = opt.update(x, gradient(x, Q, C), state)
    assert state.count == steps
    assert quadratic(x, Q, C) < 1e-3 * start
    assert np.linalg.norm(x - C) < TOLERANCE.get(name, 1e-5), (name, x)


@pytest.mark.parametrize("name", sorted(CONVERGING))
def test_converges_with_nested_params(name):
    opt, steps = CONVERGING[name]
    gradient = srcad.grad(nested_quadratic, wrt=("w", "b"))
    params = {"w": np.zeros(3), "b": 0.0}
    state = opt.init(params)
    for _ in range(steps):
        dw, db = gradient(params["w"], params["b"], Q, C)
        params, state = opt.update(params, {"w": dw, "b": db}, state)
    assert isinstance(params["b"], float)
    # the minimiser: w = c and b = 1
    assert abs(params["b"] - 1.0) < TOLERANCE.get(name, 1e-5), (name, params)
    assert np.linalg.norm(params["w"] - C) < TOLERANCE.get(name, 1e-5), (name, params)


# --------------------------------------------------------------------------
# two steps by hand on {"w": array, "b": float}

W0, B0 = np.array([1.0, -2.0]), 0.5
G1 = {"w": np.array([0.5, -1.0]), "b": 2.0}
G2 = {"w": np.array([-0.25, -0.5]), "b": 1.0}


def hand_steps(name):
    """The parameters after updates with G1 then G2, written out per optimiser."""
    g1 = np.append(G1["w"], G1["b"])
    g2 = np.append(G2["w"], G2["b"])
    w = np.append(W0, B0)
    if name == "sgd":
        return w - 0.1 * g1 - 0.1 * g2
    if name == "momentum":
        v1 = -0.1 * g1
        v2 = 0.8 * v1 - 0.1 * g2
        return w + v1 + v2
    if name == "nesterov":
        v1 = -0.1 * g1
        w1 = w + 0.8 * v1 - 0.1 * g1
        v2 = 0.8 * v1 - 0.1 * g2
        return w1 + 0.8 * v2 - 0.1 * g2
    if name == "rmsprop":
        s1 = 0.2 * g1 ** 2                 # decay 0.8
        w1 = w - 0.1 * g1 / (np.sqrt(s1) + 1e-3)
        s2 = 0.8 * s1 + 0.2 * g2 ** 2
        return w1 - 0.1 * g2 / (np.sqrt(s2) + 1e-3)
    if name == "adagrad":
        w1 = w - 0.1 * g1 / (np.abs(g1) + 1e-3)
        return w1 - 0.1 * g2 / (np.sqrt(g1 ** 2 + g2 ** 2) + 1e-3)
    if name == "adadelta":                 # rho 0.8, eps 0.01, lr 0.5
        s1 = 0.2 * g1 ** 2
        d1 = -np.sqrt(0.01) / np.sqrt(s1 + 0.01) * g1
        sd1 = 0.2 * d1 ** 2
        s2 = 0.8 * s1 + 0.2 * g2 ** 2
        d2 = -np.sqrt(sd1 + 0.01) / np.sqrt(s2 + 0.01) * g2
        return w + 0.5 * d1 + 0.5 * d2
    if name == "adam":                     # b1 0.5, b2 0.75, eps 1e-3
        m1, v1 = 0.5 * g1, 0.25 * g1 ** 2
        w1 = w - 0.1 * (m1 / 0.5) / (np.sqrt(v1 / 0.25) + 1e-3)
        m2, v2 = 0.5 * m1 + 0.5 * g2, 0.75 * v1 + 0.25 * g2 ** 2
        return w1 - 0.1 * (m2 / 0.75) / (np.sqrt(v2 / (1 - 0.75 ** 2)) + 1e-3)
    if name == "adamax":                   # b1 0.5, b2 0.75, eps 1e-3
        m1, u1 = 0.5 * g1, np.abs(g1)
        w1 = w - 0.1 / 0.5 * m1 / (u1 + 1e-3)
        m2, u2 = 0.5 * m1 + 0.5 * g2, np.maximum(0.75 * u1, np.abs(g2))
        return w1 - 0.1 / 0.75 * m2 / (u2 + 1e-3)
    if name == "rprop":                    # first step 0.1 each; then x1.2 where signs agree, x0.5 where not
        step2 = np.where(g1 * g2 > 0, 0.12, 0.05)
        return w - 0.1 * np.sign(g1) - step2 * np.sign(g2)
    raise AssertionError(name)


HAND_SETTINGS = {
    "sgd": optim.sgd(lr=0.1),
    "momentum": optim.momentum(lr=0.1, mu=0.8),
    "nesterov": optim.nesterov(lr=0.1, mu=0.8),
    "rmsprop": optim.rmsprop(lr=0.1, decay=0.8, eps=1e-3),
    "adagrad": optim.adagrad(lr=0.1, eps=1e-3),
    "adadelta": optim.adadelta(lr=0.5, rho=0.8, eps=0.01),
    "adam": optim.adam(lr=0.1, b1=0.5, b2=0.75, eps=1e-3),
    "adamax": optim.adamax(lr=0.1, b1=0.5, b2=0.75, eps=1e-3),
    "rprop": optim.rprop(lr=0.1, eta_plus=1.2, eta_minus=0.5),
}


def test_every_optimiser_has_a_hand_check():
    assert set(HAND_SETTINGS) == set(CONVERGING) == {
        "sgd", "momentum", "nesterov", "rmsprop", "adagrad", "adadelta", "adam", "adamax", "rprop"}


@pytest.mark.parametrize("name", sorted(HAND_SETTINGS))
def test_two_steps_match_hand_computation(name):
    opt = HAND_SETTINGS[name]
    params = {"w": W0.copy(), "b": B0}
    state = opt.init(params)
    params, state = opt.update(params, G1, state)
    params, state = opt.update(params, G2, state)
    expected = hand_steps(name)
    np.testing.assert_allclose(params["w"], expected[:2], rtol=1e-12, atol=1e-14)
    assert isinstance(params["b"], float)
    assert params["b"] == pytest.approx(expected[2], rel=1e-12, abs=1e-14)
    assert state.count == 2


def test_first_steps_by_literal_numbers():
    # g = 2 for a scalar parameter 1.0
    assert optim.sgd(lr=0.25).update(1.0, 2.0, optim.sgd(lr=0.25).init(1.0))[0] == 0.5
    opt = optim.adam(lr=0.01)
    assert opt.update(1.0, 2.0, opt.init(1.0))[0] == pytest.approx(0.99, abs=1e-9)
    opt = optim.adagrad(lr=0.3, eps=0.0)
    assert opt.update(1.0, 2.0, opt.init(1.0))[0] == pytest.approx(0.7, abs=1e-15)
    opt = optim.rprop(lr=0.2)
    assert opt.update(1.0, -1e6, opt.init(1.0))[0] == pytest.approx(1.2, abs=1e-15)


# --------------------------------------------------------------------------
# purity and pytrees

Pair = collections.namedtuple("Pair", "first second")


@pytest.mark.parametrize("name", sorted(HAND_SETTINGS))
def test_update_is_pure_and_keeps_structure(name):
    opt = HAND_SETTINGS[name]
    params = {"layers": [np.ones((2, 3)), (np.arange(3.0), 0.5)], "pair": Pair(np.float32(1.5), 2.0),
              "half": np.ones(2, dtype=np.float32)}
    grads = {"half": np.array([1.0, -1.0], dtype=np.float32), "pair": Pair(0.5, -0.5),
             "layers": [np.full((2, 3), 0.1), (np.array([1.0, 2.0, 3.0]), 1.0)]}   # keys in another order
    state = opt.init(params)
    before = [snapshot(tree) for tree in (optim.tree_leaves(params), optim.tree_leaves(grads),
                                          optim.tree_leaves(state))]
    new_params, new_state = opt.update(params, grads, state)
    after = [snapshot(tree) for tree in (optim.tree_leaves(params), optim.tree_leaves(grads),
                                         optim.tree_leaves(state))]
    assert all(same_bits(a, b) for a, b in zip(before, after)), "update mutated its inputs"
    assert list(new_params) == ["layers", "pair", "half"]
    assert isinstance(new_params["layers"], list) and isinstance(new_params["layers"][1], tuple)
    assert isinstance(new_params["pair"], Pair)
    assert isinstance(new_params["pair"].first, np.float32) and isinstance(new_params["pair"].second, float)
    assert isinstance(new_params["layers"][1][1], float)
    assert new_params["half"].dtype == np.float32 and new_params["layers"][0].dtype == np.float64
    assert new_params["layers"][0] is not params["layers"][0]
    assert not np.shares_memory(new_params["layers"][0], params["layers"][0])
    assert type(new_state) is type(state) and new_state.count == 1 and state.count == 0
    moved = [not np.array_equal(a, b) for a, b in zip(optim.tree_leaves(new_params),
                                                      optim.tree_leaves(params))]
    assert all(moved), f"{name}: some parameter did not move: {moved}"


def test_init_slots_are_zero_and_shaped_like_params():
    params = {"w": np.ones((2, 2), dtype=np.float32), "b": 3.0}
    state = optim.adam().init(params)
    assert state.count == 0
    assert state.m["w"].shape == (2, 2) and state.m["w"].dtype == np.float32
    assert not np.any(state.m["w"]) and state.v["b"] == 0.0 and isinstance(state.v["b"], float)
    assert optim.rprop(lr=0.3).init(params).step_size["b"] == 0.3


def test_tree_map_and_leaves():
    tree = {"a": [1.0, (2.0, np.array([3.0]))], "b": Pair(4.0, 5.0)}
    doubled = optim.tree_map(lambda x: 2 * x, tree)
    assert doubled["b"] == Pair(8.0, 10.0) and doubled["a"][1][1].tolist() == [6.0]
    assert [float(np.sum(x)) for x in optim.tree_leaves(tree)] == [1.0, 2.0, 3.0, 4.0, 5.0]
    summed = optim.tree_map(lambda x, y: x + y, {"p": 1.0, "q": 2.0}, {"q": 20.0, "p": 10.0})
    assert summed == {"p": 11.0, "q": 22.0}


# --------------------------------------------------------------------------
# errors

def test_mismatched_grads_name_the_path():
    opt = optim.sgd()
    params = {"w": [np.ones(2), np.ones(2)], "b": 1.0}
    state = opt.init(params)
    with pytest.raises(ValueError, match=r"grads\['w'\]: expected a list of length 2, got a list of length 1"):
        opt.update(params, {"w": [np.ones(2)], "b": 1.0}, state)
    with pytest.raises(ValueError, match=r"expected a dict with keys \['b', 'w'\], got a dict with keys \['w'\]"):
        opt.update(params, {"w": [np.ones(2), np.ones(2)]}, state)


def test_foreign_state_and_bad_leaves_are_rejected():
    with pytest.raises(TypeError, match="adam.update needs the state from adam.init"):
        optim.adam().update(1.0, 1.0, optim.sgd().init(1.0))
    with pytest.raises(TypeError, match=r"params\['x'\] is a str"):
        optim.sgd().init({"x": "one"})
    with pytest.raises(TypeError, match=r"grads\[0\] is a NoneType"):
        optim.sgd().update([1.0], [None], optim.sgd().init([1.0]))


@pytest.mark.parametrize("make, kwargs", [
    (optim.sgd, {"lr": 0.0}), (optim.momentum, {"mu": 1.0}), (optim.adam, {"b2": -0.1}),
    (optim.adadelta, {"eps": 0.0}), (optim.rprop, {"eta_plus": 0.9}), (optim.rmsprop, {"lr": -1.0}),
])
def test_invalid_hyperparameters(make, kwargs):
    with pytest.raises(ValueError):
        make(**kwargs)


def test_rprop_ignores_the_gradient_scale():
    opt = optim.rprop(lr=0.1)
    gradient = srcad.grad(quadratic)
    x, y = np.zeros(3), np.zeros(3)
    sx, sy = opt.init(x), opt.init(y)
    for _ in range(20):
        x, sx = opt.update(x, gradient(x, Q, C), sx)
        y, sy = opt.update(y, 1000.0 * gradient(y, Q, C), sy)
    np.testing.assert_array_equal(x, y)


def test_repr_and_hyperparams():
    opt = optim.adam(lr=0.01)
    assert repr(opt) == "adam(lr=0.01, b1=0.9, b2=0.999, eps=1e-08)"
    assert opt.hyperparams["lr"] == 0.01


def test_docstring_examples():
    result = doctest.testmod(optim, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20
    assert result.failed == 0
