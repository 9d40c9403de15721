"""numpy.fft: every transform with ``n``/``s``, ``axis``/``axes`` and each ``norm``, in both modes.

Contract: each row of ``TRANSFORMS`` is differentiated with respect to a
real and to a complex argument (but the transforms of real input, whose
argument is real) and checked against central finite differences that move
real and imaginary parts (reverse and forward), and for
``Re <u, Jv> = Re <J^T u, v>`` between the modes (README, "Complex
numbers").  ``n``/``s`` both pad with zeros and truncate; odd and even
lengths give ``irfft`` both Hermitian weightings.  The real-valued helpers
(``fftshift``, ``fftfreq``...) keep their checks.
"""
import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward, check_forward_reverse, check_reverse, make_function

RNG = np.random.default_rng(11)
REAL_2D = RNG.standard_normal((3, 4))
COMPLEX_2D = REAL_2D + 1j * RNG.standard_normal((3, 4))
COMPLEX_3D = RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))
NORMS = (None, "ortho", "forward")

# (call with `a` the argument, the transform accepts complex input)
TRANSFORMS = [
    ("np.fft.fft(a{norm})", True), ("np.fft.fft(a, 6, axis=0{norm})", True), ("np.fft.fft(a, n=3{norm})", True),
    ("np.fft.ifft(a{norm})", True), ("np.fft.ifft(a, 2, 0{norm})", True), ("np.fft.ifft(a, n=7{norm})", True),
    ("np.fft.fft2(a{norm})", True), ("np.fft.fft2(a, s=(2, 5){norm})", True),
    ("np.fft.ifft2(a, axes=(1, 0){norm})", True), ("np.fft.ifft2(a, (4, 3){norm})", True),
    ("np.fft.fftn(a{norm})", True), ("np.fft.fftn(a, s=(5,), axes=(0,){norm})", True),
    ("np.fft.ifftn(a, s=(2, 2), axes=(0, 1){norm})", True), ("np.fft.ifftn(a{norm})", True),
    ("np.fft.rfft(a{norm})", False), ("np.fft.rfft(a, 7{norm})", False), ("np.fft.rfft(a, n=2, axis=0{norm})", False),
    ("np.fft.rfft2(a{norm})", False), ("np.fft.rfft2(a, s=(4, 5){norm})", False),
    ("np.fft.rfftn(a{norm})", False), ("np.fft.rfftn(a, s=(2, 3), axes=(1, 0){norm})", False),
    ("np.fft.irfft(a{norm})", True), ("np.fft.irfft(a, 7{norm})", True), ("np.fft.irfft(a, n=4, axis=0{norm})", True),
    ("np.fft.irfft(a, 3{norm})", True),
    ("np.fft.irfft2(a{norm})", True), ("np.fft.irfft2(a, s=(2, 5){norm})", True),
    ("np.fft.irfftn(a{norm})", True), ("np.fft.irfftn(a, s=(4, 3), axes=(1, 0){norm})", True),
]
CASES = [(call.format(norm="" if norm is None else f", norm={norm!r}"), arg)
         for call, accepts_complex in TRANSFORMS for norm in NORMS
         for arg in ((REAL_2D, COMPLEX_2D) if accepts_complex else (REAL_2D,))]


def _ids(case):
    return f"{case[0]}-{'complex' if np.iscomplexobj(case[1]) else 'real'}"


@pytest.mark.parametrize("call, arg", CASES, ids=[_ids(case) for case in CASES])
def test_transform_in_both_modes(call, arg):
    f = make_function(f"def f(a):\n    return {call}\n", {"np": np})
    check_reverse(f, (arg,))
    check_forward(f, (arg,))
    check_forward_reverse(f, (arg,))


def test_power_spectrum_of_a_real_signal_and_a_three_axis_transform():
    spectrum = make_function("def f(x):\n    return np.sum(np.abs(np.fft.rfft(x)) ** 2)\n", {"np": np})
    x = RNG.standard_normal(6)
    check_reverse(spectrum, (x,))
    check_forward(spectrum, (x,))
    cube = make_function("def f(a):\n    return np.fft.fftn(a, axes=(0, 2)) * np.fft.ifftn(a, s=(3, 2, 2))[0, 0, 0]\n",
                         {"np": np})
    check_reverse(cube, (COMPLEX_3D,))
    check_forward(cube, (COMPLEX_3D,))
    check_forward_reverse(cube, (COMPLEX_3D,))


def test_round_trip_is_the_identity():
    f = make_function("def f(x):\n    return np.sum(np.fft.irfft(np.fft.rfft(x), n=5) * w)\n",
                      {"np": np, "w": np.arange(5.0)})
    np.testing.assert_allclose(srcad.grad(f)(RNG.standard_normal(5)), np.arange(5.0), atol=1e-12)


def test_a_shifted_spectrum_in_both_modes():
    f = make_function("def f(x):\n    spectrum = np.fft.fftshift(np.fft.fft(x))\n"
                      "    return np.sum(np.abs(spectrum * w))\n", {"np": np, "w": np.arange(4.0) + 1.0})
    x = RNG.standard_normal(4)
    check_reverse(f, (x,))
    check_forward(f, (x,))


def test_shift_of_a_real_signal_in_both_modes():
    f = make_function("def f(x):\n    return np.sum(np.fft.ifftshift(np.fft.fftshift(x) * w))\n",
                      {"np": np, "w": np.arange(5.0)})
    x = np.linspace(-1.0, 1.0, 5)
    gradient = srcad.grad(f)(x)
    np.testing.assert_array_equal(gradient, np.fft.ifftshift(np.arange(5.0)))
    forward = srcad.autodiff(f, mode="forward")
    assert forward(x, np.eye(5)[2]) == pytest.approx(gradient[2])
