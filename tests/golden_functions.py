"""Functions whose generated derivatives are pinned by the golden tests.

Contract: ``GOLDEN_CASES`` lists ``(name, function, wrt, mode)``; the expected
source of each is ``tests/golden/<name>.py``.  The functions live in this
dedicated module so the file name in each derivative's header stays stable.
Moving a function changes its line number in the header: run
``python tests/regen_golden.py`` afterwards and review the diff.
"""
import math

import numpy as np


def cube_scale(x):
    return x * x * 3.0


def tanh_loss(w, x, y):
    prediction = np.tanh(w * x)
    return np.sum((prediction - y) ** 2)


def broadcast_product(x, y):
    return np.sum(x * y, axis=0)


def unpack_reassign(x):
    a, b = x[0], x[1:]
    a, b = b, a
    x = a * b
    x = np.exp(x) + x
    return np.sum(x)


def subscript_read(x, i):
    return x[i] * 2.0 + x[1:, 0]


def math_scalars(x, y):
    return math.sin(x) * math.exp(y) + math.sqrt(x)


def dense_layer(x, w, b):
    return np.mean(np.tanh(x @ w + b))


def logistic_map(l, n):
    for i in range(n):
        l = 4.0 * l * (1.0 - l)
    return l


def piecewise(x):
    if np.sum(x) > 0.0:
        y = np.sin(x) * x
    else:
        y = x * x
    return np.sum(y)


def smooth_rows(B):
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    for i in range(B.shape[0] - 2):
        for j in range(B.shape[1]):
            A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
    return A


def halve_until_small(x):
    while np.sum(x * x) > 1.0:
        x = x * 0.5
    return np.sum(np.tanh(x))


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def gated(x, w):
    g = sigmoid(w * x)   # a helper of this module: inlined
    return np.sum(g * x)


GOLDEN_CASES = [
    ("cube_scale", cube_scale, 0, "reverse"),
    ("tanh_loss", tanh_loss, 0, "reverse"),
    ("broadcast_product", broadcast_product, (0, 1), "reverse"),
    ("unpack_reassign", unpack_reassign, 0, "reverse"),
    ("subscript_read", subscript_read, "x", "reverse"),
    ("math_scalars", math_scalars, ("x", "y"), "reverse"),
    ("dense_layer", dense_layer, (1, 2), "reverse"),
    ("cube_scale_forward", cube_scale, 0, "forward"),
    ("tanh_loss_forward", tanh_loss, 0, "forward"),
    ("math_scalars_forward", math_scalars, ("x", "y"), "forward"),
    ("dense_layer_forward", dense_layer, (1, 2), "forward"),
    ("logistic_map", logistic_map, "l", "reverse"),
    ("logistic_map_forward", logistic_map, "l", "forward"),
    ("piecewise", piecewise, 0, "reverse"),
    ("piecewise_forward", piecewise, 0, "forward"),
    ("smooth_rows", smooth_rows, 0, "reverse"),
    ("smooth_rows_forward", smooth_rows, 0, "forward"),
    ("halve_until_small", halve_until_small, 0, "reverse"),
    ("gated_with_helper", gated, (0, 1), "reverse"),
    ("gated_with_helper_forward", gated, (0, 1), "forward"),
]
