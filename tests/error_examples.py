"""The functions behind the examples of docs/errors.md (shown there as ``model.py``).

Contract: each function triggers one catalog entry when differentiated as
``tests/test_error_catalog.py`` does; their line numbers appear in the
catalog's example messages, so keep the file's layout.
"""
import numpy as np


def uses_global(x):
    global LIMIT
    y = np.sin(x)
    LIMIT = 2.0
    y = y * LIMIT
    return y


def no_rule(x):
    return np.sum(np.nextafter(x, 2.0))


def scaled(x, n):
    return np.sum(x) * n


def vector(x):
    return np.sin(x)


def inverse_sum(a):
    return np.sum(np.linalg.inv(a))


def ratio(x, k):
    return x / k


def pick(x, i):
    return x[i] * 2.0


def softplus(x):
    return np.log1p(np.exp(x))


def uses_softplus(x):
    return np.sum(softplus(x))


def noisy(x):
    return np.sum(np.random.normal(x, 0.1))


def store_through_view(x):
    A = x * 1.0
    B = A.real
    B[0] = 2.0
    return np.sum(A * x)


def mutating_call(x):
    A = x * 1.0
    np.putmask(A, x > 0.0, 0.0)
    return np.sum(A)


def edited_after_import(x):
    return np.sum(np.sin(x))


class Counter:
    def __init__(self):
        self.W, self.count = np.ones(2), 0

    def loss(self, x):
        self.count += 1
        return np.sum(self.W * x)

    def forward(self, x):
        return np.tanh(self.W * x)

    def outer(self, x):
        return np.sum(self.forward(x))


def unpacks(x, parts):
    return np.sum(np.add(*parts) * x)


def pair(x):
    return np.sum(x ** 2), x
