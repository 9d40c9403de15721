"""A helper of f's module that writes into its argument and returns nothing, called as a statement.

``step(u, c)`` with ``def step(u, c): u[1:] = ...`` (no ``return``) is
inlined; its result is None, as in Python, and the statement leaves nothing
behind in the generated code (the taped derivative raised ``NameError:
step_result`` before).  In a loop differentiated with checkpoints, the names
such a call writes into count as written in place by the loop body (they
are carried state, copied at each snapshot), the step function calls the
module's own helper, and a function defined inside f or a method called in
the loop is refused with the user's line and a fix.
"""
import numpy as np
import pytest

import srcad
from gradcheck import check_both_modes

U0 = np.linspace(0.1, 1.0, 6)


def advect(u, c):
    u[1:] = u[1:] + c * u[:-1]


def advect_and_read(u, c):
    advect(u, c)
    u[0] = u[0] * np.cos(c)
    return u[-1]


def once(u0, c):
    u = u0 * 1.0
    advect(u, c)
    return np.sum(u * u)


def stepped(u0, c, n):
    u = u0 * 1.0
    for t in range(n):
        advect(u, c)
    return np.sum(u * u)


def stepped_with_total(u0, c, n):
    u = u0 * 1.0
    total = 0.0
    for t in range(n):
        total = total + advect_and_read(u, c) * u[1]
    return total + np.sum(np.sin(u))


def stepped_in_place_of_a_parameter(u0, c, n):
    u = u0
    for t in range(n):
        advect(u, c)
    return np.sum(u)


def test_no_name_left_behind_in_the_generated_code():
    source = srcad.source(once, wrt=(0, 1))
    assert "advect_result" not in source


@pytest.mark.parametrize("f, args", [(once, (U0, 0.3)), (stepped, (U0, 0.3, 4)),
                                     (stepped_with_total, (U0, 0.3, 5))], ids=["once", "stepped", "total"])
def test_mutating_helper_as_a_statement(f, args):
    wrt = (0, 1)
    check_both_modes(f, args, wrt=wrt)


@pytest.mark.parametrize("checkpoints", [1, 2, 3])
@pytest.mark.parametrize("f", [stepped, stepped_with_total])
def test_checkpointed_loop_calling_a_mutating_helper(f, checkpoints):
    args = (U0, 0.3, 7)
    taped = srcad.grad(f, wrt=(0, 1))(*args)
    checkpointed = srcad.grad(f, wrt=(0, 1), checkpoints=checkpoints)(*args)
    for a, b in zip(checkpointed, taped):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert np.all(U0 == np.linspace(0.1, 1.0, 6))   # the caller's array is not written into


def test_checkpointed_helper_writing_into_a_parameter_is_refused():
    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(stepped_in_place_of_a_parameter, wrt=(0, 1), checkpoints=2)(U0.copy(), 0.3, 3)
    message = str(caught.value)
    assert "test_mutating_helpers_in_loops.py" in message and "writing into `u` in place" in message
    assert "u = u.copy()" in message


def test_checkpointed_local_function_is_refused_with_a_fix():
    def closure_step(u0, c, n):
        def bump(v):
            return v * c
        u = u0 * 1.0
        for t in range(n):
            u = bump(u) + u
        return np.sum(u)

    with pytest.raises(srcad.UnsupportedSyntaxError) as caught:
        srcad.grad(closure_step, wrt=(0, 1), checkpoints=2)(U0, 0.3, 3)
    message = str(caught.value)
    assert "`bump`" in message and "define `bump` at module level" in message
    assert "test_mutating_helpers_in_loops.py" in message
