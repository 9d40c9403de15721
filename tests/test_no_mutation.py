"""No derivative call ever writes to the caller's arrays.

Contract checked here: for random programs that update local arrays in
place, store into copies and fresh arrays, and (in the second property)
store into and augment their own array parameters, every derivative entry
point (``grad``, ``value_and_grad``, ``vjp`` and its pullback, ``jvp``,
``jacobian`` in both modes, ``hessian``, ``hvp``, ``autodiff`` forward and
reverse) leaves every argument bit-identical: same dtype, shape and bytes.
This holds whether the call succeeds or raises (a construct srcad refuses, a
second derivative it cannot build), and most calls do succeed.
"""
import collections

import numpy as np
from hypothesis import HealthCheck, Phase, assume, given, settings

import srcad
from fuzz_check import build_module, random_arguments
from fuzz_programs import programs
from gradcheck import no_disk_cache, same_bits, snapshot  # noqa: F401 (autouse)


def derivative_calls(f, arguments):
    """(label, thunk) for every derivative entry point srcad has, applied to ``f`` at ``arguments``."""
    positions = tuple(range(len(arguments)))
    output = f(*[snapshot(a) for a in arguments])
    seed = np.ones_like(np.asarray(output, dtype=float)) if np.ndim(output) else 1.0
    tangents = [np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in arguments]
    calls = [
        ("autodiff reverse", lambda: srcad.autodiff(f, positions)(*arguments, seed)),
        ("autodiff forward", lambda: srcad.autodiff(f, positions, mode="forward")(*arguments, *tangents)),
        ("vjp", lambda: srcad.vjp(f, *arguments)[1](seed)),
        ("jvp", lambda: srcad.jvp(f, arguments, tangents)),
        ("jacobian forward", lambda: srcad.jacobian(f, positions, mode="forward")(*arguments)),
        ("jacobian reverse", lambda: srcad.jacobian(f, positions, mode="reverse")(*arguments)),
    ]
    if np.ndim(output) == 0:
        calls += [
            ("grad", lambda: srcad.grad(f, positions)(*arguments)),
            ("value_and_grad", lambda: srcad.value_and_grad(f, positions)(*arguments)),
            ("hessian", lambda: srcad.hessian(f, 0)(*arguments)),
        ]
        if len(arguments) == 1:
            calls.append(("hvp", lambda: srcad.hvp(f, arguments[0], tangents[0])))
    return calls


def check_untouched(program, seed, tally):
    f = build_module(program.source)["f"]
    arguments = random_arguments(program, seed)
    try:
        with np.errstate(all="ignore"):
            f(*snapshot(arguments))
    except (ArithmeticError, ValueError, IndexError):
        assume(False)   # f itself fails here: nothing to differentiate
    before = snapshot(arguments)
    with np.errstate(all="ignore"):
        for label, call in derivative_calls(f, arguments):
            try:
                call()
                tally["succeeded"] += 1
            except Exception:   # noqa: BLE001 -- only mutation matters here
                tally["raised"] += 1
            assert same_bits(arguments, before), f"{label} changed an argument of\n{program.source}"


SETTINGS = dict(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
                phases=(Phase.generate,))


def test_derivatives_never_write_their_arguments():
    tally = collections.Counter()

    @settings(max_examples=40, **SETTINGS)
    @given(programs(max_statements=4))
    def check(program_and_seed):
        check_untouched(*program_and_seed, tally)

    check()
    assert tally["succeeded"] >= 0.8 * (tally["succeeded"] + tally["raised"]), tally


def test_derivatives_never_write_arguments_that_f_itself_writes():
    """f stores into and augments its parameters: calling f changes them, its derivatives must not."""
    tally = collections.Counter()

    @settings(max_examples=40, **SETTINGS)
    @given(programs(max_statements=4, writable_parameters=True))
    def check(program_and_seed):
        check_untouched(*program_and_seed, tally)

    check()
    assert tally["succeeded"] >= 0.6 * (tally["succeeded"] + tally["raised"]), tally


def _stores_into_its_parameter(x, y):
    x[0] = 2.0 * y[1]
    x += y
    y[1:] *= 3.0
    return np.sum(np.sin(x) * y)


def test_a_function_that_writes_its_parameters():
    x, y = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5])
    before = snapshot((x, y))
    gradient = srcad.grad(_stores_into_its_parameter, (0, 1))(x, y)
    tangent = srcad.jvp(_stores_into_its_parameter, (x, y), (np.ones(3), np.zeros(3)))
    assert same_bits((x, y), before)
    # and the numbers are those of f as written (which writes its arguments, so it is called on copies)
    xs, ys = x.copy(), y.copy()
    expected_value = _stores_into_its_parameter(xs, ys)
    assert tangent[0] == expected_value
    assert all(np.all(np.isfinite(g)) for g in gradient)
