"""The functions behind the examples of docs/errors.md (shown there as ``model.py``).

Contract: each function triggers one catalog entry when differentiated as
``tests/test_error_catalog.py`` does; their line numbers appear in the
catalog's example messages, so keep the file's layout.
"""
import numpy as np


def uses_try(x):
    try:
        y = np.sin(x)
    except ValueError:
        y = x
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


def edited_after_import(x):
    return np.sum(np.sin(x))
