"""Tests of ``benchmarks/readability.py`` and the functions it measures.

Contract:
- The line and helper-call counts follow their stated definitions (checked
  on hand-written sources in srcad's and tangent-ad's styles).
- srcad's gradient of every function in ``readability_functions`` matches
  central finite differences, so the code being measured is right.
- srcad's reverse- and forward-mode derivatives of the unrolled logistic map
  grow by the same number of lines for every extra step (n >= 2).
- With tangent-ad importable, it differentiates every function and srcad's
  total generated lines are at most 60% of tangent-ad's; without it, the
  table prints ``n/a`` in tangent-ad's columns (also checked with tangent-ad
  reported missing).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import srcad

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import readability  # noqa: E402
from readability_functions import FUNCTIONS  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_derivatives(monkeypatch):
    """Measure the current generator's output, never a disk cache of an older one."""
    monkeypatch.setenv("SRCAD_CACHE", "0")


SRCAD_STYLE = '''\
# header comment
import numpy as np
from srcad.runtime import check_seed, unbroadcast as ub
import srcad.runtime.shapes as shapes


def df(x, w, dout=1.0):
    """A docstring is not a line of code."""
    # y = x * w
    y = x * w

    dout = check_seed(y, dout)
    dx = ub(dout * w,
            x)
    return shapes.same(np.sum(dx), dx)
'''

TANGENT_STYLE = '''\
def dfdx(x, by=1.0):
    _stack = tangent.Stack()
    # Grad of: y = x * x
    by = tangent.match_seed(x, by)
    bx = tangent.unbroadcast(by * x, x) + np.abs(x)
    return bx
'''


def test_line_count_definition():
    assert readability.code_size(SRCAD_STYLE, "df") == (5, 6)   # the wrapped call is two lines; 6 operations and calls
    assert readability.code_size(TANGENT_STYLE, "dfdx") == (4, 6)


def test_helper_call_definition():
    assert readability.helper_calls(SRCAD_STYLE, "df", "srcad") == 3        # check_seed, ub, shapes.same
    assert readability.helper_calls(TANGENT_STYLE, "dfdx", "tangent") == 3  # Stack, match_seed, unbroadcast
    assert readability.helper_calls(TANGENT_STYLE, "dfdx", "srcad") == 0


@pytest.mark.parametrize("name, func, args", FUNCTIONS, ids=[entry[0] for entry in FUNCTIONS])
def test_measured_gradients_are_right(name, func, args):
    gradient = np.asarray(srcad.grad(func)(*args), dtype=float)
    x = np.asarray(args[0], dtype=float)
    assert gradient.shape == x.shape
    expected = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[index] = 1e-6
        plus, minus = x + step, x - step
        as_arg = (lambda v: float(v)) if np.ndim(args[0]) == 0 else (lambda v: v)
        expected[index] = (func(as_arg(plus), *args[1:]) - func(as_arg(minus), *args[1:])) / 2e-6
    np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-7, err_msg=name)


def test_unrolled_logistic_grows_linearly():
    growth = readability.unrolled_growth(10)
    assert [row["n"] for row in growth] == list(range(1, 11))
    for mode in ("reverse", "forward"):
        steps = {b[mode] - a[mode] for a, b in zip(growth, growth[1:])}
        assert len(steps) == 1, (mode, growth)
        assert 0 < steps.pop() <= 6, (mode, growth)   # one primal and a few derivative lines per step


def test_readability_table(capsys):
    rows, growth = readability.main(["--max-n", "6"])
    out = capsys.readouterr().out
    assert [row.name for row in rows] == [entry[0] for entry in FUNCTIONS]
    assert len(rows) >= 20 and all(row.srcad.lines > 0 for row in rows)
    assert "reverse: lines(n) - lines(n-1) for n = 2..6: [" in out
    if readability.tangent_unavailable() is None:
        assert all(row.tangent is not None for row in rows), [(r.name, r.tangent_error) for r in rows]
        srcad_lines, tangent_lines, ratio = readability.totals(rows)
        assert ratio <= readability.TARGET_RATIO, (srcad_lines, tangent_lines)
        assert f"srcad / tangent-ad lines: {ratio:.2f}" in out
    else:
        assert "n/a" in out and "tangent-ad: n/a" in out
        assert readability.totals(rows) == (0, 0, None)


def test_table_without_tangent(monkeypatch, capsys):
    monkeypatch.setattr(readability, "tangent_unavailable", lambda: "ModuleNotFoundError: No module named 'tangent'")
    rows, _ = readability.main(["--functions", "branch,loop_store", "--max-n", "2"])
    out = capsys.readouterr().out
    assert [row.name for row in rows] == ["branch", "loop_store"] and all(row.tangent is None for row in rows)
    assert out.count("n/a") >= 5
    assert "tangent-ad: n/a (ModuleNotFoundError: No module named 'tangent')" in out
