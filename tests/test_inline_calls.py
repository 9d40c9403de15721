"""Helpers from the caller's own module are inlined (srcad/passes/inline_calls.py).

A table of callers runs in both modes against finite differences and
forward against reverse; each row also says whether its helper must be
inlined (no derivative of the helper is built, its lines are quoted as
``helper: line``) or must stay a call (the reason it cannot be inlined).
"""
from __future__ import annotations

import functools
import textwrap

import numpy as np
import pytest

import srcad
import srcad.api
from srcad import cache, pipeline
from srcad.errors import SrcadError
from srcad.passes import inline_calls

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

SCALE = 0.5


# --- helpers ------------------------------------------------------------------

def sigmoid(x):
    """A docstring, dropped when inlined."""
    return 1.0 / (1.0 + np.exp(-x))


def gate(x, w, bias=0.25):
    return sigmoid(x * w + bias)


def pair(a, b):
    s = a + b
    return s * a, np.sin(s)


def clipped(v):
    if np.sum(v) > 0.0:
        return v * 2.0
    return -v


def first_large(v):
    for i in range(v.shape[0]):
        if v[i] > 0.5:
            return v[i] * v
    return v * 0.5


def scaled(v):
    return v * SCALE   # a module constant


def store_into(out, v):
    out[0] = v[1] * v[2]   # writes the caller's array, as Python does
    return np.sum(out * v)


def countdown(v, n):
    if n == 0:
        return v
    return countdown(v * 1.5, n - 1)   # recursive: stays a call


def keyword_only(v, *, power=2):
    return v ** power


@functools.lru_cache(maxsize=None)
def decorated_constant(n):
    return float(n)


def big(v):
    for _ in range(2):
        v = np.sin(v)
        v = np.cos(v) * 1.1
        v = np.tanh(v + 0.1)
    return v * v


# --- callers ------------------------------------------------------------------

def calls_sigmoid(x):
    return np.sum(sigmoid(x) * x)


def calls_gate_twice(x, w):
    return np.sum(gate(x, w) + gate(w, x, bias=-0.5))


def calls_nested(x):
    h = x
    for _ in range(3):
        h = gate(h, x)
    return np.sum(h)


def unpacks_pair(x, y):
    p, q = pair(x, y)
    return np.sum(p * q)


def branches(x):
    return np.sum(clipped(x) * clipped(x - 0.3))


def returns_from_loop(x):
    return np.sum(first_large(x) + first_large(x * 0.5))


def reads_module_constant(x):
    return np.sum(scaled(x) ** 2)


def writes_argument(x):
    out = x * 1.0
    total = store_into(out, x)
    return total + np.sum(out)


def in_expression(x):
    return np.sum(sigmoid(x) * sigmoid(-x) + sigmoid(x * 2.0))


def recursive_helper(x):
    return np.sum(countdown(x, 2))


def keyword_only_helper(x):
    return np.sum(keyword_only(x, power=3))


def big_helper(x):
    return np.sum(big(x))


def helper_as_value(x):
    if sigmoid is None:   # the helper used as a value
        return x[0]
    return np.sum(sigmoid(x))


def conditional_call(x):
    return np.sum(sigmoid(x) if np.sum(x) > 0.0 else x)


def shadows_helper_global(x):
    SCALE = 2.0   # scaled() reads the module's SCALE, not this one
    return np.sum(scaled(x) * SCALE)


INLINED = [   # caller, wrt, input shapes, helpers inlined
    (calls_sigmoid, "x", [(3, 4)], ["sigmoid"]),
    (calls_gate_twice, ("x", "w"), [(4,), (4,)], ["gate", "sigmoid"]),
    (calls_gate_twice, ("x", "w"), [(2, 3), (3,)], ["gate", "sigmoid"]),
    (calls_nested, "x", [(5,)], ["gate", "sigmoid"]),
    (unpacks_pair, ("x", "y"), [(3,), (3,)], ["pair"]),
    (branches, "x", [(4,)], ["clipped"]),
    (returns_from_loop, "x", [(5,)], ["first_large"]),
    (reads_module_constant, "x", [(3,)], ["scaled"]),
    (writes_argument, "x", [(3,)], ["store_into"]),
    (in_expression, "x", [(2, 2)], ["sigmoid"]),
]
NOT_INLINED = [   # caller, wrt, input shapes, the helper kept as a call
    (keyword_only_helper, "x", [(3,)], "keyword_only"),
    (helper_as_value, "x", [(3,)], "sigmoid"),
    (conditional_call, "x", [(3,)], "sigmoid"),
    (shadows_helper_global, "x", [(3,)], "scaled"),
]


def _inputs(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, shape) for shape in shapes]


def _source(function, wrt, mode="reverse"):
    return pipeline.build(function, tuple([wrt] if isinstance(wrt, str) else wrt), mode, {}).source


@pytest.mark.parametrize("caller, wrt, shapes, helpers", INLINED,
                         ids=[f"{row[0].__name__}-{len(row[2][0])}d" for row in INLINED])
def test_inlined_helpers_give_right_derivatives(caller, wrt, shapes, helpers):
    args = _inputs(shapes)
    check_reverse(caller, args, wrt)
    check_forward(caller, args, wrt)
    check_forward_reverse(caller, args, wrt)
    for mode in ("reverse", "forward"):
        source = _source(caller, wrt, mode)
        for helper in helpers:
            assert f"# {helper}: " in source, f"{helper} is not inlined into {caller.__name__}:\n{source}"
            assert f"= derivative({helper}" not in source, source


@pytest.mark.parametrize("caller, wrt, shapes, helper", NOT_INLINED, ids=[row[0].__name__ for row in NOT_INLINED])
def test_helpers_that_cannot_be_inlined_stay_calls(caller, wrt, shapes, helper):
    args = _inputs(shapes)
    check_reverse(caller, args, wrt)
    check_forward(caller, args, wrt)
    source = _source(caller, wrt)
    assert f"# {helper}: " not in source, source


def test_a_recursive_helper_is_not_inlined_and_is_called_through_its_derivative():
    args = _inputs([(3,)])
    check_reverse(recursive_helper, args, "x")
    check_forward(recursive_helper, args, "x")
    assert "# countdown: " not in _source(recursive_helper, "x")


def test_a_helper_over_the_size_limit_stays_a_call(monkeypatch):
    monkeypatch.setattr(inline_calls, "MAX_STATEMENTS", 4)
    assert "# big: " not in _source(big_helper, "x")
    check_reverse(big_helper, _inputs([(3,)]), "x")
    monkeypatch.setattr(inline_calls, "MAX_STATEMENTS", 5)
    assert "# big: " in _source(big_helper, "x")


def test_no_helper_derivative_is_built_when_everything_inlines(monkeypatch):
    built = []
    original = srcad.api.build
    monkeypatch.setattr(srcad.api, "build", lambda func, *rest, **kw: built.append(func.__name__) or
                        original(func, *rest, **kw))
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    srcad.grad(calls_nested)(*_inputs([(4,)]))
    assert built == ["calls_nested"]


def test_the_generated_code_quotes_the_helper_lines_in_order():
    source = _source(calls_sigmoid, "x")
    comments = [line.strip() for line in source.splitlines() if line.strip().startswith("# ")]
    assert "# return np.sum(sigmoid(x) * x)" in comments
    assert "# sigmoid: return 1.0 / (1.0 + np.exp(-x))" in comments
    assert "A docstring" not in source


def test_a_helper_error_points_into_the_helper(tmp_path, monkeypatch):
    module = tmp_path / "helper_error_module.py"
    module.write_text(textwrap.dedent("""\
        import numpy as np


        def helper(v):
            w = np.frexp(v)[0]
            return w * v


        def caller(x):
            return np.sum(helper(x))
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import helper_error_module
    with pytest.raises(SrcadError) as caught:
        srcad.grad(helper_error_module.caller)(np.ones(3))
    message = str(caught.value)
    assert "helper_error_module.py:5" in message, message


def test_editing_a_helper_changes_the_callers_cache_key(tmp_path, monkeypatch):
    module = tmp_path / "edited_helper_module.py"
    text = "import numpy as np\n\n\ndef helper(v):\n    return v * {}\n\n\ndef caller(x):\n    return np.sum(helper(x))\n"
    module.write_text(text.format("2.0"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import edited_helper_module
    before = cache.disk_key(edited_helper_module.caller, ("x",), "reverse", {})
    module.write_text(text.format("3.0"))
    after = cache.disk_key(edited_helper_module.caller, ("x",), "reverse", {})
    assert before != after


def test_a_local_function_keeps_its_names_and_a_direct_assignment_takes_the_result():
    caller = make_function("""\
def caller(x):
    def smooth(v):
        hidden = np.tanh(v)
        return hidden * v
    y = smooth(x)
    return np.sum(y)
""", {"np": np})
    source = _source(caller, "x")
    assert "hidden = np.tanh(x)" in source, source
    assert "smooth_result" not in source, source
    check_reverse(caller, _inputs([(3,)]), "x")


def test_an_error_in_inlined_code_names_the_helper_line(tmp_path, monkeypatch):
    module = tmp_path / "helper_runtime_error_module.py"
    module.write_text(textwrap.dedent("""\
        import numpy as np


        def helper(v, k):
            return v[k] * 2.0


        def caller(x):
            return helper(x, 7)
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import helper_runtime_error_module
    with pytest.raises(IndexError) as caught:
        srcad.grad(helper_runtime_error_module.caller)(np.ones(3))
    notes = "\n".join(getattr(caught.value, "__notes__", [])) + str(caught.value)
    assert "helper_runtime_error_module.py:5" in notes, notes
