"""Second derivatives through complex ``np.linalg.eigh``, ``eigvalsh``, ``svd`` and ``norm``.

Contract: for each real-valued ``f`` of a complex matrix or vector in
``CASES``, srcad's gradient ``g = srcad.grad(f)`` and its tangent map
``k(a) = srcad.autodiff(f, mode="forward")(a, w)`` are differentiated again
in both modes (reverse over reverse, forward over reverse, reverse over
forward, forward over forward) and checked against central finite
differences of ``g`` and ``k`` that move real and imaginary parts, with
``Re <u, Jv> = Re <J^T u, v>`` between the modes (srcad's pairing; README,
"Complex numbers").  Eigenvectors and singular vectors carry a free phase
each, held fixed to first order: the functions here depend on them only
through phase-free quantities (``|v|``, ``v v^H``, ``u v^H``), for which the
second derivative exists and is exact.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

RNG = np.random.default_rng(20)
A = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
STACK = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
TALL = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
Z = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
PROJECTOR = "{0}[..., :, :1] @ np.conj(np.swapaxes({0}[..., :, :1], -1, -2))"

# (the real function's body, its argument's value)
CASES = [
    ("np.sum(np.linalg.eigh(a)[0] ** 3)", A),
    ("np.sum(np.abs(np.linalg.eigh(a, UPLO='U')[1][0]) ** 2 * np.arange(3))", A),
    ("np.sum(" + PROJECTOR.format("np.linalg.eigh(a)[1]") + " * a)", STACK),
    ("np.sum(np.linalg.eigvalsh(a) ** 2 * np.arange(3)) + np.sum(np.linalg.eigvalsh(a, UPLO='U')[..., 0])", STACK),
    ("np.sum(np.linalg.svd(a, compute_uv=False) ** 3)", TALL),
    ("np.sum(np.linalg.svd(a)[1] ** 2 * np.arange(2))", TALL),
    ("np.sum(np.abs(np.linalg.svd(a)[0][0]) ** 2 * np.arange(3)) + np.sum(np.abs(np.linalg.svd(a)[2][:, 1]) ** 3)",
     A),
    ("np.sum(np.linalg.svd(a, full_matrices=False)[0] @ np.linalg.svd(a, full_matrices=False)[2] * a)", TALL),
    ("np.sum(np.abs(" + PROJECTOR.format("np.linalg.svd(a)[0]") + ") * np.linalg.svd(a)[1][..., :1, None])", STACK),
]
CASES += [(f"np.linalg.norm(a, {o!r})", Z) for o in (None, 1, 3, 0.5, -2, np.inf)]
CASES += [(f"np.linalg.norm(a, {o!r})", A) for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf)]
CASES += [("np.sum(np.abs(np.linalg.svd(a)[0][:2, :2]) ** 2 * np.arange(2))", TALL),   # full_matrices=True
          ("np.sum(np.abs(np.linalg.svd(a, full_matrices=False)[2][..., :2, :]) ** 2 * np.arange(3))", STACK),
          ("np.sum(np.linalg.norm(a, 'nuc', axis=(-1, -2), keepdims=True) ** 2)", STACK),
          ("np.sum(np.linalg.norm(a, -2, axis=(-2, -1)))", STACK),
          ("np.sum(np.linalg.norm(a, 'nuc', axis=(2, 1)) * np.linalg.norm(a, 2, axis=(1, 2)))", STACK),
          ("np.sum(np.linalg.norm(a, 3, axis=0, keepdims=True) ** 2)", TALL)]


def _function(body):
    return make_function(f"def f(a):\n    return np.real({body})\n", {"np": np, "inf": np.inf})


@pytest.mark.parametrize("body, value", CASES, ids=[case[0] for case in CASES])
def test_second_derivatives_in_every_composition_of_modes(body, value):
    f = _function(body)
    gradient = make_function("def g(a):\n    return gradient(a)\n", {"gradient": srcad.grad(f)})
    check_reverse(gradient, (value,))            # reverse over reverse
    check_forward(gradient, (value,))            # forward over reverse
    check_forward_reverse(gradient, (value,))
    direction = RNG.standard_normal(value.shape) + 1j * RNG.standard_normal(value.shape)
    tangent = make_function("def k(a):\n    return tangent(a, w)\n",
                            {"tangent": srcad.autodiff(f, mode="forward"), "w": direction})
    check_reverse(tangent, (value,))             # reverse over forward
    check_forward(tangent, (value,))             # forward over forward


def test_hvp_of_an_eigenvalue_matches_differences_of_the_gradient():
    f = _function("np.linalg.eigh(a + np.conj(a.T))[0][2] * np.linalg.svd(a, compute_uv=False)[0]")
    v = RNG.standard_normal(A.shape) + 1j * RNG.standard_normal(A.shape)
    step = 1e-6
    gradient = srcad.grad(f)
    by_differences = (gradient(A + step * v) - gradient(A - step * v)) / (2 * step)
    np.testing.assert_allclose(srcad.hvp(f, A, v), by_differences, rtol=1e-6, atol=1e-8)
