"""Classes of a module other than the differentiated function's (tests/test_objects.py): srcad calls their
methods through a derivative made per object, instead of inlining them."""
import numpy as np


class Layer:
    """A dense layer whose activation is an attribute (``act``)."""

    def __init__(self, W, b, act=np.tanh):
        self.W, self.b, self.act = W, b, act

    def __call__(self, x):
        return self.act(self.W @ x + self.b)

    def energy(self, x):
        h = self(x)
        return np.sum(h * h)


class Scaled:
    """A method calling another method of ``self``, with a loop and a branch."""

    def __init__(self, scale):
        self.scale = scale

    def step(self, x):
        return np.sin(x) * self.scale

    def run(self, x, steps=3):
        for _ in range(steps):
            x = self.step(x)
            if np.sum(x) < 0:
                x = x * 0.5
        return x
