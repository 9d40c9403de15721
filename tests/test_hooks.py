"""``srcad.insert_grad_of``: user code on an adjoint in the backward pass, ignored everywhere else."""
from __future__ import annotations

import sys

import contextlib

import numpy as np
import pytest

import srcad

from gradcheck import make_function

SIDE_EFFECTS = []


def clipped(x):
    y = 3.0 * x
    with srcad.insert_grad_of(y) as dy:
        dy = np.clip(dy, -1.0, 1.0)
    return np.sum(y * y)


def scaled_each_step(x, w):
    h = x
    for _ in range(3):
        h = np.tanh(w * h)
        with srcad.insert_grad_of(h) as dh:
            dh = 0.5 * dh
    return np.sum(h)


def recorded(x):
    y = np.sin(x)
    with srcad.insert_grad_of(y) as dy:
        SIDE_EFFECTS.append(np.copy(dy))
    return np.sum(y * x)


def on_a_constant(x):
    c = np.ones(2)
    with srcad.insert_grad_of(c) as dc:
        dc = dc * 0.0
    return np.sum(c * x)


def test_the_hook_edits_the_adjoint_where_it_stands():
    x = np.array([0.1, 1.0, -2.0])
    expected = 3.0 * np.clip(6.0 * x, -1.0, 1.0)    # dy = 2y = 6x, clipped, times dy/dx = 3
    np.testing.assert_allclose(srcad.grad(clipped)(x), expected)


def test_a_hook_in_a_loop_runs_on_every_step():
    x, w = np.array([0.3, -0.2]), np.array([0.7, 1.1])

    def manual(x, w):   # the same chain rule, halving the adjoint of h after each step
        hs = [x]
        for _ in range(3):
            hs.append(np.tanh(w * hs[-1]))
        dh = np.ones_like(x)
        for step in range(3, 0, -1):
            dh = 0.5 * dh
            dh = dh * (1.0 - hs[step] ** 2) * w
        return dh
    np.testing.assert_allclose(srcad.grad(scaled_each_step)(x, w), manual(x, w), rtol=1e-12)


def test_the_hook_sees_the_adjoint_and_may_only_observe_it():
    SIDE_EFFECTS.clear()
    x = np.array([0.5, -0.25])
    gradient = srcad.grad(recorded)(x)
    assert len(SIDE_EFFECTS) == 1
    np.testing.assert_allclose(SIDE_EFFECTS[0], x)            # d(sum(y * x))/dy = x
    np.testing.assert_allclose(gradient, np.sin(x) + x * np.cos(x))


def test_calling_the_function_directly_skips_the_block():
    SIDE_EFFECTS.clear()
    x = np.array([0.5, -0.25])
    assert recorded(x) == pytest.approx(np.sum(np.sin(x) * x))
    assert clipped(x) == pytest.approx(np.sum(9.0 * x * x))
    assert SIDE_EFFECTS == []


def test_skipping_restores_an_installed_trace_function():
    calls = []

    def tracer(frame, event, arg):
        calls.append(event)
        return None
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        clipped(np.ones(2))
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)
    assert sys.gettrace() is previous


def test_forward_mode_ignores_the_hook():
    x, v = np.array([0.1, 1.0]), np.array([1.0, -1.0])
    _, tangent = srcad.jvp(clipped, (x,), (v,))
    assert tangent == pytest.approx(np.sum(18.0 * x * v))


def test_a_hook_on_a_value_without_a_derivative_does_nothing():
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(srcad.grad(on_a_constant)(x), np.ones(2))


def test_the_generated_code_shows_the_block_under_its_line():
    text = srcad.source(clipped)
    block = text[text.index("# with srcad.insert_grad_of(y) as dy:"):]
    assert block.splitlines()[1:4] == ["    dy = dy_2", "    dy = np.clip(dy, -1.0, 1.0)", "    dy_2 = dy"]


def test_any_other_with_statement_is_a_context_manager_around_the_primal():
    f = make_function("def f(x):\n    with contextlib.nullcontext() as handle:\n        y = x * 3.0\n    return y\n",
                      {"contextlib": contextlib})
    assert srcad.grad(f)(1.0) == 3.0
    assert "with contextlib.nullcontext() as handle:" in srcad.source(f)
