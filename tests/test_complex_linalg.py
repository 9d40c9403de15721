"""Complex ``np.linalg.eigh``/``eigvalsh``/``svd``/``norm``, ``np.sort``, and the refusals around them.

Contract:
- ``CASES``: each row is differentiated in both modes against central finite
  differences that move real and imaginary parts, and ``Re <u, Jv> = Re <J^T u, v>``
  (srcad's pairing; README, "Complex numbers").  Eigenvectors and singular
  vectors enter only through functions that do not depend on their phases
  (``|v|``, ``v v^H``, ``u v^H``), the functions that have a derivative.
- ``NORMS``: every ``ord`` NumPy accepts for complex vectors and matrices,
  with ``axis`` and ``keepdims``, checked the same way.
- the gradient of a real function is ``df/dx - i df/dy`` (autograd's value):
  checked against closed forms for the 2-norm, the nuclear norm and the
  eigenvalues of a Hermitian matrix.
- second derivatives through these rules: ``test_second_order_complex_linalg.py``;
  ``np.maximum``/``np.minimum`` of complex numbers raise
  ``ComplexError`` naming the ``np.where`` to write, and that ``np.where`` is
  differentiated exactly.
"""
import numpy as np
import pytest

import srcad
from srcad.errors import UnsupportedValueError

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
STACK = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
TALL = RNG.standard_normal((4, 2)) + 1j * RNG.standard_normal((4, 2))
Z = RNG.standard_normal(5) + 1j * RNG.standard_normal(5)
X = RNG.standard_normal(3)
S = RNG.standard_normal((3, 3))
PROJECTOR = "{0}[..., :, :1] @ np.conj(np.swapaxes({0}[..., :, :1], -1, -2))"

# (function body; the arguments' names; their values)
CASES = [
    ("np.linalg.eigh(a)[0] * x", "a, x", (A, X)),
    ("np.linalg.eigh(a + np.conj(a.T))[0]", "a", (A,)),
    ("np.abs(np.linalg.eigh(a, UPLO='U')[1]) ** 2", "a", (A,)),
    (PROJECTOR.format("np.linalg.eigh(a)[1]"), "a", (STACK,)),
    ("np.linalg.eigh(s + 1j * a.real)[0] * np.exp(1j * x)", "s, a, x", (S, A, X)),   # real inputs among complex
    ("np.linalg.eigvalsh(a) ** 2 + np.linalg.eigvalsh(a, UPLO='U')", "a", (STACK,)),
    ("np.linalg.svd(t)[1]", "t", (TALL,)),
    ("np.linalg.svd(np.swapaxes(t, 0, 1), compute_uv=False) ** 3", "t", (TALL,)),
    ("np.linalg.svd(t, full_matrices=False)[0] @ np.linalg.svd(t, full_matrices=False)[2]", "t", (TALL,)),
    ("np.abs(np.linalg.svd(a)[0]) + np.abs(np.linalg.svd(a)[2]) ** 2", "a", (STACK,)),
    (PROJECTOR.format("np.linalg.svd(a)[0]") + " * np.linalg.svd(a)[1][..., :1, None]", "a", (STACK,)),
    ("np.linalg.eigh(a)[0][:2] * a[0, :2] + np.linalg.svd(a)[1][1:] * a[1, 1:]", "a", (A,)),   # real parts, sliced
    ("np.sort(z) * z[::-1] + np.sort(z * 1j)", "z", (Z,)),
    ("np.sort(a, axis=0)[1] + np.sort(a, axis=None)[:3]", "a", (A,)),
]

VECTOR_ORDS = [None, 1, 2, 3, 0.5, -1, -2, np.inf, -np.inf, 0]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
NORMS = ([(f"np.linalg.norm(z, {o!r})", "z", (Z,)) for o in VECTOR_ORDS]
         + [(f"np.linalg.norm(a, {o!r})", "a", (A,)) for o in MATRIX_ORDS]
         + [(f"np.linalg.norm(t, {o!r}, axis=0, keepdims=True)", "t", (TALL,)) for o in (None, 1, 3, np.inf)]
         + [(f"np.linalg.norm(a, {o!r}, axis=(2, 1))", "a", (STACK,)) for o in MATRIX_ORDS]
         + [("np.linalg.norm(a, axis=-1) * np.linalg.norm(t) + np.linalg.norm(z * x[0], keepdims=True)",
             "a, t, z, x", (STACK, TALL, Z, X))])


def _function(body, names):
    return make_function(f"def f({names}):\n    return np.asarray({body})\n", {"np": np, "inf": np.inf})


@pytest.mark.parametrize("body, names, args", CASES + NORMS, ids=[case[0] for case in CASES + NORMS])
def test_both_modes_against_finite_differences(body, names, args):
    f = _function(body, names)
    check_reverse(f, args)
    check_forward(f, args)
    check_forward_reverse(f, args)


def unpacked(a, z):
    w, v = np.linalg.eigh(a)
    u, s, vh = np.linalg.svd(a)
    return w[1:] * z[:2] + s[:2] * np.abs(v[0, 1:] * vh[1:, 0]) + np.linalg.norm(u[:, :2] * z[2], axis=0)


def test_unpacked_outputs_in_both_modes():
    check_reverse(unpacked, (A, Z))
    check_forward(unpacked, (A, Z))
    check_forward_reverse(unpacked, (A, Z))


def test_gradient_of_the_two_norm_is_conj_z_over_norm():
    f = _function("np.linalg.norm(z)", "z")
    np.testing.assert_allclose(srcad.grad(f)(Z), np.conj(Z) / np.linalg.norm(Z), rtol=1e-13)


def test_gradient_of_the_nuclear_norm_is_conj_u_vh():
    u, _, vh = np.linalg.svd(TALL, full_matrices=False)
    f = _function("np.linalg.norm(t, 'nuc')", "t")
    np.testing.assert_allclose(srcad.grad(f)(TALL), np.conj(u @ vh), rtol=1e-12)


def test_gradient_of_an_eigenvalue_of_a_hermitian_matrix():
    # w_k = v_k^H h v_k for h = a + a^H: dw_k = 2 Re(v_k^H da v_k), so the gradient is 2 conj(v_k v_k^H)
    hermitian = A + np.conj(A.T)
    v = np.linalg.eigh(hermitian)[1][:, 2]
    outer = np.outer(v, np.conj(v))
    f = _function("np.linalg.eigh(a + np.conj(a.T))[0][2]", "a")
    np.testing.assert_allclose(srcad.grad(f)(A), 2.0 * np.conj(outer), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_sort_at_equal_real_parts_is_refused(mode):
    # 1 + 2j and 1 - 1j: NumPy puts 1 - 1j first, and the order flips as the real parts move apart
    tied = np.array([1 + 2j, 0.5 + 0j, 1 - 1j])
    f = _function("np.sort(z) * z", "z")
    derivative = srcad.autodiff(f, mode=mode)
    with pytest.raises(UnsupportedValueError, match=r"z\[np.argsort\(z\)\]") as info:
        derivative(tied, tied * 0.0 + 1.0)
    assert ":2: return" in "\n".join(getattr(info.value, "__notes__", []))   # the user's line, noted
    # the gather the message names is the derivative with NumPy's order held fixed (a constant permutation,
    # checked against finite differences); equal entries are a kink, not a jump, and are differentiated too
    def fixed(values):   # z[order] * z with the order of ``values`` a constant
        return make_function("def f(z):\n    return z[order] * z\n", {"order": np.argsort(values)})

    check_reverse(fixed(tied), (tied,))
    seed = np.array([0.3 - 1j, 2.0, -0.5j])
    gathered = srcad.autodiff(_function("z[np.argsort(z)] * z", "z"))(tied, seed)
    np.testing.assert_allclose(gathered, srcad.autodiff(fixed(tied))(tied, seed), rtol=1e-14)
    equal = np.array([1 + 2j, 0.5 + 0j, 1 + 2j])
    np.testing.assert_allclose(derivative(equal, seed), srcad.autodiff(fixed(equal), mode=mode)(equal, seed),
                               rtol=1e-14)


def test_sort_of_complex_numbers_to_second_order():
    srcad.check_grads(_function("np.sum(np.abs(np.sort(z) * z) ** 2)", "z"), (Z,), order=2)


@pytest.mark.parametrize("function, sign", [("np.maximum", ">="), ("np.minimum", "<="), ("np.fmax", ">=")])
def test_maximum_of_complex_numbers_is_refused_with_the_choice_to_write(function, sign):
    f = _function(f"np.abs({function}(z, w))", "z, w")
    with pytest.raises(srcad.ComplexError, match=f"np.where\\(np.real\\(z\\) {sign} np.real\\(w\\), z, w\\)") as info:
        srcad.grad(f)(Z, Z[::-1])
    assert ":2:" in str(info.value)   # the user's line
    # the fix the message names is valid Python, and srcad differentiates it
    for fix in (f"np.where(np.real(z) {sign} np.real(w), z, w)", f"np.where(np.abs(z) {sign} np.abs(w), z, w)"):
        fixed = _function(f"np.abs({fix})", "z, w")
        check_reverse(fixed, (Z, Z[::-1] * 0.5))
        check_forward(fixed, (Z, Z[::-1] * 0.5))
