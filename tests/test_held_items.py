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
from gradcheck import check_both_modes, check_hessian, make_function

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


# An item read from a name that is always a list keeps its value when the list itself changes (an append, an
# item replaced): no view, nothing to carry.  srcad's own reverse sweep reads and appends lists this way, so
# these are also what a second derivative meets (`tape.append(h_prev)` after `h_prev = hs[-1]`).
def recurrent_list(x):
    hs = [x[0]]
    for i in range(1, 3):
        hs.append(np.tanh(hs[-1] * x[i]))
    return hs[-1] ** 2 + np.sum(x) * hs[1]


def item_then_append(x):
    h = [x * 2.0, np.sin(x)]
    first = h[0]
    h.append(first * x)
    h[1] = h[2] * 0.5
    return np.sum(first * h[1]) + np.sum(h[-1])


def item_then_replaced_then_changed(x):
    h = [x * 2.0]
    first = h[0]
    h[0] = np.cos(x)
    first *= 3.0   # changes the old item, which the list no longer holds
    return np.sum(first * h[0])


LIST_CHANGES = [recurrent_list, item_then_append]


@pytest.mark.parametrize("f", LIST_CHANGES, ids=lambda f: f.__name__)
def test_an_item_read_before_its_list_changes_keeps_its_value(f):
    check_both_modes(f, (X,))
    check_hessian(f, X)


def item_then_changed_through_the_list(x):
    h = [x * 2.0]
    first = h[0]
    h[0] += 1.0   # the very array `first` is: it sees the change
    return np.sum(first * x)


@pytest.mark.parametrize("f, line", [(item_then_changed_through_the_list, "h[0] += 1.0"),
                                     (item_then_replaced_then_changed, "first *= 3.0")], ids=["through", "replaced"])
def test_an_item_changed_in_place_is_followed_or_refused(f, line):
    """The array an item read from a list is may change in place: exact, or refused naming the change."""
    try:
        check_both_modes(f, (X,))
    except srcad.AliasingError as refused:
        assert line in str(refused)
