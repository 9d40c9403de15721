"""A comprehension's first iterable is read in the enclosing scope, even when a loop variable shadows it.

Contract:
- In ``[a * 2.0 for a in a[::-1]]`` and ``min(a1 * b2 for a1, b2 in zip(-a1[0, :], a1[0, :]))``
  the first iterable reads the function's ``a``/``a1``; the loop variables bind only inside.  The
  lowering once read the loop variable's renamed version there (a loud ``UnboundLocalError``, and
  a silently wrong value had that name been bound before; fuzz seed 705679).  Later iterables and
  conditions see the earlier loop variables, as in Python.
- Every row: both modes against central differences, ``<u, Jv> = <J^T u, v>``, and values.
"""
import numpy as np
import pytest

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_both_modes


def generator_shadows_its_iterable(a):
    return sum(a * 2.0 for a in a[::-1]) + np.sum(a ** 2)


def list_shadows_its_iterable(a):
    values = [np.sin(a) for a in a]
    return sum(values) * a[0]


def pairs_shadow_their_iterable(a1):
    t3 = min(a1 * b2 for a1, b2 in zip(-a1[0, :], a1[0, :]))
    return t3 + np.sum(a1)


def shadowed_after_an_earlier_binding(x):
    total = 0.0
    for k in range(2):
        total = total + sum(x * w for x, w in zip(x, [1.0, 2.0, 3.0]))
        x = x * 0.5
    return total


def second_iterable_reads_the_first_target(rows):
    return sum(v * v for row in rows for v in row[1:])


RNG = np.random.default_rng(13)
CASES = [
    (generator_shadows_its_iterable, (RNG.standard_normal(3),)),
    (list_shadows_its_iterable, (RNG.standard_normal(3),)),
    (pairs_shadow_their_iterable, (RNG.uniform(0.5, 1.5, (2, 3)) * np.array([1.0, -1.3, 0.7]),)),
    (shadowed_after_an_earlier_binding, (RNG.standard_normal(3),)),
    (second_iterable_reads_the_first_target, (RNG.standard_normal((2, 3)),)),
]
IDS = [case[0].__name__ for case in CASES]


@pytest.mark.parametrize("function, args", CASES, ids=IDS)
def test_both_modes(function, args):
    check_both_modes(function, args)
