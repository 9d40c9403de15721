"""Programs the differential fuzzer (``benchmarks/fuzz_long.py``) found wrong or crashing, minimised.

Contract: each entry of ``FOUND`` is a minimised program (parameter kinds, argument seeds, f's module
body) that once crashed or gave a wrong derivative; ``tests/fuzz_check.check_program`` differentiates it
in reverse mode and forward mode and compares both with central finite differences, f's value and
``<u, J v> = <J^T u, v>``: every entry must come out ``ok``.
"""
import pytest

from fuzz_check import check_program, describe
from fuzz_programs import Program
from gradcheck import no_disk_cache  # noqa: F401 (autouse)

FOUND = [
    # seeds 59 and 170 (start 0): a set made in a loop body, iterated through `sorted`, was read by position
    # (`h[k]`), as a list would be: the check for "a name every binding of which makes a set" counted the loop
    # itself as one more binding (passes/loops.py).
    ("set_made_in_a_loop_then_sorted", "W", [0, 1], """\
def f(w):
    for i in range(2):
        h = {j % 2 for j in range(1)}
        t = sum(w[j] * 2.0 for j in sorted(h))
        w = np.sin(w * t)
    return np.sum(w)
"""),
    ("dict_made_in_a_loop_then_iterated", "V", [0], """\
def f(x):
    s = 0.0
    for i in range(2):
        d = {"a": x * 2.0, "b": x[0]}
        for name in d:
            s = s + np.sum(d[name] * x)
    return s
"""),
    # seed 2000682 (start 2000000): refused with "`descend` shares its memory": a call srcad cannot see into
    # was taken to share memory with the function's own name as well as with its arguments (relations._unknown).
    ("a_function_name_holds_no_array", "W,V,M", [2000682], """\
def descend(u, depth):
    if depth == 0:
        return np.tanh(u)
    return u * 0.5 + descend(np.log(1.0 + u * u), depth - 1)


def shadow17(a0, a1):
    t0 = 0.0
    return t0 + np.sum(a0 * 0.5)


def helper0(a0, a1):
    return (np.log1p(np.exp(a1[1])) + (a1[1] + np.array([0.5, -1.0, 2.0])))


def f(w, x, y):
    z0 = y * 1.0
    w1 = z0[:, 1]
    z2 = x * 1.0
    w3 = np.expand_dims(z2, 0)
    w3[0, 2] = (w1[0] - math.cos(w1[0]))
    t4 = descend(np.log(1.0 + (w1[0] + y[:, 0]) * (w1[0] + y[:, 0])), 2)
    t5 = np.exp(np.tanh(np.sin(np.sum(z0, axis=0))))
    if math.sqrt(1.0 + w[1] * w[1]) < 0.0:
        t6 = helper0((x[1:] + z0[1, 2]), (t4 if w1[0] < -0.3 else z2[1:])) * 1.0
    else:
        t6 = np.arctan((y[0, :] if (w1[0] if -z0[1, 2] < 0.5 else z2[-1]) < 0.5 else t5))
    t19 = shadow17((np.maximum(z0, y[::-1]))[np.array(np.abs(np.sqrt(1.0 + z2[-1] * z2[-1])) * 2.0, dtype=int) % 2], helper0(np.abs(x[1:]), (t4 * x[-1])))
    return (np.where(np.clip(np.log(1.0 + t6[-1] * t6[-1]), -1.0, 1.0) > np.max(z0[::-1]), np.clip(np.log(1.0 + t6[-1] * t6[-1]), -1.0, 1.0), np.max(z0[::-1]))) + np.sum(helper0(((np.arctan(z0)) @ ((t6[::-1] - w1[0]))), t5[1:])) + t19
"""),
    # seed 1514328 (start 1510000): a crash in the adjoint of np.outer, `z7 += np.outer(...)` in a branch after
    # which z7 is not read: its adjoint was still the 0.0 an adjoint starts from, and `@` takes no scalar.
    ("outer_of_an_adjoint_not_yet_made", "S", [1514328], """\
from fuzz_helpers import act


def even(u, depth):
    if depth == 0:
        return np.arctan(u)
    return np.sin(u) * odd(u, depth - 1)


def odd(u, depth):
    if depth == 0:
        return u * u
    return u + even(np.arctan(u), depth - 1)


def total(*parts):
    s = 0.0
    for p in parts:
        s = s + np.sum(np.log(1.0 + p * p) * p)
    return s


def helper0(a0, a1):
    t0 = ((np.clip(np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]]), -1.0, 1.0) if (a1[1] + a0[1]) < -0.3 else np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]])) - (np.where(a0[1] > 0.0, a0[1], 0.1 * a0[1]) * -np.array([0.5, -1.0, 2.0])))
    k1 = 0
    while k1 < 1 and np.linalg.norm(t0[0, :]) > 0.5:
        t2 = (t0[1] + (t0[::-1]).sum(axis=0)) / (1.0 + -(t0[1] + t0[0, :]) * -(t0[1] + t0[0, :]))
        for i3 in range(2, -1, -1):
            t0 += t0
            t2 *= t0[1, 2]
        if np.sqrt(1.0 + t2[-1] * t2[-1]) > 0.5:
            t4 = np.sin(t2[-1])
            t0[[0, 0], [2, 2]] = (np.sum(t2) - a0)
        else:
            z5 = t2 * 1.0
            np.copyto(z5, (np.abs(t0[0, :]) + np.arctan(t0[1])), where=z5 > 0.0)
        k1 = k1 + 1
    return np.where(t0[::-1] > 0.0, t0[::-1], 0.1 * np.mean(t0, axis=0))


def helper1(a0):
    z7 = np.zeros((2, 3))
    z7[1, 2] += np.arctan2(-a0[0], 2.0 + np.cos((a0[-1] * a0[-1])))
    if np.cos(a0[-1]) < -0.3:
        k8 = 0
        while k8 < 2:
            if (a0[0] * a0[-1]) < -0.3:
                return (np.hypot(z7[1, 2] - z7[1, 2], 0.0 * z7[1, 2]) + np.sum(z7[::-1]))
            k8 = k8 + 1
        t9 = np.where(a0[0] > 0.0, a0[0], 0.1 * a0[-1])
        k10 = 0
        while k10 < 3:
            if (t9 * z7[1, 2]) > 0.0:
                break
            s11 = f'{t9:.3f}'
            t12 = (a0) ** 2 * (1.0 if s11 else 0.5)
            a0 = a0 * 1.0
            z13 = t12 * 1.0
            np.put(z13, [0, 2, 0], ((t12[1:] - a0[:2]) * np.mean(z7, axis=1)))
            k10 = k10 + 1
            t9 = t9 - np.log1p(np.exp(t9))
        else:
            t9 = t9 + np.cos(a0[0])
        t15 = np.log1p(np.exp(-a0[-1]))
    else:
        z7 += np.outer(((z7) @ (z7[1])), np.maximum(np.array([0.5, -1.0, 2.0]), z7[0, :]))
    return a0[0] * 1.0


def f(s):
    t16 = odd(np.where(np.array([0.5, -1.0, 2.0]) > 0.0, np.array([0.5, -1.0, 2.0]), 0.1 * np.array([0.5, -1.0, 2.0])) / (1.0 + s / (1.0 + s * s) * s / (1.0 + s * s)), 1)
    for i17 in range(4):
        k18 = 0
        while k18 < 3:
            t19 = ((helper1(t16[::-1]) * (s * t16[-1])) * ((t16[-1] if np.clip(s, -1.0, 1.0) < -0.3 else t16[0]) * (0.25 * i17 if (s - s) > -0.3 else s)))
            t20 = total(np.tanh(np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]])), (t19 + t16[:2]), t16[-1])
            k18 = k18 + 1
        for i21 in range(3, -1, -1):
            t22 = -math.tanh((s * s))
    t16 = t16 * 1.0
    t23 = np.sin(s)
    for i24 in range(3):
        if math.hypot(s, t16[-1]) < -0.3:
            break
        t25 = t16[::-1] / (1.0 + np.maximum((t23 - t16[::-1]), t16[i24]) * np.maximum((t23 - t16[::-1]), t16[i24]))
        t23 = t23 + np.exp(np.tanh(s))
    else:
        t23 = t23 * np.cos(0.7)
    k26 = 0
    while k26 < 2 and (t23 + s) < 0.0:
        for i27 in range(1, 2):
            t29 = (lambda a28, b=2.0: a28 * b + np.sqrt(1.0 + a28 * a28))(t16[:2])
            t29 = (-helper1(t16) + ((t16[:2] - t23) + t29[1]))
            t30 = (helper1(t16) * (np.where(0.25 * i27 > 0.0, 0.25 * i27, 0.1 * t16[i27]) * -s))
        k26 = k26 + 1
    h31 = 2 * [(np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]]) * np.array(np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]]) * 2.0, dtype=int)) * 1.0]
    return (((t23 - (t23 if (t23 * s) > -0.3 else s)) if np.max(t16[1:]) < -0.3 else math.tanh((s * t16[-1])))) + helper1(t16[::-1]) + np.sum(h31[0] * h31[-1])
"""),
    # seed 1608115 (start 1605000): forward mode stored into the tangent of `t0 = --np.where(...)`, which the
    # optimiser had made `broadcast_like(...)` itself, a read-only view ("assignment destination is read-only"):
    # inlining `-t` with `t = -e` now goes down to `e` only when `e` is a new array (passes/inline_temporaries.py).
    ("a_double_negation_keeps_its_tangent_its_own", "S", [1608115], """\
def f(s):
    t0 = --np.where(s > 0.0, s, 0.1 * np.array([[0.5, -1.0, 2.0], [1.0, 0.25, -0.75]]))
    t0[1, 2] = np.maximum(s, (t0[::-1]).sum())
    return np.tanh((t0[::-1] + (s + t0[1])))
"""),
    # seed 2209541 (start 2205000): reverse mode added a complex adjoint into the real adjoint of `z15`:
    # `complex_values` took the comparison `np.real(np.exp(1j * z15[0])) > t9` for a complex value (it holds
    # `1j`), so the `np.where` it chooses by, and then `z15`, "may be complex" (a comparison gives booleans).
    ("a_comparison_of_real_parts_is_real", "M", [2209541], """def f(y):
    t9 = y[1, 2] * 1.0
    z15 = np.zeros(3)
    z15[2] = np.where(np.real(np.exp(1j * z15[0])) > t9, np.real(np.exp(1j * z15[0])), t9)
    return y[1] + np.sum(np.real(np.exp(1j * z15[:2])) * np.exp(np.tanh(np.real(np.exp(1j * z15[:2])))))
"""),
]


@pytest.mark.parametrize("kinds,seeds,body", [entry[1:] for entry in FOUND], ids=[entry[0] for entry in FOUND])
def test_found_program_differentiates(kinds, seeds, body):
    source = "import math\nimport numpy as np\n\n\n" + body
    parameters = tuple(body.split("def f(")[1].split(")")[0].replace(" ", "").split(","))
    program = Program(source, parameters, tuple(kinds.split(",")))
    for seed in seeds:
        outcome = check_program(program, seed)
        assert outcome.status == "ok", describe(program, outcome, seed)
