"""The functions whose generated derivatives ``benchmarks/readability.py`` measures.

Contract:
- Every function here is plain Python/NumPy defined at module level (so
  ``inspect`` can read its source), returns a scalar, and is differentiated
  with respect to its first parameter.  ``FUNCTIONS`` lists them with the
  arguments to call them at, in table order; each entry covers one kind of
  code: arithmetic, NumPy calls, reductions, a branch, a loop, a loop with an
  element store, a while loop, a call to a user function, and so on.
- The functions do not modify their arguments.

Example::

    >>> from readability_functions import FUNCTIONS
    >>> name, function, args = FUNCTIONS[0]
    >>> float(function(*args)) > 0
    True
"""
from __future__ import annotations

from typing import Callable, List, Tuple

import numpy as np


def polynomial(x):
    return 3.0 * x ** 3 - 2.0 * x + 1.0


def rational(x):
    return (x + 1.0) / (x * x + 1.0)


def sin_times_cos(x):
    return np.sin(x) * np.cos(x)


def softplus(x):
    return np.log(1.0 + np.exp(x))


def gaussian(x, mu, sigma):
    z = (x - mu) / sigma
    return np.exp(-0.5 * z * z) / (sigma * np.sqrt(2.0 * np.pi))


def sum_of_squares(x):
    return np.sum(x * x)


def euclidean_norm(x):
    return np.sqrt(np.sum(x ** 2))


def tanh_layer(x, w):
    y = np.tanh(x * w)
    return np.sum(y ** 2)


def dot_product(x, w):
    return np.dot(x, w)


def matrix_vector(x, A):
    y = np.dot(A, x)
    return np.sum(y * y)


def mean_squared_error(x, target):
    return np.mean((x - target) ** 2)


def sigmoid_sum(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def row_sums(X):
    s = np.sum(X, axis=1)
    return np.sum(s * s)


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0) * x)


def branch(x):
    if x > 0.0:
        y = x * x
    else:
        y = -x
    return y


def branch_on_array(x):
    s = np.sum(x)
    if s > 0.0:
        s = s * s
    return s


def logistic_loop(x):
    for _ in range(10):
        x = 4.0 * x * (1.0 - x)
    return x


def accumulate_loop(x):
    s = 0.0
    for i in range(4):
        s = s + np.sum(x * i)
    return s


def loop_with_branch(x):
    s = 0.0
    for i in range(5):
        if i % 2 == 0:
            s = s + x * i
        else:
            s = s - x
    return s


def while_loop(x):
    while x < 10.0:
        x = x * 2.0
    return x


def nested_loops(x):
    s = 0.0
    for i in range(3):
        for j in range(2):
            s = s + x * i * j
    return s


def loop_store(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return np.sum(y)


def rnn_loop(h, W):
    for _ in range(3):
        h = np.tanh(np.dot(W, h))
    return np.sum(h)


def squash(x):
    return np.tanh(x) * 2.0


def calls_user_function(x):
    y = squash(x)
    return np.sum(y * x)


def logistic_unrolled(x):
    x = 4.0 * x * (1.0 - x)
    x = 4.0 * x * (1.0 - x)
    x = 4.0 * x * (1.0 - x)
    return x


def _vector(n: int = 4) -> np.ndarray:
    return np.linspace(-0.7, 0.9, n)


FUNCTIONS: List[Tuple[str, Callable, tuple]] = [
    ("polynomial", polynomial, (0.7,)),
    ("rational", rational, (0.7,)),
    ("sin_times_cos", sin_times_cos, (0.7,)),
    ("softplus", softplus, (0.7,)),
    ("gaussian", gaussian, (0.7, 0.2, 1.5)),
    ("sum_of_squares", sum_of_squares, (_vector(),)),
    ("euclidean_norm", euclidean_norm, (_vector(),)),
    ("tanh_layer", tanh_layer, (_vector(), _vector()[::-1].copy())),
    ("dot_product", dot_product, (_vector(), _vector()[::-1].copy())),
    ("matrix_vector", matrix_vector, (_vector(3), np.arange(9.0).reshape(3, 3) / 9.0)),
    ("mean_squared_error", mean_squared_error, (_vector(), np.ones(4))),
    ("sigmoid_sum", sigmoid_sum, (_vector(),)),
    ("row_sums", row_sums, (np.arange(6.0).reshape(2, 3) / 6.0,)),
    ("relu_sum", relu_sum, (_vector(),)),
    ("branch", branch, (0.7,)),
    ("branch_on_array", branch_on_array, (_vector(),)),
    ("logistic_loop", logistic_loop, (0.3,)),
    ("accumulate_loop", accumulate_loop, (_vector(),)),
    ("loop_with_branch", loop_with_branch, (0.7,)),
    ("while_loop", while_loop, (0.7,)),
    ("nested_loops", nested_loops, (0.7,)),
    ("loop_store", loop_store, (_vector(),)),
    ("rnn_loop", rnn_loop, (_vector(3), np.arange(9.0).reshape(3, 3) / 9.0 - 0.4)),
    ("calls_user_function", calls_user_function, (_vector(),)),
    ("logistic_unrolled", logistic_unrolled, (0.3,)),
]
