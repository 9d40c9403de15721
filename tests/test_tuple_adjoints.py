"""A tuple's adjoint that gets an entry through a subscript and a list from a rule adds them entry by entry.

Contract: when a tuple (or list) is read both through ``t[i]`` and whole by a
rule that gives it a list adjoint (``np.concatenate(t)``), the two
contributions add element by element; ``+`` on the lists would concatenate
them and lose the second one.
"""
import numpy as np

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

TEXT = """def joined_and_read(x):
    xs = (x, x * 2.0)
    y = np.concatenate(xs)
    return np.sum(y * y) + np.sum(xs[0] ** 3)
"""


def test_a_subscript_and_a_list_adjoint_add_up():
    f = make_function(TEXT, {"np": np})
    args = (np.array([1.0, 2.0]),)
    check_reverse(f, args)
    check_forward(f, args)
    check_forward_reverse(f, args)
