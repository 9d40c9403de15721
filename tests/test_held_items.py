"""A container that holds an item of another container (or an expression of one), then a change in place.

``h = [x, ...]; h2 = [h[0]]; x *= 2.0``: in Python ``h2[0]`` is ``x`` and sees
the change; srcad did not follow the chain from ``x`` through ``h[0]`` into
``h2`` and differentiated the old value (half the right gradient).  A
container literal, or an ``append``, holding an expression that may be (a
view of) an array other names hold is now linked to them, so the change is
refused with the line that made them share; without a change in place the
same code is differentiated.
"""
import inspect

import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes, make_function

X = np.array([0.5, 1.5, 0.7])


def literal_of_an_item(x, change=True):
    x = x * 1.0
    h = [x, x * 2.0]
    h2 = [h[0]]
    if change:
        x *= 2.0
    return np.sum(h2[0] * 3.0)


def appended_items(x, change=True):
    x = x * 1.0
    h = [x, x * 2.0]
    h2 = []
    for k in range(2):
        h2.append(h[k])
    if change:
        x *= 2.0
    return np.sum(h2[0] * h2[1])


def comprehension_of_choices(x, change=True):
    x = x * 1.0
    h = [x, x * 2.0]
    h2 = [v if np.sum(v) > 0 else -v for v in h]
    if change:
        x *= 2.0
    return np.sum(h2[0] * 3.0)


CASES = [literal_of_an_item, appended_items, comprehension_of_choices]


def _without_the_change(f):
    """``f`` written again without its `if change: x *= 2.0` lines (srcad cannot know `change` is False)."""
    lines = inspect.getsource(f).splitlines()
    kept = [line for line in lines if ("change" not in line or line.startswith("def ")) and "x *= 2.0" not in line]
    kept[0] = kept[0].replace(", change=True", "")
    return make_function("\n".join(kept) + "\n", {"np": np})


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_a_change_reaching_a_held_item_is_refused(f):
    for derivative in (srcad.grad(f), srcad.autodiff(f, mode="forward")):
        with pytest.raises(srcad.AliasingError, match="x \\*= 2.0") as refused:
            derivative(X, True, *([] if derivative.mode == "reverse" else [np.ones(3)]))
        assert "test_held_items.py" in str(refused.value)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_without_the_change_the_same_code_is_differentiated(f):
    check_both_modes(_without_the_change(f), (X,))
