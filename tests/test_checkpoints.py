"""Checkpointed loops (``checkpoints=K``): the same derivative as the tape, with at most K stored states.

Every loop in the spec table is differentiated with checkpoints at several K
(1, 2, 3, 5 and more than its steps) and several trip counts (0, 1, 2 and
many), and compared with the taped derivative (to rounding) and with central
finite differences.  The schedule itself is checked against a brute-force
optimum and by counting the stored states; what cannot go into a step
function is refused at the user's line.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import srcad
from srcad.runtime import checkpointing
from tests.gradcheck import (fd_directional, inner, make_function, no_disk_cache,  # noqa: F401
                             random_directions)

NAMESPACE = {"np": np}

# name: (source, arguments(steps, rng), wrt)
SPECS = {
    "heat out of place": ("""
def heat(u0, c, n):
    u = u0 * 1.0
    for t in range(n):
        u = u + c * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 2)
""", lambda n, rng: (rng.random(6), 0.1, n), (0, 1)),
    "heat in place": ("""
def heat_in_place(u0, c, n):
    u = u0.copy()
    for t in range(n):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(np.sin(u))
""", lambda n, rng: (rng.random(6), 0.2, n), (0, 1)),
    "augmented assignments": ("""
def augmented(u0, c, n):
    u = u0.copy()
    total = 0.0
    for t in range(n):
        u += c * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
        total += np.sum(u * u)
    return total
""", lambda n, rng: (rng.random(5), 0.2, n), (0, 1)),
    "two carried, leapfrog": ("""
def leapfrog(x0, v0, k, dt, n):
    x = x0
    v = v0
    for t in range(n):
        v = v - dt * k * np.sin(x)
        x = x + dt * v
    return np.sum(x * v) + np.sum(x ** 2)
""", lambda n, rng: (rng.random(3), rng.random(3), 1.3, 0.1, n), (0, 1, 2, 3)),
    "inputs read per step": ("""
def rnn(W, xs, h0, n):
    h = h0
    total = 0.0
    for t in range(n):
        h = np.tanh(W @ h + xs[t])
        total = total + np.sum(h * xs[t])
    return total + np.sum(h ** 2)
""", lambda n, rng: (rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((max(n, 1), 3)), rng.random(3), n),
        (0, 1, 2)),
    "scalar state and the index": ("""
def scalar_state(s0, a, n):
    s = s0
    for t in range(n):
        s = s * a + 0.5 * np.cos(t + s)
    return s * s
""", lambda n, rng: (0.3, 0.9, n), (0, 1)),
    "an int carried beside floats": ("""
def counted(x0, a, n):
    x = x0
    k = 0
    for t in range(n):
        k = k + 2
        x = x + k * a * np.sin(x)
    return np.sum(x) * k
""", lambda n, rng: (rng.random(4), 0.05, n), (0, 1)),
    "range with start and step, code around": ("""
def strided(x, w, n):
    y = np.exp(x) * w
    acc = y * 0.0
    for t in range(2, n + 2, 3):
        tmp = np.sin(y) * w
        y = y + 0.1 * tmp * t
        if t > 4:
            acc = acc + y
        else:
            acc = acc - 0.5 * y
        for j in range(2):
            acc = acc * 0.9
    z = np.sum(acc * y)
    return z + w * np.sum(y)
""", lambda n, rng: (rng.random(4), 0.7, 3 * n), (0, 1)),
    "a parameter carried, a value kept from an earlier step": ("""
def kept(x, a, n):
    tmp = 3
    first = 0.0
    for t in range(n):
        if t == 0:
            first = x * a
        tmp = np.sin(x)
        x = x * a + 0.1 * tmp + 0.01 * first
    return np.sum(x)
""", lambda n, rng: (rng.random(3), 0.8, n), (0, 1)),
    "two loops": ("""
def two_loops(x, a, n):
    y = x * 1.0
    for t in range(n):
        y = np.tanh(y * a + 0.1)
    z = y * 2.0
    for k in range(n // 2 + 1):
        z = z * np.cos(z) + a
    return np.sum(z * y)
""", lambda n, rng: (rng.random(3), 0.9, n), (0, 1)),
}
STEPS = (0, 1, 2, 9)
SNAPSHOTS = (1, 2, 3, 5, 40)


@lru_cache(None)
def spec_function(name):
    return make_function(SPECS[name][0], dict(NAMESPACE))


def _arguments(name, steps):
    return SPECS[name][1](steps, np.random.default_rng(steps + 7))


def _close(a, b, tolerance):
    for x, y in zip(a, b):
        assert np.allclose(x, y, rtol=tolerance, atol=tolerance), (x, y)


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("name", sorted(SPECS))
def test_same_gradient_as_the_tape(name, steps):
    f, wrt = spec_function(name), SPECS[name][2]
    args = _arguments(name, steps)
    taped = srcad.grad(f, wrt=wrt)(*args)
    for snapshots in SNAPSHOTS:
        checkpointed = srcad.grad(f, wrt=wrt, checkpoints=snapshots)(*args)
        _close(checkpointed, taped, 1e-12)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_against_finite_differences(name):
    f, wrt = spec_function(name), SPECS[name][2]
    args = _arguments(name, 9)
    rng = np.random.default_rng(3)
    for snapshots in (1, 3):
        grads = srcad.grad(f, wrt=wrt, checkpoints=snapshots)(*args)
        directions = random_directions(args, wrt, rng)
        fd = fd_directional(f, args, wrt, directions)
        predicted = sum(inner(g, v) for g, v in zip(grads, directions))
        assert np.isclose(predicted, float(fd[0]), rtol=1e-6, atol=1e-8), (predicted, fd)


def test_vjp_and_value_and_grad():
    """A vector-valued f through ``vjp``, and ``value_and_grad``, agree with the tape."""
    f = make_function("""
def trajectory(u0, c, n):
    u = u0 * 1.0
    for t in range(n):
        u = u + c * (np.roll(u, 1) - 2 * u + np.roll(u, -1)) + 0.01 * u * u
    return u * 2.0
""", dict(NAMESPACE))
    args = (np.linspace(0.1, 1.0, 5), 0.15, 12)
    seed = np.arange(5.0) - 2.0
    out, pull = srcad.vjp(f, *args, checkpoints=2)
    out_taped, pull_taped = srcad.vjp(f, *args)
    _close((out,), (out_taped,), 1e-14)
    checkpointed, taped = pull(seed), pull_taped(seed)
    assert checkpointed[2] is None and taped[2] is None
    _close(checkpointed[:2], taped[:2], 1e-12)
    loss = spec_function("heat out of place")
    args = _arguments("heat out of place", 9)
    value, gradient = srcad.value_and_grad(loss, wrt=(0, 1), checkpoints=3)(*args)
    assert np.isclose(value, loss(*args))
    _close(gradient, srcad.grad(loss, wrt=(0, 1))(*args), 1e-12)


def test_forward_mode_with_checkpoints_is_the_plain_forward_mode():
    f = spec_function("two carried, leapfrog")
    args = _arguments("two carried, leapfrog", 9)
    tangents = (np.ones(3), np.zeros(3), 1.0, 0.0)
    plain = srcad.autodiff(f, wrt=(0, 1, 2, 3), mode="forward")(*args, *tangents)
    given = srcad.autodiff(f, wrt=(0, 1, 2, 3), mode="forward", checkpoints=2)(*args, *tangents)
    assert np.isclose(plain, given)


def test_caller_arrays_are_left_alone():
    f = spec_function("heat in place")
    u0 = np.linspace(0.0, 1.0, 6)
    kept = u0.copy()
    srcad.grad(f, wrt=(0, 1), checkpoints=2)(u0, 0.2, 9)
    assert np.array_equal(u0, kept)


def test_generated_code_shows_the_step_and_plain_derivatives_stay_as_they_are():
    f = spec_function("heat out of place")
    text = srcad.source(f, wrt=(0, 1), checkpoints=4)
    assert "checkpointed_loop(heat_step, range_n, " in text and "checkpointed_loop_grads(" in text
    assert "checkpointed" not in srcad.source(f, wrt=(0, 1))


# the schedule ------------------------------------------------------------------------------------------

@lru_cache(None)
def _optimal_cost(steps, snapshots):
    """Brute force: the fewest forward steps that reverse ``steps`` steps with ``snapshots`` states."""
    if steps <= 1:
        return 0
    if snapshots == 1:
        return steps * (steps - 1) // 2
    return min(m + _optimal_cost(steps - m, snapshots - 1) + _optimal_cost(m, snapshots)
               for m in range(1, steps))


@pytest.mark.parametrize("snapshots", (1, 2, 3, 4, 6))
def test_the_schedule_is_optimal(snapshots, monkeypatch):
    """The reverse sweep makes exactly the optimal number of forward steps, from at most K stored states."""
    monkeypatch.setattr(checkpointing._Reversal, "reverse_step", lambda self, state, offset, adjoint: adjoint)
    for steps in range(0, 45):
        made = []

        def step(t, x):
            made.append(t)
            assert x == t   # every step starts from the right state
            return (x + 1.0,)

        result = checkpointing.checkpointed_loop(step, range(steps), (0.0,), (), snapshots)
        assert result[0] == steps and len(made) == steps
        assert len(result.snapshots) <= snapshots
        made.clear()
        checkpointing.checkpointed_loop_grads((1.0,), result, step, range(steps), (0.0,), (), snapshots)
        advanced = result.snapshots[-1][0] if result.snapshots else 0   # by the primal sweep already
        assert len(made) == _optimal_cost(steps, snapshots) - advanced
        assert checkpointing.recomputed_steps(steps, snapshots) == _optimal_cost(steps, snapshots)


# refusals ----------------------------------------------------------------------------------------------

REFUSED = {
    "no loop": ("def f(x):\n    return np.sum(x * x)\n", "needs a `for` loop over range"),
    "while loop": ("def f(x, n):\n    t = 0\n    while t < n:\n        x = x * 1.1\n        t = t + 1\n"
                   "    return np.sum(x)\n", "`for t in range(n):`"),
    "break": ("def f(x, n):\n    for t in range(n):\n        x = x * 1.1\n        if t > 2:\n            break\n"
              "    return np.sum(x)\n", "`break`"),
    "return in the loop": ("def f(x, n):\n    for t in range(n):\n        x = x * 1.1\n        return np.sum(x)\n"
                           "    return 0.0\n", "`return`"),
    "append of the state": ("def f(x, n):\n    xs = []\n    for t in range(n):\n        x = x * 1.1\n"
                            "        xs.append(x)\n    return np.sum(xs[-1])\n", "`.append(...)`"),
    "writing into a parameter": ("def f(x, n):\n    for t in range(n):\n        x[0] = x[0] * 1.1\n"
                                 "    return np.sum(x)\n", "writing into `x` in place"),
    "+= on a parameter": ("def f(x, n):\n    for t in range(n):\n        x += 1.0\n    return np.sum(x)\n",
                          "writing into `x` in place"),
    "writing through a view": ("def f(x, n):\n    u = x * 1.0\n    for t in range(n):\n        v = u[1:]\n"
                               "        v[0] = v[0] * 2.0\n    return np.sum(u)\n", "writing into `v` in place"),
    "out=": ("def f(x, n):\n    u = x * 1.0\n    for t in range(n):\n        np.multiply(u, 1.1, out=u)\n"
             "    return np.sum(u)\n", "`out=`"),
    "a ufunc's positional out": ("def f(x, n):\n    u = x * 1.0\n    for t in range(n):\n"
                                 "        np.multiply(u, 1.1, u)\n    return np.sum(u)\n", "`out=`"),
    "index read after": ("def f(x, n):\n    for t in range(n):\n        x = x * 1.1\n    return np.sum(x) * t\n",
                         "reading the loop index t after the loop"),
    "no value before the loop": ("def f(x, n):\n    for t in range(n):\n        y = x * 1.1\n"
                                 "    return np.sum(y)\n", "give it a value before the loop"),
    "another name before the loop": ("def f(x, n):\n    u = x * 1.0\n    w = u\n    for t in range(n):\n"
                                     "        u[0] = u[0] * 2.0\n    return np.sum(w)\n", "another name for `u`"),
    "a value from an earlier step": ("def f(x, n):\n    for t in range(n):\n        if t == 0:\n"
                                     "            y = x * 2.0\n        x = x + y\n    return np.sum(x)\n",
                                     "`y = 0.0`"),
    "for-else": ("def f(x, n):\n    for t in range(n):\n        x = x * 1.1\n    else:\n        x = x + 1.0\n"
                 "    return np.sum(x)\n", "move the else block after the loop"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_at_the_users_line(name):
    text, expected = REFUSED[name]
    f = make_function(text, dict(NAMESPACE))
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(f, checkpoints=2)(np.ones(3), 4)
    message = str(raised.value)
    assert expected in message, message
    assert "<gradcheck-" in message.splitlines()[0], message


def test_carried_arrays_sharing_memory_are_refused_when_the_loop_writes_in_place():
    f = make_function("""
def shared(x, n):
    u = x * 1.0
    w = x * 2.0
    s = 0.0
    for t in range(n):
        u[0] = u[0] * 2.0
        s = s + w[0]
        w = u
    return s
""", dict(NAMESPACE))
    with pytest.raises(srcad.SrcadError, match="`u` and `w` share memory"):
        srcad.grad(f, checkpoints=2)(np.ones(3), 4)


def test_containers_in_the_loop_are_refused_at_run_time():
    f = make_function("""
def container(x, w, n):
    params = [w, 2.0 * w]
    for t in range(n):
        x = x * params[0] + params[1]
    return np.sum(x)
""", dict(NAMESPACE))
    with pytest.raises(srcad.SrcadError, match="`params` holds list"):
        srcad.grad(f, wrt=(0, 1), checkpoints=2)(np.ones(3), 0.5, 4)


def helper_of_the_step(u, c):
    return u + c * np.sin(u)


def test_a_helper_called_in_the_loop():
    f = make_function("""
def calls(u0, c, n):
    u = u0
    for t in range(n):
        u = helper_of_the_step(u, c) * 0.9
    return np.sum(u ** 2)
""", dict(NAMESPACE, helper_of_the_step=helper_of_the_step))
    args = (np.linspace(0.1, 1.0, 4), 0.3, 6)
    _close(srcad.grad(f, wrt=(0, 1), checkpoints=2)(*args), srcad.grad(f, wrt=(0, 1))(*args), 1e-12)


def test_an_error_in_the_step_names_the_users_line():
    f = make_function("""
def no_rule(x, n):
    y = x * 1.0
    for t in range(n):
        # a comment, then a blank line

        y = y * 2.0
        y = np.nanpercentile(y, 50) * y
    return np.sum(y)
""", dict(NAMESPACE))
    with pytest.raises(srcad.MissingTemplateError) as raised:
        srcad.grad(f, checkpoints=2)(np.ones(3), 3)
    first = str(raised.value).splitlines()[0]
    assert "the loop of no_rule as no_rule_step>:8:" in first and "<gradcheck-" in first, first


def test_a_second_derivative_through_a_checkpointed_loop_is_refused():
    gradient = srcad.grad(spec_function("heat out of place"), checkpoints=3)
    args = _arguments("heat out of place", 4)
    with pytest.raises(srcad.SrcadError, match="leave checkpoints out for higher derivatives"):
        srcad.autodiff(gradient, mode="forward")(*args, np.ones(6))


@pytest.mark.parametrize("bad", (0, -1, 2.5, True, "3"))
def test_a_bad_number_of_checkpoints_is_refused(bad):
    with pytest.raises(srcad.SrcadError, match="not a number of snapshots"):
        srcad.grad(spec_function("heat out of place"), checkpoints=bad)


def test_srcad_show_prints_the_step_and_its_derivative(tmp_path, capsys):
    from srcad import cli
    module = tmp_path / "heat_show_module.py"
    module.write_text("import numpy as np\n" + SPECS["heat in place"][0])   # the loop is on line 5
    assert cli.main(["show", f"{module}:heat_in_place", "--wrt", "0,1", "--checkpoints", "3"]) == 0
    shown = capsys.readouterr().out
    assert "checkpointed_loop(heat_in_place_step, range_n, t_2, t_3, 3, True, 'heat_show_module.py:5')" in shown
    assert "def heat_in_place_step(t, u, c):\n    u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])" in shown
    assert "def dheat_in_place_step(t, u, c, dout):" in shown
