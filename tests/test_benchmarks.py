"""Smoke tests of the benchmark harness: ``benchmarks/problems.py``, ``peers.py`` and ``run.py``.

Contract:
- On the problems' tiny ("quick") inputs, srcad's reverse-mode gradient of
  every problem and every other formulation of it
  (``benchmarks/formulations.py``) matches a central finite difference of
  every input element, and its forward-mode JVP matches the
  finite-difference directional derivative.  srcad must differentiate every
  problem and formulation.
- Every problem has at least two other formulations, each computing the
  original's value on the original's inputs, quick and full sizes.
- Every installed peer (autograd, jax, torch, tangent-ad) computes the same
  gradient as finite differences on every problem it can run: these are the
  programs ``run.py`` times against srcad.  Only installed peers get cases;
  problems a peer cannot run (``PEER_LIMITS``) must still fail in that peer.
- ``python benchmarks/run.py --quick`` runs to the end and prints a row for
  each problem and formulation it was given, with the machine note.
  (The report's and the README writer's own logic is tested in
  ``tests/test_benchmarks_plumbing.py``.)
- Nothing here measures or asserts speed.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from formulations import EVERY_FUNCTION, FORMULATIONS, formulations_of  # noqa: E402
from problems import PROBLEMS  # noqa: E402
import peers as peers_module  # noqa: E402

FD_RTOL = 1e-5

# Problems a peer itself cannot run (run.py prints n/a for them); the test checks the tool still fails
# on them, so a stale entry is noticed.
PEER_LIMITS = {("tangent", "gmm"), ("tangent", "lstm"), ("tangent", "matmul_loops"),   # B.shape: attributes
               ("tangent", "conv"), ("tangent", "heat")}   # K.shape; no rule for np.concatenate


@pytest.fixture(autouse=True)
def fresh_derivatives(monkeypatch):
    """Build derivatives with the current generator, never from a disk cache of an older one."""
    monkeypatch.setenv("SRCAD_CACHE", "0")


def _inputs(problem):
    return problem.make_inputs("quick", np.random.default_rng(0))


def _moved(args, position, delta):
    moved = list(args)
    moved[position] = args[position] + delta
    return moved


def _fd_gradient(problem, args, position, step=1e-6):
    """Central finite differences of ``problem.function`` in every element of argument ``position``."""
    base = np.asarray(args[position], dtype=float)
    out = np.zeros(base.shape)
    for index in np.ndindex(base.shape):
        unit = np.zeros(base.shape)
        unit[index] = step
        delta = float(unit) if np.ndim(args[position]) == 0 else unit
        out[index] = (float(problem.function(*_moved(args, position, delta)))
                      - float(problem.function(*_moved(args, position, -delta)))) / (2 * step)
    return out


def _fd_directional(problem, args, directions, step=1e-6):
    def at(sign):
        moved = list(args)
        for position, direction in zip(problem.wrt_positions(), directions):
            moved[position] = args[position] + sign * step * direction
        return float(problem.function(*moved))
    return (at(1.0) - at(-1.0)) / (2 * step)


def _directions(problem, args):
    rng = np.random.default_rng(1)
    return [float(rng.normal()) if np.ndim(args[p]) == 0 else rng.normal(size=np.shape(args[p]))
            for p in problem.wrt_positions()]


@pytest.mark.parametrize("name", list(EVERY_FUNCTION))
def test_srcad_gradient_matches_finite_differences(name):
    problem = EVERY_FUNCTION[name]
    args = _inputs(problem)
    gradient = srcad.grad(problem.function, wrt=problem.wrt)(*args)
    assert len(gradient) == len(problem.wrt)
    for position, g in zip(problem.wrt_positions(), gradient):
        expected = _fd_gradient(problem, args, position)
        assert np.shape(g) == np.shape(args[position])
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(np.asarray(g, dtype=float), expected, rtol=FD_RTOL, atol=FD_RTOL * scale,
                                   err_msg=f"{name}: gradient of argument {position}")


@pytest.mark.parametrize("name", list(EVERY_FUNCTION))
def test_srcad_jvp_matches_finite_differences(name):
    problem = EVERY_FUNCTION[name]
    args = _inputs(problem)
    directions = _directions(problem, args)
    jvp = srcad.autodiff(problem.function, wrt=problem.wrt, mode="forward")
    tangent = jvp(*args, *directions)
    expected = _fd_directional(problem, args, directions)
    assert float(tangent) == pytest.approx(expected, rel=FD_RTOL, abs=FD_RTOL)


def _peer_cases():
    """Every problem for every installed peer (the peers are optional: `pip install .[bench]`)."""
    cases = [pytest.param(peer, name, id=f"{peer.name}-{name}") for peer in peers_module.PEERS
             if peer.unavailable() is None for name in PROBLEMS]
    return cases or [pytest.param(None, None, id="no-peer-installed")]


@pytest.mark.parametrize("peer, name", _peer_cases())
def test_peer_gradient_matches_finite_differences(peer, name):
    if peer is None:   # none installed: run.py prints n/a for each, with the reason
        assert all(p.unavailable() for p in peers_module.PEERS)
        return
    problem = PROBLEMS[name]
    args = _inputs(problem)
    try:
        call, to_numpy = peer.prepare(problem, args)
        gradient = to_numpy(call())
    except peers_module.PeerUnsupported as error:   # the adapter says why: run.py prints n/a
        assert str(error)
        return
    except Exception:   # the tool itself cannot run this problem: run.py prints n/a
        assert (peer.name, name) in PEER_LIMITS, f"{peer.name} failed on {name}"
        return
    assert (peer.name, name) not in PEER_LIMITS, f"{peer.name} now runs {name}: drop it from PEER_LIMITS"
    assert len(gradient) == len(problem.wrt)
    for position, g in zip(problem.wrt_positions(), gradient):
        expected = _fd_gradient(problem, args, position)
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(g, expected, rtol=FD_RTOL, atol=FD_RTOL * scale,
                                   err_msg=f"{peer.name} on {name}: gradient of argument {position}")


def test_problems_are_plain_numpy_and_do_not_modify_their_arguments():
    for name, problem in EVERY_FUNCTION.items():
        args = _inputs(problem)
        before = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        value = problem.function(*args)
        assert np.ndim(value) == 0 and np.isfinite(value), name
        for a, b in zip(args, before):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} modified an argument")


@pytest.mark.parametrize("size", ["quick", "full"])
@pytest.mark.parametrize("name", list(FORMULATIONS))
def test_every_formulation_computes_the_original_value(name, size):
    original = PROBLEMS[name.split("/")[0]]
    formulation = FORMULATIONS[name]
    args = original.make_inputs(size, np.random.default_rng(0))
    expected = float(original.function(*args))
    assert float(formulation.function(*args)) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert formulation.function is not original.function and formulation.wrt == original.wrt
    assert formulation.wrt_positions() == original.wrt_positions()


def test_every_problem_has_two_other_formulations():
    for name in PROBLEMS:
        others = formulations_of(name)[1:]
        assert len(others) >= 2, name
        assert len({p.function for p in others} | {PROBLEMS[name].function}) == len(others) + 1, name
        assert all(p.name.startswith(name + "/") and p.description for p in others), name


def test_run_quick_prints_the_tables():
    names = ["rosenbrock", "pool", "mlp"]
    result = subprocess.run([sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--peers", "none",
                             "--problems", ",".join(names)], capture_output=True, text=True, timeout=300)
    out = result.stdout
    srcad_failed = "WRONG (srcad" in out or "error (srcad" in out
    assert result.returncode == (1 if srcad_failed else 0), result.stderr
    assert out.startswith("Machine: ")
    assert "NumPy " + np.__version__ in out.splitlines()[0]
    lines = out.splitlines()
    for name in names:   # the ratios, the formulations and the absolute medians
        assert sum(line.startswith(name + " ") for line in lines) >= 3, name
        for formulation in formulations_of(name)[1:]:
            assert any(line.startswith(formulation.name + " ") for line in lines), formulation.name
    assert "grad" in out.lower() and "srcad rev" in out and "first transform" in out and "worst rev" in out


def test_run_markdown_has_a_row_per_problem_and_formulation():
    result = subprocess.run([sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--peers", "none",
                             "--no-overheads", "--markdown"], capture_output=True, text=True, timeout=600)
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    for name in EVERY_FUNCTION:
        assert any(row.startswith(f"| {name} |") for row in rows), name
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr
