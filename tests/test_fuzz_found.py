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
]


@pytest.mark.parametrize("kinds,seeds,body", [entry[1:] for entry in FOUND], ids=[entry[0] for entry in FOUND])
def test_found_program_differentiates(kinds, seeds, body):
    source = "import math\nimport numpy as np\n\n\n" + body
    parameters = tuple(body.split("def f(")[1].split(")")[0].replace(" ", "").split(","))
    program = Program(source, parameters, tuple(kinds.split(",")))
    for seed in seeds:
        outcome = check_program(program, seed)
        assert outcome.status == "ok", describe(program, outcome, seed)
