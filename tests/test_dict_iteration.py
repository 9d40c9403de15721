"""Loops over dicts and over values whose type the build cannot know.

srcad builds one derivative whatever f is called with, and reads what a loop
iterates over by position.  These tests check, in both modes against central
finite differences, that ``d.keys()``, ``d.values()`` and ``d.items()`` (in
loops, comprehensions, under ``enumerate``/``zip``, and consumed whole: ``sum(d.values())``) are differentiated
with respect to the dict and to other arguments, with int and str keys, as is ``for k in d:`` whose
body reads ``d[k]`` (a list there is refused); that
one loop ``for v in xs`` is right for a list, a tuple, an array and a range;
and that a loop over a value it would read wrongly (a dict iterated directly
without reading ``d[k]``, a set, an object with ``__iter__`` only) raises ``UnsupportedValueError``
naming the user's line instead of giving a derivative.  Stores of new keys
(``d["new"] = v``, into a local dict or a dict parameter, in a loop) are
differentiated in both modes and twice; a dict parameter's gradient keeps
the argument's keys only.
"""
import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedValueError
from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse

H = 1e-6


# --------------------------------------------------------------------------
# functions


def d_keys(params):
    s = 0.0
    for k in params.keys():
        s = s + params[k] ** 2
    return s


def d_values(params):
    s = 0.0
    for v in params.values():
        s = s + np.sin(v) * v
    return s


def d_items(params, x):
    s = 0.0
    for name, value in params.items():
        s = s + value * x * len(name)
    return s


def d_items_int_keys(params, x):
    total = 0.0
    for k, v in params.items():
        total = total + (k + 1) * v * x
    return total


def d_comprehension(params, x):
    return sum([np.sum(v * x) for v in params.values()]) + sum(params[k] for k in params.keys() if k != "b")


def d_enumerate_zip(params, w):
    s = 0.0
    for i, (v, c) in enumerate(zip(params.values(), w)):
        s = s + (i + 1.0) * v * c
    return s


def d_array_values(params, x):
    out = np.zeros_like(x)
    for key, value in params.items():
        out = out + value * np.tanh(x)
    return np.sum(out ** 2)


def d_made_in_f(x):
    table = {"a": x[0], "b": x[1] * 2.0}
    s = 0.0
    for key in table:
        s = s + table[key] ** 3
    return s


def d_items_made_in_f(x):
    table = {"a": x[0], "b": np.exp(x[1])}
    s = 0.0
    for key, value in table.items():
        s = s + value * table["a"]
    for value in table.values():
        s = s + value ** 2
    return s


def each_item(xs):
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def each_item_zip(xs, w):
    s = 0.0
    for a, b in zip(xs, w):
        s = s + a * b
    return s


def direct_loop(params):
    s = 0.0
    for k in params:
        s = s + params[k] ** 2
    return s


def direct_comprehension(params):
    return sum([params[k] for k in params])


def direct_generator(params, x):
    return sum(np.sum(params[k] * x) for k in params if k != "v") + max(np.max(params[k]) for k in params)


def positions_read_by_items(order, x):
    s = 0.0
    for i in order:
        s = s + x[order[i]] * i
    return s


def new_key_local(x):
    d = {"a": x * 2.0}
    d["new"] = x ** 3
    return d["a"] * d["new"]


def new_key_parameter(params, x):
    params["new"] = x * params["w"]
    return params["new"] ** 2 + params["w"]


def new_keys_in_loop(x):
    d = {}
    for i in range(3):
        d[i] = x * (i + 1.0)
        if i > 0:
            d[i] = d[i] * d[i - 1]
    return d[2] + np.sin(d[1])


def new_key_then_overwritten(x, y):
    table = {"x": x}
    table["y"] = y * x
    table["y"] = table["y"] + table["x"] ** 2
    return table["y"] * table["x"]


# --------------------------------------------------------------------------
# finite differences over dicts (tests/gradcheck.py knows arrays, tuples and lists)


def _moved(args, position, key, index, step):
    """``args`` with element ``index`` of ``args[position][key]`` (or of ``args[position]``) moved by ``step``."""
    moved = [dict(a) if isinstance(a, dict) else np.array(a, dtype=float) for a in args]
    if isinstance(moved[position], dict):
        value = np.array(moved[position][key], dtype=float)
        value[index] += step
        moved[position][key] = value if np.ndim(args[position][key]) else float(value)
    else:
        moved[position][index] += step
        if np.ndim(args[position]) == 0:
            moved[position] = float(moved[position])
    return moved


def _fd(f, args, position, key, index):
    return (f(*_moved(args, position, key, index, H)) - f(*_moved(args, position, key, index, -H))) / (2 * H)


def _elements(args, position):
    """(key, index) of every scalar of ``args[position]``."""
    value = args[position]
    if isinstance(value, dict):
        return [(key, index) for key in value for index in np.ndindex(np.shape(value[key]))]
    return [(None, index) for index in np.ndindex(np.shape(value))]


def _entry(gradient, key, index):
    return np.asarray(gradient[key] if key is not None else gradient, dtype=float)[index]


def check_dict_function(f, args):
    """Reverse mode (``srcad.grad``) and forward mode (one tangent per element) against central differences."""
    positions = tuple(range(len(args)))
    gradients = srcad.grad(f, positions)(*args)
    forward = srcad.autodiff(f, positions, mode="forward")
    for position in positions:
        if isinstance(args[position], dict):
            assert isinstance(gradients[position], dict) and set(gradients[position]) == set(args[position])
        for key, index in _elements(args, position):
            expected = _fd(f, args, position, key, index)
            assert np.isclose(_entry(gradients[position], key, index), expected, rtol=1e-6, atol=1e-6), \
                (f.__name__, position, key, index, gradients[position], expected)
            tangents = []
            for p in positions:
                zero = {k: np.zeros_like(np.asarray(v, dtype=float)) for k, v in args[p].items()} \
                    if isinstance(args[p], dict) else np.zeros_like(np.asarray(args[p], dtype=float))
                if p == position:
                    if key is None:
                        zero[index] = 1.0
                    else:
                        zero[key][index] = 1.0
                tangents.append(zero)
            tangents = [{k: (float(v) if np.ndim(v) == 0 else v) for k, v in t.items()} if isinstance(t, dict)
                        else (float(t) if np.ndim(t) == 0 else t) for t in tangents]
            assert np.isclose(forward(*args, *tangents), expected, rtol=1e-6, atol=1e-6), \
                (f.__name__, "forward", position, key, index)


def views_consumed_whole(d, w):
    """``sum(d.values())``, ``list(d.items())``, ``max``/``min`` of the values, outside any loop."""
    pairs = list(d.items())
    return sum(d.values()) * w + max(d.values()) * min(list(d.values())) + sum(v * v for _, v in pairs)


def array_views_consumed_whole(d, x):
    return np.sum(sum(d.values()) * x) + np.sum(np.stack(list(d.values())) ** 2)



DICT_CASES = [
    (d_keys, ({"a": 1.0, "b": 3.0},)),
    (d_keys, ({0: 1.0, 1: 0.0},)),
    (d_values, ({"a": 0.4, "b": -1.2, "c": 2.0},)),
    (d_values, ({1: 0.4, 0: -1.2},)),
    (d_items, ({"w": 0.5, "bias": -2.0}, 1.5)),
    (d_items_int_keys, ({0: 1.0, 1: 0.0, 2: 0.5}, 0.7)),
    (d_comprehension, ({"a": 0.5, "b": -2.0, "c": 1.0}, 1.5)),
    (d_enumerate_zip, ({"a": 0.5, "b": -2.0}, np.array([0.3, 0.9, 1.1]))),
    (d_array_values, ({"u": np.array([0.5, -1.0]), "v": np.array([2.0, 0.1])}, np.array([0.3, -0.7]))),
    (new_key_parameter, ({"w": 0.7}, 1.5)),
    (direct_loop, ({"a": 0.5, "b": -2.0},)),
    (direct_loop, ({0: 1.5, 1: 0.25},)),
    (direct_comprehension, ({0: 1.0, 1: -0.5},)),
    (direct_generator, ({"u": np.array([0.5, -1.0]), "v": np.array([2.0, 0.1])}, np.array([0.3, -0.7]))),
    (views_consumed_whole, ({"a": 0.5, "b": -2.0, "c": 1.3}, 1.5)),
    (views_consumed_whole, ({0: 1.5, 1: 0.25},  0.7)),
    (array_views_consumed_whole, ({"u": np.array([0.5, -1.0]), "v": np.array([2.0, 0.1])}, np.array([0.3, -0.7]))),
]


@pytest.mark.parametrize("function,args", DICT_CASES,
                         ids=[f"{f.__name__}-{type(next(iter(a[0]))).__name__}" for f, a in DICT_CASES])
def test_dict_loops_match_finite_differences(function, args):
    check_dict_function(function, args)


@pytest.mark.parametrize("function", [d_made_in_f, d_items_made_in_f])
def test_a_dict_made_in_f_is_iterated_by_keys(function):
    x = np.array([0.4, -0.8])
    for check in (check_reverse, check_forward, check_forward_reverse):
        check(function, (x,))


ARRAYS = [np.array([0.3, -1.2, 2.0]), np.array([[0.3, 1.0], [-1.2, 2.0]])]


@pytest.mark.parametrize("items", ARRAYS, ids=["vector", "matrix"])
@pytest.mark.parametrize("check", [check_reverse, check_forward, check_forward_reverse],
                         ids=["reverse", "forward", "adjoint"])
def test_one_loop_is_right_for_arrays(items, check):
    check(each_item, (items,))
    check(each_item_zip, (items, np.ones(np.shape(items)) * 0.5))


@pytest.mark.parametrize("kind", [list, tuple])
def test_one_loop_is_right_for_lists_and_tuples(kind):
    """The same derivative as for the array of the same numbers, item for item, in both modes."""
    values = np.array([0.3, -1.2, 2.0])
    items = kind(float(v) for v in values)
    assert np.allclose(srcad.grad(each_item)(items), 2 * values)
    forward = srcad.autodiff(each_item, 0, mode="forward")
    assert np.isclose(forward(items, kind([1.0, 0.0, 2.0])), 2 * values[0] + 4 * values[2])
    w = np.array([0.5, -1.0, 3.0])
    assert np.allclose(srcad.grad(each_item_zip, 1)(items, w), values)


def test_a_loop_over_a_range_argument_runs():
    assert srcad.grad(each_item_zip, 1)(range(3), np.ones(3)).tolist() == [0.0, 1.0, 2.0]


class OnlyIterable:
    """An object with ``__iter__`` only (positions mean nothing to it)."""

    def __init__(self, values):
        self.values = values

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)

    def __getitem__(self, key):
        return self.values[::-1][key]   # indexing that differs from iterating


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_list_read_by_its_own_items_raises_at_the_users_line(mode):
    """``for i in order: ... order[i]`` is read as a loop over a dict's keys; a list there is refused, loudly."""
    derivative = srcad.autodiff(positions_read_by_items, 1, mode=mode)
    x = np.array([0.5, 2.0])
    with pytest.raises(UnsupportedValueError) as raised:
        derivative([1, 0], x, 1.0 if mode == "reverse" else x)
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert f"{__file__}:" in notes and "in order" in notes, notes
    assert "`for k in list(d):`" in str(raised.value)
    compile("for k in list(d):\n    pass\n", "fix", "exec")


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("value", [{0.5, 1.5}, OnlyIterable([0.5, 2.0]), {0: 2.0, 1: 3.0}],
                         ids=["set", "object", "dict"])
def test_a_loop_over_a_value_not_read_by_position_raises(value, mode):
    """Not differentiated itself (``wrt`` is the other argument): the loop still must not read it by position."""
    derivative = srcad.autodiff(each_item_zip, 1, mode=mode)
    w = np.array([0.5, 1.0])
    with pytest.raises(UnsupportedValueError) as raised:
        derivative(value, w, 1.0 if mode == "reverse" else np.ones(2))
    assert "for a, b in zip(xs, w)" in "\n".join(raised.value.__notes__)


def test_an_object_differentiated_field_by_field_is_not_iterated():
    with pytest.raises(srcad.UnsupportedSyntaxError, match="used whole"):
        srcad.grad(each_item)(OnlyIterable([0.5, 2.0]))


def test_a_dict_view_of_something_else_raises():
    class Table:
        def items(self):
            return [("a", 1.0)]
    with pytest.raises(UnsupportedValueError):
        srcad.autodiff(d_items, 1)(Table(), 0.5, 1.0)


STORES = [(new_key_local, (1.5,)), (new_keys_in_loop, (0.8,)), (new_key_then_overwritten, (0.6, -1.3))]


@pytest.mark.parametrize("function,args", STORES, ids=[f.__name__ for f, _ in STORES])
@pytest.mark.parametrize("check", [check_reverse, check_forward, check_forward_reverse],
                         ids=["reverse", "forward", "adjoint"])
def test_storing_a_new_key_matches_finite_differences(function, args, check):
    check(function, args)


def test_a_dict_parameters_gradient_has_its_keys_only():
    params = {"w": 0.7}
    gradient, _ = srcad.grad(new_key_parameter, (0, 1))(params, 1.5)
    assert set(gradient) == {"w"} and params == {"w": 0.7}


@pytest.mark.parametrize("function,args", STORES, ids=[f.__name__ for f, _ in STORES])
def test_storing_a_new_key_is_refused_twice_with_a_fix(function, args):
    """The derivative saves and restores the dict's entries with helpers that have no rules yet."""
    with pytest.raises(srcad.SrcadError) as raised:
        srcad.grad(srcad.grad(function, 0), 0)(*args)
    assert "make every key of the dict where the dict is made" in str(raised.value)
    compile("d = {'a': 0.0, 'new': 0.0}", "fix", "exec")


def items_of_a_dict_made_in_f(x):
    table = {"a": x, "b": np.exp(x)}
    s = 0.0
    for key, value in table.items():
        s = s + value * table["a"]
    return s


def items_of_a_dict_made_in_f_by_hand(x, order):
    """Derivatives of x² + x eˣ, written out: orders 0 to 3."""
    return [x * x + x * np.exp(x), 2 * x + (1 + x) * np.exp(x), 2 + (2 + x) * np.exp(x),
            (3 + x) * np.exp(x)][order]


@pytest.mark.parametrize("order", [1, 2, 3])
def test_a_dict_loop_differentiates_to_order_three(order):
    """srcad's order-``order`` derivative against central differences of the order below, written by hand."""
    derivative = items_of_a_dict_made_in_f
    for _ in range(order):
        derivative = srcad.grad(derivative)
    x = 0.7
    lower = [items_of_a_dict_made_in_f_by_hand(x + s * H, order - 1) for s in (1, -1)]
    assert np.isclose(derivative(x), (lower[0] - lower[1]) / (2 * H), rtol=1e-6)
    assert np.isclose(derivative(x), items_of_a_dict_made_in_f_by_hand(x, order), rtol=1e-10)


def sum_and_max(xs):
    return sum(xs) * 2.0 + max(xs) + min(xs) * 0.5


@pytest.mark.parametrize("kind", [list, tuple, np.array])
def test_sum_and_max_of_a_parameter_add_their_adjoints_item_by_item(kind):
    """``sum(xs)`` and ``max(xs)`` both give ``xs`` an adjoint per item; ``+`` would concatenate two lists."""
    values = [0.5, 3.0, -1.0]
    expected = [2.0, 3.0, 2.5]
    assert np.allclose(srcad.grad(sum_and_max)(kind(values)), expected)
    forward = srcad.autodiff(sum_and_max, 0, mode="forward")
    assert np.isclose(forward(kind(values), kind([1.0, 0.0, 0.0])), 2.0)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_sum_of_a_dict_parameter_raises_instead_of_adding_its_keys(mode):
    derivative = srcad.autodiff(sum_and_max, 0, mode=mode)
    value = {0: 1.0, 1: 2.0}
    with pytest.raises(UnsupportedValueError) as raised:
        derivative(value, 1.0 if mode == "reverse" else value)
    assert "return sum(xs) * 2.0" in "\n".join(raised.value.__notes__)
