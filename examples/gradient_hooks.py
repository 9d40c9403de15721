"""Gradient hooks: clip an RNN's hidden-state adjoint at every step of the backward pass.

``with srcad.insert_grad_of(h) as dh:`` marks a place in the function; the
generated reverse-mode derivative runs the block there, on the adjoint of
``h``.  Called directly, the function skips the block.  Run it:

    python examples/gradient_hooks.py
"""
import numpy as np

import srcad

LIMIT = 0.5


def loss(Wh, xs):
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + xs[t])
        with srcad.insert_grad_of(h) as dh:
            norm = np.sqrt(np.sum(dh * dh))
            dh = dh * min(1.0, LIMIT / (norm + 1e-12))   # clip the adjoint's norm to LIMIT
    return np.sum(h * h)


def main():
    rng = np.random.default_rng(0)
    Wh, xs = 1.5 * rng.standard_normal((4, 4)), rng.standard_normal((6, 4))
    print("loss:", loss(Wh, xs))
    print("clipped gradient norm:", np.linalg.norm(srcad.grad(loss)(Wh, xs)))
    print("\nthe generated backward pass, with the block where h's adjoint is complete:\n")
    text = srcad.source(loss)
    print(text[text.index("    for t in reversed"):])
    return srcad.grad(loss)(Wh, xs)


if __name__ == "__main__":
    main()
