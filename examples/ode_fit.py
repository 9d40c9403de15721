"""Fit a Lotka-Volterra predator-prey model to noisy counts: ``odeint`` inside the loss, srcad's gradient outside.

The model::

    d prey / dt      = alpha prey - beta prey predators
    d predators / dt = delta prey predators - gamma predators

Its four rates and the two initial counts are unknown.  The data are the
counts at 40 times, with 5% noise.  The loss is the squared error of the
logarithms of the counts predicted by ``scipy.integrate.odeint``;
``srcad.grad(loss)`` differentiates through the solver by the adjoint method
(a backward ODE solve, with the right-hand side's derivatives built by srcad
from ``lotka_volterra``'s source), and ``scipy.optimize.minimize`` uses it as
``jac``.  The fit must recover every rate to within 5%.

With matplotlib installed the data and the fitted trajectories are plotted
to ``ode_fit.png`` (in ``--out``, default the current directory).

Run: python examples/ode_fit.py [--out DIRECTORY]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

import srcad

try:
    from scipy.integrate import odeint
    from scipy.optimize import minimize
except ImportError:   # pragma: no cover - the example needs SciPy
    print("this example needs SciPy: pip install scipy")
    sys.exit(1)

TRUE_RATES = np.array([1.0, 0.1, 0.075, 1.5])    # alpha, beta, delta, gamma
TRUE_START = np.array([10.0, 5.0])                # prey, predators at t = 0
TIMES = np.linspace(0.0, 15.0, 40)
TOLERANCE = 1e-8                                  # the solver's rtol and atol


def lotka_volterra(counts, t, rates):
    """The right-hand side: how fast the prey and predator counts change."""
    prey, predators = counts[0], counts[1]
    alpha, beta, delta, gamma = rates[0], rates[1], rates[2], rates[3]
    return np.array([alpha * prey - beta * prey * predators, delta * prey * predators - gamma * predators])


def loss(log_parameters, times, observed):
    """Squared error of the log counts; the parameters are logs, so rates and counts stay positive."""
    parameters = np.exp(log_parameters)
    predicted = odeint(lotka_volterra, parameters[4:], times, args=(parameters[:4],), rtol=TOLERANCE,
                       atol=TOLERANCE)
    return np.sum((np.log(predicted) - np.log(observed)) ** 2)


def simulate(rates, start, times):
    return odeint(lotka_volterra, start, times, args=(rates,), rtol=TOLERANCE, atol=TOLERANCE)


def save_plot(observed, fitted, out_dir: Path) -> Optional[Path]:
    """Plot the data and the fitted trajectories into ``out_dir/ode_fit.png``; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fine = np.linspace(TIMES[0], TIMES[-1], 400)
    curves = simulate(fitted[:4], fitted[4:], fine)
    figure, axes = plt.subplots(figsize=(7, 4))
    for column, (name, colour) in enumerate([("prey", "tab:blue"), ("predators", "tab:red")]):
        axes.plot(TIMES, observed[:, column], "o", color=colour, alpha=0.6, label=f"{name}, observed")
        axes.plot(fine, curves[:, column], "-", color=colour, label=f"{name}, fitted")
    axes.set_xlabel("time")
    axes.set_ylabel("count")
    axes.legend()
    path = out_dir / "ode_fit.png"
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def main(out_dir: Path = Path(".")) -> np.ndarray:
    rng = np.random.default_rng(0)
    observed = simulate(TRUE_RATES, TRUE_START, TIMES) * np.exp(0.05 * rng.standard_normal((len(TIMES), 2)))
    guess = np.concatenate([TRUE_RATES * np.array([1.15, 0.9, 1.1, 0.9]), observed[0]])
    gradient = srcad.grad(loss)

    started = time.perf_counter()
    result = minimize(loss, np.log(guess), args=(TIMES, observed), jac=gradient, method="BFGS")
    fitted = np.exp(result.x)
    seconds = time.perf_counter() - started

    print(f"BFGS with jac=srcad.grad(loss): {result.nit} iterations, {result.nfev} evaluations, {seconds:.1f} s")
    print(f"loss: {loss(np.log(guess), TIMES, observed):.3f} at the guess, {result.fun:.3f} at the fit")
    print(f"{'parameter':<12}{'true':>10}{'guess':>10}{'fitted':>10}")
    names = ["alpha", "beta", "delta", "gamma", "prey(0)", "predators(0)"]
    truth = np.concatenate([TRUE_RATES, TRUE_START])
    for name, true, first, final in zip(names, truth, guess, fitted):
        print(f"{name:<12}{true:>10.4f}{first:>10.4f}{final:>10.4f}")
    errors = np.abs(fitted[:4] / TRUE_RATES - 1.0)
    assert result.success, result.message
    assert np.all(errors < 0.05), f"the rates are off by {errors}"
    print(f"every rate recovered to within {100 * errors.max():.1f}%")

    probe = np.log(guess)
    step = 1e-6
    central = (loss(probe + step * np.eye(6)[0], TIMES, observed)
               - loss(probe - step * np.eye(6)[0], TIMES, observed)) / (2 * step)
    print(f"d loss / d log alpha at the guess: srcad {gradient(probe, TIMES, observed)[0]:.6f}, "
          f"finite differences {central:.6f}")

    path = save_plot(observed, fitted, out_dir)
    print("matplotlib is not installed: no plot saved" if path is None else f"plot saved to {path}")
    return fitted


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="directory for the PNG plot")
    main(parser.parse_args().out)
