"""Functions whose derivatives tests/test_pickle.py and tests/test_concurrency.py send to other processes.

They live in a module of their own so that a worker process (multiprocessing,
concurrent.futures, a Dask worker) can import them by name: pickle sends a
function as ``module.qualname``.  Workers find this module through
``sys.path`` or ``PYTHONPATH`` holding the ``tests/`` directory.
"""
import dataclasses

import numpy as np

import srcad


def loss(x):
    return np.sum(np.tanh(x) ** 2 + 0.5 * x)


def weighted(x, y, scale=2.0):
    return np.sum(np.sin(x) * y) * scale


def vector(x):
    return np.sin(x) * x + np.cos(x[::-1])


def cubic(x):
    return x ** 3 * np.sin(x)


def with_aux(x):
    value = np.sum(x * x)
    return value, np.max(x)


def total(*xs):
    return np.sum(xs[0] * xs[1]) + np.sum(xs[-1] ** 3)


class Model:
    """A model whose weights are differentiated as ``wrt='self.W'``."""

    def __init__(self, W, b):
        self.W, self.b = W, b

    def loss(self, x):
        return np.sum(np.tanh(self.W @ x + self.b) ** 2)


@dataclasses.dataclass
class Params:
    W: np.ndarray
    b: np.ndarray


def params_loss(params, x):
    return np.sum((params.W @ x + params.b) ** 2)


square = lambda x: np.sum(x * x)   # noqa: E731  (a lambda: plain pickle cannot send it by name)


def make_local(power):
    """A function defined inside another: plain pickle cannot send it by name."""
    def local(x):
        return np.sum(np.abs(x) ** power)
    return local


def gradient_of_loss(x):
    """What a worker computes: its first gradient of ``loss``, built in that process."""
    return srcad.grad(loss)(x)


def call(function, *args):
    """``function(*args)``: lets a pool send a derivative as the function to call."""
    return function(*args)
