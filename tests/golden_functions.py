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
]
