"""Second derivatives through lists and dicts of a parameter's elements.

The gradient of such a function adds into the adjoint of a list with
``add_at``; its tangent rule once read ``d[target] + add_at(...)``, which for
a list joins the two lists instead of adding them, so Hessians came back
wrong without a word (zero, or another element's value).  The rule now adds
with ``add_structures``, leaf by leaf.  Each case: ``srcad.hessian`` against
central differences of ``srcad.grad``, and symmetric.
"""
import numpy as np
import pytest

from gradcheck import check_hessian


def literal_list(x):
    parts = [x[1], x[2]]
    return sum(p * p for p in parts) + x[0] * parts[1]


def appended_list(x):
    parts = []
    for i in range(1, 3):
        parts.append(np.sin(x[i]))
    total = 0.0
    for p in parts:
        total = total + p * p * x[0]
    return total


def dict_of_elements(x):
    named = {"a": x[0] * x[1], "b": np.exp(x[2])}
    return named["a"] * named["b"] + named["b"] ** 2


def nested_lists(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    return rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0] + rows[1][0] ** 3


def list_of_vectors(X):
    rows = [X[0], X[1] * 2.0]
    return np.sum(rows[0] * rows[1]) + np.sum(np.tanh(rows[1]) ** 2)


CASES = [(literal_list, np.array([0.3, -0.7, 1.1])), (appended_list, np.array([0.4, -0.2, 0.9])),
         (dict_of_elements, np.array([0.5, -0.3, 0.2])), (nested_lists, np.array([0.3, -0.7, 1.1, 0.5])),
         (list_of_vectors, np.array([[0.2, -0.4], [0.7, 0.1]]))]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_hessian_through_containers(f, x):
    check_hessian(f, x, atol=1e-7)
