"""The optimisers of ``srcad.optim`` side by side on two small problems.

1. Logistic regression on 200 synthetic points whose two features have
   scales 1 and 8 (so a single learning rate suits neither), with parameters
   ``{"w": array of 2, "b": float}`` (a pytree: the optimisers update the
   dict as a whole);
2. the 2-D Rosenbrock function from (-1.5, 2), a narrow curved valley.

Gradients come from ``srcad.grad``.  On each problem every optimiser runs
the same number of updates from the same start (100 for the regression, 2000
for Rosenbrock), and the script prints each final loss, best first.  Run it with ``python examples/optimizers.py``.
"""
import numpy as np

import srcad
from srcad import optim


def logistic_loss(w, b, X, y):
    """Mean logistic loss of labels y in {-1, +1}, plus a small L2 penalty on w."""
    margin = y * (X @ w + b)
    return np.mean(np.log(1.0 + np.exp(-margin))) + 0.01 * np.sum(w * w)


def rosenbrock(p):
    return (1.0 - p[0]) ** 2 + 100.0 * (p[1] - p[0] ** 2) ** 2


OPTIMISERS = {
    "sgd": (optim.sgd(lr=0.5), optim.sgd(lr=1e-3)),
    "momentum": (optim.momentum(lr=0.1, mu=0.9), optim.momentum(lr=2e-4, mu=0.9)),
    "nesterov": (optim.nesterov(lr=0.1, mu=0.9), optim.nesterov(lr=2e-4, mu=0.9)),
    "rmsprop": (optim.rmsprop(lr=0.01), optim.rmsprop(lr=0.01)),
    "adagrad": (optim.adagrad(lr=0.5), optim.adagrad(lr=0.5)),
    "adadelta": (optim.adadelta(lr=1.0), optim.adadelta(lr=1.0)),
    "adam": (optim.adam(lr=0.05), optim.adam(lr=0.05)),
    "adamax": (optim.adamax(lr=0.05), optim.adamax(lr=0.05)),
    "rprop": (optim.rprop(lr=0.01), optim.rprop(lr=0.01)),
}


def make_data(rng):
    """Two overlapping Gaussian clouds, labelled -1 and +1."""
    y = rng.choice([-1.0, 1.0], 200)
    X = rng.standard_normal((200, 2)) + np.outer(y, [1.0, -0.5])
    return X * np.array([1.0, 8.0]), y


def train_logistic(opt, X, y, steps):
    gradient = srcad.grad(logistic_loss, wrt=("w", "b"))
    params = {"w": np.zeros(2), "b": 0.0}
    state = opt.init(params)
    for _ in range(steps):
        dw, db = gradient(params["w"], params["b"], X, y)
        params, state = opt.update(params, {"w": dw, "b": db}, state)
    return logistic_loss(params["w"], params["b"], X, y), params


def train_rosenbrock(opt, steps):
    gradient = srcad.grad(rosenbrock)
    p = np.array([-1.5, 2.0])
    state = opt.init(p)
    for _ in range(steps):
        p, state = opt.update(p, gradient(p), state)
    return rosenbrock(p), p


def main() -> None:
    X, y = make_data(np.random.default_rng(0))
    steps, valley_steps = 100, 2000
    results = []
    for name, (for_logistic, for_rosenbrock) in OPTIMISERS.items():
        logistic, params = train_logistic(for_logistic, X, y, steps)
        valley, point = train_rosenbrock(for_rosenbrock, valley_steps)
        accuracy = np.mean(np.sign(X @ params["w"] + params["b"]) == y)
        results.append((name, for_logistic, logistic, accuracy, for_rosenbrock, valley, point))

    print(f"Logistic regression, 200 points, {steps} updates (initial loss {np.log(2.0):.4f}):")
    for name, opt, loss, accuracy, *_ in sorted(results, key=lambda r: r[2]):
        print(f"  {name:9s} final loss {loss:.6f}   accuracy {accuracy:.1%}   {opt!r}")
    print(f"\nRosenbrock from (-1.5, 2), minimum 0 at (1, 1), {valley_steps} updates (initial value "
          f"{rosenbrock(np.array([-1.5, 2.0])):.2f}):")
    for name, _, _, _, opt, value, point in sorted(results, key=lambda r: r[5]):
        print(f"  {name:9s} final value {value:9.2e} at ({point[0]:+.4f}, {point[1]:+.4f})   {opt!r}")


if __name__ == "__main__":
    main()
