"""No rule or runtime helper turns a duck array (Dask, CuPy...) into a NumPy array: the spec table, both modes.

Contract:
- Every case of ``tests/specs.py`` whose primal NumPy itself dispatches (the
  function, run on ``Duck`` inputs, neither raises nor coerces: see
  ``tests/duck_array.py``) is differentiated in reverse and in forward mode
  with ``Duck`` arguments, seeds and tangents.  No coercion may happen, every
  derivative of an array argument must come back as a ``Duck`` (never a NumPy
  array), and its numbers must equal the NumPy derivative's, which
  ``tests/test_templates.py`` checks against finite differences.
- ``COERCING`` lists the rows whose rule still coerces, with the reason; the
  README lists them too.  Each listed row is tested to coerce still (so the
  list cannot go stale silently), and a row not listed must not coerce.

Example::

    python -m pytest -q -p no:cacheprovider tests/test_duck_arrays.py
"""
from __future__ import annotations

import numpy as np
import pytest

import srcad

from duck_array import COERCIONS, Coercion, Duck, unwrap, wrap
from gradcheck import like, no_disk_cache  # noqa: F401 (autouse fixture)
from specs import SPECS, cases

# why a listed row's derivative coerces or leaves the duck array's type; README "Duck arrays: Dask and CuPy"
WHY = {
    "scatter": "adds into a new NumPy array with np.add.at (repeated indices add up); Dask has no lazy scatter-add",
    "einsum": "writes the gradient through a writable np.einsum view of a new NumPy array",
    "stencil": "accumulates the spacing's gradient into NumPy arrays, one stencil offset at a time",
    "zeros": "checks the data for zeros (a bool of an array) to choose the exact formula",
    "extra": "checks that the adjoint of the discarded columns is zero (a bool of an array) before refusing it",
    "helper": "a runtime helper's own rule builds its result in a new NumPy array",
    "complex": "a duck array of complex numbers: the complex variant is chosen for NumPy arrays only, so it is refused "
               "(WrtError) rather than differentiated",
    "checkpoint": "a checkpointed loop keeps its snapshots as NumPy arrays",
}
# rows (their labels in specs.py) whose derivative still does: the key into WHY
COERCING = {
    "np.take": "scatter",
    "np.take-axis1": "scatter",
    "np.take-wrap": "scatter",
    "np.take_along_axis": "scatter",
    "np.take_along_axis-repeated": "scatter",
    "np.sort": "scatter",
    "np.sort-axis0": "scatter",
    "np.sort-flat": "scatter",
    "np.partition": "scatter",
    "np.partition-flat": "scatter",
    "np.partition-kths-axis0": "scatter",
    "np.repeat-counts-axis1": "scatter",
    "np.interp": "scatter",
    "np.interp-list-knots": "scatter",
    "np.interp-list-points": "scatter",
    "np.einsum-trace": "einsum",
    "np.einsum-diagonal": "einsum",
    "np.gradient-coordinates": "stencil",
    "np.gradient-coordinates-axis0": "stencil",
    "np.gradient-both-axes": "stencil",
    "np.cumprod": "zeros",
    "np.cumprod-axis0": "zeros",
    "np.cumprod-axis1": "zeros",
    "np.nancumprod": "zeros",
    "np.nancumprod-axis0": "zeros",
    "np.linalg.qr": "extra",
    "np.linalg.qr-complete": "extra",
    "np.linalg.qr-complete-r": "extra",
    "np.linalg.qr-r-of-reduced": "extra",
    "np.linalg.svd": "extra",
    "np.linalg.svd-square": "extra",
    "np.linalg.svd-values-of-full": "extra",
    "np.linalg.lstsq": "extra",
    "np.linalg.lstsq-all": "extra",
    "np.linalg.lstsq-residuals": "extra",
    "prod_others": "helper",
    "prod_others-axis1": "helper",
    "norm_direction-ord1": "helper",
    "gradient_restack": "helper",
    "unarray": "helper",
    "unarray-array": "helper",
    "unarray-nested": "helper",
    "unpermuted": "helper",
    "checkpointed_loop": "checkpoint",
    "close_real": "complex",
    "complex_abs": "complex",
    "conjugate": "complex",
    "fft_fitted": "complex",
    "fft_fitted-inverse": "complex",
    "fft_transpose": "complex",
    "fft_transpose-inverse": "complex",
    "imag_part": "complex",
    "irfft_fitted": "complex",
    "irfft_transpose": "complex",
    "like_kind": "complex",
    "like_real": "complex",
    "np.absolute-complex": "complex",
    "np.angle-complex": "complex",
    "np.concatenate-complex": "complex",
    "np.conjugate-complex": "complex",
    "np.cos-complex": "complex",
    "np.cosh-complex": "complex",
    "np.dot-complex": "complex",
    "np.einsum-complex": "complex",
    "np.exp-complex": "complex",
    "np.fft": "complex",
    "np.fft2": "complex",
    "np.fftn": "complex",
    "np.ifft": "complex",
    "np.ifftn": "complex",
    "np.imag-complex": "complex",
    "np.irfft": "complex",
    "np.irfft-odd": "complex",
    "np.irfft2": "complex",
    "np.irfftn": "complex",
    "np.log-complex": "complex",
    "np.mean-complex": "complex",
    "np.prod-complex": "complex",
    "np.real-complex": "complex",
    "np.real_if_close-complex": "complex",
    "np.reciprocal-complex": "complex",
    "np.reshape-complex": "complex",
    "np.sin-complex": "complex",
    "np.sinh-complex": "complex",
    "np.sqrt-complex": "complex",
    "np.square-complex": "complex",
    "np.stack-complex": "complex",
    "np.sum-complex": "complex",
    "np.tan-complex": "complex",
    "np.tanh-complex": "complex",
    "np.linalg.eigh-complex-values": "complex",
    "np.linalg.eigh-complex-vectors": "complex",
    "np.linalg.eigh-complex-projector-upper": "complex",
    "np.linalg.eigvalsh-complex": "complex",
    "np.linalg.svd-complex-values": "complex",
    "np.linalg.svd-complex-values-only": "complex",
    "np.linalg.svd-complex-vectors": "complex",
    "np.linalg.svd-complex-polar": "complex",
    "np.linalg.norm-complex": "complex",
    "np.linalg.norm-complex-p": "complex",
    "np.linalg.norm-complex-max": "complex",
    "np.linalg.norm-complex-axis": "complex",
    "np.linalg.norm-complex-fro-nuc": "complex",
    "np.linalg.norm-complex-spectral": "complex",
    "np.linalg.norm-complex-matrix-1-inf": "complex",
    "np.sort-complex": "complex",
    "np.sort-complex-axis0": "complex",
    "hermitian_eigh": "complex",
    "hermitian_eigvalsh": "complex",
    "complex_svd": "complex",
    "complex_norm": "complex",
    "complex_sort": "complex",
    "np.transpose-complex": "complex",
    "op.add-complex": "complex",
    "op.getitem-complex": "complex",
    "op.matmul-complex": "complex",
    "op.mul-complex": "complex",
    "op.mul-complex-real": "complex",
    "op.neg-complex": "complex",
    "op.pow-complex-literal": "complex",
    "op.sub-complex": "complex",
    "op.truediv-complex": "complex",
    "phase": "complex",
    "real_part": "complex",
    "rfft_fitted": "complex",
    "rfft_transpose": "complex",
    "unit_phase": "complex",
}


def _dispatches(case) -> bool:
    """Whether the row's own function runs on ``Duck`` inputs without coercing them."""
    try:
        output = case.function(*wrap(case.inputs()))
    except Exception:   # noqa: BLE001 -- a coercion or a library that does not take duck arrays
        return False
    return all(not isinstance(leaf, np.ndarray) for leaf in _raw_leaves(output))


def _raw_leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _raw_leaves(item)]
    return [value]


ALL_CASES = cases(SPECS)
DISPATCHED = [case for case in ALL_CASES if _dispatches(case)]
CLEAN = [case for case in DISPATCHED if case.spec.label not in COERCING]
LISTED = [case for case in DISPATCHED if case.spec.label in COERCING]   # tried together, per row


def _derivative_args(case, mode, rng):
    """The NumPy arguments of the mode's derivative call: f's inputs, then the seed or the tangents."""
    args = case.inputs()
    extra = [like(case.function(*args), rng)] if mode == "reverse" else [like(arg, rng) for arg in args]
    return list(args) + extra


def _run(case, mode, args):
    derivative = srcad.autodiff(case.function, wrt=tuple(range(len(case.spec.arguments))), mode=mode)
    return derivative(*args)


def _duck_failure(case, mode) -> str:
    """What goes wrong with ``Duck`` arguments in ``mode``: a coercion, a NumPy array among the results, or
    other numbers than NumPy's; '' when nothing does."""
    numpy_args = _derivative_args(case, mode, np.random.default_rng(5))
    expected = _run(case, mode, numpy_args)
    COERCIONS.clear()
    try:
        result = _run(case, mode, wrap(numpy_args))
    except Coercion:
        return f"the derivative coerced a duck array:\n{COERCIONS[0]}"
    except Exception as error:   # noqa: BLE001 -- NumPy turns a coercion inside np.array into a ValueError
        if COERCIONS:
            return f"a coercion ended in {error!r}:\n{COERCIONS[0]}"
        if isinstance(error, srcad.SrcadError):   # a clear refusal: not differentiated, never a wrong number
            return f"srcad refuses it: {error}"
        raise
    if COERCIONS:
        return f"a coercion was caught on the way:\n{COERCIONS[0]}"
    got, want = _raw_leaves(result), _raw_leaves(expected)
    if len(got) != len(want):
        return f"{len(got)} results with Duck inputs, {len(want)} with NumPy"
    for k, (g, w) in enumerate(zip(got, want)):
        if isinstance(g, np.ndarray):
            return f"result {k} is a NumPy array: the derivative left the duck array's type"
        if not np.allclose(unwrap(g), w, rtol=1e-12, atol=1e-14):
            return f"result {k} differs from NumPy's: {unwrap(g)!r} != {w!r}"
    return ""


def test_the_spec_table_mostly_dispatches():
    assert len(DISPATCHED) > len(ALL_CASES) // 2, f"only {len(DISPATCHED)} of {len(ALL_CASES)} cases dispatch"


def test_every_listed_row_has_a_reason_and_a_case():
    assert set(COERCING.values()) <= set(WHY)
    assert set(COERCING) <= {case.spec.label for case in DISPATCHED}


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("case", CLEAN, ids=[case.id for case in CLEAN])
def test_no_coercion(case, mode):
    failure = _duck_failure(case, mode)
    assert not failure, f"{case.id} {mode}: {failure}"


@pytest.mark.parametrize("label", sorted(COERCING))
def test_listed_rows_still_coerce(label):
    failures = [_duck_failure(case, mode) for case in LISTED if case.spec.label == label
                for mode in ("reverse", "forward")]
    assert any(failures), f"{label} works on duck arrays now: remove it from COERCING and the README"


def test_a_duck_gradient_is_a_duck():
    def f(x, w):
        return np.sum(np.tanh(x @ w) ** 2)
    x, w = np.random.default_rng(0).normal(size=(4, 3)), np.ones(3)
    gradient = srcad.grad(f, wrt=(0, 1))(Duck(x), Duck(w))
    assert all(isinstance(g, Duck) for g in gradient)
    for g, expected in zip(gradient, srcad.grad(f, wrt=(0, 1))(x, w)):
        np.testing.assert_allclose(g.data, expected, rtol=1e-13)
