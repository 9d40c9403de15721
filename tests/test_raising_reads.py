"""An element read whose value the derivative does not need still runs where it may raise, as in f.

Forward mode does not compute f's value, so the terms of the returned value
without a derivative were dropped: ``np.sum(rest[0])`` of what a starred
target gathered (an empty list) raised ``IndexError`` in f while the
forward-mode derivative returned a number (fuzz seed 2105253).  Element reads
the user wrote (``raising_reads``) of a container without a derivative, or
whose value has none, are kept as statements of their own where the
statement holding them is dropped.  Reads srcad writes itself (a loop over a
list's items, a starred target's items after its check) are always in range
and are not kept.  Each function is checked raising, in both modes, and where
it does not raise against finite differences.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes


def starred_rest(x, rows):
    first, *rest, last = np.ones((rows, 3))   # rest is empty for two rows
    return np.sum(x ** 2) + np.sum(rest[0]) + np.sum(first * last)


def constant_list(x, k):
    c = [1.0, 2.0]
    return np.sum(np.sin(x)) + c[k]


def missing_key(x, key):
    table = {"a": 1.5, "b": -0.5}
    return np.sum(x * x) * 2.0 + table[key]


def data_array(x, w, k):
    return np.sum(np.tanh(x)) + w[k] * 3.0


def data_matrix(x, w, k):
    return np.sum(np.tanh(x) ** 2) + w[0, k]


def through_a_name(x, k):
    c = (0.5, 1.5)
    t = c[k]
    s = t * 2.0
    return np.sum(x ** 3) + s


def active_but_compared(x, k):
    return np.sum(x ** 2) + float(x[k] > 0.0)


X = np.array([0.3, -0.7, 1.1])
W = np.array([[0.5, 2.0], [1.0, -1.0]])
CASES = [   # f, arguments that raise, arguments that do not, error
    (starred_rest, (X, 2), (X, 3), IndexError),
    (constant_list, (X, 5), (X, 1), IndexError),
    (missing_key, (X, "c"), (X, "b"), KeyError),
    (data_array, (X, W[0], 2), (X, W[0], 1), IndexError),
    (data_matrix, (X, W, 2), (X, W, 1), IndexError),
    (through_a_name, (X, 2), (X, -1), IndexError),
    (active_but_compared, (X, 3), (X, 1), IndexError),
]


@pytest.mark.parametrize("f, raising, fine, error", CASES, ids=[case[0].__name__ for case in CASES])
def test_an_element_read_that_raises_in_f_raises_in_both_modes(f, raising, fine, error):
    with pytest.raises(error):
        f(*raising)
    with pytest.raises(error):
        srcad.grad(f)(*raising)
    with pytest.raises(error):
        srcad.jvp(f, raising, (np.ones_like(X),) + (None,) * (len(raising) - 1))
    with pytest.raises(error):
        srcad.autodiff(f, mode="forward")(*raising, np.ones_like(X))
    check_both_modes(f, fine, wrt=0)


def test_reads_srcad_writes_are_not_kept():
    """A starred target's items after its check, a loop's items: in range, never written out again."""
    source = srcad.source(starred_rest, mode="forward")
    assert "rest[0]" in source.split("# return")[-1]        # the user's read, kept
    kept = [line.strip() for line in source.splitlines() if line.strip().endswith("]") and "=" not in line
            and not line.strip().startswith("#")]
    assert kept == ["rest[0]"], kept
