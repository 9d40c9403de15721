"""Small functions whose derivatives show each optimisation pass at work (see test_passes.py)."""
import numpy as np


def cube_scale(x):
    return x * x * 3.0


def tanh_loss(w, x):
    y = np.tanh(w * x)
    return np.sum(y ** 2)


def dead(x, y):
    unused = np.exp(y)
    return np.sum(np.sin(x))


def logistic(x, r):
    for _ in range(10):
        x = r * x * (1.0 - x)
    return x


def two_uses(x):
    y = np.sin(x)
    return np.sum(y * x) + np.sum(y)


def sin_plus_cos(x):
    return np.sum(np.sin(x) + np.cos(x))
