"""Each optimisation pass, shown on a small function: the source just before the pass and after it.

A row names the pass, the function, the mode and ``wrt``, a line the pass
removes or rewrites (present before the pass ran for the first time, gone
after) and a line it produces.  ``srcad show --passes`` prints the same
stages.  Every row's final derivative is also checked against finite
differences, so a pass that rewrites correctly-looking code wrongly fails
here too.
"""
from __future__ import annotations

import gast
import numpy as np
import pytest

import srcad
from srcad import pipeline
from srcad.passes.simplify import _fold

import pass_examples as ex
from gradcheck import check_forward, check_reverse

ROWS = [
    # pass, function, mode, wrt, a line before the pass, a line after it
    ("simplify", ex.cube_scale, "reverse", ("x",),
     "dx = unbroadcast(d_x_times_x * x, x)", "dx = d_x_times_x * x"),
    ("simplify", ex.tanh_loss, "forward", ("w",),
     "d_y_pow_2 = dy * 2 * y ** 1", "d_y_pow_2 = dy * 2 * y"),
    ("simplify", ex.logistic, "reverse", ("x", "r"),
     "dx = unbroadcast(-d_t1_minus_x, x)", "dx = -d_t1_minus_x"),
    ("common_subexpressions", ex.sin_plus_cos, "reverse", ("x",),
     "dx = -d_cos_x * np.sin(x)", "dx = -d_cos_x * sin_x"),
    ("common_subexpressions", ex.sin_plus_cos, "forward", ("x",),
     "d_cos_x = -dx * np.sin(x)", "d_cos_x = -dx * sin_x"),
    ("propagate_copies", ex.cube_scale, "reverse", ("x",),
     "dx += x * d_x_times_x", "dx = d_x_times_x * x + x * d_x_times_x"),
    ("cleanup", ex.dead, "reverse", ("x",),
     "unused = np.exp(y)", "dx = d_sin_x * np.cos(x)"),
    ("cleanup", ex.tanh_loss, "forward", ("w",),
     "out = np.sum(y_pow_2)", "dout = np.sum(d_y_pow_2)"),
    ("inline_temporaries", ex.dead, "reverse", ("x",),
     "d_sin_x = unreduce(dout, sin_x)", "dx = unreduce(dout, sin_x) * np.cos(x)"),
    ("inline_temporaries", ex.tanh_loss, "forward", ("w",),
     "d_w_times_x = dw * x", "dy = dw * x * (1.0 - y * y)"),
]


def stages(function, mode, wrt):
    """[(stage name, source after it)] for every stage that changed the tree."""
    seen = []
    pipeline.build(function, wrt, mode, {}, observe=lambda stage, text: seen.append((stage, text)))
    return seen


@pytest.mark.parametrize("pass_name, function, mode, wrt, before, after", ROWS,
                         ids=[f"{r[0]}-{r[1].__name__}-{r[2]}" for r in ROWS])
def test_the_pass_rewrites_what_it_should(pass_name, function, mode, wrt, before, after):
    seen = stages(function, mode, wrt)
    index = next(i for i, (stage, _) in enumerate(seen) if stage == pass_name)
    source_before, source_after = seen[index - 1][1], seen[index][1]
    lines_before = [line.strip() for line in source_before.splitlines()]
    lines_after = [line.strip() for line in source_after.splitlines()]
    assert before in lines_before, source_before
    assert before not in lines_after, source_after
    assert after in lines_after, source_after


@pytest.mark.parametrize("pass_name, function, mode, wrt, before, after", ROWS,
                         ids=[f"{r[0]}-{r[1].__name__}-{r[2]}" for r in ROWS])
def test_the_optimised_derivative_is_right(pass_name, function, mode, wrt, before, after):
    rng = np.random.default_rng(3)
    args = [rng.uniform(0.2, 0.8, 3) for _ in range(function.__code__.co_argcount)]
    (check_reverse if mode == "reverse" else check_forward)(function, args, wrt)


def test_optimize_false_skips_every_optimisation_pass():
    names = []
    pipeline.build(ex.cube_scale, ("x",), "reverse", {"optimize": False}, observe=lambda s, t: names.append(s))
    assert "reverse" in names
    assert not set(names) & {"simplify", "propagate_copies", "cleanup", "inline_temporaries"}
    assert "unbroadcast(d_x_times_x * x, x)" in srcad.source(ex.cube_scale, optimize=False)


@pytest.mark.parametrize("expression, folded", [
    ("2 * 3.0", 6.0), ("1.0 - 0.25", 0.75), ("-2.0 * 3", -6.0), ("1 / 4", 0.25), ("1.0 / 0.0", None),
])
def test_constant_folding(expression, folded):
    node = gast.parse(expression).body[0].value
    result = _fold(node)
    if folded is None:
        assert result is None
    else:
        value = -result.operand.value if isinstance(result, gast.UnaryOp) else result.value
        assert value == folded


def test_the_gradient_of_x_times_x_times_3_is_one_statement():
    text = srcad.source(ex.cube_scale)
    body = text[text.index("dout = check_seed"):].splitlines()[1:]
    statements = [line for line in body if line.strip() and not line.strip().startswith(("#", "return"))]
    assert statements == ["    dx = 6.0 * dout * x"]   # d * x + x * d is 2 * (d * x), d = dout * 3.0 inlined


def test_the_logistic_map_called_with_scalars_saves_one_value_per_iteration():
    """The scalar variant recomputes ``r * x`` and ``1.0 - x`` instead of saving them (``recompute``)."""
    from srcad.api import Derivative

    text = Derivative(ex.logistic, ("x", "r"), "reverse", {"scalar_params": True}).source
    forward, _, backward = text.partition("for _ in reversed(range(10)):")
    assert forward.count("tape.append(") == 1 and "tape.append(x)" in forward
    body = [line.strip() for line in backward.splitlines()[1:] if line.startswith("        ")]
    assert body == ["# x = r * x * (1.0 - x)", "x = tape.pop()", "d_r_times_x = dx * (1.0 - x)",
                    "dx = r * d_r_times_x - r * x * dx", "dr += d_r_times_x * x"]
    check_reverse(ex.logistic, [0.3, 3.7], ("x", "r"))
