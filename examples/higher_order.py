"""Derivatives of derivatives: srcad differentiates the code it generated.

1. The 4th derivative of a scalar composite g(s) = sum(tanh(s W) @ v) by
   nesting ``srcad.grad`` four times, against its closed form
   sum((W^4 tanh''''(s W)) @ v).
2. The Hessian of a small tanh network's softmax cross-entropy, column by
   column with ``srcad.hvp`` (forward mode over srcad's reverse-mode
   gradient), against finite differences of the gradient.

Run: python examples/higher_order.py
"""
import numpy as np

import srcad

rng = np.random.default_rng(0)
W = rng.standard_normal((3, 4))
v = rng.standard_normal(4)
X = rng.standard_normal((8, 3))
LABELS = np.eye(2)[rng.integers(0, 2, 8)]   # one-hot classes


def g(s):
    return np.sum(np.tanh(s * W) @ v)


def loss(theta):
    """Mean softmax cross-entropy of a 3-4-2 tanh network whose weights are packed in theta."""
    W1 = np.reshape(theta[:12], (3, 4))
    W2 = np.reshape(theta[12:], (4, 2))
    logits = np.tanh(X @ W1) @ W2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probabilities = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(LABELS * log_probabilities, axis=1))


def main() -> None:
    fourth = srcad.grad(srcad.grad(srcad.grad(srcad.grad(g))))
    s = 0.7
    t = np.tanh(s * W)
    exact = np.sum((W ** 4 * (1.0 - t * t) * t * (16.0 - 24.0 * t * t)) @ v)
    print(f"4th derivative of g at {s}: {fourth(s):.12f} (closed form {exact:.12f})")

    theta = 0.5 * rng.standard_normal(20)
    hessian = np.stack([srcad.hvp(loss, theta, e) for e in np.eye(theta.size)], axis=1)
    gradient, h = srcad.grad(loss), 1e-5
    by_differences = np.stack([(gradient(theta + h * e) - gradient(theta - h * e)) / (2 * h)
                               for e in np.eye(theta.size)], axis=1)
    error = np.max(np.abs(hessian - by_differences))
    print(f"Hessian of the network's loss ({hessian.shape[0]}x{hessian.shape[1]}) from {theta.size} hvp calls; "
          f"max |H - H_fd| = {error:.1e}, so it agrees with finite differences: {error < 1e-6}")
    print("eigenvalues of the Hessian:", np.round(np.linalg.eigvalsh(hessian)[[0, -1]], 4), "(smallest, largest)")


if __name__ == "__main__":
    main()
