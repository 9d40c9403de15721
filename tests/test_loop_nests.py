"""Loop nests that store element by element: tape-free reverse mode (issue [kernels], item 1).

A function whose loops store into arrays element by element is differentiated,
when called with float arrays, by a variant generated for its arguments'
ranks (``srcad.source(f, ranks=...)`` shows it): ``A[i, j]`` of a 2-D ``A``
is then known to be a scalar, so no broadcast helper, copy or tape entry is
needed for it, and elements of read-only inputs are read again in the
backward loop instead of saved.  Every row runs against finite differences
in both modes and forward against reverse; the variant must agree with the
general derivative, and the rows marked tape-free must use no tape at all.
"""
from __future__ import annotations

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse


def pool(B):
    A = np.zeros((B.shape[0] - 2, B.shape[1]))
    for i in range(B.shape[0] - 2):
        for j in range(B.shape[1]):
            A[i, j] = (B[i, j] + B[i + 1, j] + B[i + 2, j]) / 3.0
    return A


def matmul_loops(B, C):
    n, m = B.shape
    A = np.zeros((n, C.shape[1]))
    for i in range(n):
        for j in range(C.shape[1]):
            for k in range(m):
                A[i, j] += B[i, k] * C[k, j]
    return A

def transpose(B):
    n, m = B.shape
    A = np.zeros((m, n))
    for i in range(n):
        for j in range(m):
            A[j, i] = B[i, j]
    return A


def product(B, C):
    A = np.zeros(B.shape)
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            A[i, j] = B[i, j] * C[i, j] + B[i, j] ** 2
    return A


def contraction(B, C, D):
    A = np.zeros((B.shape[0], C.shape[1]))
    for i in range(B.shape[0]):
        for j in range(C.shape[1]):
            for k in range(B.shape[1]):
                for l in range(B.shape[2]):
                    A[i, j] += B[i, k, l] * C[k, j] * D[l, j]
    return A


def convolution(B, W):
    n = B.shape[0] - W.shape[0] + 1
    m = B.shape[1] - W.shape[1] + 1
    A = np.zeros((n, m))
    for p in range(n):
        for q in range(m):
            for r in range(W.shape[0]):
                for s in range(W.shape[1]):
                    A[p, q] += B[p + r, q + s] * W[r, s]
    return A


def flatten(B):
    A = np.zeros(B.shape[0] * 4)
    for i in range(B.shape[0] * 4):
        A[i] = B[i // 4, i % 4]
    return A


def broadcast(b, m):
    A = np.zeros((b.shape[0], 3))
    for i in range(b.shape[0]):
        for j in range(3):
            A[i, j] = b[i] * m
    return A


def smooth(x):
    y = np.zeros(x.shape[0] - 1)
    for i in range(x.shape[0] - 1):
        y[i] = np.sin(x[i]) * np.cos(x[i + 1])
    return y


def rows_or_elements(B):
    A = np.zeros(B.shape)
    for i in range(B.shape[0]):
        A[i] = B[i] * B[i]   # elements of a 1-D B, rows of a 2-D one
    return A


LOOP_NESTS = [   # function, wrt, argument shapes, tape-free
    (pool, 0, [(5, 4)], True),
    (matmul_loops, (0, 1), [(3, 4), (4, 2)], True),
    (transpose, 0, [(3, 4)], True),
    (product, (0, 1), [(3, 4), (3, 4)], True),
    (contraction, (0, 1, 2), [(2, 3, 4), (3, 2), (4, 2)], True),
    (convolution, (0, 1), [(5, 6), (2, 3)], True),
    (flatten, 0, [(3, 4)], True),
    (broadcast, (0, 1), [(3,), ()], True),
    (smooth, 0, [(6,)], False),   # sin and cos of elements are saved: recomputing them costs more
    (rows_or_elements, 0, [(4,)], True),
    (rows_or_elements, 0, [(4, 3)], False),
]


def _arguments(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, shape) if shape else float(rng.uniform(-1.0, 1.0)) for shape in shapes]


def _ids(rows):
    return [f"{row[0].__name__}-{'x'.join(str(len(s)) for s in row[2])}" for row in rows]


@pytest.mark.parametrize("function, wrt, shapes, tape_free", LOOP_NESTS, ids=_ids(LOOP_NESTS))
def test_loop_nests_are_differentiated_right(function, wrt, shapes, tape_free):
    args = _arguments(shapes)
    check_reverse(function, args, wrt)
    check_forward(function, args, wrt)
    check_forward_reverse(function, args, wrt)


@pytest.mark.parametrize("function, wrt, shapes, tape_free", LOOP_NESTS, ids=_ids(LOOP_NESTS))
def test_the_rank_variant_runs_and_agrees_with_the_general_derivative(function, wrt, shapes, tape_free):
    args = _arguments(shapes, seed=1)
    ranks = tuple(len(shape) for shape in shapes)
    seed = np.random.default_rng(2).uniform(-1.0, 1.0, np.shape(function(*args)))
    derivative = srcad.autodiff(function, wrt, mode="reverse")
    specialised = derivative(*args, seed)
    assert ranks in derivative._rank_variants, "the call did not go to the variant for these ranks"
    general = derivative._compiled(*args, seed)
    for a, b in zip(np.atleast_1d(specialised) if not isinstance(specialised, tuple) else specialised,
                    np.atleast_1d(general) if not isinstance(general, tuple) else general):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    source = srcad.source(function, wrt, ranks=ranks)
    assert ("tape" not in source) == tape_free, source


def test_a_function_without_element_stores_gets_no_variant():
    def vectorised(x):
        return np.sum(np.tanh(x) * x)
    derivative = srcad.grad(vectorised)
    derivative(np.ones((2, 3)))
    assert derivative._rank_variants is False


def test_the_matmul_loops_variant_is_exactly_this():
    source = srcad.source(matmul_loops, (0, 1), ranks=(2, 2))
    backward = source[source.index("    for i in reversed"):]
    assert backward == (
        "    for i in reversed(range(n)):\n"
        "        # for j in range(C.shape[1]):\n"
        "        for j in reversed(range(C.shape[1])):\n"
        "            # for k in range(m):\n"
        "            for k in reversed(range(m)):\n"
        "                # A[i, j] += B[i, k] * C[k, j]\n"
        "                dtotal = dA[i, j]\n"
        "                dC[k, j] += B[i, k] * dtotal\n"
        "                dB[i, k] += dtotal * C[k, j]\n"
        "    return dB, dC\n"), backward
    assert "# the variant for arguments B 2-D, C 2-D" in source


def test_calls_with_other_ranks_build_their_own_variant():
    derivative = srcad.autodiff(rows_or_elements, 0, mode="reverse")
    for shape in [(4,), (4, 3), (4,)]:
        x = _arguments([shape])[0]
        np.testing.assert_allclose(derivative(x, np.ones(shape)), 2.0 * x, rtol=1e-12)
    assert set(derivative._rank_variants) == {(1,), (2,)}
