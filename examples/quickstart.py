"""A first look at srcad: the gradient of a small model's loss, and the code behind it.

Run it with ``python examples/quickstart.py``, or print just the generated
derivative with ``srcad show examples/quickstart.py:loss``.
"""
import numpy as np

import srcad


def loss(W, b, x, y):
    """Squared error of a one-layer tanh model: x is (n, 3), W is (3, 2), b is (2,)."""
    features = np.sin(x)
    h = np.tanh(features @ W + b)   # b broadcasts over the n rows
    err = h - y
    return 0.5 * np.sum(err ** 2)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    W, b = rng.normal(size=(3, 2)), np.zeros(2)
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))

    dW, db = srcad.grad(loss, wrt=("W", "b"))(W, b, x, y)
    print("dloss/dW =\n", dW)
    print("dloss/db =", db)
    print()
    print(srcad.source(loss, wrt=("W", "b")))
