"""A two-layer neural network on scikit-learn's handwritten digits, trained with srcad.

The model is ``softmax(tanh(X @ W1 + b1) @ W2 + b2)`` with 64 hidden units;
the loss is the mean softmax cross-entropy, written in plain NumPy (a
max-shifted log-sum-exp).  ``srcad.grad`` gives the gradient with respect to
all four parameters in one reverse sweep, and ``srcad.optim.adam`` updates
them as one dict.  The 1797 8x8 digit images ship with scikit-learn (no
download); a fixed-seed split keeps 25% of them for testing.

``train_and_evaluate()`` trains, prints the loss and accuracies as it goes,
and returns the final test accuracy (above 95%, about 97%).  When matplotlib
is installed the loss curve is saved as a PNG and its path printed;
otherwise the script says so.  The whole run takes a few seconds.

Run: python examples/mlp_digits.py [--out DIRECTORY] [--steps N]
(needs scikit-learn: ``pip install scikit-learn matplotlib``)
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path
from typing import ContextManager, Dict, List, Optional

import numpy as np

import srcad
from srcad import optim

HIDDEN_UNITS = 64
PARAMETER_NAMES = ("W1", "b1", "W2", "b2")


def cross_entropy(W1, b1, W2, b2, X, Y):
    """Mean softmax cross-entropy of the network on inputs ``X`` and one-hot labels ``Y``."""
    hidden = np.tanh(X @ W1 + b1)
    logits = hidden @ W2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probabilities = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probabilities, axis=1))


def predict(params: Dict[str, np.ndarray], X: np.ndarray) -> np.ndarray:
    """The most likely class of each row of ``X``."""
    hidden = np.tanh(X @ params["W1"] + params["b1"])
    return np.argmax(hidden @ params["W2"] + params["b2"], axis=1)


def accuracy(params: Dict[str, np.ndarray], X: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of rows of ``X`` whose predicted class is the label."""
    return float(np.mean(predict(params, X) == labels))


def load_split(seed: int = 0):
    """Digits scaled to [0, 1], split 75/25 with a fixed seed: X_train, X_test, y_train, y_test."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    return train_test_split(digits.data / 16.0, digits.target, test_size=0.25,
                            random_state=seed, stratify=digits.target)


def init_params(n_inputs: int, n_classes: int, rng: np.random.Generator) -> Dict[str, np.ndarray]:
    """Small random weights (scaled by 1/sqrt(fan-in)) and zero biases."""
    return {
        "W1": rng.standard_normal((n_inputs, HIDDEN_UNITS)) / np.sqrt(n_inputs),
        "b1": np.zeros(HIDDEN_UNITS),
        "W2": rng.standard_normal((HIDDEN_UNITS, n_classes)) / np.sqrt(HIDDEN_UNITS),
        "b2": np.zeros(n_classes),
    }


def single_blas_thread() -> ContextManager:
    """Limit BLAS to one thread: these matrices are small, and threads competing for busy cores slow it down."""
    try:
        from threadpoolctl import threadpool_limits   # installed with scikit-learn
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def save_loss_curve(losses: List[float], out_dir: Path) -> Optional[Path]:
    """Plot the training loss per step into ``out_dir/mlp_digits_loss.png``; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(np.arange(1, len(losses) + 1), losses)
    axes.set_xlabel("Adam step (full batch)")
    axes.set_ylabel("training cross-entropy")
    axes.set_yscale("log")
    axes.set_title("2-layer MLP on sklearn digits, gradients by srcad")
    figure.tight_layout()
    path = Path(out_dir) / "mlp_digits_loss.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def train_and_evaluate(out_dir: Path = Path("."), steps: int = 300, seed: int = 0) -> float:
    """Train the network with full-batch Adam for ``steps`` steps and return its test accuracy.

    Example (prints progress, writes /tmp/mlp_digits_loss.png)::

        test_accuracy = train_and_evaluate(Path("/tmp"), steps=300)   # 0.9756
    """
    X_train, X_test, y_train, y_test = load_split(seed)
    n_classes = int(y_train.max()) + 1
    Y_train = np.eye(n_classes)[y_train]
    params = init_params(X_train.shape[1], n_classes, np.random.default_rng(seed))
    print(f"digits: {len(X_train)} training and {len(X_test)} test images of {X_train.shape[1]} pixels, "
          f"{HIDDEN_UNITS} hidden units")

    loss_and_gradient = srcad.value_and_grad(cross_entropy, wrt=PARAMETER_NAMES)
    opt = optim.adam(lr=0.01)
    state = opt.init(params)
    losses = []
    start = time.perf_counter()
    with single_blas_thread():
        for step in range(1, steps + 1):
            loss, gradients = loss_and_gradient(*(params[name] for name in PARAMETER_NAMES), X_train, Y_train)
            params, state = opt.update(params, dict(zip(PARAMETER_NAMES, gradients)), state)
            losses.append(float(loss))
            if step == 1 or step % 50 == 0:
                print(f"step {step:4d}: loss {loss:.4f}, train accuracy {accuracy(params, X_train, y_train):.3f}")
    elapsed = time.perf_counter() - start

    test_accuracy = accuracy(params, X_test, y_test)
    print(f"trained in {elapsed:.2f} s ({steps} steps)")
    print(f"test accuracy: {test_accuracy:.4f}")
    path = save_loss_curve(losses, out_dir)
    if path is None:
        print("matplotlib is not installed: no loss curve saved (pip install matplotlib)")
    else:
        print(f"loss curve saved to {path}")
    return test_accuracy


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="directory for the loss-curve PNG")
    parser.add_argument("--steps", type=int, default=300, help="number of Adam steps")
    args = parser.parse_args(argv)
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("this example needs scikit-learn for its dataset: pip install scikit-learn")
        return 1
    train_and_evaluate(args.out, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
