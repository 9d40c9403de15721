"""Smoke tests of the example scripts in examples/.

Contract checked here: each example listed below runs as
``python examples/NAME.py`` in a fresh process (with ``SRCAD_CACHE_DIR``
pointing at a temporary directory, so no user cache is read or written),
exits with status 0, prints nothing on stderr beyond warnings, and prints
its key results: the values and generated code it is about.

``mlp_digits`` and ``expression_swell`` are imported and their main function
called in this process instead (the same code their ``__main__`` block runs),
with the disk cache in a temporary directory and their PNG written there:
the MLP must reach a test accuracy above 95%, and srcad's derivative of the
unrolled logistic map must grow by a fixed number of lines per step while
SymPy's symbolic derivative swells exponentially.  ``ode_fit`` (needs SciPy)
fits a Lotka-Volterra model through ``odeint`` and must recover its rates
to within 5%.  scikit-learn and SymPy
are in the test extra; matplotlib is optional (without it the examples must
say so).
"""
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def run_example(name: str, tmp_path: Path) -> str:
    """Run ``examples/<name>.py`` and return its stdout, asserting it exits with status 0."""
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("SRCAD_CACHE", None)
    result = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{name}.py exited with {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_survey_example(tmp_path):
    out = run_example("survey_example", tmp_path)
    assert "f = 11.6521" in out
    assert "df/dx1 = 5.5000" in out and "df/dx2 = 1.7163" in out
    assert "(df/dx1, df/dx2) = (5.5000, 1.7163)" in out
    assert "forward-mode derivative of f" in out and "reverse-mode derivative of f" in out
    assert "def df(x1, x2, dx1, dx2):" in out and "def df(x1, x2, dv5=1.0):" in out
    assert "# v3 = math.sin(x2)" in out and "math.cos(x2)" in out
    assert (tmp_path / "cache").is_dir() and any((tmp_path / "cache").rglob("*.py"))


def test_cell_model(tmp_path):
    out = run_example("cell_model", tmp_path)
    assert out.count("agrees with finite differences") == 6, out
    assert "after net.cos = np.exp" in out
    assert "def dconstruct(self, x, dout=1.0):" in out
    assert "    self_dense_W = self.dense.W\n    self_dense_b = self.dense.b\n" in out
    assert "h = self.sin(x) * self.cos(x)" in out and "# __call__: return x @ self.W + self.b" in out


def test_control_flow(tmp_path):
    out = run_example("control_flow", tmp_path)
    assert "all gradients agree with finite differences" in out
    assert re.search(r"x =  1\.50   d/dx =     6\.750000", out)
    assert re.search(r"x =  9\.00   d/dx =     0\.166667", out)
    assert "iterations)" in out
    assert "def dbabylonian_sqrt(a, dx=1.0):" in out
    assert "while abs(x * x - a) > 1e-12 * a:" in out and "tape.pop()" in out


def test_loop_kernel(tmp_path):
    out = run_example("loop_kernel", tmp_path)
    assert "def dpool(B, dA=1.0):" in out
    assert "A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0" in out
    assert "for i in reversed(range(B.shape[0] - 2)):" in out
    assert "[0.3333 0.6667 1.     1.     1.     1.     1.     1.     0.6667 0.3333]" in out
    assert "max |dB - closed form| for a random dA:" in out


def test_custom_template(tmp_path):
    out = run_example("custom_template", tmp_path)
    assert "softplus(x_at_w)" in out                    # the call stays one call
    assert "(1.0 + np.tanh(0.5 * x_at_w))" in out       # the rule's body, inlined
    assert "naive loss = inf" in out and "naive grad = [nan nan]" in out
    assert "grad = [ 0.16666667 -0.33333333]" in out
    assert "forward mode agrees with reverse" in out


def test_scipy_minimize(tmp_path):
    try:
        import scipy  # noqa: F401
    except ImportError:   # the example must then say what to install, and exit with status 1
        env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
        result = subprocess.run([sys.executable, str(EXAMPLES / "scipy_minimize.py")], env=env,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1 and "needs SciPy" in result.stdout
        return
    out = run_example("scipy_minimize", tmp_path)
    evaluations = {label: int(n) for label, n in
                   re.findall(r"(finite differences|jac=srcad.grad)\s*:\s*(\d+) evaluations", out)}
    assert set(evaluations) == {"finite differences", "jac=srcad.grad"}, out
    assert evaluations["jac=srcad.grad"] * 5 < evaluations["finite differences"]
    saved = int(re.search(r"with srcad's gradient: (\d+) fewer function evaluations", out).group(1))
    assert saved == evaluations["finite differences"] - evaluations["jac=srcad.grad"]


def test_optimizers(tmp_path):
    out = run_example("optimizers", tmp_path)
    names = ["sgd", "momentum", "nesterov", "rmsprop", "adagrad", "adadelta", "adam", "adamax", "rprop"]
    losses = dict(re.findall(r"^  (\w+)\s+final loss (\d\.\d+)", out, re.M))
    values = dict(re.findall(r"^  (\w+)\s+final value\s+(\S+) at", out, re.M))
    assert sorted(losses) == sorted(names) and sorted(values) == sorted(names), out
    assert all(float(v) < 0.6931 for v in losses.values())      # every optimiser lowered the loss
    assert all(float(v) < 12.5 for v in values.values())
    assert float(values["adam"]) < 1e-6


def test_newton(tmp_path):
    out = run_example("newton", tmp_path)
    mismatch = float(re.search(r"max \|H - analytic H\| at the start: (\S+)", out).group(1))
    assert mismatch < 1e-8, out
    distance = float(re.search(r"distance to \(1, \.\.\., 1\): (\S+)", out).group(1))
    assert distance < 1e-8, out


def load_example(name: str):
    """Import ``examples/<name>.py`` as a module (its ``__main__`` block does not run)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """srcad's disk cache in a temporary directory, for examples run in this process."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SRCAD_CACHE", raising=False)


def has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def test_mlp_digits(tmp_path, private_cache, capsys):
    accuracy = load_example("mlp_digits").train_and_evaluate(tmp_path)
    out = capsys.readouterr().out
    assert accuracy > 0.95, out
    assert f"test accuracy: {accuracy:.4f}" in out
    losses = [float(v) for v in re.findall(r"^step +\d+: loss (\S+),", out, re.M)]
    assert len(losses) == 7 and losses[-1] < 0.05 * losses[0], out
    if has_module("matplotlib"):
        png = tmp_path / "mlp_digits_loss.png"
        assert f"loss curve saved to {png}" in out
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "matplotlib is not installed" in out


def test_expression_swell(tmp_path, private_cache, capsys):
    rows = load_example("expression_swell").main(max_n=7, out_dir=tmp_path, expand_up_to=4)
    out = capsys.readouterr().out
    assert [row["n"] for row in rows] == list(range(1, 8))
    for mode in ("rev lines", "fwd lines"):   # srcad: a fixed number of lines per logistic step
        steps = {b[mode] - a[mode] for a, b in zip(rows, rows[1:])}
        assert len(steps) == 1 and steps.pop() > 0, (mode, rows)
    assert len({row["loop lines"] for row in rows}) == 1           # the loop's derivative does not grow
    assert re.search(r"srcad reverse mode: \d+ more lines per logistic step", out)
    assert rows[0]["sympy ops"] == 2 and rows[2]["sympy ops"] == 82                  # SymPy is in the test extra
    assert all(b["sympy ops"] > 2 * a["sympy ops"] for a, b in zip(rows[1:], rows[2:]))   # exponential swell
    assert rows[-1]["sympy ops"] > 50 * rows[-1]["rev ops"]
    assert rows[3]["expanded ops"] == 44 and rows[4]["expanded ops"] is None
    if has_module("matplotlib"):
        assert (tmp_path / "expression_swell.png").read_bytes()[:4] == b"\x89PNG"
    else:
        assert "matplotlib is not installed" in out


def test_gradient_hooks(tmp_path, private_cache, capsys):
    """The clipped RNN gradient: each step's hidden-state adjoint has norm at most LIMIT."""
    example = load_example("gradient_hooks")
    gradient = example.main()
    out = capsys.readouterr().out
    assert "# with srcad.insert_grad_of(h) as dh:" in out
    rng = np.random.default_rng(0)
    Wh, xs = 1.5 * rng.standard_normal((4, 4)), rng.standard_normal((6, 4))
    # without the hook the gradient is the plain one, which is larger
    plain = srcad.grad(_unclipped)(Wh, xs)
    assert np.linalg.norm(gradient) < np.linalg.norm(plain)
    assert example.loss(Wh, xs) == pytest.approx(_unclipped(Wh, xs))


def _unclipped(Wh, xs):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + xs[t])
    return np.sum(h * h)


def test_transformations(tmp_path, private_cache, capsys):
    """Every transformation in the example agrees with finite differences or a closed form."""
    example = load_example("transformations")
    results = example.main()
    assert "def dbumpy(z, dout=1.0):" in capsys.readouterr().out
    rng = np.random.default_rng(0)
    params = {"W": rng.standard_normal((3, 4)) / 2, "b": np.zeros(4), "v": rng.standard_normal(4)}
    h = 1e-6
    for key, gradient in results["grads"].items():
        direction = np.random.default_rng(1).standard_normal(params[key].shape)
        moved = [dict(params, **{key: params[key] + s * h * direction}) for s in (1, -1)]
        fd = (example.loss(moved[0], example.X, example.Y) - example.loss(moved[1], example.X, example.Y)) / (2 * h)
        assert np.sum(gradient * direction) == pytest.approx(fd, rel=1e-6, abs=1e-8)
    z = np.array([0.3, -1.2, 2.0])
    exact = np.diag(np.cos(z) * z ** 2 + 2 * z * np.sin(z))
    for mode in ("forward", "reverse", "auto"):
        np.testing.assert_allclose(results[f"jacobian_{mode}"], exact, atol=1e-12)
    second = -np.sin(z) * z ** 2 + 4 * z * np.cos(z) + 2 * np.sin(z)
    np.testing.assert_allclose(results["hessian"], np.diag(second), atol=1e-12)
    np.testing.assert_allclose(results["hvp"], [second[0], 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(results["custom"], np.round(z) / (1 + np.abs(z)) ** 2)
    scale = np.sum(params["v"] ** 2)
    np.testing.assert_allclose(results["damped"]["v"], results["grads"]["v"] / (1.0 + scale))
    d_params, d_x = results["vjp"]
    assert set(d_params) == {"W", "b", "v"} and d_x.shape == (2, 3)


@pytest.mark.skipif(not has_module("scipy"), reason="examples/ode_fit.py needs SciPy, which is not installed")
def test_ode_fit(tmp_path, private_cache, capsys):
    """The Lotka-Volterra fit through odeint recovers every rate to within 5%, with srcad's gradient as jac."""
    example = load_example("ode_fit")
    fitted = example.main(out_dir=tmp_path)
    out = capsys.readouterr().out
    assert np.all(np.abs(fitted[:4] / example.TRUE_RATES - 1.0) < 0.05), out
    assert "jac=srcad.grad(loss)" in out and "every rate recovered" in out
    srcad_slope, fd_slope = map(float, re.search(r"srcad (\S+), finite differences (\S+)", out).groups())
    assert srcad_slope == pytest.approx(fd_slope, rel=1e-4)
    if has_module("matplotlib"):
        assert (tmp_path / "ode_fit.png").read_bytes()[:4] == b"\x89PNG"
    else:
        assert "matplotlib is not installed" in out
