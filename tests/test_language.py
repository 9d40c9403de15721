"""The Python language srcad differentiates (issue [language]), function by function.

Contract:
- Every function in ``CASES`` is a small, real module-level function (srcad
  reads this file), grouped by the item of the issue it covers: 1 branches
  and conditions, 2 loops, 3 returns, 4 calls to the user's own functions,
  5 globals and closure variables, 6 augmented assignment and array stores,
  7 array methods, 8 containers and comprehensions, 9 statements that pass
  through.  Programs that broke srcad while this corpus was written sit in
  their item's group like any other case.
- For every case, mode ('reverse', 'forward') and ``optimize`` (True, False):
  the derivative matches central finite differences in float64 (reverse:
  ``<u, FD Jv> == <vjp(u), v>``; forward: ``jvp(v) == FD Jv`` elementwise),
  and gradients have their argument's shape.  Inputs are chosen inside each
  function's domain, away from branch switches and loop-exit thresholds, and
  several input sets drive a function down its different branches.
- The output ``value_and_grad``, ``vjp`` and ``jvp`` return is ``f(*args)``,
  also when f overwrites its parameters or changes arrays in place.
- Calling a derivative never writes into the caller's arrays, seeds or
  tangents (bitwise).
- ``print`` runs once per primal execution, in both modes; ``assert`` is kept.
- The reverse-mode tape stores only what the backward pass reads: a loop
  whose adjoints read no saved value has no tape, a value the adjoint reads
  is pushed once per iteration, branch decisions and trip counts are small.
- Recursion, direct and mutual, calls the callee's derivative.
- Unsupported constructs (yield, async, global/nonlocal writes, classes
  defined inside f, del of an item; ``tests/test_statements.py`` has the
  statements that are supported now) and recursion raise
  a ``srcad.SrcadError`` (``UnsupportedSyntaxError`` for syntax) whose message
  starts with ``file:line:col`` at the construct and ends with a suggestion.
Nothing here is skipped or marked xfail: a failure is a bug or a missing
feature.
"""
import inspect
import math
import os
import re

import numpy as np
import pytest

import srcad
import srcad.api
from srcad import d

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import (FD_RTOL, as_tuple, assert_like_argument, check_values, fd_directional, inner, leaves,
                       like, norm, random_directions, same_bits, snapshot, srcad_wrt, wrt_positions)

THIS_FILE = os.path.abspath(__file__)

# ==========================================================================
# 1. branches and conditions


def b_if_scalar(x):
    if x > 0:
        y = x * x
    else:
        y = -3.0 * x
    return y


def b_if_elif_else(x):
    s = np.sum(x)
    if s > 1.0:
        y = np.sin(x)
    elif s > -1.0:
        y = x * x
    else:
        y = np.exp(x)
    return np.sum(y)


def b_nested_if(x, y):
    if x[0] > 0:
        if y[0] > 0:
            z = x * y
        else:
            z = x + y
    else:
        if y[1] > 0:
            z = x - y
        else:
            z = x / (1.0 + y * y)
    return np.sum(z)


def b_ifexp(x):
    y = np.sin(x) if x[0] > 0 else np.cos(x)
    return np.sum(y)


def b_ifexp_inline(x):
    return np.sum(x * (2.0 if x[0] > 0 else 3.0))


def b_ifexp_nested(x):
    y = np.sin(x) if x[0] > 0 else (np.cos(x) if x[1] > 0 else x * x)
    return np.sum(y)


def b_and_or_not(x):
    if x[0] > 0 and x[1] > 0:
        y = x * 2.0
    elif x[0] > 0 or not x[1] < 0.5:
        y = x * x
    else:
        y = np.sin(x)
    return np.sum(y)


def b_chained_comparison(x):
    if -0.5 < x[0] < 0.5:
        y = x ** 3
    else:
        y = x * 4.0
    return np.sum(y)


def b_different_vars_per_arm(x):
    a = x * 1.0
    b = x * 2.0
    if x[0] > 0:
        a = np.sin(x)
    else:
        b = np.cos(x)
    return np.sum(a * b)


def b_one_arm(x):
    y = x * 2.0
    if np.sum(x) > 0:
        y = y * y
    return np.sum(y)


def b_defined_in_both_arms(x):
    if x[0] > x[1]:
        t = x[0] * x
        u = t + 1.0
    else:
        t = x[1] * x
        u = t * t
    return np.sum(t * u)


def b_one_arm_constant(x):
    if x[0] > 0:
        y = x * 2.0
    else:
        y = np.ones(3)
    return np.sum(y * x)


def b_integer_flag(x, k):
    if k > 1:
        y = np.tanh(x) * k
    else:
        y = x ** 2
    return np.sum(y)


def b_norm_condition(x, y):
    if np.sum(x * x) < 1.0:
        z = x * y
    else:
        z = x / np.sqrt(np.sum(x * x)) * y
    return np.sum(z ** 2)


# ==========================================================================
# 2. loops


def l_static_range(x):
    for i in range(3):
        x = x * np.sin(x) + 1.0
    return np.sum(x)


def l_param_range(x, n):
    y = x
    for i in range(n):
        y = np.tanh(y) * x
    return np.sum(y)


def l_data_dependent_range(x):
    n = int(np.sum(x > 0))
    s = 0.0
    for i in range(n):
        s = s + np.sum(x * (i + 1.0)) * s + 1.0
    return s


def l_start_stop_step(x):
    s = 0.0
    for i in range(1, x.shape[0], 2):
        s = s + x[i] * x[i - 1]
    return s


def l_negative_step(x):
    s = 0.0
    for i in range(x.shape[0] - 1, -1, -1):
        s = s * 0.5 + np.sin(x[i])
    return s


def l_rows(X):
    s = 0.0
    for row in X:
        s = s + np.sum(row ** 2) * row[0]
    return s


def l_over_list(x):
    s = x * 0.0
    for w in [1.0, 2.0, 3.0]:
        s = s + w * np.sin(w * x)
    return np.sum(s)


def l_over_tuple(x, y):
    s = 0.0
    for v in (x, y, x * y):
        s = s + np.sum(v * v)
    return s


def l_enumerate(X):
    s = 0.0
    for i, row in enumerate(X):
        s = s + i * np.sum(np.sin(row))
    return s


def l_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b * b
    return s


def l_reversed(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + v
    return s


def l_nested(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            s = s + X[i, j] * X[i, j] * (i + 1) - s * 0.1
    return s


def l_triangular(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i):
            s = s + x[i] * x[j]
    return s


def l_while_scalar(x):
    s = x
    while s < 10.0:
        s = s * 1.5 + x
    return s


def l_while_array(x):
    y = x
    k = 0
    while np.sum(y * y) < 50.0:
        y = y * 1.3 + np.sin(y)
        k = k + 1
    return np.sum(y) * k


def l_while_element_exit(x):
    y = x
    while y[0] < 5.0:
        y = y * 2.0 + 0.3
    return np.sum(y * y)


def l_while_zero_trips(x):
    s = x
    while np.sum(s) > 100.0:
        s = s * 0.5
    return np.sum(s * s)


def l_break(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        s = s + x[i] ** 2
    return s


def l_continue(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s = s + np.sin(x[i])
    return s


def l_while_true_break(x):
    s = x
    i = 0
    while True:
        s = s * np.cos(s) + x
        i = i + 1
        if i >= 3:
            break
    return s


def l_while_break(x):
    y = x
    n = 0
    while n < 4:
        y = np.sin(y) + y * 1.1
        n = n + 1
        if np.sum(y) > 2.0:
            break
    return np.sum(y * y)


def l_while_continue(x):
    s = 0.0
    i = 0
    while i < x.shape[0]:
        i = i + 1
        if x[i - 1] < 0:
            continue
        s = s + np.exp(x[i - 1]) * s + x[i - 1]
    return s


def l_nested_break(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] < 0:
                break
            s = s + X[i, j] * s + X[i, j]
    return s


def l_nested_continue(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] < 0:
                continue
            s = s + X[i, j] ** 2
        s = s * 0.5
    return s


def l_break_first_iteration(x):
    s = x * 1.0
    for i in range(5):
        if i == 0:
            break
        s = s * x
    return np.sum(s)


def l_continue_every_iteration(x):
    s = x * 1.0
    for i in range(3):
        if i >= 0:
            continue
        s = s * x
    return np.sum(s)


def l_loop_variable_after(x):
    for i in range(x.shape[0]):
        y = x[i] * 2.0
    return y * i


def l_last_element_after(x):
    for v in x:
        t = v * 2.0
    return v * t


def l_zero_trip(x):
    s = x * 1.0
    for i in range(0):
        s = s * x
    return np.sum(s)


def l_first_defined_in_loop(x):
    for i in range(3):
        t = x * (i + 1.0)
        u = np.sin(t)
    return np.sum(t * u)


def l_params_reassigned(x, y):
    for i in range(3):
        x = x * y + np.sin(x)
        y = y - 0.1 * x
    return np.sum(x * y)


def l_tuple_unpacking(x):
    a, b = x, x * 0.5
    for i in range(4):
        a, b = b, a + b * x
    return np.sum(a + b)


def l_swap(x, y):
    for i in range(3):
        x, y = y * 0.5, x + np.sin(y)
    return x * y


def l_aug_array(x):
    y = np.zeros(3)
    for i in range(3):
        y += x * (i + 1)
        y *= 0.9
    return np.sum(y * y)


def l_aug_scalar(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
        s *= 0.9
    return s


def l_loop_in_branch(x):
    if x[0] > 0:
        for i in range(3):
            x = np.sin(x) * 2.0
    else:
        x = x * 3.0
    return np.sum(x)


def l_branch_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i] ** 2
        else:
            s = s - np.sin(x[i])
    return s


def l_branch_vars_in_loop(x):
    a = 1.0
    b = 1.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            a = a * x[i] + 1.0
        else:
            b = b * np.exp(x[i])
    return a * b


def l_ifexp_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + (x[i] * x[i] if x[i] > 0 else np.sin(x[i]))
    return s


def l_condition_on_index(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0 and i % 2 == 0:
            s = s + x[i] ** 3
        elif not (x[i] > 0) or i == 1:
            s = s - x[i]
    return s


def l_while_in_for(x):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        while v < 4.0:
            v = v * 2.0 + 0.5
        total = total + v * x[i]
    return total


def l_inactive_then_active(x):
    a = 1.0
    b = 1.0
    for i in range(3):
        if i == 2:
            b = a * 3.0
        a = x * x
    return b


def l_copy_previous(x):
    y = 1.0
    w = 0.0
    for i in range(3):
        w = y
        y = x * 2.0 + w
    return w * y


def l_redefine_in_branch(x):
    t = x * 2.0
    s = 0.0
    for i in range(3):
        if i == 1:
            t = np.sin(t)
        s = s + np.sum(t)
    return s


def l_while_defines_new(x):
    k = 0
    y = x
    while k < 3:
        z = y * 2.0
        y = np.tanh(z)
        k = k + 1
    return np.sum(z * y)


def l_two_loops_same_variable(x):
    s = x
    for i in range(2):
        s = s * x
    for i in range(3):
        s = s + np.sin(s)
    return np.sum(s) * i


def l_break_then_use(x):
    s = 0.0
    last = 0.0
    for i in range(x.shape[0]):
        last = x[i]
        if x[i] < 0:
            break
        s = s + last * last
    return s + last * 3.0


def l_shrinking(x):
    for i in range(2):
        x = x[1:] * x[:-1]
    return np.sum(x)


def l_power_of_index(x):
    s = 0.0
    for i in range(4):
        s = s + x ** i
    return np.sum(s)


def l_over_parameters(x, y):
    s = 0.0
    for v in [x, y]:
        s = s + np.sum(np.sin(v)) * s + 1.0
    return s


def l_loop_target_shadows_parameter(x, y):
    for x in [y, y * 2.0]:
        y = y + x
    return y


def l_empty_sequence(x, y):
    s = y * 1.0
    for v in x:
        s = s + v * v * y
    return s


def l_logistic_map(l, n):
    for i in range(n):
        l = 4.0 * l * (1.0 - l)
    return l


def l_running_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def l_nested_if_break(x):
    s = 1.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            if s > 2.0:
                break
            s = s * (1.0 + x[i])
        else:
            s = s + x[i] * x[i]
    return s


# ==========================================================================
# 3. returns


def r_early_in_branches(x):
    if x[0] > 0:
        return np.sum(np.sin(x))
    y = x * x
    if x[1] > 0:
        return np.sum(y) * 2.0
    return np.sum(y * x)


def r_many(x):
    if x > 1.0:
        return x * x
    elif x > 0.0:
        return np.sin(x)
    elif x > -1.0:
        return x ** 3
    else:
        return -x


def r_early_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * x[i]
        if s > 1.0:
            return s * 2.0
    return s


def r_early_in_nested_loops(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            s = s + np.sin(X[i, j]) * (j + 1)
            if s > 1.5:
                return s * s
    return -s


def r_in_while(x):
    s = x
    k = 0
    while k < 10:
        s = s * 1.5 + 0.1
        if s > 3.0:
            return s * x
        k = k + 1
    return s


def r_in_while_true(x):
    s = x
    while True:
        s = s * 1.5 + np.sin(s)
        if s > 3.0:
            return s * x


def r_first_iteration(x):
    for i in range(3):
        return x * (i + 2.0)
    return x


def r_tuple(x):
    if x[0] > 0:
        return np.sin(x), x * 2.0
    return np.cos(x), x * 3.0


def r_in_loop_in_branch_in_loop(X):
    for i in range(X.shape[0]):
        if X[i, 0] > 0:
            for j in range(X.shape[1]):
                if X[i, j] < 0:
                    return X[i, j] * X[i, 0]
    return np.sum(X)


def r_in_for_in_while(x):
    s = x
    k = 0
    while k < 2:
        for i in range(3):
            s = np.sin(s) + x
            if np.sum(s) > 5.0:
                return s * 2.0
        k = k + 1
    return s


# ==========================================================================
# 4. calls to the user's own functions


def helper(v):
    return np.sin(v) * v


def helper_two(a, b):
    return a * np.sin(b)


def helper_pair(v):
    return np.sin(v), np.cos(v)


def helper_control_flow(v, n):
    s = 0.0
    for i in range(n):
        if v[i] > 0:
            s = s + v[i] ** 2
        else:
            s = s - v[i]
    return s


def helper_outer(v):
    return helper_two(v, v * 2.0) + 1.0


def helper_identity(v):
    return v


def helper_store(v):
    w = v * 1.0
    w[0] = w[0] * w[1]
    return w


def helper_defaults(v, scale=2.0):
    return v * scale + np.tanh(v)


def helper_total(v, scale=2.0):
    return np.sum(v * scale)


def c_helper(x):
    return np.sum(helper(x) + helper(x * 2.0))


def c_helper_in_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(helper(x * (i + 1)))
    return s


def c_helper_in_branch(x):
    if x[0] > 0:
        y = helper(x)
    else:
        y = x * 2.0
    return np.sum(y)


def c_helper_with_control_flow(x):
    return helper_control_flow(x, 3) * helper_control_flow(np.sin(x), 2)


def c_helper_tuple(x):
    a, b = helper_pair(x)
    return np.sum(a * b)


def c_transitive(x):
    return np.sum(helper_outer(x) ** 2)


def c_activity_patterns(x):
    c = np.array([0.5, 1.0, 1.5])
    return np.sum(helper_two(x, c) + helper_two(c, x) + helper_two(x, x))


def c_inactive_arguments(x):
    c = helper_two(np.ones(3), np.arange(3.0))
    return np.sum(c * x)


def c_identity(x):
    y = helper_identity(x)
    return y * 2.0


def c_callee_stores(x):
    return np.sum(helper_store(x) ** 2)


def c_default_argument(x):
    return np.sum(helper_defaults(x))


def c_default_argument_scalar(x):
    return helper_total(x) * 3.0


def c_keyword_argument(x):
    return np.sum(helper_defaults(x, scale=3.0))


def c_active_keyword_argument(x, s):
    return np.sum(helper_defaults(x, scale=s))


def c_nested_def(x):
    def inner(v):
        return v * v + 1.0
    return np.sum(inner(x) * inner(np.cos(x)))


def c_nested_def_closure(x, w):
    def inner(v):
        return v * w
    return np.sum(inner(np.sin(x)))


def c_lambda(x):
    square = lambda v: v * v * 3.0  # noqa: E731
    return np.sum(square(x) + square(np.sin(x)))


def c_nested_def_early_return(x):
    def inner(v):
        if np.sum(v) > 0:
            return v * 2.0
        return np.sin(v)
    return np.sum(inner(x) + inner(-x))


def c_nested_def_loop(x):
    def inner(v):
        for i in range(2):
            v = v * np.cos(v)
        return v
    s = 0.0
    for i in range(2):
        s = s + np.sum(inner(x * (i + 1)))
    return s


def c_nested_def_name_clash(x):
    v = x * 3.0

    def inner(v):
        y = v * v
        return y
    y = inner(x)
    return np.sum(y * v)


def c_nested_def_late_binding(x):
    w = 1.0

    def inner(v):
        return v * w
    w = 2.0
    return np.sum(inner(x) * x)


def c_nested_def_return_in_loop(x):
    def first_big(v):
        for i in range(v.shape[0]):
            if v[i] > 0.5:
                return v[i] * 2.0
        return v[0]
    return first_big(x) * first_big(x * 2.0)


def c_lambda_in_loop(x):
    scaled_sin = lambda v, k: np.sin(v) * k  # noqa: E731
    s = 0.0
    for i in range(3):
        s = s + np.sum(scaled_sin(x, i + 1.0))
    return s


def c_lambda_default(x):
    times = lambda v, k=2.0: v * k  # noqa: E731
    return np.sum(times(x) + times(x, 3.0))


def _make_closure(k):
    def closure(x):
        return np.sum(helper(x) * k)
    return closure


c_closure = _make_closure(np.array([0.5, 1.5, -1.0]))


def _primitive(v):
    return np.exp(v)


@srcad.adjoint(_primitive)
def _primitive_adjoint(y, v):
    d[v] = d[y] * y


@srcad.tangent(_primitive)
def _primitive_tangent(y, v):
    d[y] = d[v] * y


def c_templated_callee(x):
    return np.sum(_primitive(x) * x)


# ==========================================================================
# 5. globals and closure variables are constants

SCALE = 2.5
WEIGHTS = np.array([1.0, -2.0, 0.5])


def g_global_scalar(x):
    return np.sum(x * SCALE)


def g_global_array(x):
    return np.sum(np.sin(x) * WEIGHTS)


def g_module_constants(x):
    return np.sum(x * np.pi + math.e * x * x)


def g_global_in_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * WEIGHTS[i] * SCALE) * s + 1.0
    return s


def g_global_in_branch(x):
    if x[0] > 0:
        s = np.sum(x * SCALE)
    else:
        s = np.sum(x * x)
    return s


def _make_scaled(k):
    def scaled(x):
        return np.sum(np.sin(x) * k)
    return scaled


g_closure_variable = _make_scaled(np.array([0.5, 1.5, -1.0]))


# ==========================================================================
# 6. augmented assignment and array stores


def s_aug_assign(x, y):
    z = x * 1.0
    z += y
    z *= x
    z -= y / 2.0
    z /= 1.0 + x * x
    return np.sum(z)


def s_element_times_two(x):
    A = x * 1.0
    A[1] *= 2.0
    A[0] = A[0] * A[2]
    return np.sum(A * A)


def s_add_row(A, B):
    C = A * 1.0
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] += B[j]
    return np.sum(C * C)


def s_store_row(x):
    A = np.zeros((3, 2))
    for i in range(3):
        A[i] = np.sin(x * (i + 1))
    return np.sum(A ** 2)


def s_store_column(x, v):
    A = np.ones((3, 2)) * x
    A[:, 0] = v
    return np.sum(A * A)


def s_store_slice(x, u):
    A = x * 2.0
    A[1:3] = u
    return np.sum(A ** 3)


def s_pool(B):
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    for i in range(B.shape[0] - 2):
        for j in range(B.shape[1]):
            A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
    return A


def s_add_into_zeros(x):
    y = np.zeros(3)
    y[0] += x
    return y


def s_fancy_store(x):
    A = np.zeros(5)
    idx = np.array([0, 2, 4])
    A[idx] = x * 2.0
    return np.sum(A * np.arange(5.0))


def s_store_into_parameter(A, x):
    A[0] = x * 2.0
    return np.sum(A * A)


def s_parameter_recurrence(A):
    for i in range(1, A.shape[0]):
        A[i] = A[i - 1] * 0.5 + A[i]
    return np.sum(A ** 2)


def s_overwrite_active(x):
    y = x * 1.0
    for i in range(y.shape[0]):
        y[i] = np.sin(y[i]) * y[(i + 1) % y.shape[0]]
    return np.sum(y)


def s_store_in_branch(x):
    y = x * 1.0
    if x[0] > 0:
        y[0] = x[1] * x[2]
    else:
        y[1] = np.exp(x[0])
    return np.sum(y * y)


def s_slice_store_in_loop(x):
    A = np.zeros((4, 3))
    for i in range(4):
        A[i, 1:] = x[i:i + 2] * x[0]
    return np.sum(A ** 2)


def s_aug_slices(x):
    y = x * 1.0
    y[1:] += x[:-1] * 2.0
    y[:2] -= np.sin(x[1:3])
    return np.sum(y ** 2)


def s_recurrence(x):
    A = np.zeros(4)
    A[0] = x[0]
    for i in range(1, 4):
        A[i] = A[i - 1] * x[i] + np.sin(A[i - 1])
    return np.sum(A)


def s_negative_index(x):
    A = x * 1.0
    A[-1] = A[0] * A[-2]
    return np.sum(A ** 2)


def s_scalar_into_slice(x, c):
    A = x * 1.0
    A[1:3] = c
    return np.sum(A ** 2)


def s_store_per_branch_in_loop(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            y[i] = x[i] * 2.0
        else:
            y[i] = np.exp(x[i])
    return np.sum(y * y)


def s_prefix_sums(x):
    out = x * 0.0
    for i in range(x.shape[0]):
        out[i] = np.sum(x[: i + 1] ** 2)
    return out


def s_parameter_element_chain(x):
    for i in range(x.shape[0] - 1):
        x[i + 1] = x[i + 1] + x[i] * x[i]
    return np.sum(x)


def s_row_times_vector(X, v):
    Y = X * 1.0
    Y[0] *= v
    return np.sum(Y ** 2)


def s_rows_times_vector_in_loop(X, v):
    Y = X * 1.0
    for i in range(Y.shape[0]):
        Y[i] = Y[i] * v
    return np.sum(Y ** 2)


def s_fresh_array_per_iteration(x):
    s = 0.0
    for i in range(2):
        A = np.zeros(3)
        A[i] = x[i] * 3.0
        s = s + np.sum(A * x)
    return s


def s_shift_by_one(x):
    A = x * 1.0
    A[1:] = A[:-1] * 2.0
    return np.sum(A * x)


def s_store_in_while(x):
    A = np.zeros(4)
    k = 0
    while k < 4:
        A[k] = np.sin(x[k]) * (k + 1)
        k = k + 1
    return np.sum(A * A)


def s_array_created_in_branch(x):
    if x[0] > 0:
        A = np.zeros(3)
        A[1] = x[0] * x[1]
        A = A + x
    else:
        A = x * 2.0
    return np.sum(A ** 2)


def s_boolean_mask_store(x):
    A = x * 1.0
    A[x < 0] = 0.0
    return np.sum(A ** 2)


def s_row_aug_with_slice(A, B):
    C = A * 1.0
    for i in range(C.shape[0]):
        C[i, :] += B[i] * C[i, 0]
    return np.sum(C ** 2)


def s_row_read_with_slice(A, i):
    return np.sum(A[i, :] ** 2)


def s_row_read_in_loop(A):
    s = 0.0
    for i in range(A.shape[0]):
        s = s + np.sum(A[i, 1:] ** 2)
    return s


# ==========================================================================
# 7. methods of arrays


def m_sum_axis(x):
    return np.sum(x.sum(axis=0) ** 2) + x.sum(axis=1)[0]


def m_mean(x):
    return x.mean() * x.mean(axis=1)[1]


def m_dot(x, y):
    return x.dot(y).sum()


def m_reshape(x):
    return np.sum(np.sin(x.reshape(3, 2)) * x.reshape((2, 3)).T)


def m_T(x):
    return np.sum(x.T @ x)


def m_transpose(x):
    return np.sum(x.transpose() ** 3) + np.sum(x.transpose(1, 0)[0] ** 2)


def m_astype(x):
    return np.sum(x.astype(float) ** 2)


def m_copy(x):
    y = x.copy()
    y[0] = 3.0 * y[0]
    return np.sum(y * x)


def m_max_axis(x):
    return np.sum(x.max(axis=1) ** 2)


def m_max(x):
    return x.max() * 2.0


def m_min(x):
    return x.min(axis=0) * x


def m_prod(x):
    return x.prod() + np.sum(x.prod(axis=0))


def m_std(x):
    return x.std() + np.sum(x.std(axis=1))


def m_var(x):
    return x.var() * 2.0


def m_ravel(x):
    return np.sum(x.ravel() ** 3)


def m_squeeze(x):
    return np.sum(x.reshape(1, 6).squeeze() ** 2)


def m_clip(x):
    return np.sum(x.clip(-0.5, 0.5) ** 2)


def m_cumsum(x):
    return np.sum(x.cumsum() ** 2)


def m_methods_in_loop(X):
    s = 0.0
    for row in X:
        s = s + row.sum() * row.mean() + row.dot(row)
    return s


# ==========================================================================
# 8. containers and comprehensions


def k_append_and_read(x):
    ys = []
    for i in range(3):
        ys.append(np.sin(x * (i + 1)))
    return np.sum(ys[0] * ys[2]) + np.sum(ys[1])


def k_append_to_array(x):
    ys = []
    for i in range(x.shape[0]):
        ys.append(x[i] ** 2 * (i + 1))
    return np.sum(np.array(ys) * x)


def k_append_and_stack(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0))
    return np.sum(np.stack(rows) ** 3)


def k_append_in_branch(x):
    kept = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            kept.append(x[i] * x[i])
    return np.sum(np.array(kept)) + x[0]


def k_literals(x, y):
    pair = (x, y * 2.0)
    items = [np.sin(x), y]
    return np.sum(pair[0] * pair[1] + items[0] * items[1])


def k_tuple_unpacking(x, y):
    pair = (x * 2.0, np.cos(y))
    a, b = pair
    c, e = a + b, a * b
    return np.sum(c * e)


def k_dict_reads(x, y):
    table = {"a": x * 2.0, "b": np.sin(y)}
    return np.sum(table["a"] * table["b"])


def k_listcomp_range(x):
    ys = [x[i] * x[i + 1] for i in range(x.shape[0] - 1)]
    return np.sum(np.array(ys))


def k_listcomp_rows(X):
    ys = [np.sum(row ** 2) for row in X]
    return np.sum(np.array(ys) * np.arange(1.0, 4.0))


def k_listcomp_condition(x):
    ys = [x[i] * x[i] for i in range(x.shape[0]) if x[i] > 0]
    return np.sum(np.array(ys))


def k_listcomp_nested(X):
    ys = [X[i, j] * (i + j) for i in range(X.shape[0]) for j in range(X.shape[1])]
    return np.sum(np.array(ys) ** 2)


def k_listcomp_zip(x, y):
    ys = [a * b for a, b in zip(x, y)]
    return np.sum(np.array(ys))


def k_listcomp_shadows_variable(x):
    i = 2
    ys = [x[i] ** 2 for i in range(x.shape[0])]
    return np.sum(np.array(ys)) * x[i]


def k_listcomp_read_back(x):
    ws = [1.0, 2.0]
    ys = [np.sin(x * w) for w in ws]
    return np.sum(ys[0] * ys[1])


def k_listcomp_stack(x):
    return np.sum(np.stack([x * k for k in range(3)]) ** 2)


def k_list_of_arrays_in_loop(x, y):
    s = 0.0
    for v in [x, np.sin(y), x * y]:
        s = s + np.sum(v ** 2)
    return s


# ==========================================================================
# 9. statements that pass through


def p_passthrough(x):
    """A docstring."""
    assert x.shape[0] == 3, "three values"
    pass
    print("passthrough", x.shape)
    y = np.sin(x)
    assert np.all(np.isfinite(y))
    return np.sum(y * y)


def p_print_in_loop(x):
    s = 0.0
    for i in range(2):
        print("iteration", i)
        s = s + np.sum(x ** (i + 1))
    return s


def p_assert_in_branch(x):
    if x[0] > 0:
        assert x[0] < 10.0
        y = x * 3.0
    else:
        pass
        y = x * x
    return np.sum(y)


# ==========================================================================
# aliasing: a store or in-place update through a second name


def a_aug_through_alias(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)


def a_store_through_alias(x):
    A = x * 1.0
    B = A
    B[0] = 5.0 * x[1]
    return np.sum(A * x)


def a_store_through_view(X):
    A = X * 1.0
    r = A[0]
    r[1] = 3.0 * X[1, 1]
    return np.sum(A ** 2)


def a_store_through_loop_variable(X):
    Y = X * 1.0
    for row in Y:
        row[0] = row[0] * row[1]
    return np.sum(Y ** 2)


def a_parameter_written_through_view(X):
    r = X[0]
    r[1] = 5.0 * r[0]
    return np.sum(X * X)


def a_nested_def_writes_its_argument(x):
    def double_first(v):
        v[0] = v[0] * 2.0
        return v
    y = x * 1.0
    z = double_first(y)
    return np.sum(y * z)


def a_rebound_only_in_a_branch(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        z = y
        if i == 1:
            y = x * 2.0
        y[0] = y[0] * x[1]
        s = s + np.sum(z * x)
    return s


def a_copy_after_the_change_in_a_loop(x):
    y = x * 1.0
    s = 0.0
    for i in range(2):
        y[1] = y[1] * x[0]
        z = y
        s = s + np.sum(z * x)
    return s


def a_dead_alias_then_store(x):
    y = x * 1.0
    z = y
    s = np.sum(z * x)
    y[0] = y[1] * 3.0
    return s + np.sum(y * x)


def a_alias_read_again_in_a_loop(x):
    y = x * 1.0
    s = 0.0
    for i in range(2):
        z = y
        s = s + np.sum(z * x)
        y[0] = y[1] * x[2]
    return s + np.sum(y)


def _built_by_stores(v):
    t = np.zeros(3)
    t[0] = v[0] * 2.0
    t[1] = v[1] * v[2]
    return t


def a_helper_array_built_in_a_loop(x):
    s = 0.0
    for i in range(3):
        r = _built_by_stores(x * (i + 1.0))   # inlined: r = t, and the next call stores into a new t
        s = s + np.sum(r * r)
    return s


# ==========================================================================
# the table


def arr(*values):
    return np.array(values, dtype=np.float64)


def r_early_return_then_while_return(w, x):
    # regression: the value returned by the first early return is also bound inside the loop;
    # its adjoint must survive the branch that selects between the two returns
    if -x[-1] > 0.5:
        if (x[-1] * x[-1]) > 0.5:
            return np.cos(w[1])
    k = 0
    while k < 4:
        if x[-1] ** 3 < 0.5:
            return x[0] * w[0]
        k = k + 1
    return x[-1] * 2.0


def r_branch_value_then_overwritten(y):
    # regression: the branch's backward sweep reads the t the branch computed, not the later one
    x = y * 1.0
    if y[0] < 0.0:
        t = y ** 2
        x = np.sin(t)
    t = y * 3.0
    return np.sum(x * t)


def r_branch_value_then_overwritten_in_a_branch(y, c):
    # regression: t may be unbound when the second branch overwrites it; its old value is saved if bound
    x = y * 1.0
    if c > 0:
        t = y ** 2
        x = np.sin(t)
    if c > 1:
        t = y * 3.0
    return np.sum(x * t)


def r_branch_value_then_overwritten_in_a_loop(y, c):
    x = y * 1.0
    if c > 0:
        t = y ** 2
        x = np.sin(t)
    for i in range(2):
        t = y * 3.0 + i
        x = x * t
    return np.sum(x * t)


def r_branch_first_read_after_in_a_loop(t0):
    # regression: c is bound first in a branch and read after it in the same iteration; the backward sweep
    # read the next iteration's c there
    for k in range(4):
        if t0[1] > 0.5:
            c = np.log1p(np.exp(-t0))
        else:
            c = np.exp(np.tanh(-t0))
        t0 = t0 + c * c * 0.5
    return np.sum(c * t0)


def r_one_arm_binds_then_read_after_in_a_loop(y, flags):
    # c is bound in one arm only; after the branch it holds this iteration's value or an earlier one
    c = y * 0.5
    out = y * 0.0
    for k in range(4):
        if flags[k] > 0:
            d = np.sin(y * (k + 1))
            c = d * y
        out = out + c * np.cos(out)
    return np.sum(out)


def r_two_branches_bind_then_reads_between(y, flags):
    # the second branch overwrites what the first bound; the statement between reads the first value
    out = y * 0.0
    for k in range(3):
        if flags[k] > 0:
            c = np.sin(y + k)
        else:
            c = np.cos(y * k)
        out = out + c * c
        if flags[k + 1] > 0:
            c = np.exp(0.1 * out)
        out = out * c
    return np.sum(out)


def r_inner_loop_binds_then_outer_reads(y):
    # a name an inner loop binds first is read after the inner loop, in the same outer iteration
    out = y * 1.0
    for i in range(3):
        for j in range(2):
            c = np.tanh(out + j)
        out = out + c * out
    return np.sum(out)


def r_branch_binds_then_rebound_after_a_read(y, flags):
    # bound in a branch, read, then rebound in the same iteration: the read sees the branch's value
    out = y * 1.0
    for k in range(3):
        if flags[k] > 0:
            c = np.sin(out)
        else:
            c = out * 2.0
        out = out * c
        c = np.cos(out)
        out = out + c
    return np.sum(out)


def r_nested_branch_binds_then_outer_reads(y, flags):
    out = y * 1.0
    for k in range(3):
        if flags[k] > 0:
            if flags[k + 1] > 0:
                c = np.sin(out)
            else:
                c = np.cos(out)
            out = out + c
        else:
            c = out * 0.5
        out = out * c
    return np.sum(out)


def r_store_repeated_index(x, v):
    # regression: a store with a repeated index keeps the last write; the first v got the adjoint too
    A = x * 1.0
    A[[0, 0]] = v
    return np.sum(A * x)


REPEATED = np.array([1, 1, 2])   # an index array held in a global: a constant of f


def r_store_repeated_index_array(v, x):
    A = x * 1.0
    A[REPEATED] = v * 2.0
    return np.sum(A * A)


def r_store_repeated_rows(v, M):
    B = M * 1.0
    B[[1, 0, 1]] = v
    return np.sum(np.sin(B) * M)


def r_store_repeated_pairs(v, M):
    B = M * 1.0
    B[[0, 1, 0], [2, 0, 2]] = v * v
    return np.sum(B * B)


def r_helper_inlined_twice(y):
    # regression: both inlined copies of the helper bind its local t
    return np.sum(r_helper_with_a_local(y) * r_helper_with_a_local(y[::-1] * 2.0))


def r_helper_with_a_local(a):
    t = np.exp(np.tanh(a)) ** 2
    return np.log(1.0 + np.sin(t) * np.sin(t))


def r_identity_then_stores(x):
    # regression: `t = t * 1.0` made the adjoint of t the seed itself, which the store's adjoint then zeroed
    t = np.outer(x[:2], np.exp(x))
    t[0] = np.abs(x) + t[1, 2]
    t = t * 1.0
    return t


def r_both_arms_bind_in_a_loop_with_a_tail_read_only_in_the_arm(x):
    # regression: c, bound by either arm of a branch in a loop body, is saved once per iteration
    # (not also before the other arm overwrites it)
    t0 = x * 1.0
    t1 = x * 0.0
    for k in range(3):
        if t0[1] > 0.5:
            c = np.log1p(np.exp(-t0))
        else:
            c = np.exp(np.tanh(-t0))
        t1 = c * 1.0
        t0 = t0 + t1 * 0.25
    return np.sum(t1 * t0)


def r_nested_loop_returns(y):
    # regression: `if returned: break else: ... returned = True` -- the backward sweep must branch on
    # the flag's value when it was tested, not after the arm set it
    k0 = 0
    while k0 < 2:
        k1 = 0
        while k1 < 1 and y[1] > 0.5:
            return y[1] * 3.0
        if y[0] > 0.0:
            return y[0] * 5.0
        k0 = k0 + 1
    return y[1]


def r_nested_continue(w):
    # regression: a `continue` two ifs deep must also skip what follows the outer if
    t = 0.0
    for i in range(3):
        if w[0] > -5.0:
            if w[1] < -0.3:
                continue
            t = t + w[0]
        t = t + w[1] * 2.0
    return t


def r_self_store(x, s):
    # regression: `t[:] = t` stores an array into itself; its adjoint passes through unchanged
    t = np.sin(s) * x
    t[:] = t
    t[1:] = t[0]
    return np.sum(t * x)


def r_constant_in_loop(s, w):
    # regression: a parameter set to a constant inside a loop has zero tangent after it (forward mode)
    k0 = 0
    while k0 < 4:
        s = 0.7 * 1.0
        k0 = k0 + 1
    return np.log1p(np.exp(s ** 3)) + w[0] * s


def r_tangent_view_then_store(x, y):
    # regression: `x = z[1] * 1.0` must not leave x's tangent a view of z's, which a later store changes
    z = y.copy()
    for i in range(2):
        x = z[1] * 1.0
    z[:, 1] = np.sin(x[:2])
    return np.sum(x * 0.7) + np.sum(z)


def r_store_in_both_arms(w):
    # regression (forward mode): the tangent copied before a store in one arm is not copied in the other
    t1 = np.mean(w) + np.array([0.5, -1.0, 2.0])
    if t1[0] < -0.3:
        t1[:2] = w
    else:
        t1[2] += w[1] * np.mean(t1[:2])
    return np.sum(t1 * t1)


def r_helper_inactive_args(a0, a1):
    return a0 * 2.0 + a1


def r_call_without_active_arguments(x):
    # regression: a call none of whose arguments carries a derivative, assigned to a name that does
    t = np.ones(2)
    for i in range(2):
        t = r_helper_inactive_args(np.ones(2), 1.0)
        if x[0] > 5.0:
            t = x * 3.0
    return np.sum(t * x)


X32 = arr(0.3, -0.4, 0.5, 0.5, 0.7, 0.1, -0.2, 1.1, 0.3).reshape(3, 3)
X32P = np.abs(X32)
R32 = arr(0.3, -0.4, 0.5, 0.7, 0.2, 1.1).reshape(3, 2)
R23 = arr(0.3, -0.9, 0.2, 1.1, 0.6, -0.5).reshape(2, 3)
V3 = arr(0.3, -0.4, 0.7)
V4 = arr(0.3, -0.4, 0.7, 0.2)


def case(function, *args, wrt=0, label="", name=None):
    name = (name or function.__name__) + (f"-{label}" if label else "")
    return pytest.param(function, args, wrt, id=name)


CASES = [
    case(r_call_without_active_arguments, arr(0.3, 0.4), label="constant"),
    case(r_call_without_active_arguments, arr(6.0, 0.4), label="active"),
    case(r_store_in_both_arms, arr(0.3, 0.4), label="else"),
    case(r_store_in_both_arms, arr(-1.3, -0.4), label="if"),
    case(r_tangent_view_then_store, arr(0.1, 0.2, 0.3), arr(0.0, 0.2, 0.4, 0.6, 0.8, 1.0).reshape(2, 3), wrt=None),
    case(r_constant_in_loop, 0.3, arr(1.0, 2.0), wrt=None),
    case(r_self_store, arr(0.3, -0.7, 1.2), 0.4, wrt=None),
    case(r_nested_continue, arr(0.4, -0.5), label="skips"),
    case(r_nested_continue, arr(0.4, 0.5), label="runs"),
    case(r_branch_value_then_overwritten, arr(-0.5, 0.3, 0.7), label="branch"),
    case(r_branch_value_then_overwritten, arr(0.5, 0.3, 0.7), label="straight"),
    case(r_branch_value_then_overwritten_in_a_branch, arr(-0.5, 0.3, 0.7), 2, label="both"),
    case(r_branch_value_then_overwritten_in_a_branch, arr(-0.5, 0.3, 0.7), 1, label="first"),
    case(r_branch_value_then_overwritten_in_a_loop, arr(-0.5, 0.3, 0.7), 1, label="branch"),
    case(r_branch_value_then_overwritten_in_a_loop, arr(-0.5, 0.3, 0.7), 0, label="loop"),
    case(r_branch_first_read_after_in_a_loop, arr(0.3, 0.9, -0.2), label="if"),
    case(r_branch_first_read_after_in_a_loop, arr(0.3, 0.2, -0.2), label="else"),
    case(r_branch_first_read_after_in_a_loop, arr(0.1, 0.55, 0.3), label="mixed"),
    case(r_one_arm_binds_then_read_after_in_a_loop, arr(0.3, -0.4, 0.8), arr(1, -1, 1, -1), label="alternate"),
    case(r_one_arm_binds_then_read_after_in_a_loop, arr(0.3, -0.4, 0.8), arr(-1, 1, 1, -1), label="late"),
    case(r_two_branches_bind_then_reads_between, arr(0.3, -0.4, 0.8), arr(1, -1, 1, -1), label="alternate"),
    case(r_two_branches_bind_then_reads_between, arr(0.3, -0.4, 0.8), arr(-1, 1, 1, 1), label="mostly"),
    case(r_inner_loop_binds_then_outer_reads, arr(0.3, -0.4, 0.8)),
    case(r_branch_binds_then_rebound_after_a_read, arr(0.3, -0.4, 0.8), arr(1, -1, 1), label="alternate"),
    case(r_nested_branch_binds_then_outer_reads, arr(0.3, -0.4, 0.8), arr(1, 1, -1, 1), label="a"),
    case(r_nested_branch_binds_then_outer_reads, arr(0.3, -0.4, 0.8), arr(1, -1, 1, -1), label="b"),
    case(r_store_repeated_index, arr(0.5, -1.0, 2.0), arr(3.0, 4.0), wrt=None),
    case(r_store_repeated_index_array, arr(1.0, 2.0, 3.0), arr(0.5, -1.0, 2.0), wrt=None),
    case(r_store_repeated_rows, arr(0.3, -0.2, 0.9, 1.1, 0.4, -0.6, 0.7, 0.2, -0.5).reshape(3, 3),
         arr(0.5, -1.0, 2.0, 0.1, 0.2, 0.3).reshape(2, 3), wrt=None),
    case(r_store_repeated_pairs, arr(0.3, -0.2, 0.9), arr(0.5, -1.0, 2.0, 0.1, 0.2, 0.3).reshape(2, 3), wrt=None),
    case(r_helper_inlined_twice, arr(-0.5, 0.3, 0.7)),
    case(r_identity_then_stores, arr(-0.5, 1.2, -1.1)),
    case(r_both_arms_bind_in_a_loop_with_a_tail_read_only_in_the_arm, arr(-0.5, 0.3, 0.7), label="mixed"),
    case(r_both_arms_bind_in_a_loop_with_a_tail_read_only_in_the_arm, arr(0.9, 0.8, 0.7), label="if"),
    case(r_nested_loop_returns, arr(0.3, 0.9), label="inner"),
    case(r_nested_loop_returns, arr(0.3, 0.1), label="outer"),
    case(r_nested_loop_returns, arr(-0.3, 0.1), label="none"),
    case(r_early_return_then_while_return, arr(-1.3, -0.96), arr(-0.4, -1.3, -1.04), wrt=None, label="first"),
    case(r_early_return_then_while_return, arr(-1.3, -0.96), arr(-0.4, -1.3, 0.3), wrt=None, label="loop"),
    case(r_early_return_then_while_return, arr(-1.3, -0.96), arr(-0.4, -1.3, 0.9), wrt=None, label="last"),
    # 1. branches and conditions
    case(b_if_scalar, 0.7, label="positive"),
    case(b_if_scalar, -0.8, label="negative"),
    case(b_if_elif_else, arr(1.0, 0.5, 0.3), label="if"),
    case(b_if_elif_else, arr(0.2, -0.3, 0.1), label="elif"),
    case(b_if_elif_else, arr(-1.0, -0.5, -0.3), label="else"),
    case(b_nested_if, arr(1.0, 0.5), arr(1.0, 0.5), wrt=None, label="pp"),
    case(b_nested_if, arr(1.0, 0.5), arr(-1.0, 0.5), wrt=None, label="pn"),
    case(b_nested_if, arr(-1.0, 0.5), arr(1.0, 0.5), wrt=None, label="np"),
    case(b_nested_if, arr(-1.0, 0.5), arr(1.0, -0.5), wrt=None, label="nn"),
    case(b_ifexp, arr(1.0, 0.5), label="true"),
    case(b_ifexp, arr(-1.0, 0.5), label="false"),
    case(b_ifexp_inline, arr(1.0, 0.5), label="true"),
    case(b_ifexp_inline, arr(-1.0, 0.5), label="false"),
    case(b_ifexp_nested, V3, label="outer"),
    case(b_ifexp_nested, -V3, label="inner-true"),
    case(b_ifexp_nested, arr(-0.3, -0.4, 0.7), label="inner-false"),
    case(b_and_or_not, arr(1.0, 0.5), label="and"),
    case(b_and_or_not, arr(1.0, -0.5), label="or"),
    case(b_and_or_not, arr(-1.0, 0.7), label="not"),
    case(b_and_or_not, arr(-1.0, -0.7), label="else"),
    case(b_chained_comparison, arr(0.2, 0.5), label="inside"),
    case(b_chained_comparison, arr(0.7, 0.5), label="outside"),
    case(b_different_vars_per_arm, arr(0.2, 0.5), label="a"),
    case(b_different_vars_per_arm, arr(-0.2, 0.5), label="b"),
    case(b_one_arm, arr(0.2, 0.5), label="taken"),
    case(b_one_arm, arr(-0.2, -0.5), label="skipped"),
    case(b_defined_in_both_arms, arr(0.2, 0.5), label="else"),
    case(b_defined_in_both_arms, arr(0.9, 0.5), label="if"),
    case(b_one_arm_constant, V3, label="varied"),
    case(b_one_arm_constant, -V3, label="constant"),
    case(b_integer_flag, V3, 2, label="k2"),
    case(b_integer_flag, V3, 0, label="k0"),
    case(b_norm_condition, V3 * 0.5, V3, wrt=None, label="inside"),
    case(b_norm_condition, V3 * 3.0, V3, wrt=None, label="outside"),
    # 2. loops
    case(l_static_range, arr(0.3, -0.4)),
    case(l_param_range, arr(0.3, -0.4), 3, label="n3"),
    case(l_param_range, arr(0.3, -0.4), 0, label="n0"),
    case(l_data_dependent_range, arr(0.3, -0.4, 0.5)),
    case(l_start_stop_step, arr(0.3, -0.4, 0.5, 0.7, 0.2)),
    case(l_negative_step, V4),
    case(l_rows, R32),
    case(l_over_list, arr(0.3, -0.4)),
    case(l_over_tuple, arr(0.3, -0.4), arr(0.5, 1.5), wrt=None),
    case(l_enumerate, R32),
    case(l_zip, V3, arr(0.5, 1.5, -0.7), wrt=None),
    case(l_reversed, V3),
    case(l_nested, R32),
    case(l_triangular, V4),
    case(l_while_scalar, 0.7),
    case(l_while_array, V3),
    case(l_while_element_exit, arr(0.3, -0.4)),
    case(l_while_zero_trips, V3),
    case(l_break, arr(0.3, 0.4, -1.0, 2.0), label="breaks"),
    case(l_break, arr(0.3, 0.4, 1.0, 2.0), label="runs-out"),
    case(l_continue, arr(0.3, -0.4, -1.0, 2.0)),
    case(l_while_true_break, 0.7),
    case(l_while_break, arr(0.5, 0.4), label="breaks"),
    case(l_while_break, arr(-0.5, -0.4), label="runs-out"),
    case(l_while_continue, V4),
    case(l_nested_break, X32),
    case(l_nested_continue, X32),
    case(l_break_first_iteration, V3),
    case(l_continue_every_iteration, V3),
    case(l_loop_variable_after, V3),
    case(l_last_element_after, V4),
    case(l_zero_trip, V3),
    case(l_first_defined_in_loop, V3),
    case(l_params_reassigned, arr(0.3, -0.4), arr(0.5, 0.9), wrt=None),
    case(l_tuple_unpacking, arr(0.3, -0.4)),
    case(l_swap, 0.7, 0.4, wrt=None),
    case(l_aug_array, V3),
    case(l_aug_scalar, V4),
    case(l_loop_in_branch, arr(0.3, -0.4), label="loop"),
    case(l_loop_in_branch, arr(-0.3, -0.4), label="no-loop"),
    case(l_branch_in_loop, arr(0.3, -0.4, 0.6)),
    case(l_branch_vars_in_loop, V4),
    case(l_ifexp_in_loop, V4),
    case(l_condition_on_index, V4),
    case(l_while_in_for, arr(0.3, 1.4, 0.7)),
    case(l_inactive_then_active, 0.7),
    case(l_copy_previous, 0.7),
    case(l_redefine_in_branch, V3),
    case(l_while_defines_new, V3),
    case(l_two_loops_same_variable, V3),
    case(l_break_then_use, V4, label="breaks"),
    case(l_break_then_use, np.abs(V4), label="runs-out"),
    case(l_shrinking, V4),
    case(l_power_of_index, V3),
    case(l_over_parameters, V3, V3[::-1].copy(), wrt=None),
    case(l_loop_target_shadows_parameter, V3, V3 * 2.0, wrt="y"),
    case(l_empty_sequence, np.zeros(0), 2.0, wrt=None, label="empty"),
    case(l_empty_sequence, arr(0.5, -1.5), 2.0, wrt=None, label="two"),
    case(l_logistic_map, 0.3, 5),
    case(l_running_sum, V4),
    case(l_nested_if_break, arr(0.3, -0.4, 0.9, 0.5, 0.8)),
    # 3. returns
    case(r_early_in_branches, arr(0.3, -0.4), label="first"),
    case(r_early_in_branches, arr(-0.3, 0.4), label="second"),
    case(r_early_in_branches, arr(-0.3, -0.4), label="last"),
    case(r_many, 1.5, label="a"),
    case(r_many, 0.5, label="b"),
    case(r_many, -0.5, label="c"),
    case(r_many, -1.5, label="d"),
    case(r_early_in_loop, arr(0.3, -0.4, 0.9, 0.2), label="early"),
    case(r_early_in_loop, arr(0.3, -0.4, 0.2, 0.2), label="late"),
    case(r_early_in_nested_loops, R32, label="early"),
    case(r_early_in_nested_loops, arr(0.3, -0.4, 0.5, -0.7, 0.2, 0.1).reshape(3, 2), label="late"),
    case(r_in_while, 0.7, label="early"),
    case(r_in_while, 0.01, label="late"),
    case(r_in_while_true, 0.7),
    case(r_first_iteration, V3),
    case(r_tuple, arr(0.3, -0.4), label="early"),
    case(r_tuple, arr(-0.3, -0.4), label="late"),
    case(r_in_loop_in_branch_in_loop, X32, label="early"),
    case(r_in_loop_in_branch_in_loop, X32P, label="late"),
    case(r_in_for_in_while, V3, label="late"),
    case(r_in_for_in_while, V3 * 10.0, label="early"),
    # 4. calls
    case(c_helper, V3),
    case(c_helper_in_loop, V3),
    case(c_helper_in_branch, V3, label="call"),
    case(c_helper_in_branch, -V3, label="no-call"),
    case(c_helper_with_control_flow, V3),
    case(c_helper_tuple, V3),
    case(c_transitive, V3),
    case(c_activity_patterns, V3),
    case(c_inactive_arguments, V3),
    case(c_identity, V3),
    case(c_callee_stores, V3),
    case(c_default_argument, V3),
    case(c_default_argument_scalar, V3),
    case(c_keyword_argument, V3),
    case(c_active_keyword_argument, V3, 0.7, wrt=None),
    case(c_nested_def, V3),
    case(c_nested_def_closure, V3, V3[::-1].copy(), wrt=None),
    case(c_lambda, V3),
    case(c_nested_def_early_return, V3),
    case(c_nested_def_loop, V3),
    case(c_nested_def_name_clash, V3),
    case(c_nested_def_late_binding, V3),
    case(c_nested_def_return_in_loop, V3),
    case(c_lambda_in_loop, V3),
    case(c_lambda_default, V3),
    case(c_closure, V3, name="c_closure"),
    case(c_templated_callee, V3),
    # 5. globals and closure variables
    case(g_global_scalar, V3),
    case(g_global_array, V3),
    case(g_module_constants, V3),
    case(g_global_in_loop, V3),
    case(g_global_in_branch, V3, label="global"),
    case(g_global_in_branch, -V3, label="local"),
    case(g_closure_variable, V3, name="g_closure_variable"),
    # 6. augmented assignment and stores
    case(s_aug_assign, arr(0.3, -0.4), arr(0.5, 1.5), wrt=None),
    case(s_element_times_two, V3),
    case(s_add_row, R32, arr(0.5, 1.5), wrt=None),
    case(s_store_row, arr(0.3, -0.4)),
    case(s_store_column, arr(0.3, -0.4), arr(0.5, 1.5, 0.1), wrt=None),
    case(s_store_slice, V4, arr(0.5, 1.5), wrt=None),
    case(s_pool, arr(0.3, -0.4, 0.5, 0.7, 0.2, 1.1, 0.5, 0.2).reshape(4, 2)),
    case(s_add_into_zeros, 0.7),
    case(s_fancy_store, V3),
    case(s_store_into_parameter, V3, 0.7, wrt=None),
    case(s_parameter_recurrence, V3),
    case(s_overwrite_active, V4),
    case(s_store_in_branch, V3, label="if"),
    case(s_store_in_branch, arr(-0.3, -0.4, 0.6), label="else"),
    case(s_slice_store_in_loop, arr(0.3, -0.4, 0.6, 0.1, 0.9)),
    case(s_aug_slices, V4),
    case(s_recurrence, V4),
    case(s_negative_index, V4),
    case(s_scalar_into_slice, V4, 0.6, wrt=None),
    case(s_store_per_branch_in_loop, V4),
    case(s_prefix_sums, V3),
    case(s_parameter_element_chain, V4),
    case(s_row_times_vector, R32, arr(0.5, 1.5), wrt=None),
    case(s_rows_times_vector_in_loop, R32, arr(0.5, 1.5), wrt=None),
    case(s_fresh_array_per_iteration, V3),
    case(s_shift_by_one, V4),
    case(s_store_in_while, V4),
    case(s_array_created_in_branch, V3, label="created"),
    case(s_array_created_in_branch, -V3, label="computed"),
    case(s_boolean_mask_store, V3),
    case(s_row_aug_with_slice, X32, V3, wrt=None),
    case(s_row_read_with_slice, R23, 1),
    case(s_row_read_in_loop, R23),
    # 7. methods
    case(m_sum_axis, R23),
    case(m_mean, R23),
    case(m_dot, R23, V3, wrt=None),
    case(m_reshape, R23),
    case(m_T, R23),
    case(m_transpose, R23),
    case(m_astype, R23),
    case(m_copy, V3),
    case(m_max_axis, R23),
    case(m_max, R23),
    case(m_min, R23),
    case(m_prod, R23),
    case(m_std, R23),
    case(m_var, R23),
    case(m_ravel, R23),
    case(m_squeeze, R23),
    case(m_clip, arr(0.3, -0.9, 0.2, 1.1)),
    case(m_cumsum, R23),
    case(m_methods_in_loop, R23),
    # 8. containers and comprehensions
    case(k_append_and_read, V3),
    case(k_append_to_array, V3),
    case(k_append_and_stack, V3),
    case(k_append_in_branch, V4),
    case(k_literals, V3, V3 * 2.0, wrt=None),
    case(k_tuple_unpacking, V3, V3 * 2.0, wrt=None),
    case(k_dict_reads, V3, V3 * 2.0, wrt=None),
    case(k_listcomp_range, V4),
    case(k_listcomp_rows, R32),
    case(k_listcomp_condition, V3),
    case(k_listcomp_nested, R32),
    case(k_listcomp_zip, V3, V3 * 2.0, wrt=None),
    case(k_listcomp_shadows_variable, V3),
    case(k_listcomp_read_back, V3),
    case(k_listcomp_stack, V3),
    case(k_list_of_arrays_in_loop, V3, V3 * 2.0, wrt=None),
    # 9. pass-through statements
    case(p_passthrough, V3),
    case(p_print_in_loop, V3),
    case(p_assert_in_branch, V3, label="if"),
    case(p_assert_in_branch, -V3, label="else"),
]


def fresh(args):
    """The case's arguments, copied (a test must not see another test's writes)."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


# --------------------------------------------------------------------------
# the checks (as in gradcheck, with the optimize flag passed to srcad)

def _close(a, b, scale, rtol):
    return abs(a - b) <= rtol * scale + 1e-300


def check_reverse(f, args, wrt, optimize, rng=None, trials=2):
    """``<u, FD Jv> == <vjp(u), v>`` for random u, v."""
    rng = np.random.default_rng(1) if rng is None else rng
    positions = wrt_positions(f, args, wrt)
    given = srcad_wrt(f, args, wrt)
    vjp = srcad.autodiff(f, given, mode="reverse", optimize=optimize)
    output = f(*fresh(args))
    for _ in range(trials):
        u = like(output, rng)
        grads = as_tuple(vjp(*fresh(args), u), given)
        assert len(grads) == len(positions)
        for position, g in zip(positions, grads):
            assert_like_argument(g, args[position], f"gradient of argument {position} of {f.__name__}")
        v = random_directions(args, positions, rng)
        fd = fd_directional(lambda *a: f(*fresh(a)), args, positions, v)
        lhs = inner(u, fd)
        rhs = sum(inner(g, dv) for g, dv in zip(grads, v))
        scale = norm(u) * norm(fd) + sum(norm(g) * norm(dv) for g, dv in zip(grads, v))
        assert _close(lhs, rhs, scale, FD_RTOL), (
            f"{f.__name__} (optimize={optimize}): reverse mode disagrees with finite differences: "
            f"<u, FD Jv> = {lhs!r} but <vjp(u), v> = {rhs!r}")


def check_forward(f, args, wrt, optimize, rng=None, trials=2):
    """``jvp(v) == FD Jv`` elementwise for random v."""
    rng = np.random.default_rng(2) if rng is None else rng
    positions = wrt_positions(f, args, wrt)
    jvp = srcad.autodiff(f, srcad_wrt(f, args, wrt), mode="forward", optimize=optimize)
    output = f(*fresh(args))
    for _ in range(trials):
        v = random_directions(args, positions, rng)
        tangent = jvp(*fresh(args), *v)
        assert len(leaves(tangent)) == len(leaves(output)), (
            f"{f.__name__}: the tangent's structure differs from the output's")
        fd = fd_directional(lambda *a: f(*fresh(a)), args, positions, v)
        for k, (t, expected) in enumerate(zip(leaves(tangent), fd)):
            assert t.shape == expected.shape, f"{f.__name__}: tangent {k} has shape {t.shape}, not {expected.shape}"
            scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
            np.testing.assert_allclose(t, expected, rtol=FD_RTOL, atol=FD_RTOL * scale,
                                       err_msg=f"{f.__name__} (optimize={optimize}): forward mode "
                                               f"disagrees with finite differences (output {k})")


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_matches_finite_differences(function, args, wrt, mode, optimize):
    (check_reverse if mode == "reverse" else check_forward)(function, args, wrt, optimize)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_value_and_grad_vjp_and_jvp_return_fs_value(function, args, wrt, optimize):
    check_values(function, fresh(args), wrt, optimize=optimize)


def _freeze(value):
    """Make every array in ``value`` read-only (a write then raises instead of passing unseen)."""
    if isinstance(value, (tuple, list)):
        for item in value:
            _freeze(item)
    elif isinstance(value, np.ndarray):
        value.flags.writeable = False


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_never_mutates_arguments_seeds_or_tangents(function, args, wrt, mode, optimize):
    """Bitwise, and with read-only arrays: the derivative may not even try to write."""
    args = fresh(args)
    rng = np.random.default_rng(5)
    given = srcad_wrt(function, args, wrt)
    derivative = srcad.autodiff(function, given, mode=mode, optimize=optimize)
    if mode == "reverse":
        extra = [like(function(*fresh(args)), rng)]
    else:
        extra = [like(args[p], rng) for p in wrt_positions(function, args, wrt)]
    before = snapshot((args, extra))
    _freeze((args, extra))
    derivative(*args, *extra)
    assert same_bits(before, snapshot((args, extra))), (
        f"{function.__name__}: the {mode} derivative wrote into its arguments or its "
        f"{'seed' if mode == 'reverse' else 'tangents'}")


# --------------------------------------------------------------------------
# aliasing: never a silent wrong answer

ALIASING = [case(a_aug_through_alias, V3), case(a_store_through_alias, V3),
            case(a_store_through_view, R23[:, :2].copy()), case(a_nested_def_writes_its_argument, V3),
            case(a_store_through_loop_variable, R32), case(a_parameter_written_through_view, R32),
            case(a_rebound_only_in_a_branch, V3), case(a_copy_after_the_change_in_a_loop, V3),
            case(a_helper_array_built_in_a_loop, V3), case(a_dead_alias_then_store, V3),
            case(a_alias_read_again_in_a_loop, V3)]


def test_an_inlined_helper_building_an_array_in_a_loop_is_accepted():
    for mode in ("reverse", "forward"):
        assert "# _built_by_stores: " in srcad.source(a_helper_array_built_in_a_loop, mode=mode)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", ALIASING)
def test_aliased_updates_are_right_or_rejected(function, args, wrt, mode, optimize):
    """``z = y; z += 1`` changes ``y`` too (NumPy semantics): srcad must follow or say it cannot."""
    try:
        srcad.source(function, wrt=wrt, mode=mode, optimize=optimize)
    except srcad.SrcadError as error:
        assert str(error).startswith(THIS_FILE + ":"), f"the error does not point at the line:\n{error}"
        return
    (check_reverse if mode == "reverse" else check_forward)(function, args, wrt, optimize)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", ALIASING)
def test_aliased_updates_never_write_the_callers_arrays(function, args, wrt, mode, optimize):
    args = fresh(args)
    try:
        derivative = srcad.autodiff(function, wrt, mode=mode, optimize=optimize)
        derivative.source  # noqa: B018
    except srcad.SrcadError:
        return   # rejected with a clear error: nothing runs
    rng = np.random.default_rng(5)
    extra = [like(function(*fresh(args)), rng)] if mode == "reverse" else [like(args[0], rng)]
    before = snapshot((args, extra))
    derivative(*args, *extra)
    assert same_bits(before, snapshot((args, extra))), f"{function.__name__}: the {mode} derivative wrote " \
                                                       f"into the caller's arrays"


# --------------------------------------------------------------------------
# 9. print runs in the primal only; assert is kept


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_print_runs_once_per_call(mode, capsys):
    x = V3.copy()
    p_print_in_loop(x)
    expected = capsys.readouterr().out
    assert expected.count("iteration") == 2
    derivative = srcad.autodiff(p_print_in_loop, mode=mode)
    derivative(x, 1.0) if mode == "reverse" else derivative(x, np.ones(3))
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_failing_assert_fails_in_the_derivative(mode):
    x = np.ones(2)
    derivative = srcad.autodiff(p_passthrough, mode=mode)
    with pytest.raises(AssertionError, match="three values"):
        derivative(x, 1.0) if mode == "reverse" else derivative(x, np.ones(2))


# --------------------------------------------------------------------------
# 4. calls: cached per callee; a callee with a rule is a primitive; recursion


def test_callee_with_a_rule_is_used_as_a_primitive():
    for mode in ("reverse", "forward"):
        text = srcad.source(c_templated_callee, mode=mode)
        assert "derivative(" not in text, f"{mode}: the callee was transformed instead of using its rule:\n{text}"


def _caller_one(x):
    return np.sum(_cached_helper(x) * 2.0)


def _caller_two(x):
    return np.sum(_cached_helper(x * 3.0))


def _cached_helper(v, *, scale=1.0):   # keyword-only: not inlined, so called through its own derivative
    return np.tanh(v) * v * scale


def test_callee_derivative_is_built_once_per_callee(monkeypatch):
    built = []
    original = srcad.api.build

    def counting_build(func, *rest, **options):
        built.append(func.__name__)
        return original(func, *rest, **options)

    monkeypatch.setattr(srcad.api, "build", counting_build)
    monkeypatch.setattr(srcad.api, "_MEMORY", {})
    x = V3.copy()
    srcad.grad(_caller_one)(x)
    srcad.grad(_caller_two)(x)
    assert built.count("_cached_helper") == 1, f"derivatives built: {built}"


def fact(v, n):
    if n == 0:
        return v
    return fact(v * 2.0, n - 1)


def r_recursive(x):
    return np.sum(fact(x, 2))


def ping(v):
    return pong(v) * 2.0


def pong(v):
    if np.sum(v) > 100.0:
        return ping(v)
    return np.sin(v)


def r_mutually_recursive(x):
    return np.sum(ping(x))


@pytest.mark.parametrize("function,callee", [(r_recursive, "fact"), (r_mutually_recursive, "ping")],
                         ids=["self", "mutual"])
def test_recursion_calls_the_callees_derivative(function, callee):
    """Recursion, direct and mutual: the derivative calls the callee's derivative (tests/test_recursion.py)."""
    for optimize in (True, False):
        check_reverse(function, (V3.copy(),), 0, optimize)
        check_forward(function, (V3.copy(),), 0, optimize)
    for mode in ("reverse", "forward"):
        assert f"d{callee} = derivative({callee}" in srcad.source(function, mode=mode)


# --------------------------------------------------------------------------
# 5. globals are read as constants (and a rebound global is seen)


def test_globals_and_closure_values_are_constants():
    x = V3.copy()
    np.testing.assert_allclose(srcad.grad(g_global_scalar)(x), np.full(3, SCALE), rtol=1e-15)
    np.testing.assert_allclose(srcad.grad(g_global_array)(x), np.cos(x) * WEIGHTS, rtol=1e-15)
    np.testing.assert_allclose(srcad.autodiff(g_closure_variable, mode="forward")(x, np.ones(3)),
                               np.sum(np.cos(x) * np.array([0.5, 1.5, -1.0])), rtol=1e-14)


def test_rebinding_a_global_changes_the_derivative(monkeypatch):
    x = V3.copy()
    before = srcad.grad(g_global_scalar)(x)
    monkeypatch.setitem(globals(), "SCALE", 4.0)
    after = srcad.grad(g_global_scalar)(x)
    np.testing.assert_allclose(before, np.full(3, 2.5))
    np.testing.assert_allclose(after, np.full(3, 4.0))


def _outer_value(function, name):
    code = function.__code__
    if name in code.co_freevars:
        return function.__closure__[code.co_freevars.index(name)].cell_contents
    return function.__globals__[name]


def _set_outer_value(function, name, value):
    code = function.__code__
    if name in code.co_freevars:
        function.__closure__[code.co_freevars.index(name)].cell_contents = value
    else:
        function.__globals__[name] = value


WRT_OUTER = [
    (g_global_scalar, ("SCALE",)),
    (g_global_array, ("WEIGHTS",)),
    (g_global_scalar, ("x", "SCALE")),
    (g_global_in_loop, ("WEIGHTS", "SCALE")),
    (g_global_in_branch, ("SCALE",)),
    (g_closure_variable, ("k",)),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,names", WRT_OUTER,
                         ids=[f"{f.__name__}-{'-'.join(n)}" for f, n in WRT_OUTER])
def test_wrt_may_name_a_global_or_closure_variable(function, names, mode):
    """A global or closure variable named in ``wrt`` is differentiated like a parameter."""
    x = V3.copy()
    originals = {n: _outer_value(function, n) for n in names if n != "x"}
    base = [x if n == "x" else originals[n] for n in names]

    def of_wrt_values(*values):
        try:
            for name, value in zip(names, values):
                if name != "x":
                    _set_outer_value(function, name, value)
            return function(values[names.index("x")] if "x" in names else x)
        finally:
            for name, value in originals.items():
                _set_outer_value(function, name, value)

    rng = np.random.default_rng(9)
    directions = [like(b, rng) for b in base]
    fd = float(fd_directional(of_wrt_values, base, list(range(len(base))), directions)[0])
    if mode == "reverse":
        grads = srcad.grad(function, wrt=names)(x)
        got = sum(inner(g, dv) for g, dv in zip(grads, directions))
    else:
        got = float(srcad.autodiff(function, wrt=names, mode="forward")(x, *directions))
    assert math.isclose(got, fd, rel_tol=1e-6, abs_tol=1e-8), (
        f"{function.__name__} wrt {names} ({mode}): srcad gives {got!r}, finite differences {fd!r}")


# --------------------------------------------------------------------------
# the reverse-mode tape


def tape_pushes(text):
    return re.findall(r"\btape\.append\((.*)\)", text)


def l_linear_branches(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i]
        else:
            s = s - 2.0 * x[i]
    return s


def l_accumulate_arrays(x):
    y = np.zeros(3)
    for i in range(4):
        y = y + x * i
    return np.sum(y)


def l_exp_chain(x):
    y = x
    for i in range(3):
        y = np.exp(y)
    return np.sum(y)


TAPED = [l_running_sum, s_pool, l_accumulate_arrays, l_while_scalar, l_exp_chain, l_logistic_map,
         l_linear_branches, s_recurrence, s_store_row, l_while_array]


@pytest.mark.parametrize("function", TAPED, ids=[f.__name__ for f in TAPED])
def test_every_saved_value_is_read_by_the_backward_pass(function):
    """A value goes on the tape only if the backward pass reads it after popping it.

    It may read it for its shape only (``unbroadcast(g, s)``): srcad does not know the
    dimensions of the caller's arrays, so it cannot prove ``s`` and ``g`` alike.
    """
    wrt = "l" if function is l_logistic_map else 0
    text = srcad.source(function, wrt=wrt)
    lines = text.splitlines()
    for number, line in enumerate(lines):
        popped = re.match(r"\s*(\w+) = tape\.pop\(\)$", line)
        if popped:
            name = popped.group(1)
            later = "\n".join(lines[number + 1:])
            assert re.search(rf"\b{name}\b(?! = tape\.pop)", later), (
                f"{function.__name__} saves {name} but the backward pass never reads it:\n{text}")


# (function, wrt, the most values pushed per iteration, what they are).  The bounds pin what
# srcad does today; values read only for their shapes count, which is why some exceed the
# values an adjoint reads.
MAX_PUSHES = [
    (l_running_sum, 0, 2, "s and x[i], read for their shapes"),
    (s_pool, 0, 1, "the stored value, read for its shape"),
    (l_exp_chain, 0, 1, "exp's result"),
    (l_logistic_map, "l", 2, "the two factors of the product"),
    (l_linear_branches, 0, 5, "the branch decision, and the operands' shapes"),
    (s_store_row, 0, 3, "x * (i + 1), for the cosine, and shapes"),
    (l_while_array, 0, 3, "y, for the cosine, and shapes"),
]


@pytest.mark.parametrize("function,wrt,most,what", MAX_PUSHES, ids=[m[0].__name__ for m in MAX_PUSHES])
def test_loop_saves_only_what_the_backward_pass_reads(function, wrt, most, what):
    text = srcad.source(function, wrt=wrt)
    pushes = tape_pushes(text)
    assert 1 <= len(pushes) <= most, (f"{function.__name__} pushes {pushes} per iteration; the backward pass "
                                      f"reads only {what}:\n{text}")


@pytest.mark.parametrize("n", [0, 1, 5, 40])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_logistic_map_derivative_is_exact(n, mode):
    l0 = 0.3
    expected, l = 1.0, l0
    for _ in range(n):
        expected *= 4.0 - 8.0 * l
        l = 4.0 * l * (1.0 - l)
    derivative = srcad.autodiff(l_logistic_map, wrt="l", mode=mode)
    got = derivative(l0, n, 1.0)
    assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-300), (got, expected)


def test_trip_count_is_one_integer_not_a_push_per_iteration():
    text = srcad.source(l_while_scalar)
    assert re.search(r"\b(\w*trips\w*) \+= 1", text), text
    assert not any("trips" in p for p in tape_pushes(text)), text


def test_static_loop_records_no_trip_count():
    text = srcad.source(l_exp_chain)
    assert "trips" not in text, text


class _CountingTape(list):
    """A list that remembers its largest length."""

    def __init__(self):
        super().__init__()
        self.peak = 0

    def append(self, value):
        super().append(value)
        self.peak = max(self.peak, len(self))


def run_with_counting_tape(function, args, wrt=0):
    """Run the reverse derivative of ``function`` with an instrumented tape; return the tape."""
    derivative = srcad.autodiff(function, wrt=wrt)
    derivative(*args)   # loads the compiled function
    text = derivative.source
    name = re.search(r"^def (\w+)\(", text, re.M).group(1)
    tape_name = re.search(r"^    (\w+) = \[\]$", text, re.M).group(1)
    tapes = []
    namespace = dict(derivative._compiled.__globals__)
    namespace["_new_tape"] = lambda: tapes.append(_CountingTape()) or tapes[-1]
    exec(compile(text.replace(f"    {tape_name} = []", f"    {tape_name} = _new_tape()", 1), "<tape>", "exec"),
         namespace)
    result = namespace[name](*args)
    return tapes[0], result


@pytest.mark.parametrize("n", [3, 30])
def test_tape_grows_linearly_and_is_emptied(n):
    tape, _ = run_with_counting_tape(l_logistic_map, (0.3, n))
    assert len(tape) == 0, "the backward pass left values on the tape"
    assert tape.peak <= 3 * n, f"{tape.peak} values saved for {n} iterations"
    tape, _ = run_with_counting_tape(l_exp_chain, (V3.copy(),))
    assert len(tape) == 0 and tape.peak == 3


COPY_PER_ITERATION = [s_pool, s_store_row, s_recurrence, s_store_per_branch_in_loop]


@pytest.mark.parametrize("function", COPY_PER_ITERATION, ids=[f.__name__ for f in COPY_PER_ITERATION])
def test_backward_loop_does_not_copy_a_whole_adjoint_per_iteration(function):
    """``dA = np.copy(dA)`` inside a loop makes the backward pass quadratic in the array size."""
    text = srcad.source(function)
    copies = [line.strip() for line in text.splitlines()
              if re.match(r"^ {8,}(\w+) = (\w+\.copy|copied)\(\1\)$", line)]
    assert not copies, f"{function.__name__} copies a whole adjoint inside a loop: {copies}\n{text}"


# --------------------------------------------------------------------------
# unsupported constructs: an error at the construct, with a suggestion

_GLOBAL = 1.0


def u_yield(x):
    yield x * 2.0


def u_yield_from(x):
    yield from [x * 2.0]


async def u_async_def(x):
    return x * 2.0


def u_async_inside(x):
    async def inner(v):
        return v
    return x * 2.0


def u_global_write(x):
    global _GLOBAL
    _GLOBAL = 2.0
    return x * _GLOBAL


def u_nonlocal_write(x):
    k = 1.0

    def inner(v):
        nonlocal k
        k = 2.0
        return v * k
    return inner(x) * k


def u_class_inside(x):
    class Box:
        pass
    return x * 2.0


def u_del_item(x):
    y = x * 2.0
    del y[0]
    return y


UNSUPPORTED = [
    (u_yield, "yield x", "yield"),
    (u_yield_from, "yield from", "yield"),
    (u_async_def, "async def", "async"),
    (u_async_inside, "async def inner", "async"),
    (u_global_write, "global _GLOBAL", "global"),
    (u_nonlocal_write, "nonlocal k", "nonlocal"),
    (u_class_inside, "class Box", "class"),
    (u_del_item, "del y[0]", "del"),
]


def real_place(function, needle):
    """(line, 1-based column, text) of ``needle`` in ``function``'s source."""
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if needle in text:
            return first + offset, text.index(needle) + 1, text.rstrip("\n")
    raise AssertionError(f"{needle!r} is not in the source of {function.__name__}")


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,needle,word", UNSUPPORTED, ids=[u[0].__name__ for u in UNSUPPORTED])
def test_unsupported_construct_is_reported_at_its_line(function, needle, word, mode):
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.source(function, mode=mode)
    message = str(info.value)
    line, col, text = real_place(function, needle)
    lines = message.splitlines()
    assert lines[0] == f"{THIS_FILE}:{line}:{col}", f"expected the place of {needle!r}:\n{message}"
    assert lines[1].strip() == text.strip(), message
    explanation = " ".join(lines[3:])
    assert word in explanation, f"the message does not name the construct ({word!r}):\n{message}"
    what, _, hint = explanation.partition("; ")
    assert what and len(hint) > 10, f"no suggestion after '; ':\n{message}"
    assert "Traceback" not in message


# --------------------------------------------------------------------------
# generated code is valid Python, and errors are srcad errors


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_source_is_valid_python_or_a_srcad_error(function, args, wrt, mode, optimize):
    """Building a derivative gives code that compiles, or a ``SrcadError``: never a raw SyntaxError."""
    try:
        text = srcad.source(function, wrt=srcad_wrt(function, args, wrt), mode=mode, optimize=optimize)
    except srcad.SrcadError:
        return
    compile(text, "<generated>", "exec")


def u_star_parameters(*xs):
    return xs[0] * 2.0


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_star_parameters_are_written_out_per_call(mode):
    """``*xs`` is supported (tests/test_calls.py): the shown variant writes one argument out."""
    assert "def du_star_parameters(xs_0, " in srcad.source(u_star_parameters, wrt="xs", mode=mode)


def test_seed_positions_do_not_collide_with_callee_defaults():
    """Reverse mode of ``helper_total(x)`` (``scale`` left at its default) is 2 * 3 per element."""
    np.testing.assert_allclose(srcad.grad(c_default_argument_scalar)(np.ones(2)), [6.0, 6.0])
