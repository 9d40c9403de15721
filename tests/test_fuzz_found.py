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
]


@pytest.mark.parametrize("kinds,seeds,body", [entry[1:] for entry in FOUND], ids=[entry[0] for entry in FOUND])
def test_found_program_differentiates(kinds, seeds, body):
    source = "import math\nimport numpy as np\n\n\n" + body
    parameters = tuple(body.split("def f(")[1].split(")")[0].replace(" ", "").split(","))
    program = Program(source, parameters, tuple(kinds.split(",")))
    for seed in seeds:
        outcome = check_program(program, seed)
        assert outcome.status == "ok", describe(program, outcome, seed)
