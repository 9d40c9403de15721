"""A tuple passed to several functions srcad calls through their derivatives gets their gradients added leaf by leaf.

Contract: each function below passes a tuple (built in f, or f's argument) to
two helpers of another module that srcad calls through their own derivatives;
the gradients those return are tuples, which ``+`` would concatenate.  Both
modes match central finite differences, and the gradient of a tuple argument
is a tuple of the right values.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_reverse
from structured_helpers import first, second


def built_tuple(x):
    t = (x, x * x)
    return first(t, 2.0) + second(t, 3.0)


def literal_tuples(x):
    return first((x, x), 2.0) * second((x, x), 3.0)


def tuple_argument(t):
    return first(t, 2.0) + second(t, 3.0)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args", [(built_tuple, (1.5,)), (built_tuple, (np.array([1.5, -0.5]),)),
                                           (literal_tuples, (1.5,)), (literal_tuples, (np.array([0.3, 0.7]),))],
                         ids=["built-scalar", "built-array", "literal-scalar", "literal-array"])
def test_gradients_of_a_shared_tuple_add_up(function, args, mode):
    (check_reverse if mode == "reverse" else check_forward)(function, args)


def test_a_tuple_argument_gets_a_tuple_gradient():
    gradient = srcad.grad(tuple_argument)((1.5, 2.0))
    assert isinstance(gradient, tuple) and gradient == (4.0, 6.0)
